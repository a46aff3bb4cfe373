"""Deferred commits (issue 15): a run's commit writes only what it changes into
the journal, whatever the dataset holds; readers see whole versions, published
once the deferred commits have paid for one; a writer killed at any step loses
no committed entry, and the next writer publishes it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
import pytest
from pipelinedocs import synthetic_output

from ragprep.pipeline import dataset as dataset_module
from ragprep.pipeline.dataset import ChangeSet, Dataset, snapshot, version_number

PER_PART = 4


def read(root: Path, name: str) -> pa.Table:
    return pads.dataset(root / name, format="parquet").to_table()


def doc_ids(root: Path) -> set[str]:
    return set(read(root, "documents").column("doc_id").to_pylist())


def batch(numbers: range, version: int = 0) -> tuple:
    return tuple(synthetic_output(n, version=version) for n in numbers)


def filled(root: Path, documents: int) -> Dataset:
    """A dataset of `documents` synthetic documents, published, open for writing."""
    dataset = Dataset.open(root, documents_per_part=PER_PART)
    for commit, start in enumerate(range(0, documents, 40), 1):
        dataset.commit(ChangeSet(run_id="fill", commit=commit, outputs=batch(range(start, min(start + 40, documents)))))
    return dataset


class Syscalls:
    """Counts the file-system calls a commit makes: links, unlinks and new Parquet files."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.links = self.files = 0
        real_link, real_write = os.link, dataset_module.write_parquet

        def link(*args: object, **kwargs: object) -> None:
            self.links += 1
            real_link(*args, **kwargs)

        def write(table: pa.Table, path: Path) -> int:
            self.files += 1
            return real_write(table, path)

        monkeypatch.setattr(os, "link", link)
        monkeypatch.setattr(dataset_module, "write_parquet", write)
        monkeypatch.setattr("ragprep.pipeline.parts.write_parquet", write)

    def take(self) -> tuple[int, int]:
        counts, self.links, self.files = (self.links, self.files), 0, 0
        return counts


def test_a_deferred_commit_does_the_same_work_whatever_the_dataset_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(dataset_module, "DEFERRED_LINKS", 10)  # so neither commit below publishes
    small, large = filled(tmp_path / "small", 40), filled(tmp_path / "large", 400)
    calls = Syscalls(monkeypatch)
    work = {}
    for name, dataset in (("small", small), ("large", large)):
        published = snapshot(dataset.root)
        # 10 new documents and 2 replaced ones, spread: one commit of a run.
        replaced = range(5, 40, 30)
        change = ChangeSet(run_id="next", commit=1, outputs=batch(range(1000, 1010)) + batch(replaced, 1),
                           removed_doc_ids=frozenset(synthetic_output(n).row.doc_id for n in replaced))  # fmt: skip
        calls.take()
        dataset.commit(change, defer=True)
        work[name] = calls.take()
        assert snapshot(dataset.root) == published  # journaled, not yet published
    # The large dataset has ten times the parts; the commit linked and wrote as much as in the small one.
    assert work["small"] == work["large"], work
    links, files = work["large"]
    assert links < 40 and files < 20, work
    for dataset in (small, large):
        dataset.close()
        assert synthetic_output(1009).row.doc_id in doc_ids(dataset.root)


def test_readers_see_whole_versions_published_when_paid_for_and_at_close(tmp_path, monkeypatch):
    monkeypatch.setattr(dataset_module, "DEFERRED_LINKS", 20)
    dataset = filled(tmp_path / "ds", 200)
    published = snapshot(dataset.root)
    before = doc_ids(dataset.root)
    added: set[str] = set()
    commits = 0
    while snapshot(dataset.root) == published:
        commits += 1
        dataset.commit(ChangeSet(run_id="run", commit=commits, outputs=batch(range(500 + commits, 501 + commits))),
                       defer=True)  # fmt: skip
        added.add(synthetic_output(500 + commits).row.doc_id)
        # The writer sees its own commits at once.
        assert added <= set(dataset.documents(["doc_id"]).column("doc_id").to_pylist())
        if snapshot(dataset.root) == published:
            # Not yet paid for (20 links a commit, a link per part): readers still see the version before the run.
            assert 20 * commits < dataset._work_parts and doc_ids(dataset.root) == before
    # Published by the commit that paid for it, with every commit before it.
    assert 20 * commits >= dataset._work_parts and commits > 3
    assert doc_ids(dataset.root) == before | added
    dataset.commit(ChangeSet(run_id="run", commit=commits + 1, outputs=batch(range(901, 902))), defer=True)
    assert synthetic_output(901).row.doc_id not in doc_ids(dataset.root)
    dataset.close()  # the run's end publishes what is left
    assert synthetic_output(901).row.doc_id in doc_ids(dataset.root)
    assert not any((dataset.root / ".ragprep" / "journal").iterdir())


class Killed(BaseException):
    """The writer died here (no code of the dataset layer catches it)."""


def _kill_at(monkeypatch: pytest.MonkeyPatch, stop_at: int | None) -> list[str]:
    """Make the `stop_at`-th rename, link or unlink raise Killed; list the calls made."""
    seen: list[str] = []

    def wrap(name: str, real):
        def call(*args: object, **kwargs: object):
            seen.append(name)
            if len(seen) == stop_at:
                raise Killed
            return real(*args, **kwargs)

        return call

    for name in ("rename", "replace", "link", "unlink"):
        monkeypatch.setattr(os, name, wrap(name, getattr(os, name)))
    return seen


def _states(base: set[str]) -> list[set[str]]:
    """The documents after each commit of _writer_run (index 0: before it)."""
    states = [set(base)]
    for commit in range(1, 6):
        added = {synthetic_output(n).row.doc_id for n in range(100 + 3 * commit, 103 + 3 * commit)}
        states.append(states[-1] - {synthetic_output(commit).row.doc_id} | added)
    return states


def _writer_run(root: Path, monkeypatch: pytest.MonkeyPatch, stop_at: int | None) -> tuple[int, int]:
    """Five commits (four deferred) and a close, killed at call `stop_at`:
    (calls made, commits that returned)."""
    done = 0
    opened: list[Dataset] = []
    with monkeypatch.context() as patch:
        patch.setattr(dataset_module, "DEFERRED_LINKS", 15)  # a publish every few commits
        seen = _kill_at(patch, stop_at)
        try:
            dataset = Dataset.open(root, documents_per_part=PER_PART)
            opened.append(dataset)
            for commit in range(1, 6):
                outputs = batch(range(100 + 3 * commit, 103 + 3 * commit))
                removed = frozenset({synthetic_output(commit).row.doc_id})
                change = ChangeSet(run_id="run", commit=commit, outputs=outputs, removed_doc_ids=removed)
                dataset.commit(change, defer=commit < 5)
                done = commit
            dataset.close()
        except Killed:
            for dataset in opened:  # the process is gone, and its lock with it
                if dataset._lock_fd is not None:
                    os.close(dataset._lock_fd)
    return len(seen), done


def _whole(root: Path) -> set[str]:
    docs = doc_ids(root)
    chunks = read(root, "chunks").column("doc_id").to_pylist()
    assert {d: chunks.count(d) for d in set(chunks)} == dict.fromkeys(docs, 3)  # 3 chunks each, no orphan
    return docs


@pytest.mark.slow  # about 80 simulated deaths, each a dataset built and a run of five commits
def test_a_writer_killed_at_any_step_loses_no_committed_entry(tmp_path, monkeypatch):
    # A kill, not a power cut: what fsync makes durable is not in question here, and skipping it is 5x faster.
    for module in ("ragprep.pipeline.parts", "ragprep.pipeline.dataset"):
        monkeypatch.setattr(f"{module}.fsync", lambda path: None)
    filled(tmp_path / "probe", 24).close()
    calls, done = _writer_run(tmp_path / "probe", monkeypatch, None)
    assert done == 5 and calls > 100
    for stop_at in range(1, calls + 1, 3):  # every third call: each kind of step, in each commit
        root = tmp_path / f"ds-{stop_at}"
        filled(root, 24).close()
        states = _states(doc_ids(root))
        _, done = _writer_run(root, monkeypatch, stop_at)
        # Readers see one whole version: before the run or after one of its commits.
        assert _whole(root) in states, stop_at
        # The next writer starts from every commit that returned (or the one being renamed)...
        reopened = Dataset.open(root, documents_per_part=PER_PART)
        writer = set(reopened.documents(["doc_id"]).column("doc_id").to_pylist())
        assert writer in states[done : done + 2], (stop_at, done)
        reopened.close()
        # ...and publishes it.
        assert _whole(root) == writer, stop_at
        assert not any((root / ".ragprep" / "journal").iterdir()), stop_at


def test_an_open_with_nothing_pending_links_nothing_whatever_the_dataset_holds(tmp_path, monkeypatch):
    filled(tmp_path / "ds", 400).close()
    calls = Syscalls(monkeypatch)
    dataset = Dataset.open(tmp_path / "ds", documents_per_part=PER_PART)
    # The work view the last writer left holds the published version: kept, not relinked (400 documents: 300+ parts).
    assert calls.take() == (0, 0)
    assert doc_ids(tmp_path / "ds") == set(dataset.documents(["doc_id"]).column("doc_id").to_pylist())
    monkeypatch.setattr(dataset_module, "DEFERRED_LINKS", 1)  # so the commit below waits in the journal
    dataset.commit(ChangeSet(run_id="next", commit=1, outputs=batch(range(1000, 1003))), defer=True)
    os.close(dataset._lock_fd)  # killed: the entry is journaled, not published
    dataset._lock_fd = None
    calls.take()
    reopened = Dataset.open(tmp_path / "ds", documents_per_part=PER_PART)
    # The view already holds the journaled commit: nothing to link, and readers do not see it yet...
    assert calls.take() == (0, 0)
    assert synthetic_output(1002).row.doc_id not in doc_ids(tmp_path / "ds")
    # ...until this writer's first commit publishes it, deferred and unpaid as that commit is.
    reopened.commit(ChangeSet(run_id="after", commit=1, outputs=batch(range(1003, 1004))), defer=True)
    assert {synthetic_output(n).row.doc_id for n in (1002, 1003)} <= doc_ids(tmp_path / "ds")
    reopened.close()


def test_a_work_view_that_disagrees_with_its_marker_is_rebuilt(tmp_path):
    filled(tmp_path / "ds", 80).close()
    work = tmp_path / "ds" / ".ragprep" / "work" / "chunks"
    stray = sorted(work.iterdir())[0]
    stray.unlink()  # a part gone from the view (a power cut, a hand): the marker's count no longer holds
    dataset = Dataset.open(tmp_path / "ds", documents_per_part=PER_PART)
    assert stray.exists()
    assert set(dataset.documents(["doc_id"]).column("doc_id").to_pylist()) == doc_ids(tmp_path / "ds")
    dataset.close()


def test_readers_see_only_published_versions_and_say_how_many_commits_wait(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from ragprep.pipeline.cli import app
    from ragprep.pipeline.dataset import Snapshot
    from ragprep.pipeline.export import chunk_table
    from ragprep.pipeline.config import SyncConfig
    from ragprep.pipeline.sync import EmbeddingCache, load_embedder, open_store, sync
    from ragprep.pipeline.sync.cli import summary_text
    from syncdocs import store_contents

    monkeypatch.setattr(dataset_module, "DEFERRED_LINKS", 1)  # the run's commits wait in the journal
    dataset = filled(tmp_path / "ds", 40)
    published = Snapshot.open(tmp_path / "ds")
    assert published.unpublished == 0 and published.unpublished_note() == ""
    for commit in (1, 2):
        dataset.commit(ChangeSet(run_id="run", commit=commit, outputs=batch(range(100 + commit, 101 + commit))), defer=True)
    waiting = Snapshot.open(tmp_path / "ds")
    assert (waiting.version, waiting.unpublished) == (published.version, 2)
    # The loaders read the published version: none of the run's chunks yet.
    assert set(chunk_table(tmp_path / "ds").column("doc_id").to_pylist()) == doc_ids(tmp_path / "ds")
    assert synthetic_output(102).row.doc_id not in doc_ids(tmp_path / "ds")
    result = CliRunner().invoke(app, ["export", str(tmp_path / "ds")])
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == chunk_table(tmp_path / "ds").num_rows
    assert f"read version {published.version}; 2 later commit(s) of a run are not published yet" in result.stderr
    store = open_store(f"lancedb:{tmp_path / 'lance'}#chunks")
    embedder = load_embedder("syncdocs:trigram_embedder")
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    synced = sync(tmp_path / "ds", store, embedder, SyncConfig(), cache)
    cache.close()
    assert (synced.version, synced.unpublished) == (published.version, 2)
    assert "2 later commit(s) of a run are not published yet, so not synced" in summary_text(synced)
    assert set(store_contents(store)) == set(chunk_table(tmp_path / "ds").column("chunk_id").to_pylist())
    dataset.close()
    after = Snapshot.open(tmp_path / "ds")
    assert after.unpublished == 0 and after.version > published.version
    assert CliRunner().invoke(app, ["export", str(tmp_path / "ds")]).stderr == ""


def test_a_waiting_commit_is_published_once_publish_every_seconds_have_passed(tmp_path, monkeypatch):
    monkeypatch.setattr(dataset_module, "DEFERRED_LINKS", 1)  # never paid for: only time publishes it
    filled(tmp_path / "ds", 40).close()
    dataset = Dataset.open(tmp_path / "ds", documents_per_part=PER_PART, publish_every_seconds=0.2)
    published = snapshot(tmp_path / "ds")
    result = dataset.commit(ChangeSet(run_id="run", commit=1, outputs=batch(range(100, 101))), defer=True)
    assert result.published == version_number(published) < result.version
    assert not dataset.publish_if_due() and snapshot(tmp_path / "ds") == published  # not yet waited long enough
    time.sleep(0.25)
    assert dataset.publish_if_due()
    assert synthetic_output(100).row.doc_id in doc_ids(tmp_path / "ds")
    assert not dataset.publish_if_due()  # nothing waits any more
    dataset.close()
