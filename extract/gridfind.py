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

from dataclasses import dataclass

import numpy as np

from ragprep.extract.config import ExtractConfig
from ragprep.extract.geometric import JoinedText, join, text_glyphs
from ragprep.extract.glyphs import NO_MCID, GlyphTable
from ragprep.extract.paths import LINE, RECT, PathTable
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


@dataclass(frozen=True)
class _Cell:
    row: int
    col: int
    row_span: int
    col_span: int
    glyphs: np.ndarray  # glyph table indices


# Ruled grids: cells averaging more words than this are boxes around prose.
RULED_MAX_CELL_WORDS = 20.0
# Ruled grids: when more than this share of the cells with text spans several
# columns, the columns are not the text's (labelled boxes of a figure, callouts).
RULED_MAX_SPANNING_SHARE = 0.5


def _word_count(table: GlyphTable, glyphs: np.ndarray) -> int:
    """Words of a cell: one more than the wide gaps (> 0.25 height) between its glyphs in x order."""
    if len(glyphs) < 2:
        return len(glyphs)
    ordered = glyphs[np.lexsort((table.origin[glyphs, 0], -np.round(table.origin[glyphs, 1])))]
    gap = table.origin[ordered[1:], 0] - table.own_end[ordered[:-1], 0]
    blank = np.array([not str(t).strip() for t in table.text[ordered]])
    return 1 + int(((gap > 0.25 * table.height[ordered[1:]]) | (gap < -1) | blank[1:]).sum())


# --------------------------------------------------------------------------- rules


def _rules(paths: PathTable) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal rules (y, x0, x1) and vertical rules (x, y0, y1)."""
    x0, y0, x1, y1 = paths.x0, paths.y0, paths.x1, paths.y1
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
    """Distinct positions: values closer than EDGE_TOLERANCE are one edge (their mean)."""
    values = np.sort(values)
    groups = np.split(values, np.flatnonzero(np.diff(values) > EDGE_TOLERANCE) + 1)
    return np.array([g.mean() for g in groups])


def ruled_grids(table: GlyphTable, paths: PathTable, glyphs: np.ndarray) -> list[list[_Cell]]:
    """Grids of crossing rules, with the glyphs (of `glyphs`) in their cells."""
    if not len(paths):
        return []
    horizontal, vertical = _rules(paths)
    horizontal, vertical = _merge_collinear(horizontal), _merge_collinear(vertical)
    if not len(horizontal) or not len(vertical) or len(horizontal) * len(vertical) > MAX_RULE_PAIRS:
        return []
    t = EDGE_TOLERANCE
    h, v = horizontal[:, None, :], vertical[None, :, :]
    meets = (v[..., 0] >= h[..., 1] - t) & (v[..., 0] <= h[..., 2] + t) & (h[..., 0] >= v[..., 1] - t) & (h[..., 0] <= v[..., 2] + t)
    n_h = len(horizontal)
    parent = list(range(n_h + len(vertical)))
    for i, j in zip(*np.nonzero(meets)):
        a, b = _find(parent, int(i)), _find(parent, n_h + int(j))
        if a != b:
            parent[a] = b
    roots = np.array([_find(parent, i) for i in range(len(parent))])
    centres = table.quad[glyphs].mean(axis=1)
    grids = []
    for root in np.unique(roots):
        hs = horizontal[roots[:n_h] == root]
        vs = vertical[roots[n_h:] == root]
        if len(hs) < 2 or len(vs) < 2:
            continue
        cells = _grid_cells(table, hs, vs, glyphs, centres)
        if cells:
            grids.append(cells)
    return grids


def _grid_cells(
    table: GlyphTable, hs: np.ndarray, vs: np.ndarray, glyphs: np.ndarray, centres: np.ndarray
) -> list[_Cell]:
    # The grid's outer edges are where its rules end: a table open at the
    # sides (horizontal rules only there) still has its first and last column.
    xs = _edges(np.concatenate([vs[:, 0], [hs[:, 1].min(), hs[:, 2].max()]]))
    ys = _edges(np.concatenate([hs[:, 0], [vs[:, 1].min(), vs[:, 2].max()]]))[::-1]  # top first
    n_rows, n_cols = len(ys) - 1, len(xs) - 1
    if n_rows < 1 or n_cols < 1:
        return []
    t = EDGE_TOLERANCE

    def vertical_rule_at(x: float, y_mid: float) -> bool:
        return bool(((np.abs(vs[:, 0] - x) <= t) & (vs[:, 1] - t <= y_mid) & (vs[:, 2] + t >= y_mid)).any())

    def horizontal_rule_at(y: float, x_mid: float) -> bool:
        return bool(((np.abs(hs[:, 0] - y) <= t) & (hs[:, 1] - t <= x_mid) & (hs[:, 2] + t >= x_mid)).any())

    # Slots joined where no rule parts them: a span.
    parent = list(range(n_rows * n_cols))
    for r in range(n_rows):
        y_mid = (ys[r] + ys[r + 1]) / 2
        for c in range(n_cols):
            x_mid = (xs[c] + xs[c + 1]) / 2
            if c + 1 < n_cols and not vertical_rule_at(xs[c + 1], y_mid):
                parent[_find(parent, r * n_cols + c)] = _find(parent, r * n_cols + c + 1)
            if r + 1 < n_rows and not horizontal_rule_at(ys[r + 1], x_mid):
                parent[_find(parent, r * n_cols + c)] = _find(parent, (r + 1) * n_cols + c)
    # Glyphs to slots by the centre of their box.
    col = np.searchsorted(xs, centres[:, 0]) - 1
    row = np.searchsorted(-ys, -centres[:, 1]) - 1
    inside = (col >= 0) & (col < n_cols) & (row >= 0) & (row < n_rows)
    slot_of = np.where(inside, row * n_cols + col, -1)
    groups: dict[int, list[int]] = {}
    for slot in range(n_rows * n_cols):
        groups.setdefault(_find(parent, slot), []).append(slot)
    cells = []
    for members in groups.values():
        rows = [s // n_cols for s in members]
        cols = [s % n_cols for s in members]
        held = glyphs[np.isin(slot_of, members)]
        cells.append(_Cell(min(rows), min(cols), max(rows) - min(rows) + 1, max(cols) - min(cols) + 1, held))
    return _compress(table, cells)


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
    if float(np.mean([_word_count(table, c.glyphs) for c in filled])) > RULED_MAX_CELL_WORDS:
        return []  # boxes around prose (a frame, a sidebar), not a table
    if sum(c.col_span > 1 for c in out if len(c.glyphs)) > RULED_MAX_SPANNING_SHARE * len(filled):
        return []  # text across the columns: boxes of a figure, not a table
    return sorted(out, key=lambda c: (c.row, c.col))


# --------------------------------------------------------------------------- alignment


@dataclass(frozen=True)
class _Piece:
    x0: float
    x1: float
    glyphs: np.ndarray


def _lines(table: GlyphTable, glyphs: np.ndarray) -> list[list[_Piece]]:
    """Horizontal text lines top to bottom, each cut into pieces at wide gaps."""
    upright = np.abs(table.direction[glyphs, 0] - 1.0) < 0.05
    glyphs = glyphs[upright]
    if not len(glyphs):
        return []
    y = table.origin[glyphs, 1]
    height = np.maximum(table.height[glyphs], 1e-6)
    order = np.lexsort((table.origin[glyphs, 0], -y))
    glyphs, y, height = glyphs[order], y[order], height[order]
    new_line = np.concatenate([[True], np.abs(np.diff(y)) > 0.3 * np.minimum(height[1:], height[:-1])])
    lines = []
    for run in np.split(np.arange(len(glyphs)), np.flatnonzero(new_line)[1:]):
        members = glyphs[run]
        members = members[np.argsort(table.origin[members, 0], kind="stable")]
        x0 = table.quad[members, :, 0].min(axis=1)
        x1 = table.quad[members, :, 0].max(axis=1)
        gap_limit = TABLE_COLUMN_GAP * float(np.median(table.height[members]))
        reach = np.maximum.accumulate(x1)
        cuts = np.flatnonzero(x0[1:] - reach[:-1] > gap_limit) + 1
        pieces = []
        for part in np.split(np.arange(len(members)), cuts):
            pieces.append(_Piece(float(x0[part].min()), float(x1[part].max()), members[part]))
        lines.append(pieces)
    return lines


def _line_y(table: GlyphTable, line: list[_Piece]) -> tuple[float, float]:
    first = line[0].glyphs
    return float(table.origin[first[0], 1]), float(np.median(table.height[first]))


def aligned_grids(table: GlyphTable, glyphs: np.ndarray) -> list[list[_Cell]]:
    """Runs of lines whose wide-gap pieces share columns (module docstring)."""
    lines = _lines(table, glyphs)
    grids = []
    i = 0
    while i < len(lines):
        if len(lines[i]) < 2:
            i += 1
            continue
        j = i
        while j + 1 < len(lines) and len(lines[j + 1]) >= 2:
            y_a, h = _line_y(table, lines[j])
            y_b, _ = _line_y(table, lines[j + 1])
            if y_a - y_b > TABLE_MAX_ROW_GAP * h:
                break
            j += 1
        cells = _aligned_cells(table, lines[i : j + 1])
        if cells:
            grids.append(cells)
        i = j + 1
    return grids


def _aligned_cells(table: GlyphTable, lines: list[list[_Piece]]) -> list[_Cell]:
    if len(lines) < TABLE_MIN_ROWS:
        return []
    # Columns: x extents of the pieces merged where they overlap, over all lines.
    spans = sorted((p.x0, p.x1) for line in lines for p in line)
    columns: list[list[float]] = []
    for x0, x1 in spans:
        if columns and x0 <= columns[-1][1]:
            columns[-1][1] = max(columns[-1][1], x1)
        else:
            columns.append([x0, x1])
    if len(columns) < 2:
        return []
    starts = np.array([c[0] for c in columns])
    cells = []
    words = []
    for r, line in enumerate(lines):
        by_col: dict[int, list[np.ndarray]] = {}
        for p in line:
            by_col.setdefault(int(np.searchsorted(starts, p.x0, side="right") - 1), []).append(p.glyphs)
        for c, parts in by_col.items():
            held = np.concatenate(parts)
            cells.append(_Cell(r, c, 1, 1, held))
            words.append(_word_count(table, held))
    cells, words = _without_prose_edges(table, cells, words)
    n_cols = max(c.col for c in cells) + 1
    limit = TWO_COLUMN_MAX_CELL_WORDS if n_cols == 2 else TABLE_MAX_CELL_WORDS
    if float(np.mean(words)) > limit:
        return []
    # Every column used by at least half of the rows: not a stray wide gap.
    use = np.bincount([c.col for c in cells], minlength=n_cols)
    if (use < len(lines) / 2).any():
        return []
    return cells


def _x_extent(table: GlyphTable, cells: list[_Cell]) -> float:
    x = table.quad[np.concatenate([c.glyphs for c in cells]), :, 0]
    return float(x.max() - x.min())


def _without_prose_edges(table: GlyphTable, cells: list[_Cell], words: list[int]) -> tuple[list[_Cell], list[int]]:
    """The first or last column left out while it is a text column beside the
    table (module docstring), as long as three columns remain to judge from."""
    while True:
        n_cols = max(c.col for c in cells) + 1
        if n_cols <= 2:
            return cells, words
        for edge in (0, n_cols - 1):
            mine = [k for k, c in enumerate(cells) if c.col == edge]
            rest = [k for k, c in enumerate(cells) if c.col != edge]
            if float(np.mean([words[k] for k in mine])) <= TABLE_MAX_CELL_WORDS:
                continue
            if _x_extent(table, [cells[k] for k in mine]) < _x_extent(table, [cells[k] for k in rest]):
                continue
            shift = 1 if edge == 0 else 0
            cells = [_Cell(cells[k].row, cells[k].col - shift, 1, 1, cells[k].glyphs) for k in rest]
            words = [words[k] for k in rest]
            break
        else:
            return cells, words


# --------------------------------------------------------------------------- tables


def detect_tables(
    table: GlyphTable, paths: PathTable, joined: JoinedText, config: ExtractConfig, page: int
) -> tuple[Table, ...]:
    """The grids of one untagged page as Table pieces, ruled grids first."""
    candidates = text_glyphs(table)
    candidates = candidates[~table.artifact[candidates]]
    found: list[tuple[str, list[_Cell]]] = []
    taken = np.zeros(len(table), dtype=bool)
    for cells in ruled_grids(table, paths, candidates):
        found.append((RULES, cells))
        for c in cells:
            taken[c.glyphs] = True
    for cells in aligned_grids(table, candidates[~taken[candidates]]):
        found.append((ALIGNMENT, cells))
    position = np.full(len(table), -1, dtype=np.int64)
    position[joined.order] = np.arange(len(joined.order))
    tables = [
        _table(table, cells, method, position, joined, config, page, k)
        for k, (method, cells) in enumerate(found, start=1)
    ]
    return tuple(sorted(tables, key=lambda t: -max((c.bbox or (0, 0, 0, 0))[3] for c in t.cells)))


def _table(
    table: GlyphTable,
    cells: list[_Cell],
    method: str,
    position: np.ndarray,
    joined: JoinedText,
    config: ExtractConfig,
    page: int,
    k: int,
) -> Table:
    out = []
    for c in cells:
        glyphs = np.sort(c.glyphs)
        placed = position[glyphs]
        placed = placed[placed >= 0]
        if not len(glyphs) or not len(placed):
            continue
        corners = table.quad[glyphs]
        mcids = table.mcid[glyphs]
        out.append(
            TableCell(
                row=c.row, col=c.col, row_span=c.row_span, col_span=c.col_span, is_header=False,
                header_labels=(), text=" ".join(join(table, glyphs, config).text.split()), page=page,
                bbox=(
                    round(float(corners[:, :, 0].min()), 3), round(float(corners[:, :, 1].min()), 3),
                    round(float(corners[:, :, 0].max()), 3), round(float(corners[:, :, 1].max()), 3),
                ),
                mcids=tuple(dict.fromkeys(mcids[mcids != NO_MCID].tolist())),
                char_start=int(joined.char_start[placed].min()), char_end=int(joined.char_end[placed].max()),
            )  # fmt: skip
        )
    n_rows = max(c.row + c.row_span for c in cells)
    n_cols = max(c.col + c.col_span for c in cells)
    return Table(f"d{page}.{k}", method, n_rows, n_cols, 0, (page,), tuple(out))
