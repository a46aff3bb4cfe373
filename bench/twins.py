"""Scrambled twins: a page painted in another order, showing the same thing (issue 19).

A geometric reading order must not depend on the order a producer paints its text in.
To measure that, a twin of a PDF keeps every page's look and changes only the order of
its text in the content stream:

- The structure tree, the /MarkInfo flag and every marked-content operator (BDC, BMC,
  EMC, MP, DP) are removed: the twin is an untagged file, read by geometry alone.
- The text objects of the page stream are cut into *pieces*: a piece runs from one text
  positioning operator (Td, TD, Tm, T*, ', ") to the next, or to ET. Td moves relative to
  the line matrix, which the builder tracks exactly (§9.4.2), so every piece can be
  repainted on its own as ``q <state> BT <Tlm> Tm <its operators> ET Q``: ``<state>``
  replays the graphics and text state it was painted in (the cm, clip, colour, gs and
  text state operators of the enclosing q levels, §8.4, §9.3), so it shows the same
  glyphs in the same place.
- Everything else (paths, images, XObjects) is painted first, in its original order,
  with the text objects taken out; then the pieces, in the twin's order.

Orders (``ORDERS``): ``plain`` (the original order: checks the builder itself),
``reversed``, ``interleaved`` (top to bottom across the page: the lines of side-by-side
columns alternate), ``shuffled`` (seeded), ``furniture_first`` (the top and bottom bands
and small print first: headers, footers, footnotes), ``columns_first`` (left to right,
each x position top to bottom: a table column by column).

``render_difference`` renders a page of the original and of the twin with pypdfium2 (the
``bench`` extra) and returns the share of pixels that differ visibly: a twin is used only
when it shows what its original shows. (tests/extract/test_layout_twins.py checks the same
without a renderer: the twin's glyph table holds the same glyphs at the same places.)

    python bench/twins.py FILE.pdf OUTDIR        # writes one twin per order, checks renders
"""

from __future__ import annotations

import io
import random
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pikepdf
from pikepdf import ContentStreamInstruction, Operator

from ragprep.extract.geometry import IDENTITY, Matrix, multiply

# Operators that set graphics or text state (§8.4.4, §9.3.1): replayed before a piece.
_STATE = frozenset(
    ["w", "J", "j", "M", "d", "ri", "i", "gs", "CS", "cs", "SC", "SCN", "sc", "scn"]
    + ["G", "g", "RG", "rg", "K", "k", "Tc", "Tw", "Tz", "TL", "Tf", "Tr", "Ts"]
)
# Of those, the ones whose last value is all that counts within one q level.
_REPLACED = frozenset(["w", "J", "j", "M", "d", "ri", "i", "Tc", "Tw", "Tz", "TL", "Tf", "Tr", "Ts"])
_FILL_COLOUR = frozenset(["cs", "sc", "scn", "g", "rg", "k"])
_STROKE_COLOUR = frozenset(["CS", "SC", "SCN", "G", "RG", "K"])
_PATH = frozenset(["m", "l", "c", "v", "y", "h", "re"])
_PAINT = frozenset(["n", "S", "s", "f", "F", "f*", "B", "B*", "b", "b*"])
_CLIP = frozenset(("W", "W*"))
_MARKED = frozenset(["BDC", "BMC", "EMC", "MP", "DP", "BX", "EX"])
_POSITION = frozenset(("Td", "TD", "Tm", "T*", "'", '"'))
_SHOW = frozenset(("Tj", "TJ", "'", '"'))


def _numbers(operands: Iterable[object]) -> list[float]:
    return [float(v) for v in operands]  # type: ignore[arg-type]


def _op(name: str, *operands: object) -> ContentStreamInstruction:
    return ContentStreamInstruction(list(operands), Operator(name))


@dataclass(frozen=True)
class Piece:
    """One run of text operators and the state it needs to be painted alone."""

    state: tuple[ContentStreamInstruction, ...]  # q-level state, outermost first
    line_matrix: Matrix  # Tlm at the piece's start
    ops: tuple[ContentStreamInstruction, ...]  # its operators, the positioning one resolved
    x: float  # the piece's start in user space
    y: float
    size: float  # the font size in user space (Tf size x the scale of Tlm x CTM)

    def instructions(self) -> list[ContentStreamInstruction]:
        return [_op("q"), *self.state, _op("BT"), _op("Tm", *self.line_matrix), *self.ops, _op("ET"), _op("Q")]


class _Level:
    """The state operators of one q level, each kind kept once (its last value)."""

    def __init__(self, parent: "_Level | None" = None) -> None:
        self.entries: list[tuple[str, list[ContentStreamInstruction]]] = []
        self.ctm: Matrix = parent.ctm if parent else IDENTITY
        self.font_size = parent.font_size if parent else 0.0
        self.leading = parent.leading if parent else 0.0

    def add(self, instruction: ContentStreamInstruction) -> None:
        name = str(instruction.operator)
        if name in _REPLACED:
            key = name
        elif name in _FILL_COLOUR:
            key = "fill"
        elif name in _STROKE_COLOUR:
            key = "stroke"
        else:  # cm and gs accumulate
            self.entries.append((name, [instruction]))
            if name == "cm":
                self.ctm = multiply(tuple(_numbers(instruction.operands)), self.ctm)  # type: ignore[arg-type]
            return
        if name == "Tf":
            self.font_size = float(instruction.operands[1])
        elif name == "TL":
            self.leading = float(instruction.operands[0])
        if key in ("fill", "stroke") and name in ("sc", "scn", "SC", "SCN"):
            # A colour after its space: keep the space that precedes it.
            for i in range(len(self.entries) - 1, -1, -1):
                if self.entries[i][0] == key:
                    self.entries[i][1].append(instruction)
                    return
        self.entries = [e for e in self.entries if e[0] != key]
        self.entries.append((key, [instruction]))

    def clip(self, path: list[ContentStreamInstruction]) -> None:
        self.entries.append(("clip", path))


class _Reader:
    """Walks one page's instructions: background out, pieces collected."""

    def __init__(self) -> None:
        self.levels = [_Level()]
        self.background: list[object] = []
        self.pieces: list[Piece] = []
        self.path: list[ContentStreamInstruction] = []
        self.clipping: list[ContentStreamInstruction] | None = None
        self.in_text = False
        self.tlm: Matrix = IDENTITY
        self.current: list[ContentStreamInstruction] | None = None
        self.start: tuple[tuple[ContentStreamInstruction, ...], Matrix] | None = None

    @property
    def level(self) -> _Level:
        return self.levels[-1]

    def state(self) -> tuple[ContentStreamInstruction, ...]:
        return tuple(i for level in self.levels for _, group in level.entries for i in group)

    def feed(self, instruction: object) -> None:
        if not isinstance(instruction, ContentStreamInstruction):
            self.background.append(instruction)  # an inline image
            return
        name = str(instruction.operator)
        if name in _MARKED:
            return
        if self.in_text:
            self._text(instruction, name)
        elif name == "BT":
            self.in_text, self.tlm = True, IDENTITY
            self._begin_piece(None)
        else:
            self._graphics(instruction, name)

    def _graphics(self, instruction: ContentStreamInstruction, name: str) -> None:
        self.background.append(instruction)
        if name == "q":
            self.levels.append(_Level(self.level))
        elif name == "Q" and len(self.levels) > 1:
            self.levels.pop()
        elif name in _STATE or name == "cm":
            self.level.add(instruction)
        elif name in _PATH:
            self.path.append(instruction)
        elif name in _CLIP:
            self.clipping = [*self.path, instruction]
        elif name in _PAINT:
            if self.clipping is not None:
                self.level.clip([*self.clipping, _op("n")])
            self.path, self.clipping = [], None

    def _text(self, instruction: ContentStreamInstruction, name: str) -> None:
        if name == "ET":
            self._end_piece()
            self.in_text = False
            return
        if name in _POSITION:
            self._end_piece()
            self._move(instruction, name)
            self._begin_piece(instruction)
            return
        if name in _STATE:
            # Text and colour state set inside BT holds after ET (§9.3.1): later pieces
            # and the background need it too.
            self.level.add(instruction)
            self.background.append(instruction)
        if self.current is not None:
            self.current.append(instruction)

    def _move(self, instruction: ContentStreamInstruction, name: str) -> None:
        values = _numbers(instruction.operands) if name in ("Td", "TD", "Tm") else []
        if name == "TD":
            self.level.leading = -values[1]
        if name in ("Td", "TD"):
            self.tlm = multiply((1.0, 0.0, 0.0, 1.0, values[0], values[1]), self.tlm)
        elif name == "Tm":
            self.tlm = tuple(values)  # type: ignore[assignment]
        else:  # T*, ' and " move to the next line
            self.tlm = multiply((1.0, 0.0, 0.0, 1.0, 0.0, -self.level.leading), self.tlm)

    def _begin_piece(self, positioning: ContentStreamInstruction | None) -> None:
        self.current = []
        self.start = (self.state(), self.tlm)
        if positioning is None:
            return
        name = str(positioning.operator)
        if name == "'":
            self.current.append(_op("Tj", positioning.operands[0]))
        elif name == '"':
            aw, ac, string = positioning.operands
            self.current += [_op("Tw", aw), _op("Tc", ac), _op("Tj", string)]
            # Tw and Tc set by " hold for what follows.
            self.level.add(_op("Tw", aw))
            self.level.add(_op("Tc", ac))

    def _end_piece(self) -> None:
        ops, start = self.current, self.start
        self.current = None
        if not ops or start is None or not any(str(i.operator) in _SHOW for i in ops):
            return
        state, tlm = start
        a, b, c, d, e, f = multiply(tlm, self.level.ctm)
        scale = (abs(a * d - b * c)) ** 0.5
        self.pieces.append(Piece(state, tlm, tuple(ops), e, f, self.level.font_size * scale))


def page_pieces(page: pikepdf.Page) -> tuple[list[object], list[Piece]]:
    """The page's background (its instructions with the text objects and marked content
    taken out) and its text pieces in paint order."""
    reader = _Reader()
    for instruction in pikepdf.parse_content_stream(page):
        reader.feed(instruction)
    return reader.background, reader.pieces


# ----------------------------------------------------------------------------- orders

Order = Callable[[list[Piece], tuple[float, float, float, float]], list[Piece]]


def _reversed(pieces: list[Piece], box: tuple[float, float, float, float]) -> list[Piece]:
    return pieces[::-1]


def _interleaved(pieces: list[Piece], box: tuple[float, float, float, float]) -> list[Piece]:
    # Top to bottom across the whole page, left to right on a baseline: side-by-side
    # columns come out line by line, alternately.
    return sorted(pieces, key=lambda p: (-round(p.y, 1), p.x))


def _shuffled(pieces: list[Piece], box: tuple[float, float, float, float]) -> list[Piece]:
    shuffled = list(pieces)
    random.Random(19).shuffle(shuffled)
    return shuffled


def _furniture_first(pieces: list[Piece], box: tuple[float, float, float, float]) -> list[Piece]:
    # Headers and footers (the top and bottom tenth of the page) and small print
    # (footnotes, captions: under 85% of the median size), then the rest.
    _, y0, _, y1 = box
    band = 0.1 * (y1 - y0)
    sizes = sorted(p.size for p in pieces)
    small = 0.85 * sizes[len(sizes) // 2] if sizes else 0.0
    first = [p for p in pieces if p.y > y1 - band or p.y < y0 + band or p.size < small]
    return first + [p for p in pieces if all(p is not f for f in first)]


def _columns_first(pieces: list[Piece], box: tuple[float, float, float, float]) -> list[Piece]:
    # Left to right, each x position top to bottom: a table painted column by column.
    return sorted(pieces, key=lambda p: (round(p.x), -p.y))


ORDERS: dict[str, Order] = {
    "plain": lambda pieces, box: list(pieces),
    "reversed": _reversed,
    "interleaved": _interleaved,
    "shuffled": _shuffled,
    "furniture_first": _furniture_first,
    "columns_first": _columns_first,
}
SCRAMBLES = tuple(name for name in ORDERS if name != "plain")


def _untag(pdf: pikepdf.Pdf) -> None:
    """No structure tree, no claim to be tagged: layout is all a reader can use."""
    for key in ("/StructTreeRoot", "/MarkInfo"):
        if key in pdf.Root:
            del pdf.Root[key]
    for page in pdf.pages:
        if "/StructParents" in page.obj:
            del page.obj["/StructParents"]


def make_twin(source: Path | bytes, order: str) -> bytes:
    """The PDF `source` with its structure removed and every page's text repainted in
    `order` (a key of ORDERS)."""
    arrange = ORDERS[order]
    data = source.read_bytes() if isinstance(source, Path) else source
    with pikepdf.open(io.BytesIO(data)) as pdf:
        _untag(pdf)
        for page in pdf.pages:
            background, pieces = page_pieces(page)
            box = tuple(float(v) for v in page.mediabox)
            # The background in a q ... Q of its own: a cm it sets at the outer level
            # must not act on the pieces, which replay their own.
            instructions: list[object] = [_op("q"), *background]
            # The background may end inside q levels it never closes; text goes outside them.
            depth = sum(
                1 if str(i.operator) == "q" else -1 if str(i.operator) == "Q" else 0
                for i in background
                if isinstance(i, ContentStreamInstruction)
            )
            instructions += [_op("Q")] * (max(depth, 0) + 1)
            for piece in arrange(pieces, box):  # type: ignore[arg-type]
                instructions += piece.instructions()
            page.obj.Contents = pdf.make_stream(pikepdf.unparse_content_stream(instructions))
        out = io.BytesIO()
        pdf.save(out, deterministic_id=True)
        return out.getvalue()


def render(data: bytes, page: int, scale: float = 0.5) -> "np.ndarray":
    """Page `page` (1-based) of the PDF `data` rendered by pypdfium2 at `scale` x 72 dpi."""
    import numpy as np
    import pypdfium2

    doc = pypdfium2.PdfDocument(data)
    try:
        return np.asarray(doc[page - 1].render(scale=scale).to_numpy(), dtype=np.int16).copy()
    finally:
        doc.close()


def pixel_difference(a: "np.ndarray", b: "np.ndarray") -> float:
    """Share of pixels of `a` that differ by more than a quarter of the range in some
    channel from every pixel of `b` within one pixel of its place. A glyph repainted
    alone from its own text matrix may land a hundredth of a point off (the matrix
    written back in decimals), which moves anti-aliased edges by a pixel's fraction
    (Word's justified text: 0.3% of a page's pixels); a glyph missing, moved or in
    another font differs over whole pixels and still counts."""
    import numpy as np

    if a.shape != b.shape:
        return 1.0
    padded = np.pad(b, ((1, 1), (1, 1), (0, 0)), mode="edge")
    height, width = a.shape[:2]
    nearest = np.full(a.shape[:2], np.iinfo(np.int16).max, dtype=np.int16)
    for dy in range(3):
        for dx in range(3):
            shifted = padded[dy : dy + height, dx : dx + width]
            np.minimum(nearest, np.abs(a - shifted).max(axis=-1), out=nearest)
    return float((nearest > 64).mean())


def render_difference(original: bytes, twin: bytes, page: int, scale: float = 0.5) -> float:
    """pixel_difference of page `page` of the two PDFs."""
    return pixel_difference(render(original, page, scale), render(twin, page, scale))


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python bench/twins.py FILE.pdf OUTDIR", file=sys.stderr)
        return 2
    source, out = Path(argv[0]), Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    original = source.read_bytes()
    with pikepdf.open(source) as pdf:
        pages = len(pdf.pages)
    for order in ORDERS:
        twin = make_twin(original, order)
        target = out / f"{source.stem}.{order}.pdf"
        target.write_bytes(twin)
        worst = max(render_difference(original, twin, n) for n in range(1, pages + 1))
        print(f"{target}: worst page differs on {worst:.4%} of pixels")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
