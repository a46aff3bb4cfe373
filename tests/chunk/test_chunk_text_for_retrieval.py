"""Chunk text an embedding model can use: ligatures and compatibility spaces
expanded (configurable), offsets exact in the document text, U+FFFD counted."""

from __future__ import annotations

import pytest
from chunkdocs import B, doc
from hypothesis import given, settings
from hypothesis import strategies as st
from pdfbuilder import PdfBuilder, hexstr

from ragprep.chunk import ChunkConfig, chunk_document, chunk_file, document_text, normalise, normaliser
from ragprep.extract import ConfigError
from ragprep.pipeline.records import chunk_batch

LIGATURES = "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"


@pytest.mark.parametrize(
    "raw, form, expected",
    [
        ("\ufb01xed \ufb02ow e\ufb00ort o\ufb03ce ba\ufb04e", "ligatures", "fixed flow effort office baffle"),
        ("10\u00a0km\u2009/\u202fh\u3000end", "ligatures", "10 km / h end"),
        ("x\u00b2 \uff21", "ligatures", "x\u00b2 \uff21"),  # superscripts, full width: only under NFKC
        ("x\u00b2 \uff21 \ufb01", "nfkc", "x2 A fi"),
        ("\ufb01xed\u00a0now", "none", "\ufb01xed\u00a0now"),
        ("e\ufb00i-\ncient", "ligatures", "effi" + "cient"),  # expanded before the hyphen is joined
    ],
)
def test_compatibility_characters_per_unicode_form(raw, form, expected):
    assert normalise(raw, unicode_form=form) == expected


@settings(deadline=None)  # a loaded CI machine must not fail a property on time
@given(st.text(alphabet="ab \n" + LIGATURES + "\u00a0\u2009\ufffd", max_size=30))
def test_no_ligature_or_compatibility_space_survives_the_default(text):
    out = normalise(text)
    assert not set(out) & set(LIGATURES + "\u00a0\u2009")
    assert out.count("\ufffd") == text.count("\ufffd")


def test_chunk_offsets_stay_exact_while_the_text_expands():
    result = doc([B("The \ufb01rst \ufb02oor of the o\ufb03ce."), B("Next\u00a0paragraph \ufb01ne.")])
    text, _ = document_text(result.pages)
    config = ChunkConfig(max_tokens=8, overlap_tokens=2)
    chunks = chunk_document(result, doc_id="d", source="s", config=config)
    assert "".join(c.text for c in chunks).count("\ufb01") == 0
    assert any("first floor" in c.text for c in chunks)
    for c in chunks:
        assert c.text == c.header_prefix + normaliser(config)(text[c.char_start : c.char_end])
    # One chunk each way: the same span, text as extracted, and (the setting
    # changes chunk text) another id.
    (expanded,) = chunk_document(result, doc_id="d", source="s")
    (kept,) = chunk_document(result, doc_id="d", source="s", config=ChunkConfig(unicode_form="none"))
    assert "\ufb01rst" in kept.text and "first" in expanded.text
    assert (kept.char_start, kept.char_end) == (expanded.char_start, expanded.char_end) == (0, len(text))
    assert kept.chunk_id != expanded.chunk_id


def test_unicode_form_is_validated():
    with pytest.raises(ConfigError, match="chunk.unicode_form"):
        ChunkConfig(unicode_form="nfc")


def test_undecodable_counts_replacement_characters_from_a_real_pdf(tmp_path):
    b = PdfBuilder()
    mapped, encode = b.add_cid_font("The \ufb01rst line", widths=500)
    unmapped, encode_unmapped = b.add_cid_font("xyz", widths=500, to_unicode=False, base_font="NoMap")
    b.add_page(
        f"BT /{mapped} 12 Tf 72 700 Td {hexstr(encode('The ' + chr(0xFB01) + 'rst line'))} Tj ET "
        f"BT /{unmapped} 12 Tf 72 600 Td {hexstr(encode_unmapped('xyz'))} Tj ET"
    )
    path = tmp_path / "mixed.pdf"
    b.save(path)
    (chunk,) = chunk_file(path, mode="stream")
    assert chunk.text.startswith("The first line")
    assert chunk.undecodable == chunk.text.count("\ufffd") == 3
    assert chunk_batch([chunk]).column("undecodable").to_pylist() == [3]
