"""Loading font dictionaries, once per document.

``FontLoader.get`` never raises: a dictionary that cannot be read becomes a
``FallbackFont`` (every code U+FFFD, a default advance) carrying a warning, so
one broken font costs its own text and nothing else.
"""

from __future__ import annotations

from typing import Any

from ragprep.extract.config import ExtractConfig
from ragprep.extract.errors import describe
from ragprep.extract.fonts import pdfvalues as pv
from ragprep.extract.fonts.composite import CompositeFont
from ragprep.extract.fonts.font import DEFAULT_DECODE_CACHE, FallbackFont, Font
from ragprep.extract.fonts.metrics import FALLBACK_WIDTH
from ragprep.extract.fonts.resources import SharedResources
from ragprep.extract.fonts.simple import SimpleFont

SIMPLE_SUBTYPES = frozenset({"Type1", "MMType1", "TrueType", "Type3"})


class FontLoader:
    """Loads and caches the fonts of one document."""

    def __init__(
        self,
        *,
        max_stream_bytes: int | None = None,
        decode_cache_size: int = DEFAULT_DECODE_CACHE,
    ) -> None:
        if max_stream_bytes is None:
            max_stream_bytes = ExtractConfig().max_stream_bytes
        self._shared = SharedResources(max_stream_bytes)
        self._cache_size = decode_cache_size
        # Indirect fonts by (object number, generation); direct ones by their
        # serialized text: pikepdf hands out a new wrapper object on every
        # access, so id() of a direct dictionary identifies nothing.
        self._fonts: dict[object, Font] = {}
        self._no_font: Font | None = None

    def get(self, font_obj: Any) -> Font:
        """The Font for a font dictionary (None: a fallback font)."""
        if font_obj is None:
            if self._no_font is None:
                self._no_font = FallbackFont(warnings=["no font dictionary"], cache_size=self._cache_size)
            return self._no_font
        key = _cache_key(font_obj)
        font = self._fonts.get(key) if key is not None else None
        if font is None:
            font = self._load(font_obj)
            if key is not None:
                self._fonts[key] = font
        return font

    def _load(self, font_obj: Any) -> Font:
        name = ""
        subtype = ""
        try:
            font = pv.dictionary(font_obj)
            if font is None:
                return FallbackFont(warnings=["font resource is not a dictionary"], cache_size=self._cache_size)
            name = pv.name(pv.get(font, "/BaseFont")) or ""
            subtype = pv.name(pv.get(font, "/Subtype")) or ""
            if subtype in SIMPLE_SUBTYPES:
                return SimpleFont(font, subtype, self._shared, self._cache_size)
            if subtype == "Type0":
                return CompositeFont(font, self._shared, self._cache_size)
            if not subtype and name:
                # §9.6.2 requires /Subtype; a named font without one is most
                # likely Type 1, which is what other readers assume too.
                return SimpleFont(font, "Type1", self._shared, self._cache_size, notes=("no /Subtype; read as Type1",))
            problem = f"unsupported font subtype /{subtype}" if subtype else "font dictionary without /Subtype"
            return self._fallback(font, name, subtype, problem)
        except MemoryError:
            raise  # the document fails (MemoryLimitError), never a warning
        except Exception as exc:  # a damaged dictionary must not cost the page
            return self._fallback(font_obj, name, subtype, f"font unreadable ({describe(exc)})")

    def _fallback(self, font: Any, name: str, subtype: str, problem: str) -> Font:
        width = FALLBACK_WIDTH
        try:
            missing = pv.number(pv.get(pv.get(font, "/FontDescriptor"), "/MissingWidth"))
            if missing is not None and missing > 0:
                width = missing / 1000.0
        except MemoryError:
            raise  # the document fails (MemoryLimitError), never a warning
        except Exception:
            pass
        return FallbackFont(name=name, subtype=subtype, width=width, warnings=[problem], cache_size=self._cache_size)


def _cache_key(font_obj: Any) -> object:
    key = pv.object_key(font_obj)
    if key is not None:
        return key
    try:
        return ("direct", font_obj.unparse())
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception:
        return None
