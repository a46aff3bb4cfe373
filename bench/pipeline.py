"""`ragprep run` throughput against extract-only, with 1 and 2 workers; the Ray engine against the local pool.

    python bench/pipeline.py                       # every readable corpus file
    python bench/pipeline.py --files 'multicolumn/*' --workers 1,2,4
    python bench/pipeline.py --format json --out /tmp/pipeline.json
    python bench/pipeline.py --only engines        # just the Ray-vs-local part (needs ragprep[ray])

Measured in one invocation, on the same files, in this order:

1. extract-only: ``extract_document(path, mode)`` file after file in this
   process (the stage-1 floor: no chunking, no Parquet, no workers);
2. ``ragprep run`` (the library call the CLI makes) into a fresh temporary
   dataset, once per worker count, each in a fresh child process of which
   this process is the subreaper (as in 4.); wall time from start to final
   commit, worker start-up and hashing included, and CPU time: the driver's
   own over ``run()`` (``process_time`` in the child) and that of every other
   process of the tree, the forkserver and the workers it forks (the tree's
   ``RUSAGE_CHILDREN`` less the driver process's). The workers are children
   of the forkserver, which outlives ``run()``: ``RUSAGE_CHILDREN`` read in
   the driver would miss them, hence the fresh child and the subreaper.
   Pages per CPU-second are read over both;
3. the peak resident memory of one worker processing the largest file
   (by pages), measured in a fresh process so nothing else inflates it.

4. engines: pages per CPU-second of ``ragprep run`` on the local pool and on
   Ray (``--engine ray``, a Ray started on this machine), both with
   ``--engine-workers`` workers (default 2), alternating ``--repeat`` times.
   Each run is a fresh child process and this process is its subreaper, so
   the CPU time counted (``RUSAGE_CHILDREN``) is that of the whole process
   tree: the driver, the local workers and their forkserver, or Ray's
   daemons, actors and their worker processes. A child that only imports
   ragprep is subtracted from both; a child that only starts and stops Ray
   gives Ray's start-up cost, stated on its own and subtracted from the Ray
   run (actor start-up stays in the run, as local worker start-up does).

Ratios are what to read: run(1 worker) / extract-only (target >= 0.70; in
pages per CPU-second too, extract-only's CPU being its ``process_time``),
run(2 workers) / run(1 worker) (target >= 1.7 on two free cores) and Ray's
pages per CPU-second / the local pool's (target >= 0.85). Absolute pages/s
depend on the machine and on whatever else runs on it.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import DEFAULT_CORPUS, BenchError, CorpusFile, run_cli, select_files  # noqa: E402

_PEAK_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[3])  # bench/, for its one peak-RSS reader
from _corpus import peak_rss_mb
from ragprep.chunk.tokens import Tokenizer
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.model import DocumentTask
from ragprep.pipeline.hashing import file_sha256
from ragprep.pipeline.run import pipeline_version
from ragprep.pipeline.worker import RunContext, process_document
settings = Settings(mode=sys.argv[2])
context = RunContext("bench", pipeline_version(), settings)
tokenizer = Tokenizer.load(settings.chunk.tokenizer_name)
# Resident now (KiB): the worker ready for work, tokenizer loaded.
before = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS:"))
output = process_document(DocumentTask(sys.argv[1], file_sha256(sys.argv[1])), context, tokenizer)
after = peak_rss_mb()
print(before, after, output.row.status, output.page_count)
"""


# One engine measurement in a fresh process: imports, then (phase "ray-start")
# Ray started and stopped, or (phases "local", "ray") a whole run. Prints JSON.
_ENGINE_SCRIPT = """
import json, sys, time
phase, listing, out, workers, mode = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.engine import LocalEngine
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run
result = {"phase": phase}
if phase != "imports":
    settings = Settings(pipeline=PipelineConfig(workers=workers), mode=mode)
    engine = LocalEngine()
    if phase != "local":
        from ragprep.pipeline.ray_engine import RayEngine
        engine = RayEngine().__enter__()
        started = time.perf_counter()
        engine.workers(settings.pipeline)  # starts Ray
        result["ray_start_wall"] = time.perf_counter() - started
    if phase != "ray-start":
        started, cpu_started = time.perf_counter(), time.process_time()
        summary = run(["@" + listing], out, settings, QuietReporter(), engine=engine)
        result.update(run_wall=time.perf_counter() - started, pages=summary.pages, failed=summary.failed)
        result["driver_cpu"] = time.process_time() - cpu_started  # run() alone, in the driver
    if phase != "local":
        started = time.perf_counter()
        engine.__exit__(None, None, None)
        result["ray_stop_wall"] = time.perf_counter() - started
result["process_cpu"] = time.process_time()  # the driver's own CPU, imports included
print(json.dumps(result))
"""
_PR_SET_CHILD_SUBREAPER = 36  # prctl(2), Linux


@dataclass(frozen=True)
class Measure:
    label: str
    pages: int
    seconds: float
    failed: int
    driver_cpu_seconds: float  # the measuring process, or a run's driver
    worker_cpu_seconds: float = 0.0  # a run's workers and their forkserver

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds if self.seconds else 0.0

    @property
    def cpu_seconds(self) -> float:
        return self.driver_cpu_seconds + self.worker_cpu_seconds

    @property
    def pages_per_cpu_second(self) -> float:
        return self.pages / self.cpu_seconds if self.cpu_seconds else 0.0


def extract_only(files: list[CorpusFile], mode: str) -> Measure:
    from ragprep.extract import RagprepError, extract_document

    pages = failed = 0
    started, cpu = time.perf_counter(), time.process_time()
    for f in files:
        try:
            pages += len(extract_document(f.path, mode=mode).pages)
        except RagprepError:
            failed += 1
    return Measure("extract only (1 process)", pages, time.perf_counter() - started, failed, time.process_time() - cpu)


def pipeline_run(listing: Path, mode: str, workers: int) -> Measure:
    """One ``ragprep run`` in a fresh child (engine_phase "local"), its CPU split
    into the driver's over ``run()`` and that of the rest of its process tree."""
    done = engine_phase("local", listing, workers, mode)
    driver = done["driver_cpu"]
    workers_cpu = done["cpu"] - done["process_cpu"]  # forkserver, workers, resource tracker
    label = f"ragprep run, {workers} worker{'s' if workers > 1 else ''}"
    return Measure(label, int(done["pages"]), done["run_wall"], int(done["failed"]), driver, workers_cpu)


def worker_peak(largest: CorpusFile, mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_SCRIPT, str(largest.path), mode, str(Path(__file__).resolve().parent)],
        capture_output=True,
        text=True,
        check=True,
    )
    before, after, status, pages = done.stdout.split()
    # Resident now in KiB, the peak in MiB; the peak includes the moment the tokenizer was loaded.
    return {
        "file": largest.rel,
        "pages": int(pages),
        "status": status,
        "idle_worker_mib": round(int(before) / 1024, 1),
        "peak_worker_mib": round(float(after), 1),
    }


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_orphans(limit_seconds: float = 60.0) -> None:
    """Wait for every process of the measured tree that outlived its parent
    (this process is their subreaper), so their CPU time is counted."""
    deadline = time.monotonic() + limit_seconds
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.1)
    raise SystemExit("bench: processes of a measured run did not exit within a minute")


def engine_phase(phase: str, listing: Path, workers: int, mode: str) -> dict[str, float]:
    """One measurement child: its JSON result plus the CPU seconds of its whole process tree."""
    with tempfile.TemporaryDirectory(prefix="ragprep-bench-") as tmp:
        before = _children_cpu()
        done = subprocess.run(
            [sys.executable, "-c", _ENGINE_SCRIPT, phase, str(listing), str(Path(tmp) / "ds"), str(workers), mode],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        _reap_orphans()
        return {**json.loads(done.stdout.splitlines()[-1]), "cpu": _children_cpu() - before}


def _become_subreaper() -> None:
    """Orphans of a measured child (pool workers, their forkserver) become this
    process's children, so RUSAGE_CHILDREN counts the whole tree once reaped."""
    if not sys.platform.startswith("linux"):
        raise BenchError("runs are measured as a process tree's CPU with prctl(2): Linux only")
    if ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise BenchError("prctl(PR_SET_CHILD_SUBREAPER) failed")


def _listing(files: list[CorpusFile], tmp: str) -> Path:
    listing = Path(tmp) / "inputs.txt"
    listing.write_text("\n".join(str(f.path) for f in files) + "\n")
    return listing


def compare_engines(files: list[CorpusFile], mode: str, workers: int, repeat: int) -> dict[str, object]:
    """Pages per CPU-second, Ray against the local pool (see the module docstring, 4.)."""
    _become_subreaper()
    with tempfile.TemporaryDirectory(prefix="ragprep-bench-") as tmp:
        listing = _listing(files, tmp)
        samples: dict[str, list[dict[str, float]]] = {"imports": [], "ray-start": [], "local": [], "ray": []}
        for _ in range(repeat):
            for phase in samples:  # alternated, so a change in the machine's load hits both engines
                samples[phase].append(engine_phase(phase, listing, workers, mode))
    cpu = {phase: statistics.median(s["cpu"] for s in runs) for phase, runs in samples.items()}
    pages = samples["local"][0]["pages"]
    if any(s["pages"] != pages for s in samples["local"] + samples["ray"]):
        raise BenchError("the local and Ray runs read different page counts")
    local_cpu = cpu["local"] - cpu["imports"]
    ray_cpu = cpu["ray"] - cpu["ray-start"]
    startup_cpu = cpu["ray-start"] - cpu["imports"]
    return {
        "workers": workers,
        "repeat": repeat,
        "pages": pages,
        "failed": samples["local"][0]["failed"],
        "local_cpu_seconds": round(local_cpu, 2),
        "ray_cpu_seconds": round(ray_cpu, 2),
        "local_pages_per_cpu_second": round(pages / local_cpu, 2),
        "ray_pages_per_cpu_second": round(pages / ray_cpu, 2),
        "ray_vs_local": round(local_cpu / ray_cpu, 3),
        "ray_vs_local_with_startup": round(local_cpu / (ray_cpu + startup_cpu), 3),
        "local_run_wall_seconds": round(statistics.median(s["run_wall"] for s in samples["local"]), 2),
        "ray_run_wall_seconds": round(statistics.median(s["run_wall"] for s in samples["ray"]), 2),
        "ray_startup_cpu_seconds": round(startup_cpu, 2),
        "ray_startup_wall_seconds": round(statistics.median(s["ray_start_wall"] for s in samples["ray-start"]), 2),
        "ray_shutdown_wall_seconds": round(statistics.median(s["ray_stop_wall"] for s in samples["ray-start"]), 2),
    }


def engines_text(e: dict[str, object]) -> list[str]:
    return [
        f"engines, {e['workers']} workers each, median of {e['repeat']}: {e['pages']} pages",
        f"{'':30} {'CPU s':>8} {'pages/CPU-s':>12} {'wall s':>8}",
        f"{'local pool':30} {e['local_cpu_seconds']:8.1f} {e['local_pages_per_cpu_second']:12.2f} {e['local_run_wall_seconds']:8.1f}",
        f"{'ray (started on this machine)':30} {e['ray_cpu_seconds']:8.1f} {e['ray_pages_per_cpu_second']:12.2f} {e['ray_run_wall_seconds']:8.1f}",
        f"ray / local pages per CPU-second: {e['ray_vs_local']:.3f} (target >= 0.85); "
        f"{e['ray_vs_local_with_startup']:.3f} counting Ray's start-up",
        f"Ray start-up: {e['ray_startup_cpu_seconds']:.1f} CPU s, {e['ray_startup_wall_seconds']:.1f} s wall "
        f"(shutdown {e['ray_shutdown_wall_seconds']:.1f} s wall)",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", help="fnmatch globs over manifest paths, comma-separated")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--mode", default="auto", choices=["auto", "structure", "layout", "stream"])
    parser.add_argument("--workers", default="1,2", help="worker counts to run, comma-separated (default 1,2)")
    parser.add_argument("--only", choices=["all", "throughput", "engines"], default="all",
                        help="throughput: parts 1-3; engines: part 4, Ray against the local pool")
    parser.add_argument("--engine-workers", type=int, default=2, help="workers of each engine in part 4 (default 2)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each engine in part 4, alternated (median)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)

    files = select_files(args.corpus, args.files, args.limit)
    for f in files:  # warm the page cache so no measurement pays for the disk
        f.path.read_bytes()
    report: dict[str, object] = {"files": len(files), "mode": args.mode, "cpus": os.cpu_count()}
    lines = [f"{len(files)} files, mode {args.mode}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"]
    if args.only in ("all", "throughput"):
        part, part_lines = throughput(files, args.mode, [int(w) for w in args.workers.split(",")])
        report.update(part)
        lines += part_lines
    if args.only in ("all", "engines"):
        report["engines"] = compare_engines(files, args.mode, args.engine_workers, args.repeat)
        lines += engines_text(report["engines"])  # type: ignore[arg-type]
    report["load_average"] = os.getloadavg()[0]
    text = json.dumps(report, indent=2) if args.format == "json" else "\n".join(lines)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


def throughput(files: list[CorpusFile], mode: str, counts: list[int]) -> tuple[dict[str, object], list[str]]:
    """Parts 1-3 of the module docstring: measures, speed-ups, a worker's peak memory."""
    _become_subreaper()
    with tempfile.TemporaryDirectory(prefix="ragprep-bench-") as tmp:
        listing = _listing(files, tmp)
        measures = [extract_only(files, mode), *(pipeline_run(listing, mode, w) for w in counts)]
    largest = max(files, key=lambda f: f.pages or 0)
    peak = worker_peak(largest, mode)
    base, cpu_base = measures[0].pages_per_second, measures[0].pages_per_cpu_second
    one = next((m for m in measures[1:] if m.label.endswith(" 1 worker")), None)
    speedups = {m.label: round(m.pages_per_second / one.pages_per_second, 3) for m in measures[1:] if one is not None}
    report = {
        "measures": [
            {
                **asdict(m),
                "cpu_seconds": round(m.cpu_seconds, 2),
                "pages_per_second": round(m.pages_per_second, 2),
                "pages_per_cpu_second": round(m.pages_per_cpu_second, 2),
                "vs_extract_only": round(m.pages_per_second / base, 3),
                "cpu_vs_extract_only": round(m.pages_per_cpu_second / cpu_base, 3),
            }
            for m in measures
        ],
        "speedup_vs_1_worker": speedups,
        "worker_peak_memory": peak,
    }
    lines = [
        f"{'':30} {'pages':>7} {'seconds':>8} {'pages/s':>8} {'vs extract':>10} {'vs 1 worker':>11}"
        f" {'driver CPU':>10} {'worker CPU':>10} {'pages/CPU-s':>11} {'vs extract':>10}"
    ]
    for m in measures:
        speedup = speedups.get(m.label)
        lines.append(
            f"{m.label:30} {m.pages:7d} {m.seconds:8.1f} {m.pages_per_second:8.1f} "
            f"{m.pages_per_second / base:10.2f} {'' if speedup is None else f'{speedup:11.2f}':>11}"
            f" {m.driver_cpu_seconds:10.1f} {m.worker_cpu_seconds:10.1f} {m.pages_per_cpu_second:11.2f}"
            f" {m.pages_per_cpu_second / cpu_base:10.2f}"
        )
    lines.append(
        f"worker peak RSS on the largest file ({peak['file']}, {peak['pages']} pages, {peak['status']}): "
        f"{peak['peak_worker_mib']} MiB (a ready worker holds {peak['idle_worker_mib']} MiB)"
    )
    return report, lines


if __name__ == "__main__":
    run_cli(main)
