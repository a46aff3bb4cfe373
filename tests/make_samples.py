"""Write the bundled sample PDFs (pipeline/samples/*.pdf) with the fixture builder.

    python tests/make_samples.py [OUTDIR]      # default: pipeline/samples

The samples are the README demo's default input, so they read like real
documents. Output is byte-identical on every run (the builder saves with a
content-derived /ID and a fixed /Info, no dates); tests/test_pdfbuilder.py
checks that the committed files equal freshly generated ones.

- tagged-two-column-article.pdf: tagged, two columns whose lines the content
  stream writes interleaved (left 1, right 1, left 2, ...) while the structure
  tree lists column 1 then column 2 (stream order wrong, structure order right).
- untagged-report.pdf: untagged single-column report with headings, a table
  drawn as text, and page-number footers.
- cjk-page.pdf: a horizontal Japanese paragraph (Identity-H) and a vertical
  two-column section (Identity-V).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

import pikepdf
from pdfbuilder import PdfBuilder, hexstr, literal, text_width

DEFAULT_OUTDIR = Path(__file__).resolve().parent.parent / "pipeline" / "samples"

PAGE_W, PAGE_H = 612.0, 792.0
MARGIN = 72.0
REGULAR, BOLD = "Helvetica", "Helvetica-Bold"


def _num(value: float) -> str:
    """Coordinates rounded to 1/1000 pt and written without trailing zeros."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# --------------------------------------------------------------------------- line layout


def wrap(text: str, font: str, size: float, width: float) -> list[list[str]]:
    """Greedy line breaking of ``text`` into lines of words no wider than ``width``."""
    space = text_width(" ", font, size)
    lines: list[list[str]] = [[]]
    used = 0.0
    for word in text.split():
        w = text_width(word, font, size)
        if lines[-1] and used + space + w > width:
            lines.append([])
            used = 0.0
        used += (space if lines[-1] else 0.0) + w
        lines[-1].append(word)
    return lines


def tj_justified(words: list[str], font: str, size: float, width: float, last: bool) -> str:
    """One TJ showing ``words`` with no space glyphs, as TeX-like producers do.

    Words are separated only by negative TJ adjustments (§9.4.3: a number moves
    the pen by -n/1000 x size); a justified line spreads the slack evenly, the
    last line of a paragraph uses the natural space width.
    """
    natural_gap = text_width(" ", font, size)
    gap = natural_gap
    if not last and len(words) > 1:
        ink = sum(text_width(w, font, size) for w in words)
        gap = (width - ink) / (len(words) - 1)
    adjust = _num(-gap * 1000.0 / size)
    parts = [literal(words[0])]
    for word in words[1:]:
        parts += [adjust, literal(word)]
    return "[" + " ".join(parts) + "] TJ"


def tj_plain(text: str) -> str:
    return f"{literal(text)} Tj"


def text_op(font_res: str, size: float, x: float, y: float, show: str) -> str:
    """One text object: select the font, move to (x, y), show."""
    return f"BT /{font_res} {_num(size)} Tf {_num(x)} {_num(y)} Td {show} ET"


def rule_op(y: float, line_width: float) -> str:
    """A horizontal rule across the text block."""
    return f"{_num(line_width)} w {_num(MARGIN)} {_num(y)} m {_num(PAGE_W - MARGIN)} {_num(y)} l S"


def info(title: str) -> dict[str, str]:
    # Fixed /Info (§14.3.3) without CreationDate/ModDate keeps the bytes reproducible.
    return {"Title": title, "Author": "ragprep samples", "Producer": "ragprep pdfbuilder"}


# --------------------------------------------------------------------------- tagged article


@dataclass
class Line:
    """One marked-content line: where it goes, what it shows, which element owns it."""

    x: float
    y: float
    font: str
    size: float
    show: str  # the text-showing operator(s)
    owner: int  # index into the column's element list


@dataclass
class Column:
    x: float
    width: float
    elements: list[tuple[str, str]] = field(default_factory=list)  # (struct type, text)
    lines: list[Line] = field(default_factory=list)


ARTICLE_TITLE = "Reading Order in PDF Text Extraction"
ARTICLE_SUBTITLE = "Why the order of painting is not the order of reading"

# Per page: (left column, right column); each column is an H2 then paragraphs.
ARTICLE_PAGES: list[tuple[list[tuple[str, str]], list[tuple[str, str]]]] = [
    (
        [
            ("H2", "Painting is not reading"),
            (
                "P",
                "A PDF page is a small program that paints glyphs at positions. The content "
                "stream says where every glyph goes, but it makes no promise about the order "
                "in which a person reads them. A producer may paint a header last, a caption "
                "first, or every line of a two-column layout from left to right across the "
                "whole page.",
            ),
            (
                "P",
                "An extractor that follows the stream faithfully then mixes sentences from "
                "both columns, and a retrieval system fed with that text answers questions "
                "with fragments that never belonged together.",
            ),
        ],
        [
            ("H2", "Structure as the author’s word"),
            (
                "P",
                "Tagged PDF adds a logical structure tree next to the painted content. Each "
                "element names its role, such as a heading or a paragraph, and points to the "
                "marked content that carries its text.",
            ),
            (
                "P",
                "Walking that tree in order gives the sequence the author intended, whatever "
                "the order of painting. This page is an example: its lines are painted "
                "alternately from the left and the right column, yet its structure lists the "
                "whole left column first.",
            ),
        ],
    ),
    (
        [
            ("H2", "When the tree is missing"),
            (
                "P",
                "Many documents carry no structure at all, or a tree that covers only part of "
                "the page. A careful reader then falls back to geometry: it groups glyphs into "
                "lines by their baselines, lines into blocks by their spacing, and blocks into "
                "columns by the gaps between them.",
            ),
            (
                "P",
                "Geometry cannot know what the author meant, but it can avoid the worst "
                "mistake, which is to run one sentence across two columns.",
            ),
        ],
        [
            ("H2", "Artifacts and page furniture"),
            (
                "P",
                "Running headers, footers and page numbers repeat on every page and rarely "
                "belong in the text of a chunk. Tagged documents mark them as artifacts, "
                "outside the structure tree, so that an extractor can leave them out.",
            ),
            (
                "P",
                "Without tags, such furniture can only be recognised by its position and its "
                "repetition, which is why the footer of this page is marked as a pagination "
                "artifact instead of being left to guesswork.",
            ),
        ],
    ),
]

BODY_SIZE, BODY_LEADING = 10.0, 13.0
H2_SIZE = 12.0
GUTTER = 24.0


def lay_out_column(column: Column, top: float) -> None:
    """Fill ``column.lines`` from its elements, top down."""
    y = top
    for index, (struct_type, text) in enumerate(column.elements):
        if struct_type == "H2":
            column.lines.append(Line(column.x, y, BOLD, H2_SIZE, tj_plain(text), index))
            y -= H2_SIZE + 6
            continue
        lines = wrap(text, REGULAR, BODY_SIZE, column.width)
        for i, words in enumerate(lines):
            show = tj_justified(words, REGULAR, BODY_SIZE, column.width, i == len(lines) - 1)
            column.lines.append(Line(column.x, y, REGULAR, BODY_SIZE, show, index))
            y -= BODY_LEADING
        y -= BODY_LEADING / 2  # paragraph spacing


def centred_line(text: str, font: str, size: float, y: float) -> Line:
    x = (PAGE_W - text_width(text, font, size)) / 2
    return Line(x, y, font, size, tj_plain(text), 0)


def marked_line(tag: str, mcid: int, font_res: str, line: Line) -> str:
    # §14.6: each line is its own marked-content sequence, so its MCID can be
    # listed under its paragraph wherever the line sits in the stream.
    return (
        f"/{tag} <</MCID {mcid}>> BDC BT /{font_res} {_num(line.size)} Tf "
        f"1 0 0 1 {_num(line.x)} {_num(line.y)} Tm {line.show} ET EMC"
    )


def footer(text: str, font_res: str, artifact: bool) -> str:
    size = 9.0
    x = (PAGE_W - text_width(text, REGULAR, size)) / 2
    body = text_op(font_res, size, x, 40, tj_plain(text))
    if not artifact:
        return body
    # §14.8.2.2: page furniture is an /Artifact, outside the structure tree.
    return f"/Artifact <</Type /Pagination /Subtype /Footer>> BDC {body} EMC"


def build_tagged_article() -> bytes:
    b = PdfBuilder()
    fonts = {
        REGULAR: b.add_standard_font(REGULAR, widths=True),
        BOLD: b.add_standard_font(BOLD, widths=True),
    }
    col_w = (PAGE_W - 2 * MARGIN - GUTTER) / 2
    page_kids: list[pikepdf.Object] = []
    total = len(ARTICLE_PAGES)
    for page_no, (left_spec, right_spec) in enumerate(ARTICLE_PAGES, start=1):
        ops: list[str] = []
        head: list[tuple[str, str, list[int]]] = []
        top = PAGE_H - MARGIN
        if page_no == 1:
            title = centred_line(ARTICLE_TITLE, BOLD, 20.0, top)
            sub = centred_line(ARTICLE_SUBTITLE, REGULAR, 11.0, top - 24)
            ops.append(marked_line("H1", 0, fonts[BOLD], title))
            ops.append(marked_line("P", 1, fonts[REGULAR], sub))
            head = [("H1", ARTICLE_TITLE, [0]), ("P", ARTICLE_SUBTITLE, [1])]
            top -= 64
        columns = [
            Column(MARGIN, col_w, list(left_spec)),
            Column(MARGIN + col_w + GUTTER, col_w, list(right_spec)),
        ]
        for column in columns:
            lay_out_column(column, top)
        # The defect this sample exists for: lines painted left 1, right 1, left 2, ...
        owners: list[list[list[int]]] = [[[] for _ in c.elements] for c in columns]
        next_mcid = len(head)
        for pair in zip_longest(*(c.lines for c in columns)):
            for col_index, line in enumerate(pair):
                if line is None:
                    continue
                tag = columns[col_index].elements[line.owner][0]
                ops.append(marked_line(tag, next_mcid, fonts[line.font], line))
                owners[col_index][line.owner].append(next_mcid)
                next_mcid += 1
        ops.append(footer(f"Page {page_no} of {total}", fonts[REGULAR], artifact=True))
        page = b.add_page("\n".join(ops) + "\n")
        page_kids += [b.struct_element(t, m, page=page) for t, _, m in head]
        for column, column_owners in zip(columns, owners, strict=True):
            elements = [
                b.struct_element(t, m, page=page)
                for (t, _), m in zip(column.elements, column_owners, strict=True)
            ]
            page_kids.append(b.struct_element("Sect", elements, page=page))
    document = b.struct_element("Document", page_kids, lang="en-US")
    b.set_struct_tree([document])
    b.pdf.Root.Lang = pikepdf.String("en-US")
    b.set_info(info(ARTICLE_TITLE))
    return b.to_bytes()


# --------------------------------------------------------------------------- untagged report

REPORT_TITLE = "Extraction Quality Report"
REPORT_SUBTITLE = "Corpus refresh, text extraction stage"

# Blocks: ("H", text) heading, ("P", text) paragraph, ("TABLE", None) the timing table.
REPORT_BLOCKS: list[tuple[str, str | None]] = [
    ("H", "1. Summary"),
    (
        "P",
        "This report describes one refresh of the document corpus that feeds the retrieval "
        "index. Every file was read, its pages were turned into text, and the text was split "
        "into chunks with provenance. The refresh finished without a failed run: documents "
        "that could not be read were recorded as error rows and skipped, and every other "
        "document produced chunks.",
    ),
    (
        "P",
        "The main change since the previous refresh is the reading order of multi-column "
        "pages. Tagged pages are now read in the order of their structure tree, and untagged "
        "pages fall back to a geometric order that keeps columns apart.",
    ),
    ("H", "2. Corpus"),
    (
        "P",
        "The corpus holds reports, scientific articles, manuals and scanned forms from many "
        "producers. Some files are tagged, most are not, and a few are encrypted or damaged. "
        "The extractor never trusts the file to be well formed: recursion in form XObjects, "
        "oversized streams and missing fonts are limited or reported, never fatal.",
    ),
    ("H", "3. Speed"),
    (
        "P",
        "Table 1 compares the time needed to extract the text of the same pages with "
        "several extractors in one process. The pikepdf row is the tokenizer alone, which is "
        "the lower bound of any interpreter built on it.",
    ),
    ("TABLE", None),
    (
        "P",
        "The numbers are ratios within one run, not promises: a different machine changes "
        "every row, but rarely their order.",
    ),
    ("H", "4. Reading order"),
    (
        "P",
        "For each page the extractor records which mode produced its text. Structure order is "
        "used when the page is tagged and its tree covers most of the glyphs; otherwise the "
        "geometric fallback groups glyphs into lines, lines into blocks and blocks into "
        "columns. Chunks never cross from one column into another, so a retrieved passage "
        "reads as the author wrote it.",
    ),
    (
        "P",
        "Pages whose structure tree references only part of their content are treated with "
        "care. The glyphs that no element claims are counted, and when they are more than a "
        "quarter of the page the structure is not trusted and the geometric order is used "
        "instead. Running headers and page numbers that a tagged document marks as artifacts "
        "are left out of the text in every mode.",
    ),
    ("H", "5. Known limitations"),
    (
        "P",
        "Scanned pages without a text layer produce no text, since the extractor does not "
        "perform optical character recognition. Fonts without a ToUnicode map and without "
        "standard glyph names cannot always be decoded; each such glyph is counted and shown "
        "as a replacement character, so that the loss is visible rather than silent.",
    ),
    (
        "P",
        "Vertical Japanese text is read column by column from right to left. Mixed pages, "
        "where vertical columns sit next to horizontal captions, are read correctly only when "
        "the page is tagged.",
    ),
    ("H", "6. Next steps"),
    (
        "P",
        "The next refresh will add per-page warnings to the output, report the number of "
        "glyphs that could not be decoded, and compare chunk quality between extraction modes "
        "on a fixed sample of documents.",
    ),
]

TABLE_CAPTION = "Table 1. Time to extract the text of 1,756 pages in one process."
TABLE_HEADER = ("Extractor", "Seconds", "Relative")
TABLE_ROWS = [
    ("PyMuPDF", "9.3", "1.0"),
    ("pypdfium2", "9.7", "1.0"),
    ("pikepdf tokenizer", "14.7", "1.6"),
    ("PLAYA", "64", "6.9"),
    ("pypdf", "161", "17.3"),
    ("pdfminer.six", "250", "26.9"),
]

REPORT_BODY, REPORT_LEADING = 10.5, 14.0
REPORT_BOTTOM = 72.0


class ReportLayout:
    """Flows report blocks down single-column pages; each page is a list of operators."""

    def __init__(self, fonts: dict[str, str]) -> None:
        self.fonts = fonts
        self.width = PAGE_W - 2 * MARGIN
        self.pages: list[list[str]] = [[]]
        self.y = PAGE_H - MARGIN

    def ensure(self, height: float) -> None:
        """Start a new page unless ``height`` points still fit above the bottom margin."""
        if self.y - height < REPORT_BOTTOM:
            self.pages.append([])
            self.y = PAGE_H - MARGIN

    def text_at(self, x: float, y: float, font: str, size: float, text: str) -> None:
        self.pages[-1].append(text_op(self.fonts[font], size, x, y, tj_plain(text)))

    def title(self) -> None:
        self.text_at(MARGIN, self.y, BOLD, 18.0, REPORT_TITLE)
        self.text_at(MARGIN, self.y - 20, REGULAR, 11.0, REPORT_SUBTITLE)
        self.pages[-1].append(rule_op(self.y - 30, 0.8))
        self.y -= 56

    def heading(self, text: str) -> None:
        # Keep a heading with the first two lines of what follows it.
        self.ensure(12.0 + 2 * REPORT_LEADING + 8)
        self.text_at(MARGIN, self.y, BOLD, 12.0, text)
        self.y -= 12.0 + 8

    def paragraph(self, text: str) -> None:
        """A justified paragraph, continued on the next page when it does not fit."""
        lines = wrap(text, REGULAR, REPORT_BODY, self.width)
        start = 0
        while start < len(lines):
            self.ensure(REPORT_LEADING)
            room = int((self.y - REPORT_BOTTOM) // REPORT_LEADING) + 1
            part = lines[start : start + room]
            last = start + len(part) == len(lines)
            self.pages[-1].append(self.justified_text(part, last))
            self.y -= REPORT_LEADING * len(part)
            start += len(part)
        self.y -= 8

    def justified_text(self, lines: list[list[str]], ends_paragraph: bool) -> str:
        """One text object advancing with T*; word spacing Tw, which applies to
        byte 32 only (§9.3.3), stretches every line but a paragraph's last."""
        ops = [
            f"BT /{self.fonts[REGULAR]} {_num(REPORT_BODY)} Tf {_num(REPORT_LEADING)} TL",
            f"{_num(MARGIN)} {_num(self.y)} Td",
        ]
        for i, words in enumerate(lines):
            line = " ".join(words)
            slack = self.width - text_width(line, REGULAR, REPORT_BODY)
            natural = (ends_paragraph and i == len(lines) - 1) or len(words) < 2
            tw = 0.0 if natural else slack / (len(words) - 1)
            ops.append(f"{_num(tw)} Tw {tj_plain(line)}" + (" T*" if i < len(lines) - 1 else ""))
        ops.append("0 Tw ET")
        return "\n".join(ops)

    def table(self) -> None:
        row_h = 16.0
        self.ensure(row_h * (len(TABLE_ROWS) + 2) + 20)
        self.text_at(MARGIN, self.y, REGULAR, 9.5, TABLE_CAPTION)
        self.y -= 18
        # Column right edges for the numbers, which are right-aligned as in print.
        left, seconds_right, relative_right = MARGIN + 24, MARGIN + 300, MARGIN + 420
        self.pages[-1].append(rule_op(self.y + 12, 0.8))
        self.row(TABLE_HEADER, BOLD, left, seconds_right, relative_right)
        self.pages[-1].append(rule_op(self.y + row_h - 4, 0.4))
        for row in TABLE_ROWS:
            self.row(row, REGULAR, left, seconds_right, relative_right)
        self.pages[-1].append(rule_op(self.y + row_h - 4, 0.8))
        self.y -= 12

    def row(self, cells: tuple[str, str, str], font: str, left: float, *rights: float) -> None:
        size = 10.0
        self.text_at(left, self.y, font, size, cells[0])
        for text, right in zip(cells[1:], rights, strict=True):
            self.text_at(right - text_width(text, font, size), self.y, font, size, text)
        self.y -= 16.0


def build_untagged_report() -> bytes:
    b = PdfBuilder()
    fonts = {
        REGULAR: b.add_standard_font(REGULAR, widths=True),
        BOLD: b.add_standard_font(BOLD, widths=True),
    }
    layout = ReportLayout(fonts)
    layout.title()
    handlers: dict[str, Callable[[str], None]] = {"H": layout.heading, "P": layout.paragraph}
    for kind, text in REPORT_BLOCKS:
        if kind == "TABLE":
            layout.table()
        else:
            assert text is not None
            handlers[kind](text)
    total = len(layout.pages)
    for page_no, ops in enumerate(layout.pages, start=1):
        ops = ops + [footer(f"Page {page_no} of {total}", fonts[REGULAR], artifact=False)]
        b.add_page("\n".join(ops) + "\n")
    b.set_info(info(REPORT_TITLE))
    return b.to_bytes()


# --------------------------------------------------------------------------- CJK page

CJK_TITLE = "ＰＤＦからの文字抽出"
CJK_PARAGRAPH = (
    "ＰＤＦの文書から文字を正しく取り出すことは、見た目ほど簡単ではありません。"
    "ページの内容は描画命令の列として保存されていて、その順序が読む順序と一致するとは"
    "限らないからです。タグ付きＰＤＦでは、作成者が構造ツリーによって読む順序を示すことが"
    "できます。構造がない場合は、文字の位置から行や段組みを推定します。日本語の文書では、"
    "縦書きの段落や、基本多言語面の外にある「𠮷」のような文字にも注意が必要です。"
)
CJK_SUBHEADING = "縦書きの例"
# Vertical columns, read right to left (the first string is the rightmost column).
CJK_VERTICAL = ("縦書きでは文字を上から下へ読みます。", "列は右から左へと進みます。")

# Characters that must not start a line (a minimal kinsoku rule, JIS X 4051).
NO_LINE_START = "、。」）"


def wrap_cjk(text: str, per_line: int) -> list[str]:
    """Break ``text`` every ``per_line`` characters, hanging closing punctuation."""
    lines: list[str] = []
    current = ""
    for ch in text:
        if len(current) >= per_line and ch not in NO_LINE_START:
            lines.append(current)
            current = ""
        current += ch
    if current:
        lines.append(current)
    return lines


def build_cjk_page() -> bytes:
    b = PdfBuilder()
    horizontal_text = CJK_TITLE + CJK_PARAGRAPH + CJK_SUBHEADING
    h_font, h_encode = b.add_cid_font(horizontal_text, base_font="FixtureMincho")
    v_font, v_encode = b.add_cid_font(
        "".join(CJK_VERTICAL), vertical=True, base_font="FixtureMincho"
    )
    width = PAGE_W - 2 * MARGIN
    body_size, leading = 10.5, 18.0
    ops = [text_op(h_font, 16, MARGIN, PAGE_H - MARGIN, f"{hexstr(h_encode(CJK_TITLE))} Tj")]
    y = PAGE_H - MARGIN - 36
    per_line = int(width // body_size)  # every glyph advances 1 em (/DW 1000)
    for line in wrap_cjk(CJK_PARAGRAPH, per_line):
        ops.append(text_op(h_font, body_size, MARGIN, y, f"{hexstr(h_encode(line))} Tj"))
        y -= leading
    y -= 18
    ops.append(text_op(h_font, 12, MARGIN, y, f"{hexstr(h_encode(CJK_SUBHEADING))} Tj"))
    # Vertical writing (§9.7.4.3): the origin is the top centre of each glyph and
    # the pen moves down by 1 em, so a column is placed by its centre line.
    v_size, column_pitch = 12.0, 24.0
    top = y - 24
    right = MARGIN + 2 * column_pitch
    for i, column in enumerate(CJK_VERTICAL):
        x = right - i * column_pitch
        ops.append(text_op(v_font, v_size, x, top, f"{hexstr(v_encode(column))} Tj"))
    b.add_page("\n".join(ops) + "\n")
    b.pdf.Root.Lang = pikepdf.String("ja")
    b.set_info(info(CJK_TITLE))
    return b.to_bytes()


# --------------------------------------------------------------------------- entry point

SAMPLES: dict[str, Callable[[], bytes]] = {
    "tagged-two-column-article.pdf": build_tagged_article,
    "untagged-report.pdf": build_untagged_report,
    "cjk-page.pdf": build_cjk_page,
}


def build_samples() -> dict[str, bytes]:
    """File name -> bytes of every bundled sample."""
    return {name: build() for name, build in SAMPLES.items()}


def write_samples(outdir: Path) -> list[Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in build_samples().items():
        path = outdir / name
        path.write_bytes(data)
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    outdir = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTDIR
    for path in write_samples(outdir):
        print(f"{path}  {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
