"""A commit costs what it touches (issue 15): parts keyed by document, a rerun
that does not read unchanged files, and the promises kept (whole versions,
a change log that replays to the current ids)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pyarrow as pa
import pytest
import pyarrow.dataset as pads
from pipelinedocs import report_pdf, synthetic_output, write_corpus

from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.dataset import ChangeSet, Dataset, DatasetHealth, snapshot
from ragprep.pipeline.model import DocumentOutput
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline import run as run_module
from ragprep.pipeline.run import run

PER_PART = 4


def read(root: Path, name: str) -> pa.Table:
    return pads.dataset(root / name, format="parquet").to_table()


def inodes(version: Path) -> dict[str, int]:
    """table/part name -> inode: the same inode in two versions is a part carried, not written."""
    return {f"{t.name}/{p.name}": p.stat().st_ino for t in version.iterdir() if t.is_dir() for p in t.glob("*.parquet")}


def filled(tmp_path: Path, documents: int) -> Dataset:
    dataset = Dataset.open(tmp_path / "ds", documents_per_part=PER_PART)
    outputs = [synthetic_output(i) for i in range(documents)]
    for commit, start in enumerate(range(0, documents, 2 * PER_PART), 1):  # two full parts per commit
        dataset.commit(ChangeSet(run_id="first", commit=commit, outputs=tuple(outputs[start : start + 2 * PER_PART])))
    return dataset


def live_ids(root: Path) -> set[str]:
    live: set[str] = set()
    for row in sorted(read(root, "changes").to_pylist(), key=lambda r: (r["run_id"], r["commit"])):
        if row["op"] == "add":
            assert row["chunk_id"] not in live
            live.add(row["chunk_id"])
        elif row["op"] == "remove":
            live.discard(row["chunk_id"])
    return live


def assert_whole(root: Path) -> None:
    chunks, docs = read(root, "chunks"), read(root, "documents")
    stored = dict(zip(docs.column("doc_id").to_pylist(), docs.column("chunks").to_pylist(), strict=True))
    counts: dict[str, int] = {}
    for doc_id in chunks.column("doc_id").to_pylist():
        counts[doc_id] = counts.get(doc_id, 0) + 1
    assert counts == {d: n for d, n in stored.items() if n}
    assert len(set(docs.column("source").to_pylist())) == docs.num_rows
    assert live_ids(root) == set(chunks.column("chunk_id").to_pylist())


def test_replacing_one_document_rewrites_only_its_part_in_each_table(tmp_path):
    dataset = filled(tmp_path, 40)  # 10 parts of 4 documents
    before = snapshot(dataset.root)
    # New bytes at a path: the run removes the old doc_id and adds the new one in one commit.
    old_bytes = frozenset({synthetic_output(17).row.doc_id})
    change = ChangeSet(run_id="second", commit=1, outputs=(synthetic_output(17, version=1),), removed_doc_ids=old_bytes)
    result = dataset.commit(change)
    after = snapshot(dataset.root)
    old, new = inodes(before), inodes(after)
    carried = {name for name, inode in new.items() if old.get(name) == inode}
    written = set(new) - carried
    by_table = {t: {n for n in written if n.startswith(t + "/")} for t in ("documents", "chunks", "pages")}
    # The replaced document's part, repacked with its new rows: one part per table.
    assert {t: len(names) for t, names in by_table.items()} == {"documents": 1, "chunks": 1, "pages": 1}
    assert len([n for n in carried if n.startswith("chunks/")]) == 9
    docs = read(after, "documents")
    assert docs.num_rows == 40
    assert synthetic_output(17, version=1).row.doc_id in docs.column("doc_id").to_pylist()
    assert synthetic_output(17).row.doc_id not in docs.column("doc_id").to_pylist()
    assert (result.added, result.removed) == (3, 3)
    data_bytes = sum(p.stat().st_size for p in after.rglob("*.parquet"))
    assert result.bytes_written < data_bytes / 4
    assert_whole(after)
    dataset.close()


def test_removals_moves_and_small_parts_keep_every_promise(tmp_path):
    dataset = filled(tmp_path, 40)
    gone = frozenset(synthetic_output(i).row.doc_id for i in range(0, 40, 3))
    moved = synthetic_output(5).row.doc_id
    dataset.commit(
        ChangeSet(run_id="second", commit=1, removed_doc_ids=gone, moves={moved: ("elsewhere/doc-5.pdf", ())})
    )
    root = snapshot(dataset.root)
    assert_whole(root)
    docs = read(root, "documents")
    assert docs.num_rows == 40 - len(gone)
    assert read(root, "chunks").filter(pa.compute.equal(pa.compute.field("doc_id"), moved)).column(
        "source"
    ).to_pylist() == ["elsewhere/doc-5.pdf"] * 3
    # One document at a time, as commit_every_documents = 1 does: small parts are merged as it goes.
    for commit, number in enumerate(range(100, 130), 2):
        dataset.commit(ChangeSet(run_id="second", commit=commit, outputs=(synthetic_output(number),)))
    root = snapshot(dataset.root)
    assert_whole(root)
    parts = len(list((root / "documents").glob("*.parquet")))
    documents = read(root, "documents").num_rows
    assert parts <= documents / (PER_PART / 2) + 2  # parts stay at least about half full
    dataset.close()


def test_a_dataset_with_parts_not_keyed_by_document_is_rewritten_once_and_stays_whole(tmp_path):
    dataset = filled(tmp_path, 12)
    dataset.close()
    # The layout of datasets written before parts were keyed: one chunks part, other names.
    version = snapshot(tmp_path / "ds")
    chunks = read(version, "chunks")
    for part in (version / "chunks").glob("*.parquet"):
        part.unlink()
    pa.parquet.write_table(chunks, version / "chunks" / "part-legacy.parquet")
    dataset = Dataset.open(tmp_path / "ds", documents_per_part=PER_PART)
    old_bytes = frozenset({synthetic_output(3).row.doc_id})
    dataset.commit(ChangeSet(run_id="second", commit=1, outputs=(synthetic_output(3, version=1),), removed_doc_ids=old_bytes))
    root = snapshot(dataset.root)
    assert_whole(root)
    assert {p.name for p in (root / "chunks").glob("*.parquet")} <= {p.name for p in (root / "documents").glob("*.parquet")}
    dataset.close()


# Run ids of runs started in the same second sort by their random suffix, so a
# later run's parts may sort before an earlier run's (and compaction mixes commits).
RUN_IDS = {
    "ascending": ["20261201T000000Z-000001", "20261201T000000Z-000002", "20261201T000000Z-000003", "20261201T000000Z-000004"],
    "descending": ["20261201T000000Z-ffffff", "20261201T000000Z-fffffe", "20261201T000000Z-fffffd", "20261201T000000Z-fffffc"],
}


@pytest.mark.parametrize("order", RUN_IDS)
def test_a_rerun_trusts_an_unchanged_stat_and_rehash_reads_every_file(tmp_path, monkeypatch, order):
    ids = iter(RUN_IDS[order])
    monkeypatch.setattr(run_module, "new_run_id", lambda now: next(ids))
    corpus = tmp_path / "in"
    a, b = write_corpus(corpus, 2)
    for path in (a, b):  # written a while ago: a stat taken just after a write is not trusted (racy)
        os.utime(path, (path.stat().st_atime - 3600, path.stat().st_mtime - 3600))
    out = tmp_path / "ds"
    settings = Settings(pipeline=PipelineConfig(workers=1))
    run([str(corpus)], out, settings, QuietReporter())
    # Same size, same inode, mtime put back: only reading the bytes can tell.
    data = bytearray(a.read_bytes())
    index = data.index(b"Doc 0")
    data[index : index + 5] = b"Doc Z"
    stat = a.stat()
    with open(a, "r+b") as fh:
        fh.write(data)
    os.utime(a, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    trusted = run([str(corpus)], out, settings, QuietReporter())
    assert (trusted.processed, trusted.skipped) == (0, 2)
    rehashed = run([str(corpus)], out, settings, QuietReporter(), rehash=True)
    assert (rehashed.processed, rehashed.skipped) == (1, 1)
    # A real edit changes the mtime: noticed without --rehash.
    b.write_bytes(report_pdf("New b"))
    assert run([str(corpus)], out, settings, QuietReporter()).processed == 1


def _variant(number: int, kind: str, version: int = 0) -> DocumentOutput:
    """A synthetic document that is an error row, read with no chunk, or with a warned page."""
    output = synthetic_output(number, version=version, chunks=0 if kind == "empty" else 3)
    if kind == "error":
        row = dataclasses.replace(output.row, status="error", error_type="PDFSyntaxError", error_message="bad", chunks=0)
        return DocumentOutput(row)
    if kind == "warned":
        pages = output.pages
        warnings = pa.array([["font without widths"]] * pages.num_rows, pa.list_(pa.string()))
        pages = pages.set_column(pages.schema.get_field_index("warnings"), pages.schema.field("warnings"), warnings)
        return DocumentOutput(output.row, output.chunks, pages)
    return output


def counted(root: Path) -> DatasetHealth:
    """The health of a version, counted over its tables with pyarrow (not by ragprep)."""
    docs = read(root, "documents").to_pylist()
    pages = read(root, "pages").column("warnings").to_pylist()
    return DatasetHealth(
        documents=len(docs),
        errors=sum(d["status"] != "ok" for d in docs),
        empty_documents=sum(d["status"] == "ok" and d["chunks"] == 0 for d in docs),
        warned_pages=sum(bool(w) for w in pages),
    )


def test_the_health_each_commit_records_equals_the_tables_it_leaves(tmp_path):
    dataset = filled(tmp_path, 20)
    kinds = {100: "error", 101: "empty", 102: "warned", 103: "warned", 104: "error"}
    dataset.commit(ChangeSet(run_id="second", commit=1, outputs=tuple(_variant(n, k) for n, k in kinds.items())))
    unreadable = DocumentOutput(dataclasses.replace(_variant(105, "error").row, doc_id=None, source="corpus/fifo.pdf"))
    assert dataset.health() == counted(snapshot(dataset.root)) == DatasetHealth(25, 2, 1, 2)
    # A warned document replaced by clean bytes, an error retried fine, removals, a move, an unreadable source.
    steps = [
        ChangeSet(run_id="third", commit=1, outputs=(_variant(102, "ok", version=1), synthetic_output(100), unreadable),
                  removed_doc_ids=frozenset({_variant(102, "warned").row.doc_id, _variant(100, "error").row.doc_id})),
        ChangeSet(run_id="third", commit=2, removed_doc_ids=frozenset(synthetic_output(n).row.doc_id for n in (1, 7, 101)),
                  moves={synthetic_output(103).row.doc_id: ("corpus/moved.pdf", ())}),
        ChangeSet(run_id="fourth", commit=1, dropped_unreadable=frozenset({"corpus/fifo.pdf"}),
                  outputs=tuple(_variant(n, "warned") for n in range(200, 210))),
    ]  # fmt: skip
    for change in steps:
        dataset.commit(change)
        assert dataset.health() == counted(snapshot(dataset.root)), change.run_id
    assert dataset.health() == DatasetHealth(documents=32, errors=1, empty_documents=0, warned_pages=11)
    dataset.close()
    # A version written before commits recorded their counts: counted over its tables, then recorded again.
    (snapshot(tmp_path / "ds") / "health.json").unlink()
    dataset = Dataset.open(tmp_path / "ds", documents_per_part=PER_PART)
    assert dataset.health() == counted(snapshot(dataset.root))
    dataset.commit(ChangeSet(run_id="fifth", commit=1, outputs=(_variant(300, "empty"),)))
    assert (snapshot(dataset.root) / "health.json").exists()
    assert dataset.health() == counted(snapshot(dataset.root)) == DatasetHealth(33, 1, 1, 11)
    dataset.close()
