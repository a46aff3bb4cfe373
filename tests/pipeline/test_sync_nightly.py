"""The nightly scenario on real PDFs with the real default model: build, sync to
LanceDB and to a Chroma server, then a page dropped, a document deleted, one
added; rerun and sync again. Each store must equal the dataset's kept chunks."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pikepdf
import pytest

from ragprep.pipeline.config import PipelineConfig, Settings, SyncConfig
from ragprep.pipeline.export import chunk_table, flat_metadata
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run
from ragprep.pipeline.schema import CHUNKS
from ragprep.pipeline.sync import DEFAULT_EMBEDDER, EmbeddingCache, kept, load_embedder, open_store, sync
from ragprep.pipeline.sync.embed import text_hash

pytestmark = pytest.mark.slow

FIRST = ("multicolumn/revtex-physics-4p.pdf", "misc/word-processor-history-5p.pdf", "multicolumn/acta-acustica-itext-3p-cropbox.pdf")
ADDED = "tagged/pdfmaker11-word-fr-agenda-watermark-5p.pdf"
EDITED, DELETED = "word-processor-history-5p.pdf", "acta-acustica-itext-3p-cropbox.pdf"


@pytest.fixture(scope="module")
def model():
    import os

    os.environ["HF_HUB_OFFLINE"] = "1"  # the bundled weights load with no network
    return load_embedder(DEFAULT_EMBEDDER)


def _contents(store) -> dict[str, tuple[str, dict, np.ndarray]]:
    from ragprep.pipeline.sync.chroma import ChromaStore

    if isinstance(store, ChromaStore):
        got = store.collection.get(include=["documents", "metadatas", "embeddings"])
        return {i: (t, dict(m), np.asarray(v)) for i, t, m, v in zip(got["ids"], got["documents"], got["metadatas"], got["embeddings"], strict=True)}
    out = {}
    for row in store.rows().to_pylist():
        chunk_id, text, vector = row.pop("id"), row.pop("text"), row.pop("vector")
        out[chunk_id] = (text, row, np.asarray(vector))
    return out


def _assert_store_equals_dataset(store, dataset: Path, model, *, flat: bool) -> None:
    rows = kept(chunk_table(dataset), SyncConfig()).to_pylist()
    held = _contents(store)
    assert set(held) == {r["chunk_id"] for r in rows}
    vectors = model.embed([r["text"] for r in rows])
    for row, vector in zip(rows, vectors, strict=True):
        chunk_id, text = row.pop("chunk_id"), row.pop("text")
        stored_text, meta, stored_vector = held[chunk_id]
        want = flat_metadata(row, CHUNKS) if flat else row
        want["text_hash"] = text_hash(text)
        assert stored_text == text
        assert meta.keys() == want.keys()
        for key, value in want.items():
            assert meta[key] == pytest.approx(value) if isinstance(value, float) else meta[key] == value, key
        np.testing.assert_allclose(stored_vector, vector, atol=2e-5)


def test_nightly_build_sync_edit_rerun_sync_on_real_pdfs(tmp_path, corpus, model, chroma_server):
    inputs = tmp_path / "corpus"
    inputs.mkdir()
    for name in FIRST:
        shutil.copy(corpus / name, inputs / Path(name).name)
    out = tmp_path / "ds"
    settings = Settings(pipeline=PipelineConfig(workers=2))
    run([str(inputs)], out, settings, QuietReporter())
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    stores = {"lancedb": open_store(f"lancedb:{tmp_path / 'lance'}#chunks"), "chroma": open_store(f"{chroma_server}/chunks")}
    first = {kind: sync(out, store, model, SyncConfig(), cache) for kind, store in stores.items()}
    assert first["lancedb"].embedded == len({r["text"] for r in kept(chunk_table(out), SyncConfig()).to_pylist()})
    assert first["chroma"].embedded == 0  # the same texts: all from the cache
    for kind, store in stores.items():
        _assert_store_equals_dataset(store, out, model, flat=kind == "chroma")
    before = {r["chunk_id"]: r["text"] for r in kept(chunk_table(out), SyncConfig()).to_pylist()}

    with pikepdf.open(inputs / EDITED, allow_overwriting_input=True) as pdf:
        del pdf.pages[2]  # a page out of the middle
        pdf.save(inputs / EDITED)
    (inputs / DELETED).unlink()
    shutil.copy(corpus / ADDED, inputs / Path(ADDED).name)
    run([str(inputs)], out, settings, QuietReporter())
    after = {r["chunk_id"]: r["text"] for r in kept(chunk_table(out), SyncConfig()).to_pylist()}
    new_texts = set(after.values()) - set(before.values())

    nightly = {kind: sync(out, store, model, SyncConfig(), cache) for kind, store in stores.items()}
    assert nightly["lancedb"].embedded == len(new_texts) > 0
    assert nightly["chroma"].embedded == 0
    for kind, store in stores.items():
        summary = nightly[kind]
        assert not summary.full and summary.removed == len(set(before) - set(after)) > 0
        _assert_store_equals_dataset(store, out, model, flat=kind == "chroma")
    # A chunk whose text survived the edit kept its id.
    edited = str((inputs / EDITED).resolve())
    kept_ids = [i for i, t in after.items() if t in set(before.values())]
    assert kept_ids and all(i in before for i in kept_ids)
    assert any(r["source"] == edited for r in chunk_table(out).to_pylist() if r["chunk_id"] in before)
    cache.close()


def test_sync_counts_chunks_over_the_model_window_and_model_sized_chunks_have_none(tmp_path, corpus, model):
    from transformers import AutoTokenizer

    from ragprep.chunk import ChunkConfig, model_folder

    reference = AutoTokenizer.from_pretrained(model_folder("all-MiniLM-L6-v2"))
    inputs = tmp_path / "corpus"
    inputs.mkdir()
    for name in FIRST[:2]:
        shutil.copy(corpus / name, inputs / Path(name).name)
    sized = ChunkConfig(tokenizer="sentence-transformers:all-MiniLM-L6-v2", max_tokens=256, overlap_tokens=32)
    for label, chunk in (("default", ChunkConfig()), ("sized", sized)):
        out = tmp_path / label
        run([str(inputs)], out, Settings(chunk=chunk, pipeline=PipelineConfig(workers=2)), QuietReporter())
        cache = EmbeddingCache(tmp_path / f"{label}.sqlite")
        summary = sync(out, open_store(f"lancedb:{tmp_path / label}-store"), model, SyncConfig(), cache)
        cache.close()
        texts = {r["text"] for r in kept(chunk_table(out), SyncConfig()).to_pylist()}
        over = sum(len(reference(t)["input_ids"]) > 256 for t in texts)
        assert summary.embedded == len(texts) and summary.truncated == over
        if label == "default":
            assert over > len(texts) // 2  # 512 cl100k tokens overflow most windows
        else:
            assert over == 0
