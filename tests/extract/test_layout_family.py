"""Layout mode on a generated family of pages, painted in every order (issue 19).

tests/layoutfamily.py builds pages the corpus does not have (columns of unequal widths,
sections of columns, running heads with page numbers, footnotes under one column, a
table with wrapped cells, right-to-left and vertical writing, a sidebar, a list with
hanging numbers, justified beside ragged text), each with its reading order known by
construction. Each is painted in reading order, in every scramble of bench/twins.py and
in seeded shuffles; layout mode must read every painting as the page was written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from layoutfamily import PAGES, Sheet, column, columns_page, folio, prose, random_page, reads_as

from ragprep.extract import open_document

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: bench/
from bench.twins import SCRAMBLES  # noqa: E402

ORDERS: tuple[str | int, ...] = ("plain", *SCRAMBLES)
SHUFFLES = (1, 2, 3, 4, 5, 6, 7, 8)

# Paintings layout mode does not read yet, each with why (the report of issue 19's probe).
_NARROW = (
    "a column 100 pt wide at 10 pt whose words of ten letters leave one or two a line is too ragged to "
    "wrap (regions.wraps): no text column, and its lines read with the column beside it; set in prose's "
    "words (three_unequal_prose) it is one"
)
_PAIRS = (
    "one-line rows at the text's leading in padded pairs are, to leaves.stacked_cells, a row of cells "
    "on two lines (the stream reading down the table is its witness): the pair reads cell by cell"
)
LIMITS: dict[tuple[str, str | int], str] = {
    ("one_column", "columns_first"): (
        "a page number at the top right painted last on a one-column page: the leaf's stream reads down "
        "but for that one jump back up, so it stands, and the number reads last"
    ),
    **{("three_unequal", order): _NARROW for order in ("reversed", "interleaved", "shuffled", 1, 2, 3, 4, 5, 6, 7, 8)},
    **{("grouped_rows", order): _PAIRS for order in ("plain", "interleaved", "furniture_first")},
    **{("tight_gutter_6", order): (
        "a gutter of 6 pt at 10 pt type is at geometric.SEGMENT_GAP (0.65 glyph heights): painted line by "
        "line across it, a left line and the right line beside it are one unit (7 pt reads in every order)"
    ) for order in ("interleaved", "shuffled", 5, 7, 8)},
    **{("side_by_side_tables", order): (
        "two tables side by side with no line as long as a text column's: regions.lines_side_by_side finds "
        "no lines to cut between, the region is one leaf and its cells read by rows across both tables"
    ) for order in ("reversed", "interleaved", "shuffled", *range(1, 9))},
    ("hanging_list", "columns_first"): (
        "a list painted by x position (the lead paragraph, the numbers and the tail paragraph in one pass, "
        "then the items' lines) keeps stream order: leaves._passes_in_turn finds no two passes taking turns"
    ),
}


def layout_text(data: bytes) -> str:
    with open_document(data) as doc:
        return doc.extract_page(1, "layout").text


def _cases(orders: tuple[str | int, ...]) -> list[object]:
    cases: list[object] = []
    for name in PAGES:
        for order in orders:
            reason = LIMITS.get((name, order))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            cases.append(pytest.param(name, order, marks=marks, id=f"{name}-{order}"))
    return cases


@pytest.mark.parametrize(("name", "order"), _cases(ORDERS))
def test_generated_page_reads_as_written_whatever_the_paint_order(name: str, order: str):
    sheet = PAGES[name]()
    text = layout_text(sheet.paint(order))
    assert reads_as(text, sheet), text


@pytest.mark.slow
@pytest.mark.parametrize(("name", "order"), _cases(SHUFFLES))
def test_generated_page_reads_as_written_shuffled(name: str, order: int):
    sheet = PAGES[name]()
    text = layout_text(sheet.paint(order))
    assert reads_as(text, sheet), text


# ----------------------------------------------------------------- rules the family found


@pytest.mark.parametrize("order", ["reversed", "shuffled", "columns_first", 3])
@pytest.mark.parametrize("widths", [(300, 144), (150, 294)])
def test_furniture_clear_of_the_gutter_reads_before_and_after_the_columns(widths: tuple[float, ...], order: str | int):
    # cut._edge_bands: a running head (its page number over the right
    # column), a title that ends short of the gutter or crosses it, and a
    # page number centred within the wider column's width, each across a
    # full-width gap from the columns: above or below every column, they
    # read first and last whatever the paint order, not with one column.
    sheet = columns_page(widths)
    assert sheet.truth[0] == "Journal of Generated Pages 19 7" and sheet.truth[-1] == "7"
    assert layout_text(sheet.paint(order)) == "\n".join(sheet.truth)


@pytest.mark.parametrize("order", ["reversed", "shuffled", 5])
def test_running_head_and_its_page_number_read_along_their_row(order: str | int):
    # leaves.leaf_order: a leaf of one row with no text flow (a running
    # head and its page number at the far end of the line) reads along the
    # row, as one line does, not in paint order.
    sheet = columns_page((222, 222))
    assert layout_text(sheet.paint(order)).split("\n")[0] == "Journal of Generated Pages 19 7"


@pytest.mark.parametrize("order", ["reversed", "shuffled", "columns_first", 2])
@pytest.mark.parametrize("name", ["table_wrapped", "wrapped_middle"])
def test_cells_wrapped_at_the_text_leading_read_cell_by_cell(name: str, order: str | int):
    # kernels.grid_rows (_cell_lines_below): a cell wrapped at the text's
    # leading, its lines 0.2 body heights apart (not touching), under a row
    # whose other cells took one line, reads with its cell, cell by cell
    # along the row, as the stream painting the table in order reads it;
    # not as a row of its own after its row.
    sheet = PAGES[name]()
    assert layout_text(sheet.paint(order)) == "\n".join(sheet.truth)


def test_short_last_line_painted_last_stays_in_its_column():
    # cut._last_part_below: two short justified columns whose left one ends
    # in a paragraph's short last line, which a shuffled stream paints after
    # the right column, on a visit of its own: at the column's leading under
    # the line over it, it is the column going on, not a part set under the
    # columns (a random_page of an earlier generator, seed 23).
    sheet = Sheet()
    column(sheet, 72, 720, 203.25, prose("s0c0x", 33), 9, 10.8, "justified")
    column(sheet, 293.25, 720, 246.75, prose("s0c1x", 42), 9, 10.8, "justified")
    folio(sheet, 24)
    assert sheet.truth[3] == "the to"
    assert layout_text(sheet.paint(101)) == "\n".join(sheet.truth)


@pytest.mark.xfail(
    strict=True,
    reason=(
        "painted by x position, the left columns and the paragraph spanning the gutter between two "
        "sections of short columns pass for a column-by-column reading (tiebreaks.stream_reads_columns), "
        "so the bands do not stand; a rule refusing that reading where text crossing the gutter lies "
        "between text of both sides read indesign2015-breast-cancer-guide p37's exercise page worse "
        "(570 -> 464 of 626) and was left out"
    ),
)
@pytest.mark.parametrize("seed", [56, 68])
def test_block_between_two_sections_of_columns_parts_them_whatever_the_paint_order(seed: int):
    # A paragraph spanning the gutter between two sections of short columns,
    # painted by x position (the left columns and the paragraph, then the
    # right columns): the paragraph parts the sections and the bands stand.
    sheet = random_page(seed)
    assert layout_text(sheet.paint("columns_first")) == "\n".join(sheet.truth)


RANDOM = range(60)


@pytest.mark.slow
def test_random_pages_read_as_written_in_nearly_every_painting():
    # A sweep of random_page over every twin order and a shuffle: the order
    # score (tokens in reading order, as bench/layout.py scores) stays at
    # 0.85 or more on every painting, and nearly all (408 of 420 today) read
    # exactly; those that do not are known kinds: a page number at the top
    # right painted last on a page of one column (LIMITS' one_column), and
    # seeds 56 and 68 painted by x position (0.88, the xfail above).
    from ragprep.pipeline.compare.metrics import lcs_length, tokenize

    exact, scores = 0, []
    for seed in RANDOM:
        sheet = random_page(seed)
        truth = tokenize("\n".join(sheet.truth))
        for order in (*ORDERS, 101):
            text = layout_text(sheet.paint(order))
            exact += reads_as(text, sheet)
            scores.append((lcs_length(truth, tokenize(text)) / len(truth), seed, str(order)))
    assert min(scores)[0] >= 0.85, sorted(scores)[:5]
    assert exact >= 0.9 * len(scores)
