"""A LlamaIndex reader over a ragprep dataset: the chunks as ``TextNode``s.

    from ragprep.integrations.llamaindex import RagprepReader

    nodes = RagprepReader().load_data("dataset")

Each node has ``id_`` = chunk id, ``text`` = chunk text, the provenance columns
as ``metadata`` (all left out of what is embedded: ragprep's chunks are embedded
by their text; ``source``, pages and heading path stay visible to the LLM for
citations), ``SOURCE`` = the document (its ``doc_id``) and ``PREVIOUS`` / ``NEXT``
links to the neighbouring chunks of the same document, in document order.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

from ragprep.pipeline import chunk_records

# Metadata an LLM prompt keeps for citing; every other column is provenance for code only.
LLM_VISIBLE = ("source", "page_start", "page_end", "heading_path")


class RagprepReader(BaseReader):
    def __init__(self, *, flat_metadata: bool = False) -> None:
        self.flat_metadata = flat_metadata

    def lazy_load_data(self, dataset: str | Path, **_: Any) -> Iterator[TextNode]:  # type: ignore[override]  # base: (*args, **kwargs)
        records = chunk_records(dataset, flat=self.flat_metadata)
        previous: str | None = None
        current = next(records, None)
        while current is not None:
            following = next(records, None)
            # Neighbours are linked within one document only.
            same = following is not None and following["metadata"]["source"] == current["metadata"]["source"]
            yield _node(current, previous, following["id"] if following is not None and same else None)
            previous = current["id"] if same else None
            current = following

    def load_data(self, dataset: str | Path, **kwargs: Any) -> list[TextNode]:  # type: ignore[override]  # base: (*args, **kwargs)
        return list(self.lazy_load_data(dataset, **kwargs))


def _node(record: dict[str, Any], previous: str | None, following: str | None) -> TextNode:
    metadata = record["metadata"]
    keys = list(metadata)
    relationships = {NodeRelationship.SOURCE: RelatedNodeInfo(node_id=metadata["doc_id"])}
    if previous is not None:
        relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id=previous)
    if following is not None:
        relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id=following)
    return TextNode(
        id_=record["id"],
        text=record["page_content"],
        metadata=metadata,
        excluded_embed_metadata_keys=keys,
        excluded_llm_metadata_keys=[k for k in keys if k not in LLM_VISIBLE],
        relationships=relationships,
    )
