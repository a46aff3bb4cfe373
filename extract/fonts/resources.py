"""Parsed resources that the fonts of one document share.

Subset fonts of one document often point at the same ToUnicode stream, and
every CJK font of a document names the same predefined CMap: each is parsed
once per ``FontLoader`` (one loader per document, so nothing outlives it).
"""

from __future__ import annotations

from typing import Any

from ragprep.extract.fonts import pdfvalues as pv
from ragprep.extract.fonts.cmap import CMap, parse_cmap
from ragprep.extract.fonts.predefined import collection_unicode, load_predefined

# How deep a chain of embedded CMaps naming each other through /UseCMap may go.
_MAX_USECMAP_DEPTH = 4


class SharedResources:
    def __init__(self, max_stream_bytes: int) -> None:
        self.max_stream_bytes = max_stream_bytes
        self._streams: dict[tuple[int, int], tuple[CMap | None, str | None]] = {}
        self._predefined: dict[str, CMap | None] = {}
        self._collections: dict[tuple[str, bool], dict[int, str] | None] = {}

    def cmap_stream(self, stream: Any) -> tuple[CMap | None, str | None]:
        """A parsed CMap stream and a problem reading it, cached by object number."""
        key = pv.object_key(stream)
        if key is not None and key in self._streams:
            return self._streams[key]
        data, problem = pv.read_stream(stream, self.max_stream_bytes)
        result = (parse_cmap(data) if data is not None else None, problem)
        if key is not None:
            self._streams[key] = result
        return result

    def tounicode(self, font: Any, warnings: list[str]) -> CMap | None:
        """The font's ToUnicode CMap when it maps anything (§9.10.3)."""
        value = pv.get(font, "/ToUnicode")
        if value is None:
            return None
        if not pv.is_stream(value):
            # e.g. /ToUnicode /Identity-H: not a CMap stream; other sources decide.
            warnings.append("/ToUnicode is not a CMap stream; ignored")
            return None
        cmap, problem = self.cmap_stream(value)
        if cmap is None:
            warnings.append(f"ToUnicode CMap unreadable ({problem}); ignored")
            return None
        warnings.extend(f"ToUnicode: {w}" for w in cmap.warnings)
        return cmap if cmap.has_unicode() else None

    def predefined(self, name: str) -> CMap | None:
        if name not in self._predefined:
            self._predefined[name] = load_predefined(name)
        return self._predefined[name]

    def collection_unicode(self, ordering: str, vertical: bool) -> dict[int, str] | None:
        key = (ordering, vertical)
        if key not in self._collections:
            self._collections[key] = collection_unicode(ordering, vertical)
        return self._collections[key]

    def encoding_cmap(self, value: Any, warnings: list[str], depth: int = 0) -> CMap | None:
        """A Type0 /Encoding: a predefined CMap name or an embedded CMap stream
        (with its /UseCMap parent, §9.7.5.4)."""
        cmap_name = pv.name(value)
        if cmap_name is not None:
            cmap = self.predefined(cmap_name)
            if cmap is None:
                warnings.append(f"unknown predefined CMap /{cmap_name}")
            return cmap
        if not pv.is_stream(value):
            warnings.append("/Encoding is neither a CMap name nor a CMap stream")
            return None
        cmap, problem = self.cmap_stream(value)
        if cmap is None:
            warnings.append(f"encoding CMap unreadable ({problem})")
            return None
        warnings.extend(f"encoding CMap: {w}" for w in cmap.warnings)
        wmode = pv.integer(pv.get(value, "/WMode"))
        parent_ref = pv.get(value, "/UseCMap")
        parent: CMap | None = None
        if depth < _MAX_USECMAP_DEPTH:
            if parent_ref is not None:
                parent = self.encoding_cmap(parent_ref, warnings, depth + 1)
            elif cmap.usecmap:
                parent = self.predefined(cmap.usecmap)
        if parent is not None:
            cmap = cmap.over(parent)
        if wmode in (0, 1) and wmode != cmap.wmode:
            # The stream dictionary's /WMode states the CMap's writing mode (Table 120).
            cmap = cmap.over(CMap())
            cmap.wmode = wmode
        return cmap
