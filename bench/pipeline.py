"""`ragprep run` throughput against extract-only, with 1 and 2 workers.

    python bench/pipeline.py                       # every readable corpus file
    python bench/pipeline.py --files 'multicolumn/*' --workers 1,2,4
    python bench/pipeline.py --format json --out /tmp/pipeline.json

Measured in one invocation, on the same files, in this order:

1. extract-only: ``extract_document(path, mode)`` file after file in this
   process (the stage-1 floor: no chunking, no Parquet, no workers);
2. ``ragprep run`` (the library call the CLI makes) into a fresh temporary
   dataset, once per worker count; wall time from start to final commit,
   worker start-up and hashing included;
3. the peak resident memory of one worker processing the largest file
   (by pages), measured in a fresh process so nothing else inflates it.

Ratios are what to read: run(1 worker) / extract-only (target >= 0.70) and
run(2 workers) / run(1 worker) (target >= 1.7 on two free cores). Absolute
pages/s depend on the machine and on whatever else runs on it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import DEFAULT_CORPUS, CorpusFile, run_cli, select_files  # noqa: E402

_PEAK_SCRIPT = """
import resource, sys
from ragprep.chunk.tokens import Tokenizer
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.model import DocumentTask
from ragprep.pipeline.hashing import file_sha256
from ragprep.pipeline.run import pipeline_version
from ragprep.pipeline.worker import RunContext, process_document
settings = Settings(mode=sys.argv[2])
context = RunContext("bench", pipeline_version(), settings)
tokenizer = Tokenizer.load(settings.chunk.encoding)
# Resident now (KiB): the worker ready for work, tokenizer loaded.
before = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS:"))
output = process_document(DocumentTask(sys.argv[1], file_sha256(sys.argv[1])), context, tokenizer)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(before, after, output.row.status, output.page_count)
"""


@dataclass(frozen=True)
class Measure:
    label: str
    pages: int
    seconds: float
    failed: int

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds if self.seconds else 0.0


def extract_only(files: list[CorpusFile], mode: str) -> Measure:
    from ragprep.extract import RagprepError, extract_document

    pages = failed = 0
    started = time.perf_counter()
    for f in files:
        try:
            pages += len(extract_document(f.path, mode=mode).pages)
        except RagprepError:
            failed += 1
    return Measure("extract only (1 process)", pages, time.perf_counter() - started, failed)


def pipeline_run(files: list[CorpusFile], mode: str, workers: int) -> Measure:
    from ragprep.pipeline.config import PipelineConfig, Settings
    from ragprep.pipeline.progress import QuietReporter
    from ragprep.pipeline.run import run

    settings = Settings(pipeline=PipelineConfig(workers=workers), mode=mode)
    with tempfile.TemporaryDirectory(prefix="ragprep-bench-") as tmp:
        listing = Path(tmp) / "inputs.txt"
        listing.write_text("\n".join(str(f.path) for f in files) + "\n")
        started = time.perf_counter()
        summary = run([f"@{listing}"], Path(tmp) / "ds", settings, QuietReporter())
        seconds = time.perf_counter() - started
    label = f"ragprep run, {workers} worker{'s' if workers > 1 else ''}"
    return Measure(label, summary.pages, seconds, summary.failed)


def worker_peak(largest: CorpusFile, mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_SCRIPT, str(largest.path), mode], capture_output=True, text=True, check=True
    )
    before, after, status, pages = done.stdout.split()
    # KiB on Linux; the peak includes the moment the tokenizer was loaded.
    return {
        "file": largest.rel,
        "pages": int(pages),
        "status": status,
        "idle_worker_mib": round(int(before) / 1024, 1),
        "peak_worker_mib": round(int(after) / 1024, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", help="fnmatch globs over manifest paths, comma-separated")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--mode", default="auto", choices=["auto", "structure", "layout", "stream"])
    parser.add_argument("--workers", default="1,2", help="worker counts to run, comma-separated (default 1,2)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)

    files = select_files(args.corpus, args.files, args.limit)
    for f in files:  # warm the page cache so no measurement pays for the disk
        f.path.read_bytes()
    counts = [int(w) for w in args.workers.split(",")]
    measures = [extract_only(files, args.mode), *(pipeline_run(files, args.mode, w) for w in counts)]
    largest = max(files, key=lambda f: f.pages or 0)
    peak = worker_peak(largest, args.mode)

    base = measures[0].pages_per_second
    one = next((m for m in measures[1:] if m.label.endswith(" 1 worker")), None)
    report = {
        "files": len(files),
        "mode": args.mode,
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "measures": [
            {**asdict(m), "pages_per_second": round(m.pages_per_second, 2), "vs_extract_only": round(m.pages_per_second / base, 3)}
            for m in measures
        ],
        "speedup_vs_1_worker": {
            m.label: round(m.pages_per_second / one.pages_per_second, 3) for m in measures[1:] if one is not None
        },
        "worker_peak_memory": peak,
    }
    if args.format == "json":
        text = json.dumps(report, indent=2)
    else:
        lines = [f"{len(files)} files, mode {args.mode}, {os.cpu_count()} CPUs, load {report['load_average']:.2f}"]
        lines.append(f"{'':30} {'pages':>7} {'seconds':>8} {'pages/s':>8} {'vs extract':>10} {'vs 1 worker':>11}")
        for m in measures:
            speedup = report["speedup_vs_1_worker"].get(m.label)
            lines.append(
                f"{m.label:30} {m.pages:7d} {m.seconds:8.1f} {m.pages_per_second:8.1f} "
                f"{m.pages_per_second / base:10.2f} {'' if speedup is None else f'{speedup:11.2f}'}"
            )
        lines.append(
            f"worker peak RSS on the largest file ({peak['file']}, {peak['pages']} pages, {peak['status']}): "
            f"{peak['peak_worker_mib']} MiB (a ready worker holds {peak['idle_worker_mib']} MiB)"
        )
        text = "\n".join(lines)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    run_cli(main)
