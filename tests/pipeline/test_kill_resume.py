"""kill -9 at random instants: the dataset stays readable and complete, and the
next run finishes the job with no duplicate and no missing chunk."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
import pytest
from pipelinedocs import write_corpus

SEEDS = range(6)
CLI = "from ragprep.pipeline.cli import main; main()"
# A commit after every document, so a good share of the run is spent committing.
CONFIG = "[pipeline]\nworkers = 2\ncommit_every_documents = 1\n"


def start_run(corpus: Path, out: Path, config: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "run", str(corpus), "--out", str(out), "--config", str(config), "--log-format", "json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,  # JSON log lines: the test kills on a chosen event
        text=True,
        start_new_session=True,  # its own process group: the kill takes the workers too
    )


def kill_after(proc: subprocess.Popen, event: str, count: int, delay: float) -> int:
    """SIGKILL the run `delay` seconds after its `count`-th `event` log line;
    returns how many `event` lines it saw (fewer when the run ended first)."""
    seen = 0
    assert proc.stderr is not None
    for line in proc.stderr:
        if json.loads(line).get("event") == event:
            seen += 1
            if seen >= count:
                break
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return seen


def read(out: Path, name: str) -> pa.Table:
    return pads.dataset(out / name, format="parquet").to_table()


def content(out: Path) -> dict[str, list[dict]]:
    """What a complete run must produce, minus what differs from run to run."""
    docs = [
        {k: r[k] for k in ("doc_id", "source", "status", "pages", "chunks")}
        for r in read(out, "documents").to_pylist()
    ]
    return {
        "chunks": sorted(read(out, "chunks").to_pylist(), key=lambda r: r["chunk_id"]),
        "pages": sorted(read(out, "pages").to_pylist(), key=lambda r: (r["doc_id"], r["page"])),
        "documents": sorted(docs, key=lambda r: r["source"]),
    }


def assert_consistent(out: Path) -> None:
    """Whatever version is current is whole: every chunk belongs to an ok
    document whose row counts exactly its chunks, and no chunk id repeats."""
    chunks = read(out, "chunks")
    ids = chunks.column("chunk_id").to_pylist()
    assert len(ids) == len(set(ids))
    per_doc: dict[str, int] = {}
    for doc_id in chunks.column("doc_id").to_pylist():
        per_doc[doc_id] = per_doc.get(doc_id, 0) + 1
    docs = {r["doc_id"]: r for r in read(out, "documents").to_pylist()}
    assert set(per_doc) <= set(docs)
    for doc_id, row in docs.items():
        assert row["status"] == "ok" and per_doc.get(doc_id, 0) == row["chunks"]
    # The change log replays to the current chunk ids.
    live: set[str] = set()
    for row in sorted(read(out, "changes").to_pylist(), key=lambda r: (r["run_id"], r["commit"])):
        if row["op"] == "add":
            assert row["chunk_id"] not in live
            live.add(row["chunk_id"])
        elif row["op"] == "remove":
            live.discard(row["chunk_id"])
    assert live == set(ids)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    root = tmp_path_factory.mktemp("kill")
    corpus = root / "corpus"
    write_corpus(corpus, 12)
    config = root / "config.toml"
    config.write_text(CONFIG)
    proc = start_run(corpus, root / "reference", config)
    proc.communicate(timeout=300)
    assert proc.returncode == 0
    return corpus, config, content(root / "reference")


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_killed_run_leaves_a_readable_dataset_and_the_next_run_completes_it(reference, tmp_path, seed):
    corpus, config, expected = reference
    out = tmp_path / "ds"
    rng = random.Random(seed)
    # After the n-th document came back, a moment later: before, inside or after its commit.
    proc = start_run(corpus, out, config)
    kill_after(proc, "document", rng.randint(1, 12), rng.uniform(0.0, 0.08))
    if (out / "current").exists():
        assert_consistent(out)
    rerun = start_run(corpus, out, config)
    rerun.communicate(timeout=300)
    assert rerun.returncode == 0
    assert_consistent(out)
    assert content(out) == expected
    runs = read(out, "runs").to_pylist()
    assert runs[-1]["status"] == "complete"
    # The killed run is on record (its first commit precedes any document),
    # marked interrupted unless the kill came after its last commit.
    assert len(runs) == 2 and runs[0]["status"] in ("interrupted", "complete")
