"""bench/diff_datasets.py: two runs of the same code are identical, a change that
moves chunks is named by table and column."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pipelinedocs import write_corpus

from ragprep.chunk import ChunkConfig
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.diff_datasets import main  # noqa: E402

ONE_WORKER = Settings(pipeline=PipelineConfig(workers=1))


def _run(corpus: Path, out: Path, settings: Settings = ONE_WORKER) -> None:
    run([str(corpus)], out, settings, QuietReporter())


def test_two_runs_of_the_same_code_are_identical_and_a_chunking_change_is_named(tmp_path, capsys):
    corpus = tmp_path / "in"
    write_corpus(corpus, 2)
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    _run(corpus, a)
    _run(corpus, b)  # other run ids, times, processed_at
    assert main([str(a), str(b)]) == 0
    assert "DIFFERENT" not in capsys.readouterr().out

    smaller = Settings(pipeline=ONE_WORKER.pipeline, chunk=ChunkConfig(max_tokens=40, overlap_tokens=0))
    _run(corpus, c, smaller)
    assert main([str(a), str(c), "--format", "json"]) == 1
    report = {t["table"]: t for t in json.loads(capsys.readouterr().out)["tables"]}
    assert report["pages"]["only_a"] == report["pages"]["only_b"] == 0 and not report["pages"]["columns"]
    chunks = report["chunks"]
    assert chunks["rows_b"] > chunks["rows_a"]  # smaller chunks: more of them
    assert {"text", "chunk_id", "config_hash"} <= set(chunks["columns"])
    # The documents table differs only by the settings hash and chunk counts.
    assert set(report["documents"]["columns"]) == {"chunks", "config_hash"}
    # Leaving the differing columns out makes that table agree.
    assert main([str(a), str(c), "--ignore", "documents.chunks", "--ignore", "documents.config_hash", "--format", "json"]) == 1
    report = {t["table"]: t for t in json.loads(capsys.readouterr().out)["tables"]}
    assert not report["documents"]["columns"] and report["chunks"]["columns"]


def test_a_folder_that_is_no_dataset_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty"), str(tmp_path / "empty")]) == 2
    assert "is not a ragprep dataset" in capsys.readouterr().err
