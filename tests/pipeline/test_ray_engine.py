"""`ragprep run --engine ray`: the same dataset as the local pool, the same limits, the same kill -9 safety.

One local Ray (two CPUs) serves the whole module; the CLI tests connect to it
with --ray-address, as a driver connects to a cluster, except the one that
lets the CLI start a Ray of its own.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.dataset as pads
import pytest
from pipelinedocs import BROKEN_PDF, misbehave, report_pdf, write_corpus
from heldrun import run_holding_one
from test_kill_resume import CLI, assert_consistent, content, kill_after

from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[test]' brings the ray extra")

from ragprep.pipeline.ray_engine import RayEngine  # noqa: E402 - after the check that Ray is there

TESTS = Path(__file__).resolve().parents[1]
SAMPLES = Path(__file__).resolve().parents[2] / "pipeline" / "samples"
# What differs between two runs over the same inputs whatever the engine.
RUN_SPECIFIC = {"seconds", "processed_at", "run_id", "started", "finished"}
TWO_WORKERS = Settings(pipeline=PipelineConfig(workers=2))


@pytest.fixture(scope="module")
def cluster():
    """A local Ray with two CPUs; its workers can import the tests' handlers."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(
        address="local",
        num_cpus=2,
        object_store_memory=128 * 1024 * 1024,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([str(TESTS), str(TESTS / "pipeline")])}},
    )
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.fixture
def engine(cluster):
    with RayEngine() as engine:  # uses the module's Ray: it is initialised in this process
        yield engine


def table(dataset: Path, name: str) -> list[dict]:
    """A table's rows without what is run-specific, in a canonical order."""
    rows = pads.dataset(dataset / name, format="parquet").to_table().to_pylist()
    rows = [{k: v for k, v in row.items() if k not in RUN_SPECIFIC} for row in rows]
    return sorted(rows, key=repr)


def assert_same_datasets(local: Path, on_ray: Path) -> None:
    for name in ("chunks", "pages", "documents", "changes", "runs"):
        assert table(local, name) == table(on_ray, name), name


def mixed_inputs(folder: Path) -> Path:
    """Tagged and untagged PDFs, a broken one, and the same bytes at two paths."""
    write_corpus(folder, 2)
    shutil.copy(SAMPLES / "tagged-two-column-article.pdf", folder / "tagged.pdf")
    (folder / "broken.pdf").write_bytes(BROKEN_PDF)
    (folder / "copy").mkdir()
    shutil.copy(folder / "doc-00.pdf", folder / "copy" / "doc-00-again.pdf")
    return folder


def test_a_ray_run_and_a_local_run_write_the_same_dataset_first_and_incrementally(tmp_path, engine):
    folder = mixed_inputs(tmp_path / "in")
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    first_local = run([str(folder)], local, TWO_WORKERS, QuietReporter())
    first_ray = run([str(folder)], on_ray, TWO_WORKERS, QuietReporter(), engine=engine)
    assert (first_ray.processed, first_ray.failed, first_ray.exit_code) == (4, 1, 3)
    assert first_ray.chunks == first_local.chunks > 0
    assert_same_datasets(local, on_ray)
    docs = {Path(r["source"]).name: r for r in table(on_ray, "documents")}
    assert docs["tagged.pdf"]["tagged"] is True and docs["doc-01.pdf"]["tagged"] is False
    assert docs["broken.pdf"]["error_type"] == "PDFReadError"
    assert docs["doc-00.pdf"]["duplicate_sources"] == [str(folder / "copy" / "doc-00-again.pdf")]

    # Next night: one file changed, one gone, the duplicate moved, the rest as it was.
    (folder / "doc-01.pdf").write_bytes(report_pdf("Doc 1, second edition"))
    (folder / "tagged.pdf").unlink()
    (folder / "copy" / "doc-00-again.pdf").rename(folder / "copy" / "doc-00-moved.pdf")
    again_local = run([str(folder)], local, TWO_WORKERS, QuietReporter())
    again_ray = run([str(folder)], on_ray, TWO_WORKERS, QuietReporter(), engine=engine)
    counts = ("processed", "skipped", "moved", "removed", "failed", "chunks_added", "chunks_removed", "chunks_updated")
    assert [getattr(again_ray, c) for c in counts] == [getattr(again_local, c) for c in counts]
    # doc-01 replaced, the broken file skipped (same bytes, a lasting error), doc-00 moved, tagged.pdf removed.
    assert (again_ray.processed, again_ray.skipped, again_ray.moved, again_ray.removed) == (1, 1, 1, 1)
    assert again_ray.chunks_removed > 0 and again_ray.chunks_added > 0
    assert_same_datasets(local, on_ray)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced this way on Linux only")
def test_hung_oversized_crashing_documents_and_a_lost_actor_are_error_rows_on_ray(tmp_path, engine):
    folder = tmp_path / "in"
    write_corpus(folder, 3)
    base = (folder / "doc-00.pdf").read_bytes()
    for odd in ("slow", "big", "crash", "lost"):
        (folder / f"{odd}.pdf").write_bytes(base + f"\n% {odd}\n".encode())
    limits = Settings(pipeline=PipelineConfig(workers=2, timeout_seconds=5, max_memory_mb=1024))
    summary = run([str(folder)], tmp_path / "ds", limits, QuietReporter(), handler=misbehave, engine=engine)
    assert (summary.processed, summary.failed, summary.exit_code) == (7, 4, 3)
    docs = {Path(r["source"]).name: r for r in table(tmp_path / "ds", "documents")}
    assert docs["slow.pdf"]["error_type"] == "TimeoutError"
    assert "pipeline.timeout_seconds" in docs["slow.pdf"]["error_message"]
    assert docs["big.pdf"]["error_type"] == "MemoryLimitError"
    assert "pipeline.max_memory_mb" in docs["big.pdf"]["error_message"]
    assert docs["crash.pdf"]["error_type"] == "WorkerDiedError"
    assert "exited with status 70" in docs["crash.pdf"]["error_message"]
    assert docs["lost.pdf"]["error_type"] == "WorkerDiedError"
    assert "Ray actor" in docs["lost.pdf"]["error_message"]
    assert all(docs[f"doc-0{i}.pdf"]["status"] == "ok" for i in range(3))


# A commit after every document, so a kill is likely to land near one.
KILL_CONFIG = "[pipeline]\nworkers = 2\ncommit_every_documents = 1\n"


def start_cli(corpus: Path, out: Path, config: Path, *engine: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "run", str(corpus), "--out", str(out), "--config", str(config),
         "--log-format", "json", *engine],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )  # fmt: skip


@pytest.fixture(scope="module")
def kill_corpus(tmp_path_factory):
    """Eight documents, the config, and what a complete local run makes of them."""
    root = tmp_path_factory.mktemp("ray-kill")
    write_corpus(root / "corpus", 8)
    (root / "config.toml").write_text(KILL_CONFIG)
    run([str(root / "corpus")], root / "reference", Settings.load(root / "config.toml"), QuietReporter())
    return root / "corpus", root / "config.toml", content(root / "reference")


def finish_and_check(out: Path, expected: dict, rerun: subprocess.Popen) -> None:
    rerun.communicate(timeout=300)
    assert rerun.returncode == 0
    assert_consistent(out)
    assert content(out) == expected
    runs = pads.dataset(out / "runs", format="parquet").to_table()
    assert runs.num_rows == 2 and runs.column("status").to_pylist()[-1] == "complete"


@pytest.mark.slow
def test_a_ray_driver_killed_mid_run_leaves_a_readable_dataset_a_local_run_completes(tmp_path, cluster, kill_corpus):
    corpus, config, expected = kill_corpus
    out = tmp_path / "ds"
    driver = start_cli(corpus, out, config, "--engine", "ray", "--ray-address", cluster)
    # kill -9 of the driver alone, a moment after its third document came back: its actors die with it.
    kill_after(driver, "document", 3, 0.02)
    assert (out / "current").exists()
    assert_consistent(out)
    # Its actors went with it: the cluster gets its CPUs back for the next driver.
    deadline = time.monotonic() + 60
    while ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert ray.available_resources().get("CPU", 0) == 2
    finish_and_check(out, expected, start_cli(corpus, out, config))


@pytest.mark.slow
def test_a_local_run_killed_mid_run_is_completed_by_a_ray_run_that_starts_its_own_ray(tmp_path, kill_corpus):
    corpus, config, expected = kill_corpus
    out = tmp_path / "ds"
    kill_after(start_cli(corpus, out, config), "document", 2, 0.0)
    assert_consistent(out)
    finish_and_check(out, expected, start_cli(corpus, out, config, "--engine", "ray"))


def test_one_long_document_on_ray_does_not_hold_back_the_commits_and_publishes_of_the_others(tmp_path, engine):
    held = run_holding_one(tmp_path, engine)
    assert held.published_while_held == {"doc-00.pdf", "doc-01.pdf", "doc-02.pdf"}
    assert (held.summary.processed, held.summary.failed) == (4, 0)


def test_engine_options_are_checked_before_anything_starts(tmp_path):
    from typer.testing import CliRunner

    from ragprep.pipeline.cli import app

    result = CliRunner().invoke(app, ["run", "--out", str(tmp_path / "ds"), "--ray-address", "auto"])
    assert result.exit_code == 2 and "--ray-address needs --engine ray" in result.stderr
    assert not (tmp_path / "ds").exists()
