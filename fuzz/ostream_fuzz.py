"""Differential fuzzing of the compiled object stream header reader (_core.object_stream_spans).

core_fuzz.py --target ostreams runs this inside its sanitizer build. Each
iteration takes an object stream (fixed seeds here, plus the object streams
of the tagged files of --corpus), mutates its header and body (byte edits,
integers, blanks and signs inserted, splices, truncation), and picks /First,
/N and the members the cross-reference table gives it near their own values
or anywhere. It reads the header twice: with the compiled reader and with
structure_objects._header_spans, its reference, and parses the spans the
compiled reader gives with parse_objects (§7.5.7, what the tree is read
from); and it builds the node arena (_core.TreeObjects) twice, reading the
header itself and from the reference's spans, whose objects must be the
same (value() of each). A finding is an exception out of the compiled reader or
parse_objects other than the ValueError of bytes that are no object, or
spans that differ from the reference's where the compiled reader reads the
header (it hands what it does not read to the reference: NotImplemented); a
sanitizer report aborts the process.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

from campaign import Campaign

TOKENS = [
    b"0", b"1", b"-1", b"+2", b"-0", b"007", b"12", b"999999999999999999", b"9999999999999999999", b"1_0",
    b"null", b"<<", b">>", b"[", b"]", b"x", b"\x00", b"\x0b", b"\x0c", b"\t", b"\r\n", b" ", b"-", b"+",
    b"\xff", b"1 0 R", b"<< /S /P /K 0 >>",
]  # fmt: skip

# (data, /First, /N, members)
SEEDS = [
    (b"1 0 2 3\n[] null", 8, 2, {1, 2}),
    (b"10 0 11 21 12 36\n<< /S /P /K [1 2] /Pg 5 0 R >> [ 11 0 R 3 ] << /Type /MCR /MCID 4 >>", 17, 3, {10, 11, 12}),
    (b"5 0 6 0 7 3\n[1][2]", 12, 3, {5, 6, 7}),
]


def _corpus_streams(corpus: str | None, limit: int) -> list[tuple[bytes, int, int, set[int]]]:
    """The object streams of the tagged corpus files, header and all."""
    if not corpus:
        return []
    import pikepdf
    from test_structure_objects import _stream_headers  # on the path: see run

    found: list[tuple[bytes, int, int, set[int]]] = []
    for path in sorted(Path(corpus).glob("tagged/*.pdf")):
        try:
            with pikepdf.open(path) as pdf:
                found.extend((data[:limit], first, count, held) for data, first, count, held in _stream_headers(pdf))
        except (pikepdf.PdfError, pikepdf.PasswordError):
            continue
    return found


def _near(rng: random.Random, value: int, span: int) -> int:
    """`value`, a value close to it, or one anywhere in [-span, 2 span]."""
    pick = rng.randrange(4)
    if pick == 0:
        return value
    if pick == 1:
        return value + rng.randint(-3, 3)
    if pick == 2:
        return rng.randint(-span, 2 * span)
    return rng.choice([0, -1, 2**31, 2**62, -(2**62)])


def _mutant(rng: random.Random, seed: tuple[bytes, int, int, set[int]], mutate: Callable[..., bytes]):
    data, first, count, members = seed
    header, body = data[:first], data[first:]
    header = mutate(rng, header, [header], 4, TOKENS) if rng.random() < 0.8 else header
    body = mutate(rng, body, [body], 2, TOKENS) if rng.random() < 0.3 else body
    data = header + body
    first = min(max(_near(rng, len(header), len(data)), 0), len(data))
    count = _near(rng, count, 64)
    members = {n for n in members if rng.random() < 0.9} | {rng.randint(0, 64) for _ in range(rng.randrange(3))}
    return data, first, count, members


def _one(mutant: tuple[bytes, int, int, set[int]]) -> str:
    """"read" (the compiled reader read the header as the reference does and
    its spans parse without a finding), "left" (to the reference), or "finding"."""
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _header_spans

    data, first, count, members = mutant
    compiled = _core.object_stream_spans(data, first, count, members)
    if not _nodes_agree(mutant, compiled):
        return "finding"
    if compiled is NotImplemented:
        return "left"
    if compiled != _header_spans(data, first, count, members):
        return "finding"
    if compiled:
        # The spans as they are (structure_objects hands them over so), into a cache.
        _core.parse_objects(data, compiled, {(1, 0)}, lambda ref: ref[0] % 2 == 0, b"", [None] * 8, {})
    return "read"


def _nodes_agree(mutant: tuple[bytes, int, int, set[int]], compiled: object) -> bool:
    """_core.TreeObjects reading the header itself, (data, first, count,
    members), against TreeObjects given the reference's spans with the
    present bitmap PlainObjects builds from them: the same objects, each of
    the same value(); incomplete where only the reference reads the header."""
    from test_structure_objects import _nodes_by_header_and_by_spans  # on the path: see run

    data, first, count, members = mutant
    by_header, by_spans = _nodes_by_header_and_by_spans(data, first, count, members)
    if compiled is NotImplemented:
        return not by_header.complete
    if by_header.complete != by_spans.complete:
        return False
    for number in members | set(range(-1, 66)):
        one, two = by_header.value(number), by_spans.value(number)
        if not (one == two or one is two is NotImplemented):
            return False
    return True


def run(args: argparse.Namespace, mutate: Callable[..., bytes]) -> int:
    rng = random.Random(args.seed)
    tests = Path(__file__).resolve().parents[1] / "tests"
    sys.path[:0] = [str(tests), str(tests / "extract")]  # the builder, and the test's readings of headers and nodes
    seeds = SEEDS + _corpus_streams(args.corpus, 20_000)
    campaign = Campaign(args.seconds, args.report)
    runs = findings = read = 0
    crash_file = Path(args.crash_file)
    while campaign.running(runs=runs, read=read, findings=findings):
        mutant = _mutant(rng, rng.choice(seeds), mutate)
        crash_file.write_bytes(repr(mutant[1:]).encode() + b"\n" + mutant[0])
        try:
            outcome = _one(mutant)
        except Exception as exc:  # a finding: the reader answers None or spans, never raises
            print(f"exception {type(exc).__name__}: {exc}", file=sys.stderr)
            outcome = "finding"
        if outcome == "finding":
            findings += 1
            print(f"headers read differently: run {runs}, first {mutant[1]}, count {mutant[2]}", file=sys.stderr)
        read += outcome == "read"
        runs += 1
    crash_file.unlink(missing_ok=True)
    print(f"headers read by the core: {read}  left to the reference: {runs - read - findings}")
    print(f"streams: {len(seeds)}  runs: {runs}  cpu seconds: {campaign.cpu:.0f}  findings: {findings}")
    return 1 if findings else 0
