"""Layout mode reads a page the same whatever order its text was painted in (issue 19).

Each fixture page is built in reading order, then repainted by bench/twins.py in every
scrambled order (reversed, columns interleaved line by line, shuffled, furniture first,
x position first) without changing what it shows; layout mode must read every twin with
the exact text it reads the page in, which is the text the page was written in.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pikepdf
import pytest
from pdfbuilder import PdfBuilder, text_width, wrap

from ragprep.extract import open_document

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: bench/
from bench.twins import SCRAMBLES, make_twin  # noqa: E402

SIZE, LEADING = 10, 12


def words(tag: str, count: int) -> list[str]:
    stems = ["river", "stone", "maple", "cloud", "amber", "quiet", "lantern", "harbor", "meadow"]
    return [f"{stems[i % len(stems)]}{tag}{i}" for i in range(count)]


def show(font: str, x: float, y: float, text: str, size: float = SIZE) -> str:
    return f"BT /{font} {size} Tf {x:.2f} {y:.2f} Td ({text}) Tj ET"


def column(font: str, x: float, top: float, lines: list[str], size: float = SIZE, leading: float = LEADING) -> str:
    """One text object per column, as compositors paint it: Td down the lines."""
    ops = [f"BT /{font} {size} Tf {leading} TL {x:.2f} {top:.2f} Td"]
    ops += [f"({line}) Tj T*" for line in lines]
    return " ".join(ops) + " ET"


def layout_text(data: bytes) -> str:
    with open_document(data) as doc:
        return doc.extract_page(1, "layout").text


def glyphs(data: bytes) -> tuple[list[str], np.ndarray]:
    """What the page shows: each glyph's text, place and size, in no order."""
    with open_document(data) as doc:
        table = doc.page_glyphs(1).table
    place = np.column_stack([table.origin, table.font_size])
    key = np.round(place, 1)
    order = np.lexsort((place[:, 0], key[:, 1], table.text))
    return table.text[order].tolist(), place[order]


def two_columns_page() -> tuple[bytes, list[str]]:
    """A running head, a title across both columns, two columns of prose, a footnote at
    the foot of the left column in small print, a centred page number."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    title = "Rivers of the Northern Plain"
    left, right = wrap(words("a", 70), 220), wrap(words("b", 60), 220)
    note = wrap(words("n", 12), 220, size=7)
    ops = [
        show(f, 72, 760, "Journal of Plains 12"),
        show(f, 150, 720, title, 16),
        column(f, 72, 690, left),
        column(f, 320, 690, right),
        column(f, 72, 690 - LEADING * len(left) - 30, note, 7, 8),
        show(f, 300, 40, "7"),
    ]
    b.add_page(" ".join(ops))
    return b.to_bytes(), ["Journal of Plains 12", title, *left, *note, *right, "7"]


def table_page() -> tuple[bytes, list[str]]:
    """A paragraph over a table of four columns and five rows, painted row by row."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    intro = wrap(words("p", 30), 460)
    rows = [["Station", "Depth", "Flow", "Date"]] + [
        [f"S{r}", f"{r * 3}.5 m", f"{r * 40} l/s", f"2024-0{r}-1{r}"] for r in range(1, 5)
    ]
    x = (72, 200, 320, 440)
    top = 700 - LEADING * len(intro) - 24
    ops = [column(f, 72, 700, intro)]
    ops += [show(f, x[c], top - 16 * r, cell) for r, row in enumerate(rows) for c, cell in enumerate(row)]
    b.add_page(" ".join(ops))
    return b.to_bytes(), [*intro, *(" ".join(row) for row in rows)]


def words_painted_apart_page() -> tuple[bytes, list[str]]:
    """Lines painted word by word, each word placed with its own Td."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    lines = wrap(words("w", 40), 300)
    ops = []
    for i, line in enumerate(lines):
        x = 72.0
        for word in line.split():
            ops.append(show(f, x, 700 - LEADING * i, word))
            x += text_width(word + " ", "Helvetica", SIZE)
    b.add_page(" ".join(ops))
    return b.to_bytes(), lines


def author_grid_page() -> tuple[bytes, list[str]]:
    """A report's title page: a series line and a title over an author grid of two
    columns, flush right, of blocks (a name over one or two affiliations) each column
    at its own pace on one leading, and a date under the right column."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    series, title = "Special Publication 800-223", "Security of High Performance Computing Systems"
    ops = [show(f, 540 - text_width(series, size=12), 740, series, 12), show(f, 100, 712, title, 16)]
    places = ["Ur", "Oslo", "Lima", "Bern", "Quito", "Dakar", "Kyiv", "Hanoi", "Nairobi", "Caracas", "Tbilisi"]
    lines = []
    for c, (right, sizes) in enumerate(((260.0, (2, 1, 1, 2, 1)), (540.0, (1, 1, 1, 1, 1, 1)))):
        y = 670.0
        for k, affiliations in enumerate(sizes):
            # Names and affiliations of all lengths, as a title page's are.
            name = f"Author{c}x{k} {places[(3 * k + c) % len(places)]}"
            for line in [name, *(f"Laboratory{c}x{k}x{a} of {places[(5 * k + 2 * a + c + 1) % len(places)]}" for a in range(affiliations))]:
                ops.append(show(f, right - text_width(line, size=SIZE), y, line))
                lines.append(line)
                y -= LEADING
            y -= LEADING
    ops.append(show(f, 540 - text_width("February 2024", size=SIZE), 420, "February 2024"))
    b.add_page(" ".join(ops))
    return b.to_bytes(), [series, title, *lines, "February 2024"]


PAGES = {"two_columns": two_columns_page, "table": table_page, "words_apart": words_painted_apart_page, "author_grid": author_grid_page}


@pytest.mark.parametrize("name", list(PAGES))
def test_fixture_page_reads_as_written(name: str):
    data, expected = PAGES[name]()
    assert layout_text(data) == "\n".join(expected)


# Known limits, not yet met (see the issue 19 note): a title painted after the
# left column when the stream goes by x position (the coherent stream keeps
# it there), and a table shuffled cell by cell (too few cells go back up
# their own column for the shuffle to show).
LIMITS = {("two_columns", "columns_first"), ("table", "shuffled")}


@pytest.mark.parametrize(
    ("name", "order"), [(name, order) for name in PAGES for order in SCRAMBLES if (name, order) not in LIMITS]
)
def test_scrambled_twin_reads_as_its_original(name: str, order: str):
    data, expected = PAGES[name]()
    twin = make_twin(data, order)
    assert layout_text(twin) == "\n".join(expected)


@pytest.mark.parametrize("order", SCRAMBLES)
def test_twin_shows_the_same_glyphs_in_another_order(order: str):
    data, _ = two_columns_page()
    twin = make_twin(data, order)
    (text, place), (twin_text, twin_place) = glyphs(data), glyphs(twin)
    assert twin_text == text
    np.testing.assert_allclose(twin_place, place, atol=0.01)
    with open_document(data) as doc, open_document(twin) as other:
        assert doc.page_glyphs(1).table.text.tolist() != other.page_glyphs(1).table.text.tolist()


def test_twin_of_a_page_scaled_at_its_outer_level_shows_the_same_glyphs():
    # A cm outside any q (Chrome starts its pages so) holds for the background
    # only: the pieces replay it themselves.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica")
    b.add_page("0.5 0 0 0.5 0 0 cm " + " ".join(show(f, 144, 1400 - 24 * i, f"line {i}") for i in range(5)))
    data = b.to_bytes()
    twin = make_twin(data, "reversed")
    (text, place), (twin_text, twin_place) = glyphs(data), glyphs(twin)
    assert twin_text == text
    np.testing.assert_allclose(twin_place, place, atol=0.01)


def test_twin_has_no_structure_and_no_marked_content():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica")
    page = b.add_page(f"/P <</MCID 0>> BDC {show(f, 72, 700, 'Tagged text')} EMC")
    b.set_struct_tree([b.struct_element("P", [b.mcr(0, page=page)], page=page)])
    twin = make_twin(b.to_bytes(), "reversed")
    with pikepdf.open(__import__("io").BytesIO(twin)) as pdf:
        assert "/StructTreeRoot" not in pdf.Root and "/MarkInfo" not in pdf.Root
        operators = {str(i.operator) for i in pikepdf.parse_content_stream(pdf.pages[0])}
    assert not operators & {"BDC", "BMC", "EMC"}
    assert layout_text(twin) == "Tagged text"
