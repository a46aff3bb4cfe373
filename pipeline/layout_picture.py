"""``ragprep layout --draw``: a page with what layout mode saw drawn over it.

The page's glyph boxes in grey; each line layout mode read as a box coloured
by its leaf (a column, a part of one, a column-free band), each leaf's outline
dashed with its number, and the reading order as a path through the lines'
starts, numbered. What a person checks a reading order against, as
pdfplumber's visual debugging does for its own objects.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ragprep.extract import GlyphTable, LayoutPicture

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


def draw_layout(table: GlyphTable, picture: LayoutPicture | None, out: Path, title: str) -> None:
    """Write the picture of the page (glyphs of `table`, lines and leaves of
    `picture`, None when layout keeps stream order outright) to `out` as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    visible = np.flatnonzero(table.visible)
    quads = table.quad[visible]
    points = quads.reshape(-1, 2) if len(quads) else np.zeros((1, 2))
    lines = picture.to_page(picture.line_box) if picture is not None and len(picture.line_box) else None
    if lines is not None:
        points = np.concatenate([points, lines.reshape(-1, 2)])
    low, high = points.min(axis=0) - 10, points.max(axis=0) + 10
    width, height = high - low
    scale = 11 / max(width, height)
    fig, ax = plt.subplots(figsize=(max(width * scale, 3), max(height * scale, 3)), dpi=110)
    ax.add_collection(PolyCollection(list(quads), facecolors="#dddddd", edgecolors="#bbbbbb", linewidths=0.3))
    if picture is not None and lines is not None:
        _draw_lines(ax, picture, lines)
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    ax.set_aspect("equal")
    ax.set_title(title, fontsize=9)
    ax.tick_params(labelsize=6)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def _draw_lines(ax: Axes, picture: LayoutPicture, lines: np.ndarray) -> None:
    from matplotlib.collections import PolyCollection

    colour = [_COLOURS[leaf % len(_COLOURS)] for leaf in picture.line_leaf.tolist()]
    ax.add_collection(
        PolyCollection(list(lines), facecolors="none", edgecolors=colour, linewidths=0.8)
    )
    # Leaves: the outline of their lines' boxes, numbered at the top left.
    for leaf in np.unique(picture.line_leaf).tolist():
        boxes = picture.line_box[picture.line_leaf == leaf]
        outline = np.array([[boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 2].max(), boxes[:, 3].max()]])
        corners = picture.to_page(outline)
        tint = _COLOURS[leaf % len(_COLOURS)]
        ax.add_collection(
            PolyCollection(list(corners), facecolors="none", edgecolors=tint, linewidths=1.4, linestyles="dashed")
        )
        ax.annotate(
            f"leaf {leaf + 1}", corners[0, 3], fontsize=7, color=tint, fontweight="bold",
            xytext=(0, 2), textcoords="offset points",
        )  # fmt: skip
    # Reading order: a path through each line's start (the frame's left end
    # of its box, halfway up), every line numbered.
    start = (lines[:, 0] + lines[:, 3]) / 2
    ax.plot(start[:, 0], start[:, 1], color="#444444", linewidth=0.5, alpha=0.7)
    for k, (x, y) in enumerate(start.tolist()):
        ax.annotate(str(k + 1), (x, y), fontsize=4, color="#000000", ha="right", va="center")
