"""A generated family of pages whose reading order is known by construction (issue 19).

Layout mode is judged on pages the corpus does not have, so its rules must hold for the
capability the issue names, not for the fixture pages alone: lines of a column top to
bottom, columns of unequal widths from their gutters, a title or spanning block above its
columns, sections of columns one under another, running heads and page numbers in the top
and bottom bands, footnotes at the foot of their column, a table's rows (cells that wrap
too, cells of two lines under a header of two-line cells), right-to-left columns, vertical writing, a sidebar, ragged and justified text, a
list with hanging numbers, text turned up and down the margins.

Each page is a list of pieces (one text object each, as bench/twins.py cuts a page into
pieces) set down in reading order with its truth, the lines the page reads as. ``paint``
writes the pieces in any order: the twins' orders (``bench.twins.ORDERS`` applied to the
pieces themselves, as ``make_twin`` applies them to a page's pieces) or a seeded shuffle.
A float (a sidebar beside a column) has no place geometry decides: it must read whole,
its lines in order, anywhere between the others' lines (``reads_as``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from pdfbuilder import PdfBuilder, hexstr, literal, text_width, wrap

STEMS = ["river", "stone", "maple", "cloud", "amber", "quiet", "lantern", "harbor", "meadow", "willow", "ember"]
HEBREW = ["שלום", "עולם", "ספר", "בית", "מים", "אור", "לחם", "ילד", "יום", "לילה", "שמש", "ירח"]
VERTICAL = "縦書きの文章を右から左へ読む列です日本語"
BOX = (0.0, 0.0, 612.0, 792.0)


def words(tag: str, count: int) -> list[str]:
    """`count` distinct words, so that every word's place is checkable."""
    return [f"{STEMS[i % len(STEMS)]}{tag}{i}" for i in range(count)]


SHORT = ["a", "the", "of", "river", "in", "stone", "to", "and", "maple", "is", "by", "cloud", "on", "amber"]


def prose(tag: str, count: int) -> list[str]:
    """`count` words of prose's lengths (two to nine letters, and short ones between),
    every seventh tagged with its place: narrow columns wrap as prose does."""
    return [f"{tag}{i}" if i % 7 == 6 else SHORT[(i * 5) % len(SHORT)] for i in range(count)]


@dataclass(frozen=True)
class Piece:
    """One text object: shown at (x, y) in `font` at `size` (the attributes the twins'
    orders sort by)."""

    x: float
    y: float
    size: float
    font: str
    string: str  # the show operand, a literal or hex string
    spacing: float = 0.0  # Tw, for justified lines
    turn: int = 0  # quarter turns counterclockwise: 1 runs up the page, 3 down it

    def ops(self) -> str:
        # Tw outlives ET (it is graphics state, §9.3.1): every piece sets its own.
        if self.turn:
            a, b = ((0, 1), (-1, 0), (0, -1))[self.turn - 1]
            place = f"{a} {b} {-b} {a} {self.x:.2f} {self.y:.2f} Tm"
        else:
            place = f"{self.x:.2f} {self.y:.2f} Td"
        return f"BT /{self.font} {self.size:g} Tf {self.spacing:.3f} Tw {place} {self.string} Tj ET"


@dataclass
class Sheet:
    """A page under construction: its pieces and its truth, both in reading order."""

    b: PdfBuilder = field(default_factory=PdfBuilder)
    pieces: list[Piece] = field(default_factory=list)
    truth: list[str] = field(default_factory=list)
    floats: list[tuple[int, int]] = field(default_factory=list)  # truth lines [start, end) free to move

    def __post_init__(self) -> None:
        self.font = self.b.add_standard_font("Helvetica", widths=True)

    def line(self, x: float, y: float, text: str, size: float = 10, spacing: float = 0.0) -> None:
        self.pieces.append(Piece(x, y, size, self.font, literal(text), spacing))
        self.truth.append(text)

    def row(self, y: float, cells: list[tuple[float, str]], size: float = 10) -> None:
        """Cells side by side on one baseline: one line of the truth."""
        self.pieces += [Piece(x, y, size, self.font, literal(text)) for x, text in cells]
        self.truth.append(" ".join(text for _, text in cells))

    def paint(self, order: str | int | list[int]) -> bytes:
        """The page with its pieces painted in `order`: a key of bench.twins.ORDERS, a
        seed for a shuffle of its own, or the pieces' indices in paint order."""
        from bench.twins import ORDERS  # the repository root is on sys.path in the tests

        if isinstance(order, list):
            pieces = [self.pieces[k] for k in order]
        elif isinstance(order, int):
            pieces = list(self.pieces)
            random.Random(order).shuffle(pieces)
        else:
            pieces = ORDERS[order](list(self.pieces), BOX)  # type: ignore[arg-type]
        content = " ".join(piece.ops() for piece in pieces)
        if len(self.b.pdf.pages):
            self.b.pdf.pages[0].obj.Contents = self.b.pdf.make_stream(content.encode())
        else:
            self.b.add_page(content)
        return self.b.to_bytes()


def column(sheet: Sheet, x: float, top: float, width: float, text: list[str], size: float = 10,
           leading: float = 12, align: str = "left") -> float:
    """`text` set in a column at x, from baseline `top` down, `align` left (ragged right),
    justified (Tw stretches every line but the last to the width) or right; returns the
    baseline under its last line."""
    lines = wrap(text, width, size)
    for i, line in enumerate(lines):
        spacing, x_line = 0.0, x
        if align == "justified" and i < len(lines) - 1 and line.count(" "):
            spacing = (width - text_width(line, size=size)) / line.count(" ")
        elif align == "right":
            x_line = x + width - text_width(line, size=size)
        sheet.line(x_line, top - leading * i, line, size, spacing)
    return top - leading * len(lines)


def hanging_list(sheet: Sheet, x: float, top: float, width: float, items: list[list[str]], leading: float = 12) -> float:
    """A numbered list: each number hangs at x, its text wraps at x + 18."""
    y = top
    for n, item in enumerate(items, start=1):
        lines = wrap(item, width - 18)
        sheet.row(y, [(x, f"{n}."), (x + 18, lines[0])])
        for i, line in enumerate(lines[1:], start=1):
            sheet.line(x + 18, y - leading * i, line)
        y -= leading * len(lines) + 4
    return y


def furniture(sheet: Sheet, head: str, number: int) -> None:
    """A running head in the top band (with its page number), read first."""
    sheet.row(760, [(72, head), (530, str(number))], 9)


def folio(sheet: Sheet, number: int) -> None:
    """A centred page number in the bottom band, read last."""
    sheet.line(300, 36, str(number), 9)


# ------------------------------------------------------------------------------- pages


def columns_page(widths: tuple[float, ...], gutter: float = 24, align: str = "left", count: int = 60,
                 title: bool = True, bands: bool = True, size: float = 10, text=words) -> Sheet:
    """Columns of the given widths (one to four) under a spanning title, between a running
    head and a page number; each column holds `count` words."""
    sheet = Sheet()
    if bands:
        furniture(sheet, "Journal of Generated Pages 19", 7)
    if title:
        sheet.line(72, 720, "Reading Order Whatever The Paint Order", 16)
    x = 72.0
    for c, width in enumerate(widths):
        column(sheet, x, 690, width, text(f"c{c}x", count), size, 1.2 * size, align)
        x += width + gutter
    if bands:
        folio(sheet, 7)
    return sheet


def margin_stamps_page() -> Sheet:
    """Two columns between a running head and a page number, an arXiv stamp up the left
    margin and a spine title down the right one: the stamp reads before the page, the
    spine after it, wherever the stream paints them (units.margin_text)."""
    sheet = columns_page((222, 222))
    stamp, spine = "arXiv:1905.00019v1 [cs.CL] 19 May 2019", "GENERATED PAGES JUL 2019"
    sheet.pieces.insert(0, Piece(36, 300, 18, sheet.font, literal(stamp), turn=1))
    sheet.truth.insert(0, stamp)
    sheet.pieces.append(Piece(570, 600, 8, sheet.font, literal(spine), turn=3))
    sheet.truth.append(spine)
    return sheet


def sections_page(first: tuple[float, ...], second: tuple[float, ...], gutter: float = 24) -> Sheet:
    """A title, a section of columns, a spanning paragraph, a heading and a second section
    of columns of other widths: the page reads section after section."""
    sheet = Sheet()
    furniture(sheet, "Generated Sections", 3)
    sheet.line(72, 730, "Two Sections Of Columns", 16)
    bottom = 0.0
    x = 72.0
    for c, width in enumerate(first):
        bottom = min(bottom or 1e9, column(sheet, x, 700, width, words(f"s{c}x", 34)))
        x += width + gutter
    y = bottom - 14
    y = column(sheet, 72, y, 468, words("span", 30)) - 14
    sheet.line(72, y, "Second section", 13)
    x = 72.0
    for c, width in enumerate(second):
        column(sheet, x, y - 22, width, words(f"t{c}x", 30))
        x += width + gutter
    folio(sheet, 3)
    return sheet


def footnote_page(note_under: int = 0) -> Sheet:
    """Two columns, a footnote in small print at the foot of one of them."""
    sheet = Sheet()
    furniture(sheet, "Generated Footnotes", 11)
    for c in range(2):
        bottom = column(sheet, 72 + 246 * c, 700, 222, words(f"f{c}x", 80 if c == note_under else 60))
        if c == note_under:
            column(sheet, 72 + 246 * c, bottom - 20, 222, words(f"note{c}x", 14), size=7, leading=8)
    folio(sheet, 11)
    return sheet


def table_page(wrapped: bool = True) -> Sheet:
    """A paragraph over a table of four columns whose first column's cells wrap to two
    lines in some rows: the table reads row by row, a wrapped cell's second line on a
    line of its own after the row."""
    sheet = Sheet()
    y = column(sheet, 72, 720, 468, words("intro", 36)) - 20
    sheet.row(y, [(72, "Station"), (220, "Depth"), (330, "Flow"), (440, "Sampled")])
    y -= 18
    for r in range(1, 7):
        name = f"Station {STEMS[r]} upper reach" if wrapped and r % 2 else f"S{r}"
        cells = [(72, name.rsplit(" ", 1)[0] if " " in name else name), (220, f"{r * 3}.5 m"),
                 (330, f"{r * 40} l/s"), (440, f"2024-0{r}-1{r}")]
        if " " in name:
            # A row with a cell on two lines reads cell by cell, each cell top to bottom.
            sheet.line(72, y, cells[0][1])
            sheet.line(72, y - 11, name.rsplit(" ", 1)[1])
            sheet.row(y, cells[1:])
            y -= 11
        else:
            sheet.row(y, cells)
        y -= 18
    column(sheet, 72, y - 12, 468, words("after", 24))
    return sheet


def grouped_rows_page() -> Sheet:
    """A table of one-line rows set at the text's leading in groups of two, the groups
    padded apart: rows, not cells on two lines, whatever the paint order."""
    sheet = Sheet()
    y = column(sheet, 72, 720, 468, words("intro", 30)) - 20
    sheet.row(y, [(72, "Region"), (220, "Year"), (330, "Sites"), (440, "Share")])
    for r in range(1, 9):
        y -= 11 if r % 2 == 0 else 20
        sheet.row(y, [(72, f"{STEMS[r].title()} {r}"), (220, f"20{10 + r}"), (330, str(r * 13)), (440, f"{r * 4.5:.1f}%")])
    return sheet


def two_line_cells_page() -> Sheet:
    """A table of two-line cells (an amount over its metric amount, set apart at the
    text's leading) under a header of two-line cells ("lb" over "(kg)") and a title row
    of one line (excavator-manual p3's lift capacities): its rows are as full as one
    another, as padded pairs of one-line rows are (grouped_rows), but its first row of
    two-line cells lies under a row of fewer lines: every row reads cell by cell."""
    sheet = Sheet()
    y = column(sheet, 72, 720, 468, words("intro", 30)) - 20
    cols = (72, 220, 330, 440)
    sheet.row(y, [(72, "Lift point"), (220, "Load radius")])
    y -= 20
    rows = [[("Load", "(units)"), ("lb", "(kg)"), ("ft", "(m)"), ("psi", "(kPa)")]]
    rows += [[(STEMS[r].title(), f"row {r}"), (f"{r * 1100}", f"({r * 499})"), (f"{r * 3}.5", f"({r * 1.07:.2f})"),
              (f"{r * 12}", f"({r * 83})")] for r in range(1, 6)]
    for cells in rows:
        for x, (top, under) in zip(cols, cells, strict=True):
            sheet.line(x, y, top)
            sheet.line(x, y - 11, under)
        y -= 31
    return sheet


def wrapped_middle_page() -> Sheet:
    """A table whose middle column's cells wrap to two or three lines at the text's
    leading in some rows: each row reads cell by cell, a cell's lines together."""
    sheet = Sheet()
    y = column(sheet, 72, 720, 468, words("intro", 30)) - 20
    sheet.row(y, [(72, "Code"), (160, "Description"), (420, "Price")])
    for r in range(1, 7):
        y -= 20
        lines = wrap(words(f"d{r}x", 2 + 3 * (r % 3)), 200)
        if len(lines) == 1:
            sheet.row(y, [(72, f"C-{r:03d}"), (160, lines[0]), (420, f"{r * 9.25:.2f}")])
        else:
            # A row with a cell on several lines reads cell by cell: the code, the
            # description's lines (its first on the code's baseline, so on its line),
            # then the price, back up on the row's baseline, on a line of its own.
            sheet.row(y, [(72, f"C-{r:03d}"), (160, lines[0])])
            for i, line in enumerate(lines[1:], start=1):
                sheet.line(160, y - 11 * i, line)
            sheet.line(420, y, f"{r * 9.25:.2f}")
        y -= 11 * (len(lines) - 1)
    return sheet


def rtl_page() -> Sheet:
    """Hebrew in two columns: the right column reads first, each line right to left
    (painted in visual order, as Word paints it)."""
    sheet = Sheet()
    cid, encode = sheet.b.add_cid_font(" " + "".join(HEBREW), widths=500)
    for c, x in enumerate((320.0, 72.0)):  # the right column first
        for i in range(14):
            line = " ".join(HEBREW[(5 * i + 3 * j + 7 * c) % 12] for j in range(7))
            sheet.pieces.append(Piece(x, 700 - 12 * i, 10, cid, hexstr(encode(line[::-1]))))
            sheet.truth.append(line)
    return sheet


def vertical_page(columns: int = 5, length: int = 8) -> Sheet:
    """Vertical writing (WMode 1, Identity-V): columns of glyphs read top to bottom, the
    columns right to left (§9.7.4.3; the design card's "Vertical writing")."""
    sheet = Sheet()
    cid, encode = sheet.b.add_cid_font(VERTICAL, vertical=True)
    for c in range(columns):
        text = "".join(VERTICAL[(c * 3 + i) % len(VERTICAL)] for i in range(length))
        sheet.pieces.append(Piece(400 - 18 * c, 700, 12, cid, hexstr(encode(text))))
        sheet.truth.append(text)
    return sheet


def sidebar_page() -> Sheet:
    """A column of prose with a narrower box of small print beside it: a float, read
    whole wherever it goes."""
    sheet = Sheet()
    column(sheet, 72, 700, 300, words("body", 110))
    start = len(sheet.truth)
    sheet.line(400, 690, "Sidebar", 11)
    column(sheet, 400, 674, 140, words("side", 30), size=8, leading=10)
    sheet.floats.append((start, len(sheet.truth)))
    return sheet


def list_page() -> Sheet:
    """A paragraph, a list whose numbers hang in the margin, a paragraph."""
    sheet = Sheet()
    y = column(sheet, 72, 700, 400, words("lead", 30)) - 8
    y = hanging_list(sheet, 72, y, 400, [words(f"item{n}x", 8 + 7 * (n % 3)) for n in range(6)]) - 4
    column(sheet, 72, y, 400, words("tail", 24))
    return sheet


def mixed_alignment_page() -> Sheet:
    """Two columns, the left justified, the right ragged, under a title."""
    sheet = Sheet()
    sheet.line(72, 730, "Justified Beside Ragged", 16)
    column(sheet, 72, 700, 222, words("just", 70), align="justified")
    column(sheet, 318, 700, 222, words("rag", 66))
    return sheet


def unequal_sizes_page() -> Sheet:
    """Two columns set in 9 pt and 11 pt on their own leadings (no shared baselines),
    under a title."""
    sheet = Sheet()
    sheet.line(72, 730, "Columns In Two Sizes", 16)
    column(sheet, 72, 700, 222, words("small", 80), size=9, leading=11)
    column(sheet, 318, 700, 222, words("large", 60), size=11, leading=13.5)
    return sheet


def mixed_fonts_page() -> Sheet:
    """Two columns whose lines are painted in three pieces each, in three fonts (roman,
    bold, italic) on one baseline, each piece a text object of its own."""
    sheet = Sheet()
    fonts = [sheet.font, sheet.b.add_standard_font("Helvetica-Bold", widths=True),
             sheet.b.add_standard_font("Times-Italic", widths=True)]
    bases = ["Helvetica", "Helvetica-Bold", "Times-Italic"]
    for c, x0 in enumerate((72.0, 318.0)):
        for i, line in enumerate(wrap(prose(f"m{c}x", 150), 210)):
            parts = line.split(" ")
            third = max(1, len(parts) // 3)
            chunks = [parts[:third], parts[third : 2 * third], parts[2 * third :]]
            x, y = x0, 700 - 12 * i
            for k, chunk in enumerate(c for c in chunks if c):
                text = " ".join(chunk) + " "
                sheet.pieces.append(Piece(x, y, 10, fonts[k], literal(text)))
                x += text_width(text, bases[k], 10)
            sheet.truth.append(line + " ")
    return sheet


def superscripts_page() -> Sheet:
    """Two columns with a raised footnote mark (6 pt, 4 pt up) after a word on some
    lines, each mark a text object of its own."""
    sheet = Sheet()
    for c, x0 in enumerate((72.0, 318.0)):
        lines = wrap(prose(f"r{c}x", 130), 210)
        for i, line in enumerate(lines):
            y = 700 - 12 * i
            if i % 4 != 1 or line.count(" ") < 2:
                sheet.line(x0, y, line)
                continue
            head, tail = line.split(" ", 1)
            mark = str(i)
            sheet.pieces.append(Piece(x0, y, 10, sheet.font, literal(head)))
            x = x0 + text_width(head, size=10)
            sheet.pieces.append(Piece(x, y + 4, 6, sheet.font, literal(mark)))
            x += text_width(mark, size=6) + text_width(" ", size=10)
            sheet.pieces.append(Piece(x, y, 10, sheet.font, literal(tail)))
            sheet.truth.append(f"{head}{mark} {tail}")
    return sheet


def hyphenated_page() -> Sheet:
    """Two justified columns whose lines end in hyphenated words."""
    sheet = Sheet()
    for c, x0 in enumerate((72.0, 318.0)):
        text = prose(f"h{c}x", 140)
        lines = wrap(text, 200)
        for i, line in enumerate(lines):
            if i < len(lines) - 1:
                line += " con-" if i % 2 else " hyphen-"
            else:
                line += " end"
            sheet.line(x0, 700 - 12 * i, line)
    return sheet


def tight_gutter_page(gutter: float = 8) -> Sheet:
    """Two justified columns `gutter` points apart: a gutter a few word spaces wide."""
    sheet = Sheet()
    width = (468 - gutter) / 2
    column(sheet, 72, 700, width, prose("g0x", 200), align="justified")
    column(sheet, 72 + width + gutter, 700, width, prose("g1x", 200), align="justified")
    return sheet


def numbers_table_page() -> Sheet:
    """A paragraph over a table of labels and two columns of numbers set flush right."""
    sheet = Sheet()
    y = column(sheet, 72, 720, 468, words("lead", 30)) - 20
    sheet.row(y, [(72, "Item"), (330 - text_width("Quantity", size=10), "Quantity"),
                  (460 - text_width("Amount", size=10), "Amount")])
    for r in range(1, 9):
        y -= 14
        qty, amount = str(r * 7 % 23 * 10 ** (r % 3)), f"{r * 1234.5 / (r % 4 + 1):,.2f}"
        sheet.row(y, [(72, f"Line item {STEMS[r]}"), (330 - text_width(qty, size=10), qty),
                      (460 - text_width(amount, size=10), amount)])
    column(sheet, 72, y - 24, 468, words("after", 24))
    return sheet


def side_by_side_tables_page() -> Sheet:
    """Two tables side by side, each of three columns and its own rows (the right one on
    a pitch of its own: tables on one row pitch are one table to the eye), under a
    paragraph: the left table reads whole, row by row, then the right one."""
    sheet = Sheet()
    y0 = column(sheet, 72, 720, 468, words("lead", 30)) - 24
    for t, (x0, pitch) in enumerate(((72.0, 16.0), (318.0, 21.0))):
        for r in range(6):
            cells = [(x0, f"T{t}R{r}"), (x0 + 70, f"{STEMS[r]}{t}"), (x0 + 150, f"{r * 11 + t}.{r}")]
            sheet.row(y0 - pitch * r, cells)
    return sheet


def figure_page(at_top: bool = True) -> Sheet:
    """Two columns with a figure spanning both (its area empty of text) and
    a caption of two lines across the page's width under it: at the top of
    the page the caption reads before the columns, at the foot after them."""
    sheet = Sheet()
    caption = words("fig", 26)
    if at_top:
        column(sheet, 72, 560, 468, ["Figure", "1:", *caption], size=9, leading=11)
        top = 520.0
    else:
        top = 700.0
    for c in range(2):
        column(sheet, 72 + 246 * c, top, 222, prose(f"f{c}x", 110 if at_top else 120))
    if not at_top:
        column(sheet, 72, 250, 468, ["Figure", "2:", *caption], size=9, leading=11)
    return sheet


def box_over_two_of_three_page() -> Sheet:
    """Three columns, a boxed abstract in 9 pt spanning the second and third
    at the top: the first column, then the box, then the two under it."""
    sheet = Sheet()
    column(sheet, 72, 700, 144, prose("a0x", 190))
    column(sheet, 234, 700, 306, prose("box", 70), size=9, leading=11)
    for c in range(2):
        column(sheet, 234 + 162 * c, 600, 144, prose(f"a{c + 1}x", 150))
    return sheet


def margin_notes_page() -> Sheet:
    """One column of paragraphs with notes in small type in the left margin
    level with two of them: each note is a float, read whole anywhere."""
    sheet = Sheet()
    y = 700.0
    for p in range(4):
        if p in (1, 3):
            start = len(sheet.truth)
            column(sheet, 36, y, 84, prose(f"note{p}x", 12), size=7, leading=8)
            sheet.floats.append((start, len(sheet.truth)))
        y = column(sheet, 144, y, 396, prose(f"p{p}x", 80)) - 8
    return sheet


def spanning_header_table_page() -> Sheet:
    """A table whose header's first row spans pairs of columns (a group's
    name centred over its two columns), then a row of column names, then
    rows of values: the table reads row by row."""
    sheet = Sheet()
    y = column(sheet, 72, 720, 468, words("lead", 30)) - 24
    sheet.row(y, [(250, "Spring"), (410, "Autumn")])
    y -= 14
    sheet.row(y, [(72, "Site"), (200, "Count"), (280, "Mass"), (360, "Count"), (440, "Mass")])
    for r in range(1, 8):
        y -= 14
        sheet.row(y, [(72, f"{STEMS[r].title()} {r}"), (200, str(r * 7)), (280, f"{r * 1.5:.1f}"),
                      (360, str(r * 5 + 2)), (440, f"{r * 2.5:.1f}")])
    column(sheet, 72, y - 24, 468, words("after", 24))
    return sheet


def footnotes_across_page() -> Sheet:
    """Two columns, then footnotes in 7 pt across the page's width under
    both: the columns, then the notes."""
    sheet = Sheet()
    furniture(sheet, "Generated Notes Across", 5)
    for c in range(2):
        column(sheet, 72 + 246 * c, 700, 222, prose(f"n{c}x", 200))
    y = 150.0
    for k in range(3):
        y = column(sheet, 72, y, 468, [f"{k + 1}", *words(f"fn{k}x", 14)], size=7, leading=8) - 2
    folio(sheet, 5)
    return sheet


def random_page(seed: int) -> Sheet:
    """A page drawn from the family's elements by `seed`: a running head (70%), a title
    (70%), one or two sections of one to three columns of random widths (at least 110 pt)
    and gutters, left or justified, in one of four sizes, a spanning paragraph between the
    sections, a footnote under one column of the last section (40% where it has two or
    more), a page number (70%)."""
    rng = random.Random(seed)
    sheet = Sheet()
    if rng.random() < 0.7:
        furniture(sheet, f"Generated Journal {seed}", seed % 90 + 1)
    y = 720.0
    if rng.random() < 0.7:
        sheet.line(72, y, f"A Title For Page {seed}", rng.choice([14, 16, 18]))
        y -= 30
    sections = rng.choice([1, 1, 2])
    size = rng.choice([9, 10, 10, 11])
    for s in range(sections):
        y = _random_section(sheet, rng, f"s{s}", size, s == sections - 1, y) - 20
        if s < sections - 1:
            y = column(sheet, 72, y, 468, prose(f"span{s}x", 40), size, 1.2 * size) - 20
    if rng.random() < 0.7:
        folio(sheet, seed % 90 + 1)
    return sheet


def _random_section(sheet: Sheet, rng: random.Random, tag: str, size: float, note: bool, top: float) -> float:
    """One section of random_page's columns from baseline `top` down; returns the
    baseline under its lowest column."""
    k = rng.choice([1, 2, 2, 3])
    gutter = rng.choice([14, 18, 24])
    cuts = sorted(rng.uniform(0.3, 0.7) for _ in range(k - 1))
    shares = [b - a for a, b in zip([0.0, *cuts], [*cuts, 1.0], strict=True)]
    widths = [max(110.0, (468 - gutter * (k - 1)) * share) for share in shares]
    widths = [w * (468 - gutter * (k - 1)) / sum(widths) for w in widths]
    align, count = rng.choice(["left", "justified"]), rng.randint(25, 60)
    noted = rng.randrange(k) if note and k > 1 and rng.random() < 0.4 else None
    x, bottom = 72.0, top
    for c, width in enumerate(widths):
        end = column(sheet, x, top, width, prose(f"{tag}c{c}x", count + 10 * c), size, 1.2 * size, align)
        if c == noted:
            end = column(sheet, x, end - 16, width, words(f"n{c}x", 10), size=7, leading=8)
        bottom, x = min(bottom, end), x + width + gutter
    return bottom


PAGES = {
    "one_column": lambda: columns_page((468,)),
    "two_unequal": lambda: columns_page((300, 144)),
    "two_unequal_narrow_first": lambda: columns_page((150, 294), count=50),
    "three_unequal": lambda: columns_page((120, 200, 100), count=40),
    "three_unequal_prose": lambda: columns_page((120, 200, 100), count=90, text=prose),
    "four_columns": lambda: columns_page((117, 117, 117, 117), gutter=14, count=40, size=8),
    "justified_two": lambda: columns_page((222, 222), align="justified"),
    "margin_stamps": margin_stamps_page,
    "sections": lambda: sections_page((222, 222), (140, 140, 140)),
    "sections_unequal": lambda: sections_page((300, 144), (144, 300)),
    "footnote_left": lambda: footnote_page(0),
    "footnote_right": lambda: footnote_page(1),
    "table_wrapped": table_page,
    "grouped_rows": grouped_rows_page,
    "two_line_cells": two_line_cells_page,
    "wrapped_middle": wrapped_middle_page,
    "rtl_two": rtl_page,
    "vertical": vertical_page,
    "sidebar": sidebar_page,
    "hanging_list": list_page,
    "mixed_alignment": mixed_alignment_page,
    "unequal_sizes": unequal_sizes_page,
    "mixed_fonts": mixed_fonts_page,
    "superscripts": superscripts_page,
    "hyphenated": hyphenated_page,
    "tight_gutter": tight_gutter_page,
    "tight_gutter_6": lambda: tight_gutter_page(6),
    "numbers_table": numbers_table_page,
    "side_by_side_tables": side_by_side_tables_page,
    "figure_top": figure_page,
    "figure_foot": lambda: figure_page(at_top=False),
    "box_over_two_of_three": box_over_two_of_three_page,
    "margin_notes": margin_notes_page,
    "spanning_header_table": spanning_header_table_page,
    "footnotes_across": footnotes_across_page,
}


# Paintings layout mode does not read yet, each with why (issue 19's probe, session 16):
# the tests leave them out and bench/family.py reports them. Random pages are named
# random_SEED (random_page).
_NARROW = (
    "a column 100 pt wide at 10 pt whose words of ten letters leave one or two a line is too ragged to "
    "wrap (regions.wraps): no text column, and its lines read with the column beside it; set in prose's "
    "words (three_unequal_prose) it is one"
)
LIMITS: dict[tuple[str, str | int], str] = {
    **{("three_unequal", order): _NARROW for order in ("reversed", "interleaved", "shuffled", 1, 2, 3, 4, 5, 6, 7, 8)},
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
    **{(f"random_{seed}", "columns_first"): (
        "painted by x position, the left columns and the paragraph spanning the gutter between two "
        "sections of short columns pass for a column-by-column reading (tiebreaks.stream_reads_columns), "
        "so the bands do not stand; a rule refusing that reading where text crossing the gutter lies "
        "between text of both sides read indesign2015-breast-cancer-guide p37's exercise page worse "
        "(570 -> 464 of 626) and was left out"
    ) for seed in (68,)},
}


def reads_as(text: str, sheet: Sheet) -> bool:
    """Whether `text` is the sheet's truth, its floats each read whole anywhere."""
    lines = text.split("\n")
    for start, end in sheet.floats:
        block = sheet.truth[start:end]
        at = next((i for i in range(len(lines)) if lines[i : i + len(block)] == block), None)
        if at is None:
            return False
        lines = lines[:at] + lines[at + len(block) :]
    floating = {k for start, end in sheet.floats for k in range(start, end)}
    return lines == [line for k, line in enumerate(sheet.truth) if k not in floating]
