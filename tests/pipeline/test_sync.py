"""`ragprep sync`: a LanceDB or Chroma store kept equal to a dataset's filtered
chunks, from the change log, idempotently, surviving kill -9."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.dataset as pads
import pytest
from pipelinedocs import report_pdf, write_corpus
from syncdocs import expected_contents, store_contents, store_rows, trigram_embedder
from typer.testing import CliRunner

from ragprep.chunk import ChunkConfig
from ragprep.pipeline.cli import app
from ragprep.pipeline.config import PipelineConfig, Settings, SyncConfig
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run
from ragprep.pipeline.sync import EmbeddingCache, load_embedder, open_store, sync

SETTINGS = Settings(chunk=ChunkConfig(max_tokens=48, overlap_tokens=0), pipeline=PipelineConfig(workers=1))
EMBEDDER = "syncdocs:trigram_embedder"
runner = CliRunner()


def build(corpus: Path, out: Path) -> None:
    run([str(corpus)], out, SETTINGS, QuietReporter())


def edit(corpus: Path) -> None:
    """The nightly change: one document loses its last page, one is deleted, one is added."""
    (corpus / "doc-00.pdf").write_bytes(report_pdf("Doc 0", pages=3))
    (corpus / "doc-01.pdf").unlink()
    (corpus / "doc-09.pdf").write_bytes(report_pdf("Doc 9", pages=2))


def corpus_of(tmp_path: Path) -> Path:
    corpus = tmp_path / "in"
    write_corpus(corpus, 3)
    (corpus / "doc-00.pdf").write_bytes(report_pdf("Doc 0", pages=4))  # the one that will lose a page
    return corpus


def sync_to(uri: str, dataset: Path, cache: Path, config: SyncConfig | None = None):
    store = open_store(uri)
    with_cache = EmbeddingCache(cache)
    try:
        return store, sync(dataset, store, load_embedder(EMBEDDER), config or SyncConfig(), with_cache)
    finally:
        with_cache.close()


@pytest.mark.parametrize("kind", ["lancedb", "chroma"])
def test_a_store_follows_the_dataset_through_an_edit_and_embeds_only_new_texts(tmp_path, kind):
    corpus = corpus_of(tmp_path)
    out = tmp_path / "ds"
    build(corpus, out)
    uri = f"lancedb:{tmp_path / 'lance'}#chunks" if kind == "lancedb" else f"chroma:{tmp_path / 'chroma'}#chunks"
    flat = kind == "chroma"
    store, first = sync_to(uri, out, tmp_path / "cache.sqlite")
    assert first.full and first.added == len(store_contents(store)) > 0
    assert store_contents(store) == expected_contents(out, SyncConfig(), trigram_embedder, flat=flat)
    assert first.embedded == len({text for text, _, _ in store_contents(store).values()})
    before = store_contents(store)

    # Synced again with nothing new: nothing is written, nothing embedded.
    store, again = sync_to(uri, out, tmp_path / "cache.sqlite")
    assert (again.full, again.added, again.updated, again.removed, again.embedded) == (False, 0, 0, 0, 0)

    edit(corpus)
    build(corpus, out)
    store, nightly = sync_to(uri, out, tmp_path / "cache.sqlite")
    after = store_contents(store)
    assert after == expected_contents(out, SyncConfig(), trigram_embedder, flat=flat)
    old_texts = {text for text, _, _ in before.values()}
    new_texts = {text for text, _, _ in after.values()} - old_texts
    assert not nightly.full and nightly.embedded == len(new_texts) > 0
    # Every chunk whose text survived the edit kept its id (and its vector).
    for chunk_id, (text, meta, vector) in after.items():
        if text in old_texts and meta["source"] != str(corpus / "doc-09.pdf"):
            assert chunk_id in before and before[chunk_id][2] == vector
    assert nightly.removed == len(set(before) - set(after))
    assert nightly.added == len(set(after) - set(before))


def test_a_later_run_whose_id_sorts_first_keeps_the_stores_dataset_id(tmp_path, monkeypatch):
    # Run ids are the start second plus a random suffix: of two runs started in
    # one second the later may sort first. Here it always does.
    ids = iter(["20260101T000000Z-ffffff", "20260101T000000Z-000000"])
    monkeypatch.setattr("ragprep.pipeline.run.new_run_id", lambda now: next(ids))
    corpus = corpus_of(tmp_path)
    out = tmp_path / "ds"
    build(corpus, out)
    uri = f"lancedb:{tmp_path / 'lance'}#chunks"
    store, first = sync_to(uri, out, tmp_path / "cache.sqlite")
    assert first.full and store.state().dataset_id == "20260101T000000Z-ffffff"
    edit(corpus)
    build(corpus, out)
    runs = pads.dataset(out / "runs", format="parquet").to_table().sort_by("started").column("run_id").to_pylist()
    assert runs == ["20260101T000000Z-ffffff", "20260101T000000Z-000000"]  # started in this order, ids sort the other way
    store, nightly = sync_to(uri, out, tmp_path / "cache.sqlite")
    # The same dataset: synced from the change log, not reconciled in full, its id kept.
    assert not nightly.full and nightly.from_version == first.version and nightly.removed > 0
    assert store.state().dataset_id == "20260101T000000Z-ffffff"
    assert store_contents(store) == expected_contents(out, SyncConfig(), trigram_embedder, flat=False)


def test_lancedb_keeps_nested_arrow_types_and_chroma_gets_scalars(tmp_path):
    corpus = corpus_of(tmp_path)
    out = tmp_path / "ds"
    build(corpus, out)
    lance, _ = sync_to(f"lancedb:{tmp_path / 'lance'}", out, tmp_path / "cache.sqlite")
    schema = lance.rows().schema
    assert str(schema.field("bboxes").type).startswith("list<") and "struct<page" in str(schema.field("bboxes").type)
    assert str(schema.field("vector").type) == "fixed_size_list<item: float>[16]"
    chroma, _ = sync_to(f"chroma:{tmp_path / 'chroma'}", out, tmp_path / "cache.sqlite")
    for _, meta, _ in store_contents(chroma).values():
        assert all(isinstance(v, (str, int, float, bool)) for v in meta.values())
        assert isinstance(json.loads(meta["heading_path"]), list)


def test_sync_filters_decide_what_the_store_holds_and_a_new_filter_reconciles_in_full(tmp_path):
    corpus = corpus_of(tmp_path)
    out = tmp_path / "ds"
    build(corpus, out)
    uri = f"lancedb:{tmp_path / 'lance'}"
    _, everything = sync_to(uri, out, tmp_path / "cache.sqlite", SyncConfig(skip_boilerplate=False))
    tokens = sorted(meta["n_tokens"] for _, meta, _ in expected_contents(out, SyncConfig(), trigram_embedder, flat=False).values())
    median = tokens[len(tokens) // 2]
    assert tokens[0] < median  # the corpus has chunks on both sides of the threshold
    strict = SyncConfig(min_tokens=median, modes=("layout",))
    store, filtered = sync_to(uri, out, tmp_path / "cache.sqlite", strict)
    assert filtered.full and filtered.removed > 0 and filtered.embedded == 0
    held = store_contents(store)
    assert held == expected_contents(out, strict, trigram_embedder, flat=False)
    assert all(meta["n_tokens"] >= median and not meta["is_boilerplate"] for _, meta, _ in held.values())
    store, none = sync_to(uri, out, tmp_path / "cache.sqlite", SyncConfig(modes=("structure",)))
    assert store_contents(store) == {} and none.removed == len(held)


def test_cli_sync_prints_a_summary_and_exits_2_on_bad_usage(tmp_path):
    corpus = corpus_of(tmp_path)
    out = tmp_path / "ds"
    build(corpus, out)
    target = f"lancedb:{tmp_path / 'lance'}#chunks"
    result = runner.invoke(app, ["sync", str(out), "--to", target, "--embedder", EMBEDDER, "--format", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["added"] > 0 and summary["embedded"] == summary["added"] and summary["version"] >= 1
    text = runner.invoke(app, ["sync", str(out), "--to", target, "--embedder", EMBEDDER])
    assert text.exit_code == 0 and "0 added, 0 updated, 0 removed; 0 embedded" in text.stdout
    for args in (
        ["sync", str(tmp_path / "nothing"), "--to", target, "--embedder", EMBEDDER],
        ["sync", str(out), "--to", "redis://localhost/x", "--embedder", EMBEDDER],
        ["sync", str(out), "--to", target, "--embedder", "no_such_module:embed"],
        ["sync", str(out), "--to", target, "--embedder", "sentence-transformers:/no/such/model"],
    ):
        bad = runner.invoke(app, args)
        assert bad.exit_code == 2, (args, bad.output)
        assert bad.output.startswith("ragprep: ") and "Traceback" not in bad.output


def _sync_process(dataset: Path, uri: str, cache: Path, calls: Path | None = None) -> subprocess.Popen:
    """`ragprep sync` in a child process; `calls` (a file) grows a byte per embedder call."""
    env = {**os.environ, "SYNC_TEST_DELAY": "0.02", "PYTHONPATH": str(Path(__file__).parent)}
    if calls is not None:
        env["SYNC_TEST_CALLS"] = str(calls)
    config = dataset.parent / "sync.toml"
    config.write_text("[sync]\nbatch_size = 2\nwrite_batch = 8\n")
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "ragprep"), "sync", str(dataset), "--to", uri, "--embedder", EMBEDDER,
         "--cache", str(cache), "--config", str(config), "--no-progress"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["lancedb", "chroma"])
def test_kill_9_at_random_instants_then_sync_again_converges_to_the_uninterrupted_store(tmp_path, kind, request):
    corpus = corpus_of(tmp_path)
    out = tmp_path / "ds"
    build(corpus, out)
    if kind == "chroma":  # one `chroma run` server, a collection per store
        server = request.getfixturevalue("chroma_server")
        uri_of = lambda name: f"{server}/{name}"  # noqa: E731
    else:
        uri_of = lambda name: f"lancedb:{tmp_path / name}"  # noqa: E731
    reference = uri_of("reference")
    assert _sync_process(out, reference, tmp_path / "ref-cache.sqlite").wait() == 0
    edit(corpus)
    stores = {seed: uri_of(f"store-{seed}") for seed in range(4)}
    for seed, uri in stores.items():
        # Half the seeds are killed in their first (full) sync, half in the sync after the edit.
        if seed % 2:
            assert _sync_process(out, uri, tmp_path / f"cache-{seed}.sqlite").wait() == 0
    build(corpus, out)
    # How many embedder batches each kind of sync makes, uninterrupted: the one after the edit, and a full one.
    batches = {1: tmp_path / "calls-after-edit", 0: tmp_path / "calls-full"}
    assert _sync_process(out, reference, tmp_path / "ref-cache.sqlite", batches[1]).wait() == 0
    assert _sync_process(out, uri_of("full"), tmp_path / "full-cache.sqlite", batches[0]).wait() == 0
    count = {kind: path.stat().st_size for kind, path in batches.items()}
    assert count[1] >= 2 and count[0] > count[1]
    want = store_contents(open_store(reference))
    assert want and store_rows(open_store(reference)) == len(want)
    interrupted = 0
    for seed, uri in stores.items():
        rng = random.Random(seed)
        calls = tmp_path / f"calls-{seed}"
        process = _sync_process(out, uri, tmp_path / f"cache-{seed}.sqlite", calls)
        # Killed after a random number of batches (at least one, not all), at a random instant of the next.
        after = rng.randint(1, count[seed % 2] - 1)
        while process.poll() is None and (not calls.exists() or calls.stat().st_size < after):
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.03))
        process.send_signal(signal.SIGKILL)
        process.wait()
        interrupted += store_contents(open_store(uri)) != want
        assert _sync_process(out, uri, tmp_path / f"cache-{seed}.sqlite").wait() == 0
        # Nothing lost, nothing left over, no id held twice.
        store = open_store(uri)
        assert store_contents(store) == want, f"seed {seed}"
        assert store_rows(store) == len(want), f"seed {seed}"
    # The kills landed in the middle of the work, not before or after it.
    assert interrupted >= len(stores) // 2, interrupted
