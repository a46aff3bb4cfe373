"""Packing rules on hand-built pages (no PDFs)."""

from __future__ import annotations

import hashlib
from itertools import pairwise

from chunkdocs import B, check_slices, doc, h, table

from ragprep.chunk import ChunkConfig, Tokenizer, chunk_document, document_text, normalise

TOK = Tokenizer.load("cl100k_base")
DOC_ID = hashlib.sha256(b"test document").hexdigest()


def run(result, **cfg):
    return chunk_document(result, doc_id=DOC_ID, source="t.pdf", config=ChunkConfig(**cfg), tokenizer=TOK if cfg.get("encoding", "cl100k_base") == "cl100k_base" else None)


def sentence(n: int, word: str = "word") -> str:
    return " ".join(f"{word}{i}" for i in range(n)) + "."


def test_whole_blocks_are_packed_in_order_within_budget():
    blocks = [B(sentence(10, f"p{k}w")) for k in range(12)]
    result = doc(blocks)
    chunks = run(result, max_tokens=80, overlap_tokens=0)
    assert len(chunks) > 1
    check_slices(result, chunks)
    for c in chunks:
        assert c.n_tokens <= 80
        assert c.n_tokens == TOK.count(c.text)
    # No block is cut: every chunk starts and ends on block boundaries.
    starts = {b.char_start for b in result.pages[0].blocks}
    ends = {b.char_end for b in result.pages[0].blocks}
    assert all(c.char_start in starts and c.char_end in ends for c in chunks)
    assert "\n".join(c.text for c in chunks) == normalise(result.pages[0].text)


def test_repeated_paragraphs_keep_their_own_offsets():
    para = "The same paragraph again, word for word, every time it appears here."
    blocks = [B(para, mcids=(k,)) for k in range(9)]
    result = doc(blocks[:4], blocks[4:])
    chunks = run(result, max_tokens=40, overlap_tokens=5)
    check_slices(result, chunks)
    text, bases = document_text(result.pages)
    assert [c.core_char_start for c in chunks] == sorted({c.core_char_start for c in chunks})
    # Each paragraph appears as new text in exactly one chunk, at its own place.
    all_blocks = [(p.page, bases[i] + b.char_start, b.mcids[0]) for i, p in enumerate(result.pages) for b in p.blocks]
    for page_no, start, mcid in all_blocks:
        owners = [c for c in chunks if c.core_char_start <= start < c.char_end]
        assert len(owners) == 1
        assert mcid in dict(owners[0].mcids)[page_no]


def test_overlap_repeats_the_end_of_the_previous_chunk():
    blocks = [B(sentence(12, f"b{k}x")) for k in range(10)]
    result = doc(blocks)
    chunks = run(result, max_tokens=100, overlap_tokens=20)
    text, _ = document_text(result.pages)
    for prev, cur in pairwise(chunks):
        assert prev.core_char_start <= cur.char_start <= cur.core_char_start
        assert cur.core_char_start >= prev.char_end
        overlap = normalise(text[cur.char_start : prev.char_end])
        assert TOK.count(overlap) <= 20
        assert overlap and cur.text.startswith(overlap)


def test_nested_headings_give_exact_paths():
    result = doc(
        [
            h(1, "Intro"), B(sentence(5, "intro")),
            h(2, "Background"), B(sentence(5, "back")),
            h(3, "History"), B(sentence(60, "long")),
        ],
        [
            h(2, "Method"), B(sentence(5, "meth")),
            h(1, "Results"), h(2, "Numbers"), B(sentence(5, "num")),
        ],
    )
    chunks = run(result, max_tokens=60, overlap_tokens=0)
    check_slices(result, chunks)
    paths = [c.heading_path for c in chunks]
    assert paths[0] == ("Intro",)
    assert paths[1] == ("Intro", "Background")
    history = [c for c in chunks if "long0" in c.text or "long59" in c.text or c.text.startswith("History")]
    assert len([c for c in chunks if c.heading_path == ("Intro", "Background", "History")]) >= 2
    assert ("Intro", "Method") in paths
    assert paths[-1] == ("Results", "Numbers")
    # Every heading opens its chunk, and consecutive headings stay together.
    for c in chunks:
        if "Method" in c.text:
            assert c.text.startswith("Method")
    assert chunks[-1].text.startswith("Results\nNumbers")
    assert history


def test_heading_is_never_the_last_block_of_a_chunk_with_other_text():
    result = doc([B(sentence(3)), h(1, "Title"), B(sentence(3, "t")), h(2, "Sub"), B(sentence(3, "s"))])
    chunks = run(result, max_tokens=500, overlap_tokens=10)
    assert [c.text for c in chunks] == ["word0 word1 word2.", "Title\nt0 t1 t2.", "Sub\ns0 s1 s2."]
    # No overlap is put in front of a heading.
    assert all(c.char_start == c.core_char_start for c in chunks[1:])


def test_large_block_is_split_at_sentences_and_words():
    text = " ".join(f"Sentence number {k} has a few plain words in it." for k in range(40))
    result = doc([B("Before."), B(text), B("After.")])
    chunks = run(result, max_tokens=50, overlap_tokens=10)
    check_slices(result, chunks)
    assert all(c.n_tokens <= 50 for c in chunks)
    # Pieces of the big block end at sentence ends.
    inner = [c for c in chunks if "Sentence" in c.text and "After." not in c.text]
    assert all(c.text.endswith(".") for c in inner)


def test_unsplittable_run_is_one_over_budget_chunk():
    run_text = "x" * 800  # no paragraph, sentence or word boundary
    result = doc([B("Short."), B(run_text), B("Tail.")])
    chunks = run(result, max_tokens=30, overlap_tokens=0)
    check_slices(result, chunks)
    over = [c for c in chunks if c.n_tokens > 30]
    assert len(over) == 1 and over[0].text == run_text


def test_dehyphenation_in_chunk_text():
    result = doc([B("The infor-\nmation is here, not in Anglo-\nSaxon co\u00adoperation.")])
    (chunk,) = run(result)
    assert chunk.text == "The information is here, not in Anglo-\nSaxon cooperation."
    (plain,) = run(result, dehyphenate=False)
    assert "infor-\nmation" in plain.text
    check_slices(result, (plain,), dehyphenate=False)


def test_table_split_repeats_its_header_and_keeps_rows_whole():
    rows = [[f"item{r}", f"{r * 3}", f"note {r} about it"] for r in range(30)]
    result = doc([B("A table follows."), *table(["Name", "Qty", "Note"], rows), B("After the table.")])
    chunks = run(result, max_tokens=60, overlap_tokens=0)
    check_slices(result, chunks)
    table_chunks = [c for c in chunks if "TD" in c.struct_types]
    assert len(table_chunks) >= 3
    assert table_chunks[0].header_prefix == ""
    assert "Name\nQty\nNote" in table_chunks[0].text
    for c in table_chunks[1:]:
        assert c.header_prefix == "Name\nQty\nNote\n"
        assert c.text.startswith("Name\nQty\nNote\n")
        assert c.n_tokens <= 60
    # Rows whole: each row's three cells land in one chunk's text.
    for r, row in enumerate(rows):
        assert any("\n".join(row) in c.text for c in table_chunks), r
    off = run(result, max_tokens=60, overlap_tokens=0, repeat_table_header=False)
    assert all(c.header_prefix == "" for c in off)


def test_table_overlap_never_cuts_into_the_header():
    rows = [[f"r{r}a", f"r{r}b"] for r in range(40)]
    result = doc(table(["H1col", "H2col"], rows))
    chunks = run(result, max_tokens=40, overlap_tokens=8)
    check_slices(result, chunks)
    assert all(c.n_tokens <= 40 for c in chunks)
    for c in chunks[1:]:
        assert c.text.startswith("H1col\nH2col\n")
        assert c.text.count("H1col") == 1


def test_ids_are_stable_and_depend_on_settings():
    result = doc([B(sentence(30, f"s{k}w")) for k in range(6)])
    a = run(result, max_tokens=100)
    b = run(result, max_tokens=100)
    assert [c.chunk_id for c in a] == [c.chunk_id for c in b]
    assert len({c.chunk_id for c in a}) == len(a)
    c = run(result, max_tokens=100, dehyphenate=False)  # same spans, other setting
    assert [x.char_start for x in c] == [x.char_start for x in a]
    assert not {x.chunk_id for x in c} & {x.chunk_id for x in a}
    # Ids follow the source and the text, not the bytes: other bytes at the same
    # source keep the ids of unchanged texts; another source shares none.
    new_bytes = chunk_document(result, doc_id="0" * 64, source="t.pdf", config=ChunkConfig(max_tokens=100), tokenizer=TOK)
    assert [x.chunk_id for x in new_bytes] == [x.chunk_id for x in a]
    other_source = chunk_document(result, doc_id=DOC_ID, source="u.pdf", config=ChunkConfig(max_tokens=100), tokenizer=TOK)
    assert not {x.chunk_id for x in other_source} & {x.chunk_id for x in a}


def test_boilerplate_is_flagged_not_dropped():
    pages = [
        [B("ACME Corp Annual Report 2024"), B(sentence(8, f"body{'abcd'[p]}x")), B(f"Page {p + 1}")]
        for p in range(4)
    ]
    result = doc(*pages)
    chunks = run(result, max_tokens=500, overlap_tokens=20)
    check_slices(result, chunks)
    flagged = [c for c in chunks if c.is_boilerplate]
    assert flagged and all(("ACME" in c.text or "Page" in c.text) and "body" not in c.text for c in flagged)
    body = [c for c in chunks if "body" in c.text]
    assert body and not any(c.is_boilerplate for c in body)
    text = "".join(c.text for c in chunks)
    assert all(f"body{q}x0" in text for q in "abcd")
    # One page alone has nothing that recurs.
    assert not any(c.is_boilerplate for c in run(doc(pages[0])))


def test_provenance_fields():
    result = doc(
        [B("First page text.", mcids=(0, 1), bbox=(10.0, 20.0, 30.0, 40.0))],
        [B("Second page text.", mcids=(5,), bbox=(50.0, 60.0, 70.0, 80.0))],
    )
    (chunk,) = run(result)
    assert (chunk.page_start, chunk.page_end) == (1, 2)
    assert chunk.text == "First page text.\nSecond page text."
    assert [(b.page, b.x0, b.y0, b.x1, b.y1) for b in chunk.bboxes] == [(1, 10, 20, 30, 40), (2, 50, 60, 70, 80)]
    assert chunk.mcids == ((1, (0, 1)), (2, (5,)))
    assert chunk.modes == ((1, "structure"), (2, "structure"))
    assert chunk.tokenizer == "cl100k_base" and chunk.doc_id == DOC_ID and chunk.source == "t.pdf"
    assert chunk.to_dict()["bboxes"][0]["page"] == 1


def test_empty_document_has_no_chunks():
    assert run(doc([], [])) == ()


def test_whitespace_blocks_make_no_chunks():
    result = doc([B("   "), B("Real text."), B("\n")])
    chunks = run(result)
    assert [c.text for c in chunks] == ["Real text."]
    assert all(c.text.strip() for c in chunks)


def test_table_cells_and_headings_are_never_boilerplate():
    pages = [[h(2, "Section"), *table(["Status", "Kind"], [["Layoff", "Permanent"]]), B(f"Unique body {q}.")] for q in "abcd"]
    chunks = run(doc(*pages), max_tokens=500, overlap_tokens=0)
    assert not any(c.is_boilerplate for c in chunks)


def test_heading_shares_its_chunk_with_the_first_piece_of_a_large_block():
    long = " ".join(f"Sentence {k} says a little more here." for k in range(60))
    result = doc([h(1, "A heading of some length to place"), B(long)])
    for overlap in (0, 10):
        chunks = run(result, max_tokens=60, overlap_tokens=overlap)
        assert chunks[0].text.startswith("A heading of some length to place\nSentence 0")
        assert all(c.n_tokens <= 60 for c in chunks)
        check_slices(result, chunks)


def test_paragraph_continued_on_the_next_page_stays_together():
    first, rest = "This paragraph runs over the page", "break and ends here, after a few more words."
    # Filler sized so that the first part alone would still fit after it, the whole paragraph not.
    n = max(k for k in range(1, 60) if TOK.count(sentence(k, "f") + "\n" + first) <= 60)
    assert TOK.count(sentence(n, "f") + "\n" + first + "\n" + rest) > 60
    result = doc([B(sentence(n, "f")), B(first)], [B(rest), B("Next one.")])
    chunks = run(result, max_tokens=60, overlap_tokens=0)
    check_slices(result, chunks)
    (owner,) = [c for c in chunks if "runs over" in c.text]
    assert owner.text.startswith(first + "\n" + rest)
    assert (owner.page_start, owner.page_end) == (1, 2)


def test_paragraph_continued_in_the_next_column_stays_together():
    # Layout mode ends a block at a column break: the paragraph's halves are
    # neighbours on one page, the first without a sentence end.
    first, rest = "This paragraph runs to the foot of the column", "and on at the top of the next one."
    n = max(k for k in range(1, 60) if TOK.count(sentence(k, "f") + "\n" + first) <= 60)
    assert TOK.count(sentence(n, "f") + "\n" + first + "\n" + rest) > 60
    result = doc([B(sentence(n, "f")), B(first), B(rest), B("Next one.")])
    chunks = run(result, max_tokens=60, overlap_tokens=0)
    check_slices(result, chunks)
    (owner,) = [c for c in chunks if "runs to the foot" in c.text]
    assert owner.text.startswith(first + "\n" + rest)
    # A block that starts a sentence does not continue the one before.
    result = doc([B(sentence(n, "f")), B(first), B("Capital start of another paragraph.")])
    chunks = run(result, max_tokens=60, overlap_tokens=0)
    assert [c.text for c in chunks if "runs to the foot" in c.text] == [sentence(n, "f") + "\n" + first]


def test_a_heading_never_ends_a_chunk_alone():
    # The paragraph fits a chunk of its own (99 tokens of 100) but not with its heading:
    # it is cut at a sentence so a first piece shares the heading's chunk.
    para = " ".join(f"Sentence {k} tells a little more here." for k in range(11))
    result = doc([B("Intro text before it all."), h(1, "Methods and materials"), B(para), B("Closing remark.")])
    chunks = run(result, max_tokens=100, overlap_tokens=10)
    check_slices(result, chunks)
    assert all(c.n_tokens <= 100 for c in chunks)
    assert [c.text.split("\n")[0] for c in chunks[:2]] == ["Intro text before it all.", "Methods and materials"]
    assert chunks[1].text.startswith("Methods and materials\nSentence 0 tells") and chunks[1].text.endswith("here.")
    assert not any(c.text == "Methods and materials" for c in chunks)
    # The intro stays apart, though small: the heading opens another section.
    assert chunks[0].text == "Intro text before it all."


def test_the_cut_after_a_heading_never_leaves_an_over_budget_rest():
    # The body fits the budget whole (12 tokens: "information" is one), but the
    # line separator cuts it inside "infor-\nmation": its rest "mation eta, ..."
    # counts 13. No cut then: the body goes whole into the next chunk.
    body = "infor-\nmation eta, alpha alpha alpha alpha alpha alpha Zeta."
    result = doc([h(1, "alpha"), B(body)])
    chunks = run(result, max_tokens=12, overlap_tokens=0)
    check_slices(result, chunks)
    assert [c.n_tokens <= 12 for c in chunks] == [True] * len(chunks)
    assert chunks[-1].text == normalise(body)


def test_a_small_chunk_joins_its_neighbour_in_the_section_when_the_budget_allows():
    # A fills its chunk; the caption and C fit together, but not behind the overlap
    # repeated from A: packing alone leaves the caption as a chunk of its own.
    a, caption, c = sentence(48, "a"), "A short caption line.", sentence(40, "c")
    result = doc([B(a), B(caption), B(c)])
    before = run(result, max_tokens=100, overlap_tokens=20, min_tokens=0)
    assert [ch.text[ch.core_char_start - ch.char_start :] for ch in before][1] == caption
    chunks = run(result, max_tokens=100, overlap_tokens=20)
    check_slices(result, chunks)
    assert len(chunks) == 2 and chunks[0].text == a
    # The caption joined the chunk after it, which drops its overlap to make room.
    assert chunks[1].text == f"{caption}\n{c}" and chunks[1].char_start == chunks[1].core_char_start
    assert all(ch.n_tokens <= 100 for ch in chunks)


def test_small_boilerplate_chunks_stay_apart():
    pages = [[B(f"Page {p + 1}"), B(sentence(30, f"body{'abc'[p]}x"))] for p in range(3)]
    chunks = run(doc(*pages), max_tokens=500, overlap_tokens=0)
    flagged = [c for c in chunks if c.is_boilerplate]
    assert len(flagged) == 3 and all(c.text.startswith("Page ") and "body" not in c.text for c in flagged)


def test_min_tokens_is_validated():
    import pytest

    from ragprep.extract.errors import ConfigError

    with pytest.raises(ConfigError, match="chunk.min_tokens"):
        ChunkConfig(min_tokens=-1)


def test_a_heading_that_ends_a_page_takes_the_page_furniture_and_its_body():
    # "Results" is the last block of page 1: the page's footer and page 2's
    # running head (boilerplate: they recur on every page) stand between it and its body.
    pages = [
        [B("ACME Annual Report"), B(sentence(30, "intro")), h(1, "Results"), B("Page 1")],
        [B("ACME Annual Report"), B(sentence(30, "result")), B("Page 2")],
        [B("ACME Annual Report"), B(sentence(30, "closing")), B("Page 3")],
    ]
    result = doc(*pages)
    chunks = run(result, max_tokens=120, overlap_tokens=0)
    check_slices(result, chunks)
    assert not any(c.text == "Results" for c in chunks)
    opened = [c for c in chunks if c.text.startswith("Results")]
    assert len(opened) == 1 and "result0" in opened[0].text and not opened[0].is_boilerplate
    assert opened[0].heading_path == ("Results",)
    # Furniture elsewhere still forms chunks of its own, flagged.
    flagged = [c for c in chunks if c.is_boilerplate]
    assert flagged and all("intro" not in c.text and "result" not in c.text for c in flagged)
    # When the body cannot share the heading's chunk at all, the furniture is not taken.
    tight = run(result, max_tokens=8, overlap_tokens=0)
    check_slices(result, tight)
    assert all(c.n_tokens <= 8 or len(c.text.split()) == 1 for c in tight)
    assert not any(c.text.startswith("Results\nPage") and "result" not in c.text for c in tight)


def test_fits_answers_as_the_exact_count_does():
    """Packer.fits may decide from the word count alone; its answers are the
    exact count's, at every budget around each span's count."""
    from ragprep.chunk.packing import Packer

    text = "A heading\n\nSome body text, with infor-\nmation split across\u00a0lines.\f Next page: 12 345 words \u00ad here."
    packer = Packer(text, Tokenizer.load("cl100k_base"), ChunkConfig())
    for start in range(0, len(text), 7):
        for end in range(start + 1, len(text) + 1, 5):
            exact = Packer(text, packer.tok, packer.cfg).count("", start, end)
            for budget in (exact - 2, exact - 1, exact, exact + 1):
                assert packer.fits("", start, end, budget) == (exact <= budget), (start, end, budget)
