"""A page's boxes: inherited attributes (§7.7.3.4) and the visible box (§14.11.2).

The visible box decides which glyphs are page text (glyphs.py: box centre
inside it) and where the running-header bands lie (running.py); both take it
from ``visible_box`` here, so the two can never disagree on a page.
"""

from __future__ import annotations

from typing import Any

import pikepdf

from ragprep.extract.geometry import Box, intersect, is_empty

# A page without a usable MediaBox (§7.7.3.3 makes it required): US letter.
LETTER: Box = (0.0, 0.0, 612.0, 792.0)


def inherited(page_obj: pikepdf.Object, key: str, max_depth: int = 64) -> pikepdf.Object | None:
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


def normalized_box(obj: Any) -> Box | None:
    """A PDF rectangle as (x0, y0, x1, y1) with x0 <= x1, y0 <= y1 (§7.9.5)."""
    if obj is None:
        return None
    try:
        x0, y0, x1, y1 = (float(v) for v in obj)
    except (TypeError, ValueError):
        return None
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def visible_box(page_obj: pikepdf.Object) -> Box:
    """CropBox clipped to MediaBox (§14.11.2), each inherited as needed. A
    missing or unreadable MediaBox is US letter; a missing CropBox is the
    MediaBox; a CropBox that does not meet the MediaBox at all is damage, and
    the MediaBox is what a viewer shows then."""
    try:
        media = normalized_box(inherited(page_obj, "/MediaBox")) or LETTER
        crop = normalized_box(inherited(page_obj, "/CropBox")) or media
    except (pikepdf.PdfError, RecursionError, ValueError, TypeError):
        return LETTER
    box = intersect(crop, media)
    return media if is_empty(box) else box
