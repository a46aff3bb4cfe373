"""Content-stream interpreter: a page's operators in, its glyph table out.

Only the operators that can move, select or mark text are tokenized
(pikepdf's tokenizer is the floor of our speed; see DESIGN.md):

    BT ET                     text object: Tm = Tlm = identity            §9.4.1
    Tf Tc Tw Tz TL Ts Tr      text state                                  §9.3
    Td TD Tm T*               text positioning                            §9.4.2
    Tj TJ ' "                 text showing                                §9.4.3
    cm q Q                    CTM and the graphics state stack; q/Q save
                              the whole text state too                    §8.4.2
    Do                        form XObjects: /Matrix x CTM, /BBox clip    §8.10.1
    BDC BMC EMC               marked content: MCID, /Artifact, /ActualText §14.6

Each handler receives the pikepdf instruction and reads only what it needs
(``instruction.operands`` converts every operand, reals to Decimal; cm and Tm
parse their numbers from the unparsed instruction instead, see
``_instruction_matrix``).

Per show operator the interpreter does a handful of Python steps and records
the operator's frame (origin and the two axis vectors in user space, the text
state) plus its strings:

- simple fonts (one byte per code, ``SingleByteFont``): the bytes themselves;
  the string's advance comes from a per-font cache, and texts and widths are
  looked up for the whole page at once in ``_GlyphAccumulator.finish``;
- other fonts: ``Font.decode`` (cached), which splits the codes and maps them.

All per-glyph geometry is computed once per page, column-wise, in
``_GlyphAccumulator.finish``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import chain
from typing import Any, Callable, Protocol, cast

import numpy as np
import pikepdf

from ragprep.extract.config import ExtractConfig
from ragprep.extract.errors import describe
from ragprep.extract.fonts import Font, FontLoader, SingleByteFont
from ragprep.extract.fonts.base import DecodedString
from ragprep.extract.fonts.composite import CompositeFont
from ragprep.extract.geometry import IDENTITY, Matrix, multiply
from ragprep.extract.geometry import intersect as _intersect
from ragprep.extract.glyphs import NO_MCID, PAGE_STREAM, GlyphTable, ImagePlacement
from ragprep.extract.pagebox import inherited as _inherited
from ragprep.extract.pagebox import normalized_box
from ragprep.extract.pagebox import visible_box as page_visible_box
from ragprep.extract.paths import FILL, STROKE, PathRecorder, PathTable
from ragprep.extract.operators import SLICE_OPERATORS, Slice, count_operators, slices
from ragprep.extract.streams import StreamDecodeError, StreamLimitError, read_stream
from ragprep.extract.warning import PageWarning, WarningCounter, WarningKind

TEXT_OPERATORS = "BT ET Tf Tc Tw Tz TL Ts Tr Td TD Tm T* Tj TJ ' \" cm q Q Do BDC BMC EMC"
# Path construction and painting (§8.5.2-3): recorded for table rules (extract/paths.py).
PATH_OPERATORS = "m l c v y h re S s f F f* B B* b b* n"
_INTERPRETED_OPERATORS = f"{TEXT_OPERATORS} {PATH_OPERATORS}"
# Bytes of streams held back uncounted per page, at most (see _run_stream).
_DEFERRED_BYTES = 16 * 1024 * 1024
# Operands each of them takes (§8.2 Table 50 and the sections above).
_ARITY = {
    "BT": 0, "ET": 0, "Tf": 2, "Tc": 1, "Tw": 1, "Tz": 1, "TL": 1, "Ts": 1, "Tr": 1,
    "Td": 2, "TD": 2, "Tm": 6, "T*": 0, "Tj": 1, "TJ": 1, "'": 1, '"': 3,
    "cm": 6, "q": 0, "Q": 0, "Do": 1, "BDC": 2, "BMC": 1, "EMC": 0,
    "m": 2, "l": 2, "c": 6, "v": 4, "y": 4, "h": 0, "re": 4,
    "S": 0, "s": 0, "f": 0, "F": 0, "f*": 0, "B": 0, "B*": 0, "b": 0, "b*": 0, "n": 0,
}  # fmt: skip

# One operator with its operands, as pikepdf's tokenizer hands it over.
Instruction = pikepdf.ContentStreamInstruction
# How pikepdf hands over numeric operands (integers, and reals as Decimal); its
# stubs call every item of an array an Object.
_NUMBER_TYPES: tuple[type, ...] = (int, Decimal)


class Operands(Protocol):
    """An operator's operands: pikepdf's list of objects (which is no
    Sequence to the type checker), or a plain list."""

    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __getitem__(self, index: Any, /) -> Any: ...  # an int or a slice


def _shown(operand: object) -> bytes:
    """The bytes of a string that Tj, ', " or TJ shows (§9.4.3). Anything else
    fails the operator: bytes() would turn the 5 of a damaged `5 Tj` into
    five NUL codes, a name into its spelling, an array into nothing."""
    if not isinstance(operand, pikepdf.String):
        raise TypeError(f"a string to show is needed, not {_kind(operand)}")
    return bytes(operand)


def _array(operand: object) -> pikepdf.Array:
    """TJ's operand: an array of strings and numbers (§9.4.3)."""
    if not isinstance(operand, pikepdf.Array):
        raise TypeError(f"TJ needs an array, not {_kind(operand)}")
    return operand


def _name(operand: object) -> str:
    """A name operand as its spelling (Tf's font, §9.3.1)."""
    if not isinstance(operand, pikepdf.Name):
        raise TypeError(f"a name is needed, not {_kind(operand)}")
    return str(operand)


def _kind(operand: object) -> str:
    """An operand as a warning shows it."""
    return "null" if operand is None else repr(operand)[:40]
NO_CLIP = (-np.inf, -np.inf, np.inf, np.inf)


def _translate(tx: float, ty: float, m: Matrix) -> Matrix:
    """[1 0 0 1 tx ty] x m, the text-matrix update of Td and of glyph advances."""
    a, b, c, d, e, f = m
    return (a, b, c, d, tx * a + ty * c + e, tx * b + ty * d + f)


def _matrix(operands: Operands) -> Matrix:
    values = tuple(map(float, operands[:6]))
    if len(values) != 6:
        raise ValueError("a matrix needs six numbers")
    return values


def _instruction_matrix(instruction: Instruction) -> Matrix:
    """The six numbers of a cm or Tm instruction.

    Read from the instruction's text: pikepdf hands numeric operands over one
    by one as Decimal (reals), and six of them cost four times more than
    unparsing the instruction and parsing six floats, on two of the most
    frequent operators. Both routes give the same floats (the same decimal
    text, correctly rounded); anything but six finite numbers takes the
    operand route, which raises what it always raised.
    """
    tokens = pikepdf.unparse_content_stream((instruction,)).split()
    if len(tokens) == 7:
        try:
            a, b, c, d, e, f = (
                float(tokens[0]), float(tokens[1]), float(tokens[2]),
                float(tokens[3]), float(tokens[4]), float(tokens[5]),
            )  # fmt: skip
        except ValueError:  # a name, string or array among the operands
            pass
        else:
            if math.isfinite(a + b + c + d + e + f):
                return a, b, c, d, e, f
    return _matrix(instruction.operands)


def _transform_box(box: tuple[float, float, float, float], m: Matrix) -> tuple[float, float, float, float]:
    """Axis-aligned bounds of a rectangle after transforming its corners."""
    x0, y0, x1, y1 = box
    a, b, c, d, e, f = m
    xs = [x * a + y * c + e for x in (x0, x1) for y in (y0, y1)]
    ys = [x * b + y * d + f for x in (x0, x1) for y in (y0, y1)]
    return min(xs), min(ys), max(xs), max(ys)


@dataclass(slots=True)
class _GraphicsState:
    """The part of the graphics state that affects text (§8.4.1, §9.3.1)."""

    ctm: Matrix = IDENTITY
    font: Font | None = None
    font_index: int = -1
    size: float = 0.0  # Tfs
    char_spacing: float = 0.0  # Tc
    word_spacing: float = 0.0  # Tw
    scale: float = 1.0  # Th = Tz / 100
    leading: float = 0.0  # TL
    render_mode: int = 0  # Tr
    rise: float = 0.0  # Ts

    def copy(self) -> "_GraphicsState":
        # Hand-written: dataclasses.replace is several times slower, and q is frequent.
        return _GraphicsState(
            self.ctm, self.font, self.font_index, self.size, self.char_spacing,
            self.word_spacing, self.scale, self.leading, self.render_mode, self.rise,
        )  # fmt: skip


@dataclass(slots=True, frozen=True)
class _MarkedContent:
    """One open BMC/BDC sequence, with what it passes on to its glyphs."""

    mcid: int  # innermost MCID including enclosing sequences
    mcid_stream: int
    artifact: bool
    actual_text: str | None
    first_glyph: int


@dataclass(slots=True, frozen=True)
class _StreamContext:
    """Where operators come from: the page or a form XObject, with its resources."""

    resources: pikepdf.Object | None
    resources_key: object  # identifies `resources` for caches (objgen, or id of a direct object)
    stream_id: int  # PAGE_STREAM or the form's object number
    clip: tuple[float, float, float, float]
    marked_depth: int  # marked-content stack depth when the stream started


@dataclass(slots=True, frozen=True)
class _Form:
    """A form XObject that a Do paints: what both interpreters need to run it."""

    key: tuple[int, int]  # objgen, for cycle detection; key[0] is its stream id
    data: bytes
    matrix: Matrix
    bbox: tuple[float, float, float, float] | None
    resources: pikepdf.Object | None


class _OperatorLimitReached(Exception):
    pass


# Columns of the per-operator frame record (see PageInterpreter._record).
_OX, _OY, _AX, _AY, _BX, _BY, _LO, _HI = range(8)
_WMODE, _MCID, _MCID_STREAM, _STREAM, _TOKEN, _RENDER, _ARTIFACT = range(8, 15)
_CX0, _CY0, _CX1, _CY1, _FONT, _COUNT = range(15, 21)
_SIZE, _CHAR_SPACING, _WORD_SPACING, _SCALE = range(21, 25)
# 1.0 when the operator's glyphs are bytes of a single-byte font (decoded in
# finish from the font's code tables), 0.0 when they are DecodedStrings, 2.0
# when they are codes of a two-byte composite font that the compiled core kept.
_BY_CODE = 25


@dataclass(frozen=True)
class NativeFrames:
    """A page's show frames as the compiled core keeps them (compiled.py):
    they never become a numpy table, so a page's frames and its glyph table
    are not both whole in memory at once."""

    kinds: np.ndarray  # uint8 per glyph: its frame's _BY_CODE
    fonts: np.ndarray  # int32 per glyph: its frame's _FONT
    # Fills the glyph table's columns from the frames, freeing them as it goes (once).
    geometry: Callable[..., None]


class _GlyphAccumulator:
    """Collects the strings of every show operator and positions every glyph of
    the page at once.

    Per show operator only references are stored: the operator's frame (text
    state and the user-space axes of its text line) and its strings, plus the
    TJ adjustments before pieces. Strings of single-byte fonts are kept as
    bytes and decoded for the whole page at once from the fonts' code tables;
    other fonts' strings arrive decoded. ``finish`` computes each glyph's
    offset along its line with one cumulative sum over the page (§9.4.4)::

        horizontal  advance = (w0 * Tfs + Tc + Tw) * Th     own = w0 * Tfs * Th
        vertical    advance = -(w1 * Tfs + Tc + Tw)         own = -w1 * Tfs

    ("along" grows downward for vertical text, so w1 < 0 gives a positive advance).
    """

    def __init__(self) -> None:
        self.frames: list[tuple[float, ...]] = []
        # Glyphs of frames with _BY_CODE 1.0, one per byte, in show order.
        self.byte_strings: list[bytes] = []
        # Glyphs of the other frames, in show order.
        self.strings: list[DecodedString] = []
        # (glyph index, along-offset) of each TJ adjustment before a piece.
        self.adjustments: list[tuple[int, float]] = []
        # The same as two arrays, when the compiled core filled them.
        self.adjustment_columns: tuple[np.ndarray, np.ndarray] | None = None
        # uint16 codes of two-byte composite fonts, when the compiled core kept them.
        self.two_byte_codes = b""
        # The compiled core's frames, when it runs the page (see _finish_native).
        self.native: NativeFrames | None = None
        self.count = 0
        # (first glyph, end glyph, text) per /ActualText span (§14.9.4).
        self.actual_text_spans: list[tuple[int, int, str]] = []

    def finish(self, visible_box: tuple[float, float, float, float], fonts: list[Font]) -> GlyphTable:
        """The page's glyph table; `fonts` are the page's fonts by frame _FONT index."""
        names = tuple(font.name for font in fonts)
        if not self.count:
            return GlyphTable.empty(names)
        if self.native is not None:
            return self._finish_native(visible_box, fonts, names)
        # Frame fields as rows, each repeated once per glyph: every per-glyph
        # quantity below is a contiguous 1-D array (x and y apart), which numpy
        # handles faster than strided columns of an (n, fields) table.
        frames = np.asarray(self.frames, dtype=np.float64).T
        counts = frames[_COUNT].astype(np.int64)
        per_glyph = np.repeat(frames, counts, axis=1)
        widths, vertical_widths, word_space, undecodable, texts = self._decode(
            per_glyph[_BY_CODE], per_glyph[_FONT], fonts
        )
        along = _along_offsets(per_glyph, counts, widths, vertical_widths, word_space, self._adjustments_before())
        origin_x, origin_y, own_end_x, own_end_y, pen_end_x, pen_end_y = _line_points(per_glyph, *along)
        # /ActualText: the span's first glyph carries the replacement and
        # stretches to the span's end; the other glyphs keep their geometry
        # but no text. Inner spans close first, so outer spans win (§14.9.4).
        self._apply_actual_text(texts, undecodable)
        for first, end, _ in self.actual_text_spans:
            for column in (own_end_x, own_end_y, pen_end_x, pen_end_y):
                column[first] = column[end - 1]
        quad, centre_x, centre_y = _quad(per_glyph, origin_x, origin_y, own_end_x, own_end_y)
        direction_x, direction_y, b_len = _direction(per_glyph)

        def points(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            return np.stack([x, y], axis=1)

        return GlyphTable(
            text=texts,
            origin=points(origin_x, origin_y),
            own_end=points(own_end_x, own_end_y),
            pen_end=points(pen_end_x, pen_end_y),
            direction=points(direction_x, direction_y),
            quad=quad,
            height=np.abs(per_glyph[_HI] - per_glyph[_LO]) * b_len,
            mcid=per_glyph[_MCID].astype(np.int64),
            mcid_stream=per_glyph[_MCID_STREAM].astype(np.int64),
            stream=per_glyph[_STREAM].astype(np.int64),
            token_index=per_glyph[_TOKEN].astype(np.int64),
            render_mode=per_glyph[_RENDER].astype(np.int8),
            wmode=per_glyph[_WMODE].astype(np.int8),
            artifact=per_glyph[_ARTIFACT].astype(bool),
            undecodable=undecodable,
            visible=_visible(per_glyph, centre_x, centre_y, visible_box),
            font=per_glyph[_FONT].astype(np.int32),
            fonts=names,
            font_size=np.abs(per_glyph[_SIZE]) * b_len,
        )

    def _adjustments_before(self) -> np.ndarray:
        """Per glyph, the TJ adjustments that move the pen before it (§9.4.3)."""
        before = np.zeros(self.count)
        index, offset = self.adjustment_arrays()
        if len(index):
            np.add.at(before, index, offset)
        return before

    def _apply_actual_text(self, texts: np.ndarray, undecodable: np.ndarray) -> None:
        for first, end, replacement in self.actual_text_spans:
            texts[first] = replacement
            texts[first + 1 : end] = ""
            undecodable[first:end] = False

    def _finish_native(
        self, visible_box: tuple[float, float, float, float], fonts: list[Font], names: tuple[str, ...]
    ) -> GlyphTable:
        """finish() with the per-glyph geometry computed by the compiled core
        (the same operations, per glyph, without per-glyph frame copies)."""
        native = self.native
        assert native is not None
        widths, vertical_widths, word_space, undecodable, texts = self._decode(native.kinds, native.fonts, fonts)
        self._apply_actual_text(texts, undecodable)
        n = self.count
        spans = np.array([span[:2] for span in self.actual_text_spans], dtype=np.int64).reshape(-1, 2)
        index, offset = self.adjustment_arrays()
        columns = {
            "origin": np.empty((n, 2)), "own_end": np.empty((n, 2)), "pen_end": np.empty((n, 2)),
            "direction": np.empty((n, 2)), "quad": np.empty((n, 4, 2)), "height": np.empty(n),
            "font_size": np.empty(n), "visible": np.empty(n, dtype=bool),
            "mcid": np.empty(n, dtype=np.int64), "mcid_stream": np.empty(n, dtype=np.int64),
            "stream": np.empty(n, dtype=np.int64), "token_index": np.empty(n, dtype=np.int64),
            "render_mode": np.empty(n, dtype=np.int8), "wmode": np.empty(n, dtype=np.int8),
            "artifact": np.empty(n, dtype=bool), "font": np.empty(n, dtype=np.int32),
        }  # fmt: skip
        native.geometry(
            widths, vertical_widths, word_space,
            np.ascontiguousarray(index, dtype=np.int64), np.ascontiguousarray(offset, dtype=np.float64),
            np.ascontiguousarray(spans[:, 0]), np.ascontiguousarray(spans[:, 1]),
            tuple(map(float, visible_box)), *columns.values(),
        )  # fmt: skip
        return GlyphTable(text=texts, undecodable=undecodable, fonts=names, **columns)

    def adjustment_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(glyph index, along-offset) of the TJ adjustments as arrays."""
        if self.adjustment_columns is not None:
            return self.adjustment_columns
        if not self.adjustments:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        index, offset = zip(*self.adjustments, strict=True)
        return np.array(index, dtype=np.int64), np.array(offset)

    def _decode(
        self, kind: np.ndarray, font_index: np.ndarray, fonts: list[Font]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per glyph: w0, w1, word-space flag, undecodable flag and text.

        `kind` is each glyph's frame _BY_CODE. Bytes of single-byte fonts
        (1.0) are looked up in one fancy-indexing step per column, in tables
        stacked over the page's fonts (row = font index); decoded strings
        (0.0) are concatenated; codes of two-byte composite fonts that the
        compiled core kept (2.0) are looked up in the font's columns, each
        code decoded once per document. Each kind fills its own rows.
        """
        by_code = kind == 1.0
        count = self.count
        if self.byte_strings and not self.strings and not self.two_byte_codes:
            # Every glyph by code (pages of simple fonts): the lookups are the columns.
            return self._by_code(font_index, fonts)
        widths = np.zeros(count)
        vertical_widths = np.zeros(count)
        word_space = np.zeros(count, dtype=bool)
        undecodable = np.zeros(count, dtype=bool)
        texts = np.empty(count, dtype=object)
        if self.byte_strings:
            widths[by_code], _, word_space[by_code], undecodable[by_code], texts[by_code] = self._by_code(
                font_index[by_code], fonts
            )
        strings = self.strings
        if strings:
            decoded = kind == 0.0
            widths[decoded] = np.concatenate([d.widths for d in strings])
            vertical_widths[decoded] = np.concatenate([d.vertical_widths for d in strings])
            word_space[decoded] = np.concatenate([d.word_space for d in strings])
            undecodable[decoded] = np.concatenate([d.undecodable for d in strings])
            texts[decoded] = list(chain.from_iterable(d.texts for d in strings))
        if self.two_byte_codes:
            two = np.flatnonzero(kind == 2.0)
            codes = np.frombuffer(self.two_byte_codes, dtype=np.uint16)
            rows = font_index[two].astype(np.intp)
            for row in np.unique(rows).tolist():
                mine = rows == row
                # Only the compiled core keeps two-byte codes, and only of two-byte composite fonts.
                font = cast(CompositeFont, fonts[row])
                where = two[mine]
                texts[where], widths[where], vertical_widths[where], undecodable[where] = (
                    font.two_byte_columns.columns(codes[mine])
                )
        return widths, vertical_widths, word_space, undecodable, texts

    def _by_code(
        self, font_index: np.ndarray, fonts: list[Font]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """_decode's columns for the glyphs shown by code (`font_index`: their
        fonts), from the code tables of the page's fonts stacked (row = font index)."""
        codes = np.frombuffer(b"".join(self.byte_strings), dtype=np.uint8)
        # Each font's 256 entries one after the other: row * 256 + code.
        at = font_index.astype(np.intp) * 256 + codes
        # Rows of the other fonts fill the tables; no by-code glyph points at them.
        unused = (_UNUSED_WIDTHS, _UNUSED_TEXTS, _UNUSED_FLAGS)
        tables = [font.code_tables() if isinstance(font, SingleByteFont) else unused for font in fonts]
        width_table, text_table, undecodable_table = (np.concatenate(column) for column in zip(*tables, strict=True))
        return width_table[at], np.zeros(len(at)), codes == 32, undecodable_table[at], text_table[at]


# The code tables of a font that shows no single-byte codes (see _decode).
def _along_offsets(
    per_glyph: np.ndarray,
    counts: np.ndarray,
    widths: np.ndarray,
    vertical_widths: np.ndarray,
    word_space: np.ndarray,
    before: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per glyph, along its frame's text line from the frame origin: where it
    starts, where its own width ends, and where the pen goes after it (advance
    plus Tc and Tw, all x Tz; vertical writing advances down, §9.4.4)."""
    size, scale = per_glyph[_SIZE], per_glyph[_SCALE]
    vertical = per_glyph[_WMODE] == 1
    spacing = per_glyph[_CHAR_SPACING] + per_glyph[_WORD_SPACING] * word_space
    own_length = np.where(vertical, -vertical_widths * size, widths * size * scale)
    advance = np.where(vertical, own_length - spacing, (widths * size + spacing) * scale)
    run = np.cumsum(before + advance)
    first_of_op = np.cumsum(counts) - counts
    run_before_op = np.where(first_of_op > 0, run[np.maximum(first_of_op - 1, 0)], 0.0)
    start = run - advance - np.repeat(run_before_op, counts)
    return start, start + own_length, start + advance


def _line_points(
    per_glyph: np.ndarray, start: np.ndarray, own_along: np.ndarray, pen_along: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Origin, own end and pen end (x and y apart): frame origin + offset x axis a."""
    ox, oy, ax, ay = per_glyph[_OX : _AY + 1]
    return (
        ox + start * ax, oy + start * ay,
        ox + own_along * ax, oy + own_along * ay,
        ox + pen_along * ax, oy + pen_along * ay,
    )  # fmt: skip


def _quad(
    per_glyph: np.ndarray, origin_x: np.ndarray, origin_y: np.ndarray, own_end_x: np.ndarray, own_end_y: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The glyph boxes, corners origin-descent, end-descent, end-ascent,
    origin-ascent, and their centres (x, y)."""
    bx, by = per_glyph[_BX], per_glyph[_BY]
    lo, hi = per_glyph[_LO], per_glyph[_HI]
    lo_x, lo_y, hi_x, hi_y = lo * bx, lo * by, hi * bx, hi * by
    corners_x = (origin_x + lo_x, own_end_x + lo_x, own_end_x + hi_x, origin_x + hi_x)
    corners_y = (origin_y + lo_y, own_end_y + lo_y, own_end_y + hi_y, origin_y + hi_y)
    quad = np.stack([np.stack(corners_x, axis=1), np.stack(corners_y, axis=1)], axis=2)
    # The box centre, summed in the order of quad.mean(axis=1).
    centre_x = (((corners_x[0] + corners_x[1]) + corners_x[2]) + corners_x[3]) / 4.0
    centre_y = (((corners_y[0] + corners_y[1]) + corners_y[2]) + corners_y[3]) / 4.0
    return quad, centre_x, centre_y


def _direction(per_glyph: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit writing direction (x, y; (1, 0) for a degenerate axis) and the
    length of the box's ascent axis b, which scales heights and font sizes."""
    ax, ay, bx, by = per_glyph[_AX], per_glyph[_AY], per_glyph[_BX], per_glyph[_BY]
    a_len = np.hypot(ax, ay)
    a_safe = np.maximum(a_len, 1e-300)
    direction_x = np.where(a_len > 0, ax / a_safe, 1.0)
    direction_y = np.where(a_len > 0, ay / a_safe, 0.0)
    return direction_x, direction_y, np.hypot(bx, by)


def _visible(
    per_glyph: np.ndarray, centre_x: np.ndarray, centre_y: np.ndarray, visible_box: tuple[float, float, float, float]
) -> np.ndarray:
    """A glyph is page text when its box centre lies in the visible box and in
    its form's clip (§14.11.2, §8.10.1)."""
    x0, y0, x1, y1 = visible_box
    # Annotated: numpy's stubs type an array comparison as Any.
    visible: np.ndarray = (
        (centre_x >= np.maximum(x0, per_glyph[_CX0]))
        & (centre_x <= np.minimum(x1, per_glyph[_CX1]))
        & (centre_y >= np.maximum(y0, per_glyph[_CY0]))
        & (centre_y <= np.minimum(y1, per_glyph[_CY1]))
    )
    return visible


_UNUSED_WIDTHS = np.zeros(256)
_UNUSED_TEXTS = np.full(256, "", dtype=object)
_UNUSED_FLAGS = np.zeros(256, dtype=bool)
for _table in (_UNUSED_WIDTHS, _UNUSED_TEXTS, _UNUSED_FLAGS):
    _table.flags.writeable = False
del _table


@dataclass(frozen=True)
class InterpretedPage:
    glyphs: GlyphTable
    warnings: tuple[PageWarning, ...]
    # Operators counted against the budget: streams the budget never needed
    # counted are not in it (PageInterpreter._run_stream).
    operators: int
    images: tuple[ImagePlacement, ...] = ()
    paths: PathTable = field(default_factory=PathTable.empty)
    # The visible box the glyphs' `visible` flags were taken from (pagebox.visible_box).
    visible_box: tuple[float, float, float, float] | None = None


class PageInterpreter:
    """Interprets one page; create one per page (it holds the page's state)."""

    def __init__(
        self,
        pdf: pikepdf.Pdf,
        font_loader: FontLoader,
        config: ExtractConfig,
    ) -> None:
        self._pdf = pdf
        self._font_loader = font_loader
        self._config = config
        self._gs = _GraphicsState()
        self._gs_stack: list[_GraphicsState] = []
        self._tm: Matrix = IDENTITY
        self._tlm: Matrix = IDENTITY
        self._marked: list[_MarkedContent] = []
        self._forms_open: list[tuple[int, int]] = []
        self._glyphs = _GlyphAccumulator()
        self._font_index: dict[int, int] = {}
        # (resources, resource name) -> (font, index): Tf repeats constantly.
        self._fonts_by_name: dict[tuple[object, str], tuple[Font, int]] = {}
        self._keep_alive: list[pikepdf.Object] = []
        self._fonts_used: list[Font] = []
        self._images: list[ImagePlacement] = []
        self._warnings = WarningCounter()
        # Operators counted on this page, and streams interpreted but not yet
        # counted (see _run_stream) with their size and most operators.
        self._operators = 0
        self._deferred: list[bytes] = []
        self._deferred_bytes = 0
        self._deferred_most = 0
        self._context = _StreamContext(None, None, PAGE_STREAM, NO_CLIP, 0)
        self._token_index = -1
        # Built by the first stream this interpreter runs (_interpret_page),
        # as _path_ops below: the compiled core handles operators itself.
        self._handlers: dict[str, Callable[[Instruction], None]] = {}
        # Paths (extract/paths.py): a separate recorder, positions only.
        self._paths = PathRecorder(config.max_path_pieces_per_page)
        # Built by the first stream this interpreter runs (_interpret_page):
        # the compiled core records paths itself and never needs them.
        self._path_ops: dict[str, Callable[[Instruction], None]] = {}

    # -- entry point ---------------------------------------------------------

    def run(self, page: pikepdf.Page) -> InterpretedPage:
        page_obj = page.obj
        resources = _inherited(page_obj, "/Resources")
        visible_box = page_visible_box(page_obj)

        self._context = _StreamContext(resources, self._object_key(resources), PAGE_STREAM, NO_CLIP, 0)
        contents = page_obj.get("/Contents")
        if contents is not None:
            data = self._read_page_contents(contents)
            if data:
                self._interpret_page(data)
        table = self._glyphs.finish(visible_box, self._fonts_used)
        # The page's inputs go now, not when the collector finds this
        # interpreter (its handlers make it a cycle): the frames of a page of
        # millions of operators are as large as its glyph table.
        self._glyphs = _GlyphAccumulator()
        paths, overflow = self._finish_paths()
        if overflow:
            self._warn(
                f"more than {self._config.max_path_pieces_per_page} path pieces on this page; later ones are not recorded",
                WarningKind.LIMIT, "extract.max_path_pieces_per_page",
            )
        # Read at the end: a font's warnings grow when its program loads lazily.
        for font in self._fonts_used:
            for warning in font.warnings:
                self._warn(f"font {font.name or '(unnamed)'}: {warning}", WarningKind.FONT)
        return InterpretedPage(table, self._warnings.warnings(), self._operators, tuple(self._images), paths, visible_box)

    # -- paths (§8.5) ----------------------------------------------------------

    def _finish_paths(self) -> tuple[PathTable, bool]:
        """The page's painted path pieces, and whether some were past the limit."""
        return self._paths.finish(), self._paths.overflow

    def _text_handlers(self) -> dict[str, Callable[[Instruction], None]]:
        """Text, state, XObject and marked-content operators -> their methods."""
        return {
            "TJ": self._op_TJ,
            "Tj": self._op_Tj,
            "'": self._op_quote,
            '"': self._op_double_quote,
            "Td": self._op_Td,
            "TD": self._op_TD,
            "Tm": self._op_Tm,
            "T*": self._op_T_star,
            "Tf": self._op_Tf,
            "Tc": self._op_Tc,
            "Tw": self._op_Tw,
            "Tz": self._op_Tz,
            "TL": self._op_TL,
            "Ts": self._op_Ts,
            "Tr": self._op_Tr,
            "BT": self._op_BT,
            "ET": self._op_ET,
            "cm": self._op_cm,
            "q": self._op_q,
            "Q": self._op_Q,
            "Do": self._op_Do,
            "BDC": self._op_BDC,
            "BMC": self._op_BMC,
            "EMC": self._op_EMC,
        }

    def _path_handlers(self) -> dict[str, Callable[[Instruction], None]]:
        """Path operators -> the recorder; painting maps the pieces by the CTM."""
        rec = self._paths

        def numbers(instruction: Instruction) -> list[float]:
            return [float(x) for x in instruction.operands]

        def paint(kind: int, close: bool = False) -> Callable[[Instruction], None]:
            return lambda _: rec.paint(self._gs.ctm, kind, close)

        both = STROKE | FILL
        return {
            "m": lambda i: rec.move(*numbers(i)[:2]),
            "l": lambda i: rec.line(*numbers(i)[:2]),
            "c": lambda i: rec.curve(*numbers(i)[4:6]),
            "v": lambda i: rec.curve(*numbers(i)[2:4]),
            "y": lambda i: rec.curve(*numbers(i)[2:4]),
            "h": lambda _: rec.close(),
            "re": lambda i: rec.rect(*numbers(i)[:4]),
            "S": paint(STROKE),
            "s": paint(STROKE, close=True),
            "f": paint(FILL),
            "F": paint(FILL),
            "f*": paint(FILL),
            "B": paint(both),
            "B*": paint(both),
            "b": paint(both, close=True),
            "b*": paint(both, close=True),
            "n": lambda _: rec.discard(),
        }

    # -- streams -------------------------------------------------------------

    def _object_key(self, obj: pikepdf.Object | None) -> object:
        """A cache key for a resources dictionary. Direct objects are kept
        alive for the page so their id() cannot be reused by another."""
        if obj is None:
            return None
        if obj.is_indirect:
            return obj.objgen
        self._keep_alive.append(obj)
        return ("direct", id(obj))

    def _warn(self, message: str, kind: WarningKind = WarningKind.CONTENT, setting: str | None = None) -> None:
        self._warnings.add(kind, message, setting)

    def _read(self, stream: pikepdf.Object, what: str) -> bytes:
        try:
            data, warning = read_stream(stream, self._config.max_stream_bytes)
        except StreamLimitError as exc:
            self._warn(f"{what}: {exc}; its text is skipped", WarningKind.LIMIT, "extract.max_stream_bytes")
            return b""
        except (StreamDecodeError, pikepdf.PdfError) as exc:
            self._warn(f"{what}: {exc}")
            return b""
        if warning:
            self._warn(f"{what}: {warning}")
        return data

    def _read_page_contents(self, contents: pikepdf.Object) -> bytes:
        # A /Contents array is one stream split in pieces; pieces break only
        # between tokens, so joining with a newline keeps operators whole (§7.8.2).
        if isinstance(contents, pikepdf.Array):
            parts = [self._read(part, f"content stream {i + 1}") for i, part in enumerate(contents)]
            return b"\n".join(p for p in parts if p)
        return self._read(contents, "content stream")

    def _interpret_page(self, data: bytes) -> None:
        """Run the page's content bytes, filling self._glyphs."""
        self._handlers = self._text_handlers()
        self._path_ops = self._path_handlers()
        try:  # noqa: SIM105 - the limit is control flow that ends the page; the except says so
            self._run_stream(data)
        except _OperatorLimitReached:
            pass

    def _run_stream(self, data: bytes) -> None:
        """Interpret decoded content bytes, at most SLICE_OPERATORS operators
        per pikepdf parse, within the page's operator budget.

        The page and its forms share one budget (extract.max_operators_per_page)
        that counts every operator (operators.py), not only the text ones the
        interpreter handles; the slice that crosses it is cut at the budget,
        and nothing beyond it is parsed. Counting costs about as much as
        pikepdf's tokenizer, so a stream too short to need cutting is left
        uncounted while the page cannot reach its budget even if every two
        bytes were an operator; the first stream that could reach it counts
        those held back first, so the budget ends where a full count ends it."""
        if self._defer_count(data):
            self._interpret(data, Slice(0, len(data), 0), 0)
            return
        self._count_deferred()
        limit = self._config.max_operators_per_page
        index = 0
        for piece in slices(data, SLICE_OPERATORS):
            remaining = limit - self._operators
            if piece.operators > remaining:
                if remaining > 0:
                    cut = next(slices(data, remaining, piece.start, piece.end))
                    self._operators += cut.operators
                    self._interpret(data, cut, index)
                self._warn(
                    f"more than {limit} operators on this page; text after that is skipped",
                    WarningKind.LIMIT, "extract.max_operators_per_page",
                )
                raise _OperatorLimitReached
            self._operators += piece.operators
            index = self._interpret(data, piece, index)

    def _defer_count(self, data: bytes) -> bool:
        """Hold `data` back uncounted, when one parse of it stays within a
        slice's bound and the page cannot reach its budget with it."""
        most = len(data) // 2 + 1  # an operator takes two bytes at least
        if most > SLICE_OPERATORS or len(data) + self._deferred_bytes > _DEFERRED_BYTES:
            return False
        if self._operators + self._deferred_most + most > self._config.max_operators_per_page:
            return False
        self._deferred.append(data)
        self._deferred_bytes += len(data)
        self._deferred_most += most
        return True

    def _count_deferred(self) -> None:
        self._operators += sum(count_operators(data) for data in self._deferred)
        self._deferred.clear()
        self._deferred_bytes = self._deferred_most = 0

    def _interpret(self, data: bytes, piece: Slice, index: int) -> int:
        """Interpret one slice; `index` is the token index of its first text
        operator, and the next slice's is returned. Path operators are
        interpreted too (table rules) but take no token index: the glyph
        table's token_index counts text operators, whether or not paths are
        recorded."""
        try:
            # pikepdf reports some damage (an unterminated string) as a Python
            # warning: it belongs to the page, not on stderr.
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                instructions = pikepdf.parse_content_stream(
                    pikepdf.Stream(self._pdf, data[piece.start : piece.end]), _INTERPRETED_OPERATORS
                )
        except (pikepdf.PdfError, TypeError, ValueError) as exc:
            return self._interpret_damaged(data, piece, index, exc)
        for warning in caught:
            self._warn(f"content stream: {warning.message}")
        handlers = self._handlers
        path_handlers = self._path_ops
        # Attribute access, not tuple unpacking: unpacking a pikepdf
        # instruction costs several times more, on every operator.
        # The operator filter admits no inline image (BI ID EI): every item is an instruction.
        for instruction in cast("list[Instruction]", instructions):
            name = str(instruction.operator)
            handler = handlers.get(name)
            if handler is None:
                handler = path_handlers.get(name)
                if handler is None:
                    continue
            else:
                # Forms overwrite it too, harmlessly: their glyphs record -1.
                self._token_index = index
                index += 1
            try:
                handler(instruction)
            except (_OperatorLimitReached, RecursionError, MemoryError):
                raise
            except Exception as exc:  # one malformed operator must not lose the page
                self._recover(handler, name, instruction, exc)
        return index

    def _interpret_damaged(self, data: bytes, piece: Slice, index: int, exc: Exception) -> int:
        """A slice pikepdf cannot tokenize (an indirect reference among the
        operands, §7.8.2 allows only direct objects; a damaged token): halve
        it until the bad operator stands alone, skip that one, keep the rest."""
        operators = sum(p.operators for p in slices(data, SLICE_OPERATORS, piece.start, piece.end))
        if operators <= 1:
            shown = data[piece.start : piece.end].strip()[:40].decode("latin-1")
            self._warn(f"content stream: skipped {shown!r}, which cannot be tokenized ({describe(exc)})")
            return index
        for half in slices(data, (operators + 1) // 2, piece.start, piece.end):
            index = self._interpret(data, half, index)
        return index

    def _recover(
        self, handler: Callable[[Instruction], None], name: str, instruction: Instruction, exc: Exception
    ) -> None:
        """An operator whose handler failed: retried on its last operands
        when it has too many (a lost ')' leaves a null operand before the real
        ones, §7.8.2), else skipped with a warning saying why."""
        operands = list(instruction.operands)
        arity = _ARITY[name]
        if len(operands) > arity:
            retry = pikepdf.ContentStreamInstruction(operands[len(operands) - arity :], instruction.operator)
            try:
                handler(retry)
                return
            except (_OperatorLimitReached, RecursionError, MemoryError):
                raise
            except Exception as retry_exc:  # the trailing operands are bad too
                exc = retry_exc
        if len(operands) < arity:
            self._warn(f"operator {name} skipped: it needs {arity} operands, got {len(operands)}")
        else:
            self._warn(f"operator {name} skipped: {describe(exc)}")

    # -- text showing (§9.4.3) -----------------------------------------------

    def _show(self, pieces: Sequence[bytes | float]) -> None:
        """Show strings (bytes) with TJ adjustments (numbers) between them."""
        font = self._gs.font
        if font is None:
            self._warn("text shown before any font was selected (Tf); decoded with a fallback font", WarningKind.FONT)
            font = self._select_font(None)
        if isinstance(font, SingleByteFont):
            self._show_bytes(font, pieces)
        else:
            self._show_decoded(font, pieces)

    def _show_bytes(self, font: SingleByteFont, pieces: Sequence[bytes | float]) -> None:
        """Show strings of a single-byte font: one glyph per byte, decoded in
        ``_GlyphAccumulator.finish``. The arithmetic of _show_decoded for
        horizontal text, with the string sums taken from the bytes."""
        gs = self._gs
        size, scale = gs.size, gs.scale
        glyphs = self._glyphs
        if len(pieces) == 1 and type(pieces[0]) is bytes:
            # Tj, ' and one-string TJ: the common case, without the piece loop.
            data = pieces[0]
            count = len(data)
            if count:
                widths = font.advance(data)
                if widths is None:  # waits for the font program
                    self._show_decoded(font, pieces)
                    return
                glyphs.byte_strings.append(data)
                spacing = gs.char_spacing * count + gs.word_spacing * data.count(32)
                self._record(font, False, count, 1.0)
                self._tm = _translate((widths * size + spacing) * scale, 0.0, self._tm)
            return
        first = glyphs.count
        count = 0
        widths = 0.0
        word_spaces = 0
        along = 0.0
        pending = 0.0
        byte_strings, adjustments = glyphs.byte_strings, glyphs.adjustments
        strings_before, adjustments_before = len(byte_strings), len(adjustments)
        advance = font.advance
        for piece in pieces:
            if type(piece) is bytes:
                n = len(piece)
                if not n:
                    continue
                w = advance(piece)
                if w is None:
                    # A code waits for the font program: undo, and decode() all.
                    del byte_strings[strings_before:], adjustments[adjustments_before:]
                    self._show_decoded(font, pieces)
                    return
                if pending:
                    offset = -pending / 1000.0 * size * scale  # _adjustment, horizontal
                    adjustments.append((first + count, offset))
                    along += offset
                    pending = 0.0
                byte_strings.append(piece)
                widths += w
                word_spaces += piece.count(32)  # §9.3.3: Tw applies to byte 32
                count += n
            else:
                pending += piece  # type: ignore[operator]  # a TJ adjustment (a float): `type(piece) is bytes` narrows no else
        if count:
            spacing = gs.char_spacing * count + gs.word_spacing * word_spaces
            along += (widths * size + spacing) * scale
            self._record(font, False, count, 1.0)
        if pending:
            along += self._adjustment(pending, size, False)
        if along:
            self._advance(along, False)

    def _show_decoded(self, font: Font, pieces: Sequence[bytes | float]) -> None:
        """Show strings of any font through Font.decode (composite fonts, and
        single-byte ones whose strings need their font program read)."""
        gs = self._gs
        size, scale = gs.size, gs.scale
        vertical = font.wmode == 1
        glyphs = self._glyphs
        if len(pieces) == 1 and not vertical and type(pieces[0]) is bytes:
            # Tj, ' and one-string TJ: the common case, without the piece loop.
            decoded = font.decode(pieces[0])
            count = len(decoded.texts)
            if count:
                glyphs.strings.append(decoded)
                widths, _, word_spaces = decoded.advance_sums
                spacing = gs.char_spacing * count + gs.word_spacing * word_spaces
                self._record(font, False, count, 0.0)
                self._tm = _translate((widths * size + spacing) * scale, 0.0, self._tm)
            return
        first = glyphs.count
        count = 0
        widths = vertical_widths = 0.0
        word_spaces = 0
        along = 0.0
        pending = 0.0
        strings = glyphs.strings
        for piece in pieces:
            if isinstance(piece, bytes):
                decoded = font.decode(piece)
                n = len(decoded.texts)
                if not n:
                    continue
                if pending:
                    offset = self._adjustment(pending, size, vertical)
                    glyphs.adjustments.append((first + count, offset))
                    along += offset
                    pending = 0.0
                strings.append(decoded)
                w, vw, ws = decoded.advance_sums
                widths += w
                vertical_widths += vw
                word_spaces += ws
                count += n
            else:
                pending += piece
        if count:
            # The string's total displacement: the sum of the per-glyph
            # advances that _GlyphAccumulator.finish computes (§9.4.4).
            spacing = gs.char_spacing * count + gs.word_spacing * word_spaces
            if vertical:
                along += -vertical_widths * size - spacing
            else:
                along += (widths * size + spacing) * scale
            self._record(font, vertical, count, 0.0)
        if pending:
            along += self._adjustment(pending, size, vertical)
        if along:
            self._advance(along, vertical)

    def _adjustment(self, number: float, size: float, vertical: bool) -> float:
        """Along-direction move of a TJ number: it is subtracted from the
        horizontal displacement and, for vertical text, from w1 (§9.4.3)."""
        if vertical:
            return number / 1000.0 * size
        return -number / 1000.0 * size * self._gs.scale

    def _advance(self, along: float, vertical: bool) -> None:
        self._tm = _translate(0.0, -along, self._tm) if vertical else _translate(along, 0.0, self._tm)

    def _record(self, font: Font, vertical: bool, count: int, by_code: float) -> None:
        """The frame of one show operator: its text line's origin and axes in
        user space, and the state all its glyphs share."""
        gs = self._gs
        a, b, c, d, e, f = multiply(self._tm, gs.ctm)
        size = gs.size
        if vertical:
            # Text space point (across, -along); the pen runs down the glyph's
            # vertical centre line (position vector vx = w0 / 2, §9.7.4.3).
            ox, oy = e, f
            ax, ay, bx, by = -c, -d, a, b
            lo, hi = -0.5 * size, 0.5 * size
        else:
            rise = gs.rise
            ox, oy = rise * c + e, rise * d + f
            ax, ay, bx, by = a, b, c, d
            lo, hi = font.descent * size, font.ascent * size
        marked = self._marked[-1] if self._marked else None
        clip = self._context.clip
        frame = (
            ox, oy, ax, ay, bx, by, lo, hi,
            1.0 if vertical else 0.0,
            marked.mcid if marked else NO_MCID,
            marked.mcid_stream if marked else PAGE_STREAM,
            self._context.stream_id,
            self._token_index if self._context.stream_id == PAGE_STREAM else -1,
            gs.render_mode,
            1.0 if marked and marked.artifact else 0.0,
            clip[0], clip[1], clip[2], clip[3],
            gs.font_index,
            count,
            size, gs.char_spacing, gs.word_spacing, gs.scale,
            by_code,
        )  # fmt: skip
        self._glyphs.frames.append(frame)
        self._glyphs.count += count

    def _op_Tj(self, instruction: Instruction) -> None:
        self._show((_shown(instruction.operands[0]),))

    def _op_TJ(self, instruction: Instruction) -> None:
        # type() against the number types, not isinstance(pikepdf.String):
        # pikepdf's isinstance goes through a metaclass hook and TJ arrays
        # are the most frequent operands there are.
        self._show(
            [float(item) if type(item) in _NUMBER_TYPES else _shown(item) for item in _array(instruction.operands[0])]
        )

    def _op_quote(self, instruction: Instruction) -> None:
        self._next_line()
        self._show((_shown(instruction.operands[0]),))

    def _op_double_quote(self, instruction: Instruction) -> None:
        operands = instruction.operands
        self._gs.word_spacing = float(operands[0])
        self._gs.char_spacing = float(operands[1])
        self._next_line()
        self._show((_shown(operands[2]),))

    # -- text positioning (§9.4.2) and state (§9.3) --------------------------

    def _op_BT(self, instruction: Instruction) -> None:
        self._tm = self._tlm = IDENTITY

    def _op_ET(self, instruction: Instruction) -> None:
        pass

    def _op_Td(self, instruction: Instruction) -> None:
        self._move_line(instruction.operands)

    def _op_TD(self, instruction: Instruction) -> None:
        operands = instruction.operands
        self._gs.leading = -float(operands[1])
        self._move_line(operands)

    def _move_line(self, operands: Operands) -> None:
        self._tlm = _translate(float(operands[0]), float(operands[1]), self._tlm)
        self._tm = self._tlm

    def _op_Tm(self, instruction: Instruction) -> None:
        self._tm = self._tlm = _instruction_matrix(instruction)

    def _op_T_star(self, instruction: Instruction) -> None:
        self._next_line()

    def _next_line(self) -> None:
        self._tlm = _translate(0.0, -self._gs.leading, self._tlm)
        self._tm = self._tlm

    def _op_Tf(self, instruction: Instruction) -> None:
        operands = instruction.operands
        name, size = _name(operands[0]), float(operands[1])
        self._gs.font, self._gs.font_index = self._font_by_name(name)
        self._gs.size = size

    def _font_by_name(self, name: str) -> tuple[Font, int]:
        """The font a Tf operand names in the current resources (§9.3.1), and its index."""
        key = (self._context.resources_key, name)
        selected = self._fonts_by_name.get(key)
        if selected is None:
            font_obj = None
            resources = self._context.resources
            fonts = resources.get("/Font") if resources is not None else None
            if fonts is not None:
                font_obj = fonts.get(name)
            if font_obj is None:
                self._warn(f"font {name} is not in the resources; decoded with a fallback font", WarningKind.FONT)
            font = self._select_font(font_obj)
            selected = self._fonts_by_name[key] = font, self._font_index[id(font)]
        return selected

    def _select_font(self, font_obj: pikepdf.Object | None) -> Font:
        font = self._font_loader.get(font_obj)
        key = id(font)
        index = self._font_index.get(key)
        if index is None:
            index = self._font_index[key] = len(self._fonts_used)
            self._fonts_used.append(font)
        self._gs.font = font
        self._gs.font_index = index
        return font

    def _op_Tc(self, instruction: Instruction) -> None:
        self._gs.char_spacing = float(instruction.operands[0])

    def _op_Tw(self, instruction: Instruction) -> None:
        self._gs.word_spacing = float(instruction.operands[0])

    def _op_Tz(self, instruction: Instruction) -> None:
        self._gs.scale = float(instruction.operands[0]) / 100.0

    def _op_TL(self, instruction: Instruction) -> None:
        self._gs.leading = float(instruction.operands[0])

    def _op_Ts(self, instruction: Instruction) -> None:
        self._gs.rise = float(instruction.operands[0])

    def _op_Tr(self, instruction: Instruction) -> None:
        self._gs.render_mode = int(instruction.operands[0])

    # -- graphics state (§8.4) -----------------------------------------------

    def _op_cm(self, instruction: Instruction) -> None:
        self._gs.ctm = multiply(_instruction_matrix(instruction), self._gs.ctm)

    def _op_q(self, instruction: Instruction) -> None:
        self._gs_stack.append(self._gs.copy())

    def _op_Q(self, instruction: Instruction) -> None:
        # An unbalanced Q (common in damaged files) leaves the state alone.
        if self._gs_stack:
            self._gs = self._gs_stack.pop()

    # -- form XObjects (§8.10) -----------------------------------------------

    def _op_Do(self, instruction: Instruction) -> None:
        form = self._form_to_paint(str(instruction.operands[0]))
        if form is None:
            return
        saved_gs, saved_stack_depth = self._gs, len(self._gs_stack)
        saved_tm, saved_tlm, saved_context = self._tm, self._tlm, self._context
        self._gs = self._gs.copy()
        self._gs.ctm = multiply(form.matrix, self._gs.ctm)
        clip = self._context.clip
        if form.bbox is not None:
            clip = _intersect(clip, _transform_box(form.bbox, self._gs.ctm))
        self._context = self._form_context(form, clip, len(self._marked))
        self._forms_open.append(form.key)
        try:
            self._run_stream(form.data)
        finally:
            self._forms_open.pop()
            # Marked content must balance within a stream (§14.6); close what
            # the form left open, then restore the painter's state.
            while len(self._marked) > self._context.marked_depth:
                self._close_marked()
            self._context = saved_context
            self._gs = saved_gs
            del self._gs_stack[saved_stack_depth:]
            self._tm, self._tlm = saved_tm, saved_tlm

    def _form_to_paint(self, name: str) -> "_Form | None":
        """What `Do name` paints, when it is a form XObject to interpret: the
        XObject looked up, images placed, cycles and depth guarded (§8.10)."""
        resources = self._context.resources
        xobjects = resources.get("/XObject") if resources is not None else None
        xobject = xobjects.get(name) if xobjects is not None else None
        if xobject is None:
            return None
        subtype = xobject.get("/Subtype")
        if subtype == "/Image":
            marked = self._current_marked()
            if marked is not None and marked[0] != NO_MCID:
                box = _transform_box((0.0, 0.0, 1.0, 1.0), self._current_ctm())
                self._images.append(ImagePlacement(box, marked[0], marked[1]))
            return None
        if subtype != "/Form":
            return None
        key = xobject.objgen
        if key in self._forms_open:
            self._warn(f"form XObject {name} paints itself (cycle); painted once")
            return None
        if len(self._forms_open) >= self._config.max_form_depth:
            self._warn(
                f"form XObjects nested deeper than {self._config.max_form_depth}; deeper forms are skipped",
                WarningKind.LIMIT, "extract.max_form_depth",
            )
            return None
        data = self._read(xobject, f"form XObject {name}")
        if not data:
            return None
        matrix_obj = xobject.get("/Matrix")
        form_matrix = _matrix(list(matrix_obj)) if matrix_obj is not None else IDENTITY
        # A form without /Resources uses the resources of the stream that
        # paints it (§7.8.3).
        form_resources = xobject.get("/Resources")
        if form_resources is None:
            form_resources = resources
        return _Form(key, data, form_matrix, normalized_box(xobject.get("/BBox")), form_resources)

    def _form_context(
        self, form: "_Form", clip: tuple[float, float, float, float], marked_depth: int
    ) -> _StreamContext:
        return _StreamContext(form.resources, self._object_key(form.resources), form.key[0], clip, marked_depth)

    def _current_ctm(self) -> Matrix:
        return self._gs.ctm

    def _current_marked(self) -> tuple[int, int] | None:
        """(mcid, mcid_stream) of the innermost open marked content."""
        marked = self._marked[-1] if self._marked else None
        return (marked.mcid, marked.mcid_stream) if marked is not None else None

    # -- marked content (§14.6) ----------------------------------------------

    def _op_BMC(self, instruction: Instruction) -> None:
        self._open_marked(str(instruction.operands[0]), None)

    def _op_BDC(self, instruction: Instruction) -> None:
        operands = instruction.operands
        properties = operands[1] if len(operands) > 1 else None
        if isinstance(properties, pikepdf.Name):
            properties = self._named_properties(str(properties))
        self._open_marked(str(operands[0]), properties if isinstance(properties, pikepdf.Dictionary) else None)

    def _named_properties(self, name: str) -> pikepdf.Object | None:
        """A BDC property list given by name: the resources' /Properties entry (§14.6.2)."""
        resources = self._context.resources
        named = resources.get("/Properties") if resources is not None else None
        return named.get(name) if named is not None else None

    def _marked_properties(self, properties: pikepdf.Dictionary | None) -> tuple[int | None, str | None]:
        """(/MCID, /ActualText) of a property list, None where absent or unusable."""
        if properties is None:
            return None, None
        mcid = actual_text = None
        mcid_obj = properties.get("/MCID")
        if mcid_obj is not None:
            try:
                mcid = int(mcid_obj)
            except (TypeError, ValueError):
                self._warn(f"ignored a non-integer /MCID {mcid_obj!r}")
        text_obj = properties.get("/ActualText")
        if isinstance(text_obj, pikepdf.String):
            actual_text = str(text_obj)
        return mcid, actual_text

    def _open_marked(self, tag: str, properties: pikepdf.Dictionary | None) -> None:
        outer = self._marked[-1] if self._marked else None
        mcid = outer.mcid if outer else NO_MCID
        mcid_stream = outer.mcid_stream if outer else PAGE_STREAM
        own_mcid, actual_text = self._marked_properties(properties)
        if own_mcid is not None:
            mcid, mcid_stream = own_mcid, self._context.stream_id
        artifact = tag == "/Artifact" or (outer is not None and outer.artifact)
        self._marked.append(_MarkedContent(mcid, mcid_stream, artifact, actual_text, self._glyphs.count))

    def _op_EMC(self, instruction: Instruction) -> None:
        if len(self._marked) > self._context.marked_depth:
            self._close_marked()

    def _close_marked(self) -> None:
        marked = self._marked.pop()
        if marked.actual_text is not None and self._glyphs.count > marked.first_glyph:
            self._glyphs.actual_text_spans.append((marked.first_glyph, self._glyphs.count, marked.actual_text))


def interpret_page(
    pdf: pikepdf.Pdf, page: pikepdf.Page, font_loader: FontLoader, config: ExtractConfig
) -> InterpretedPage:
    """The glyph table of one page, with the warnings met on the way.

    The compiled core (compiled.py) runs it where the extension is built and
    RAGPREP_PURE is not set; this module's PageInterpreter is the reference."""
    from ragprep.extract.compiled import interpreter_class

    return interpreter_class()(pdf, font_loader, config).run(page)
