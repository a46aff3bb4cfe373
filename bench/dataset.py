"""The dataset at corpus scale: does a commit cost what it changes?

On a synthetic corpus of small documents (default 50,000; each a tiny file on
disk whose SHA-256 is its doc_id, with made-up chunk and page rows of the real
schemas, so no PDF is extracted):

1. first run, driven through the commit layer in commits of
   ``--commit-every`` documents, deferred as a run's are (the last one
   publishes): wall and CPU time per commit as the dataset grows (the curve,
   in deciles: the median commit, and the mean, which carries the publishes),
   and bytes written per commit;
2. opening the dataset for writing with nothing pending (the work view is
   kept, not relinked), then a rerun through ``ragprep.pipeline.run.run`` that hashes every file (the
   first run saw none on disk), then a rerun with nothing changed (each
   file's stat matches: nothing is read; target <= 10 s);
3. a rerun with ``--changed`` documents spread over the dataset given new
   bytes (real PDFs, extracted by the workers): the bytes its commits write
   against the dataset's size (target <= 5%), and the same through the commit
   layer alone.

Usage: nice -n 10 .venv/bin/python bench/dataset.py [--documents 50000] [--format json]
Everything goes in a temporary folder (or --work DIR), removed at the end
unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "pipeline")]

import pyarrow.dataset as pads  # noqa: E402
from pipelinedocs import report_pdf, synthetic_bytes, synthetic_output  # noqa: E402

from ragprep.pipeline.config import PipelineConfig, Settings  # noqa: E402
from ragprep.pipeline.dataset import ChangeSet, CommitResult, Dataset, snapshot  # noqa: E402
from ragprep.pipeline.progress import QuietReporter  # noqa: E402
from ragprep.pipeline.run import pipeline_version, run  # noqa: E402


@dataclass
class Clock:
    wall: float = 0.0
    cpu: float = 0.0

    def __enter__(self) -> "Clock":
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu


class CommitBytes(QuietReporter):
    """Adds up what a run's commits wrote."""

    def __init__(self) -> None:
        self.results: list[CommitResult] = []

    def commit(self, result: CommitResult) -> None:
        self.results.append(result)


def dataset_bytes(root: Path) -> int:
    """Size of the current version's Parquet files (each inode once)."""
    seen: dict[int, int] = {}
    for path in snapshot(root).rglob("*.parquet"):
        stat = path.stat()
        seen[stat.st_ino] = stat.st_size
    return sum(seen.values())


def write_files(corpus: Path, documents: int) -> list[Path]:
    paths = []
    old = time.time() - 3600  # not "just written": their stat may stand for their hash
    for number in range(documents):
        folder = corpus / f"{number // 1000:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"doc-{number:06d}.pdf"
        path.write_bytes(synthetic_bytes(number))
        os.utime(path, (old, old))
        paths.append(path)
    return paths


def first_run(out: Path, paths: list[Path], settings: Settings, every: int) -> list[dict[str, float]]:
    curve = []
    key, version = settings.key_hash, pipeline_version()
    with Dataset.open(out, documents_per_part=settings.pipeline.documents_per_part) as dataset:
        for commit, start in enumerate(range(0, len(paths), every), 1):
            outputs = tuple(
                synthetic_output(n, source=str(paths[n]), config_hash=key, pipeline_version=version)
                for n in range(start, min(start + every, len(paths)))
            )
            last = start + every >= len(paths)
            with Clock() as clock:
                change = ChangeSet(run_id="bench-first", commit=commit, outputs=outputs)
                result = dataset.commit(change, defer=not last)  # as ragprep run commits
            curve.append({"stored": start + len(outputs), "wall": clock.wall, "cpu": clock.cpu, "bytes": result.bytes_written})
    return curve


def deciles(curve: list[dict[str, float]]) -> list[dict[str, float]]:
    size = max(1, len(curve) // 10)
    rows = []
    for start in range(0, len(curve), size):
        window = curve[start : start + size]
        rows.append({
            "stored": window[-1]["stored"],
            "wall_ms": 1000 * statistics.median(w["wall"] for w in window),
            "cpu_ms": 1000 * statistics.median(w["cpu"] for w in window),
            "mean_cpu_ms": 1000 * statistics.fmean(w["cpu"] for w in window),
            "kib_written": statistics.median(w["bytes"] for w in window) / 1024,
        })  # fmt: skip
    return rows


def timed_run(corpus: Path, out: Path, settings: Settings) -> tuple[Clock, object, CommitBytes]:
    reporter = CommitBytes()
    with Clock() as clock:
        summary = run([str(corpus)], out, settings, reporter)
    return clock, summary, reporter


def change_spread(paths: list[Path], count: int) -> list[Path]:
    step = max(1, len(paths) // count)
    changed = paths[::step][:count]
    for path in changed:
        path.write_bytes(report_pdf(f"Changed {path.stem}", pages=1, lines_per_page=4))
    return changed


def commit_layer_changes(out: Path, paths: list[Path], settings: Settings, count: int) -> tuple[int, float]:
    """The same kind of change through the commit layer: `count` spread documents get new rows."""
    step = max(1, len(paths) // count)
    numbers = list(range(step // 2, len(paths), step))[:count]
    key, version = settings.key_hash, pipeline_version()
    outputs = tuple(
        synthetic_output(n, version=2, source=str(paths[n]), config_hash=key, pipeline_version=version) for n in numbers
    )
    old = frozenset(synthetic_output(n).row.doc_id for n in numbers)
    with Dataset.open(out, documents_per_part=settings.pipeline.documents_per_part) as dataset, Clock() as clock:
        result = dataset.commit(ChangeSet(run_id="bench-layer", commit=1, outputs=outputs, removed_doc_ids=old))
    return result.bytes_written, clock.wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=50_000)
    parser.add_argument("--commit-every", type=int, default=200)
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--work", type=Path, help="folder for the corpus and dataset (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args()

    work = args.work or Path(tempfile.mkdtemp(prefix="ragprep-bench-dataset-"))
    work.mkdir(parents=True, exist_ok=True)
    corpus, out = work / "corpus", work / "ds"
    settings = Settings(pipeline=PipelineConfig(workers=args.workers, commit_every_documents=args.commit_every))
    report: dict[str, object] = {"documents": args.documents, "documents_per_part": settings.pipeline.documents_per_part}
    try:
        paths = write_files(corpus, args.documents)
        with Clock() as clock:
            curve = first_run(out, paths, settings, args.commit_every)
        report["first_run"] = {"seconds": clock.wall, "commits": len(curve), "per_commit": deciles(curve)}
        report["dataset_bytes"] = dataset_bytes(out)
        report["parquet_files"] = sum(1 for _ in snapshot(out).rglob("*.parquet"))
        with Clock() as clock:
            rows = pads.dataset(snapshot(out) / "chunks", format="parquet").to_table().num_rows
        report["read_chunks"] = {"rows": rows, "seconds": clock.wall}

        with Clock() as clock:
            Dataset.open(out, documents_per_part=settings.pipeline.documents_per_part).close()
        report["open_nothing_pending"] = {"seconds": clock.wall, "cpu": clock.cpu}
        hashing, summary, _ = timed_run(corpus, out, settings)
        report["rerun_hashing_every_file"] = {"seconds": hashing.wall, "cpu": hashing.cpu, "skipped": summary.skipped}
        unchanged, summary, _ = timed_run(corpus, out, settings)
        report["rerun_no_change"] = {"seconds": unchanged.wall, "cpu": unchanged.cpu, "skipped": summary.skipped, "target_seconds": 10}

        size = dataset_bytes(out)
        change_spread(paths, args.changed)
        changed, summary, commits = timed_run(corpus, out, settings)
        written = sum(r.bytes_written for r in commits.results)
        report["rerun_changed"] = {
            "changed": args.changed, "processed": summary.processed, "failed": summary.failed,
            "seconds": changed.wall, "commits": len(commits.results), "bytes_written": written,
            "dataset_bytes": size, "share": written / size, "target_share": 0.05,
        }  # fmt: skip
        size = dataset_bytes(out)
        written, seconds = commit_layer_changes(out, paths, settings, args.changed)
        report["commit_layer_changed"] = {"bytes_written": written, "dataset_bytes": size, "share": written / size, "seconds": seconds}
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.format == "json":
        print(json.dumps(report, indent=2))
        return
    print_text(report)


def print_text(report: dict) -> None:
    first = report["first_run"]
    print(f"{report['documents']} synthetic documents, {report['documents_per_part']} per part")
    print(f"first run: {first['commits']} commits in {first['seconds']:.1f} s; per commit as the dataset grows (median per decile):")
    print("  stored   wall ms   cpu ms   mean cpu ms   KiB written")
    for row in first["per_commit"]:
        print(f"  {row['stored']:>6}  {row['wall_ms']:>8.1f} {row['cpu_ms']:>8.1f}  {row['mean_cpu_ms']:>12.1f}"
              f"  {row['kib_written']:>10.1f}")  # fmt: skip
    print(f"dataset: {report['dataset_bytes'] / 2**20:.1f} MiB in {report['parquet_files']} Parquet files; "
          f"reading chunks ({report['read_chunks']['rows']} rows) with pyarrow: {report['read_chunks']['seconds']:.2f} s")  # fmt: skip
    opened = report["open_nothing_pending"]
    print(f"opening the dataset for writing with nothing pending: {opened['seconds']:.3f} s wall, {opened['cpu']:.3f} s CPU")
    hashing, unchanged = report["rerun_hashing_every_file"], report["rerun_no_change"]
    print(f"rerun hashing every file: {hashing['seconds']:.1f} s ({hashing['skipped']} unchanged)")
    print(f"rerun, nothing changed (stat matches): {unchanged['seconds']:.1f} s wall, {unchanged['cpu']:.1f} s CPU (target <= 10 s)")
    changed = report["rerun_changed"]
    print(f"rerun, {changed['changed']} documents changed across the dataset: {changed['seconds']:.1f} s, "
          f"{changed['commits']} commits wrote {changed['bytes_written'] / 2**20:.2f} MiB = {changed['share']:.1%} "
          f"of {changed['dataset_bytes'] / 2**20:.1f} MiB (target <= 5%)")  # fmt: skip
    layer = report["commit_layer_changed"]
    print(f"commit layer alone, {changed['changed']} spread replacements: {layer['bytes_written'] / 2**20:.2f} MiB "
          f"= {layer['share']:.1%} of the dataset in {layer['seconds']:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
