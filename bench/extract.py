"""Time ragprep's text extraction against peer extractors over the shared corpus.

Every library runs over the same files, in one process, timing whole-document extraction
(open the file + text of every page). Speed is reported as pages per second and as ratios
against ragprep in the same run (DESIGN.md: "Speed is measured by bench/, as ratios against
peers in the same run"). Wall time and CPU time are both recorded: on a shared machine other
processes inflate wall time, while CPU time of this single-threaded process is barely
affected. Not part of CI; see bench/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import pstats
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/extract.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._corpus import (  # noqa: E402  (needs the path fix above)
    DEFAULT_CORPUS,
    BenchError,
    CorpusFile,
    Extractor,
    FileTimeout,
    make_extractor,
    parse_peer_list,
    quiet_peers,
    ragprep_import_error,
    run_cli,
    select_files,
    short_error,
    time_limit,
)

# JSON-shaped report, printed with --format json.
Report = dict[str, Any]

DEFAULT_PEERS = "ragprep,pymupdf,pypdfium2,playa,pypdf,pdfminer"
# Distribution names, for the versions line of the report.
DISTRIBUTIONS = {
    "ragprep": "ragprep",
    "pymupdf": "pymupdf",
    "pypdfium2": "pypdfium2",
    "playa": "playa-pdf",
    "pypdf": "pypdf",
    "pdfminer": "pdfminer.six",
}


@dataclass(frozen=True)
class FileRun:
    """One library on one file."""

    library: str
    file: str
    ok: bool
    pages: int
    seconds: float  # wall clock
    cpu_seconds: float  # this process's CPU time (user + system)
    chars: int
    error: str = ""


@dataclass(frozen=True)
class Totals:
    files: int
    pages: int
    seconds: float
    cpu_seconds: float

    def as_json(self) -> dict[str, float]:
        return {
            "files": self.files,
            "pages": self.pages,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "pages_per_second": round(per_second(self.pages, self.seconds), 2),
            "pages_per_cpu_second": round(per_second(self.pages, self.cpu_seconds), 2),
        }


def per_second(pages: int, seconds: float) -> float:
    return pages / seconds if seconds > 0 else float("nan")


# --------------------------------------------------------------------------- running


def warm_page_cache(files: list[CorpusFile]) -> None:
    """Read every file once so the first library does not pay for cold disk reads."""
    for f in files:
        f.path.read_bytes()


def run_one(name: str, extractor: Extractor, f: CorpusFile, timeout: float) -> FileRun:
    """Extract one file; any failure is recorded, never raised (one bad file is one row)."""
    gc.collect()  # outside the timed region: don't bill one library for another's garbage
    wall, cpu = time.perf_counter(), time.process_time()

    def row(ok: bool, texts: list[str], error: str = "") -> FileRun:
        return FileRun(
            name,
            f.rel,
            ok,
            len(texts),
            time.perf_counter() - wall,
            time.process_time() - cpu,
            sum(len(t) for t in texts),
            error,
        )

    try:
        with time_limit(timeout):
            texts = extractor(f.path)
    except FileTimeout as exc:
        return row(False, [], f"timeout: {exc}")
    except Exception as exc:  # isolation is the point: every library fails differently
        return row(False, [], short_error(exc))
    if f.pages is not None and len(texts) != f.pages:
        # Silently returning fewer pages (pdfminer.six gives 0 pages for some XFA forms) is
        # not a whole-document extraction, and would make that library look fast.
        return row(False, texts, f"incomplete: {len(texts)} of {f.pages} pages")
    return row(True, texts)


Progress = Callable[[str, int, FileRun], None]


def progress_printer(total: int) -> Progress:
    def show(lib: str, index: int, run: FileRun) -> None:
        status = "ok" if run.ok else "FAILED"
        line = f"  {lib:<10} {index:>4}/{total} {status:<6} {run.file[:60]:<60}"
        print(f"\r{line}", end="", file=sys.stderr, flush=True)

    return show


def run_by_library(
    extractors: dict[str, Extractor], files: list[CorpusFile], timeout: float, progress: Progress
) -> dict[str, list[FileRun]]:
    """Each library in turn over all files (the default order)."""
    by_lib: dict[str, list[FileRun]] = {}
    for lib, extractor in extractors.items():
        runs = by_lib.setdefault(lib, [])
        for i, f in enumerate(files, 1):
            runs.append(run_one(lib, extractor, f, timeout))
            progress(lib, i, runs[-1])
    return by_lib


def run_by_file(
    extractors: dict[str, Extractor], files: list[CorpusFile], timeout: float, progress: Progress
) -> dict[str, list[FileRun]]:
    """All libraries on one file, then the next file.

    A change in machine load during the run (another job starting) then hits every library
    alike instead of whichever happened to be running, which keeps the ratios honest.
    """
    by_lib: dict[str, list[FileRun]] = {lib: [] for lib in extractors}
    for i, f in enumerate(files, 1):
        for lib, extractor in extractors.items():
            by_lib[lib].append(run_one(lib, extractor, f, timeout))
            progress(lib, i, by_lib[lib][-1])
    return by_lib


# --------------------------------------------------------------------------- summarising


def totals(runs: list[FileRun], only: set[str] | None = None) -> Totals:
    """Sum over successful runs, optionally restricted to the files in ``only``."""
    chosen = [r for r in runs if r.ok and (only is None or r.file in only)]
    return Totals(
        len(chosen),
        sum(r.pages for r in chosen),
        sum(r.seconds for r in chosen),
        sum(r.cpu_seconds for r in chosen),
    )


def common_files(by_lib: dict[str, list[FileRun]]) -> set[str]:
    """Files that every library extracted completely without error: the fair comparison set."""
    sets = [{r.file for r in runs if r.ok} for runs in by_lib.values()]
    return set.intersection(*sets) if sets else set()


def speed_ratio(ragprep: Totals, peer: Totals, cpu: bool) -> float | None:
    """ragprep's pages/s over the peer's on the same files (above 1: ragprep is faster)."""
    ours = ragprep.cpu_seconds if cpu else ragprep.seconds
    theirs = peer.cpu_seconds if cpu else peer.seconds
    if not ours or not theirs or not ragprep.pages or not peer.pages:
        return None
    return per_second(ragprep.pages, ours) / per_second(peer.pages, theirs)


def library_entry(lib: str, label: str, runs: list[FileRun], common: set[str]) -> Report:
    failed = [r for r in runs if not r.ok]
    return {
        "library": label,
        "key": lib,
        "version": version_of(lib),
        "files_ok": len(runs) - len(failed),
        "files_failed": len(failed),
        "timeouts": sum(r.error.startswith("timeout") for r in failed),
        "incomplete": sum(r.error.startswith("incomplete") for r in failed),
        "own_ok": totals(runs).as_json(),
        "common": totals(runs, common).as_json(),
    }


def build_report(
    files: list[CorpusFile],
    labels: dict[str, str],
    by_lib: dict[str, list[FileRun]],
    args: argparse.Namespace,
    load: tuple[float, float],
) -> Report:
    common = common_files(by_lib)
    libraries = [library_entry(lib, labels[lib], runs, common) for lib, runs in by_lib.items()]
    if "ragprep" in by_lib:
        ours = totals(by_lib["ragprep"], common)
        for entry in libraries:
            if entry["key"] != "ragprep":
                theirs = totals(by_lib[entry["key"]], common)
                for key, cpu in (("ratio_wall", False), ("ratio_cpu", True)):
                    ratio = speed_ratio(ours, theirs, cpu)
                    entry[key] = None if ratio is None else round(ratio, 3)
    return {
        "corpus": str(args.corpus),
        "files_selected": len(files),
        "manifest_pages_selected": sum(f.pages or 0 for f in files),
        "common_files": len(common),
        "order": args.order,
        "timeout_seconds": args.timeout,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_average_start": round(load[0], 2),
        "load_average_end": round(load[1], 2),
        "libraries": libraries,
        "failures": [
            {"library": labels[r.library], "file": r.file, "error": r.error}
            for runs in by_lib.values()
            for r in runs
            if not r.ok
        ],
        "per_file": [asdict(r) for runs in by_lib.values() for r in runs],
    }


def version_of(lib: str) -> str:
    try:
        return metadata.version(DISTRIBUTIONS.get(lib, lib))
    except metadata.PackageNotFoundError:
        return "?"


def load_average() -> float:
    """1-minute load average, or NaN where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return float("nan")


# --------------------------------------------------------------------------- printing


def format_table(headers: list[str], rows: list[list[str]], right: set[int]) -> str:
    """Plain aligned columns; ``right`` holds the indexes of numeric (right-aligned) columns."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        padded = (
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        )
        return "  ".join(padded).rstrip()

    rule = ["-" * w for w in widths]
    return "\n".join([line(headers), line(rule), *(line(r) for r in rows)])


def ratio_text(entry: Report, label: str) -> str:
    """'ragprep is 6.1x pdfminer.six' (wall pages/s; below 1 ragprep is slower)."""
    if "ratio_wall" not in entry:
        return "-"
    wall, cpu = entry["ratio_wall"], entry["ratio_cpu"]
    if wall is None or cpu is None:
        return "n/a"
    return f"ragprep is {wall:.2f}x {label} (CPU: {cpu:.2f}x)"


def header_lines(report: Report) -> list[str]:
    libs = report["libraries"]
    # All extractors are single-threaded and the files are in the page cache, so wall time
    # well above CPU time means the process waited for a CPU: someone else was running.
    wall = sum(lib["own_ok"]["seconds"] for lib in libs)
    cpu = sum(lib["own_ok"]["cpu_seconds"] for lib in libs)
    waited = wall / cpu - 1 if cpu > 0 else 0.0
    busy = (
        f"  (wall time {waited:.0%} above CPU time: machine busy, prefer the CPU ratios)"
        if waited > 0.1
        else ""
    )
    return [
        f"corpus: {report['corpus']}",
        f"files selected: {report['files_selected']} ({report['manifest_pages_selected']} pages "
        f"per MANIFEST.tsv); one process, order: {report['order']}; "
        f"timeout {report['timeout_seconds']:g} s per file",
        f"Python {report['python']} {report['machine']}, {report['cpus']} CPUs, load average "
        f"{report['load_average_start']:.2f} at start, {report['load_average_end']:.2f} at end"
        + busy,
        "versions: " + ", ".join(f"{lib['library']} {lib['version']}" for lib in libs),
    ]


def common_table(report: Report) -> str:
    rows = []
    for lib in report["libraries"]:
        c = lib["common"]
        rows.append(
            [
                lib["library"],
                str(c["files"]),
                str(c["pages"]),
                f"{c['seconds']:.2f}",
                f"{c['cpu_seconds']:.2f}",
                f"{c['pages_per_second']:.1f}",
                ratio_text(lib, lib["library"]),
            ]
        )
    headers = ["library", "files", "pages", "wall s", "CPU s", "pages/s", "ratio (pages/s)"]
    return format_table(headers, rows, right={1, 2, 3, 4, 5})


def own_table(report: Report) -> str:
    rows = []
    for lib in report["libraries"]:
        o = lib["own_ok"]
        rows.append(
            [
                lib["library"],
                str(lib["files_ok"]),
                str(lib["files_failed"]),
                str(lib["timeouts"]),
                str(lib["incomplete"]),
                str(o["pages"]),
                f"{o['seconds']:.2f}",
                f"{o['cpu_seconds']:.2f}",
                f"{o['pages_per_second']:.1f}",
            ]
        )
    headers = ["library", "ok", "failed", "timeouts", "incomplete", "pages", "wall s", "CPU s"]
    return format_table([*headers, "pages/s"], rows, right=set(range(1, 9)))


def render_text(report: Report) -> str:
    out = header_lines(report)
    out += [
        "",
        f"A. Common set: {report['common_files']} file(s) every library extracted completely "
        "without error (the fair comparison; ratios use these)",
        common_table(report),
        "",
        "B. Each library over every file it extracted completely without error (the sets differ",
        "   between rows; failed = raised, timed out, or page count differs from MANIFEST.tsv)",
        own_table(report),
    ]
    if report["failures"]:
        out += ["", "Failures:"]
        out += [f"  {f['library']:<16} {f['file']}: {f['error']}" for f in report["failures"]]
    return "\n".join(out)


# --------------------------------------------------------------------------- profiling


def profile_ragprep(files: list[CorpusFile], mode: str, top: int, dump: Path | None) -> None:
    """Run ragprep alone under cProfile and print the top functions by cumulative time."""
    _, extractor = make_extractor("ragprep", mode)
    failures: list[str] = []
    profiler = cProfile.Profile()
    for f in files:
        profiler.enable()
        try:
            extractor(f.path)
        except Exception as exc:  # profile what works; list what doesn't
            failures.append(f"{f.rel}: {short_error(exc)}")
        finally:
            profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    print(
        f"ragprep ({mode}) under cProfile over {len(files)} files "
        f"({len(failures)} failed); top {top} by cumulative time:"
    )
    stats.sort_stats(pstats.SortKey.CUMULATIVE).print_stats(top)
    if failures:
        print("Failures:\n" + "\n".join(f"  {x}" for x in failures))
    if dump is not None:
        stats.dump_stats(dump)
        print(f"full profile written to {dump} (open with python -m pstats or snakeviz)")


# --------------------------------------------------------------------------- CLI


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/extract.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "examples:\n"
            "  python bench/extract.py                              # everything outside broken/\n"
            "  python bench/extract.py --files 'multicolumn/*' --peers ragprep,pymupdf\n"
            "  python bench/extract.py --peers pymupdf,pypdfium2    # peers only, no ratios\n"
            "  python bench/extract.py --order file                 # on a busy machine\n"
            "  python bench/extract.py --profile --files 'misc/*'   # ragprep's hot spots\n"
        ),
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help="corpus folder holding MANIFEST.tsv (default: %(default)s)",
    )
    parser.add_argument(
        "--files",
        metavar="GLOB",
        help="only manifest paths matching this glob, comma-separated for several "
        "(e.g. 'tagged/*,misc/*'); may select files in broken/",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N selected files")
    parser.add_argument(
        "--peers",
        default=DEFAULT_PEERS,
        help="comma-separated libraries, run in this order (default: %(default)s); "
        "leave ragprep out to time the peers alone (no ratios then)",
    )
    parser.add_argument(
        "--order",
        choices=("library", "file"),
        default="library",
        help="library: each library in turn over all files (default); file: every library "
        "on one file before the next, so load changes hit all libraries alike",
    )
    parser.add_argument(
        "--mode", default="stream", help="ragprep extraction mode (default: %(default)s)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="per-file limit for each library, 0 for none (default: %(default)s)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument(
        "--out", type=Path, help="also write the JSON report (with per-file rows) here"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="run only ragprep under cProfile and print its hottest functions",
    )
    parser.add_argument(
        "--profile-top",
        type=int,
        default=25,
        metavar="N",
        help="functions to print with --profile (default: %(default)s)",
    )
    parser.add_argument(
        "--profile-out",
        type=Path,
        metavar="FILE",
        help="with --profile, also dump the full pstats data here",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    files = select_files(args.corpus, args.files, args.limit)
    libs = ["ragprep"] if args.profile else parse_peer_list(args.peers)
    if "ragprep" in libs and (reason := ragprep_import_error()):
        raise BenchError(
            f"ragprep's extraction API does not import ({reason}); "
            "leave ragprep out of --peers to time the peers alone"
        )
    quiet_peers()
    if args.profile:
        profile_ragprep(files, args.mode, args.profile_top, args.profile_out)
        return 0
    # Import every library before any timing so import cost is nobody's extraction time.
    made = {lib: make_extractor(lib, args.mode) for lib in libs}
    labels = {lib: label for lib, (label, _) in made.items()}
    extractors = {lib: extractor for lib, (_, extractor) in made.items()}
    warm_page_cache(files)
    progress = (lambda *_: None) if args.quiet else progress_printer(len(files))
    run = run_by_file if args.order == "file" else run_by_library
    load_start = load_average()
    by_lib = run(extractors, files, args.timeout, progress)
    load_end = load_average()
    if not args.quiet:
        print("\r" + " " * 90 + "\r", end="", file=sys.stderr)
    report = build_report(files, labels, by_lib, args, (load_start, load_end))
    text = json.dumps(report, indent=2, ensure_ascii=False)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text if args.format == "json" else render_text(report))
    return 0


if __name__ == "__main__":
    run_cli(main)
