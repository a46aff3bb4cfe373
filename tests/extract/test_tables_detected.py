"""Tables on untagged pages (extract/gridfind.py): ruled grids and aligned
columns, read row by row; a table continued on the next page is one table;
prose stays prose."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pdfbuilder import PdfBuilder
from tabledocs import cells_by_column, ruled_table, text_at

from ragprep.extract import ExtractConfig, extract_document, open_document
from ragprep.extract import gridfind
from ragprep.extract.gridfind import (
    TABLE_MAX_CELL_WORDS,
    _Cell,
    _grid_of,
    _cell_glyphs,
    _column_totals,
    _kept_columns,
    _pieces_by_cell,
    _placed_cells,
    _TextLines,
    rounded_like_python,
)
from ragprep.extract.layout import read_layout

ROWS = [
    ["Station", "River", "Flow"],
    ["North Gate", "Alder", "312"],
    ["Mill Bridge", "Brook", "87"],
    ["Weir End", "Alder", "1045"],
]
XS = [320.0, 400.0, 470.0, 540.0]


def texts(table) -> list[list[str]]:
    return [[c.text for c in row] for row in table.rows()]


def layout(pdf: bytes):
    return extract_document(pdf, mode="layout")


def ruled_page(b: PdfBuilder, f: str, rows: list[list[str]], top: float, xs: list[float] = XS) -> str:
    return ruled_table(f, rows, top, xs)


def test_ruled_table_painted_column_by_column_reads_row_by_row():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(ruled_page(b, f, ROWS, 700, XS))
    result = layout(b.to_bytes())
    (table,) = result.tables
    assert (table.source, table.n_rows, table.n_cols) == ("rules", 4, 3)
    assert texts(table) == ROWS
    page = result.pages[0]
    for c in table.cells:
        assert c.bbox[0] >= XS[c.col] and c.bbox[2] <= XS[c.col + 1]
        assert c.text in page.text[c.char_start : c.char_end]


def test_a_grid_the_page_reading_left_out_is_no_table():
    # Two ruled tables; the page's reading placed only the lower one's
    # glyphs: the upper grid has no text on the page to point into, so the
    # page has one table, not a table of no cells (nor a failure sorting it).
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(ruled_page(b, f, ROWS, 700, XS) + " " + ruled_page(b, f, ROWS[:3], 400, XS))
    config = ExtractConfig()
    with open_document(b.to_bytes()) as doc:
        glyphs = doc.page_glyphs(1)
    joined = read_layout(glyphs.table, config, None).joined
    top = glyphs.table.quad[joined.order, :, 1].max(axis=1)
    lower = dataclasses.replace(joined, order=joined.order[top < 500])
    (table,) = gridfind.detect_tables(glyphs.table, glyphs.paths, lower, config, 1)
    assert texts(table) == ROWS[:3]


def test_missing_rule_between_slots_is_a_span():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    ys = [700, 680, 660, 640]
    rules = (
        "0.5 w "
        + " ".join(f"{XS[0]} {y} m {XS[-1]} {y} l S" for y in ys)
        + f" {XS[0]} 700 m {XS[0]} 640 l S {XS[-1]} 700 m {XS[-1]} 640 l S"
        # The inner verticals start below the first row: it is one cell over three columns.
        + " ".join(f" {x} 680 m {x} 640 l S" for x in XS[1:-1])
    )
    content = rules + " " + text_at(f, 324, 686, "Flows in May") + " " + cells_by_column(f, [["", "", ""], *ROWS[1:3]], XS, 700)
    b.add_page(content)
    (table,) = layout(b.to_bytes()).tables
    spans = {(c.row, c.col): (c.text, c.row_span, c.col_span) for c in table.cells}
    assert spans[0, 0] == ("Flows in May", 1, 3)
    assert texts(table) == [["Flows in May"], ROWS[1], ROWS[2]]


def test_rule_less_aligned_table_reads_row_by_row_and_prose_stays_prose():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    prose = [
        "The gauges were read every morning at seven and the figures below are the means",
        "of the daily readings over the whole month, rounded to the nearest cubic metre.",
    ]
    xs = [72.0, 200.0, 330.0, 400.0]
    content = " ".join(text_at(f, 72, 740 - 14 * i, line) for i, line in enumerate(prose))
    content += " " + cells_by_column(f, ROWS, xs, 700, pitch=16)
    content += " " + text_at(f, 72, 600, "Readings after the flood of the ninth were left out.")
    b.add_page(content)
    result = layout(b.to_bytes())
    (table,) = result.tables
    assert table.source == "alignment"
    assert texts(table) == ROWS
    assert not any("gauges" in c.text or "flood" in c.text for c in table.cells)


@pytest.mark.parametrize(
    "left, right",
    [
        ("the river rose slowly through the night and by morning the lower",
         "fields beside the mill were under water, as they had been in"),
        ("river stone maple cloud amber", "lantern harbor meadow willow copper"),  # short lines
    ],
)  # fmt: skip
def test_two_column_prose_is_not_a_table(left, right):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    content = " ".join(
        text_at(f, 72, 700 - 14 * i, left) + " " + text_at(f, 330, 700 - 14 * i, right) for i in range(12)
    )
    b.add_page(content)
    assert layout(b.to_bytes()).tables == ()


def test_table_beside_prose():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    prose = " ".join(text_at(f, 72, 700 - 14 * i, f"Line {i} of the report runs beside the table") for i in range(10))
    b.add_page(prose + " " + ruled_page(b, f, ROWS, 700, XS))
    result = layout(b.to_bytes())
    (table,) = result.tables
    assert texts(table) == ROWS
    assert all("report" not in c.text for c in table.cells)
    assert "Line 3 of the report runs beside the table" in result.pages[0].text


def continued(repeat_header: bool) -> bytes:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first = [ROWS[0]] + [[f"Gate {i}", "Alder", str(100 + i)] for i in range(6)]
    second = ([ROWS[0]] if repeat_header else []) + [[f"Gate {i}", "Brook", str(200 + i)] for i in range(6, 10)]
    intro = text_at(f, 72, 740, "Flows at the gates, continued overleaf.")
    b.add_page(intro + " " + ruled_page(b, f, first, 200, XS))
    b.add_page(ruled_page(b, f, second, 760, XS) + " " + text_at(f, 72, 500, "End of the flow table."))
    return b.to_bytes()


def test_table_continued_on_the_next_page_with_its_header_repeated_is_one_table():
    result = layout(continued(repeat_header=True))
    (table,) = result.tables
    assert table.pages == (1, 2) and table.n_rows == 11 and table.header_rows == 1
    assert texts(table)[0] == ROWS[0]
    assert texts(table)[1:] == [[f"Gate {i}", "Alder" if i < 6 else "Brook", str((100 if i < 6 else 200) + i)] for i in range(10)]
    assert [c.row for c in table.cells if c.page == 2][:3] == [7, 7, 7]
    assert [c.text for c in table.repeats] == ROWS[0]  # the repeated header, not a second header row
    assert table.cells[-1].header_labels == ("Flow",)


def test_table_continued_on_the_next_page_without_a_header_is_one_table():
    result = layout(continued(repeat_header=False))
    (table,) = result.tables
    assert table.pages == (1, 2) and table.n_rows == 11 and table.repeats == ()
    assert texts(table)[7] == ["Gate 6", "Brook", "206"]


def test_a_different_table_on_the_next_page_is_another_table():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(ruled_page(b, f, ROWS, 200, XS))
    b.add_page(ruled_page(b, f, [["A", "B"], ["1", "2"], ["3", "4"]], 760, [72.0, 150.0, 230.0]))
    assert len(layout(b.to_bytes()).tables) == 2


def test_a_figure_of_labelled_boxes_is_not_a_table():
    """Callout boxes inside a frame, each with a leader to the frame's edge:
    their edges cross like a grid's, but every label runs across the columns
    they make (a syntax diagram of a manual)."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    parts = ["0.5 w 72 400 468 300 re S"]  # the figure's frame
    callouts = [
        (300, 670, 230, "Names the permission"), (250, 610, 280, "Identifies the table it is created on"),
        (200, 550, 330, "Specifies an optional correlation name"), (330, 490, 200, "Indicates the rows it applies to"),
    ]  # fmt: skip
    for x, y, w, label in callouts:
        parts.append(f"{x} {y - 4} {w} 16 re S {x} {y + 4} m 72 {y + 4} l S " + text_at(f, x + 4, y, label))
    for y, keyword in zip((640, 580, 520, 460), ("CREATE PERMISSION name", "ON table", "AS correlation", "FOR ROWS"), strict=True):
        parts.append(text_at(f, 80, y, keyword))
    b.add_page(" ".join(parts))
    result = layout(b.to_bytes())
    assert result.tables == ()
    assert "Identifies the table it is created on" in result.pages[0].text


def test_aligned_table_in_one_column_of_a_two_column_page_leaves_the_other_column_prose():
    """A rule-less table in the right column of a paper: the left column's
    prose lines beside its rows line up with them, but they are no column of it."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    prose = [
        "Negative passages were drawn from the same batch,",
        "which makes the training cheaper than sampling anew",
        "for every question and keeps the gold passages in",
        "the batch as negatives for the other questions too.",
        "We found this trick effective in every setting here,",
    ]
    content = " ".join(text_at(f, 72, 700 - 14 * i, line, size=9) for i, line in enumerate(prose))
    content += " " + cells_by_column(f, [["Dataset", "Train", "Test"], ["Natural Questions", "79168", "3610"],
                                        ["TriviaQA", "78785", "11313"], ["WebQuestions", "3417", "2032"],
                                        ["TREC", "1353", "694"]], [330.0, 430.0, 490.0, 550.0], 714, pitch=14)  # fmt: skip
    b.add_page(content)
    result = layout(b.to_bytes())
    (table,) = result.tables
    assert texts(table) == [["Dataset", "Train", "Test"], ["Natural Questions", "79168", "3610"],
                            ["TriviaQA", "78785", "11313"], ["WebQuestions", "3417", "2032"], ["TREC", "1353", "694"]]  # fmt: skip
    assert "which makes the training cheaper than sampling anew" in result.pages[0].text


def test_cell_boxes_round_as_python_rounds_them():
    # rint(v * 1000) / 1000 misses these by a digit (the product lands on the
    # other side of a half); an exact tie rounds to even; -0.0004 keeps its
    # sign; what is not finite or too large passes through round() itself.
    rng = np.random.default_rng(5)
    values = np.concatenate(
        [
            [-768.6825, 1253.0805, 597.6625, 0.0625, -0.0625, -0.0004, -0.0, np.inf, -np.inf, np.nan, 1e300, 2.0**60],
            rng.integers(-2_000_000, 2_000_000, 5000) / 1000.0 + 0.0005,
            rng.uniform(-2000.0, 2000.0, 5000),
        ]
    )
    assert [repr(v) for v in rounded_like_python(values)] == [repr(round(v, 3)) for v in values.tolist()]


def _kept_cell_by_cell(col: np.ndarray, words: np.ndarray, x0: np.ndarray, x1: np.ndarray) -> tuple[int, int]:
    """The prose-edge rule (gridfind's module docstring) stated over the
    cells themselves, with numpy's reductions: an edge column averaging more
    than TABLE_MAX_CELL_WORDS words and at least as wide as the rest of the
    grid is left out while three columns remain."""
    kept = np.ones(len(col), dtype=bool)
    while int(col[kept].max()) - int(col[kept].min()) + 1 > 2:
        for edge in (int(col[kept].min()), int(col[kept].max())):
            mine, rest = kept & (col == edge), kept & (col != edge)
            # not narrower: a NaN extent counts as wide
            wide = not x1[mine].max() - x0[mine].min() < x1[rest].max() - x0[rest].min()
            if float(np.mean(words[mine])) > TABLE_MAX_CELL_WORDS and wide:
                kept = rest
                break
        else:
            break
    return int(col[kept].min()), int(col[kept].max())


@pytest.mark.parametrize("seed", range(40))
def test_prose_edges_read_off_column_totals_equal_the_rule_over_the_cells(seed):
    """Column totals decide as the cells do: with empty columns, ties of
    extent, means on the threshold, NaN and infinite x."""
    rng = np.random.default_rng(seed)
    for _ in range(50):
        n_cols = int(rng.integers(2, 7))
        n = int(rng.integers(1, 25))
        col = np.sort(rng.choice(n_cols, size=n))
        col[0] = 0  # column 0 is always met; others may be empty
        words = rng.choice([1, 2, 5, 6, 9, 40], size=n).astype(np.int64)
        x0 = rng.choice([0.0, 10.0, 100.0, 250.0, np.nan, -np.inf], size=n, p=[0.3, 0.3, 0.2, 0.1, 0.05, 0.05])
        with np.errstate(invalid="ignore"):  # inf - inf
            x1 = x0 + rng.choice([0.0, 50.0, 90.0, 200.0, np.inf], size=n, p=[0.2, 0.3, 0.2, 0.25, 0.05])
            expected = _kept_cell_by_cell(col, words, x0, x1)
        assert _kept_columns(_column_totals(col, words, x0, x1)) == expected
        low, high = expected
        kept = (col >= low) & (col <= high)
        totals = _column_totals(col, words, x0, x1)
        assert sum(totals.words[low : high + 1]) / sum(totals.cells[low : high + 1]) == float(np.mean(words[kept]))


@pytest.mark.parametrize("seed", range(10))
def test_pieces_group_into_cells_in_the_order_the_rows_first_reach_them(seed):
    """Pieces by cell, the cells in order of their first piece: the keys as
    they come (a piece left of an earlier one in its row), and keys that
    never decrease, whose order is the pieces' own (None)."""
    rng = np.random.default_rng(seed)
    for n in (1, 2, 5, 30):
        for key in (rng.integers(0, 8, size=n), np.sort(rng.integers(0, 8, size=n))):
            cell_of = {k: i for i, k in enumerate(dict.fromkeys(key.tolist()))}
            expected = sorted(range(n), key=lambda p: cell_of[int(key[p])])  # noqa: B023
            by_cell, cell_start = _pieces_by_cell(key)
            order = list(range(n)) if by_cell is None else by_cell.tolist()
            assert order == expected
            assert (by_cell is None) == bool((np.diff(key) >= 0).all())
            grouped = key[order]
            assert cell_start.tolist() == [p for p in range(n) if p == 0 or grouped[p] != grouped[p - 1]]


def test_cells_of_pieces_in_their_own_order_are_a_slice_of_the_same_glyphs():
    rng = np.random.default_rng(7)
    piece_start = np.array([0, 3, 4, 9, 12, 13])
    lines = _TextLines(
        glyphs=rng.permutation(20), piece_start=piece_start, piece_end=np.append(piece_start[1:], 20),
        x0=np.zeros(6), x1=np.zeros(6), line_piece=np.array([0, 2, 6]), y=np.zeros(2), height=np.ones(2),
    )  # fmt: skip
    pieces, cell_start = np.arange(1, 6), np.array([0, 2, 3])
    sliced, bounds = _cell_glyphs(lines, pieces, None, cell_start)
    gathered, gathered_bounds = _cell_glyphs(lines, pieces, np.arange(5), cell_start)
    assert sliced.tolist() == gathered.tolist() == lines.glyphs[3:20].tolist()
    assert bounds.tolist() == gathered_bounds.tolist() == [0, 6, 9, 17]


@pytest.mark.parametrize("seed", range(10))
def test_placed_cells_are_the_cells_with_a_placed_glyph_each_in_table_order(seed):
    """Cells whose glyphs come in table order (as both finders give them)
    and cells whose do not, empty cells (an empty float array among them)
    and cells of which the reading placed no glyph: the kept cells are those
    with a placed glyph, each one's glyphs sorted, cell after cell."""
    rng = np.random.default_rng(seed)
    position = np.where(rng.random(60) < 0.6, np.arange(60), -1)
    for shuffled in (False, True):
        cells = []
        for k in range(int(rng.integers(1, 12))):
            glyphs = np.sort(rng.choice(60, size=int(rng.integers(0, 6)), replace=False))
            if shuffled and k % 2:
                glyphs = rng.permutation(glyphs)
            cells.append(_Cell(k, 0, 1, 1, glyphs if len(glyphs) or k % 3 else np.zeros(0)))
        expected = [c for c in cells if (position[c.glyphs.astype(np.int64)] >= 0).any()]
        placed, glyphs, starts = _placed_cells(_grid_of(cells), position)
        assert [cells[k].row for k in placed.tolist()] == [c.row for c in expected]
        assert glyphs.tolist() == [g for c in expected for g in sorted(c.glyphs.tolist())]
        sizes = [len(c.glyphs) for c in expected]
        assert starts.tolist() == [sum(sizes[:k]) for k in range(len(sizes))]
        assert glyphs.dtype == starts.dtype == np.int64
