"""A document result carries its reading mode and extract settings, so the chunk
ids made from it are those ``ragprep run`` makes under the same settings, with
nothing to pass twice (and nothing to forget)."""

from __future__ import annotations

from pdfbuilder import PdfBuilder

from ragprep.chunk import ChunkConfig, chunk_document, document_id
from ragprep.extract import ExtractConfig, extract_document
from ragprep.pipeline.config import Settings


def _pdf() -> bytes:
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{font} 12 Tf 72 700 Td (Settings travel with the result.) Tj ET")
    return b.to_bytes()


def test_chunk_ids_hash_the_mode_and_settings_the_result_was_read_with():
    data = _pdf()
    extract = ExtractConfig(word_space_ratio=0.2)
    chunk = ChunkConfig(max_tokens=64, overlap_tokens=0)
    hashes = {}
    for mode in ("stream", "layout"):
        result = extract_document(data, mode=mode, config=extract)
        assert (result.mode, result.extract_config) == (mode, extract)
        (c,) = chunk_document(result, doc_id=document_id(data), source="s.pdf", config=chunk)
        assert c.config_hash == Settings(extract=extract, chunk=chunk, mode=mode).key_hash
        hashes[mode] = c.config_hash
    # Same text, other mode: other ids.
    assert hashes["stream"] != hashes["layout"]
