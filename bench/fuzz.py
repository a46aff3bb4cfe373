"""Fuzz campaign: whole-file mutants of seed PDFs, ragprep and its peers on each.

Each mutant is made at run time in a temporary folder (never in the
repository) from a seed PDF by one mutator: byte flips, truncation, xref and
trailer damage, /Length games, filter swaps, spliced garbage, deep nesting,
/Pages, /StructTreeRoot and form XObject cycles, bad content-stream tokens.
Every library reads every mutant in a forked child process under a time and
an address-space limit, and the child's fate is classified:

    ok          text came back (possibly empty)
    error       the library's own, documented error (ragprep: RagprepError)
    traceback   any other exception: a bug
    signal      the process died of a signal (SIGSEGV, SIGABRT, ...)
    timeout     still running after --timeout seconds (killed)
    oom         MemoryError under the address-space limit

Text recovery is compared with PyMuPDF: of the mutants PyMuPDF gets text
from, the share ragprep (and each peer) gets text from too.

    python bench/fuzz.py --mutants 1500 --out /tmp/fuzz.jsonl     # ~1-2 h on 2 busy cores
    python bench/fuzz.py --merge /tmp/a.jsonl /tmp/b.jsonl          # one table of several runs
    python bench/fuzz.py --mutants 60 --peers ragprep --seed 7      # quick look
    python bench/fuzz.py --keep /tmp/fuzz-failures                  # keep ragprep's failures

Run it under ``nice``; it reads the corpus and writes only to the temp folder,
--out and --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import signal
import sys
import tempfile
import time
import traceback
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

OUTCOMES = ("ok", "error", "traceback", "signal", "timeout", "oom")
LIBRARIES = ("ragprep", "pymupdf", "pypdf", "pdfminer", "pypdfium2")
_CLEAN, _TRACEBACK, _OOM = 3, 4, 5  # child exit codes
MIB = 1024 * 1024

Mutator = Callable[[bytes, random.Random, Path], bytes]


# --------------------------------------------------------------------------- mutators


def _flip(data: bytes, rng: random.Random, _: Path) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 24)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _truncate(data: bytes, rng: random.Random, _: Path) -> bytes:
    return data[: max(1, int(len(data) * rng.uniform(0.05, 0.995)))]


def _splice(data: bytes, rng: random.Random, _: Path) -> bytes:
    """A random chunk of the file copied over another place."""
    size = rng.randint(16, 4096)
    src, dst = rng.randrange(len(data)), rng.randrange(len(data))
    return data[:dst] + data[src : src + size] + data[dst + size :]


def _replace_one(data: bytes, pattern: bytes, rng: random.Random, make: Callable[[re.Match[bytes]], bytes]) -> bytes:
    matches = list(re.finditer(pattern, data))
    if not matches:
        return _flip(data, rng, Path())
    m = rng.choice(matches)
    return data[: m.start()] + make(m) + data[m.end() :]


def _xref_damage(data: bytes, rng: random.Random, _: Path) -> bytes:
    choice = rng.randrange(6)
    if choice == 0:  # startxref points elsewhere
        return _replace_one(data, rb"startxref\s+\d+", rng, lambda m: b"startxref\n%d" % rng.randrange(len(data)))
    if choice == 1:  # no trailer keyword
        return data.replace(b"trailer", b"trailor")
    if choice == 2:  # /Root renamed
        return data.replace(b"/Root", b"/Rooo")
    if choice == 3:  # xref entries shifted
        return _replace_one(data, rb"\d{10} \d{5} [nf]", rng, lambda m: b"%010d 00000 n" % rng.randrange(len(data)))
    if choice == 4:  # everything from the xref on is gone
        at = data.rfind(b"xref")
        return data[:at] if at > 0 else data[: len(data) // 2]
    # the /Pages object's /Kids removed
    return _replace_one(data, rb"/Kids\s*\[[^\]]*\]", rng, lambda m: b"/Kidz []")


def _length_games(data: bytes, rng: random.Random, _: Path) -> bytes:
    def make(m: re.Match[bytes]) -> bytes:
        n = int(m.group(1))
        value = rng.choice([b"0", b"%d" % (n // 2), b"%d" % (n + rng.randint(1, 5000)), b"99999999", b"-1", b"9999 0 R"])
        return b"/Length " + value

    return _replace_one(data, rb"/Length\s+(\d+)(?!\s+\d+\s+R)", rng, make)


def _filter_swap(data: bytes, rng: random.Random, _: Path) -> bytes:
    other = rng.choice(
        [b"/LZWDecode", b"/ASCIIHexDecode", b"/RunLengthDecode", b"/DCTDecode", b"/NoSuchDecode",
         b"[/FlateDecode /FlateDecode]", b"[/ASCII85Decode /FlateDecode]", b"/Crypt"]
    )  # fmt: skip
    return _replace_one(data, rb"/FlateDecode", rng, lambda m: other)


def _with_pikepdf(edit: Callable[["object", random.Random], None]) -> Mutator:
    """A structural mutator: edit the seed with pikepdf, save without repair."""

    def mutate(data: bytes, rng: random.Random, tmp: Path) -> bytes:
        import io

        import pikepdf

        try:
            with pikepdf.open(io.BytesIO(data)) as pdf:
                edit(pdf, rng)
                out = io.BytesIO()
                pdf.save(
                    out,
                    object_stream_mode=pikepdf.ObjectStreamMode.disable,
                    fix_metadata_version=False,
                    deterministic_id=True,
                )
                return out.getvalue()
        except Exception:  # the seed or the edit is beyond pikepdf: fall back to bytes
            return _flip(data, rng, tmp)

    return mutate


def _pages_cycle(pdf: "object", rng: random.Random) -> None:
    root = pdf.Root.Pages  # type: ignore[attr-defined]
    if rng.random() < 0.5:
        root.Kids.append(root)
    else:
        page = pdf.pages[rng.randrange(len(pdf.pages))].obj  # type: ignore[attr-defined]
        page.Type = "/Pages"
        page.Kids = [root]


def _struct_cycle(pdf: "object", rng: random.Random) -> None:
    import pikepdf

    tree = pdf.Root.get("/StructTreeRoot")  # type: ignore[attr-defined]
    if tree is None:
        tree = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructTreeRoot))  # type: ignore[attr-defined]
        pdf.Root.StructTreeRoot = tree  # type: ignore[attr-defined]
    elem = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.P, P=tree))  # type: ignore[attr-defined]
    elem.K = pikepdf.Array([elem, tree, 0])
    tree.K = pikepdf.Array([elem, tree])
    tree.ParentTree = pikepdf.Dictionary(Nums=pikepdf.Array([0, elem]))


def _xobject_cycle(pdf: "object", rng: random.Random) -> None:
    import pikepdf

    page = pdf.pages[rng.randrange(len(pdf.pages))]  # type: ignore[attr-defined]
    a = pdf.make_stream(b"/Fz1 Do q 1 0 0 1 5 5 cm /Fz0 Do Q")  # type: ignore[attr-defined]
    b = pdf.make_stream(b"/Fz0 Do")  # type: ignore[attr-defined]
    for form in (a, b):
        form.Type, form.Subtype = pikepdf.Name.XObject, pikepdf.Name.Form
        form.BBox = pikepdf.Array([0, 0, 612, 792])
        form.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Fz0=a, Fz1=b))
    resources = page.obj.get("/Resources")
    if resources is None:
        page.obj.Resources = resources = pikepdf.Dictionary()
    if "/XObject" not in resources:
        resources.XObject = pikepdf.Dictionary()
    resources.XObject.Fz0 = a
    page.contents_add(pdf.make_stream(b"q /Fz0 Do Q"))  # type: ignore[attr-defined]


def _deep_nesting(pdf: "object", rng: random.Random) -> None:
    import pikepdf

    page = pdf.pages[rng.randrange(len(pdf.pages))]  # type: ignore[attr-defined]
    depth = rng.choice([200, 5000, 50000])
    kind = rng.randrange(3)
    if kind == 0:  # nested arrays in a content stream
        page.contents_add(pdf.make_stream(b"[" * depth + b"]" * depth + b" TJ"))  # type: ignore[attr-defined]
    elif kind == 1:  # nested q in a content stream, text at the bottom
        page.contents_add(pdf.make_stream(b"q " * depth + b"BT (deep) Tj ET" + b" Q" * depth))  # type: ignore[attr-defined]
    else:  # a deeply nested array in the page dictionary
        nested = pikepdf.Array()
        for _ in range(min(depth, 2000)):
            nested = pikepdf.Array([nested])
        page.obj.Deep = nested


def _bad_tokens(pdf: "object", rng: random.Random) -> None:
    page = pdf.pages[rng.randrange(len(pdf.pages))]  # type: ignore[attr-defined]
    bad = rng.choice([b"[1 0 R] TJ", b"<< /A 1 0 R >> BDC", b"1 0 R Tj", b") Tj", b"(unclosed Tj", b"<zz> Tj", b"/ Tf"])
    page.contents_add(pdf.make_stream(bad), prepend=rng.random() < 0.5)  # type: ignore[attr-defined]


def _operator_flood(pdf: "object", rng: random.Random) -> None:
    """Many path operators in one small flate stream (an operator bomb)."""
    page = pdf.pages[rng.randrange(len(pdf.pages))]  # type: ignore[attr-defined]
    stream = pdf.make_stream(zlib.compress(b"0 0 m 1 1 l " * rng.choice([10_000, 400_000]), 9))  # type: ignore[attr-defined]
    stream.Filter = "/FlateDecode"
    page.contents_add(stream)


MUTATORS: dict[str, Mutator] = {
    "flip": _flip,
    "truncate": _truncate,
    "splice": _splice,
    "xref": _xref_damage,
    "length": _length_games,
    "filter": _filter_swap,
    "pages-cycle": _with_pikepdf(_pages_cycle),
    "struct-cycle": _with_pikepdf(_struct_cycle),
    "xobject-cycle": _with_pikepdf(_xobject_cycle),
    "nesting": _with_pikepdf(_deep_nesting),
    "bad-tokens": _with_pikepdf(_bad_tokens),
    "operator-flood": _with_pikepdf(_operator_flood),
}


@dataclass(frozen=True)
class Mutant:
    name: str
    seed: str
    mutator: str
    path: Path


def normalize(data: bytes) -> bytes:
    """The seed saved without object streams, so byte mutators see its objects."""
    import io

    import pikepdf

    try:
        with pikepdf.open(io.BytesIO(data)) as pdf:
            out = io.BytesIO()
            pdf.save(out, object_stream_mode=pikepdf.ObjectStreamMode.disable, deterministic_id=True)
            return out.getvalue()
    except Exception:  # a seed pikepdf cannot rewrite stays as it is
        return data


def make_mutants(
    seeds: Sequence[tuple[str, bytes]], count: int, rng_seed: int, folder: Path, shard: tuple[int, int] = (1, 1)
) -> list[Mutant]:
    """`count` mutants, mutators and seeds in turn, reproducible from
    `rng_seed`; of them, every shard[1]-th from the shard[0]-th (the same
    mutant has the same name and bytes in every shard layout)."""
    rng = random.Random(rng_seed)
    names = list(MUTATORS)
    normalized = [(label, normalize(data)) for label, data in seeds]
    mutants = []
    first, step = shard
    for i in range(count):
        mutant_rng = random.Random(rng.getrandbits(64))
        if i % step != first - 1:
            continue
        label, data = normalized[i % len(normalized)]
        mutator = names[(i // len(normalized) + i) % len(names)]
        mutated = MUTATORS[mutator](data, mutant_rng, folder)
        path = folder / f"m{i:05d}.pdf"
        path.write_bytes(mutated)
        mutants.append(Mutant(path.name, label, mutator, path))
    return mutants


# --------------------------------------------------------------------------- readers


def _clean_errors(library: str) -> tuple[type[BaseException], ...]:
    """The exceptions a library documents for bad input."""
    if library == "ragprep":
        from ragprep.extract import RagprepError

        return (RagprepError,)
    if library == "pymupdf":
        return (RuntimeError, ValueError)  # FileDataError, EmptyFileError and MuPDF's errors
    if library == "pypdf":
        from pypdf.errors import PyPdfError

        return (PyPdfError,)
    if library == "pdfminer":
        from pdfminer.pdftypes import PDFException
        from pdfminer.psexceptions import PSException

        return (PDFException, PSException)
    import pypdfium2

    return (pypdfium2.PdfiumError,)


def _reader(library: str) -> Callable[[Path], str]:
    """Path -> text for each library (bench/_corpus.py's wrappers, joined)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _corpus import make_extractor, quiet_peers

    quiet_peers()
    if library == "ragprep":
        from ragprep.extract import extract_document

        return lambda path: "\n".join(p.text for p in extract_document(path).pages)
    _, extract = make_extractor(library)
    return lambda path: "\n".join(extract(path))


@dataclass
class Outcome:
    outcome: str
    chars: int = 0
    detail: str = ""
    stderr: str = ""
    seconds: float = 0.0


@dataclass
class Readers:
    """Each library's reader and clean-error types, loaded once in this
    process so that forked children start warm."""

    libraries: Sequence[str]
    readers: dict[str, Callable[[Path], str]] = field(default_factory=dict)
    clean: dict[str, tuple[type[BaseException], ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for library in self.libraries:
            self.readers[library] = _reader(library)
            self.clean[library] = _clean_errors(library)


def _vm_size() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def _child(readers: Readers, library: str, path: Path, out_fd: int, err_fd: int, memory_mb: int) -> None:
    """Runs in the forked child: read, report on `out_fd`, exit with a code."""
    import resource

    os.dup2(err_fd, 2)
    limit = _vm_size() + memory_mb * MIB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    code, report = 0, {}
    try:
        text = readers.readers[library](path)
        report = {"chars": len("".join(text.split()))}
    except MemoryError:
        code, report = _OOM, {"detail": "MemoryError"}
    except readers.clean[library] as exc:
        code, report = _CLEAN, {"detail": f"{type(exc).__name__}: {exc}"[:300]}
    except BaseException as exc:  # noqa: BLE001 - this is what the campaign looks for
        where = traceback.extract_tb(exc.__traceback__)[-1]
        detail = f"{type(exc).__name__}: {exc} at {os.path.basename(where.filename)}:{where.lineno}"
        code, report = _TRACEBACK, {"detail": detail[:400]}
    try:
        os.write(out_fd, json.dumps(report).encode())
    finally:
        os._exit(code)


def run_one(readers: Readers, library: str, path: Path, timeout: float, memory_mb: int) -> Outcome:
    """One library on one file in a forked child under the limits."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(out_r)
        os.close(err_r)
        _child(readers, library, path, out_w, err_w, memory_mb)
    os.close(out_w)
    os.close(err_w)
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    open_fds = [out_r, err_r]
    timed_out = False
    while open_fds:
        left = timeout - (time.monotonic() - started)
        if left <= 0:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select(open_fds, [], [], left)
        for fd in ready:
            data = os.read(fd, 65536)
            if data:
                if sum(map(len, chunks[fd])) < 4096:
                    chunks[fd].append(data)
            else:
                open_fds.remove(fd)
    _, status = os.waitpid(pid, 0)
    seconds = time.monotonic() - started
    for fd in (out_r, err_r):
        os.close(fd)
    stderr = b"".join(chunks[err_r]).decode("utf-8", "replace")[:500]
    if timed_out:
        return Outcome("timeout", seconds=seconds, stderr=stderr)
    if os.WIFSIGNALED(status):
        return Outcome("signal", detail=signal.Signals(os.WTERMSIG(status)).name, stderr=stderr, seconds=seconds)
    try:
        report = json.loads(b"".join(chunks[out_r]) or b"{}")
    except ValueError:
        report = {}
    outcome = {0: "ok", _CLEAN: "error", _TRACEBACK: "traceback", _OOM: "oom"}.get(os.WEXITSTATUS(status), "signal")
    return Outcome(outcome, report.get("chars", 0), report.get("detail", ""), stderr, seconds)


# --------------------------------------------------------------------------- campaign


def choose_seeds(corpus: Path, count: int, max_bytes: int, rng_seed: int) -> list[tuple[str, bytes]]:
    """Up to `count` corpus PDFs of at most `max_bytes`, broken/ included."""
    files = sorted(p for p in corpus.rglob("*.pdf") if 0 < p.stat().st_size <= max_bytes)
    random.Random(rng_seed).shuffle(files)
    return [(str(p.relative_to(corpus)), p.read_bytes()) for p in files[:count]]


def campaign(
    mutants: Iterable[Mutant],
    readers: Readers,
    timeout: float,
    memory_mb: int,
    progress: bool = False,
    out: Path | None = None,
) -> list[dict[str, object]]:
    """Every library on every mutant; each record is also appended to `out`
    (JSON lines) as it is made, so a stopped campaign keeps what it ran."""
    records = []
    for i, mutant in enumerate(mutants):
        record: dict[str, object] = {"mutant": mutant.name, "seed": mutant.seed, "mutator": mutant.mutator}
        for library in readers.libraries:
            record[library] = asdict(run_one(readers, library, mutant.path, timeout, memory_mb))
        records.append(record)
        if out is not None:
            with out.open("a") as fh:
                fh.write(json.dumps(record) + "\n")
        if progress and (i + 1) % 25 == 0:
            print(f"  {i + 1} mutants", file=sys.stderr, flush=True)
    return records


def summarize(records: Sequence[dict], libraries: Sequence[str]) -> str:
    """The outcome table and text recovery against PyMuPDF, as Markdown."""
    lines = [
        f"{len(records)} mutants",
        "",
        "| library | " + " | ".join(OUTCOMES) + " | text where PyMuPDF has text |",
        "|---|" + "---:|" * (len(OUTCOMES) + 1),
    ]
    reference = [r for r in records if "pymupdf" in r and r["pymupdf"]["chars"] > 0]
    for library in libraries:
        counts = Counter(r[library]["outcome"] for r in records)
        recall = ""
        if reference:
            hits = sum(1 for r in reference if r[library]["chars"] > 0)
            recall = f"{hits}/{len(reference)} ({hits / len(reference):.1%})"
        lines.append(f"| {library} | " + " | ".join(str(counts[o]) for o in OUTCOMES) + f" | {recall} |")
    leaks = sum(1 for r in records if "ragprep" in r and r["ragprep"]["stderr"].strip())
    if "ragprep" in libraries:
        lines += ["", f"ragprep wrote to stderr on {leaks} mutants"]
        bad = Counter(
            (r["mutator"], r["ragprep"]["outcome"], r["ragprep"]["detail"][:120])
            for r in records
            if r["ragprep"]["outcome"] not in ("ok", "error")
        )
        for (mutator, outcome, detail), n in bad.most_common(20):
            lines.append(f"- {outcome} x{n} ({mutator}): {detail}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    repo = Path(__file__).resolve().parent.parent
    parser.add_argument("--corpus", type=Path, default=repo.parent / "shared" / "corpus")
    parser.add_argument("--mutants", type=int, default=1500)
    parser.add_argument("--seeds", type=int, default=40, help="corpus files used as seeds")
    parser.add_argument("--max-seed-kb", type=int, default=400)
    parser.add_argument("--seed", type=int, default=12, help="random seed: the same seed gives the same mutants")
    parser.add_argument("--peers", default=",".join(LIBRARIES), help="libraries to run, comma-separated")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per library and mutant")
    parser.add_argument("--memory-mb", type=int, default=2048, help="address space per child beyond the parent's")
    parser.add_argument("--out", type=Path, help="write every record here, one JSON line per mutant")
    parser.add_argument("--shard", default="1/1", help="K/N: run every N-th mutant from the K-th (parallel runs)")
    parser.add_argument("--merge", type=Path, nargs="*", default=[], help="summarize these --out files together and exit")
    parser.add_argument("--keep", type=Path, help="copy mutants ragprep fails on (or gets no text from) here")
    args = parser.parse_args(argv)
    libraries = [name.strip() for name in args.peers.split(",") if name.strip()]
    if args.merge:
        merged = _merge([_read_records(path) for path in args.merge])
        print(summarize(merged, [lib for lib in LIBRARIES if all(lib in r for r in merged)]))
        return 0
    shard, shards = (int(part) for part in args.shard.split("/"))
    unknown = set(libraries) - set(LIBRARIES)
    if unknown or not (args.corpus / "MANIFEST.tsv").is_file():
        print(f"error: unknown library {sorted(unknown)}" if unknown else f"error: no corpus at {args.corpus}", file=sys.stderr)
        return 2
    seeds = choose_seeds(args.corpus, args.seeds, args.max_seed_kb * 1024, args.seed)
    readers = Readers(libraries)
    with tempfile.TemporaryDirectory(prefix="ragprep-fuzz-") as tmp:
        mutants = make_mutants(seeds, args.mutants, args.seed, Path(tmp), (shard, shards))
        if args.out:
            args.out.write_text("")
        records = campaign(mutants, readers, args.timeout, args.memory_mb, progress=True, out=args.out)
        if args.keep:
            _keep(records, mutants, args.keep)
    print(summarize(records, libraries))
    return 0


def _read_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _merge(runs: Sequence[list[dict]]) -> list[dict]:
    """Records of several runs by mutant name; a later run's libraries
    replace an earlier one's (a re-run of ragprep alone on the same mutants)."""
    by_name: dict[str, dict] = {}
    for run in runs:
        for record in run:
            by_name.setdefault(record["mutant"], {}).update(record)
    return [by_name[name] for name in sorted(by_name)]


def _keep(records: Sequence[dict], mutants: Sequence[Mutant], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for record, mutant in zip(records, mutants, strict=True):
        ours = record.get("ragprep")
        theirs = record.get("pymupdf")
        missed = ours and theirs and theirs["chars"] > 0 and ours["chars"] == 0
        if ours and (ours["outcome"] not in ("ok", "error") or missed or ours["stderr"].strip()):
            (folder / mutant.name).write_bytes(mutant.path.read_bytes())


if __name__ == "__main__":
    sys.exit(main())
