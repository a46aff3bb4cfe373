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

Per show operator the interpreter does a handful of Python steps: the font
decodes the string (cached), the glyph advances are summed with numpy along the
writing direction in text space, and the operator's frame (origin and the two
axis vectors in user space) is recorded. All per-glyph geometry is computed
once per page, column-wise, in ``_GlyphAccumulator.finish``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from itertools import chain
from typing import Callable

import numpy as np
import pikepdf

from ragprep.extract.config import ExtractConfig
from ragprep.extract.fonts import Font, FontLoader
from ragprep.extract.fonts.base import DecodedString
from ragprep.extract.glyphs import NO_MCID, PAGE_STREAM, GlyphTable
from ragprep.extract.streams import StreamDecodeError, StreamLimitError, read_stream

TEXT_OPERATORS = "BT ET Tf Tc Tw Tz TL Ts Tr Td TD Tm T* Tj TJ ' \" cm q Q Do BDC BMC EMC"

# (a, b, c, d, e, f): row-vector affine matrices, [x y 1] x M (§8.3.3).
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
# How pikepdf hands over numeric operands (integers, and reals as Decimal).
_NUMBER_TYPES = (int, Decimal)
NO_CLIP = (-np.inf, -np.inf, np.inf, np.inf)


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """m x n: apply m first, then n (§8.3.4)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (
        a * A + b * C,
        a * B + b * D,
        c * A + d * C,
        c * B + d * D,
        e * A + f * C + E,
        e * B + f * D + F,
    )


def _translate(tx: float, ty: float, m: Matrix) -> Matrix:
    """[1 0 0 1 tx ty] x m, the text-matrix update of Td and of glyph advances."""
    a, b, c, d, e, f = m
    return (a, b, c, d, tx * a + ty * c + e, tx * b + ty * d + f)


def _matrix(operands: list) -> Matrix:
    values = tuple(map(float, operands[:6]))
    if len(values) != 6:
        raise ValueError("a matrix needs six numbers")
    return values  # type: ignore[return-value]


def _transform_box(box: tuple[float, float, float, float], m: Matrix) -> tuple[float, float, float, float]:
    """Axis-aligned bounds of a rectangle after transforming its corners."""
    x0, y0, x1, y1 = box
    a, b, c, d, e, f = m
    xs = [x * a + y * c + e for x in (x0, x1) for y in (y0, y1)]
    ys = [x * b + y * d + f for x in (x0, x1) for y in (y0, y1)]
    return min(xs), min(ys), max(xs), max(ys)


def _intersect(
    p: tuple[float, float, float, float], q: tuple[float, float, float, float]
) -> tuple[float, float, float, float]:
    return max(p[0], q[0]), max(p[1], q[1]), min(p[2], q[2]), min(p[3], q[3])


def normalized_box(obj: pikepdf.Object | None) -> tuple[float, float, float, float] | None:
    """A PDF rectangle as (x0, y0, x1, y1) with x0 <= x1, y0 <= y1 (§7.9.5)."""
    if obj is None:
        return None
    try:
        x0, y0, x1, y1 = (float(v) for v in obj)
    except (TypeError, ValueError):
        return None
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


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


class _OperatorLimitReached(Exception):
    pass


# Columns of the per-operator frame record (see PageInterpreter._record).
_OX, _OY, _AX, _AY, _BX, _BY, _LO, _HI = range(8)
_WMODE, _MCID, _MCID_STREAM, _STREAM, _TOKEN, _RENDER, _ARTIFACT = range(8, 15)
_CX0, _CY0, _CX1, _CY1, _FONT, _COUNT = range(15, 21)
_SIZE, _CHAR_SPACING, _WORD_SPACING, _SCALE = range(21, 25)


class _GlyphAccumulator:
    """Collects decoded strings per show operator and positions every glyph of
    the page at once.

    Per show operator only references are stored: the operator's frame (text
    state and the user-space axes of its text line) and the decoded strings,
    plus the TJ adjustments before pieces. ``finish`` computes each glyph's
    offset along its line with one cumulative sum over the page (§9.4.4)::

        horizontal  advance = (w0 * Tfs + Tc + Tw) * Th     own = w0 * Tfs * Th
        vertical    advance = -(w1 * Tfs + Tc + Tw)         own = -w1 * Tfs

    ("along" grows downward for vertical text, so w1 < 0 gives a positive advance).
    """

    def __init__(self) -> None:
        self.frames: list[tuple[float, ...]] = []
        self.strings: list[DecodedString] = []
        # (glyph index, along-offset) of each TJ adjustment before a piece.
        self.adjustments: list[tuple[int, float]] = []
        self.count = 0
        # (first glyph, end glyph, text) per /ActualText span (§14.9.4).
        self.actual_text_spans: list[tuple[int, int, str]] = []

    def finish(self, visible_box: tuple[float, float, float, float], fonts: tuple[str, ...]) -> GlyphTable:
        if not self.frames:
            return GlyphTable.empty(fonts)
        frames = np.array(self.frames, dtype=np.float64)
        counts = frames[:, _COUNT].astype(np.int64)
        per_glyph = np.repeat(frames, counts, axis=0)

        def column(col: int) -> np.ndarray:
            return per_glyph[:, col]

        strings = self.strings
        widths = np.concatenate([d.widths for d in strings])
        vertical_widths = np.concatenate([d.vertical_widths for d in strings])
        word_space = np.concatenate([d.word_space for d in strings])
        undecodable = np.concatenate([d.undecodable for d in strings]).astype(bool)
        texts = np.empty(self.count, dtype=object)
        texts[:] = list(chain.from_iterable(d.texts for d in strings))

        size, scale = column(_SIZE), column(_SCALE)
        vertical = column(_WMODE) == 1
        spacing = column(_CHAR_SPACING) + column(_WORD_SPACING) * word_space
        own_length = np.where(vertical, -vertical_widths * size, widths * size * scale)
        advance = np.where(vertical, own_length - spacing, (widths * size + spacing) * scale)
        before = np.zeros(self.count)
        if self.adjustments:
            index, offset = zip(*self.adjustments)
            np.add.at(before, np.array(index, dtype=np.int64), np.array(offset))
        run = np.cumsum(before + advance)
        first_of_op = np.cumsum(counts) - counts
        run_before_op = np.where(first_of_op > 0, run[np.maximum(first_of_op - 1, 0)], 0.0)
        start = run - advance - np.repeat(run_before_op, counts)

        origin0 = per_glyph[:, _OX : _OY + 1]
        axis_a = per_glyph[:, _AX : _AY + 1]
        axis_b = per_glyph[:, _BX : _BY + 1]
        lo, hi = column(_LO), column(_HI)
        origin = origin0 + start[:, None] * axis_a
        own_end = origin0 + (start + own_length)[:, None] * axis_a
        pen_end = origin0 + (start + advance)[:, None] * axis_a
        # /ActualText: the span's first glyph carries the replacement and
        # stretches to the span's end; the other glyphs keep their geometry
        # but no text. Inner spans close first, so outer spans win (§14.9.4).
        for first, end, replacement in self.actual_text_spans:
            texts[first] = replacement
            texts[first + 1 : end] = ""
            undecodable[first:end] = False
            own_end[first] = own_end[end - 1]
            pen_end[first] = pen_end[end - 1]

        across_lo = lo[:, None] * axis_b
        across_hi = hi[:, None] * axis_b
        quad = np.stack(
            [origin + across_lo, own_end + across_lo, own_end + across_hi, origin + across_hi], axis=1
        )
        a_len = np.hypot(axis_a[:, 0], axis_a[:, 1])
        b_len = np.hypot(axis_b[:, 0], axis_b[:, 1])
        direction = np.where(a_len[:, None] > 0, axis_a / np.maximum(a_len, 1e-300)[:, None], [1.0, 0.0])
        height = np.abs(hi - lo) * b_len

        centre = quad.mean(axis=1)
        x0, y0, x1, y1 = visible_box
        visible = (
            (centre[:, 0] >= np.maximum(x0, column(_CX0)))
            & (centre[:, 0] <= np.minimum(x1, column(_CX1)))
            & (centre[:, 1] >= np.maximum(y0, column(_CY0)))
            & (centre[:, 1] <= np.minimum(y1, column(_CY1)))
        )
        return GlyphTable(
            text=texts,
            origin=origin,
            own_end=own_end,
            pen_end=pen_end,
            direction=direction,
            quad=quad,
            height=height,
            mcid=column(_MCID).astype(np.int64),
            mcid_stream=column(_MCID_STREAM).astype(np.int64),
            stream=column(_STREAM).astype(np.int64),
            token_index=column(_TOKEN).astype(np.int64),
            render_mode=column(_RENDER).astype(np.int8),
            wmode=column(_WMODE).astype(np.int8),
            artifact=column(_ARTIFACT).astype(bool),
            undecodable=undecodable,
            visible=visible,
            font=column(_FONT).astype(np.int32),
            fonts=fonts,
            font_size=np.abs(size) * b_len,
        )


@dataclass(frozen=True)
class InterpretedPage:
    glyphs: GlyphTable
    warnings: tuple[str, ...]
    operators: int
    images: tuple[ImagePlacement, ...] = ()


@dataclass(frozen=True)
class ImagePlacement:
    """Where an image XObject was painted (its unit square under the CTM,
    §8.9.4) and the marked content around it: a tagged Figure's /Alt text
    has no glyphs, so this is where its text belongs."""

    bbox: tuple[float, float, float, float]
    mcid: int
    mcid_stream: int


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
        self._font_names: list[str] = []
        self._font_index: dict[int, int] = {}
        # (resources, resource name) -> (font, index): Tf repeats constantly.
        self._fonts_by_name: dict[tuple[object, str], tuple[Font, int]] = {}
        self._keep_alive: list[pikepdf.Object] = []
        self._fonts_used: list[Font] = []
        self._images: list[ImagePlacement] = []
        self._warnings: dict[str, int] = {}
        self._operators = 0
        self._context = _StreamContext(None, None, PAGE_STREAM, NO_CLIP, 0)
        self._token_index = -1
        self._handlers: dict[str, Callable[[list], None]] = {
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

    # -- entry point ---------------------------------------------------------

    def run(self, page: pikepdf.Page) -> InterpretedPage:
        page_obj = page.obj
        resources = _inherited(page_obj, "/Resources")
        mediabox = normalized_box(_inherited(page_obj, "/MediaBox")) or (0.0, 0.0, 612.0, 792.0)
        cropbox = normalized_box(_inherited(page_obj, "/CropBox")) or mediabox
        visible_box = _intersect(cropbox, mediabox)

        self._context = _StreamContext(resources, self._object_key(resources), PAGE_STREAM, NO_CLIP, 0)
        contents = page_obj.get("/Contents")
        if contents is not None:
            data = self._read_page_contents(contents)
            if data:
                try:
                    self._run_stream(data)
                except _OperatorLimitReached:
                    pass
        table = self._glyphs.finish(visible_box, tuple(self._font_names))
        # Read at the end: a font's warnings grow when its program loads lazily.
        for font in self._fonts_used:
            for warning in font.warnings:
                self._warn(f"font {font.name or '(unnamed)'}: {warning}")
        warnings = tuple(
            message if count == 1 else f"{message} (x{count})" for message, count in self._warnings.items()
        )
        return InterpretedPage(table, warnings, self._operators, tuple(self._images))

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

    def _warn(self, message: str) -> None:
        self._warnings[message] = self._warnings.get(message, 0) + 1

    def _read(self, stream: pikepdf.Object, what: str) -> bytes:
        try:
            data, warning = read_stream(stream, self._config.max_stream_bytes)
        except StreamLimitError as exc:
            self._warn(f"limit: {what}: {exc}; its text is skipped (extract.max_stream_bytes)")
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

    def _run_stream(self, data: bytes) -> None:
        try:
            instructions = pikepdf.parse_content_stream(pikepdf.Stream(self._pdf, data), TEXT_OPERATORS)
        except pikepdf.PdfError as exc:
            self._warn(f"content stream cannot be tokenized: {exc}")
            return
        handlers = self._handlers
        # The page and its forms share one operator budget; a stream takes
        # its operators from it up front, so the loop below counts nothing.
        limit = self._config.max_operators_per_page
        remaining = max(limit - self._operators, 0)
        truncated = len(instructions) > remaining
        if truncated:
            instructions = instructions[:remaining]
        self._operators += len(instructions)
        # Attribute access, not tuple unpacking: unpacking a pikepdf
        # instruction costs several times more, on every operator.
        for index, instruction in enumerate(instructions):
            # Forms overwrite it too, harmlessly: their glyphs record -1.
            self._token_index = index
            name = str(instruction.operator)
            handler = handlers.get(name)
            if handler is None:
                continue
            try:
                handler(instruction.operands)
            except (_OperatorLimitReached, RecursionError):
                raise
            except Exception as exc:  # one malformed operator must not lose the page
                self._warn(f"operator {name} skipped: {type(exc).__name__}: {exc}")
        if truncated:
            self._warn(
                f"limit: more than {limit} operators on this page; text after that is skipped "
                "(extract.max_operators_per_page)"
            )
            raise _OperatorLimitReached

    # -- text showing (§9.4.3) -----------------------------------------------

    def _show(self, pieces: list | tuple) -> None:
        gs = self._gs
        font = gs.font
        if font is None:
            self._warn("text shown before any font was selected (Tf); decoded with a fallback font")
            font = self._select_font(None)
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
                self._record(font, False, count)
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
            self._record(font, vertical, count)
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

    def _record(self, font: Font, vertical: bool, count: int) -> None:
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
        )  # fmt: skip
        self._glyphs.frames.append(frame)
        self._glyphs.count += count

    def _op_Tj(self, operands: list) -> None:
        self._show((bytes(operands[0]),))

    def _op_TJ(self, operands: list) -> None:
        # type() against the number types, not isinstance(pikepdf.String):
        # pikepdf's isinstance goes through a metaclass hook and TJ arrays
        # are the most frequent operands there are.
        self._show([float(item) if type(item) in _NUMBER_TYPES else bytes(item) for item in operands[0]])

    def _op_quote(self, operands: list) -> None:
        self._op_T_star([])
        self._show((bytes(operands[0]),))

    def _op_double_quote(self, operands: list) -> None:
        self._gs.word_spacing = float(operands[0])
        self._gs.char_spacing = float(operands[1])
        self._op_quote(operands[2:])

    # -- text positioning (§9.4.2) and state (§9.3) --------------------------

    def _op_BT(self, operands: list) -> None:
        self._tm = self._tlm = IDENTITY

    def _op_ET(self, operands: list) -> None:
        pass

    def _op_Td(self, operands: list) -> None:
        self._tlm = _translate(float(operands[0]), float(operands[1]), self._tlm)
        self._tm = self._tlm

    def _op_TD(self, operands: list) -> None:
        self._gs.leading = -float(operands[1])
        self._op_Td(operands)

    def _op_Tm(self, operands: list) -> None:
        self._tm = self._tlm = _matrix(operands)

    def _op_T_star(self, operands: list) -> None:
        self._tlm = _translate(0.0, -self._gs.leading, self._tlm)
        self._tm = self._tlm

    def _op_Tf(self, operands: list) -> None:
        name, size = str(operands[0]), float(operands[1])
        key = (self._context.resources_key, name)
        selected = self._fonts_by_name.get(key)
        if selected is None:
            font_obj = None
            resources = self._context.resources
            fonts = resources.get("/Font") if resources is not None else None
            if fonts is not None:
                font_obj = fonts.get(name)
            if font_obj is None:
                self._warn(f"font {name} is not in the resources; decoded with a fallback font")
            selected = self._fonts_by_name[key] = self._select_font(font_obj), self._gs.font_index
        self._gs.font, self._gs.font_index = selected
        self._gs.size = size

    def _select_font(self, font_obj: pikepdf.Object | None) -> Font:
        font = self._font_loader.get(font_obj)
        key = id(font)
        index = self._font_index.get(key)
        if index is None:
            index = self._font_index[key] = len(self._font_names)
            self._font_names.append(font.name)
            self._fonts_used.append(font)
        self._gs.font = font
        self._gs.font_index = index
        return font

    def _op_Tc(self, operands: list) -> None:
        self._gs.char_spacing = float(operands[0])

    def _op_Tw(self, operands: list) -> None:
        self._gs.word_spacing = float(operands[0])

    def _op_Tz(self, operands: list) -> None:
        self._gs.scale = float(operands[0]) / 100.0

    def _op_TL(self, operands: list) -> None:
        self._gs.leading = float(operands[0])

    def _op_Ts(self, operands: list) -> None:
        self._gs.rise = float(operands[0])

    def _op_Tr(self, operands: list) -> None:
        self._gs.render_mode = int(operands[0])

    # -- graphics state (§8.4) -----------------------------------------------

    def _op_cm(self, operands: list) -> None:
        self._gs.ctm = multiply(_matrix(operands), self._gs.ctm)

    def _op_q(self, operands: list) -> None:
        self._gs_stack.append(self._gs.copy())

    def _op_Q(self, operands: list) -> None:
        # An unbalanced Q (common in damaged files) leaves the state alone.
        if self._gs_stack:
            self._gs = self._gs_stack.pop()

    # -- form XObjects (§8.10) -----------------------------------------------

    def _op_Do(self, operands: list) -> None:
        name = str(operands[0])
        resources = self._context.resources
        xobjects = resources.get("/XObject") if resources is not None else None
        xobject = xobjects.get(name) if xobjects is not None else None
        if xobject is None:
            return
        subtype = xobject.get("/Subtype")
        if subtype == "/Image":
            marked = self._marked[-1] if self._marked else None
            if marked is not None and marked.mcid != NO_MCID:
                box = _transform_box((0.0, 0.0, 1.0, 1.0), self._gs.ctm)
                self._images.append(ImagePlacement(box, marked.mcid, marked.mcid_stream))
            return
        if subtype != "/Form":
            return
        key = xobject.objgen
        if key in self._forms_open:
            self._warn(f"form XObject {name} paints itself (cycle); painted once")
            return
        if len(self._forms_open) >= self._config.max_form_depth:
            self._warn(
                f"limit: form XObjects nested deeper than {self._config.max_form_depth}; "
                "deeper forms are skipped (extract.max_form_depth)"
            )
            return
        data = self._read(xobject, f"form XObject {name}")
        if not data:
            return
        matrix_obj = xobject.get("/Matrix")
        form_matrix = _matrix(list(matrix_obj)) if matrix_obj is not None else IDENTITY
        saved_gs, saved_stack_depth = self._gs, len(self._gs_stack)
        saved_tm, saved_tlm, saved_context = self._tm, self._tlm, self._context
        self._gs = self._gs.copy()
        self._gs.ctm = multiply(form_matrix, self._gs.ctm)
        clip = self._context.clip
        bbox = normalized_box(xobject.get("/BBox"))
        if bbox is not None:
            clip = _intersect(clip, _transform_box(bbox, self._gs.ctm))
        # A form without /Resources uses the resources of the stream that
        # paints it (§7.8.3).
        form_resources = xobject.get("/Resources")
        if form_resources is None:
            form_resources = resources
        self._context = _StreamContext(
            form_resources,
            self._object_key(form_resources),
            key[0],
            clip,
            len(self._marked),
        )
        self._forms_open.append(key)
        try:
            self._run_stream(data)
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

    # -- marked content (§14.6) ----------------------------------------------

    def _op_BMC(self, operands: list) -> None:
        self._open_marked(str(operands[0]), None)

    def _op_BDC(self, operands: list) -> None:
        properties = operands[1] if len(operands) > 1 else None
        if isinstance(properties, pikepdf.Name):
            resources = self._context.resources
            named = resources.get("/Properties") if resources is not None else None
            properties = named.get(str(properties)) if named is not None else None
        self._open_marked(str(operands[0]), properties if isinstance(properties, pikepdf.Dictionary) else None)

    def _open_marked(self, tag: str, properties: pikepdf.Dictionary | None) -> None:
        outer = self._marked[-1] if self._marked else None
        mcid = outer.mcid if outer else NO_MCID
        mcid_stream = outer.mcid_stream if outer else PAGE_STREAM
        actual_text = None
        if properties is not None:
            mcid_obj = properties.get("/MCID")
            if mcid_obj is not None:
                try:
                    mcid, mcid_stream = int(mcid_obj), self._context.stream_id
                except (TypeError, ValueError):
                    self._warn(f"ignored a non-integer /MCID {mcid_obj!r}")
            text_obj = properties.get("/ActualText")
            if isinstance(text_obj, pikepdf.String):
                actual_text = str(text_obj)
        artifact = tag == "/Artifact" or (outer is not None and outer.artifact)
        self._marked.append(_MarkedContent(mcid, mcid_stream, artifact, actual_text, self._glyphs.count))

    def _op_EMC(self, operands: list) -> None:
        if len(self._marked) > self._context.marked_depth:
            self._close_marked()

    def _close_marked(self) -> None:
        marked = self._marked.pop()
        if marked.actual_text is not None and self._glyphs.count > marked.first_glyph:
            self._glyphs.actual_text_spans.append((marked.first_glyph, self._glyphs.count, marked.actual_text))


def _inherited(page_obj: pikepdf.Object, key: str, max_depth: int = 64) -> pikepdf.Object | None:
    """A page attribute, inherited from the page tree when absent (§7.7.3.4)."""
    node: pikepdf.Object | None = page_obj
    seen: set[tuple[int, int]] = set()
    for _ in range(max_depth):
        if node is None or not isinstance(node, pikepdf.Dictionary):
            return None
        value = node.get(key)
        if value is not None:
            return value
        if node.is_indirect:
            if node.objgen in seen:
                return None
            seen.add(node.objgen)
        node = node.get("/Parent")
    return None


def interpret_page(
    pdf: pikepdf.Pdf, page: pikepdf.Page, font_loader: FontLoader, config: ExtractConfig
) -> InterpretedPage:
    """The glyph table of one page, with the warnings met on the way."""
    return PageInterpreter(pdf, font_loader, config).run(page)
