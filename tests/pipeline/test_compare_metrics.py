"""The measures behind `ragprep compare`, on hand-made inputs with known answers."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ragprep.pipeline.compare.measure import BlockBudget, measure_document
from ragprep.pipeline.compare.metrics import (
    block_kept_whole,
    column_jumps,
    ends_mid_sentence,
    lcs_length,
    order_score,
    percentile,
    token_stats,
    tokenize,
)
from ragprep.pipeline.compare.model import BlockSpan, LineSpan, ModeChunk, ModeDocument, ModePage


def lcs_table(a, b) -> int:
    """The textbook O(nm) dynamic programme: the reference for the bit-parallel version."""
    row = [0] * (len(b) + 1)
    for x in a:
        prev_diag = 0
        for j, y in enumerate(b, 1):
            prev_diag, row[j] = row[j], prev_diag + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


# --------------------------------------------------------------------------- LCS


def test_lcs_matches_the_dynamic_programme_on_random_sequences():
    rng = random.Random(7)
    for _ in range(400):
        alphabet = rng.randint(1, 8)
        a = [rng.randrange(alphabet) for _ in range(rng.randint(0, 40))]
        b = [rng.randrange(alphabet) for _ in range(rng.randint(0, 70))]
        assert lcs_length(a, b) == lcs_table(a, b), (a, b)
        assert lcs_length(b, a) == lcs_table(a, b)


def test_lcs_small_cases():
    assert lcs_length([], ["a"]) == 0
    assert lcs_length(list("abcbdab"), list("bdcaba")) == 4
    assert lcs_length(["x"] * 5, ["x"] * 3) == 3
    assert lcs_length(list("abc"), list("def")) == 0


def test_lcs_of_two_long_pages_is_exact():
    # 3,000 distinct words with the last 1,800 moved in front: the LCS is those 1,800.
    words = [f"w{i}" for i in range(3000)]
    moved = words[1200:] + words[:1200]
    assert lcs_length(words, moved) == 1800
    assert lcs_length(words, words) == 3000


def test_order_score_is_lcs_over_reference_length():
    reference = ["a", "b", "c", "d", "e", "f", "g", "h"]
    interleaved = ["a", "b", "e", "f", "c", "d", "g", "h"]
    assert order_score(interleaved, reference) == 6 / 8
    assert order_score(reference, reference) == 1.0
    assert order_score(["a"], []) is None


# --------------------------------------------------------------------------- column jumps

A, B, C = (72.0, 230.0), (320.0, 510.0), (560.0, 700.0)
X_RANGES = {"A": A, "B": B, "C": C, "W": (72.0, 510.0)}
TWO_COLUMN_WIDTH = 510.0 - 72.0
TOP, LEADING, HEIGHT = 700.0, 14.0, 10.0


def box(x: tuple[float, float], row: int) -> tuple[float, float, float, float]:
    y = TOP - LEADING * row
    return (x[0], y, x[1], y + HEIGHT)


def lines(sequence: str) -> list:
    """Boxes of lines emitted in `sequence` order: A, B, C are column lines (each column
    fills its rows top down), W a full-width line on a row of its own, T a table line."""
    rows = dict.fromkeys("ABCW", 0)
    out = []
    for name in sequence:
        if name == "T":
            out.append(None)
            continue
        if name == "W":
            row = max(rows.values())
            rows = dict.fromkeys(rows, row + 1)
        else:
            row = rows[name]
            rows[name] += 1
        out.append(box(X_RANGES[name], row))
    return out


def test_columns_read_one_after_the_other_have_no_jump():
    assert column_jumps(lines("AAABBB"), text_width=TWO_COLUMN_WIDTH) == 0


def test_interleaved_column_pairs_jump_at_each_return():
    # A A B B A A B B: back to A once, back to B once.
    assert column_jumps(lines("AABBAABB"), text_width=TWO_COLUMN_WIDTH) == 2
    # Line by line, row by row: A B A B A B returns four times.
    assert column_jumps(lines("ABABAB"), text_width=TWO_COLUMN_WIDTH) == 4


def test_three_columns_interleaved_row_by_row():
    width = 700.0 - 72.0
    assert column_jumps(lines("ABC"), text_width=width) == 0
    assert column_jumps(lines("ABCABC"), text_width=width) == 3


def test_a_full_width_line_starts_a_new_context():
    # Two-column section, a full-width figure caption, another two-column section.
    assert column_jumps(lines("AABBWAABB"), text_width=TWO_COLUMN_WIDTH) == 0


def test_a_page_read_band_by_band_has_no_jump():
    # Text in two columns (rows 0-1), then references in two columns from row 8 down: the
    # reading goes A B A B, but the second A starts far below where A was left.
    text = [box(A, 0), box(A, 1), box(B, 0), box(B, 1)]
    references = [box(A, 8), box(A, 9), box(B, 8), box(B, 9)]
    assert column_jumps(text + references, text_width=TWO_COLUMN_WIDTH) == 0
    # Three line heights below the last line read there still resumes it.
    resumed = [box(A, 0), box(B, 0), (A[0], TOP - 3 * HEIGHT - HEIGHT, A[1], TOP - 3 * HEIGHT)]
    assert column_jumps(resumed, text_width=TWO_COLUMN_WIDTH) == 1


def test_a_centred_title_above_both_columns_is_not_a_column():
    # Title and author lines narrower than 60 %, centred over the gutter; then the columns.
    title = [box((211.0, 383.0), 0), box((254.0, 340.0), 1)]
    columns = [box(A, 3), box(A, 4), box(B, 3), box(B, 4)]
    assert column_jumps(title + columns, text_width=TWO_COLUMN_WIDTH) == 0


def test_a_table_line_starts_a_new_context():
    assert column_jumps(lines("ABTAB"), text_width=TWO_COLUMN_WIDTH) == 0
    assert column_jumps(lines("ABATB"), text_width=TWO_COLUMN_WIDTH) == 1


def test_lines_of_one_column_with_short_and_indented_lines_stay_one_run():
    # A paragraph's short last line, then the next paragraph's indented first line: the two
    # lines are disjoint, but the second overlaps the column seen so far.
    column = [box((72.0, 230.0), 0), box((72.0, 95.0), 1), box((100.0, 230.0), 2), box((72.0, 230.0), 3)]
    assert column_jumps([*column, box(B, 0), box(B, 1)], text_width=TWO_COLUMN_WIDTH) == 0


def test_pieces_of_one_row_continue_the_line():
    # "Let", an inline formula, "be a prime": three lines side by side on one row, then the
    # right column, then the left column again (one jump, at the return).
    row = [box((72.0, 90.0), 0), box((91.0, 97.0), 0), box((98.0, 230.0), 0)]
    assert column_jumps([*row, box(B, 0), box(B, 1)], text_width=TWO_COLUMN_WIDTH) == 0
    assert column_jumps([*row, box(B, 0), box(A, 1)], text_width=TWO_COLUMN_WIDTH) == 1
    # The same row split at a gutter (more than a line height wide) is two columns.
    assert column_jumps([box(A, 0), box(B, 0), box(A, 1)], text_width=TWO_COLUMN_WIDTH) == 1


def test_lines_wider_than_the_share_are_not_column_lines():
    # Each line is 60 % of the text width or more: no column context at all.
    wide = [box((0.0, 60.0), 0), box((61.0, 121.0), 0), box((0.0, 60.0), 1)]
    assert column_jumps(wide, text_width=100.0) == 0
    narrow = [box((0.0, 59.0), 0), box((80.0, 139.0), 0), box((0.0, 59.0), 1)]
    assert column_jumps(narrow, text_width=140.0) == 1


# A display equation in a one-column page, as Word 365 paints "6 ∑_{n=1}^{∞} 1/n² = π²"
# (boxes from the corpus's tagged/word365-math-formula.pdf): the sentence before it is
# full width, then the sum sign, the fraction's numerator and denominator, the upper
# limit (above the sum sign), the lower limit and the right-hand side, each a line.
EQUATION_WIDTH = 342.9 - 72.0
EQUATION = [
    (72.0, 705.2, 342.1, 716.0),
    (271.6, 668.4, 296.6, 680.0),
    (301.9, 677.5, 308.6, 686.0),
    (299.1, 660.4, 311.1, 669.0),
    (284.7, 687.0, 292.6, 694.0),
    (280.3, 653.9, 297.1, 661.0),
    (314.9, 667.7, 342.9, 679.0),
]


def test_the_pieces_of_a_display_equation_are_not_columns():
    assert column_jumps(EQUATION, text_width=EQUATION_WIDTH) == 0
    # Pieces as wide as column lines would still be no splice: the reading goes back up
    # to the limit above the sum sign, it does not resume a column below where it left it.
    wide = [EQUATION[0], box((72.0, 150.0), 3), box((300.0, 380.0), 3), box((72.0, 150.0), 2)]
    assert column_jumps(wide, text_width=EQUATION_WIDTH) == 0


def test_text_between_the_lines_of_centred_display_equations_is_no_column():
    # A one-column page (misc/geotopo-book-117p): three centred equation lines, a short
    # left-aligned line of text below them, then the next centred equation below that.
    # The reading goes down the page; the text line was read below the equations, not
    # beside them, so coming back to the equations' x-range resumes no column.
    width = 449.0
    page = [
        (276.7, 477.4, 372.0, 498.3),  # H : S1 x [0, 1] -> R3
        (264.9, 428.3, 383.7, 449.3),  # H(z, 0) = γ1(z) ...
        (264.9, 410.7, 383.7, 431.6),  # H(z, 1) = γ2(z) ...
        (110.0, 386.1, 255.0, 405.1),  # "und für jedes feste t ∈ [0, 1] ist"
        (262.2, 361.6, 386.9, 382.6),  # Hz : S1 -> R3, z -> H(z, t)
    ]
    assert column_jumps(page, text_width=width) == 0
    # The same text line beside the last equation line (a gutter apart): a splice.
    beside = [*page[:3], (110.0, 410.7, 235.0, 431.6), page[4]]
    assert column_jumps(beside, text_width=width) == 1


def test_fragments_between_two_spliced_columns_do_not_hide_the_splice():
    # A, a page number and a label (fragments), B, then A again below where it was left.
    label, number = box((240.0, 250.0), 0), box((300.0, 306.0), 9)
    assert column_jumps([box(A, 0), label, box(B, 0), number, box(A, 1)], text_width=TWO_COLUMN_WIDTH) == 1


# --------------------------------------------------------------------------- chunk measures


def test_mid_sentence():
    assert not ends_mid_sentence("It ends here.")
    assert not ends_mid_sentence("Quoted end.”  \n")
    assert not ends_mid_sentence("as shown before.[12]")
    assert ends_mid_sentence("as shown in [12]")
    assert not ends_mid_sentence("see the table:")
    assert not ends_mid_sentence("日本語の文。")
    assert ends_mid_sentence("and then the")
    assert ends_mid_sentence("")


def test_block_kept_whole_with_overlapping_chunks():
    starts, ends = [0, 80, 150], [100, 200, 260]
    assert block_kept_whole(starts, ends, 10, 90)
    assert block_kept_whole(starts, ends, 90, 190)  # inside the second chunk
    assert not block_kept_whole(starts, ends, 90, 230)  # no chunk holds all of it
    assert block_kept_whole(starts, ends, 150, 260)


def test_percentiles_follow_numpy():
    rng = random.Random(3)
    for n in (1, 2, 5, 37):
        values = sorted(rng.randint(1, 600) for _ in range(n))
        for q in (0, 50, 95, 100):
            assert percentile(values, q) == pytest.approx(np.percentile(values, q))
    stats = token_stats([10, 30, 20, 40])
    assert (stats.count, stats.mean, stats.p50, stats.max) == (4, 25.0, 25.0, 40)
    assert token_stats([]).count == 0


def test_tokenize_splits_cjk_and_folds_case():
    assert tokenize("The ﬁne Café") == ["the", "fine", "café"]
    assert tokenize("日本語 text") == ["日", "本", "語", "text"]


# --------------------------------------------------------------------------- one document

LINES = {"a1": A, "a2": A, "a3": A, "b1": B, "b2": B}


def reading(mode: str, names: list[str], chunk_lines: list[list[str]], struct_type: str = "P") -> ModeDocument:
    """A one-page reading whose lines are `names` (one word each) and whose chunks hold the
    given runs of lines."""
    text = "\n".join(names)
    spans, pos = {}, 0
    for name in names:
        spans[name] = (pos, pos + len(name))
        pos += len(name) + 1
    # Line n of a column sits on row n: a column's lines go down the page.
    boxes = {n: box(LINES[n], int(n[1:]) - 1) for n in names}
    lines = tuple(LineSpan(*spans[n], boxes[n]) for n in names)
    blocks = tuple(
        BlockSpan(struct_type, None, boxes[n], *spans[n], in_table=struct_type == "TD")
        for n in names
    )
    chunks = tuple(
        ModeChunk(spans[run[0]][0], spans[run[-1]][1], len(run), text[spans[run[0]][0] : spans[run[-1]][1]], False)
        for run in chunk_lines
    )
    page = ModePage(1, mode, text, glyphs=len(text), untagged_glyphs=0, artifact_glyphs=0,
                    undecodable_glyphs=0, blocks=blocks, lines=lines)
    return ModeDocument("d" * 64, "doc.pdf", mode, (page,), chunks)


BUDGET = BlockBudget(count_tokens=lambda text: len(text.split()), max_tokens=100)


def test_interleaved_chunks_need_a_return_inside_the_chunk():
    structure = reading("structure", ["a1", "a2", "a3", "b1", "b2"], [["a1", "a2", "a3", "b1", "b2"]])
    # Stream order a1 a2 b1 a3 b2: one jump back to A (at a3), one back to B (at b2).
    stream = reading("stream", ["a1", "a2", "b1", "a3", "b2"], [["a1", "a2", "b1"], ["a3", "b2"]])
    stream_one_chunk = reading("stream", ["a1", "a2", "b1", "a3", "b2"], [["a1", "a2", "b1", "a3", "b2"]])
    split = measure_document([structure, stream], BUDGET)
    s, t = split.metrics
    assert (s.column_jumps, s.interleaved_chunks) == (0, 0)
    # Each chunk switches column once and never comes back inside itself.
    assert (t.column_jumps, t.interleaved_chunks) == (2, 0)
    whole = measure_document([structure, stream_one_chunk], BUDGET)
    assert (whole.metrics[1].column_jumps, whole.metrics[1].interleaved_chunks) == (2, 1)
    # Order: LCS(a1 a2 b1 a3 b2, a1 a2 a3 b1 b2) = 4 of 5 words.
    assert (t.order_common_words, t.order_reference_words, t.order_score) == (4, 5, 0.8)
    # Block integrity: the stream chunks hold every one-line block whole.
    assert (t.blocks, t.blocks_whole, t.body_chunks, t.mid_sentence_chunks) == (5, 5, 2, 2)
    (pair,) = split.agreements
    assert (pair.word_f1, pair.sequence_agreement) == (1.0, 0.8)
    assert split.worst is not None and split.worst.page == 1
    assert dict(split.worst.excerpts) == {"structure": "a1 a2 a3 b1 b2", "stream": "a1 a2 b1 a3 b2"}


def test_table_cells_read_row_by_row_are_not_column_jumps():
    # Structure order of a two-column table, one cell per line: a1 b1 a2 b2 a3.
    names = ["a1", "b1", "a2", "b2", "a3"]
    as_cells = reading("structure", names, [names], struct_type="TD")
    as_text = reading("structure", names, [names])
    assert (as_text.pages[0].blocks[0].struct_type, measure_document([as_text], BUDGET).metrics[0].column_jumps) == (
        "P", 3
    )
    m = measure_document([as_cells], BUDGET).metrics[0]
    assert (m.column_jumps, m.interleaved_chunks) == (0, 0)


def test_a_paragraph_inside_a_table_cell_is_a_table_block():
    from ragprep.extract import PageResult
    from ragprep.extract.blocks import Block

    def block(text, struct_type, path, start):
        return Block(text, struct_type, path, None, (), (72.0, 700.0, 200.0, 710.0), start, start + len(text))

    page = PageResult(
        page=1, mode="structure", text="cell\nbody", glyphs=8, untagged_glyphs=0, artifact_glyphs=0,
        undecodable_glyphs=0,
        blocks=(block("cell", "P", ("Document", "Table", "TR", "TD", "P"), 0), block("body", "P", ("Document", "P"), 5)),
    )
    assert [b.in_table for b in ModePage.from_page_result(page).blocks] == [True, False]


def test_a_chunk_is_judged_in_the_context_of_its_page():
    # A centred line spanning the gutter (M, 53% of the text width: a column line) opens
    # the page, so the page's reading is one run across both columns: no jump. A chunk
    # that starts after it would, taken alone, see a1 b1 a2 as A -> B -> A; judged in
    # its page it holds no jump, so it is not interleaved (a geometric table read row by
    # row after a centred caption was counted so on the corpus).
    names = ["m", "a1", "b1", "a2"]
    spans, pos = {}, 0
    for name in names:
        spans[name] = (pos, pos + len(name))
        pos += len(name) + 1
    text = "\n".join(names)
    boxes = {"m": box((150.0, 380.0), 0), "a1": box(A, 1), "b1": box(B, 1), "a2": box(A, 2)}
    page_lines = tuple(LineSpan(*spans[n], boxes[n]) for n in names)
    blocks = tuple(BlockSpan("P", None, boxes[n], *spans[n], in_table=False) for n in names)
    chunks = (ModeChunk(0, spans["m"][1], 1, "m", False), ModeChunk(spans["a1"][0], len(text), 3, text[spans["a1"][0] :], False))
    page = ModePage(1, "stream", text, glyphs=len(text), untagged_glyphs=0, artifact_glyphs=0,
                    undecodable_glyphs=0, blocks=blocks, lines=page_lines)  # fmt: skip
    m = measure_document([ModeDocument("d" * 64, "doc.pdf", "stream", (page,), chunks)], BUDGET).metrics[0]
    assert column_jumps([boxes[n] for n in names[1:]], text_width=TWO_COLUMN_WIDTH) == 1  # the chunk alone
    assert (m.column_jumps, m.interleaved_chunks) == (0, 0)


def test_an_interleaved_chunk_holds_the_line_left_and_the_return():
    # a1 a2 b1 a3: the jump is a2 -> (b1) -> a3. A chunk b1 a3 holds the return but not the
    # line left: the splice is between chunks, not inside one.
    names = ["a1", "a2", "b1", "a3"]
    assert measure_document([reading("stream", names, [["a1", "a2"], ["b1", "a3"]])], BUDGET).metrics[0].interleaved_chunks == 0
    assert measure_document([reading("stream", names, [["a1"], ["a2", "b1", "a3"]])], BUDGET).metrics[0].interleaved_chunks == 1
