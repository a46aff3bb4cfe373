"""The font interface the interpreter uses, and the fallback for unusable fonts.

A ``Font`` decodes the bytes of a show-text operand into a ``DecodedString``.
The same words repeat throughout a document, so results are cached per byte
string (LRU-bounded); the cached arrays are read-only, because every caller
receives the same objects.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ragprep.extract.errors import describe
from ragprep.extract.fonts.base import REPLACEMENT, DecodedString
from ragprep.extract.fonts.metrics import DEFAULT_ASCENT, DEFAULT_DESCENT, FALLBACK_WIDTH

# Per font; a cached DecodedString is about 1 kB. Books repeat a few thousand
# distinct words per font: 4096 keeps the corpus' miss rate near 10%.
DEFAULT_DECODE_CACHE = 4096


def frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


class Font:
    """One loaded font dictionary (§9.6 simple fonts, §9.7 composite fonts)."""

    def __init__(
        self,
        *,
        name: str,
        subtype: str,
        wmode: int = 0,
        ascent: float = DEFAULT_ASCENT,
        descent: float = DEFAULT_DESCENT,
        warnings: list[str] | None = None,
        cache_size: int = DEFAULT_DECODE_CACHE,
    ) -> None:
        # /BaseFont (or /Name for Type3), "" when absent.
        self.name = name
        # "Type1", "MMType1", "TrueType", "Type3" or "Type0"; "" for a dictionary
        # that names no usable subtype.
        self.subtype = subtype
        # 0 horizontal, 1 vertical (from the Type0 encoding CMap, §9.7.4.3).
        self.wmode = wmode
        # Per unit font size; ascent > 0 > descent (see metrics.vertical_extent).
        self.ascent = ascent
        self.descent = descent
        self._warnings: list[str] = list(dict.fromkeys(warnings or []))
        self._cache: dict[bytes, DecodedString] = {}
        self._cache_size = max(1, cache_size)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Things a user should know about this font (may grow when a font program loads late)."""
        return tuple(self._warnings)

    def _warn(self, message: str) -> None:
        if message not in self._warnings:
            self._warnings.append(message)

    def decode(self, data: bytes) -> DecodedString:
        """Split a show string into codes and decode them (cached per byte string)."""
        if not isinstance(data, bytes):
            data = bytes(data)
        cache = self._cache
        hit = cache.pop(data, None)
        if hit is not None:
            cache[data] = hit  # most recently used goes last
            return hit
        try:
            result = self._decode(data)
        except MemoryError:
            raise  # the document fails (MemoryLimitError), never a warning
        except Exception as exc:  # a font defect found late must cost this string only
            self._warn(f"decoding failed ({describe(exc)}); shown as U+FFFD")
            result = replacement_string(data, FALLBACK_WIDTH)
        cache[data] = result
        if len(cache) > self._cache_size:
            del cache[next(iter(cache))]
        return result

    def _decode(self, data: bytes) -> DecodedString:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.subtype or '?'} {self.name!r}>"


class SingleByteFont(Font):
    """A font whose codes are single bytes decoded by lookups in 256-entry
    tables: the simple fonts (§9.6.6, §9.10.2).

    Besides ``decode``, the interpreter has a cheaper path for these fonts,
    because decoding every show string into its own arrays costs more than all
    the arithmetic on them: per string it needs only the glyph count (one per
    byte), the advance (``advance``) and the word-space count (bytes 32), and
    it looks the widths and texts of all glyphs of a page up in
    ``code_tables`` at once. The text tables still change while codes wait for
    a lazily read font program, so a string holding such a code has no
    ``advance``: it goes through ``decode``, which reads the program.
    """

    # Per font: the distinct show strings of a long document, cleared when full.
    ADVANCE_CACHE = 8192

    def __init__(self, *, widths: np.ndarray, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # w0 per code (the `widths` column of DecodedString), as Python floats:
        # summing them per string beats numpy on strings this short.
        self._width_list: list[float] = widths.tolist()
        # The same widths as the compiled core reads them (once per page per font).
        self._width_bytes = np.array(self._width_list, dtype=np.float64).tobytes()
        # Only strings that wait for nothing: codes stop waiting, never start.
        self._advances: dict[bytes, float] = {}

    def advance(self, data: bytes) -> float | None:
        """Sum of w0 over the codes of `data`, added left to right exactly as
        ``DecodedString.advance_sums`` adds them, so both paths move the text
        matrix by the same float; None when a code of `data` waits for the
        font program (decode `data` instead)."""
        advances = self._advances
        total = advances.get(data)
        if total is None:
            if self._waits_for_program(data):
                return None
            if len(advances) >= self.ADVANCE_CACHE:
                advances.clear()
            total = advances[data] = sum(map(self._width_list.__getitem__, data))
        return total

    def _waits_for_program(self, data: bytes) -> bool:
        """Whether `data` holds a code whose text waits for the font program."""
        return False

    def width_bytes(self) -> bytes:
        """w0 per code, 256 native float64 values (the compiled core's copy of
        the widths ``advance`` sums)."""
        return self._width_bytes

    def waiting_codes(self) -> bytes | None:
        """256 flags (one byte per code, 1 = waits for the font program), or
        None when no code waits: the compiled core's copy of
        ``_waits_for_program``."""
        return None

    def code_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(w0, text, undecodable) per code, 256 entries each (float64, object,
        bool), read-only. Exact for every string ``advance`` has accepted."""
        raise NotImplementedError


class FallbackFont(Font):
    """A font for dictionaries that cannot be read: one byte per code, every
    code U+FFFD (undecodable), every advance ``width``."""

    def __init__(
        self,
        *,
        name: str = "",
        subtype: str = "",
        width: float = FALLBACK_WIDTH,
        warnings: list[str] | None = None,
        cache_size: int = DEFAULT_DECODE_CACHE,
    ) -> None:
        super().__init__(name=name, subtype=subtype, warnings=warnings, cache_size=cache_size)
        self._width = width

    def _decode(self, data: bytes) -> DecodedString:
        return replacement_string(data, self._width)


def replacement_string(data: bytes, width: float) -> DecodedString:
    """One undecodable U+FFFD per byte, each advancing ``width``."""
    codes = np.frombuffer(data, dtype=np.uint8)
    n = len(codes)
    return DecodedString(
        texts=(REPLACEMENT,) * n,
        widths=frozen(np.full(n, width)),
        vertical_widths=frozen(np.zeros(n)),
        word_space=frozen(codes == 32),
        undecodable=frozen(np.ones(n, dtype=bool)),
        codes=frozen(codes.astype(np.int64)),
    )
