"""A LangChain document loader over a ragprep dataset.

    from ragprep.integrations.langchain import RagprepLoader

    docs = RagprepLoader("dataset").load()    # Document(id=chunk_id, page_content=text, metadata=provenance)

``flat_metadata=True`` JSON-encodes lists and structs, for vector stores that
take scalar metadata only (Chroma).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document

from ragprep.pipeline import chunk_records


class RagprepLoader(BaseLoader):
    def __init__(self, dataset: str | Path, *, flat_metadata: bool = False) -> None:
        self.dataset = dataset
        self.flat_metadata = flat_metadata

    def lazy_load(self) -> Iterator[Document]:
        for record in chunk_records(self.dataset, flat=self.flat_metadata):
            yield Document(id=record["id"], page_content=record["page_content"], metadata=record["metadata"])
