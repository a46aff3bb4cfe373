"""Predefined CMaps (ISO 32000-1 §9.7.5.2, Table 118) and the Unicode of the
Adobe character collections (§9.10.2), both from pdfminer.six's data files.

pdfminer.six ships every predefined CMap as a code -> CID trie without the
codespace ranges. The trie is read in place (no copy per document), and the
codespace is rebuilt from its depth under each lead byte, which is exact for
the real CMaps (Shift-JIS and EUC lead bytes, UTF-16 surrogates) and enough
for splitting strings. pdfminer.six is imported only when a document names
one of these CMaps.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, cast

from ragprep.extract.fonts.cmap import CMap, CodespaceRange

IDENTITY_CMAPS = {"Identity-H": 0, "Identity-V": 1}

# The Adobe character collections whose CID -> Unicode tables exist (§9.10.2 step b).
COLLECTIONS = frozenset({"GB1", "CNS1", "Japan1", "Korea1"})

# Unicode-based predefined CMaps: the character code is itself the text (§9.10.2).
_UNICODE_CMAP = re.compile(r"Uni\w*?-(UCS2|UTF16|UTF32|UTF8)(?:-HW)?-[HV]")
_CODECS = {"UCS2": "utf-16-be", "UTF16": "utf-16-be", "UTF32": "utf-32-be", "UTF8": "utf-8"}


def identity_cmap(name: str) -> CMap:
    """Identity-H / Identity-V: two-byte codes, CID = code."""
    return CMap(
        name=name,
        wmode=IDENTITY_CMAPS[name],
        codespace=[CodespaceRange(b"\x00\x00", b"\xff\xff")],
        cid_ranges=[(0, 0xFFFF, 0)],
        code_lengths={2},
    )


def unicode_codec(cmap_name: str) -> str | None:
    """The codec that turns codes of a Unicode-based predefined CMap into text."""
    match = _UNICODE_CMAP.fullmatch(cmap_name)
    return _CODECS[match.group(1)] if match else None


def load_predefined(name: str) -> CMap | None:
    """A predefined CMap by name, or None when pdfminer.six does not know it."""
    if name in IDENTITY_CMAPS:
        return identity_cmap(name)
    from pdfminer.cmapdb import CMapDB

    try:
        source: Any = CMapDB.get_cmap(name)
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception:  # CMapNotFound, or a damaged data file
        return None
    trie = getattr(source, "code2cid", None)
    if not isinstance(trie, dict):
        return None
    cmap = CMap(name=name, wmode=1 if source.is_vertical() else 0, trie=trie)
    for lead, depth in _lead_depths(name):
        cmap.codespace.append(
            CodespaceRange(bytes([lead]) + b"\x00" * (depth - 1), bytes([lead]) + b"\xff" * (depth - 1))
        )
        cmap.code_lengths.add(depth)
    return cmap


@lru_cache(maxsize=64)
def _lead_depths(name: str) -> tuple[tuple[int, int], ...]:
    """(lead byte, code length) per lead byte of the predefined CMap `name`
    (load_predefined has read it). pdfminer.six holds its trie once per
    process; walking it costs more than reading a page, so it is walked once
    per process too, not once per document."""
    from pdfminer.cmapdb import CMap, CMapDB

    # A predefined CMap is pdfminer's PyCMap, a CMap with its code-to-CID trie;
    # get_cmap is declared to return their base class.
    trie: dict[Any, Any] = cast(CMap, CMapDB.get_cmap(name)).code2cid
    found = []
    for lead in sorted(k for k in trie if isinstance(k, int) and 0 <= k <= 255):
        depth = _leaf_depth(trie[lead])
        if depth is not None:
            found.append((lead, depth))
    return tuple(found)


def _leaf_depth(node: Any) -> int | None:
    """Code length under one lead byte: the shallowest level holding a CID."""
    level, depth = [node], 1
    while level and depth <= 4:
        deeper: list[Any] = []
        for item in level:
            if isinstance(item, int):
                return depth
            if isinstance(item, dict):
                deeper.extend(child for child in item.values() if isinstance(child, (int, dict)))
        level, depth = deeper, depth + 1
    return None


def collection_unicode(ordering: str, vertical: bool) -> dict[int, str] | None:
    """CID -> Unicode for Adobe-GB1/CNS1/Japan1/Korea1, or None."""
    if ordering not in COLLECTIONS:
        return None
    from pdfminer.cmapdb import CMapDB

    try:
        umap: Any = CMapDB.get_unicode_map(f"Adobe-{ordering}", vertical)
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception:
        return None
    table = getattr(umap, "cid2unichr", None)
    return table if isinstance(table, dict) else None
