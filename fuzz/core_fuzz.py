"""Fuzz the compiled content-stream core under AddressSanitizer + UndefinedBehaviorSanitizer.

    python fuzz/core_fuzz.py --seconds 1800 [--corpus DIR] [--seed N] [--sanitize auto|yes|no]
                             [--target both|pages|objects|trees|nodes|cmaps|ostreams|xref|kernels|sweep]

The script compiles extract/_core.c with gcc's -fsanitize=address,undefined
into a temporary folder, then runs itself again with the sanitizer runtime
preloaded (PYTHONMALLOC=malloc, so the core's PyMem buffers are checked too)
and that build imported in place of the installed one. Each iteration mutates
a seed content stream (byte edits, PDF tokens inserted, splices, deep
nesting, truncation) and interprets it as the content of a page whose
resources hold every kind of font, a self-painting form, an image and named
properties. Each iteration also parses a mutant of an unparsed PDF object
with ``parse_object`` (what the structure tree is read through): ValueError
is its answer to malformed bytes, any other exception a finding. A sanitizer
report aborts the process (exit != 0) and the input that caused it is left
in --crash-file. Python exceptions out of the page interpreter are findings
too (the core must turn bad input into warnings). --target objects fuzzes
parse_object alone (its own campaign: many more executions per CPU second),
--target pages the page interpreter alone; both (the default) alternates.
--target trees, --target cmaps, --target ostreams and --target xref are
differential campaigns of their own (fuzz/tree_fuzz.py: the structure walk;
fuzz/cmap_fuzz.py: CMap section bodies, compiled against cmap.py's builder;
fuzz/ostream_fuzz.py: object stream headers, against _header_spans;
fuzz/xref_fuzz.py: cross-reference tables, against xref._reference_table and
qpdf's own table; fuzz/kernel_fuzz.py: the kernels that take Python objects
and numpy columns, not bytes, against their references, for which
extract/_layout.c and _grids.c are built with the sanitizers too;
fuzz/kernel_sweep.py, --target sweep: every argument of the kernels' calls
changed in turn to values no caller passes).
A progress line every --report CPU seconds keeps the figures of a campaign
that is stopped from outside.

Seeds: a fixed set of content streams built here, plus the decoded page
contents of every PDF under --corpus when given (never copied anywhere);
object seeds are the template's objects unparsed, plus the first 2000 objects
of each tagged corpus file (mostly its structure tree).

--sanitize auto (the default) uses the sanitizers where gcc has their
runtimes and builds the core plainly (still checked for exceptions, hangs
and crashes) where it has not; the first line of output says which ran.
tests/extract/test_core_fuzz_smoke.py runs a short campaign of it in CI.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from campaign import Campaign

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "extract" / "_core.c"
SANITIZE = "-fsanitize=address,undefined,float-cast-overflow"
# The compiled extensions (extract/NAME.c): --target kernels builds all three, the others _core alone.
EXTENSIONS = ("_core", "_layout", "_grids")

TOKENS = [
    b"BT", b"ET", b"Tf", b"Tj", b"TJ", b"'", b'"', b"Td", b"TD", b"Tm", b"T*", b"cm", b"q", b"Q", b"Do",
    b"BDC", b"BMC", b"EMC", b"BI", b"ID", b"EI", b"Tc", b"Tw", b"Tz", b"TL", b"Ts", b"Tr", b"re", b"f", b"m",
    b"(", b")", b"<", b">", b"<<", b">>", b"[", b"]", b"{", b"}", b"/", b"%", b"\\", b"\r", b"\n", b" ",
    b"0", b"-1", b"1e308", b"99999999999999999999", b"3.4.5", b".", b"-", b"+.5", b"1" * 400 + b".5",
    b"/F1", b"/F2", b"/F3", b"/F4", b"/Fm0", b"/Im0", b"/MC0", b"/Artifact", b"/MCID", b"/ActualText",
    b"(a)", b"<4142>", b"<FEFF0041>", b"true", b"null", b"(\\101\\", b"<<</MCID 3>>", b"#",
    b"R", b"12 0 R", b"0 65535 R", b"1 65536 R", b"/K", b"/S", b"/Pg", b"#4", b"#zz", b"false",
]


def _seeds(fonts: dict[str, str]) -> list[bytes]:
    f1, f2, f3, f4 = (fonts[k] for k in ("simple", "cid", "vertical", "type3"))
    return [
        f"BT /{f1} 12 Tf 72 700 Td (Hello world) Tj T* [(Kern)-120(ed)] TJ ET".encode(),
        f"q 1 0 0 1 10 20 cm BT /{f1} 12 Tf 1.5 Tc 2 Tw 90 Tz 14 TL 3 Ts (a b) ' 1 2 (c) \" ET Q".encode(),
        f"/P <</MCID 0 /ActualText (x)>> BDC BT /{f2} 10 Tf <00010002> Tj ET EMC /Fm0 Do".encode(),
        f"BT /{f3} 14 Tf 400 700 Td [<0001> 200 <0002>] TJ ET /Span /MC0 BDC /Im0 Do EMC".encode(),
        f"BT /{f4} 20 Tf 3 Tr (ab ba) Tj ET BI /W 2 /H 1 ID \x00\xff EI Q Q Q".encode("latin-1"),
        b"0 0 m 100 100 l S 10 10 50 50 re f /Artifact BMC EMC EMC",
    ]


def _template():
    sys.path.insert(0, str(ROOT / "tests"))
    from pdfbuilder import PdfBuilder

    b = PdfBuilder()
    fonts = {"simple": b.add_standard_font("Helvetica", widths=True)}
    fonts["cid"], _ = b.add_cid_font("ABCD")
    fonts["vertical"], _ = b.add_cid_font("ABCD", vertical=True, base_font="FuzzV")
    fonts["type3"] = b.add_type3_font({"a": 97, "b": 98})
    form = b.add_form(f"/P <</MCID 1>> BDC BT /{fonts['simple']} 9 Tf (form) Tj ET /Fm0 Do", resources=False)
    b.set_form_xobject(form, "Fm0", form)
    b.add_page("BT ET", xobjects={"Fm0": form}, properties={"MC0": {"MCID": 5, "ActualText": "named"}})
    return b.to_bytes(), fonts


def _corpus_seeds(folder: Path, limit: int) -> list[bytes]:
    import pikepdf

    seeds: list[bytes] = []
    for path in sorted(folder.rglob("*.pdf")):
        try:
            with pikepdf.open(path) as pdf:
                for page in pdf.pages:
                    data = page.obj.get("/Contents")
                    if data is None:
                        continue
                    parts = list(data) if isinstance(data, pikepdf.Array) else [data]
                    body = b"\n".join(p.read_bytes() for p in parts if isinstance(p, pikepdf.Stream))
                    if body:
                        seeds.append(body[:limit])
        except Exception:  # unreadable corpus files are no seeds
            continue
    return seeds


def _object_seeds(pdfs: list[object], per_file: int) -> list[bytes]:
    """Unparsed dictionaries and arrays (what parse_object reads): every
    object of the first PDF (the template), the first `per_file` of the others."""
    import pikepdf

    containers = (pikepdf.ObjectType.dictionary, pikepdf.ObjectType.array)
    seeds: list[bytes] = []
    for pdf in pdfs:
        for obj in pdf.objects[: per_file if seeds else None]:
            if type(obj) is pikepdf.Object and obj._type_code in containers:
                seeds.append(obj.unparse(resolved=True))
    return seeds


def _tagged_corpus(folder: Path) -> list[object]:
    import pikepdf

    found = []
    for path in sorted(folder.rglob("*.pdf")):
        try:
            pdf = pikepdf.open(path)
        except Exception:  # unreadable corpus files are no seeds
            continue
        if "/StructTreeRoot" in pdf.Root:
            found.append(pdf)
        else:
            pdf.close()
    return found


def _mutate(rng: random.Random, data: bytes, seeds: list[bytes], edits: int = 8, tokens: list[bytes] = TOKENS) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, edits)):
        choice = rng.randrange(8)
        at = rng.randint(0, len(out))
        if choice == 0 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif choice == 1:
            out[at:at] = b" " + rng.choice(tokens) + b" "
        elif choice == 2 and out:
            end = min(len(out), at + rng.randint(1, 64))
            del out[at:end]
        elif choice == 3 and out:
            end = min(len(out), at + rng.randint(1, 256))
            out[at:at] = out[at:end] * rng.randint(1, 4)
        elif choice == 4:
            other = rng.choice(seeds)
            start = rng.randint(0, len(other))
            out[at:at] = other[start : start + rng.randint(1, 512)]
        elif choice == 5:
            out[at:at] = rng.choice([b"[", b"(", b"<<", b"q ", b"/P BMC ", b"[("]) * rng.randint(1, 5000)
        elif choice == 6:
            del out[at:]
        else:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return bytes(out)


# The differential campaigns of their own, by --target: their modules in
# fuzz/ (tree_fuzz: the structure walk, compiled against the reference;
# ostream_fuzz: object stream headers; node_fuzz: the node walk over object
# stream bytes, against the walk of plain values; cmap_fuzz: CMap section
# bodies; xref_fuzz: the cross-reference table, against its reference and
# qpdf's; kernel_fuzz: the kernels that take Python objects and numpy
# columns, all three extensions). Each has run(args, mutate), those of
# OWN_INPUTS run(args).
CAMPAIGNS = {
    "trees": "tree_fuzz", "ostreams": "ostream_fuzz", "nodes": "node_fuzz", "cmaps": "cmap_fuzz", "xref": "xref_fuzz",
    "kernels": "kernel_fuzz", "sweep": "kernel_sweep",
}  # fmt: skip
# The campaigns whose run takes no mutator (no PDF bytes to mutate).
OWN_INPUTS = ("trees", "kernels", "sweep")


def _fuzz(args: argparse.Namespace) -> int:
    import pikepdf

    campaign_module = CAMPAIGNS.get(args.target)
    if campaign_module is not None:  # a differential campaign of its own
        sys.path.insert(0, str(ROOT / "fuzz"))
        module = importlib.import_module(campaign_module)
        return module.run(args) if args.target in OWN_INPUTS else module.run(args, _mutate)

    from ragprep.extract.compiled import CompiledPageInterpreter
    from ragprep.extract.config import ExtractConfig
    from ragprep.extract.fonts import FontLoader

    template, fonts = _template()
    seeds = _seeds(fonts)
    if args.corpus:
        seeds += _corpus_seeds(Path(args.corpus), args.max_seed_bytes)
    rng = random.Random(args.seed)
    pdf = pikepdf.open(__import__("io").BytesIO(template))
    page = pdf.pages[0]
    object_seeds = _object_seeds([pdf, *(_tagged_corpus(Path(args.corpus)) if args.corpus else [])], 2000)
    config = ExtractConfig(max_operators_per_page=200_000)
    crash_file = Path(args.crash_file)
    pages, objects = args.target in ("both", "pages"), args.target in ("both", "objects")
    campaign = Campaign(args.seconds, args.report)
    runs = exceptions = parsed = refused = 0
    while campaign.running(runs=runs, parsed=parsed, refused=refused, findings=exceptions):
        if pages:
            data = _mutate(rng, rng.choice(seeds), seeds) if runs >= len(seeds) else seeds[runs]
            exceptions += _interpret_one(CompiledPageInterpreter(pdf, FontLoader(), config), pdf, page, data, crash_file)
        if objects:
            # Few edits: an object parser refuses most heavily edited bytes at
            # once, and the deep paths are reached by mutants it still parses.
            outcome = _parse_one(_mutate(rng, rng.choice(object_seeds), object_seeds, 2), crash_file)
            parsed += outcome == "parsed"
            refused += outcome == "refused"
            exceptions += outcome == "finding"
        runs += 1
    crash_file.unlink(missing_ok=True)
    cpu = campaign.cpu
    print(f"objects parsed: {parsed}  refused (ValueError): {refused}  object seeds: {len(object_seeds)}")
    print(f"runs: {runs}  seeds: {len(seeds)}  cpu seconds: {cpu:.0f}  findings: {exceptions}")
    return 1 if exceptions else 0


def _interpret_one(interpreter: object, pdf: object, page: object, data: bytes, crash_file: Path) -> int:
    """One mutant content stream through the page interpreter: 1 for a
    finding (any exception: the core turns bad input into warnings), else 0."""
    import pikepdf

    crash_file.write_bytes(data)
    page.obj.Contents = pikepdf.Stream(pdf, data)
    try:
        interpreter.run(page)
    except Exception as exc:  # a finding: the core should warn, not raise
        print(f"exception {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


def _parse_one(data: bytes, crash_file: Path) -> str:
    """parse_object on one mutant: "parsed", "refused" (the ValueError of
    malformed bytes) or "finding" (any other exception)."""
    from ragprep.extract import _core

    crash_file.write_bytes(data)
    try:
        if len(data) % 3 == 1:  # as an object stream's object: references checked against the objects that exist
            _core.parse_object(data, {(1, 0), (2, 0)}, _exists)
        elif len(data) % 3 == 2:  # as an object stream cut in two objects, with and without the present bitmap and references' cache
            half = len(data) // 2
            spans = [(1, 0, half), (2, half, len(data))]
            plain = _core.parse_objects(data, spans, {(1, 0), (9, 0)}, _exists)
            if _core.parse_objects(data, spans, {(1, 0), (9, 0)}, _exists, b"\x02\x02") != plain:
                print("parse_objects differs with the present bitmap", file=sys.stderr)
                return "finding"
            refs: list[object] = [None] * (len(data) % 16)  # shared references: filled, then read back
            for _ in range(2):
                if _core.parse_objects(data, spans, {(1, 0), (9, 0)}, _exists, b"", refs) != plain:
                    print("parse_objects differs with the reference cache", file=sys.stderr)
                    return "finding"
            # Into a cache, as setdefault((number, 0), value) would (an object read before stays),
            # from object_stream_spans' (number, start, end, present) spans.
            into: dict[object, object] = {(2, 0): "read before"}
            answer = _core.parse_objects(data, [(*s, True) for s in spans], {(1, 0), (9, 0)}, _exists, b"", refs, into)
            if answer is not None or into != {(n, 0): value for n, value in plain} | {(2, 0): "read before"}:
                print("parse_objects differs into a cache", file=sys.stderr)
                return "finding"
        else:
            _core.parse_object(data)
    except ValueError:
        return "refused"
    except Exception as exc:
        print(f"parse_object exception {type(exc).__name__}: {exc}", file=sys.stderr)
        return "finding"
    return "parsed"


def _exists(ref: tuple[int, int]) -> bool:
    """Which objects exist, for parse_object's check: every other number."""
    return ref[0] % 2 == 0


def _build(folder: Path, sanitize: bool, names: tuple[str, ...] = ("_core",)) -> Path:
    """Each extension of `names` (extract/NAME.c) built into `folder`, the
    compilers run side by side, but those `folder` holds already (--builds:
    one build for a session's campaigns); the path of _core's build."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    include = sysconfig.get_paths()["include"]
    flags = [SANITIZE, "-fno-sanitize-recover=all"] if sanitize else []
    names = tuple(name for name in names if not (folder / f"{name}{suffix}").exists())
    compilers = [
        subprocess.Popen(
            ["gcc", "-O1", "-g", "-fno-omit-frame-pointer", *flags, "-ffp-contract=off", "-fno-strict-aliasing",
             "-shared", "-fPIC", f"-I{include}", f"-I{SOURCE.parent}", str(SOURCE.parent / f"{name}.c"),
             "-o", str(folder / f"{name}{suffix}"), "-lz"],
        )
        for name in names
    ]  # fmt: skip
    for name, compiler in zip(names, compilers, strict=True):
        if compiler.wait() != 0:
            raise subprocess.CalledProcessError(compiler.returncode, f"gcc {name}.c")
    return folder / f"_core{suffix}"


def _load_builds(core: Path) -> None:
    """The extensions built beside `core` imported in place of the installed ones."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for name in EXTENSIONS:
        path = core.with_name(f"{name}{suffix}")
        if path.exists():
            spec = importlib.util.spec_from_file_location(f"ragprep.extract.{name}", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[f"ragprep.extract.{name}"] = module
            spec.loader.exec_module(module)


def _runtime(name: str) -> str | None:
    """The path of a gcc runtime library, None when gcc does not have it."""
    found = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
    return found if os.path.isabs(found) and os.path.exists(found) else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="CPU seconds to fuzz for")
    parser.add_argument("--corpus", help="folder of PDFs whose page contents become seeds")
    parser.add_argument("--seed", type=int, default=0, help="random seed (runs are reproducible)")
    parser.add_argument("--max-seed-bytes", type=int, default=200_000)
    parser.add_argument(
        "--target", choices=("both", "pages", "objects", "trees", "nodes", "cmaps", "ostreams", "xref", "kernels", "sweep"), default="both",
        help="what to fuzz: the page interpreter, parse_object, both alternately, the structure walk "
        "(fuzz/tree_fuzz.py), the node walk over object stream bytes (fuzz/node_fuzz.py), CMap section "
        "bodies (fuzz/cmap_fuzz.py), object stream headers (fuzz/ostream_fuzz.py), cross-reference "
        "tables (fuzz/xref_fuzz.py), the kernels that take Python objects and numpy columns (fuzz/kernel_fuzz.py) "
        "or those kernels' every argument changed in turn (fuzz/kernel_sweep.py)",
    )
    parser.add_argument("--report", type=float, default=60.0, help="CPU seconds between progress lines")
    parser.add_argument("--draws", type=int, default=3, help="--target sweep: draws of each drawer whose calls are swept")
    parser.add_argument(
        "--sanitize", choices=("auto", "yes", "no"), default="auto",
        help="build with ASan+UBSan: yes, no, or auto (where gcc has the runtimes)",
    )
    parser.add_argument(
        "--builds", help="a folder to keep the builds in and take them from (the same sources: a test session's campaigns)"
    )
    parser.add_argument("--crash-file", default=str(Path(tempfile.gettempdir()) / "ragprep-core-fuzz-input.bin"))
    parser.add_argument("--_child", metavar="CORE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._child:
        _load_builds(Path(args._child))
        return _fuzz(args)
    runtimes = [_runtime("libasan.so"), _runtime("libubsan.so")]
    sanitize = args.sanitize == "yes" or (args.sanitize == "auto" and all(runtimes))
    if sanitize and not all(runtimes):
        print("gcc has no ASan/UBSan runtime here (--sanitize yes)", file=sys.stderr)
        return 2
    why_not = "--sanitize no" if args.sanitize == "no" else "gcc has no runtime for them"
    print(f"sanitizers: {'address,undefined' if sanitize else f'none ({why_not})'}", flush=True)
    with tempfile.TemporaryDirectory() as made:
        # --builds: a folder kept between campaigns, one subfolder per kind of build.
        folder = Path(args.builds) / ("sanitized" if sanitize else "plain") if args.builds else Path(made)
        folder.mkdir(parents=True, exist_ok=True)
        core = _build(folder, sanitize, EXTENSIONS if args.target in ("kernels", "sweep") else ("_core",))
        env = dict(os.environ)
        if sanitize:
            env.update(
                LD_PRELOAD=":".join(r for r in runtimes if r),
                # One allocation past 2 GB is refused (a MemoryError), a process past 4 GB resident
                # stopped: a hostile count of 2**31 must not write 16 GB on a shared machine.
                ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:max_allocation_size_mb=2048:hard_rss_limit_mb=4096",
                UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
                PYTHONMALLOC="malloc",
            )
        child = [sys.executable, __file__, *sys.argv[1:], "--_child", str(core)]
        return subprocess.run(child, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
