"""Counts of texts joined at a line break from their parts' counts
(chunk/joins.py, normalise.joined_separator): exact wherever they are claimed,
and the packer's and the table renderer's chunks the same as with every span
encoded whole."""

from __future__ import annotations

import hashlib
import unicodedata

import pytest
from chunkdocs import B, doc, random_documents
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragprep.chunk import ChunkConfig, Tokenizer, chunk_document, normalise
from ragprep.chunk.joins import Joins, last_piece
from ragprep.chunk.normalise import joined_separator
from ragprep.chunk.tables import _ROW_SEPARATOR, CellSpan, DocTable, TableRenderer, TableRow
from ragprep.extract import TABLE_FORMATS, render_rows

TOK = Tokenizer.load("cl100k_base")
DOC_ID = hashlib.sha256(b"joins").hexdigest()

# Letters of several scripts, digits, ASCII and other punctuation, symbols,
# marks, blanks of every kind the normalisation or the pattern treats apart,
# and pieces that join across a line (hyphens, contractions, digit runs).
PIECES = [
    *"abcXYZ019 ", *".,;:!?()[]{}|-'\"/\\*#@%&+=<>~`^_$",
    "  ", "\t", "\n", "\n\n", "\f", "\r", "\v", "\x1c", "\x85", "\u2028", "\u3000", "\xa0", "\u200b",
    "中", "文", "。", "、", "（", "）", "한", "क", "ि", "्", "\u0301", "é", "ß", "²", "⑴", "½", "’", "“", "«", "»",
    "\u00ad", "ﬁ", "😀", "\ufffd", "-\n", "'s", "'ll", " .", "...", "1234567", "word", " word", "|", " |",
]
texts = st.lists(st.sampled_from(PIECES), min_size=0, max_size=14).map("".join)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(left=texts, sep=st.sampled_from(["\n", "\n\n"]), right=texts)
def test_a_claimed_join_counts_what_encoding_the_whole_does(left, sep, right):
    joins = TOK.joins
    got = joins.joined(left, TOK.count(left), sep, right, TOK.count(right))
    if got is not None:
        assert got == TOK.count(left + sep + right)
    broken = left + sep
    after = joins.after_break(broken, TOK.count(broken), right, TOK.count(right))
    if after is not None:
        assert after == TOK.count(broken + right)


def _claimed_characters(categories: str) -> list[str]:
    return [
        chr(cp) for cp in range(0x20, 0x30000)
        if not 0xD800 <= cp < 0xE000 and unicodedata.category(chr(cp))[0] in categories
    ]


@pytest.mark.parametrize("categories", ["LN", "PSM"])
def test_every_character_the_rule_ends_on_joins_as_encoding_does(categories):
    """The rule reads \\p{L}, \\p{N} and punctuation runs off Python's Unicode
    tables; tiktoken's regex has its own. Each character claimed, at the end of
    a text, after a letter and after a space."""
    joins = TOK.joins
    for char in _claimed_characters(categories)[::3 if categories == "LN" else 1]:
        for left in (f"ab{char}", f"ab {char}"):
            got = joins.joined(left, TOK.count(left), "\n", "Next", 1)
            assert got is not None, repr(char)
            assert got == TOK.count(left + "\nNext"), repr(char)


def test_the_rule_claims_the_common_joins_and_nothing_it_cannot_see():
    joins = TOK.joins
    assert last_piece("a sentence.") == "." and last_piece("a list ...") == " ..." and last_piece("Title") == ""
    assert last_piece("中文。") == "。" and last_piece("ends in a blank ") is None and last_piece("") is None
    assert last_piece("x\x1c") is None  # a control character: not claimed
    assert joins.joined("a sentence.", TOK.count("a sentence."), "\n", " starts blank", 3) is None
    # Another pattern (another encoding) claims nothing.
    other = Joins(TOK.count, r"\s+|\S+")
    assert other.joined("Title", 1, "\n", "Body", 1) is None and other.after_break("x\n", 2, "y", 1) is None


raw_texts = st.lists(st.sampled_from([p for p in PIECES if p.strip()] + ["infor-", "\u00ad", "-", "ﬁ"]), min_size=1, max_size=10).map("".join)
gaps = st.lists(st.sampled_from([" ", "\t", "\n", "\f", "  ", "\u00ad", "x"]), min_size=0, max_size=4).map("".join)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(
    left=raw_texts, gap=gaps, right=raw_texts,
    edges=st.tuples(st.sampled_from(["", " ", "\n", " \t"]), st.sampled_from(["", " ", "\n", "\t "])),
    form=st.sampled_from(["ligatures", "nfkc", "none"]), dehyphenate=st.booleans(),
)  # fmt: skip
def test_a_claimed_separator_is_what_normalising_the_whole_puts_there(left, gap, right, edges, form, dehyphenate):
    """Raw spans with blanks at their own edges (the gap is what lies between them)."""
    left_raw, right_raw = left + edges[0], edges[1] + right
    text = left_raw + gap + right_raw
    norm_left = normalise(left_raw, dehyphenate=dehyphenate, unicode_form=form)
    norm_right = normalise(right_raw, dehyphenate=dehyphenate, unicode_form=form)
    sep = joined_separator(text, len(left_raw), len(left_raw) + len(gap), norm_left, norm_right)
    if sep is not None:
        assert normalise(text, dehyphenate=dehyphenate, unicode_form=form) == norm_left + sep + norm_right


def test_separators_are_claimed_between_blocks_and_refused_where_normalising_joins():
    def sep(left: str, gap: str, right: str) -> str | None:
        text = left + gap + right
        return joined_separator(text, len(left), len(left) + len(gap), normalise(left), normalise(right))

    assert sep("First.", "\n", "Second") == "\n" and sep("Title ", "\f\n", " Body") == "\n\n"
    assert sep("infor-", "\n", "mation") is None  # dehyphenation joins the two
    assert sep("one", " ", "line") is None  # no line break: a space, which the next word's piece takes
    assert sep("co\u00ad", "\n", "op") is None and sep("ﬁ", "\n", "x") is None


def _without_joins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every span encoded whole: the packer and the renderer as they were before the joins."""
    monkeypatch.setattr(Tokenizer, "joins", property(lambda self: Joins(self.count, "")))


WORDS = ["alpha", "Beta.", "gamma,", "12 345", "infor-\nmation", "co\u00adop", "中文。", "क्षि", "(x)", "»Zitat«.", "…", "ﬁx", "a  b", "end\t", "’s", "|"]


def documents():
    return random_documents(WORDS, pages=3, blocks=10, ends=["", " ", "\n", " \n"])


def _chunks(result, cfg):
    return [(c.char_start, c.core_char_start, c.char_end, c.header_prefix, c.text, c.n_tokens) for c in chunk_document(result, doc_id=DOC_ID, source="j", config=cfg, tokenizer=TOK)]


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(result=documents(), max_tokens=st.integers(16, 200), overlap_share=st.floats(0, 0.45), min_tokens=st.sampled_from([0, 20]))
def test_packing_decides_as_with_every_span_encoded(monkeypatch, result, max_tokens, overlap_share, min_tokens):
    cfg = ChunkConfig(max_tokens=max_tokens, overlap_tokens=int(max_tokens * overlap_share), min_tokens=min_tokens)
    joined = _chunks(result, cfg)
    with monkeypatch.context() as m:
        _without_joins(m)
        assert _chunks(result, cfg) == joined
    assert all(tokens == TOK.count(text) for *_, text, tokens in joined)


cells = st.lists(st.sampled_from(WORDS + ["", "| pipe", "\tx"]), min_size=0, max_size=4).map(" ".join)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.lists(cells, min_size=3, max_size=3), min_size=1, max_size=25), header_count=st.integers(0, 2),
    table_format=st.sampled_from(TABLE_FORMATS), max_tokens=st.integers(8, 120), first_row=st.integers(0, 1),
)  # fmt: skip
def test_table_chunks_are_those_of_every_text_encoded(monkeypatch, rows, header_count, table_format, max_tokens, first_row):
    spans = tuple(
        TableRow(first_row + r, tuple(CellSpan(c, text, 0, 1, 1, None, ()) for c, text in enumerate(row) if text))
        for r, row in enumerate(rows)
    )
    doc_table = DocTable("t", 3, header_count, spans, (0,))
    cfg = ChunkConfig(max_tokens=max_tokens, overlap_tokens=0, table_format=table_format)

    def chunks():
        return [(c.first, c.last, c.prefix, c.text, c.tokens) for c in TableRenderer("x", TOK, cfg).chunks(doc_table)]

    joined = chunks()
    with monkeypatch.context() as m:
        _without_joins(m)
        assert chunks() == joined
    assert all(tokens == TOK.count(text) for *_, text, tokens in joined)


@pytest.mark.parametrize("table_format", TABLE_FORMATS)
def test_rows_render_as_the_row_separator_says(table_format):
    rows = [["North Gate", "", "312"], ["a|b", "c\td", ""], ["", "", "x"]]
    for opens_header in (True, False):
        for k in range(1, len(rows)):
            before = render_rows(rows[:k], table_format, opens_header=opens_header)
            line = render_rows(rows[k : k + 1], table_format, opens_header=False)
            assert render_rows(rows[: k + 1], table_format, opens_header=opens_header) == before + _ROW_SEPARATOR[table_format] + line


def _encoded_characters(monkeypatch: pytest.MonkeyPatch, run) -> int:
    encoded = []
    real = Tokenizer.count
    monkeypatch.setattr(Tokenizer, "count", lambda self, text: encoded.append(len(text)) or real(self, text))
    run()
    return sum(encoded)


def test_a_chunk_of_many_blocks_is_counted_from_its_blocks_each_encoded_once(monkeypatch):
    """Without the joins, a chunk's text is encoded whole (its budget check and
    its count) on top of its blocks: more than twice the text."""
    paragraphs = [B(f"Paragraph {i} reads on about item {i}, and ends here.") for i in range(120)]
    result = doc(paragraphs[:60], paragraphs[60:])
    text_length = sum(len(p.text) + 1 for p in paragraphs)
    encoded = _encoded_characters(monkeypatch, lambda: _chunks(result, ChunkConfig(max_tokens=200, overlap_tokens=0)))
    assert encoded < 1.2 * text_length


def test_a_table_is_counted_from_its_rows_each_encoded_once(monkeypatch):
    """Without the joins, every row added re-encodes the chunk's text so far."""
    rows = tuple(TableRow(r, (CellSpan(0, f"Gate {r}", 0, 1, 1, None, ()), CellSpan(1, str(300 + r), 0, 1, 1, None, ()))) for r in range(200))
    doc_table = DocTable("t", 2, 1, rows, (0,))
    rendered = render_rows([[f"Gate {r}", str(300 + r)] for r in range(200)], "markdown", opens_header=True)
    encoded = _encoded_characters(monkeypatch, lambda: TableRenderer("x", TOK, ChunkConfig(max_tokens=400)).chunks(doc_table))
    assert encoded < 1.5 * len(rendered)

