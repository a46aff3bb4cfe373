"""Each dataset table's dataclass and its Arrow schema agree, and the codecs
beside them carry a row through Arrow and back unchanged."""

from __future__ import annotations

import dataclasses

import pyarrow as pa

from ragprep.chunk.model import Chunk, PageBox
from ragprep.extract import PageResult
from ragprep.extract.blocks import TextLine
from ragprep.pipeline.config import Settings
from ragprep.pipeline.model import DocumentRow, DocumentTask
from ragprep.pipeline.records import chunk_batch, document_batch, document_rows
from ragprep.pipeline.schema import BLOCK, CHUNKS, DOCUMENTS, LINE, PAGES
from ragprep.pipeline.worker import RunContext


def names(cls) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def struct_names(struct: pa.StructType) -> list[str]:
    return [struct.field(i).name for i in range(struct.num_fields)]


def test_row_dataclasses_and_their_schemas_have_the_same_columns_in_the_same_order():
    assert names(DocumentRow) == DOCUMENTS.names
    assert names(Chunk) == CHUNKS.names
    bboxes = CHUNKS.field("bboxes").type.value_type
    assert names(PageBox) == struct_names(bboxes)


def test_a_page_row_is_the_page_result_less_its_tables_which_have_their_own_table():
    # Every PageResult field is a pages column, but `tables` (the tables table's cells).
    assert set(PAGES.names) - {"doc_id", "source"} == set(names(PageResult)) - {"tables"}
    # Blocks and lines keep every field but text, mcids and the language (in chunks),
    # with bbox as x0..y1.
    boxed = {"x0", "y0", "x1", "y1"}
    assert set(struct_names(LINE)) == (set(names(TextLine)) - {"bbox"}) | boxed
    block_fields = {"struct_type", "struct_path", "heading_level", "char_start", "char_end"} | boxed
    assert set(struct_names(BLOCK)) == block_fields


def test_a_document_row_goes_through_arrow_and_back_unchanged():
    context = RunContext("run-1", "0.1.0", Settings())
    ok = context.row(DocumentTask("/a.pdf", "ab" * 32), size=10, pages=2, chunks=3, seconds=0.5)
    failed = context.error(DocumentTask("/b.pdf", ""), "OSError", "cannot read", size=None).row
    assert failed.doc_id is None and failed.status == "error"
    rows = [ok, failed]
    table = pa.Table.from_batches([document_batch(rows)])
    assert table.schema.equals(DOCUMENTS)
    assert document_rows(table) == rows


def test_an_empty_chunk_batch_has_the_chunks_schema():
    assert chunk_batch([]).schema.equals(CHUNKS)
