"""Stage 2: page text + blocks -> token-sized chunks with provenance.

Entry points::

    from ragprep.chunk import ChunkConfig, chunk_document, chunk_file, document_id

    chunks = chunk_file("paper.pdf", mode="auto")          # extract + chunk
    chunks = chunk_document(result, doc_id=document_id(data), source="paper.pdf",
                            config=ChunkConfig.from_toml("configs/default.toml"))
    # `result` (extract_document, Document.read) carries its reading mode and
    # extract settings: both enter the chunk ids with `config`.

The document text is the page texts joined with ``"\\f"``; every chunk's
``char_start``/``char_end`` are offsets in it and
``chunk.text == chunk.header_prefix + normaliser(config)(document_text[char_start:char_end])``
(see ``ragprep.chunk.normalise``): offsets are exact in the document text
whatever the normalisation expands or removes. Packing rules: ``ragprep.chunk.packing``.
Tables (``DocumentResult.tables``) make chunks of their own, whole rows rendered
in ``table_format`` with the header repeated: for those (``table_id`` set) the
text is ``header_prefix`` + the rows ``table_row_start..table_row_end``
rendered from their cells' normalised texts (``ragprep.chunk.tables``).
"""

from ragprep.chunk.blocks import PAGE_SEPARATOR, document_text, in_table
from ragprep.chunk.chunker import chunk_document, chunk_file, chunk_id, chunk_ids, document_id, read_and_chunk
from ragprep.chunk.config import ChunkConfig, config_hash
from ragprep.chunk.model import Chunk, PageBox
from ragprep.chunk.model_tokens import model_folder
from ragprep.chunk.normalise import boilerplate_key, count_undecodable, normalise, normaliser
from ragprep.chunk.tokens import Tokenizer, load_encoding

__all__ = [
    "PAGE_SEPARATOR",
    "Chunk",
    "ChunkConfig",
    "PageBox",
    "Tokenizer",
    "boilerplate_key",
    "chunk_document",
    "chunk_file",
    "chunk_id",
    "chunk_ids",
    "config_hash",
    "count_undecodable",
    "document_id",
    "document_text",
    "in_table",
    "load_encoding",
    "model_folder",
    "normalise",
    "normaliser",
    "read_and_chunk",
]
