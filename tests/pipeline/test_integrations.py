"""The LangChain loader and the LlamaIndex reader, against the real libraries."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.dataset as pads
from llama_index.core.schema import NodeRelationship, TextNode
from langchain_core.documents import Document
from pipelinedocs import write_corpus

from ragprep.chunk import ChunkConfig
from ragprep.integrations.langchain import RagprepLoader
from ragprep.integrations.llamaindex import RagprepReader
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run

SETTINGS = Settings(chunk=ChunkConfig(max_tokens=48, overlap_tokens=0), pipeline=PipelineConfig(workers=1))


def dataset(tmp_path: Path) -> tuple[Path, list[dict]]:
    write_corpus(tmp_path / "in", 3)
    out = tmp_path / "ds"
    run([str(tmp_path / "in")], out, SETTINGS, QuietReporter())
    rows = pads.dataset(out / "chunks", format="parquet").to_table().sort_by([("source", "ascending"), ("index", "ascending")])
    return out, rows.to_pylist()


def test_langchain_loader_yields_documents_with_the_chunk_id_in_document_order(tmp_path):
    out, rows = dataset(tmp_path)
    docs = RagprepLoader(out).load()
    assert all(isinstance(d, Document) for d in docs)
    assert [d.id for d in docs] == [r["chunk_id"] for r in rows]
    assert [d.page_content for d in docs] == [r["text"] for r in rows]
    first = rows[0]
    assert docs[0].metadata == {k: v for k, v in first.items() if k not in ("chunk_id", "text")}
    flat = RagprepLoader(out, flat_metadata=True).load()
    assert json.loads(flat[0].metadata["bboxes"]) == first["bboxes"]
    assert all(isinstance(v, (str, int, float, bool)) for d in flat for v in d.metadata.values())


def test_llamaindex_reader_gives_text_nodes_linked_in_document_order(tmp_path):
    out, rows = dataset(tmp_path)
    nodes = RagprepReader().load_data(out)
    assert all(isinstance(n, TextNode) for n in nodes)
    assert [n.id_ for n in nodes] == [r["chunk_id"] for r in rows]
    assert [n.text for n in nodes] == [r["text"] for r in rows]
    by_id = {n.id_: n for n in nodes}
    for k, (node, row) in enumerate(zip(nodes, rows, strict=True)):
        assert node.metadata["source"] == row["source"] and node.metadata["bboxes"] == row["bboxes"]
        # What is embedded is the chunk text alone; the LLM sees where it came from.
        assert node.get_content(metadata_mode="embed") == row["text"]
        assert "source" in node.get_content(metadata_mode="llm") and "bboxes" not in node.get_content(metadata_mode="llm")
        assert node.relationships[NodeRelationship.SOURCE].node_id == row["doc_id"]
        same_before = k > 0 and rows[k - 1]["source"] == row["source"]
        same_after = k + 1 < len(rows) and rows[k + 1]["source"] == row["source"]
        prev = node.relationships.get(NodeRelationship.PREVIOUS)
        nxt = node.relationships.get(NodeRelationship.NEXT)
        assert (prev.node_id if prev else None) == (rows[k - 1]["chunk_id"] if same_before else None)
        assert (nxt.node_id if nxt else None) == (rows[k + 1]["chunk_id"] if same_after else None)
        if nxt:
            assert by_id[nxt.node_id].relationships[NodeRelationship.PREVIOUS].node_id == node.id_
