"""Path pieces recorded beside the glyph table (extract/paths.py): the contract
table detection reads and the compiled core has to reproduce."""

from __future__ import annotations

from pdfbuilder import PdfBuilder

from ragprep.extract import ExtractConfig
from ragprep.extract.document import open_document
from ragprep.extract.paths import FILL, LINE, RECT, STROKE


def pieces(content: str, **settings) -> tuple[list[tuple], tuple[str, ...]]:
    b = PdfBuilder()
    b.add_page(content)
    with open_document(b.to_bytes(), config=ExtractConfig(**settings)) as doc:
        page = doc.page_glyphs(1)
    p = page.paths
    rows = [
        (int(p.kind[i]), int(p.paint[i]), *(round(float(v), 3) for v in (p.x0[i], p.y0[i], p.x1[i], p.y1[i])))
        for i in range(len(p))
    ]
    return rows, page.warnings


def test_lines_and_rects_in_user_space_with_their_paint():
    rows, _ = pieces("q 2 0 0 2 10 20 cm 0 0 m 5 0 l S 1 1 3 4 re f Q 0 0 m 10 0 l 10 10 l 0 10 l h B")
    assert rows == [
        (LINE, STROKE, 10, 20, 20, 20),  # the CTM maps both ends
        (RECT, FILL, 12, 22, 18, 30),  # an upright CTM keeps a rectangle whole
        (LINE, STROKE | FILL, 0, 0, 10, 0),
        (LINE, STROKE | FILL, 10, 0, 10, 10),
        (LINE, STROKE | FILL, 10, 10, 0, 10),
        (LINE, STROKE | FILL, 0, 10, 0, 0),  # h closes the subpath back to its start
    ]


def test_clipping_paths_and_curves_add_nothing():
    rows, _ = pieces("0 0 100 100 re W n 0 0 m 10 10 20 20 30 30 c S 5 5 m 9 5 l n")
    assert rows == []


def test_a_rotated_rectangle_becomes_its_four_edges():
    rows, _ = pieces("q 0 1 -1 0 100 0 cm 0 0 10 20 re S Q")
    assert [r[0] for r in rows] == [LINE] * 4
    assert {r[2:4] for r in rows} == {(100, 0), (100, 10), (80, 10), (80, 0)}


def test_pieces_past_the_page_limit_are_not_recorded_and_say_so():
    rows, warnings = pieces(" ".join(f"{i} 0 m {i} 10 l S" for i in range(12)), max_path_pieces_per_page=5)
    assert [r[2] for r in rows] == [0, 1, 2, 3, 4]
    assert any(w.setting == "extract.max_path_pieces_per_page" for w in warnings)


def test_path_operators_take_no_token_index_from_the_glyphs():
    """token_index counts the interpreted text operators, so recording paths
    leaves the glyph table as it was."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 10 Tf 72 700 Td (a) Tj ET 0 0 m 5 5 l S 1 1 2 2 re f BT /{f} 10 Tf 72 680 Td (b) Tj ET")
    with open_document(b.to_bytes()) as doc:
        glyphs = doc.page_glyphs(1).table
    assert list(glyphs.token_index) == [3, 8]  # BT Tf Td Tj ET | BT Tf Td Tj: the paths are not counted
