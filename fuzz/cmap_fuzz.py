"""Differential fuzzing of the compiled CMap section parser (_core.cmap_section).

core_fuzz.py --target cmaps runs this inside its sanitizer build. Each
iteration mutates a CMap (the fixed seeds here, plus every ToUnicode and
embedded encoding CMap of --corpus): byte edits, CMap keywords and tokens
inserted, splices, truncation. It parses the mutant twice, with the
compiled section parser and with cmap.py's builder alone (RAGPREP_PURE=1).
A finding is an exception out of parse_cmap (it never raises), two CMaps
that differ in any field, or a mutant that takes more than SLOW CPU seconds
(a hang is only the slowest of these); a sanitizer report aborts the process.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from campaign import Campaign
from typing import Any

TOKENS = [
    b"begincodespacerange", b"endcodespacerange", b"beginbfchar", b"endbfchar", b"beginbfrange", b"endbfrange",
    b"begincidchar", b"endcidchar", b"begincidrange", b"endcidrange", b"beginnotdefchar", b"endnotdefchar",
    b"beginnotdefrange", b"endnotdefrange", b"usecmap", b"def", b"/WMode", b"/CMapName", b"/Identity-H",
    b"<", b">", b"<>", b"<0>", b"<00>", b"<FF>", b"<0000>", b"<FFFF>", b"<D800>", b"<DFFF>", b"<FEFF>",
    b"<00000000>", b"<FFFFFFFF>", b"<FFFFFFFFFFFFFF>", b"<0102030405060708>", b"<010203040506070809>",
    b"<0 0 4 1>", b"<zz>", b"[", b"]", b"[<0041> <0042>]", b"(", b")", b"(a)", b"%", b"\n", b" ", b"\t", b"\x0b",
    b"\x00", b"0", b"1", b"255", b"65535", b"999999999999999999", b"9999999999999999999", b"-1", b"1.5", b"{", b"}",
]  # fmt: skip

SEEDS = [
    b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /F-UCS def /CMapType 2 def\n"
    b"1 begincodespacerange <00> <FF> endcodespacerange\n"
    b"3 beginbfchar <01> <0041> <02> <00660069> <03> <D835DC00> endbfchar\n"
    b"2 beginbfrange <20> <7E> <0020> <80> <82> [<20AC> <> <201A>] endbfrange\n"
    b"endcmap CMapName currentdict /CMap defineresource pop end end\n",
    b"/CMapName /Test-H def /WMode 1 def /Identity-H usecmap\n"
    b"2 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange\n"
    b"2 begincidrange <0000> <00FF> 1 <8140> <817E> 633 endcidrange\n"
    b"1 begincidchar <8180> 700 endcidchar 1 beginnotdefrange <00> <1F> 1 endnotdefrange\n"
    b"1 beginnotdefchar <7F> 2 endnotdefchar\n",
    b"1 beginbfrange <0000> <FFFF> <0000> endbfrange 1 beginbfrange <D7F0> <D810> <D7F0> endbfrange\n"
    b"2 beginbfchar <02><091c 093e> <3> <004> endbfchar\n",
]


def corpus_cmaps(corpus: Path) -> Iterator[tuple[str, bytes]]:
    """Every ToUnicode and embedded encoding CMap stream under `corpus`, once per stream."""
    import pikepdf

    for path in sorted(corpus.rglob("*.pdf")):
        try:
            pdf = pikepdf.open(path)
        except (pikepdf.PdfError, pikepdf.PasswordError):
            continue  # unreadable files hold no CMaps to read
        with pdf:
            seen: set[tuple[int, int]] = set()
            for obj in pdf.objects:
                if not isinstance(obj, pikepdf.Dictionary) or obj.get("/Type") != "/Font":
                    continue
                for key in ("/ToUnicode", "/Encoding"):
                    stream = obj.get(key)
                    if isinstance(stream, pikepdf.Stream) and stream.objgen not in seen:
                        seen.add(stream.objgen)
                        try:
                            yield f"{path.relative_to(corpus)} {stream.objgen}", stream.read_bytes()
                        except pikepdf.PdfError:
                            continue


def parse_both(data: bytes) -> tuple[Any, Any]:
    """(reference, compiled) CMaps of `data`."""
    from ragprep.extract.compiled import PURE_ENV
    from ragprep.extract.fonts.cmap import parse_cmap

    saved = os.environ.get(PURE_ENV)
    try:
        os.environ[PURE_ENV] = "1"
        reference = parse_cmap(data)
        os.environ.pop(PURE_ENV)
        compiled = parse_cmap(data)
    finally:
        if saved is not None:
            os.environ[PURE_ENV] = saved
    return reference, compiled


def same_cmap(reference: Any, compiled: Any) -> bool:
    """Every field equal, and the unicode and CID tables in the same code order."""
    return (
        dataclasses.asdict(reference) == dataclasses.asdict(compiled)
        and list(reference.unicode.items()) == list(compiled.unicode.items())
        and list(reference.cids.items()) == list(compiled.cids.items())
    )


# CPU seconds both parses of one mutant may take (the seeds take milliseconds;
# a slower mutant is an input whose cost is not linear in its size).
SLOW = 5.0


def _finding(data: bytes) -> str | None:
    """What is wrong with parsing `data` on the two paths, None when nothing is."""
    start = time.process_time()
    try:
        same = same_cmap(*parse_both(data))
    except Exception as exc:  # parse_cmap turns bad input into warnings: any exception is a finding
        return f"exception {type(exc).__name__}: {exc}"
    if time.process_time() - start > SLOW:
        return f"slow: {time.process_time() - start:.1f} CPU s"
    return None if same else "CMaps differ"


Mutate = Callable[[random.Random, bytes, list[bytes], int, list[bytes]], bytes]


def run(args: argparse.Namespace, mutate: Mutate) -> int:
    rng = random.Random(args.seed)
    seeds = list(SEEDS)
    if args.corpus:
        seeds += [data[: args.max_seed_bytes] for _, data in corpus_cmaps(Path(args.corpus))]
    crash_file = Path(args.crash_file)
    campaign = Campaign(args.seconds, args.report)
    runs = findings = 0
    while campaign.running(runs=runs, findings=findings):
        data = seeds[runs] if runs < len(seeds) else mutate(rng, rng.choice(seeds), seeds, 8, TOKENS)
        crash_file.write_bytes(data)
        finding = _finding(data)
        if finding:
            findings += 1
            print(f"{finding}: run {runs}, input {data[:300]!r}", file=sys.stderr)
        runs += 1
    crash_file.unlink(missing_ok=True)
    print(f"cmaps: seeds {len(seeds)}  runs: {runs}  cpu seconds: {campaign.cpu:.0f}  findings: {findings}")
    return 1 if findings else 0
