"""Tables on untagged pages: grids found in the page's geometry, read row by row.

Two named rules, each conservative (a page region that does not pass stays prose):

* ``ruled_grids`` (method ``rules``): horizontal and vertical rules — straight
  LINE pieces and thin RECTs of the path table (``extract.paths``), and the
  edges of larger RECTs (cell boxes, row shading) — that cross each other form
  a grid. Its column edges are the distinct x of its vertical rules, its row
  edges the distinct y of its horizontal rules; where the rule between two
  neighbouring slots is missing the slots are one cell (a span). Rows and
  columns holding no text are dropped. A grid needs two rows and two columns
  with text, cells that are not boxes around prose (``RULED_MAX_CELL_WORDS``),
  and at most ``RULED_MAX_SPANNING_SHARE`` of its text cells spanning columns
  (more is a figure's labelled boxes or callouts, whose edges make columns
  the text does not keep).
* ``aligned_grids`` (method ``alignment``): with no rules, consecutive text
  lines split by wide gaps (``TABLE_COLUMN_GAP`` x the glyph height, far more
  than a word space) into pieces whose x extents line up in the same columns
  across at least three lines. Prose in two columns lines up too, so cells must
  be short (``TABLE_MAX_CELL_WORDS`` words on average, ``TWO_COLUMN_MAX_CELL_WORDS``
  with two columns only).
  A table in one column of a two-column page lines up with the other column's
  prose lines beside it: an edge column of long pieces (more than
  ``TABLE_MAX_CELL_WORDS`` words on average, at least as wide as the rest of the
  grid) is that neighbouring text, left out of the table and left as prose.

A cell's text is its own glyphs joined by the page-text rules (geometric.join)
in content-stream order; its span in the page text runs from its first to its
last glyph as the page reading placed them. Glyphs are assigned to slots by the
centre of their box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType
from typing import NamedTuple

import numpy as np

from ragprep.extract.config import ExtractConfig
from ragprep.extract.geometric import JoinedText, join, text_glyphs
from ragprep.extract.glyphs import NO_MCID, GlyphTable, rows_at
from ragprep.extract.groups import concat_ranges, group_ids, group_medians, running_max
from ragprep.extract.native import compiled_grids
from ragprep.extract.paths import LINE, RECT, PathTable
from ragprep.extract.rows import frozen_rows
from ragprep.extract.tables import ALIGNMENT, RULES, Table, TableCell

# Rules: a piece at most this thick (points) is a rule; shorter than
# RULE_MIN_LENGTH it is a dot or a glyph-like mark.
RULE_THICKNESS = 3.0
RULE_MIN_LENGTH = 5.0
# Two rules closer than this are the same edge; a rule ending this close to
# another one still meets it.
EDGE_TOLERANCE = 2.0
# More rule pairs than this on a page (maps, charts) are not looked at.
MAX_RULE_PAIRS = 4_000_000
# Alignment: a gap wider than this many glyph heights separates columns.
TABLE_COLUMN_GAP = 1.2
TABLE_MIN_ROWS = 3
TABLE_MAX_CELL_WORDS = 5.0
# Two columns of short lines are as often prose in two columns: shorter cells still.
TWO_COLUMN_MAX_CELL_WORDS = 3.0
# Lines of one aligned table sit at most this many heights apart.
TABLE_MAX_ROW_GAP = 2.6


class _Cell(NamedTuple):  # a tuple: grids of hundreds of cells are built per page
    row: int
    col: int
    row_span: int
    col_span: int
    glyphs: np.ndarray  # glyph table indices


class _Grid(NamedTuple):
    """A grid's cells column-wise, as detect_tables reads them: per cell its
    row, column and spans, and its glyphs, the next `sizes` of `glyphs`."""

    row: list[int]
    col: list[int]
    row_span: list[int]
    col_span: list[int]
    glyphs: np.ndarray  # the cells' glyphs, cell after cell
    sizes: np.ndarray  # per cell, how many


def _grid_of(cells: list[_Cell]) -> _Grid:
    """The cells (at least one) column-wise."""
    row, col, row_span, col_span, runs = (list(column) for column in zip(*cells, strict=True))
    sizes = np.fromiter(map(len, runs), dtype=np.int64, count=len(runs))
    if not sizes.all():  # an empty cell's array may have another dtype: left out of the join
        runs = [runs[k] for k in np.flatnonzero(sizes).tolist()]
    glyphs = np.concatenate(runs) if runs else np.zeros(0, dtype=np.int64)
    return _Grid(row, col, row_span, col_span, glyphs, sizes)


# Ruled grids: cells averaging more words than this are boxes around prose.
RULED_MAX_CELL_WORDS = 20.0
# Ruled grids: when more than this share of the cells with text spans several
# columns, the columns are not the text's (labelled boxes of a figure, callouts).
RULED_MAX_SPANNING_SHARE = 0.5


# --------------------------------------------------------------------------- rules


def _rules(paths: PathTable) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal rules (y, x0, x1) and vertical rules (x, y0, y1)."""
    x0, y0, x1, y1 = paths.x0, paths.y0, paths.x1, paths.y1
    grids = compiled_grids()
    if grids is not None:  # the same tests, one pass per output part (extract/_grids.c)
        n = len(paths)
        horizontal, vertical = np.empty((3 * n, 3)), np.empty((3 * n, 3))
        n_h, n_v = grids.rules(
            *(np.ascontiguousarray(c, dtype=np.float64) for c in (x0, y0, x1, y1)),
            np.ascontiguousarray(paths.kind, dtype=np.uint8), LINE, RECT, RULE_THICKNESS, RULE_MIN_LENGTH,
            horizontal, vertical,
        )  # fmt: skip
        return horizontal[:n_h], vertical[:n_v]
    lo_x, hi_x = np.minimum(x0, x1), np.maximum(x0, x1)
    lo_y, hi_y = np.minimum(y0, y1), np.maximum(y0, y1)
    width, height = hi_x - lo_x, hi_y - lo_y
    line, rect = paths.kind == LINE, paths.kind == RECT
    thin_h = (line | rect) & (height <= RULE_THICKNESS) & (width >= RULE_MIN_LENGTH)
    thin_v = (line | rect) & (width <= RULE_THICKNESS) & (height >= RULE_MIN_LENGTH)
    box = rect & (width > RULE_THICKNESS) & (height > RULE_THICKNESS)
    mid_y, mid_x = (lo_y + hi_y) / 2, (lo_x + hi_x) / 2
    horizontal = np.concatenate(
        [
            np.stack([mid_y[thin_h], lo_x[thin_h], hi_x[thin_h]], axis=1),
            np.stack([lo_y[box], lo_x[box], hi_x[box]], axis=1),
            np.stack([hi_y[box], lo_x[box], hi_x[box]], axis=1),
        ]
    )
    vertical = np.concatenate(
        [
            np.stack([mid_x[thin_v], lo_y[thin_v], hi_y[thin_v]], axis=1),
            np.stack([lo_x[box], lo_y[box], hi_y[box]], axis=1),
            np.stack([hi_x[box], lo_y[box], hi_y[box]], axis=1),
        ]
    )
    return horizontal, vertical


def _merge_collinear(segments: np.ndarray) -> np.ndarray:
    """Rules (position, from, to) on one line that touch or overlap joined into one:
    a border drawn cell by cell is one rule."""
    if len(segments) < 2:
        return segments
    t = EDGE_TOLERANCE
    grids = compiled_grids()
    if grids is not None:  # the same loop, compiled (extract/_grids.c)
        segments = np.ascontiguousarray(segments, dtype=np.float64)
        joined = np.empty_like(segments)
        count = grids.merge_collinear(segments, t, joined)
        if count is not None:
            return joined[:count]
    order = np.lexsort((segments[:, 1], segments[:, 0]))
    out: list[list[float]] = []
    group_start = 0
    for seg in segments[order].tolist():
        merged = False
        for k in range(group_start, len(out)):
            cur = out[k]
            if abs(cur[0] - seg[0]) <= t and seg[1] <= cur[2] + t:
                cur[2] = max(cur[2], seg[2])
                merged = True
                break
        if not merged:
            if out and abs(out[-1][0] - seg[0]) > t:
                group_start = len(out)
            out.append(list(seg))
    return np.array(out)


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _edges(values: np.ndarray) -> np.ndarray:
    """Distinct positions: values closer than EDGE_TOLERANCE are one edge (their mean).
    A grid has tens of edges: plain floats, not numpy calls per group."""
    if not np.isfinite(values).all():  # NaN sorts last in numpy, nowhere in Python
        ordered_array = np.sort(values)
        groups = np.split(ordered_array, np.flatnonzero(np.diff(ordered_array) > EDGE_TOLERANCE) + 1)
        return np.array([g.mean() for g in groups])
    ordered = sorted(values.tolist())
    means: list[float] = []
    start = 0
    for end in range(1, len(ordered) + 1):
        if end < len(ordered) and ordered[end] - ordered[end - 1] <= EDGE_TOLERANCE:
            continue
        # One or two values sum as np.mean sums them (from 0, so a lone -0.0
        # is 0.0 in both); three or more it sums in its own order: np.mean.
        group = ordered[start:end]
        means.append(sum(group) / len(group) if len(group) <= 2 else float(np.mean(group)))
        start = end
    return np.array(means)


def ruled_grids(table: GlyphTable, paths: PathTable, glyphs: np.ndarray) -> list[list[_Cell]]:
    """Grids of crossing rules, with the glyphs (of `glyphs`) in their cells."""
    if not len(paths):
        return []
    kernels = compiled_grids()
    if kernels is not None:  # the whole rule, one call (extract/_grids.c ruled_grids)
        found = _compiled_ruled_grids(kernels, table, paths, glyphs)
        if found is not None:
            return found
    horizontal, vertical = _rules(paths)
    horizontal, vertical = _merge_collinear(horizontal), _merge_collinear(vertical)
    if not len(horizontal) or not len(vertical) or len(horizontal) * len(vertical) > MAX_RULE_PAIRS:
        return []
    n_h = len(horizontal)
    roots = _rule_components(horizontal, vertical)
    grids = []
    # Only sets of at least two rules each way can make a grid (most sets are
    # a lone underline or a frame's side): the others are not looked at.
    h_count = np.bincount(roots[:n_h], minlength=len(roots))
    v_count = np.bincount(roots[n_h:], minlength=len(roots))
    for root in np.flatnonzero((h_count >= 2) & (v_count >= 2)).tolist():
        hs = horizontal[roots[:n_h] == root]
        vs = vertical[roots[n_h:] == root]
        edges = _grid_edges(hs, vs)
        if edges is None:
            continue
        cells = _grid_cells(table, hs, vs, *edges, glyphs)
        if cells:
            grids.append(cells)
    return grids


def _ruled_cells(
    grids: ModuleType, table: GlyphTable, paths: PathTable, glyphs: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """extract/_grids.c ruled_grids' answer: its cells (grid, row, column,
    row span, column span, start and end in the glyphs, one row each, grid
    after grid) and the glyphs; None when it declines."""
    found = grids.ruled_grids(
        *_ruled_arguments(paths),
        *(np.ascontiguousarray(c, dtype=np.float64) for c in (table.quad, table.origin, table.own_end, table.height)),
        table.text, np.ascontiguousarray(glyphs, dtype=np.int64),
    )  # fmt: skip
    if found is None:
        return None
    cells, held = (np.frombuffer(part, dtype=np.int64) for part in found)
    return cells.reshape(-1, 7), held


def _ruled_arguments(paths: PathTable) -> tuple[object, ...]:
    """The ruled rule's inputs as _grids.c's ruled_grids and find_grids take
    them first: the page's path columns and the rule's thresholds."""
    return (
        *(np.ascontiguousarray(c, dtype=np.float64) for c in (paths.x0, paths.y0, paths.x1, paths.y1)),
        np.ascontiguousarray(paths.kind, dtype=np.uint8), LINE, RECT, RULE_THICKNESS, RULE_MIN_LENGTH, EDGE_TOLERANCE,
        MAX_RULE_PAIRS, RULED_MAX_CELL_WORDS, RULED_MAX_SPANNING_SHARE,
    )  # fmt: skip


def _compiled_ruled_grids(
    grids: ModuleType, table: GlyphTable, paths: PathTable, glyphs: np.ndarray
) -> list[list[_Cell]] | None:
    """``ruled_grids`` by extract/_grids.c's ruled_grids (_ruled_cells): the
    same rules, sets, edges, slots, spans and _compress; None when it
    declines (a value not finite, a text that is no str)."""
    found = _ruled_cells(grids, table, paths, glyphs)
    if found is None:
        return None
    cells, held = found
    grids_found: list[list[_Cell]] = []
    for grid, row, col, row_span, col_span, start, end in cells.tolist():
        if grid == len(grids_found):
            grids_found.append([])
        grids_found[grid].append(_Cell(row, col, row_span, col_span, held[start:end]))
    return grids_found


def _ruled_grid_columns(table: GlyphTable, paths: PathTable, glyphs: np.ndarray) -> list[_Grid]:
    """``ruled_grids`` column-wise: from the ruled_grids kernel's cells as
    they come (hundreds of cells on a ruled page, none made one by one),
    else of the cells ruled_grids' reference makes."""
    kernels = compiled_grids()
    found = _ruled_cells(kernels, table, paths, glyphs) if kernels is not None and len(paths) else None
    if found is not None:
        return _grid_columns_of(*found)
    return [_grid_of(cells) for cells in ruled_grids(table, paths, glyphs)]


def _rule_components(horizontal: np.ndarray, vertical: np.ndarray) -> np.ndarray:
    """Per rule (the horizontal ones, then the vertical ones), the root of
    its set of rules joined by crossings: a horizontal and a vertical rule
    cross when each reaches the other's line (within EDGE_TOLERANCE)."""
    t = EDGE_TOLERANCE
    n_h = len(horizontal)
    grids = compiled_grids()
    if grids is not None:  # the same union-find, pair by pair, compiled (extract/_grids.c)
        roots = np.empty(n_h + len(vertical), dtype=np.int64)
        grids.rule_components(
            np.ascontiguousarray(horizontal, dtype=np.float64), np.ascontiguousarray(vertical, dtype=np.float64), t, roots
        )
        return roots
    h, v = horizontal[:, None, :], vertical[None, :, :]
    meets = (
        (v[..., 0] >= h[..., 1] - t)
        & (v[..., 0] <= h[..., 2] + t)
        & (h[..., 0] >= v[..., 1] - t)
        & (h[..., 0] <= v[..., 2] + t)
    )
    parent = list(range(n_h + len(vertical)))
    for i, j in zip(*np.nonzero(meets), strict=True):
        a, b = _find(parent, int(i)), _find(parent, n_h + int(j))
        if a != b:
            parent[a] = b
    return np.array([_find(parent, i) for i in range(len(parent))], dtype=np.int64)


def _rules_across(rules: np.ndarray, edges: np.ndarray, middles: np.ndarray) -> np.ndarray:
    """Per middle m and edge e: does one of `rules` (position, from, to) lie
    on edge e (within EDGE_TOLERANCE) and reach middle m?"""
    t = EDGE_TOLERANCE
    on_edge = np.abs(rules[None, :, 0] - edges[:, None]) <= t
    reaching = (rules[None, :, 1] - t <= middles[:, None]) & (rules[None, :, 2] + t >= middles[:, None])
    across: np.ndarray = (reaching.astype(np.int64) @ on_edge.T.astype(np.int64)) > 0
    return across


def _grid_edges(hs: np.ndarray, vs: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The column edges and the row edges (top first) of a set of rules, or
    None when they are not two columns and two rows (_compress would find no
    grid there: a box or a rule)."""
    # The grid's outer edges are where its rules end: a table open at the
    # sides (horizontal rules only there) still has its first and last column.
    xs = _edges(np.concatenate([vs[:, 0], [hs[:, 1].min(), hs[:, 2].max()]]))
    if len(xs) < 3:
        return None  # not two columns: its rows need not be found
    ys = _edges(np.concatenate([hs[:, 0], [vs[:, 1].min(), vs[:, 2].max()]]))[::-1]  # top first
    return None if len(ys) < 3 else (xs, ys)


def _grid_cells(
    table: GlyphTable, hs: np.ndarray, vs: np.ndarray, xs: np.ndarray, ys: np.ndarray, glyphs: np.ndarray
) -> list[_Cell]:
    """The cells of the grid of rules `hs` and `vs` on column edges `xs` and
    row edges `ys` (_grid_edges), with the glyphs whose centres lie in them."""
    n_rows, n_cols = len(ys) - 1, len(xs) - 1
    inside, row, col = _glyph_slots(table, glyphs, xs, ys)
    if len(inside) < 2:
        return []  # not two rows and two columns with text (_compress)
    # Slots joined where no rule parts them: a span. Which slot borders a
    # rule lies on, for all of them at once: rows by inner column edges for
    # the vertical rules, columns by inner row edges for the horizontal ones.
    parted_right = _rules_across(vs, xs[1:-1], (ys[:-1] + ys[1:]) / 2)  # (n_rows, n_cols - 1)
    parted_below = _rules_across(hs, ys[1:-1], (xs[:-1] + xs[1:]) / 2).T  # (n_rows - 1, n_cols)
    cell_of_slot, spans = _spans(parted_right, parted_below, n_rows, n_cols)
    # Each glyph to the cell of its slot; a stable sort by cell keeps every
    # cell's glyphs in their order in `glyphs`.
    cell_of = cell_of_slot[row * n_cols + col]
    by_cell = np.argsort(cell_of, kind="stable")
    bounds = np.searchsorted(cell_of[by_cell], np.arange(len(spans) + 1)).tolist()
    held = glyphs[inside[by_cell]]
    cells = [
        _Cell(r, c, row_span, col_span, held[bounds[k] : bounds[k + 1]])
        for k, (r, c, row_span, col_span) in enumerate(spans.tolist())
    ]
    return _compress(table, cells)


def _spans(
    parted_right: np.ndarray, parted_below: np.ndarray, n_rows: int, n_cols: int
) -> tuple[np.ndarray, np.ndarray]:
    """The slots of an n_rows x n_cols grid joined into cells where no rule
    parts them (`parted_right`: between slot (r, c) and (r, c + 1);
    `parted_below`: between (r, c) and (r + 1, c)): per slot (row-major) its
    cell, the cells numbered in the order of their first slot, and per cell
    its least row and column and the rows and columns it spans from there.
    Union-find, compiled in _grids.c grid_spans."""
    grids = compiled_grids()
    if grids is not None:
        cell_of_slot, spans = np.empty(n_rows * n_cols, dtype=np.int64), np.empty((n_rows * n_cols, 4), dtype=np.int64)
        count = grids.grid_spans(
            *(np.ascontiguousarray(p, dtype=bool) for p in (parted_right, parted_below)), n_rows, n_cols, cell_of_slot, spans
        )
        return cell_of_slot, spans[:count]
    parent = list(range(n_rows * n_cols))
    for r, c in zip(*(v.tolist() for v in np.nonzero(~parted_right)), strict=True):
        parent[_find(parent, r * n_cols + c)] = _find(parent, r * n_cols + c + 1)
    for r, c in zip(*(v.tolist() for v in np.nonzero(~parted_below)), strict=True):
        parent[_find(parent, r * n_cols + c)] = _find(parent, (r + 1) * n_cols + c)
    number: dict[int, int] = {}
    cell_of = [number.setdefault(_find(parent, slot), len(number)) for slot in range(n_rows * n_cols)]
    members: list[list[int]] = [[] for _ in number]
    for slot, cell in enumerate(cell_of):
        members[cell].append(slot)
    boxes: list[tuple[int, int, int, int]] = []
    for slots in members:
        rows, cols = [s // n_cols for s in slots], [s % n_cols for s in slots]
        boxes.append((min(rows), min(cols), max(rows) - min(rows) + 1, max(cols) - min(cols) + 1))
    return np.array(cell_of, dtype=np.int64), np.array(boxes, dtype=np.int64).reshape(-1, 4)


def _glyph_slots(
    table: GlyphTable, glyphs: np.ndarray, xs: np.ndarray, ys: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """_slots of the box centres of `glyphs` (the mean of each quad's
    corners, summed in the order quad.mean(axis=1) sums them); in one pass
    over the glyphs where _grids.c grid_slots runs (it declines edges that
    are not finite)."""
    grids = compiled_grids()
    if grids is not None:
        inside, row, col = (np.empty(len(glyphs), dtype=np.int64) for _ in range(3))
        count = grids.grid_slots(
            np.ascontiguousarray(table.quad), np.ascontiguousarray(glyphs, dtype=np.int64),
            *(np.ascontiguousarray(edges, dtype=np.float64) for edges in (xs, ys)), inside, row, col,
        )  # fmt: skip
        if count is not None:
            return inside[:count], row[:count], col[:count]
    corners = rows_at(table.quad, glyphs)
    with np.errstate(invalid="ignore", over="ignore"):  # a NaN or infinite centre lies in no slot: silently
        centres = (((corners[:, 0] + corners[:, 1]) + corners[:, 2]) + corners[:, 3]) / 4
    return _slots(xs, ys, centres)


def _slots(xs: np.ndarray, ys: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The glyphs (positions in `centres`) whose box centre lies in a slot of
    the grid of column edges `xs` and row edges `ys` (top first), in order,
    with the row and column of that slot. Only centres within the outer
    edges are searched: searchsorted puts a centre in a slot exactly when
    xs[0] < x <= xs[-1] and ys[-1] <= y < ys[0], but for a NaN edge, which
    it sorts last and a comparison never passes; then every centre is."""
    x, y = centres[:, 0], centres[:, 1]
    if np.isnan(xs).any() or np.isnan(ys).any():
        near = np.arange(len(centres))
    else:
        near = np.flatnonzero((x > xs[0]) & (x <= xs[-1]) & (y < ys[0]) & (y >= ys[-1]))
    col = np.searchsorted(xs, x[near]) - 1
    row = np.searchsorted(-ys, -y[near]) - 1
    inside = (col >= 0) & (col < len(xs) - 1) & (row >= 0) & (row < len(ys) - 1)
    return near[inside], row[inside], col[inside]


def _compress(table: GlyphTable, cells: list[_Cell]) -> list[_Cell]:
    """Rows and columns without text dropped, the rest renumbered; [] unless
    two rows and two columns keep text."""
    filled = [c for c in cells if len(c.glyphs)]
    used_rows = sorted({r for c in filled for r in range(c.row, c.row + c.row_span)})
    used_cols = sorted({k for c in filled for k in range(c.col, c.col + c.col_span)})
    text_rows = {c.row for c in filled}
    text_cols = {c.col for c in filled}
    if len(text_rows) < 2 or len(text_cols) < 2:
        return []
    row_at = {r: i for i, r in enumerate(used_rows)}
    col_at = {k: i for i, k in enumerate(used_cols)}
    out = []
    for c in cells:
        rows = [row_at[r] for r in range(c.row, c.row + c.row_span) if r in row_at]
        cols = [col_at[k] for k in range(c.col, c.col + c.col_span) if k in col_at]
        if rows and cols:
            out.append(_Cell(rows[0], cols[0], len(rows), len(cols), c.glyphs))
    sizes = np.array([len(c.glyphs) for c in filled])
    words = _word_counts(table, np.concatenate([c.glyphs for c in filled]), np.cumsum(sizes) - sizes)
    if float(np.mean(words)) > RULED_MAX_CELL_WORDS:
        return []  # boxes around prose (a frame, a sidebar), not a table
    if sum(c.col_span > 1 for c in out if len(c.glyphs)) > RULED_MAX_SPANNING_SHARE * len(filled):
        return []  # text across the columns: boxes of a figure, not a table
    return sorted(out, key=lambda c: (c.row, c.col))


# --------------------------------------------------------------------------- alignment


@dataclass(frozen=True, eq=False)
class _TextLines:
    """Upright text lines top to bottom, each cut into pieces at wide gaps,
    column-wise: `glyphs` holds every line's glyphs in x order, line after
    line; the pieces are runs of it, the lines runs of the pieces."""

    glyphs: np.ndarray  # glyph table indices
    piece_start: np.ndarray  # offset in `glyphs` of each piece
    piece_end: np.ndarray
    x0: np.ndarray  # per piece, the x extent of its glyph boxes
    x1: np.ndarray
    line_piece: np.ndarray  # offset in the pieces of each line, and the end (n_lines + 1)
    y: np.ndarray  # per line, the baseline of its first glyph
    height: np.ndarray  # per line, the median glyph height of its first piece


def _extents(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Least x and y, greatest x and y of every glyph box's four corners:
    columns compared pairwise, far cheaper than a reduction over the corner
    axis."""
    x, y = quad[:, :, 0], quad[:, :, 1]
    return (
        np.minimum(np.minimum(x[:, 0], x[:, 1]), np.minimum(x[:, 2], x[:, 3])),
        np.minimum(np.minimum(y[:, 0], y[:, 1]), np.minimum(y[:, 2], y[:, 3])),
        np.maximum(np.maximum(x[:, 0], x[:, 1]), np.maximum(x[:, 2], x[:, 3])),
        np.maximum(np.maximum(y[:, 0], y[:, 1]), np.maximum(y[:, 2], y[:, 3])),
    )


def _lines(table: GlyphTable, glyphs: np.ndarray) -> _TextLines:
    """Horizontal text lines top to bottom, each cut into pieces at wide gaps."""
    grids = compiled_grids()
    if grids is not None:  # upright glyphs chosen by the kernel too
        lines = _compiled_lines(grids, table, glyphs)
        if lines is not None:
            return lines
    glyphs = glyphs[np.abs(table.direction[glyphs, 0] - 1.0) < 0.05]
    x, y = table.origin[glyphs, 0], table.origin[glyphs, 1]
    height = np.maximum(table.height[glyphs], 1e-6)
    # Top to bottom, then left to right (np.lexsort((x, -y)), from one sort
    # by x that also ranks the x values for the sort along each line).
    by_x = np.argsort(x, kind="stable")
    x_rank = np.empty(len(glyphs), dtype=np.int64)
    x_rank[by_x] = np.cumsum(np.concatenate([[0], np.diff(x[by_x]) != 0]))[: len(glyphs)]
    order = by_x[np.argsort(-y[by_x], kind="stable")]
    glyphs, y, height, x_rank = glyphs[order], y[order], height[order], x_rank[order]
    new_line = np.concatenate([[True], np.abs(np.diff(y)) > 0.3 * np.minimum(height[1:], height[:-1])])[: len(glyphs)]
    line_start = np.flatnonzero(new_line)
    line = group_ids(line_start, len(glyphs))
    # Along each line in x order; the sort is stable, so ties keep the order above.
    glyphs = glyphs[np.argsort(line * len(glyphs) + x_rank, kind="stable")]
    x0, _, x1, _ = (edge[glyphs] for edge in _extents(table.quad))
    gap_limit = TABLE_COLUMN_GAP * group_medians(table.height[glyphs], line_start)[line]
    reach = running_max(x1, line_start)
    cut = np.zeros(len(glyphs), dtype=bool)
    cut[line_start] = True
    cut[1:] |= x0[1:] - reach[:-1] > gap_limit[1:]
    piece_start = np.flatnonzero(cut)
    piece_end = np.append(piece_start[1:], len(glyphs))
    line_piece = np.searchsorted(piece_start, np.append(line_start, len(glyphs)))
    # The glyphs of each line's first piece, which gives the line its height.
    in_first = group_ids(piece_start, len(glyphs)) == line_piece[:-1][line]
    first_start = np.searchsorted(line[in_first], np.arange(len(line_start)))
    return _TextLines(
        glyphs=glyphs,
        piece_start=piece_start,
        piece_end=piece_end,
        x0=np.minimum.reduceat(x0, piece_start) if len(glyphs) else x0,
        x1=np.maximum.reduceat(x1, piece_start) if len(glyphs) else x1,
        line_piece=line_piece,
        y=table.origin[glyphs[line_start], 1],
        height=group_medians(table.height[glyphs[in_first]], first_start),
    )


def _compiled_lines(grids: ModuleType, table: GlyphTable, glyphs: np.ndarray) -> _TextLines | None:
    """``_lines`` of the upright ones among `glyphs` by extract/_grids.c's
    text_lines (the same filter, sorts and rules); None when it declines (a
    value not finite)."""
    n = len(glyphs)
    ordered = np.empty(n, dtype=np.int64)
    piece_start = np.empty(n, dtype=np.int64)
    piece_x0, piece_x1 = np.empty(n), np.empty(n)
    line_piece = np.empty(n + 1, dtype=np.int64)
    line_y, line_height = np.empty(n), np.empty(n)
    counts = grids.text_lines(
        np.ascontiguousarray(table.origin), np.ascontiguousarray(table.height), np.ascontiguousarray(table.quad),
        np.ascontiguousarray(table.direction), np.ascontiguousarray(glyphs, dtype=np.int64), TABLE_COLUMN_GAP,
        ordered, piece_start, piece_x0, piece_x1, line_piece, line_y, line_height,
    )  # fmt: skip
    if counts is None:
        return None
    pieces, lines, upright = counts
    piece_start = piece_start[:pieces]
    return _TextLines(
        glyphs=ordered[:upright],
        piece_start=piece_start,
        piece_end=np.append(piece_start[1:], upright),
        x0=piece_x0[:pieces],
        x1=piece_x1[:pieces],
        line_piece=line_piece[: lines + 1],
        y=line_y[:lines],
        height=line_height[:lines],
    )


def _word_counts(table: GlyphTable, glyphs: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Words of each cell (a run of `glyphs` from `starts`): one more than the
    wide gaps (> 0.25 height) between its glyphs in x order, row by row."""
    if not len(glyphs):
        return np.zeros(len(starts), dtype=np.int64)
    grids = compiled_grids()
    if grids is not None:  # the same sort and rule, compiled (extract/_grids.c)
        words = np.empty(len(starts), dtype=np.int64)
        done = grids.word_counts(
            np.ascontiguousarray(table.origin), np.ascontiguousarray(table.own_end), np.ascontiguousarray(table.height),
            table.text, np.ascontiguousarray(glyphs, dtype=np.int64), np.ascontiguousarray(starts, dtype=np.int64), words,
        )  # fmt: skip
        if done is not None:
            return words
    cell = group_ids(starts, len(glyphs))
    ordered_at = np.lexsort((table.origin[glyphs, 0], -np.round(table.origin[glyphs, 1]), cell))
    ordered = glyphs[ordered_at]
    gap = table.origin[ordered[1:], 0] - table.own_end[ordered[:-1], 0]
    # Candidate glyphs carry text (text_glyphs), so blank is str.isspace.
    blank = np.fromiter(map(str.isspace, table.text[ordered[1:]].tolist()), dtype=bool, count=len(ordered) - 1)
    wide = (gap > 0.25 * table.height[ordered[1:]]) | (gap < -1) | blank
    same_cell = cell[1:] == cell[:-1]  # cells stay contiguous: the cell is the first sort key
    return 1 + np.bincount(cell[1:][same_cell & wide], minlength=len(starts))


def aligned_grids(table: GlyphTable, glyphs: np.ndarray) -> list[list[_Cell]]:
    """Runs of lines whose wide-gap pieces share columns (module docstring)."""
    kernels = compiled_grids()
    if kernels is not None:  # lines and runs in one call (extract/_grids.c page_aligned_grids)
        found = _compiled_page_aligned_grids(kernels, table, glyphs)
        if found is not None:
            return found
    return _aligned_grids_of_lines(table, glyphs)


def _aligned_grids_of_lines(table: GlyphTable, glyphs: np.ndarray) -> list[list[_Cell]]:
    """``aligned_grids`` from the page's text lines (_lines): where
    _grids.c's page_aligned_grids is not built or declines."""
    lines = _lines(table, glyphs)
    several = np.diff(lines.line_piece) >= 2
    if not len(several):
        return []
    kernels = compiled_grids()
    if kernels is not None:  # the same runs and cells, compiled (extract/_grids.c)
        found = _compiled_aligned_grids(kernels, table, lines)
        if found is not None:
            return found
    # A line joins the next one's run when both have several pieces and
    # they sit at most TABLE_MAX_ROW_GAP heights apart.
    joins = several[:-1] & several[1:] & (lines.y[:-1] - lines.y[1:] <= TABLE_MAX_ROW_GAP * lines.height[:-1])
    starts = np.flatnonzero(several & ~np.concatenate([[False], joins]))
    ends = np.flatnonzero(several & ~np.concatenate([joins, [False]])) + 1
    grids = []
    for first, end in zip(starts.tolist(), ends.tolist(), strict=True):
        if end - first >= TABLE_MIN_ROWS:
            cells = _aligned_cells(table, lines, first, end)
            if cells:
                grids.append(cells)
    return grids


def _compiled_aligned_grids(grids: ModuleType, table: GlyphTable, lines: _TextLines) -> list[list[_Cell]] | None:
    """``aligned_grids`` of the page's `lines` by extract/_grids.c's
    aligned_grids (the same runs, and of each the same columns, cells, word
    counts and tests as _aligned_cells); None when it declines (a value not
    finite, a text that is no str)."""
    cells = np.empty((len(lines.piece_start), 5), dtype=np.int64)
    glyphs = np.empty(len(lines.glyphs), dtype=np.int64)
    count = grids.aligned_grids(
        np.ascontiguousarray(table.origin), np.ascontiguousarray(table.own_end), np.ascontiguousarray(table.height),
        table.text, *(np.ascontiguousarray(c, dtype=np.int64) for c in (lines.glyphs, lines.piece_start, lines.piece_end)),
        *(np.ascontiguousarray(c, dtype=np.float64) for c in (lines.x0, lines.x1)),
        np.ascontiguousarray(lines.line_piece, dtype=np.int64),
        *(np.ascontiguousarray(c, dtype=np.float64) for c in (lines.y, lines.height)),
        TABLE_MIN_ROWS, TABLE_MAX_ROW_GAP, TABLE_MAX_CELL_WORDS, TWO_COLUMN_MAX_CELL_WORDS, cells, glyphs,
    )  # fmt: skip
    if count is None:
        return None
    return _aligned_cells_of(cells[:count], glyphs)


def _compiled_page_aligned_grids(grids: ModuleType, table: GlyphTable, glyphs: np.ndarray) -> list[list[_Cell]] | None:
    """``aligned_grids`` of the candidate `glyphs` by extract/_grids.c's
    page_aligned_grids (text_lines' and aligned_grids' work in one call);
    None when it declines."""
    found = _page_aligned_cells(grids, table, glyphs)
    return None if found is None else _aligned_cells_of(*found)


def _page_aligned_cells(grids: ModuleType, table: GlyphTable, glyphs: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """page_aligned_grids' answer: its cells (grid, row, column, start and
    end in the glyphs, one row each) and the glyphs; None when it declines."""
    found = grids.page_aligned_grids(
        *(np.ascontiguousarray(c, dtype=np.float64) for c in (table.origin, table.own_end, table.height, table.quad, table.direction)),
        table.text, np.ascontiguousarray(glyphs, dtype=np.int64), TABLE_COLUMN_GAP, TABLE_MIN_ROWS, TABLE_MAX_ROW_GAP,
        TABLE_MAX_CELL_WORDS, TWO_COLUMN_MAX_CELL_WORDS,
    )  # fmt: skip
    if found is None:
        return None
    cells, held = (np.frombuffer(part, dtype=np.int64) for part in found)
    return cells.reshape(-1, 5), held


def _aligned_cells_of(cells: np.ndarray, glyphs: np.ndarray) -> list[list[_Cell]]:
    """The grids of the aligned_grids kernels' cells (grid, row, column,
    start and end in `glyphs`), grid after grid."""
    found: list[list[_Cell]] = []
    for grid, row, col, start, end in cells.tolist():
        if grid == len(found):
            found.append([])
        found[grid].append(_Cell(row, col, 1, 1, glyphs[start:end]))
    return found


def _aligned_grid_columns(table: GlyphTable, glyphs: np.ndarray) -> list[_Grid]:
    """``aligned_grids`` column-wise: from page_aligned_grids' cells as they
    come (thousands of cells on a page of tables, none made one by one),
    else of the cells aligned_grids' other paths make."""
    kernels = compiled_grids()
    found = _page_aligned_cells(kernels, table, glyphs) if kernels is not None else None
    if found is not None:
        return _grid_columns_of(*found)
    return [_grid_of(cells) for cells in _aligned_grids_of_lines(table, glyphs)]


def _grid_columns_of(cells: np.ndarray, glyphs: np.ndarray) -> list[_Grid]:
    """The grids of the grid kernels' cells, grid after grid, column-wise:
    aligned_grids' (grid, row, column, start and end in `glyphs`: spans of
    one) or ruled_grids' (grid, row, column, row span, column span, start
    and end)."""
    if not len(cells):
        return []
    grid, start, size = cells[:, 0], cells[:, -2], cells[:, -1] - cells[:, -2]
    bounds = [0, *(np.flatnonzero(grid[1:] != grid[:-1]) + 1).tolist(), len(cells)]
    row, col = cells[:, 1].tolist(), cells[:, 2].tolist()
    spans = cells.shape[1] == 7
    row_span, col_span = (cells[:, 3].tolist(), cells[:, 4].tolist()) if spans else ([1] * len(cells), [1] * len(cells))
    return [
        _Grid(row[a:b], col[a:b], row_span[a:b], col_span[a:b], glyphs[concat_ranges(start[a:b], size[a:b])], size[a:b])
        for a, b in zip(bounds[:-1], bounds[1:], strict=True)
    ]


def _columns(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """The start of each column: x extents merged where they overlap."""
    by_start = np.lexsort((x1, x0))
    x0, x1 = x0[by_start], x1[by_start]
    reach = np.maximum.accumulate(x1)
    starts: np.ndarray = x0[np.concatenate([[True], x0[1:] > reach[:-1]])]
    return starts


def _pieces_by_cell(key: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """Pieces (positions in `key`, each piece's cell key) grouped by cell, the
    cells in the order the pieces first reach them (a stable sort by that
    rank), and where each cell starts in that order. None for the order
    when it is the pieces' own: keys that never decrease (every row left to
    right, one after the other, as almost every run is), whose cells are
    runs of equal keys."""
    if not len(key) or (key[1:] >= key[:-1]).all():
        return None, np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    _, first_at, of_piece = np.unique(key, return_index=True, return_inverse=True)
    rank = np.empty(len(first_at), dtype=np.int64)
    rank[np.argsort(first_at, kind="stable")] = np.arange(len(first_at))
    cell_of_piece = rank[of_piece.ravel()]
    by_cell = np.argsort(cell_of_piece, kind="stable")
    return by_cell, np.searchsorted(cell_of_piece[by_cell], np.arange(len(first_at)))


def _cell_glyphs(
    lines: _TextLines, pieces: np.ndarray, by_cell: np.ndarray | None, cell_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The glyphs of `pieces` (consecutive pieces of `lines`) taken in the
    order `by_cell` (None: their own), and where each cell's start in them
    and where the last one ends. In their own order the pieces are one run
    of the lines' glyphs (the pieces tile it): a slice, nothing gathered."""
    if by_cell is None:
        offset = lines.piece_start[pieces]
        cell_glyphs = lines.glyphs[offset[0] : lines.piece_end[pieces[-1]]]
        return cell_glyphs, np.append(offset[cell_start] - offset[0], len(cell_glyphs))
    ordered = pieces[by_cell]
    sizes = lines.piece_end[ordered] - lines.piece_start[ordered]
    cell_glyphs = lines.glyphs[concat_ranges(lines.piece_start[ordered], sizes)]
    return cell_glyphs, np.concatenate([[0], np.cumsum(sizes)])[np.append(cell_start, len(ordered))]


def _aligned_cells(table: GlyphTable, lines: _TextLines, first: int, end: int) -> list[_Cell]:
    """The cells of lines `first` to `end` when their pieces make a grid."""
    pieces = np.arange(lines.line_piece[first], lines.line_piece[end])
    row = np.searchsorted(lines.line_piece, pieces, side="right") - 1 - first
    x0, x1 = lines.x0[pieces], lines.x1[pieces]
    starts = _columns(x0, x1)
    if len(starts) < 2:
        return []
    col = np.searchsorted(starts, x0, side="right") - 1
    # A cell is a row's pieces in one column, in the order the row first reaches it.
    by_cell, cell_start = _pieces_by_cell(row * len(starts) + col)
    cell_glyphs, glyph_bounds = _cell_glyphs(lines, pieces, by_cell, cell_start)
    if by_cell is None:  # the pieces' own order
        by_rank, x0_in_order, x1_in_order = cell_start, x0, x1
    else:
        by_rank, x0_in_order, x1_in_order = by_cell[cell_start], x0[by_cell], x1[by_cell]
    cell_col = col[by_rank]  # by_rank: each cell's first piece
    words = _word_counts(table, cell_glyphs, glyph_bounds[:-1])
    totals = _column_totals(
        cell_col, words, np.minimum.reduceat(x0_in_order, cell_start), np.maximum.reduceat(x1_in_order, cell_start)
    )
    low, high = _kept_columns(totals)
    n_cols = high + 1 - low
    limit = TWO_COLUMN_MAX_CELL_WORDS if n_cols == 2 else TABLE_MAX_CELL_WORDS
    # The mean words of the kept cells: sums of whole numbers, exact in floats.
    if sum(totals.words[low : high + 1]) / sum(totals.cells[low : high + 1]) > limit:
        return []
    # Every column used by at least half of the rows: not a stray wide gap.
    if any(count < (end - first) / 2 for count in totals.cells[low : high + 1]):
        return []
    kept = np.flatnonzero((cell_col >= low) & (cell_col <= high)).tolist()
    rows, cols, bounds = row[by_rank].tolist(), (cell_col - low).tolist(), glyph_bounds.tolist()
    return [_Cell(rows[k], cols[k], 1, 1, cell_glyphs[bounds[k] : bounds[k + 1]]) for k in kept]


class _ColumnTotals(NamedTuple):
    """Per column of an aligned grid, reductions of its cells: how many, their
    words, the least x and the greatest x of their boxes (plain floats: a
    grid has a few columns)."""

    cells: list[int]
    words: list[float]
    x0: list[float]
    x1: list[float]


def _column_totals(col: np.ndarray, words: np.ndarray, x0: np.ndarray, x1: np.ndarray) -> _ColumnTotals:
    """The totals of each column 0 .. max(col) of cells in columns `col`."""
    n = int(col.max()) + 1
    least, greatest = np.full(n, np.inf), np.full(n, -np.inf)
    with np.errstate(invalid="ignore"):  # NaN propagates, silently, as in a reduction over the column's cells
        np.minimum.at(least, col, x0)
        np.maximum.at(greatest, col, x1)
    return _ColumnTotals(
        np.bincount(col, minlength=n).tolist(),
        np.bincount(col, weights=words, minlength=n).tolist(),  # sums of whole numbers: exact
        least.tolist(),
        greatest.tolist(),
    )


def _kept_columns(totals: _ColumnTotals) -> tuple[int, int]:
    """The first and last column kept when the first or last column is left
    out while it is a text column beside the table (module docstring), as
    long as three columns remain to judge from. A column's mean words and
    x extent, and those of the columns beside it, are read off the totals:
    reductions over a column's cells are reductions over its totals."""
    present = [c for c, count in enumerate(totals.cells) if count]
    low, high = 0, len(present) - 1  # positions in `present`
    while present[high] - present[low] + 1 > 2:
        for edge, rest in ((low, (low + 1, high)), (high, (low, high - 1))):
            column = present[edge]
            if totals.words[column] / totals.cells[column] <= TABLE_MAX_CELL_WORDS:
                continue
            if _extent(totals, [column]) < _extent(totals, present[rest[0] : rest[1] + 1]):
                continue
            low, high = rest
            break
        else:
            break
    return present[low], present[high]


def _extent(totals: _ColumnTotals, columns: list[int]) -> float:
    """Greatest x less least x of the cells of `columns`: NaN when one is NaN,
    as numpy's max and min give it (Python's max passes over a NaN)."""
    greatest, least = [totals.x1[c] for c in columns], [totals.x0[c] for c in columns]
    if any(v != v for v in greatest) or any(v != v for v in least):
        return math.nan
    return max(greatest) - min(least)


# --------------------------------------------------------------------------- tables


def detect_tables(
    table: GlyphTable, paths: PathTable, joined: JoinedText, config: ExtractConfig, page: int
) -> tuple[Table, ...]:
    """The grids of one untagged page as Table pieces, ruled grids first."""
    found = _grids_found(table, paths)
    if not found:  # most pages: no per-glyph positions to lay out
        return ()
    position = np.full(len(table), -1, dtype=np.int64)
    position[joined.order] = np.arange(len(joined.order))
    tables = [
        _table(table, grid, method, position, joined, config, page, k)
        for k, (method, grid) in enumerate(found, start=1)
    ]
    # A grid none of whose glyphs the page reading placed has no text on the
    # page to point into: no table of it (and no top to sort it by).
    tables = [t for t in tables if t.cells]
    return tuple(sorted(tables, key=lambda t: -max((c.bbox or (0, 0, 0, 0))[3] for c in t.cells)))


def _grids_found(table: GlyphTable, paths: PathTable) -> list[tuple[str, _Grid]]:
    """The page's grids column-wise with their method, ruled grids first: those
    of its candidate glyphs (its text glyphs less artifacts), then the aligned
    grids of the candidates no ruled grid holds. In one call of
    extract/_grids.c's find_grids where it is built (the candidates, both
    finders and the glyphs taken, in C: a page without a grid, most pages,
    sends nothing back); these steps where it declines."""
    kernels = compiled_grids()
    if kernels is not None:
        found = _compiled_grids_found(kernels, table, paths)
        if found is not None:
            return found
    candidates = text_glyphs(table)
    candidates = candidates[~table.artifact[candidates]]
    found = [(RULES, grid) for grid in _ruled_grid_columns(table, paths, candidates)]
    if found:  # the glyphs of ruled grids are no candidates for aligned ones
        taken = np.zeros(len(table), dtype=bool)
        for _, grid in found:
            taken[grid.glyphs] = True
        candidates = candidates[~taken[candidates]]
    return found + [(ALIGNMENT, grid) for grid in _aligned_grid_columns(table, candidates)]


def _compiled_grids_found(grids: ModuleType, table: GlyphTable, paths: PathTable) -> list[tuple[str, _Grid]] | None:
    """``_grids_found`` by extract/_grids.c's find_grids (ruled_grids' and
    page_aligned_grids' work on the page's candidates, in one call); None
    when it declines (a value not finite, a text that is no str)."""
    found = grids.find_grids(
        *_ruled_arguments(paths),
        *(np.ascontiguousarray(c, dtype=np.float64) for c in (table.quad, table.origin, table.own_end, table.height, table.direction)),
        table.text, np.ascontiguousarray(table.text_rows, dtype=np.int64), np.ascontiguousarray(table.artifact, dtype=bool),
        TABLE_COLUMN_GAP, TABLE_MIN_ROWS, TABLE_MAX_ROW_GAP, TABLE_MAX_CELL_WORDS, TWO_COLUMN_MAX_CELL_WORDS,
    )  # fmt: skip
    if not found:
        return None if found is None else []
    ruled, ruled_glyphs, aligned, aligned_glyphs = (np.frombuffer(part, dtype=np.int64) for part in found)
    return [(RULES, grid) for grid in _grid_columns_of(ruled.reshape(-1, 7), ruled_glyphs)] + [
        (ALIGNMENT, grid) for grid in _grid_columns_of(aligned.reshape(-1, 5), aligned_glyphs)
    ]


def _table(
    table: GlyphTable,
    grid: _Grid,
    method: str,
    position: np.ndarray,
    joined: JoinedText,
    config: ExtractConfig,
    page: int,
    k: int,
) -> Table:
    """The grid's cells as TableCells; a cell none of whose glyphs the page
    reading placed is left out. Every per-cell measure is a reduction over
    the cells' glyphs at once."""
    n_rows, n_cols = max(map(int.__add__, grid.row, grid.row_span)), max(map(int.__add__, grid.col, grid.col_span))
    placed, glyphs, starts = _placed_cells(grid, position)
    if not len(placed):
        return Table(f"d{page}.{k}", method, n_rows, n_cols, 0, (page,), ())
    boxes, char_start, char_end = _cell_boxes(table, glyphs, starts, position, joined)
    mcids = _cell_mcids(table, glyphs, starts)
    texts = _cell_texts(table, glyphs, starts, config)
    n = len(placed)
    if n == len(grid.row):  # every cell placed (the usual case): the grid's own columns
        row, col, row_span, col_span = grid.row, grid.col, grid.row_span, grid.col_span
    else:
        at = placed.tolist()
        row, col, row_span, col_span = ([column[c] for c in at] for column in grid[:4])
    out = frozen_rows(  # thousands of cells on a page of tables: built as rows at once
        TableCell,
        {
            "row": row, "col": col, "row_span": row_span, "col_span": col_span,
            "is_header": [False] * n, "header_labels": [()] * n, "text": texts, "page": [page] * n,
            "bbox": boxes, "mcids": mcids, "char_start": char_start, "char_end": char_end,
        },
    )  # fmt: skip
    return Table(f"d{page}.{k}", method, n_rows, n_cols, 0, (page,), out)


def _placed_cells(grid: _Grid, position: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells (their positions in `grid`) with a glyph the page reading
    placed (`position` >= 0), their glyphs cell after cell, each cell's in
    table order, and where each starts. Both finders give each cell's glyphs
    in table order already, so they are sorted only when some cell's are
    not; and kept whole when every cell has a placed glyph (the usual case)."""
    filled = np.flatnonzero(grid.sizes)
    if not len(filled):
        return filled, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    glyphs, sizes = grid.glyphs, grid.sizes[filled]
    ends = np.cumsum(sizes)
    starts = ends - sizes
    in_order = glyphs[1:] >= glyphs[:-1]
    in_order[ends[:-1] - 1] = True  # a cell may start below the last one's end
    if not in_order.all():
        glyphs = glyphs[np.lexsort((glyphs, np.repeat(np.arange(len(sizes)), sizes)))]
    seen = np.logical_or.reduceat(position[glyphs] >= 0, starts)
    if seen.all():
        return filled, glyphs, starts
    kept = sizes[seen]
    return filled[seen], glyphs[np.repeat(seen, sizes)], np.cumsum(kept) - kept


def _cell_boxes(
    table: GlyphTable, glyphs: np.ndarray, starts: np.ndarray, position: np.ndarray, joined: JoinedText
) -> tuple[list[tuple[float, float, float, float]], list[int], list[int]]:
    """Per cell (a run of `glyphs` from `starts`): the box of its glyphs'
    quads rounded to 0.001 pt (_rounded), and the least start and greatest
    end in the page text of those the page reading placed (`position` >= 0;
    the int64 maximum and -1 where it placed none). In one pass over the
    cells' glyphs where _grids.c's cell_boxes runs (the same reductions and
    rounding)."""
    grids = compiled_grids()
    if grids is not None:
        found: tuple[list[tuple[float, float, float, float]], list[int], list[int]] = grids.cell_boxes(
            np.ascontiguousarray(table.quad),
            *(np.ascontiguousarray(c, dtype=np.int64) for c in (glyphs, starts, position, joined.char_start, joined.char_end)),
        )
        return found
    x0, y0, x1, y1 = _extents(rows_at(table.quad, glyphs))
    rounded = _rounded(
        np.column_stack(
            [
                np.minimum.reduceat(x0, starts), np.minimum.reduceat(y0, starts),
                np.maximum.reduceat(x1, starts), np.maximum.reduceat(y1, starts),
            ]
        )
    )  # fmt: skip
    at = position[glyphs]
    seen = at >= 0
    char_start = np.minimum.reduceat(np.where(seen, joined.char_start[at], np.iinfo(np.int64).max), starts).tolist()
    char_end = np.maximum.reduceat(np.where(seen, joined.char_end[at], -1), starts).tolist()
    return rounded, char_start, char_end


def _rounded(boxes: np.ndarray) -> list[tuple[float, float, float, float]]:
    """Boxes to 0.001 pt, rounded as Python rounds (numpy's round differs in the last digit)."""
    values = rounded_like_python(boxes.ravel())
    return list(zip(values[0::4], values[1::4], values[2::4], values[3::4], strict=True))


def rounded_like_python(values: np.ndarray) -> list[float]:
    """round(v, 3) of every value, column-wise. Python rounds the exact
    value v x 1000 to the nearest integer q (ties to even) and returns the
    double nearest q / 1000; IEEE division by 1000 is correctly rounded, so
    rint(v * 1000) / 1000 is that double wherever the computed product
    (within half an ulp of the exact one) lies more than a few ulps from a
    half, on the same side of it as the exact one. The few values near a
    half, not finite, or too large for q to be exact go to round() itself."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf and NaN are round()'s
        scaled = values * 1000.0
        magnitude = np.abs(scaled)
        frac = np.abs(scaled - np.trunc(scaled))  # exact below 2**52
        hard = ~(magnitude < 2.0**52) | (np.abs(frac - 0.5) <= 4 * np.spacing(magnitude))
    out: list[float] = (np.rint(scaled) / 1000.0).tolist()
    for k in np.flatnonzero(hard).tolist():
        out[k] = round(float(values[k]), 3)
    return out


def _cell_mcids(table: GlyphTable, glyphs: np.ndarray, starts: np.ndarray) -> list[tuple[int, ...]]:
    """Each cell's MCIDs (a run of `glyphs` from `starts`), each once, in glyph
    order; in one pass over the cells where _grids.c's cell_mcids runs."""
    grids = compiled_grids()
    if grids is not None:
        found: list[tuple[int, ...]] = grids.cell_mcids(
            *(np.ascontiguousarray(c, dtype=np.int64) for c in (table.mcid, glyphs, starts))
        )
        return found
    mcids = table.mcid[glyphs]
    if (mcids == NO_MCID).all():
        return [()] * len(starts)
    bounds = np.append(starts, len(glyphs)).tolist()
    return [
        tuple(dict.fromkeys(m[m != NO_MCID].tolist())) for m in (mcids[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True))
    ]


def _cell_texts(table: GlyphTable, glyphs: np.ndarray, starts: np.ndarray, config: ExtractConfig) -> list[str]:
    """Each cell's glyphs (a run of `glyphs` from `starts`) joined by the
    page-text rules, lines joined by one space: one join over all cells, a
    line break forced before each, which gives every cell the text a join of
    its glyphs alone would (join reorders only within a line)."""
    break_before = np.zeros(len(glyphs), dtype=bool)
    break_before[starts] = True
    joined = join(table, glyphs, config, break_before=break_before)
    cell = np.empty(len(table), dtype=np.int64)
    cell[glyphs] = group_ids(starts, len(glyphs))
    emitted = cell[joined.order]
    if (emitted[1:] >= emitted[:-1]).all():
        # Each cell one run of the join, in order (the spans only grow along
        # it): its first glyph's start and its last glyph's end.
        first = joined.char_start[starts]
        last = joined.char_end[np.append(starts[1:], len(glyphs)) - 1]
    else:
        first = np.full(len(starts), len(joined.text), dtype=np.int64)
        last = np.zeros(len(starts), dtype=np.int64)
        np.minimum.at(first, emitted, joined.char_start)
        np.maximum.at(last, emitted, joined.char_end)
    text = joined.text
    return [" ".join(text[a:b].split()) for a, b in zip(first.tolist(), last.tolist(), strict=True)]
