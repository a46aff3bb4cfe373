"""A run with one long document, for the tests that readers see the others
on time (local pool and Ray). Kept out of pipelinedocs: workers import that
module, and what this one imports would grow every worker's address space."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
from pipelinedocs import hold_on_held, report_pdf, write_corpus

from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.dataset import snapshot
from ragprep.pipeline.engine import Engine
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import RunSummary, run


@dataclass(frozen=True)
class HeldRun:
    # The documents readers saw published while the held one was still being read.
    published_while_held: frozenset[str]
    summary: RunSummary


def _published_ok(out: Path) -> frozenset[str]:
    """The documents read without error in the version readers see now."""
    try:
        rows = pads.dataset(snapshot(out) / "documents", format="parquet").to_table(columns=["source", "status"])
    except (OSError, pa.ArrowInvalid):  # no version published yet
        return frozenset()
    return frozenset(Path(r["source"]).name for r in rows.to_pylist() if r["status"] == "ok")


def run_holding_one(tmp_path: Path, engine: Engine | None = None) -> HeldRun:
    """A run of three quick documents and one held (`hold_on_held`) on two
    workers, committing and publishing every 0.2 s: what readers saw of the
    quick ones before the held one was let go (waiting up to 60 s for all three)."""
    folder, out = tmp_path / "in", tmp_path / "ds"
    write_corpus(folder, 3)
    held = folder / "held.pdf"
    held.write_bytes(report_pdf("Held"))
    settings = Settings(pipeline=PipelineConfig(workers=2, commit_every_seconds=0.2, publish_every_seconds=0.2))
    engine_arg = {"engine": engine} if engine is not None else {}
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(run, [str(folder)], out, settings, QuietReporter(), handler=hold_on_held, **engine_arg)
        seen: frozenset[str] = frozenset()
        deadline = time.monotonic() + 60
        while len(seen) < 3 and time.monotonic() < deadline and not running.done():
            time.sleep(0.05)
            seen = _published_ok(out)
        held.with_suffix(".release").write_text("")
        return HeldRun(seen, running.result(timeout=180))
