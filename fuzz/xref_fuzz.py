"""Differential fuzzing of the compiled cross-reference reader (_core.xref_table).

core_fuzz.py --target xref runs this inside its sanitizer build. Each
iteration writes a small PDF whose table is drawn at random, section by
section along /Prev (classic sections, hybrid ones with an /XRefStm,
cross-reference streams with random /W widths, /Index runs, PNG row
filters or none), most entries true to the objects and some not (free
entries, other generations, unknown types, offsets off their objects,
numbers past the file, objects in object streams), then, most of the time,
mutates its bytes (byte edits, PDF tokens inserted, splices, truncation), or
the tail of a corpus file's bytes (--corpus: its files up to 2 MB). One
drawn file in ten is first saved encrypted by qpdf (_encrypted: read_xref
reads an encrypted file's table from its bytes since main's 0a622a3).

It reads the table twice: with the compiled reader and with
xref._reference_table, its reference; where both read it, qpdf opens the
bytes and its table (pikepdf's get_xref_table) must be the same, entry for
entry, with each object stream's members; and the spans of the objects
written in the file (_core.written_spans over the table's columns) must be
those of _WrittenObjects._spans, their reference; and the object streams
read from the bytes (_core.object_streams) those of
xref._reference_object_stream, and qpdf's where qpdf opens the file; and
the nodes (_core.TreeObjects) read off the table's columns those read off
its members' sets and the reference's spans. A finding is an exception
out of either reader, answers that differ, or a table that differs from
qpdf's; a sanitizer report aborts the process.
"""

from __future__ import annotations

import argparse
import array
import io
import random
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

from campaign import Campaign

TOKENS = [
    b"xref", b"trailer", b"startxref", b"obj", b"endobj", b"stream\r\n", b"stream\n", b">stream\r", b"endstream",
    b"/Prev 0", b"/XRefStm 9",
    b"/W [1 2 1]", b"/Index [0 3]", b"/Size 4", b"/Type /XRef", b"/Length 5", b"0000000000 65535 f\r\n",
    b"0000000009 00000 n\r\n", b"0 1\n", b"<<", b">>", b"[", b"]", b"(", b")", b"%", b"\x00", b"\x0b", b"\r",
    b"\n", b" ", b"-1", b"999999999999999999999", b"/FlateDecode", b"/DecodeParms << /Predictor 12 /Columns 4 >>",
]  # fmt: skip

_CATALOG = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 9 9] /Resources << >> >>"]  # fmt: skip


def _png(rows: list[bytes], rng: random.Random) -> bytes:
    """Rows PNG-filtered (§7.4.4.4), each with a filter drawn at random (5, 6: unknown ones)."""
    out, above = b"", bytes(len(rows[0]))
    for row in rows:
        kind = rng.randrange(7)
        encoded = bytearray()
        for i, byte in enumerate(row):
            left, up, corner = (row[i - 1] if i else 0), above[i], (above[i - 1] if i else 0)
            p = left + up - corner
            paeth = (
                left if abs(p - left) <= abs(p - up) and abs(p - left) <= abs(p - corner)
                else up if abs(p - up) <= abs(p - corner) else corner
            )  # fmt: skip
            predicted = (0, left, up, (left + up) // 2, paeth, 0, 0)[kind]
            encoded.append((byte - predicted) & 255)
        out += bytes([kind]) + bytes(encoded)
        above = row
    return out


class _File:
    """A PDF being written: objects (some in an object stream), then sections."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.noise = rng.choice([0.0, 0.0, 0.03, 0.1, 0.5])  # the share of entries drawn untrue
        self.data = bytearray(b"%PDF-1.7\n")
        self.where: dict[int, tuple[int, ...]] = {}  # number -> (1, offset, generation) or (2, stream, index)
        count = rng.randint(3, 12)
        for number in range(1, count + 1):
            body = _CATALOG[number - 1] if number <= 3 else b"(object %d)" % number
            generation = rng.choice([0, 0, 0, 1])
            self.where[number] = (1, len(self.data), generation)
            self.data += b"%d %d obj\n%s\nendobj\n" % (number, generation, body)
        if rng.random() < 0.6:
            self._object_stream(count + 1, rng.randint(1, 5))

    def _object_stream(self, number: int, held: int) -> None:
        header = body = b""
        for k in range(held):
            header += b"%d %d " % (number + 1 + k, len(body))
            body += b"[%d] " % k
            self.where[number + 1 + k] = (2, number, k)
        # Deflated (most), as written, or with what only qpdf reads: a predictor, bytes after the zlib stream.
        packed, filters = zlib.compress(header + body), b"/Filter /FlateDecode"
        form = self.rng.randrange(6)
        if form == 1:
            packed, filters = header + body, b""
        elif form == 2:
            filters += b" /DecodeParms << /Predictor 1 >>"
        elif form == 3:
            packed += b"\r\n"
        self.where[number] = (1, len(self.data), 0)
        self.data += b"%d 0 obj\n<< /Type /ObjStm /N %d /First %d %s /Length %d >>\nstream\n%s\nendstream\nendobj\n" % (
            number, held, len(header), filters, len(packed), packed)  # fmt: skip

    def entry(self, number: int) -> tuple[int, int, int]:
        """(type, second, third) of `number`: mostly the truth, sometimes not."""
        rng, truth = self.rng, self.where.get(number, (0, 0, 65535))
        pick = rng.randrange(4) if rng.random() < self.noise else 4
        if pick == 0:
            return (0, 0, rng.choice([0, 1, 65535]))
        if pick == 1:
            return (truth[0], truth[1] + rng.choice([-1, 1]), truth[2])
        if pick == 2:
            return (rng.choice([1, 2, 3, 255]), rng.randrange(1 << 16), rng.randrange(4))
        if pick == 3 and truth[0] == 1:
            return (1, truth[1], truth[2] + 1)
        return (truth[0], truth[1], truth[2])

    def classic(self, numbers: list[int], trailer: bytes) -> int:
        at = len(self.data)
        self.data += b"xref\n"
        for first, run in _runs(numbers):
            self.data += b"%d %d\n" % (first, len(run))
            for number in run:
                kind, second, third = self.entry(number)
                kind_letter = b"n" if kind == 1 else b"f"
                self.data += b"%010d %05d %s\r\n" % (second % 10**10, third % 10**5, kind_letter)
        self.data += b"trailer\n" + trailer + b"\n"
        return at

    def stream(self, number: int, numbers: list[int], extra: bytes) -> int:
        rng = self.rng
        widths = [rng.choice([0, 1, 1, 1, 2]), rng.choice([2, 3, 4, 8]), rng.choice([0, 1, 2])]
        rows = []
        for n in numbers:
            kind, second, third = self.entry(n)
            fields = [kind, second, third]
            rows.append(b"".join((v % (1 << (8 * w))).to_bytes(w, "big") for v, w in zip(fields, widths, strict=True)))
        index = b" ".join(b"%d %d" % (first, len(run)) for first, run in _runs(numbers))
        raw = b"".join(rows)
        if rng.random() < 0.6 and sum(widths):
            data, filters = (
                zlib.compress(_png(rows, rng)),
                b"/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns %d >>" % sum(widths),
            )
        elif rng.random() < 0.5:
            data, filters = zlib.compress(raw), b"/Filter /FlateDecode"
        else:
            data, filters = raw, b""
        at = len(self.data)
        self.where[number] = (1, at, 0)
        self.data += b"%d 0 obj\n<< /Type /XRef /W [%d %d %d] /Index [%s] /Size %d /Length %d %s %s >>\nstream\r\n%s\r\nendstream\nendobj\n" % (
            number, *widths, index, max(numbers, default=0) + 1, len(data), filters, extra, data)  # fmt: skip
        return at


def _runs(numbers: list[int]) -> list[tuple[int, list[int]]]:
    runs: list[tuple[int, list[int]]] = []
    for number in sorted(numbers):
        if runs and runs[-1][1][-1] == number - 1:
            runs[-1][1].append(number)
        else:
            runs.append((number, [number]))
    return runs


def _random_file(rng: random.Random) -> bytes:
    """A file of one to three sections along /Prev, each classic, hybrid or a stream."""
    f = _File(rng)
    top = max(f.where) + 1
    previous = 0
    for section in range(rng.randint(1, 3)):
        numbers = sorted(rng.sample(range(0, top + 3), rng.randint(1, top + 2)))
        prev = b"/Prev %d" % previous if previous else b""
        size = top + 4 + section
        kind = rng.randrange(3)
        if kind == 0:
            previous = f.stream(size - 1, numbers, b"/Root 1 0 R " + prev)
        else:
            hybrid = b""
            if kind == 2:
                hybrid = b"/XRefStm %d" % f.stream(size - 1, rng.sample(numbers, max(1, len(numbers) // 2)), b"")
            previous = f.classic(numbers, b"<< /Size %d /Root 1 0 R %s %s >>" % (size, prev, hybrid))
    return bytes(f.data + b"startxref\n%d\n%%%%EOF\n" % previous)


def _corpus_files(corpus: str | None) -> list[bytes]:
    if not corpus:
        return []
    return [path.read_bytes() for path in sorted(Path(corpus).rglob("*.pdf")) if path.stat().st_size <= 2_000_000]


def _mutant(rng: random.Random, files: list[bytes], mutate: Callable[..., bytes]) -> bytes:
    if files and rng.random() < 0.2:  # a corpus file, its tail mutated (where its sections are)
        data = rng.choice(files)
        cut = max(0, len(data) - rng.choice([300, 2000, 20000]))
        return data[:cut] + mutate(rng, data[cut:], [data[cut:]], 3, TOKENS)
    data = _random_file(rng)
    if rng.random() < 0.1:
        data = _encrypted(rng, data) or data
    return data if rng.random() < 0.5 else mutate(rng, data, [data], 3, TOKENS)


def _encrypted(rng: random.Random, data: bytes) -> bytes | None:
    """`data` as qpdf writes it encrypted (RC4 or AES, object streams or
    not): its strings and streams encrypted (§7.6), its cross-reference
    sections in the clear (§7.5.8.2), which read_xref reads (main's
    0a622a3); None where qpdf does not open `data`."""
    import pikepdf

    try:
        with pikepdf.open(io.BytesIO(data)) as pdf:
            out = io.BytesIO()
            mode = rng.choice((pikepdf.ObjectStreamMode.preserve, pikepdf.ObjectStreamMode.generate))
            pdf.save(
                out, encryption=pikepdf.Encryption(owner="o", user="", R=rng.choice((3, 4, 6))), object_stream_mode=mode
            )
            return out.getvalue()
    except (pikepdf.PdfError, RuntimeError, ValueError):
        return None


def _qpdf_table(data: bytes) -> object:
    """qpdf's table as test_xref._qpdf_entries gives it, None when qpdf cannot open the bytes."""
    import pikepdf
    from test_xref import _qpdf_entries  # on the path: see run

    try:
        with pikepdf.open(io.BytesIO(data)) as pdf:
            return _qpdf_entries(pdf)
    except (pikepdf.PdfError, pikepdf.PasswordError, RuntimeError, ValueError):
        return None


def _same_table(found: tuple, theirs: tuple) -> bool:
    """The reader's answer is qpdf's table (test_xref._entries), each stream's members in qpdf's order too."""
    from test_xref import _entries

    ours = _entries(found)
    return ours == theirs and list(ours[1]) == list(theirs[1])


def _one(data: bytes) -> str:
    """ "read" (both readers read it, as qpdf does), "left" (to qpdf by both), or "finding"."""
    from ragprep.extract import _core
    from ragprep.extract.xref import _reference_table

    compiled = _core.xref_table(data)
    if compiled != _reference_table(data):
        print("the compiled reader and its reference differ", file=sys.stderr)
        return "finding"
    if compiled is None:
        return "left"
    theirs = _qpdf_table(data)
    if theirs is not None and not _same_table(compiled, theirs):
        print("the table differs from qpdf's", file=sys.stderr)
        return "finding"
    if not _written_alike(data, compiled):
        print("the written objects' spans differ from the reference's", file=sys.stderr)
        return "finding"
    if not _object_streams_alike(data, compiled, theirs is not None):
        return "finding"
    if not _nodes_alike(data, compiled):
        print("the nodes read off the columns differ from those off the members and spans", file=sys.stderr)
        return "finding"
    return "read"


def _nodes_alike(data: bytes, found: tuple) -> bool:
    """_core.TreeObjects off the table's columns (each stream's members by
    its number, the written objects as (data,)) against the same off the
    members' sets and _WrittenObjects._spans (test_xref._nodes_both_ways):
    each number's value, and whether complete."""
    from test_xref import _nodes_both_ways
    from ragprep.extract.xref import XrefColumns

    kinds, second, third, streams, top, count = found
    table = XrefColumns(kinds, memoryview(second).cast("q"), memoryview(third).cast("q"), streams, top, count, data)
    by_columns, by_sets, numbers = _nodes_both_ways(table)
    if by_columns.complete != by_sets.complete:
        return False
    for number in range(numbers):
        one, two = by_columns.value(number), by_sets.value(number)
        if not (one == two or one is two is NotImplemented):
            return False
    return True


def _object_streams_alike(data: bytes, found: tuple, qpdf_reads: bool) -> bool:
    """_core.object_streams over the table's streams (and a number of every
    other kind) against xref._reference_object_stream, its reference; where
    qpdf opens the bytes, each stream read as qpdf reads it (read_bytes,
    /First, /N)."""
    import pikepdf
    from ragprep.extract import _core
    from ragprep.extract.xref import XrefColumns, _inflated_whole

    kinds, second, third, streams, top, count = found
    table = XrefColumns(kinds, memoryview(second).cast("q"), memoryview(third).cast("q"), streams, top, count, data)
    numbers = [*streams, *range(len(kinds) + 1)]
    compiled = _core.object_streams(data, kinds, second, third, numbers, _inflated_whole)
    if compiled != [table._reference_object_stream(number) for number in numbers]:
        print("the object streams differ from the reference's", file=sys.stderr)
        return False
    if not qpdf_reads or not any(compiled):
        return True
    with pikepdf.open(io.BytesIO(data)) as pdf:
        if pdf.is_encrypted:  # qpdf decrypts its streams, the core reads the bytes: read_xref leaves them to qpdf
            return True
        for number, read in zip(numbers, compiled, strict=True):
            if read is not None:
                stream = pdf.get_object((number, 0))
                if read != (stream.read_bytes(), stream.stream_dict.get("/First"), stream.stream_dict.get("/N")):
                    print(f"object stream {number} differs from qpdf's", file=sys.stderr)
                    return False
    return True


def _written_alike(data: bytes, found: tuple) -> bool:
    """_core.written_spans over the table's columns against _WrittenObjects._spans, its reference."""
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _WrittenObjects

    kinds, second, third = found[:3]
    offsets, generations = array.array("q", second), array.array("q", third)
    placed = sorted((offsets[n], n) for n, kind in enumerate(kinds) if kind == 1 and generations[n] == 0)
    reference = _WrittenObjects._spans(data, placed)
    return _core.written_spans(data, kinds, second, third) == (reference.spans, reference.present)


def run(args: argparse.Namespace, mutate: Callable[..., bytes]) -> int:
    rng = random.Random(args.seed)
    tests = Path(__file__).resolve().parents[1] / "tests"
    sys.path[:0] = [str(tests), str(tests / "extract")]  # the builder, and test_xref's readings of tables
    files = _corpus_files(args.corpus)
    campaign = Campaign(args.seconds, args.report)
    runs = findings = read = 0
    crash_file = Path(args.crash_file)
    while campaign.running(runs=runs, read=read, findings=findings):
        data = _mutant(rng, files, mutate)
        crash_file.write_bytes(data)
        try:
            outcome = _one(data)
        except Exception as exc:  # a finding: the readers answer None or a table, never raise
            print(f"exception {type(exc).__name__}: {exc}", file=sys.stderr)
            outcome = "finding"
        if outcome == "finding":
            findings += 1
            crash_file.with_suffix(f".finding{findings}.pdf").write_bytes(data)
        read += outcome == "read"
        runs += 1
    crash_file.unlink(missing_ok=True)
    print(f"tables read: {read}  left to qpdf: {runs - read - findings}  corpus files: {len(files)}")
    print(f"runs: {runs}  cpu seconds: {campaign.cpu:.0f}  findings: {findings}")
    return 1 if findings else 0
