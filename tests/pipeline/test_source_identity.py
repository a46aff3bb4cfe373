"""Stable source keys and content-stable chunk ids (issue 14): a rerun that only
spells its inputs differently changes nothing, and an edited document keeps the
ids of its unchanged chunk texts."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
from pipelinedocs import report_pdf, write_corpus

from ragprep.chunk import ChunkConfig, chunk_id, chunk_ids
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run

SMALL = Settings(chunk=ChunkConfig(max_tokens=48, overlap_tokens=0), pipeline=PipelineConfig(workers=1))


def table(dataset: Path, name: str) -> pa.Table:
    return pads.dataset(dataset / name, format="parquet").to_table()


def changes(dataset: Path, run_id: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {"add": set(), "remove": set(), "update": set()}
    for row in table(dataset, "changes").to_pylist():
        if row["run_id"] == run_id:
            out[row["op"]].add(row["chunk_id"])
    return out


def do_run(inputs: list[str], out: Path, settings: Settings = SMALL):
    return run(inputs, out, settings, QuietReporter())


def test_relative_inputs_and_another_working_directory_are_a_no_op_rerun(tmp_path, monkeypatch):
    corpus = tmp_path / "work" / "corpus"
    write_corpus(corpus, 2)
    out = tmp_path / "ds"
    first = do_run([str(corpus)], out)
    assert first.processed == 2
    before = table(out, "chunks").sort_by("chunk_id")
    assert set(before.column("source").to_pylist()) == {os.path.realpath(p) for p in corpus.glob("*.pdf")}

    monkeypatch.chdir(tmp_path / "work")
    relative = do_run(["corpus"], out)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    dotted = do_run(["../work/./corpus/"], out)
    # A symlinked spelling resolves to the same files.
    os.symlink(corpus, tmp_path / "link")
    linked = do_run([str(tmp_path / "link")], out)
    for summary in (relative, dotted, linked):
        assert (summary.processed, summary.moved, summary.removed, summary.skipped) == (0, 0, 0, 2)
        assert changes(out, summary.run_id) == {"add": set(), "remove": set(), "update": set()}
    assert table(out, "chunks").sort_by("chunk_id").equals(before)


def test_source_root_keys_survive_a_corpus_that_moves_to_another_mount(tmp_path):
    corpus = tmp_path / "mnt-a" / "corpus"
    write_corpus(corpus / "sub", 2)
    out = tmp_path / "ds"
    rooted = Settings(chunk=SMALL.chunk, pipeline=PipelineConfig(workers=1, source_root=str(corpus)))
    do_run([str(corpus)], out, rooted)
    sources = set(table(out, "documents").column("source").to_pylist())
    assert sources == {"sub/doc-00.pdf", "sub/doc-01.pdf"}
    before = table(out, "chunks").sort_by("chunk_id")

    moved = tmp_path / "mnt-b" / "corpus"
    moved.parent.mkdir()
    shutil.move(corpus, moved)
    remounted = Settings(chunk=SMALL.chunk, pipeline=PipelineConfig(workers=1, source_root=str(moved)))
    summary = do_run([str(moved)], out, remounted)
    assert (summary.processed, summary.moved, summary.removed, summary.skipped) == (0, 0, 0, 2)
    assert table(out, "chunks").sort_by("chunk_id").equals(before)


def test_an_input_outside_the_source_root_is_a_usage_error_before_anything_is_written(tmp_path):
    corpus = tmp_path / "corpus"
    write_corpus(corpus, 1)
    other = tmp_path / "other"
    other.mkdir()
    settings = Settings(pipeline=PipelineConfig(workers=1, source_root=str(other)))
    from ragprep.pipeline.inputs import InputError

    try:
        do_run([str(corpus)], tmp_path / "ds", settings)
    except InputError as exc:
        assert "source_root" in str(exc)
    else:
        raise AssertionError("an input outside pipeline.source_root was accepted")
    assert not (tmp_path / "ds" / "chunks").exists()


def test_dropping_a_page_keeps_the_ids_of_unchanged_chunk_texts_and_logs_them_as_updates(tmp_path):
    corpus = tmp_path / "in"
    corpus.mkdir()
    paper = corpus / "paper.pdf"
    paper.write_bytes(report_pdf("Paper", pages=6))
    other = corpus / "other.pdf"
    other.write_bytes(report_pdf("Other", pages=2))
    out = tmp_path / "ds"
    do_run([str(corpus)], out)
    old = {r["chunk_id"]: r for r in table(out, "chunks").to_pylist() if r["source"] == str(paper)}
    other_before = {r["chunk_id"] for r in table(out, "chunks").to_pylist() if r["source"] == str(other)}

    paper.write_bytes(report_pdf("Paper", pages=5))  # the last page dropped
    summary = do_run([str(corpus)], out)
    assert summary.processed == 1
    new = {r["chunk_id"]: r for r in table(out, "chunks").to_pylist() if r["source"] == str(paper)}
    old_texts = {r["text"] for r in old.values()}
    kept_texts = [r for r in new.values() if r["text"] in old_texts]
    assert len(kept_texts) >= len(new) - 2  # at most the chunk at the new end changes
    for row in kept_texts:
        [before] = [r for r in old.values() if r["text"] == row["text"]]
        assert row["chunk_id"] == before["chunk_id"]
    log = changes(out, summary.run_id)
    assert log["update"] == set(new) & set(old)
    assert log["add"] == set(new) - set(old)
    assert log["remove"] == set(old) - set(new)
    assert len(log["add"]) == len({r["text"] for r in new.values()} - old_texts)
    assert {r["chunk_id"] for r in table(out, "chunks").to_pylist() if r["source"] == str(other)} == other_before


def test_metadata_only_change_is_an_update_and_duplicate_texts_stay_distinct():
    # The id hashes source, settings, occurrence and text; offsets are not in it.
    ids = chunk_ids("/corpus/a.pdf", "cfg", ["Same text", "Other", "Same text"])
    assert len(set(ids)) == 3
    assert ids[0] == chunk_id("/corpus/a.pdf", "cfg", "Same text", 0)
    assert ids[2] == chunk_id("/corpus/a.pdf", "cfg", "Same text", 1)
    # Another source, or other settings, never share an id with this one.
    assert chunk_ids("/corpus/b.pdf", "cfg", ["Same text"])[0] != ids[0]
    assert chunk_ids("/corpus/a.pdf", "cfg2", ["Same text"])[0] != ids[0]


def test_a_moved_document_gets_the_ids_of_its_new_source_without_reprocessing(tmp_path):
    corpus = tmp_path / "in"
    [a] = write_corpus(corpus, 1)
    out = tmp_path / "ds"
    do_run([str(corpus)], out)
    old = table(out, "chunks").sort_by("index").to_pylist()
    moved = corpus / "renamed.pdf"
    os.rename(a, moved)
    summary = do_run([str(corpus)], out)
    assert (summary.processed, summary.moved) == (0, 1)
    new = table(out, "chunks").sort_by("index").to_pylist()
    assert [r["text"] for r in new] == [r["text"] for r in old]
    assert [r["chunk_id"] for r in new] == chunk_ids(str(moved), old[0]["config_hash"], [r["text"] for r in old])
    log = changes(out, summary.run_id)
    assert log == {"add": {r["chunk_id"] for r in new}, "remove": {r["chunk_id"] for r in old}, "update": set()}


def test_keys_resolved_a_folder_at_a_time_equal_realpath_through_symlinks_and_dotdot(tmp_path, monkeypatch):
    from ragprep.pipeline.inputs import collect_inputs, realpaths
    from ragprep.pipeline.sources import source_keys

    real = tmp_path / "real" / "sub"
    real.mkdir(parents=True)
    (real / "a.pdf").write_bytes(b"%PDF-1.7 a")
    (real / "b.pdf").symlink_to(real / "a.pdf")  # a file that is itself a symlink
    (tmp_path / "linked").symlink_to(tmp_path / "real")  # a folder reached through a symlink
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "other")
    spelled = [
        "../real/sub/a.pdf", "../linked/sub/a.pdf", "../linked/sub/../sub/b.pdf",
        str(tmp_path / "linked" / "sub" / "b.pdf"), "./../real//sub/a.pdf",
    ]  # fmt: skip
    assert realpaths(spelled) == [os.path.realpath(p) for p in spelled]
    assert set(realpaths(spelled)) == {str((real / "a.pdf").resolve())}
    assert source_keys(spelled, tmp_path / "linked") == ["sub/a.pdf"] * len(spelled)
    # A folder walk through a symlinked root: a file linked under a second name is one input.
    found = collect_inputs([str(tmp_path / "linked"), str(real / "b.pdf")])
    assert found == (tmp_path / "linked" / "sub" / "a.pdf",)
    assert source_keys(found) == [str(real / "a.pdf")]
