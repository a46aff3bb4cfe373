"""Time ragprep's text extraction, in every mode, against peer extractors over the shared corpus.

One call measures every system: ragprep in each mode (stream, structure, layout, auto), ragprep's
pure-Python reference interpreter in stream mode (RAGPREP_PURE=1), and the peers. Each system
runs in its own long-lived child process; systems are alternated file by file, so a change of
machine load hits all alike. Per file the child measures CPU time (getrusage: see cpu_seconds) next to
wall time (with --repeat N: the read of least CPU time of N, as timeit keeps), and stops a file
at --timeout CPU seconds (a profiling timer, so a busy machine does not cut files short). Every result is appended to --out as one JSON line as soon as it is
measured: a long run that is stopped keeps what it measured, and --summarize reads such a file
again. Ratios are of pages per CPU-second on the files both systems read completely; see
bench/README.md. Not part of CI.

    python bench/extract.py                                 # all systems, all files
    python bench/extract.py --files 'tagged/*' --peers pymupdf --out /tmp/speed.jsonl
    python bench/extract.py --summarize /tmp/speed.jsonl    # the report of a (stopped) run
    python bench/extract.py --memory                        # peak RSS: 2 M-operator page, largest file
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/extract.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._corpus import (  # noqa: E402  (needs the path fix above)
    DEFAULT_CORPUS,
    BenchError,
    CorpusFile,
    cpu_seconds,
    make_extractor,
    parse_peer_list,
    peak_rss_mb,
    quiet_peers,
    run_cli,
    select_files,
    short_error,
)

MODES = ("stream", "structure", "layout", "auto")
DEFAULT_PEERS = "pymupdf,pypdfium2,playa,pypdf,pdfminer"
PURE = "ragprep-pure-stream"
Report = dict[str, Any]


@dataclass(frozen=True)
class FileRun:
    """One system on one file, as its child measured it."""

    system: str
    file: str
    ok: bool
    pages: int
    seconds: float  # wall clock in the child
    cpu_seconds: float  # the child's CPU time for this file (user + system)
    chars: int
    max_rss_mb: float  # the child's peak RSS so far
    error: str = ""


@dataclass(frozen=True)
class System:
    name: str  # ragprep-stream, ragprep-pure-stream, pymupdf, ...
    library: str  # ragprep or the peer name for make_extractor
    mode: str = "stream"
    pure: bool = False


def systems(modes: list[str], peers: list[str], pure: bool) -> list[System]:
    chosen = [System(f"ragprep-{mode}", "ragprep", mode) for mode in modes]
    if pure:
        chosen.append(System(PURE, "ragprep", "stream", pure=True))
    return chosen + [System(peer, peer) for peer in peers]


# --------------------------------------------------------------------------- the child


class CpuTimeout(Exception):
    pass


def worker(library: str, mode: str) -> int:
    """Child loop: one JSON request per line on stdin ({path, pages}), one JSON result per line."""
    quiet_peers()
    _, extractor = make_extractor(library, mode)

    def on_timer(signum: int, frame: object) -> None:
        raise CpuTimeout

    signal.signal(signal.SIGPROF, on_timer)
    warmed = False
    for line in sys.stdin:
        request = json.loads(line)
        if not warmed:
            # The first file is read once untimed: what a library imports on
            # first use (font metrics, glyph lists) is import time, which is
            # left out for every library alike.
            warmed = True
            try:
                signal.setitimer(signal.ITIMER_PROF, request["timeout"])
                extractor(Path(request["path"]))
            except (CpuTimeout, Exception):  # the timed read below reports it
                pass
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
        texts, error, cpu_seconds, seconds = _least_of(extractor, request)
        expected = request.get("pages")
        if not error and expected is not None and len(texts) != expected:
            error = f"incomplete: {len(texts)} of {expected} pages"
        result = {
            "ok": not error,
            "pages": len(texts),
            "seconds": seconds,
            "cpu_seconds": cpu_seconds,
            "chars": sum(len(t) for t in texts),
            "max_rss_mb": peak_rss_mb(),
            "error": error,
        }
        print(json.dumps(result), flush=True)
    return 0


def _timed_read(extractor: Callable[[Path], list[str]], request: dict[str, Any]) -> tuple[list[str], str, float, float]:
    """(texts, error, CPU seconds, wall seconds) of one read of the request's file."""
    gc.collect()  # outside the timed region: nobody pays for earlier garbage
    wall, cpu = time.perf_counter(), cpu_seconds()
    texts: list[str] = []
    error = ""
    try:
        signal.setitimer(signal.ITIMER_PROF, request["timeout"])  # CPU time, not wall time
        texts = extractor(Path(request["path"]))
    except CpuTimeout:
        error = f"timeout: over {request['timeout']:g} CPU seconds"
    except Exception as exc:  # isolation is the point: every library fails differently
        error = short_error(exc)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return texts, error, cpu_seconds() - cpu, time.perf_counter() - wall


def _least_of(extractor: Callable[[Path], list[str]], request: dict[str, Any]) -> tuple[list[str], str, float, float]:
    """The read of least CPU time of `repeat` reads (timeit's rule: the
    others differ by what the machine did meanwhile, not by the code); the
    first failure ends the repeats and is what is reported."""
    best = _timed_read(extractor, request)
    for _ in range(request.get("repeat", 1) - 1):
        if best[1]:
            break
        again = _timed_read(extractor, request)
        best = again if again[1] or again[2] < best[2] else best
    return best


class Child:
    """A system's worker process; restarted when it dies."""

    def __init__(self, system: System) -> None:
        self.system = system
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        env = dict(os.environ)
        if self.system.pure:
            env["RAGPREP_PURE"] = "1"
        else:
            env.pop("RAGPREP_PURE", None)
        command = [sys.executable, __file__, "--_worker", self.system.library, "--mode", self.system.mode]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
        )

    def measure(self, f: CorpusFile, timeout: float, repeat: int = 1) -> FileRun:
        if self.process is None or self.process.poll() is not None:
            self.start()
        assert self.process is not None and self.process.stdin and self.process.stdout
        request = {"path": str(f.path), "pages": f.pages, "timeout": timeout, "repeat": repeat}
        answer = ""
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            # Wall-clock guard for a child stuck outside Python (the CPU timer cannot fire).
            ready, _, _ = select.select([self.process.stdout], [], [], max(60.0, 10 * timeout) * repeat)
            answer = self.process.stdout.readline() if ready else ""
        except BrokenPipeError:
            pass
        if not answer:
            self.stop()
            return FileRun(self.system.name, f.rel, False, 0, 0.0, 0.0, 0, 0.0, "worker died or hung")
        return FileRun(self.system.name, f.rel, **json.loads(answer))

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def measure(
    chosen: list[System], files: list[CorpusFile], timeout: float, out: Path | None, quiet: bool, repeat: int = 1
) -> list[FileRun]:
    """Every system on each file, then the next file; each result appended to `out` at once."""
    children = [Child(s) for s in chosen]
    runs: list[FileRun] = []
    sink = out.open("a", encoding="utf-8") if out else None
    try:
        for i, f in enumerate(files, 1):
            for child in children:
                run = child.measure(f, timeout, repeat)
                runs.append(run)
                if sink:
                    sink.write(json.dumps(asdict(run)) + "\n")
                    sink.flush()
                if not quiet:
                    status = "ok" if run.ok else "FAILED"
                    print(f"\r  {i:>4}/{len(files)} {run.system:<22} {status:<6} {f.rel[:56]:<56}",
                          end="", file=sys.stderr, flush=True)  # fmt: skip
    finally:
        for child in children:
            child.stop()
        if sink:
            sink.close()
        if not quiet:
            print("\r" + " " * 100 + "\r", end="", file=sys.stderr)
    return runs


# --------------------------------------------------------------------------- the report


def per_cpu_second(runs: list[FileRun], files: set[str]) -> tuple[int, float]:
    chosen = [r for r in runs if r.ok and r.file in files]
    return sum(r.pages for r in chosen), sum(r.cpu_seconds for r in chosen)


def ratio(by_system: dict[str, list[FileRun]], ours: str, theirs: str, only: set[str] | None = None) -> Report | None:
    """Pages per CPU-second of `ours` over `theirs` on the files both read completely."""
    if ours not in by_system or theirs not in by_system:
        return None
    both = {r.file for r in by_system[ours] if r.ok} & {r.file for r in by_system[theirs] if r.ok}
    if only is not None:
        both &= only
    pages_a, cpu_a = per_cpu_second(by_system[ours], both)
    pages_b, cpu_b = per_cpu_second(by_system[theirs], both)
    if not cpu_a or not cpu_b:
        return None
    rate_a, rate_b = pages_a / cpu_a, pages_b / cpu_b
    return {"ours": ours, "theirs": theirs, "files": len(both), "pages": pages_a,
            "ours_pages_per_cpu_s": round(rate_a, 1), "theirs_pages_per_cpu_s": round(rate_b, 1),
            "ratio": round(rate_a / rate_b, 3)}  # fmt: skip


def worst_files(by_system: dict[str, list[FileRun]], ours: str, theirs: str, count: int = 10) -> list[Report]:
    """The files where `ours` spends the most CPU time beyond `theirs`: absolute
    seconds, so a one-page file the peer reads in no measurable time does
    not outrank a long document."""
    if ours not in by_system or theirs not in by_system:
        return []
    peer = {r.file: r for r in by_system[theirs] if r.ok}
    rows = []
    for r in by_system[ours]:
        other = peer.get(r.file)
        if r.ok and other and r.pages:
            rows.append({"file": r.file, "pages": r.pages, "ours_cpu_s": round(r.cpu_seconds, 3),
                         "theirs_cpu_s": round(other.cpu_seconds, 3),
                         "excess_cpu_s": round(r.cpu_seconds - other.cpu_seconds, 3),
                         "ratio": round(other.cpu_seconds / r.cpu_seconds, 3) if r.cpu_seconds > 0 else None,
                         "chars_per_page": r.chars // r.pages})  # fmt: skip
    return sorted(rows, key=lambda row: -row["excess_cpu_s"])[:count]


def explain(path: Path, mode: str, count: int = 3) -> str:
    """Why ragprep is slow on `path`: its functions with the most own CPU
    time under cProfile (after one untimed read), as shares of the total.
    cProfile charges each Python call a little, so Python functions called
    per glyph or per line stand out more than their plain share."""
    import cProfile
    import pstats

    quiet_peers()
    _, extractor = make_extractor("ragprep", mode)
    extractor(path)
    profile = cProfile.Profile(time.process_time)
    profile.runcall(extractor, path)
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in stats.values()) or 1.0
    top = sorted(stats.items(), key=lambda item: -item[1][2])[:count]
    return ", ".join(f"{_function_name(key)} {row[2] / total:.0%}" for key, row in top)


def _function_name(key: tuple[str, int, str]) -> str:
    filename, _, name = key
    if filename == "~":  # C: "<method 'run' of 'ragprep.extract._core.Core' objects>", "<built-in method x.y>"
        method = re.fullmatch(r"<method '(\w+)' of '(?:[\w.]*\.)?(\w+)' objects>", name)
        builtin = re.fullmatch(r"<built-in method (?:[\w.]*\.)?(\w+)>", name)
        return f"{method[2]}.{method[1]} (C)" if method else f"{builtin[1]} (C)" if builtin else name
    parts = Path(filename).with_suffix("").parts
    module = ".".join(parts[-2:]) if parts[-2:-1] in (("extract",), ("chunk",), ("fonts",), ("layout",)) else parts[-1]
    return f"{module}.{name}"


def add_reasons(rows: list[Report], corpus: Path, mode: str, timeout: float) -> None:
    """Each worst file's reason (``explain``), measured in a fresh child."""
    for row in rows:
        path = corpus / row["file"]
        if not path.is_file():
            row["reason"] = "file not found for profiling"
            continue
        command = [sys.executable, __file__, "--_explain", str(path), "--mode", mode]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=max(60.0, 10 * timeout))
            row["reason"] = done.stdout.strip() or short_error(RuntimeError(done.stderr.strip()[-200:]))
        except subprocess.TimeoutExpired:
            row["reason"] = "profiling timed out"


def build_report(runs: list[FileRun], tagged: set[str], timeout: float) -> Report:
    by_system: dict[str, list[FileRun]] = {}
    for r in runs:
        by_system.setdefault(r.system, []).append(r)
    targets = {
        "stream_vs_pymupdf (>= 1.0)": ratio(by_system, "ragprep-stream", "pymupdf"),
        "auto_vs_pymupdf (>= 0.5)": ratio(by_system, "ragprep-auto", "pymupdf"),
        "structure_vs_stream_on_tagged (>= 0.9)": ratio(by_system, "ragprep-structure", "ragprep-stream", tagged),
        "compiled_vs_python_stream (>= 4)": ratio(by_system, "ragprep-stream", PURE),
    }
    vs_peers = {f"{s} vs {p}": ratio(by_system, s, p) for s in by_system if s.startswith("ragprep-")
                for p in by_system if not p.startswith("ragprep-")}  # fmt: skip
    systems_summary = {}
    for name, rs in by_system.items():
        ok = [r for r in rs if r.ok]
        pages, cpu = per_cpu_second(rs, {r.file for r in ok})
        systems_summary[name] = {
            "files_ok": len(ok), "files_failed": len(rs) - len(ok), "pages": pages,
            "cpu_seconds": round(cpu, 3), "wall_seconds": round(sum(r.seconds for r in ok), 3),
            "pages_per_cpu_second": round(pages / cpu, 1) if cpu else None,
            "max_rss_mb": round(max((r.max_rss_mb for r in rs), default=0.0), 1),
        }  # fmt: skip
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_timeout_seconds": timeout,
        "systems": systems_summary,
        "targets": targets,
        "ratios": vs_peers,
        "worst_stream_vs_pymupdf": worst_files(by_system, "ragprep-stream", "pymupdf"),
        "failures": [{"system": r.system, "file": r.file, "error": r.error} for r in runs if not r.ok],
    }


def render_text(report: Report) -> str:
    lines = [f"Python {report['python']} {report['machine']}; CPU timeout {report['cpu_timeout_seconds']:g} s per file", ""]
    lines.append(f"{'system':<22} {'ok':>4} {'failed':>6} {'pages':>6} {'CPU s':>8} {'wall s':>8} {'pages/CPU s':>11} {'peak RSS MB':>11}")
    for name, s in report["systems"].items():
        rate = "-" if s["pages_per_cpu_second"] is None else f"{s['pages_per_cpu_second']:.1f}"
        lines.append(f"{name:<22} {s['files_ok']:>4} {s['files_failed']:>6} {s['pages']:>6} {s['cpu_seconds']:>8.2f} "
                     f"{s['wall_seconds']:>8.2f} {rate:>11} {s['max_rss_mb']:>11.1f}")  # fmt: skip
    lines += ["", "Targets (pages per CPU-second, files both read completely):"]
    for name, r in report["targets"].items():
        lines.append(f"  {name:<40} " + ("n/a" if r is None else
                     f"{r['ratio']:.2f}x  ({r['ours_pages_per_cpu_s']} vs {r['theirs_pages_per_cpu_s']} pages/CPU s, "
                     f"{r['files']} files, {r['pages']} pages)"))  # fmt: skip
    lines += ["", "ragprep against each peer:"]
    for name, r in report["ratios"].items():
        if r is not None:
            lines.append(f"  {name:<40} {r['ratio']:.2f}x on {r['files']} files")
    if report["worst_stream_vs_pymupdf"]:
        lines += ["", "Worst ten files, stream mode against PyMuPDF (most CPU seconds beyond PyMuPDF's):"]
        for w in report["worst_stream_vs_pymupdf"]:
            ratio = "-" if w["ratio"] is None else f"{w['ratio']:.2f}x"
            lines.append(f"  +{w['excess_cpu_s']:.3f} s  {ratio:>6}  {w['file']}  ({w['pages']} pages, "
                         f"{w['chars_per_page']} chars/page, {w['ours_cpu_s']} vs {w['theirs_cpu_s']} CPU s)")  # fmt: skip
            if w.get("reason"):
                lines.append(f"      why: {w['reason']}")
    if report["failures"]:
        lines += ["", "Failures:"] + [f"  {f['system']:<22} {f['file']}: {f['error']}" for f in report["failures"]]
    return "\n".join(lines)


# --------------------------------------------------------------------------- memory


def operator_heavy_pdf(folder: Path, operators: int) -> Path:
    """A one-page PDF whose content holds `operators` text operators (Td and Tj pairs)."""
    import pikepdf

    pdf = pikepdf.new()
    font = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                                                BaseFont=pikepdf.Name.Helvetica))  # fmt: skip
    body = b"BT /F1 1 Tf 10 10 Td " + b"0.001 0 Td (x) Tj " * (operators // 2) + b"ET"
    page = pikepdf.Dictionary(Type=pikepdf.Name.Page, MediaBox=[0, 0, 612, 792],
                              Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font)),
                              Contents=pdf.make_stream(body))  # fmt: skip
    pdf.pages.append(pikepdf.Page(pdf.make_indirect(page)))
    path = folder / f"text-operators-{operators}.pdf"
    pdf.save(path, compress_streams=True)
    return path


def peak_rss(system: System, path: Path, timeout: float) -> FileRun:
    """A fresh child's peak RSS over one file (import included: compare against `import only`)."""
    child = Child(system)
    try:
        return child.measure(CorpusFile(path.name, path, None, False, ""), timeout)
    finally:
        child.stop()


def memory_report(files: list[CorpusFile], peers: list[str], operators: int, timeout: float) -> Report:
    chosen = [System("ragprep-stream", "ragprep", "stream"), *(System(p, p) for p in peers)]
    largest = max(files, key=lambda f: f.path.stat().st_size)
    result: Report = {"operators": operators, "largest_file": largest.rel, "rows": []}
    with tempfile.TemporaryDirectory() as folder:
        heavy = operator_heavy_pdf(Path(folder), operators)
        for label, path in ((f"{operators} text operators on one page", heavy), (largest.rel, largest.path)):
            for system in chosen:
                run = peak_rss(system, path, timeout)
                result["rows"].append({"input": label, "system": system.name, "ok": run.ok, "error": run.error,
                                       "cpu_seconds": round(run.cpu_seconds, 2),
                                       "peak_rss_mb": round(run.max_rss_mb, 1)})  # fmt: skip
    return result


# --------------------------------------------------------------------------- CLI


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/extract.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="corpus folder holding MANIFEST.tsv")
    parser.add_argument("--files", metavar="GLOB", help="only manifest paths matching this glob (comma-separated)")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N selected files")
    parser.add_argument("--modes", default=",".join(MODES), help="ragprep modes to time (default: %(default)s)")
    parser.add_argument("--peers", default=DEFAULT_PEERS, help="peer libraries (default: %(default)s)")
    parser.add_argument("--no-pure", action="store_true", help="leave out the pure-Python interpreter (RAGPREP_PURE=1)")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="CPU_SECONDS",
                        help="per-file CPU-time limit of each system (default: %(default)s)")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="read each file N times per system and keep the least CPU time (default: %(default)s)")  # fmt: skip
    parser.add_argument("--out", type=Path, help="append one JSON line per measurement here, as measured")
    parser.add_argument("--summarize", type=Path, metavar="JSONL", help="only report on the lines of an earlier --out")
    parser.add_argument("--memory", action="store_true", help="peak RSS on a 2 M-operator page and the largest file")
    parser.add_argument("--operators", type=int, default=2_000_000, help="text operators of the --memory page")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--no-reasons", action="store_true",
                        help="do not profile the worst ten files to say where their time goes")  # fmt: skip
    parser.add_argument("--_worker", help=argparse.SUPPRESS)
    parser.add_argument("--_explain", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="stream", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args._worker:
        return worker(args._worker, args.mode)
    if args._explain:
        print(explain(args._explain, args.mode))
        return 0
    files = select_files(args.corpus, args.files, args.limit)
    peers = [p for p in parse_peer_list(args.peers) if p != "ragprep"]
    if args.memory:
        report = memory_report(files, [p for p in peers if p in ("pymupdf", "playa")], args.operators, args.timeout)
        print(json.dumps(report, indent=2) if args.format == "json" else "\n".join(
            f"{r['input'][:60]:<60} {r['system']:<16} peak RSS {r['peak_rss_mb']:>8.1f} MB  "
            f"CPU {r['cpu_seconds']:>7.2f} s  {'ok' if r['ok'] else r['error']}" for r in report["rows"]))
        return 0
    if args.summarize:
        lines = args.summarize.read_text(encoding="utf-8").splitlines()
        runs = [FileRun(**json.loads(line)) for line in lines if line.strip()]
    else:
        modes = [m.strip() for m in args.modes.split(",") if m.strip()]
        unknown = sorted(set(modes) - set(MODES))
        if unknown:
            raise BenchError(f"unknown mode(s) {', '.join(unknown)}; choose from {', '.join(MODES)}")
        chosen = systems(modes, peers, pure=not args.no_pure and "stream" in modes)
        if args.repeat < 1:
            raise BenchError(f"--repeat must be at least 1, not {args.repeat}")
        runs = measure(chosen, files, args.timeout, args.out, args.quiet, args.repeat)
    report = build_report(runs, {f.rel for f in files if f.tagged}, args.timeout)
    if not args.no_reasons:
        add_reasons(report["worst_stream_vs_pymupdf"], args.corpus, "stream", args.timeout)
    print(json.dumps(report, indent=2) if args.format == "json" else render_text(report))
    return 0


if __name__ == "__main__":
    run_cli(main)
