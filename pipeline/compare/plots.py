"""The PNG plots of a ``ragprep compare`` report, readable at a glance.

- ``tokens.png``: chunk sizes per mode, one histogram panel each on a shared axis, with the
  chunk budget (``chunk.max_tokens``) drawn as a line;
- ``order_score.png``: one row per document, named in full, with a marker per mode side by
  side on the row. Tagged documents: the order score of each mode against structure
  (structure itself is left out: it is 1.0 by definition), rows sorted by the gap between
  the modes, widest first. Untagged documents, when layout and stream are both compared:
  how far layout and stream agree (sequence agreement, order included, and word F1, order
  ignored), least agreeing first. The x axis spans the data, not 0 to 1.

matplotlib is imported inside the functions (its import costs ~0.5 s); figures are built
with ``matplotlib.figure.Figure``, never pyplot, so there is no global figure state.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from ragprep.pipeline.compare.measure import REFERENCE_MODE, CompareResult, DocumentComparison

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

MAX_ROWS = 40  # documents per panel; the rest (the least interesting) are counted in the title
MARKERS = ("o", "s", "D", "^", "v")
COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3")
UNTAGGED_PAIR = ("layout", "stream")


def short_names(sources: Sequence[str]) -> dict[str, str]:
    """Each source without the folders every source shares: ``tagged/a.pdf``, not
    ``/work/corpus/tagged/a.pdf``; a lone source keeps its file name."""
    if not sources:
        return {}
    parents = [str(PurePath(s).parent) for s in sources]
    try:
        common = os.path.commonpath(parents)
    except ValueError:  # absolute and relative sources mixed
        common = ""
    return {s: (os.path.relpath(s, common) if common else s) for s in sources}


@dataclass(frozen=True)
class Row:
    """One document's markers: (label, value) per series, None where a series has no value."""

    name: str
    values: tuple[float | None, ...]

    @property
    def present(self) -> list[float]:
        return [v for v in self.values if v is not None]

    @property
    def gap(self) -> float:
        """How far the series part on this document."""
        present = self.present
        return max(present) - min(present) if present else 0.0

    @property
    def worst(self) -> float:
        return min(self.present, default=1.0)


def _by_gap(rows: Sequence[Row]) -> list[Row]:
    """Widest gap first, then the lowest value: the documents worth looking at on top."""
    return sorted(rows, key=lambda r: (-r.gap, r.worst, r.name))


def _by_worst(rows: Sequence[Row]) -> list[Row]:
    return sorted(rows, key=lambda r: (r.worst, -r.gap, r.name))


def _shown(rows: list[Row]) -> tuple[list[Row], int]:
    """At most ``MAX_ROWS`` rows, keeping the ones furthest from full agreement."""
    if len(rows) <= MAX_ROWS:
        return rows, 0
    keep = set(id(r) for r in sorted(rows, key=lambda r: -max(r.gap, 1.0 - r.worst))[:MAX_ROWS])
    return [r for r in rows if id(r) in keep], len(rows) - MAX_ROWS


def _x_range(rows: Sequence[Row]) -> tuple[float, float]:
    """From a little under the lowest value (on a 0.05 grid) to just past 1."""
    low = min((v for r in rows for v in r.present), default=1.0)
    start = max(0.0, math.floor((low - 0.02) * 20) / 20)
    return min(start, 0.9), 1.005


def _draw_rows(ax: Axes, rows: Sequence[Row], series: Sequence[str], title: str, xlabel: str) -> None:
    """Rows top to bottom, one marker per series side by side on each row, a thin line
    across each row's gap, names in full on the left."""
    n = len(series)
    offsets = [0.0] if n == 1 else [0.36 * (i / (n - 1) - 0.5) for i in range(n)]
    ys = list(range(len(rows)))[::-1]  # first row on top
    for y, row in zip(ys, rows, strict=True):
        if row.gap > 0:
            ax.plot([min(row.present), max(row.present)], [y, y], color="#999999", linewidth=0.8, zorder=1)
    for i, label in enumerate(series):
        points = [(value, y + offsets[i]) for y, row in zip(ys, rows, strict=True) if (value := row.values[i]) is not None]
        ax.scatter(
            [p[0] for p in points], [p[1] for p in points], label=label, zorder=2, s=26,
            marker=MARKERS[i % len(MARKERS)], color=COLOURS[i % len(COLOURS)], edgecolors="white", linewidths=0.5,
        )
    ax.set_yticks(ys, [r.name for r in rows], fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlim(*_x_range(rows))
    ax.axvline(1.0, color="#333333", linewidth=0.8, linestyle=":", zorder=0)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_title(title, fontsize=10, loc="left")
    ax.legend(loc="lower left", fontsize=8, ncols=n, frameon=True)


def order_rows(result: CompareResult, names: dict[str, str]) -> tuple[list[str], list[Row]]:
    """Tagged documents: the order score of every mode but structure, sorted by gap."""
    series = [m for m in result.modes if m != REFERENCE_MODE]
    rows = [
        Row(names[d.source], tuple(d.metrics_of(m).order_score for m in series))  # type: ignore[union-attr]  # every mode read every document
        for d in result.documents
        if d.tagged
    ]
    return series, _by_gap(rows)


def untagged_documents(result: CompareResult) -> list[DocumentComparison]:
    """Documents with no page to score order on whose layout and stream readings both exist."""
    if not set(UNTAGGED_PAIR) <= set(result.modes):
        return []
    out = []
    for d in result.documents:
        pair = d.agreement(*UNTAGGED_PAIR)
        if not d.tagged and pair is not None and pair.pages:
            out.append(d)
    return out


def untagged_rows(result: CompareResult, names: dict[str, str]) -> list[Row]:
    rows = []
    for d in untagged_documents(result):
        pair = d.agreement(*UNTAGGED_PAIR)
        assert pair is not None
        rows.append(Row(names[d.source], (pair.sequence_agreement, pair.word_f1)))
    return _by_worst(rows)


def _panel_title(what: str, total: int, hidden: int) -> str:
    more = f"; {hidden} closer to 1 not shown" if hidden else ""
    return f"{what} ({total} document{'' if total == 1 else 's'}{more})"


def plot_order(result: CompareResult, path: Path) -> None:
    """``order_score.png``: see the module docstring."""
    order_figure(result).savefig(path, dpi=110)


def order_figure(result: CompareResult) -> Figure:
    from matplotlib.figure import Figure

    names = short_names([d.source for d in result.documents])
    series, tagged = order_rows(result, names)
    panels = []
    if tagged and series:
        rows, hidden = _shown(tagged)
        panels.append((rows, series, _panel_title("Order score against structure, per document", len(tagged), hidden),
                       "order score: share of structure's words read in structure's order (structure = 1)"))
    untagged = untagged_rows(result, names)
    if untagged:
        rows, hidden = _shown(untagged)
        panels.append((rows, ["sequence agreement", "word F1"],
                       _panel_title("Untagged documents: layout against stream", len(untagged), hidden),
                       "sequence agreement (LCS over the longer reading; order counts) and word F1 (order ignored)"))
    heights = [len(rows) * 0.24 + 1.3 for rows, *_ in panels] or [2.0]
    fig = Figure(figsize=(10, sum(heights)), layout="constrained")
    if not panels:
        ax = fig.subplots()
        ax.text(0.5, 0.5, "no page where structure is available, and no layout and stream readings to compare",
                ha="center", va="center", fontsize=10)
        ax.set_axis_off()
    else:
        axes = fig.subplots(len(panels), 1, squeeze=False, height_ratios=heights)[:, 0]
        for ax, (rows, labels, title, xlabel) in zip(axes, panels, strict=True):
            _draw_rows(ax, rows, labels, title, xlabel)
    return fig


def plot_tokens(result: CompareResult, path: Path) -> None:
    """``tokens.png``: histogram of chunk sizes in tokens per mode, the budget as a line."""
    tokens_figure(result).savefig(path, dpi=110)


def tokens_figure(result: CompareResult) -> Figure:
    from matplotlib.figure import Figure

    totals = result.totals
    fig = Figure(figsize=(8, 1.8 * max(1, len(totals)) + 0.9), layout="constrained")
    axes = fig.subplots(len(totals), 1, sharex=True, squeeze=False)[:, 0]
    top = max([m.tokens.max for m in totals] + [result.max_tokens or 0])
    # Edges on a 16-token grid ending at the budget: a chunk of exactly max_tokens falls in
    # the last bin left of the line, not in one that looks past it.
    bins = list(range(0, math.ceil(max(top, 1) / 16) * 16 + 1, 16))
    for ax, m in zip(axes, totals, strict=True):
        ax.hist(m.chunk_tokens, bins=bins, color="#4c72b0")
        ax.set_ylabel("chunks", fontsize=9)
        p50 = "–" if math.isnan(m.tokens.p50) else f"{m.tokens.p50:.0f}"
        ax.set_title(f"{m.mode}: {len(m.chunk_tokens)} chunks, median {p50} tokens", fontsize=9, loc="left")
        ax.set_ylim(top=ax.get_ylim()[1] * 1.2)  # headroom for the budget's label
        if result.max_tokens:
            ax.axvline(result.max_tokens, color="#c44e52", linewidth=1.2, linestyle="--")
            ax.text(result.max_tokens, 0.97, f"chunk.max_tokens = {result.max_tokens} ", color="#c44e52",
                    fontsize=8, ha="right", va="top", transform=ax.get_xaxis_transform(),
                    bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1})
    axes[-1].set_xlabel("tokens per chunk")
    fig.suptitle("Chunk sizes per mode", fontsize=10, x=0.01, ha="left")
    return fig
