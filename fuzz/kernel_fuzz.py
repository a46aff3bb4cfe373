"""Differential fuzzing of the compiled kernels that take Python objects and
numpy columns, not PDF bytes (issue 13): _core.c's table, reading and text
kernels, and _layout.c's and _grids.c's kernels.

core_fuzz.py --target kernels runs this inside its sanitizer build of all
three extensions. Each iteration picks a drawer of KERNELS, which draws one
input at random (well formed, as the reader upstream hands it, with the
edges each kernel must survive: empty, one, many rows, NaN, infinite and
signed-zero coordinates, duplicate keys and IDs, every /Scope and span
combination, numbers past int64) and names the calls to compare. Each call
runs twice through the function that dispatches to the kernel: on the
reference (RAGPREP_PURE=1; a layout kernel's `lib` None) and compiled. A
finding is an exception out of the compiled path where the reference
answers, or two answers that differ (compared as plain data: arrays as
lists, floats by repr with -0.0 as 0.0, dataclasses field by field); a
sanitizer report aborts the process (--crash-file then names the seed, the
run and the drawer: the same seed draws the same inputs again). An input
the reference refuses (an exception) is counted, not a finding: the
compiled path may refuse it too. REGRESSIONS, inputs that found a fault,
are drawn first in every campaign, then each drawer once, then drawers at
random.

What it found (session 24; the regressions keep each): _grids.c ruled_grid
sorted the kept cells in room for its edges or glyphs (a heap overflow on a
grid keeping more cells than either), and, by _draw_hostile's arguments,
_layout.c components' node count wrapping its buffer's size. Campaigns run
then, none finding more: ``core_fuzz.py --target kernels --seconds 640``,
seeds 2401 and 2402 (1280 CPU s) and 2403 (400 CPU s, with the hostile
drawer), at nice 10 in the ASan+UBSan builds.

Session 25 (the regressions keep each): the hostile drawer, once it
recorded the tree_tables drawer's calls, took a refusal of the reference
for the compiled path raising (seed 2511, run 939: the harness, mended);
the sweep of hostile arguments (kernel_sweep.py) found five faults it had
not (huge_table_count, nan_heading_rule, huge_unit_glyphs,
huge_prose_lines, huge_unit_count). Campaigns, ``core_fuzz.py --target
kernels``, nice 10, ASan+UBSan: seed 2511 on main 53d554a (sread's
structure_order) 361 CPU s, 8,157 runs, no finding but the harness's;
seed 2521 on 4337cb5 (tables' page_tables; _core's table and reading
kernels unchanged on main since) 727 CPU s, 16,380 runs, 52,654 calls, none. And
``--target xref --corpus`` seeds 2512 (0a622a3: encrypted files' tables)
435 CPU s, 108,693 runs, and 2533 (d323ddc: struct2's written_spans) 494
CPU s, 104,638 runs; ``--target nodes --corpus`` seed 2532 (d323ddc:
struct's node walk) 600 CPU s, 356,766 runs; ``--target trees`` seed 2522
(4337cb5: the lazy /ClassMap) 60 CPU s, 44,908 runs: none.

Session 26 (core_fuzz.py, nice 10, ASan+UBSan, no finding): on main
110c61a ``--target nodes --corpus`` seed 2601 240 CPU s, 103,727 runs;
``xref --corpus`` 2602 181 s, 28,855 runs; ``ostreams --corpus`` 2603 90 s,
50,344 runs; ``sweep`` 2604 (15,415 calls, 7 s); ``kernels`` 2605 120 s,
2,177 runs, 6,981 calls. On 535f118 (objects' xref_table and header
changes) ``xref --corpus`` 2611 246 s, 35,072 runs. On f80dd8a (walk's
tw_whole_tables) ``nodes --corpus`` 2621 300 s, 8,350 runs (2,983 walked):
its first campaign with the corpus trees whole (tree_fuzz._values had
given the mutants only the objects the node walk caches, 1 to 6 a
source) and the whole-tree tables compared (node_fuzz._tables_agree).
The exports each drawer reaches, below, were recounted on fc3f4e6: as listed.

What reaches each export (session 25: every call of the three extensions
recorded on the compiled path, 40 draws of each drawer). _core's 30: all
but six by these drawers (tree_tables by its own drawer since session 25,
page_tables by the tables drawer;
TreeObjects, walk_struct, parse_object and Core here through the document
drawer only: the trees, nodes, objects and pages campaigns fuzz them); those six by the campaigns of their own: cmap_section (cmaps),
object_stream_spans and parse_objects (objects, ostreams), object_streams,
written_spans and xref_table (xref). _grids' 19: all (the step kernels
rules, merge_collinear, rule_components, grid_slots, grid_spans,
word_counts, band_glyphs and band_segments, which a page reaches only where
a whole-page kernel declines a value not finite, drawn straight since
session 25). _layout's 76: 55 (33 before the layout page drawer); the 21
others (text_classes, pair_moves, stream_unit_starts, reordered_moves,
heading_blocks, block_starts, block_firsts, blocks_wrap, group_measures,
wrap_measures, lines_along, cell_chains, flush_visits, follow_chains,
letter_counts, row_measures, run_stacking, backward_units, pair_shared,
stream_visits, block_labels) are no page's calls on these pages: steps of
the whole kernels a page calls instead (stream_units, column_verdicts,
block_reading, ...), reached where one declines, or kernels other
kernels' references call with `lib` None.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import os
import random
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from campaign import Campaign

_ROOT = Path(__file__).resolve().parents[1]

Call = Callable[[Any], Any]  # takes the layout kernels' `lib` (None: the reference); the others ignore it
Drawn = list[tuple[str, Call]]

_TYPES = ("P", "Table", "TR", "TH", "TD", "THead", "TBody", "TFoot", "Div")
_SCOPES = (None, "Row", "Column", "Both")
_IDS = ("h0", "h1", "h2", "x", "")
_SPANS = (4, 0, -1, 2**31, 2**41, 2**62, 2**63 - 1, 2**70)  # the odd spans (a tenth of them)
_FLOATS = (0.0, -0.0, 1.0, -2.5, 3.0004, 7.12349, 1e6, -1e300, 1e308, float("nan"), float("inf"), float("-inf"))
_CHARS = list("ab é\n\t\x00\u00a0\u2028\u3000\u0301😀 \u05d0\u0627")


def _size(rng: random.Random, small: int = 12, many: int = 3000) -> int:
    """A row count: empty, one, a few, or many (one in twenty: up to `many`)."""
    pick = rng.random()
    if pick < 0.1:
        return 0
    if pick < 0.2:
        return 1
    return rng.randint(2, many) if pick > 0.95 else rng.randint(2, small)


def _coord(rng: random.Random) -> float:
    """A coordinate on a coarse grid (edges tie), or one of the odd floats."""
    return rng.choice(_FLOATS) if rng.random() < 0.08 else rng.randint(0, 40) * 2.5


def _i64(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.int64).reshape(len(values))


def _f64(rng: random.Random, n: int) -> np.ndarray:
    return np.array([_coord(rng) for _ in range(n)], dtype=np.float64)


def _text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_CHARS) for _ in range(n))


# ---------------------------------------------------------------- structure trees and tables


def _tree(rng: random.Random, n: int, pages: int = 3) -> Any:
    """A tree of n elements in _TYPES (tables, rows and cells most often), each
    kid of a recent element or of the root, renumbered at times (a parent
    after its kid); TH/TD attributes of every span, /Scope, /Headers and /ID."""
    from ragprep.extract.structure import StructTree
    from ragprep.extract.structure_columns import ContentColumns, ElementColumns

    if rng.random() < 0.5:
        parents = [rng.randint(max(-1, i - 4), i - 1) if rng.random() < 0.85 else -1 for i in range(n)]
        types = [rng.choice((1, 2, 2, 3, 4, 4, 4, 5, 6, 7, 0, 8)) for _ in range(n)]
    else:
        parents, types = _tables_of(rng, n)
        n = len(parents)
    cells = {i: _cell_attributes(rng) for i in range(n) if _TYPES[types[i]] in ("TH", "TD") and rng.random() < 0.6}
    if n and rng.random() < 0.1:
        new_of = rng.sample(range(n), n)
        renumbered, retyped = [0] * n, [0] * n
        for old, parent in enumerate(parents):
            renumbered[new_of[old]] = -1 if parent < 0 else new_of[parent]
            retyped[new_of[old]] = types[old]
        parents, types, cells = renumbered, retyped, {new_of[old]: cell for old, cell in cells.items()}
    zeros, none = np.zeros(n, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    columns = ElementColumns(
        _i64(parents), _i64(types), zeros, none, zeros, zeros, none, zeros, [None] * n, {}, {}, cells,
        tuple((name, name) for name in _TYPES), (), (("P",),),
    )  # fmt: skip
    shown = sorted((rng.randrange(pages), rng.randrange(n)) for _ in range(_size(rng, 40) if n else 0))
    content = ContentColumns(
        _i64([p for p, _ in shown]), _i64([0] * len(shown)), _i64(range(len(shown))), _i64([e for _, e in shown])
    )
    return StructTree(columns, content, {}, ())


def _tables_of(rng: random.Random, size: int) -> tuple[list[int], list[int]]:
    """(parents, types) of tables as authors tag them, in depth-first order,
    until about `size` elements: a Table, row groups (THead, TBody, TFoot)
    or not, rows of TH and TD; now and then a table in a cell, a paragraph
    in a cell, a row with no table or a cell with no row."""
    parents: list[int] = []
    types: list[int] = []

    def add(parent: int, kind: str) -> int:
        parents.append(parent)
        types.append(_TYPES.index(kind))
        return len(parents) - 1

    def table(parent: int, depth: int) -> None:
        top = add(parent, "Table")
        for _ in range(rng.randint(0, 2)):
            group = add(top, rng.choice(("THead", "TBody", "TFoot"))) if rng.random() < 0.5 else top
            for _ in range(rng.randint(0, 5)):
                row = add(group, "TR")
                for _ in range(rng.randint(0, 5)):
                    cell = add(row, rng.choice(("TH", "TD", "TD")))
                    if depth < 2 and rng.random() < 0.05:
                        table(cell, depth + 1)
                    elif rng.random() < 0.2:
                        add(cell, "P")

    while len(parents) < size:
        odd = rng.random()
        if odd < 0.1:
            add(-1, rng.choice(("TR", "TH", "TD", "P")))
        else:
            table(-1 if odd < 0.7 else add(-1, "Div"), 0)
    return parents, types


def _cell_attributes(rng: random.Random) -> tuple[Any, ...]:
    """(row span, col span, scope, headers, id): a wide cell spans no row down
    (the reference sets each slot it covers below: 2**70 of them would not end)."""
    span = lambda: rng.choice(_SPANS) if rng.random() < 0.1 else rng.randint(1, 3)  # noqa: E731
    down = span()
    across = span() if down == 1 else rng.randint(1, 3)
    headers = tuple(rng.choice(_IDS) for _ in range(rng.choice((0, 0, 1, 2, 3))))
    return down, across, rng.choice(_SCOPES), headers, rng.choice((None, *_IDS))


def _grid_tree(rng: random.Random) -> Any:
    """A tree whose spans the layout takes in memory (the table drawers' grids)."""
    tree = _tree(rng, _size(rng, 40))
    return _with_cells(tree, {k: (min(d, 3), min(a, 3), *rest) for k, (d, a, *rest) in tree.columns.cells.items()})


def _with_cells(tree: Any, cells: dict[int, Any]) -> Any:
    from ragprep.extract.structure import StructTree

    return StructTree(tree.columns._replace(cells=cells), tree.content, {}, ())


def _draw_grid_layout(rng: random.Random) -> Drawn:
    from ragprep.extract import tables

    tree = _tree(rng, _size(rng, 40))
    return [("grid_layout+cell_placement", lambda lib: _grids_data(tables.table_grids(tree)))]


def _grids_data(grids: Any) -> tuple[Any, ...]:
    c = grids.columns
    return (
        dict(grids.shapes),
        grids.cell_of,
        c.slot_of,
        c.table,
        c.tables,
        c.bounds,
        c.cells,
        dict(c.fields),
        sorted(grids.on_one_page),
        sorted(grids.cell_pages or ()),
    )


def _contents(rng: random.Random, grids: Any, text: str) -> Any:
    """A page's cell contents: keys the grids' cells (repeated at times) and
    others (negative, past the tree, no cell); spans cut past the text or backwards."""
    from ragprep.extract.tables import CellContents

    pool = list(grids.columns.cells) or [0]
    elements = len(grids.cell_of)
    keys = [rng.choice(pool) if rng.random() < 0.8 else rng.randint(-2, elements + 3) for _ in range(_size(rng, 16))]
    ends = [(rng.randint(-3, len(text) + 3), rng.randint(-3, len(text) + 3)) for _ in keys]
    if keys and rng.random() < 0.05:
        ends[0] = (2**63 - 1, -(2**63))  # the int64 extremes
    boxes = [(_coord(rng), _coord(rng), _coord(rng), _coord(rng)) for _ in keys]
    return CellContents(
        keys,
        [s for s, _ in ends],
        [e for _, e in ends],
        boxes,
        [tuple(rng.sample(range(9), rng.randint(0, 3))) for _ in keys],
    )


def _draw_tables(rng: random.Random) -> Drawn:
    """One page's cells of the grids of a tree (page_cells) and its tables
    (page_tables, labelled or not), each table's cells over pages finished
    (table_finish) and cut by page (cells_by_page)."""
    from ragprep.extract import tables

    tree = _with_cells(_grid_tree(rng), {}) if rng.random() < 0.1 else _grid_tree(rng)
    grids = tables.table_grids(tree)
    text = _text(rng, rng.randint(0, 40))
    contents = [_contents(rng, grids, text) for _ in range(rng.randint(1, 3))]
    drawn: Drawn = [
        ("page_cells", lambda lib, c=c, p=p: tables._page_cells(grids, c, p + 1, text)) for p, c in enumerate(contents)
    ]
    labelled = [rng.random() < 0.5 for _ in contents]
    drawn += [
        ("page_tables", lambda lib, c=c, p=p, a=a: tables.structure_tables(grids, c, p + 1, text, labels=a))
        for p, (c, a) in enumerate(zip(contents, labelled, strict=True))
    ]
    pieces = [tables._reference_page_cells(grids, c, p + 1, text) for p, c in enumerate(contents)]
    by_table: dict[int, list[Any]] = {}
    for piece in filter(None, pieces):
        for table, lo, hi in zip(piece.tables, piece.bounds, piece.bounds[1:], strict=False):
            by_table.setdefault(table, []).extend(piece.cells[lo:hi])
    for table, cells in by_table.items():
        cells = _odd_cells(rng, cells)
        relabel, join, with_grids = rng.random() < 0.8, rng.random() < 0.5, rng.random() < 0.9
        finish = lambda lib, t=table, c=cells, r=relabel, j=join, g=with_grids: tables._finished_cells(
            c, grids if g else None, t, r, j
        )  # noqa: E731
        whole = tables.Table(f"s{table}", tables.STRUCTURE, 3, 3, 0, (1,), tuple(cells))
        drawn += [("table_finish", finish), ("cells_by_page", lambda lib, w=whole: tables.pieces_by_page([w, w]))]
    return drawn


def _odd_cells(rng: random.Random, cells: list[Any]) -> list[Any]:
    """A table's cells shuffled, some repeated on another page, some labelled
    already, some with no slot (a place the grids do not hold)."""
    out = list(cells)
    for cell in rng.sample(cells, min(len(cells), rng.randint(0, 3))):
        out.append(dataclasses.replace(cell, page=cell.page + 1, text=_text(rng, 3)))
    for _ in range(rng.randint(0, 2) if out else 0):
        out.append(dataclasses.replace(out[0], row=rng.randint(0, 6), col=rng.randint(0, 6), header_labels=("old",)))
    rng.shuffle(out)
    return out


def _draw_finish_slots(rng: random.Random) -> Drawn:
    """table_finish on grids made by hand (grids_of_slots): every /Scope,
    one no rule knows, heads named by /ID (missing, repeated, present),
    whole tables of heads (each listed as column and row head)."""
    from ragprep.extract import tables
    from ragprep.extract.tables import GridSlot, TableCell, grids_of_slots

    rows, cols = rng.randint(1, 8), rng.randint(1, 8)
    places = rng.sample([(r, c) for r in range(rows) for c in range(cols)], rng.randint(0, rows * cols))
    heads = rng.random() < 0.2  # every cell a head
    slots = {
        e: GridSlot(3, r, c, rng.randint(1, 3), rng.randint(1, 3), heads or rng.random() < 0.4, rng.random() < 0.2,
                    rng.choice((*_SCOPES, "Both", "Neither")), tuple(rng.choice(_IDS) for _ in range(rng.choice((0, 0, 2)))),
                    rng.choice((None, *_IDS)))
        for e, (r, c) in enumerate(places)
    }  # fmt: skip
    grids = grids_of_slots(len(places) + 1, slots, {3: (rows, cols)})
    cells = [
        TableCell(s.row, s.col, s.row_span, s.col_span, s.header, rng.choice(((), ("old",))), _text(rng, rng.randint(0, 3)),
                  page + 1, (0.0, 1.0, 2.0, 3.0), (page,), 0, 1)
        for s in slots.values() for page in range(rng.choice((0, 1, 1, 1, 2)))
    ]  # fmt: skip
    rng.shuffle(cells)
    relabel, join = rng.random() < 0.8, rng.random() < 0.5
    return [("table_finish", lambda lib: tables._finished_cells(cells, grids, 3, relabel, join))]


# ---------------------------------------------------------------- a page's reading


def _glyphs(rng: random.Random, rows: int, mcids: tuple[int, ...] = (-1, 0, 1, 2, 5)) -> Any:
    """A glyph table of `rows` rows: texts of every width, MCIDs and streams
    that collide, artifacts, quads and pen geometry with odd floats."""
    from ragprep.extract.glyphs import GlyphTable

    table = GlyphTable.empty().with_text_rows(
        [_text(rng, rng.choice((0, 1, 1, 2))) for _ in range(rows)], [(0.0, 0.0, 1.0, 1.0)] * rows,
        [rng.choice(mcids) for _ in range(rows)], [rng.choice((0, 1, 7, -1)) for _ in range(rows)],
    )  # fmt: skip
    pairs = lambda: _f64(rng, 2 * rows).reshape(rows, 2)  # noqa: E731
    direction = np.array(
        [rng.choice(((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.7, 0.7), (float("nan"), 0.0))) for _ in range(rows)]
    )
    return dataclasses.replace(
        table, quad=_f64(rng, 8 * rows).reshape(rows, 4, 2), origin=pairs(), own_end=pairs(), height=_f64(rng, rows),
        direction=direction.reshape(rows, 2), artifact=np.array([rng.random() < 0.2 for _ in range(rows)], dtype=bool),
    )  # fmt: skip


def _draw_placement(rng: random.Random) -> Drawn:
    """structure_order (reading._placement): refs whose keys collide (MCIDs
    of 2**32 and more), negative MCIDs, /ActualText owners, the page's rows
    among other pages' rows of the content, the runs' labels; then
    owner_runs over the placement's order, reversed at times (as join reorders it)."""
    from ragprep.extract import reading
    from ragprep.extract.config import ExtractConfig
    from ragprep.extract.structure_columns import PageContent

    mcids = (-1, -2, 0, 1, 2, 3, 2**32, 2**32 + 1, 2**40)
    rows, elements = _size(rng, 40), rng.randint(1, 8)
    table = _glyphs(rng, rows, mcids)
    candidates = _i64(sorted(rng.sample(range(rows), rng.randint(0, rows))))
    refs = [(rng.choice(mcids), rng.choice((0, 1, 7, -1)), rng.randrange(elements)) for _ in range(_size(rng, 12))]
    before, after = rng.randint(0, 3), rng.randint(0, 3)
    others = [(rng.choice(mcids), rng.choice((0, 1, 7, -1)), rng.randrange(elements)) for _ in range(before + after)]
    rows_ = [*others[:before], *refs, *others[before:]]
    mcid, stream, element = (_i64([r[k] for r in rows_]) for k in range(3))
    texts = {k: t for k, t in enumerate(("A", None, "", "BB", "C", "", "😀", "é")) if t is not None}
    labels = _label_tree(rng, elements)
    tree = SimpleNamespace(
        block_owners=_i64([rng.randrange(elements) for _ in range(elements)]),
        actual_text_owners=_i64([rng.choice((-1, -1, -1, *range(elements))) for _ in range(elements)]),
        columns=SimpleNamespace(actual_text=texts),
        label_columns=labels.label_columns,
        labels=labels.labels,
    )
    config = ExtractConfig(include_artifacts=rng.random() < 0.5)
    content = PageContent(stream << 32 | mcid, element, stream, mcid, before, before + len(refs))
    page = (table, tree, content, candidates, config, ())
    owner = _i64(
        [rng.choice((-1, *range(elements))) if rng.random() < 0.2 else rng.randrange(elements) for _ in range(rows)]
    )
    order = _i64(rng.sample(range(rows), rng.randint(0, rows)))
    return [
        ("structure_order", lambda lib: _placement_data(reading._placement(*page), tree)),
        ("owner_runs", lambda lib: reading._owner_runs(owner, order)),
    ]


def _placement_data(placed: Any, tree: Any) -> tuple[Any, ...]:
    """Every field of a placement (its runs included), the table's texts for
    the table; for its labels, on a page with no tail, the runs' labels: the
    compiled placement's own, the reference's by _run_labels (as _owned_blocks reads them)."""
    from ragprep.extract import reading

    labels = placed.labels
    if labels is None and placed.tagged == len(placed.order):
        labels = reading._run_labels(tree, placed.runs[1])
    return placed.table.text, *placed[1:-1], labels


def _label_tree(rng: random.Random, n: int) -> Any:
    """A StructTree of `n` elements, for their labels: two raw types of one
    standard type, TH, levels 0-6, /Lang None and shared, /Alt on some."""
    from ragprep.extract.structure import StructTree
    from ragprep.extract.structure_columns import ContentColumns, ElementColumns

    types = (("P", "P"), ("TH", "TH"), ("Heading", "H1"), ("Body", "P"), ("TD", "TD"), ("Span", "Span"))
    paths = (("Document",), ("Document", "P"), ("Document", "Table", "TR", "TH"), ())
    pick = lambda k: _i64([rng.randrange(k) for _ in range(n)])  # noqa: E731
    alts = {k: rng.choice(("a photo", "", "chart")) for k in range(n) if rng.random() < 0.3}
    columns = ElementColumns(
        parent=_i64([-1] * n), type=pick(len(types)), heading_level=pick(7), actual_text_owner=_i64([-1] * n),
        ref_number=_i64([0] * n), ref_generation=_i64([0] * n), page=_i64([-1] * n), path=pick(len(paths)),
        lang=[rng.choice((None, "en-US", "fr", "")) for _ in range(n)], actual_text={}, alt=alts, cells={},
        type_names=types, page_keys=(), path_names=paths,
    )  # fmt: skip
    return StructTree(columns, ContentColumns(*(_i64([]) for _ in range(4))), {}, ())


def _draw_cell_contents(rng: random.Random) -> Drawn:
    """block_cells (reading._cell_contents) on a page read as read_structure
    reads it: a tree of tables, glyphs marked with MCIDs its refs give to
    cells, to paragraphs in cells and to other elements (refs repeated, some
    glyphs in no ref: the tail), placed, joined (right-to-left texts reorder
    lines) and cut into blocks; NaN quads at times."""
    from ragprep.extract import reading, tables
    from ragprep.extract.config import ExtractConfig
    from ragprep.extract.geometric import join
    from ragprep.extract.structure_columns import PageContent

    tree = _grid_tree(rng)
    grids = tables.table_grids(tree)
    if not tree.size or not grids.has_cells:
        return []
    rows, mcids = _size(rng, 40), rng.randint(1, 12)
    table = _glyphs(rng, rows, tuple(range(-1, mcids)))
    texts = [rng.choice(("x", "ab", "א", "1", "اb")) for _ in range(rows)]
    table = dataclasses.replace(
        table, text=np.array(texts, dtype=object).reshape(rows), mcid_stream=np.zeros(rows, dtype=np.int64)
    )
    cells = list(grids.columns.cells) or [0]
    owners = [rng.choice(cells) if rng.random() < 0.7 else rng.randrange(tree.size) for _ in range(mcids)]
    refs = [(m, owners[m]) for m in rng.sample(range(mcids), rng.randint(0, mcids))]
    mcid, element = _i64([m for m, _ in refs]), _i64([e for _, e in refs])
    page_refs = PageContent(mcid, element, np.zeros(len(refs), dtype=np.int64), mcid, 0, len(refs))
    config = ExtractConfig(include_artifacts=rng.random() < 0.5)
    placed = reading._placement(table, tree, page_refs, _i64(range(rows)), config, ())
    joined = join(placed.table, placed.order, config, break_before=placed.starts)
    blocks, _, runs = reading._owned_blocks(placed.table, tree, joined, placed)
    block_runs = reading._BlockRuns(*runs, blocks)
    return [("block_cells", lambda lib: reading._cell_contents(placed.table, joined, placed, block_runs, grids))]


def _draw_run_labels(rng: random.Random) -> Drawn:
    """run_labels over _label_tree's elements, owned and tail runs mixed."""
    from ragprep.extract import reading

    n = rng.randint(1, 12) if rng.random() < 0.95 else rng.randint(1, 2000)
    tree = _label_tree(rng, n)
    owners = _i64([rng.randint(-1, n - 1) for _ in range(_size(rng, 20))])
    return [("run_labels", lambda lib: reading._run_labels(tree, owners))]


def _renumbered(rng: random.Random, parents: list[int]) -> list[int]:
    """The same tree's parents, its elements numbered at random (a parent after its kid at times)."""
    new_of = rng.sample(range(len(parents)), len(parents))
    renumbered = [0] * len(parents)
    for old, parent in enumerate(parents):
        renumbered[new_of[old]] = -1 if parent < 0 else new_of[parent]
    return renumbered


def _draw_nearest(rng: random.Random) -> Drawn:
    """nearest_marked: parents before kids, or renumbered (the kernel hands over), deep chains."""
    n = _size(rng, 60)
    parents = list(range(-1, n - 1)) if rng.random() < 0.1 else [rng.randint(-1, i - 1) for i in range(n)]
    if n and rng.random() < 0.3:
        parents = _renumbered(rng, parents)
    tree = _tree(rng, n)
    tree = type(tree)(tree.columns._replace(parent=_i64(parents)), tree.content, {}, ())
    marked = np.array([rng.random() < 0.2 for _ in range(n)], dtype=bool)
    return [("nearest_marked", lambda lib: tree.nearest(marked))]


def _draw_tree_tables(rng: random.Random) -> Drawn:
    """_whole_tree_columns (_core.tree_tables): per element its block owner,
    per piece of content its key, per page row its first content row; parents
    before kids or after them, type rows in and out of range, content pages
    ascending or not, in range or not, streams and MCIDs past 32 bits."""
    from ragprep.extract.structure import _whole_tree_columns
    from ragprep.extract.structure_columns import ContentColumns

    n, kinds, pages = _size(rng, 60), rng.randint(1, 9), rng.randint(0, 5)
    parents = [rng.randint(-1, i - 1) for i in range(n)]
    if n and rng.random() < 0.3:  # a parent after its kid (no cycle: the reference would not end)
        parents = _renumbered(rng, parents)
    types = [rng.randrange(kinds) for _ in range(n)]
    for column, odd in ((parents, (-2, -(2**40), n, 2**40)), (types, (-1, kinds, 2**40))):
        if n and rng.random() < 0.05:
            column[rng.randrange(n)] = rng.choice(odd)
    owns = np.array([rng.random() < 0.4 for _ in range(kinds)], dtype=bool)
    rows = _size(rng, 40)
    page = sorted(rng.randrange(pages) for _ in range(rows)) if pages else [0] * rows
    if rows and rng.random() < 0.15:
        page[rng.randrange(rows)] = rng.choice((-1, pages, 2**40, page[0] - 1))
    odd = (-1, 0, 1, 7, 2**31 - 1, 2**31, 2**32, 2**40)
    stream, mcid = (
        [rng.choice(odd) if rng.random() < 0.2 else rng.randint(0, 9) for _ in range(rows)] for _ in range(2)
    )
    content = ContentColumns(_i64(page), _i64(stream), _i64(mcid), _i64(range(rows)))
    return [("tree_tables", lambda lib: _whole_tree_columns(_i64(parents), _i64(types), owns, content, pages))]


# ---------------------------------------------------------------- text, blocks and rows


def _draw_text(rng: random.Random) -> Drawn:
    """geometric.join (pair_rules, text_edges, join_text; RTL lines reordered),
    blocks.run_mcids, run_boxes, run_boxes_two and run_spans_two over runs of
    its order (run_spans_two's offsets past the text or negative at times)."""
    from ragprep.extract import blocks, geometric
    from ragprep.extract.config import ExtractConfig
    from ragprep.extract.glyphs import text_lengths

    rows = _size(rng, 30)
    table = _glyphs(rng, rows)
    table = dataclasses.replace(
        table, text=np.array([t or "x" for t in table.text.tolist()] + [None], dtype=object)[:rows]
    )
    order = _i64([rng.randrange(rows) for _ in range(rng.randint(0, 2 * rows))] if rows else [])
    breaks = np.array([rng.random() < 0.2 for _ in range(len(order))], dtype=bool) if rng.random() < 0.5 else None
    config = ExtractConfig()
    starts, other = _starts(rng, len(order)), _starts(rng, len(order))
    mcids = _i64([rng.choice((-1, 0, 1, 2, 2**40)) for _ in order])
    texts = [rng.choice(_CHARS) * rng.randint(0, 3) for _ in range(_size(rng, 10))]
    spans = _joined_spans(rng, len(order))
    return [
        ("pair_rules+join_text", lambda lib: vars(geometric.join(table, order, config, breaks))),
        (
            "text_edges",
            lambda lib: (
                text_lengths(texts),
                geometric.edge_codepoints(texts),
                geometric.edge_codepoints(np.array(texts, dtype=object)),
            ),
        ),
        ("run_mcids", lambda lib: blocks.run_mcids(mcids, starts)),
        ("run_boxes", lambda lib: blocks.run_boxes(table, order, starts)),
        ("run_boxes_two", lambda lib: blocks.run_boxes_two(table, order, starts, other)),
        ("run_spans_two", lambda lib: blocks.run_spans_two(spans, starts, other)),
    ]


def _joined_spans(rng: random.Random, n: int) -> Any:
    """What run_spans_two reads of a JoinedText (text, char_start, char_end)
    for n emitted glyphs: offsets mostly in the text, at times out of it."""
    text = "".join(rng.choice(_CHARS) for _ in range(rng.randint(0, 12)))
    odd = (-(2**40), -3, -1, len(text) + 1, 2**40)

    def offsets() -> np.ndarray:
        return _i64([rng.choice(odd) if rng.random() < 0.1 else rng.randint(0, len(text)) for _ in range(n)])

    return SimpleNamespace(text=text, char_start=offsets(), char_end=offsets())


def _starts(rng: random.Random, n: int) -> np.ndarray:
    """Where runs of n items start: 0 and a sorted sample of the others ([0] for one item, [] for none)."""
    return _i64([0, *sorted(rng.sample(range(1, n), rng.randint(0, n - 1)))] if n > 1 else [0] * n)


def _draw_frozen_rows(rng: random.Random) -> Drawn:
    """frozen_rows: a slots dataclass (TableCell) and one with a __dict__ (Table), 0 to many rows."""
    from ragprep.extract import rows as rows_module
    from ragprep.extract.tables import Table, TableCell

    cls = rng.choice((TableCell, Table))
    n = _size(rng, 8)
    names = [f.name for f in dataclasses.fields(cls)]
    columns = {
        name: [rng.choice((0, "t", None, (), 2**70, float("nan"))) for _ in range(n)]
        for name in rng.sample(names, len(names))
    }
    return [("frozen_rows", lambda lib: [_plain(r) for r in rows_module.frozen_rows(cls, columns)])]


def _plain(row: Any) -> tuple[Any, ...]:
    return type(row).__name__, tuple(getattr(row, f.name) for f in dataclasses.fields(row))


# ---------------------------------------------------------------- layout's and table detection's kernels


def _draw_layout(rng: random.Random) -> Drawn:
    """_layout.c's kernels of unit geometry (layout/kernels.py, `lib` None the
    reference): boxes on a coarse grid (edges and baselines tie), NaN,
    infinite and -0.0 edges; units in part, permuted, cut into runs."""
    from ragprep.extract.layout import kernels as k

    n = max(1, _size(rng, 40, 300))  # the references of pairs of runs take n squared: a page's hundreds, not thousands
    x0, y0 = _f64(rng, n), _f64(rng, n)
    x1, y1 = (
        x0 + _i64([rng.randint(0, 12) for _ in range(n)]) * 2.5,
        y0 + _i64([rng.randint(1, 6) for _ in range(n)]) * 1.5,
    )
    box = (x0, x1, y0, y1)
    perm = _i64(rng.sample(range(n), n))
    ids = perm[: rng.randint(1, n)]
    cuts = sorted(rng.sample(range(1, n), min(n - 1, rng.randint(0, 8))))
    runs = [r for r in np.split(perm, cuts) if len(r)]
    rtl, flush, leading = rng.random() < 0.3, rng.random() < 0.5, rng.choice((1.0, 3.0))
    src, dst = _i64([rng.randrange(n) for _ in range(2 * n)]), _i64([rng.randrange(n) for _ in range(2 * n)])
    before = np.triu(np.array([[rng.random() < 0.2 for _ in range(min(n, 60))] for _ in range(min(n, 60))]), 1)
    if rng.random() < 0.2 and len(before) > 1:
        before[-1, 0] = True  # a cycle at times
    return [
        ("rows_top_down", lambda lib: k.rows_top_down(lib, y0, y1, ids, 0.3)),
        ("shared_baseline_counts", lambda lib: k.shared_baseline_counts(lib, y0, y1, runs, 0.22, 1.5)),
        ("run_boxes", lambda lib: k.run_boxes(lib, (x0, y0, x1, y1), runs)),
        ("run_pairs", lambda lib: k.run_pairs(lib, (x0, y0, x1, y1), 1.5, 2.5, rtl, flush)),
        ("interleaved_merges", lambda lib: k.interleaved_merges(lib, (x0, y0, x1, y1), 1.5, 2.5)),
        ("row_mates", lambda lib: k.row_mates(lib, box, runs, 0.22, 1.5)),
        ("grid_rows", lambda lib: k.grid_rows(lib, box, ids, 0.22, 1.5, 2.0, leading, 3, rtl)),
        ("paint_run_cuts", lambda lib: k.paint_run_cuts(lib, box, np.sort(ids), 0.22, 2.0, 5.0, 20.0, 6.0, rtl)),
        ("side_by_side_pairs", lambda lib: k.side_by_side_pairs(lib, box, np.sort(ids), 12.0, 6.0)),
        ("gutter_cuts", lambda lib: k.gutter_cuts(lib, x0, x1, ids, 5.0)),
        ("section_breaks", lambda lib: k.section_breaks(lib, y0, y1, k.rows_top_down(None, y0, y1, ids, 0.3), 3.0)),
        ("back_up_moves", lambda lib: k.back_up_moves(lib, box, perm, 0.22, 5.0, 2.5, rtl)),
        ("nearest_under", lambda lib: k.nearest_under(lib, box, ids, 0.22, 2.0)),
        ("marks_beside", lambda lib: k.marks_beside(lib, box, ids, 4.5, 0.6)),
        ("out_of_turn", lambda lib: k.out_of_turn(lib, box, runs, 0.22)),
        ("stream_disorder", lambda lib: k.stream_disorder(lib, runs)),
        ("kahn", lambda lib: k.kahn(lib, before)),
        ("components", lambda lib: k.components(lib, n, src, dst)),
    ]


def _draw_grids(rng: random.Random) -> Drawn:
    """_grids.c's kernels through gridfind._grids_found (the ruled and the
    aligned finders) on a page of _grid_page."""
    from ragprep.extract import gridfind

    table, paths = _grid_page(rng)
    return [("grids_found", lambda lib: gridfind._grids_found(table, paths))]


def _grid_page(rng: random.Random) -> tuple[Any, Any]:
    """(glyphs, paths) of a page of ruled grids (whole rules, pieces or cell
    boxes, some missing, ends jittered), words in their cells, rows of
    aligned words beside them, artifacts, and now and then a coordinate
    that is not finite (the kernels decline it, the reference reads it)."""
    from ragprep.extract import gridfind
    from ragprep.extract.glyphs import GlyphTable
    from ragprep.extract.paths import PathTable

    rules: list[tuple[float, float, float, float, int]] = []
    glyphs: list[tuple[float, float, float, float]] = []
    for _ in range(rng.randint(0, 3)):
        left, top = float(rng.randint(0, 300)), float(rng.randint(300, 800))
        xs = [left]
        for _ in range(rng.randint(1, 6)):
            xs.append(xs[-1] + rng.choice((30.0, 55.0, 90.0)))
        ys = [top]
        for _ in range(rng.randint(1, 8)):
            ys.append(ys[-1] - rng.choice((14.0, 20.0, 33.0)))
        rules += _grid_rules(rng, xs, ys)
        glyphs += [(xs[c] + 2.0 + 2.0 * w, ys[r + 1] + 3.0, xs[c] + 4.0 + 2.0 * w, ys[r + 1] + 11.0)
                   for r in range(len(ys) - 1) for c in range(len(xs) - 1) for w in range(rng.randint(0, 3))]  # fmt: skip
    for row in range(rng.choice((0, 3, 9))):  # aligned rows of words, no rules
        glyphs += [
            (x + 2.0 * w, 100.0 - 12.0 * row, x + 2.0 * w + 2.0, 108.0 - 12.0 * row)
            for x in (40.0, 160.0, 300.0)
            for w in range(rng.randint(1, 3))
        ]
    if glyphs and rng.random() < 0.1:
        glyphs[rng.randrange(len(glyphs))] = (rng.choice(_FLOATS), 0.0, 1.0, 1.0)
    if rules and rng.random() < 0.1:
        rules[rng.randrange(len(rules))] = (rng.choice(_FLOATS), 0.0, 1.0, 1.0, gridfind.LINE)
    rng.shuffle(glyphs)
    texts = [rng.choice(("a", "a", "b", " ", "1")) for _ in glyphs]
    table = GlyphTable.empty().with_text_rows(
        texts, glyphs, [rng.choice((-1, 0, 3)) for _ in glyphs], [0] * len(glyphs)
    )
    table = dataclasses.replace(table, artifact=np.array([rng.random() < 0.1 for _ in glyphs], dtype=bool))
    x0, y0, x1, y1, kind = (
        (np.array(c, dtype=np.float64) for c in zip(*rules, strict=True)) if rules else (np.zeros(0),) * 5
    )
    return table, PathTable(x0, y0, x1, y1, kind.astype(np.uint8), np.zeros(len(kind), dtype=np.uint8))


def _draw_grid_steps(rng: random.Random) -> Drawn:
    """_grids.c's step kernels, which run where a whole-page kernel declines
    (a value not finite), called straight on a page of _grid_page: the
    rules of its paths, collinear rules merged, the sets of crossing rules,
    glyphs placed in the slots of edges (NaN and infinite at times), slots
    joined into cells by random partings, and word counts of runs of glyphs."""
    from ragprep.extract import gridfind

    table, paths = _grid_page(rng)
    horizontal, vertical = gridfind._rules(paths)
    rows, cols = rng.randint(1, 7), rng.randint(1, 7)
    xs, ys = (np.array(sorted(_coord(rng) for _ in range(k + 1)), dtype=np.float64) for k in (cols, rows))
    ys = ys[::-1].copy()
    parted_right = np.array([[rng.random() < 0.6 for _ in range(cols - 1)] for _ in range(rows)], dtype=bool)
    parted_below = np.array([[rng.random() < 0.6 for _ in range(cols)] for _ in range(rows - 1)], dtype=bool)
    glyphs = _i64(rng.sample(range(len(table)), rng.randint(0, len(table))))
    starts = _starts(rng, len(glyphs))
    drawn: Drawn = [
        ("rules", lambda lib: gridfind._rules(paths)),
        ("merge_collinear", lambda lib: (gridfind._merge_collinear(horizontal), gridfind._merge_collinear(vertical))),
        ("grid_slots", lambda lib: gridfind._glyph_slots(table, glyphs, xs, ys)),
        (
            "grid_spans",
            lambda lib: gridfind._spans(
                parted_right.reshape(rows, cols - 1), parted_below.reshape(rows - 1, cols), rows, cols
            ),
        ),
        ("word_counts", lambda lib: gridfind._word_counts(table, glyphs, starts[: len(glyphs)])),
    ]
    if len(horizontal) and len(vertical) and len(horizontal) * len(vertical) <= gridfind.MAX_RULE_PAIRS:
        drawn.append(("rule_components", lambda lib: gridfind._rule_components(horizontal, vertical)))
    return drawn


def _diagonal_grid(rng: random.Random) -> Drawn:
    """A ruled grid of 20 x 20 cells with one glyph on each cell of its
    diagonal: it keeps all 400 cells (every cell meets a used row and a used
    column), far more than its 42 edges and 20 glyphs (_grids.c's ruled_grid
    sorted them in room for the larger of those: a heap overflow, the first
    finding of this campaign)."""
    from ragprep.extract import gridfind
    from ragprep.extract.glyphs import GlyphTable
    from ragprep.extract.paths import PathTable

    k = 20
    xs, ys = [100.0 + 20.0 * i for i in range(k + 1)], [700.0 - 20.0 * i for i in range(k + 1)]
    rules = [(xs[0], y, xs[-1], y) for y in ys] + [(x, ys[-1], x, ys[0]) for x in xs]
    boxes = [(xs[i] + 5.0, ys[i + 1] + 5.0, xs[i] + 10.0, ys[i + 1] + 13.0) for i in range(k)]
    table = GlyphTable.empty().with_text_rows(["a"] * k, boxes, [-1] * k, [0] * k)
    x0, y0, x1, y1 = (np.array(c, dtype=np.float64) for c in zip(*rules, strict=True))
    paths = PathTable(
        x0, y0, x1, y1, np.full(len(rules), gridfind.LINE, dtype=np.uint8), np.zeros(len(rules), dtype=np.uint8)
    )
    return [("grids_found", lambda lib: gridfind._grids_found(table, paths))]


def _heads_scoped_both(rng: random.Random) -> Drawn:
    """A table all of whose 30 cells are heads scoped Both: each a column and
    a row head, twice as many heads as cells (_core.table_finish wrote past
    its list of heads where it made room for one per cell: a61e1a8)."""
    from ragprep.extract import tables
    from ragprep.extract.tables import GridSlot, TableCell, grids_of_slots

    places = [(row, col) for row in range(6) for col in range(5)]
    slots = {e: GridSlot(3, row, col, 1, 1, True, False, "Both", (), None) for e, (row, col) in enumerate(places)}
    grids = grids_of_slots(len(places) + 1, slots, {3: (6, 5)})
    cells = [TableCell(r, c, 1, 1, True, (), f"H{r}{c}", 1, (0.0, 1.0, 2.0, 3.0), (), 0, 3) for r, c in places]
    return [("table_finish", lambda lib: tables._finished_cells(cells, grids, 3, True, False))]


def _huge_node_count(rng: random.Random) -> Drawn:
    """_layout.components of 2**62 nodes: their bytes wrapped to none, and
    it wrote past them (found by _draw_hostile). Compiled only: the answer
    is a MemoryError."""

    def call(lib: Any) -> None:
        if lib is not None:
            with contextlib.suppress(MemoryError):
                lib.components(2**62, np.array([0], dtype=np.int64), np.array([1], dtype=np.int64))

    return [("components", call)]


def _huge_table_count(rng: random.Random) -> Drawn:
    """_core.on_one_page of 2**63 - 1 tables: n_tables + 1 overflowed, and
    from 2**61 the bytes of its first pages wrapped to a few (found by a
    sweep of hostile arguments, session 25; UBSan reports the overflow on
    the unfixed build). Compiled only: the answer is a MemoryError."""
    from ragprep.extract import _core

    def call(lib: Any) -> None:
        if lib is not None:
            empty = np.zeros(0, dtype=np.int64)
            for count in (2**63 - 1, 2**61):
                with contextlib.suppress(MemoryError):
                    _core.on_one_page(empty, empty, empty, empty, empty, count)

    return [("on_one_page", call)]


def _nan_heading_rule(rng: random.Random) -> Drawn:
    """_layout.heading_blocks with a heading rule's max_value NaN, infinite
    or past 2**61: its top of half sizes was cast to int64 from a value none
    holds (found by the sweep of hostile arguments, session 25, through
    block_reading; UBSan reports the cast on the unfixed build). Compiled
    only: the answer is a ValueError."""

    def call(lib: Any) -> None:
        if lib is not None:
            size, flags = np.array([10.0, 12.0, 10.0]), np.array([True, False, True])
            for top in (float("nan"), float("inf"), 2.0**62, -1.0):
                with contextlib.suppress(ValueError):
                    lib.heading_blocks(size, flags, flags, 1.2, 0.5, 2, 0.5, top)

    return [("heading_blocks", call)]


def _huge_unit_glyphs(rng: random.Random) -> Drawn:
    """_layout.emit of units of 2**62 glyphs and more: their positions' bytes
    (count x 8) wrapped to a few and every position was written there (found
    by the sweep of hostile arguments, session 25; UBSan reports the
    overflow on the unfixed build). Compiled only: a MemoryError."""

    def call(lib: Any) -> None:
        if lib is not None:
            one = np.array([0], dtype=np.int64)
            for end in (2**62, 2**63 - 1):
                with contextlib.suppress(MemoryError):
                    lib.emit(one, one + 1, one, np.array([end], dtype=np.int64))

    return [("emit", call)]


def _huge_prose_lines(rng: random.Random) -> Drawn:
    """_layout.margin_note with a prose_lines limit of 2**63 - 1: the test
    of too few lines added two to it (found by the sweep of hostile
    arguments, session 25; UBSan reports the overflow on the unfixed
    build). Compiled only: too few lines, None."""

    def call(lib: Any) -> None:
        if lib is not None:
            box = (np.zeros(3), np.full(3, 100.0), np.arange(3.0) * 12, np.arange(3.0) * 12 + 10)
            glyphs = (np.arange(3, dtype=np.int64), np.arange(1, 4, dtype=np.int64), np.ones(3, dtype=bool))
            order = np.arange(3, dtype=np.int64)
            lib.margin_note(*box, *glyphs, order, 2.0, 50.0, 12.0, 2.0, 3.0, 20.0, 0.5, 2**63 - 1)

    return [("margin_note", call)]


def _huge_unit_count(rng: random.Random) -> Drawn:
    """_layout.cell_disorder of 2**62 units on the page (reads_columns and
    the column reads pass theirs on to it): its per-unit buffers' bytes
    wrapped to none and every unit was written past them (a heap overflow,
    found by the sweep of hostile arguments, session 25, through
    reads_columns). Compiled only: a MemoryError."""

    def call(lib: Any) -> None:
        if lib is not None:
            one, ids = np.array([1], dtype=np.int64), np.array([0], dtype=np.int64)
            for units in (2**62, 2**61 + 1):
                with contextlib.suppress(MemoryError):
                    lib.cell_disorder(ids, one, ids, one, units, True)

    return [("cell_disorder", call)]


def _grid_rules(rng: random.Random, xs: list[float], ys: list[float]) -> list[tuple[float, float, float, float, int]]:
    """A grid's rules: whole, in pieces or as cell boxes, some missing, ends jittered."""
    from ragprep.extract import gridfind

    style, missing = rng.choice(("whole", "pieces", "boxes")), rng.choice((0.0, 0.1, 0.4))
    jitter = lambda: rng.choice((0.0, 0.0, 0.3, -0.7, 1.9, 1e-9, 1 / 3))  # noqa: E731
    if style == "boxes":
        return [(xs[c] + jitter(), ys[r + 1] + jitter(), xs[c + 1] + jitter(), ys[r] + jitter(), gridfind.RECT)
                for r in range(len(ys) - 1) for c in range(len(xs) - 1) if rng.random() >= missing]  # fmt: skip
    rules = []
    for y in ys:
        spans = [(xs[0], xs[-1])] if style == "whole" else list(zip(xs[:-1], xs[1:], strict=True))
        rules += [
            (a + jitter(), y + jitter(), b + jitter(), y, gridfind.LINE) for a, b in spans if rng.random() >= missing
        ]
    for x in xs:
        spans = [(ys[-1], ys[0])] if style == "whole" else list(zip(ys[1:], ys[:-1], strict=True))
        rules += [
            (x + jitter(), a + jitter(), x, b + jitter(), gridfind.LINE) for a, b in spans if rng.random() >= missing
        ]
    return rules


# ---------------------------------------------------------------- whole pages of layout mode


Glyph = tuple[str, float, float, float, float]  # text, x0, y0, x1, y1 (a box on its baseline)


def _line(rng: random.Random, left: float, width: float, y: float, size: float, ragged: bool) -> list[Glyph]:
    """Words along one baseline from `left` (a word space apart, a space
    glyph between them at times), filling `width` or, `ragged`, part of it;
    one word in three of right-to-left letters, painted right to left."""
    glyphs: list[Glyph] = []
    x, end, advance = left, left + width * (rng.uniform(0.2, 0.9) if ragged else 1.0), size * rng.choice((0.5, 0.55))
    while x < end:
        letters = rng.choice(("abcdefg", "0123456789", "\u05d0\u05d1\u05d2", "ABC.,;")) if rng.random() < 0.9 else "•–"
        word = [
            (rng.choice(letters), x + advance * k, y, x + advance * (k + 1), y + size) for k in range(rng.randint(1, 9))
        ]
        glyphs += word[::-1] if letters[0] == "\u05d0" else word
        x += advance * len(word)
        if rng.random() < 0.3:
            glyphs.append((" ", x, y, x + size * 0.25, y + size))
        x += size * rng.choice((0.25, 0.3, 0.9))
    return glyphs


def _block(rng: random.Random, left: float, width: float, top: float) -> tuple[list[list[Glyph]], float]:
    """A block of a column from `top` down (its lines, the y under it): a
    paragraph, a heading of larger type, a list of indented items, a table
    of short cells on shared baselines, or a footnote of small type."""
    kind = rng.choice(("paragraph", "paragraph", "heading", "list", "table", "note"))
    size = {"heading": rng.choice((14.0, 18.0)), "note": 7.0, "table": 9.0}.get(kind, 10.0)
    leading, lines, y = size * rng.choice((1.2, 1.2, 1.5, 1.0)), [], top - size
    for k in range(1 if kind == "heading" else rng.randint(1, 8)):
        baseline = y - k * leading + (rng.choice((0.0, 0.3, -0.4)) if rng.random() < 0.1 else 0.0)
        if kind == "table":
            cols = rng.randint(2, 4)
            lines += [
                _line(rng, left + c * width / cols, width / cols - size, baseline, size, True) for c in range(cols)
            ]
        elif kind == "list":
            lines.append(
                [
                    ("•", left, baseline, left + 4, baseline + size),
                    *_line(rng, left + 12, width - 12, baseline, size, True),
                ]
            )
        else:
            lines.append(_line(rng, left, width, baseline, size, kind == "heading" or rng.random() < 0.3))
    return lines, y - len(lines) * leading - leading * rng.choice((0.5, 1.0, 2.0))


def _page_lines(rng: random.Random) -> list[list[list[Glyph]]]:
    """A page's columns of lines (one to three columns of blocks), then a
    running head and a page number, a note in the margin, a stamp up the
    margin (its glyphs turned a quarter: their boxes are rotated later)."""
    cols = rng.choice((1, 1, 2, 2, 3))
    gutter = rng.choice((4.0, 12.0, 18.0, 30.0))
    width = (512.0 - gutter * (cols - 1)) / cols
    columns = []
    for c in range(cols):
        left, y, lines = 50.0 + c * (width + gutter), rng.choice((720.0, 690.0)), []
        while y > 80 and len(lines) < 60:
            block, y = _block(rng, left, width, y)
            lines += block
        columns.append(lines)
    furniture = [
        _line(rng, 50.0, 512.0, 760.0, 8.0, True),
        [("1", 300.0, 40.0, 305.0, 48.0), ("2", 305.0, 40.0, 310.0, 48.0)],
    ]
    if rng.random() < 0.3:
        furniture.append(_line(rng, 8.0, 38.0, 400.0, 6.0, True))
    return [*columns, furniture]


def _painted(rng: random.Random, columns: list[list[list[Glyph]]]) -> list[Glyph]:
    """The page's glyphs in one paint order: column after column, columns'
    lines interleaved, each line's glyphs back to front, lines shuffled, or
    the furniture first; some glyphs painted twice a hair apart (faux bold)."""
    order = rng.choice(("columns", "columns", "interleaved", "backwards", "shuffled", "furniture first"))
    if order == "interleaved":
        lines = [line for row in itertools.zip_longest(*columns) for line in row if line]
    else:
        lines = [
            line
            for column in (columns[-1:] + columns[:-1] if order == "furniture first" else columns)
            for line in column
        ]
    if order == "shuffled":
        rng.shuffle(lines)
    glyphs = [g for line in lines for g in (line[::-1] if order == "backwards" else line)]
    for at in rng.sample(range(len(glyphs)), min(len(glyphs), rng.choice((0, 0, 3)))):
        t, x0, y0, x1, y1 = glyphs[at]
        glyphs.insert(at, (t, x0 + 0.3, y0, x1 + 0.3, y1))
    return glyphs


def _layout_page(rng: random.Random) -> Any:
    """_page_lines painted (_painted) as a glyph table: font size the
    glyph's height, a stamp of glyphs turned a quarter (writing up the
    page) at times, and now and then a coordinate that is not finite."""
    from ragprep.extract.glyphs import GlyphTable

    glyphs = _painted(rng, _page_lines(rng))
    stamp = [(rng.choice("XYZ"), 20.0, 200.0 + 6.0 * k, 26.0, 206.0 + 6.0 * k) for k in range(rng.choice((0, 0, 8)))]
    glyphs += stamp
    if glyphs and rng.random() < 0.05:
        t, x0, y0, x1, y1 = glyphs[rng.randrange(len(glyphs))]
        glyphs[rng.randrange(len(glyphs))] = (t, rng.choice(_FLOATS), y0, x1, y1)
    n = len(glyphs)
    table = GlyphTable.empty().with_text_rows(
        [g[0] for g in glyphs], [g[1:] for g in glyphs], [rng.choice((-1, 0, 1)) for _ in glyphs], [0] * n
    )
    turned = np.arange(n - len(stamp), n)
    direction, quad, origin, own_end = (
        table.direction.copy(),
        table.quad.copy(),
        table.origin.copy(),
        table.own_end.copy(),
    )
    direction[turned] = (0.0, 1.0)
    x, y0, y1 = quad[turned, 1, 0], quad[turned, 0, 1], quad[turned, 2, 1]
    origin[turned] = np.stack([x, y0], axis=1)
    own_end[turned] = np.stack([x, y1], axis=1)
    quad[turned] = np.stack(
        [origin[turned], own_end[turned], own_end[turned] - (6.0, 0.0), origin[turned] - (6.0, 0.0)], axis=1
    )
    return dataclasses.replace(
        table, direction=direction, quad=quad, origin=origin, own_end=own_end, pen_end=own_end,
        font_size=table.height.copy(), artifact=np.array([rng.random() < 0.03 for _ in range(n)], dtype=bool),
    )  # fmt: skip


def _draw_layout_page(rng: random.Random) -> Drawn:
    """Layout mode's reading of a whole page (read_layout: every _layout.c
    kernel a page reaches, with join's and blocks' _core kernels), the
    running head band's lines of it (band_lines: _grids.c's band kernels),
    and its grids (find_grids), on _layout_page's pages; the running head
    and page number excluded at times, as the document pass marks them."""
    from ragprep.extract import gridfind, running
    from ragprep.extract.config import ExtractConfig
    from ragprep.extract.layout import read_layout
    from ragprep.extract.paths import PathTable

    table = _layout_page(rng)
    config = ExtractConfig()
    exclude = (table.origin[:, 1] >= 755) | (table.origin[:, 1] <= 45) if rng.random() < 0.3 else None
    box = rng.choice(
        ((0.0, 0.0, 612.0, 792.0), (0.0, 0.0, 612.0, 792.0), (30.0, 30.0, 580.0, 770.0), (0.0, 0.0, 0.0, 0.0))
    )
    empty = np.zeros(0)
    paths = PathTable(empty, empty, empty, empty, np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.uint8))
    return [
        ("read_layout", lambda lib: read_layout(table, config, exclude)),
        ("band_lines", lambda lib: vars(running.band_lines(table, box, config))),
        ("grids_found", lambda lib: gridfind._grids_found(table, paths)),
        ("band_glyphs+band_segments", lambda lib: _band_steps(table, box, config)),
    ]


def _band_steps(table: Any, box: Any, config: Any) -> Any:
    """running.py's steps where band_lines' whole kernel declines: the band's
    glyphs (_grids.c band_glyphs), then their segments (band_segments)."""
    from ragprep.extract import running

    found = running._band_glyphs(table, box, config)
    return found and (found, running._starts_and_spaces(table, found[0], config))


# ---------------------------------------------------------------- whole documents


def _draw_document(rng: random.Random) -> Drawn:
    """Whole pages through extract_document, on both paths: every kernel a
    page reaches, on the inputs the readers upstream make of them. One to
    four pages, each of a table of text (ruled or not, its cells' text
    marked content), paragraphs and a running head; tagged at times (the
    table's TH/TD with /Scope, spans, /Headers and /ID, its rows going on
    over the next page), read in one or two of the four modes."""
    from ragprep.extract import extract_document

    sys.path.insert(0, str(_ROOT / "tests"))
    from pdfbuilder import PdfBuilder

    b = PdfBuilder()
    font = b.add_standard_font("Helvetica", widths=rng.random() < 0.7)
    tagged, table_kids, other_kids, ids = rng.random() < 0.6, [], [], [f"h{k}" for k in range(4)]
    for number in range(rng.randint(1, 4)):
        content, cells, mcid = [f"BT /{font} 9 Tf 250 770 Td (Running head {number % 2}) Tj ET"], [], 0
        left, top, rows, cols = rng.randint(20, 200), rng.randint(400, 740), rng.randint(1, 6), rng.randint(1, 5)
        for r in range(rows):
            row = []
            for c in range(cols):
                x, y, text = left + 70 * c, top - 18 * r, _cell_text(rng)
                content.append(f"/TD <</MCID {mcid}>> BDC BT /{font} 10 Tf {x + 3} {y - 13} Td ({text}) Tj ET EMC")
                row.append(mcid)
                mcid += 1
            cells.append(row)
        if rng.random() < 0.5:  # ruled: every row and column edge
            content += [f"{left} {top - 18 * r} m {left + 70 * cols} {top - 18 * r} l S" for r in range(rows + 1)]
            content += [f"{left + 70 * c} {top} m {left + 70 * c} {top - 18 * rows} l S" for c in range(cols + 1)]
        paragraphs = range(mcid, mcid + rng.randint(0, 3))
        content += [
            f"/P <</MCID {k}>> BDC BT /{font} 11 Tf 40 {300 - 40 * (k - mcid)} Td (Paragraph {k} here.) Tj ET EMC"
            for k in paragraphs
        ]
        page = b.add_page(" ".join(content))
        table_kids += [_row_element(b, rng, page, row, ids) for row in cells]
        other_kids += [b.struct_element("P", [k], page=page) for k in paragraphs]
    if tagged:
        b.set_struct_tree([b.struct_element("Table", table_kids), *other_kids])
    data = b.to_bytes()
    modes = rng.sample(("structure", "stream", "layout", "auto"), rng.randint(1, 2))
    return [(f"document {mode}", lambda lib, m=mode: extract_document(data, mode=m).pages) for mode in modes]


def _cell_text(rng: random.Random) -> str:
    return rng.choice(("Name", "12.5", "", "x", "Total cost", "(a)", "\\(b\\)", "Ab cd ef"))


def _row_element(b: Any, rng: random.Random, page: Any, mcids: list[int], ids: list[str]) -> Any:
    """A TR of TH/TD elements, one per MCID, each with attributes of every kind now and then."""
    cells = []
    for mcid in mcids:
        attrs: dict[str, Any] = {"O": "/Table"}
        if rng.random() < 0.3:
            attrs["Scope"] = rng.choice(("/Row", "/Column", "/Both", "/None"))
        if rng.random() < 0.2:
            attrs[rng.choice(("RowSpan", "ColSpan"))] = rng.choice((2, 3, 0, -1, 99))
        if rng.random() < 0.2:
            attrs["Headers"] = [rng.choice(ids) for _ in range(rng.randint(0, 3))]
        kind = "TH" if rng.random() < 0.3 else "TD"
        cell = b.struct_element(kind, [mcid], page=page, attrs=attrs if len(attrs) > 1 else None)
        if rng.random() < 0.2:
            cell.ID = __import__("pikepdf").String(rng.choice(ids))
        cells.append(cell)
    return b.struct_element("TR", cells, page=page)


# ---------------------------------------------------------------- hostile arguments


class _Recorder:
    """An extension module's stand-in that records each call of its
    functions (function, arguments) and makes it."""

    def __init__(self, module: Any, calls: list[tuple[Callable[..., Any], tuple[Any, ...]]]) -> None:
        self._module, self._calls = module, calls

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._module, name)
        if not callable(found) or isinstance(found, type):
            return found

        def record(*args: Any) -> Any:
            self._calls.append((found, args))
            return found(*args)

        return record


def _draw_hostile(rng: random.Random) -> Drawn:
    """Another drawer's compiled calls made again straight to the extension,
    one argument changed as no caller passes it: an array cut short, made
    longer, of another dtype or not contiguous, an index out of range, a
    list item of another type, a count of -1 or 2**62. The kernel must
    answer or raise; a sanitizer report is the finding (no comparison)."""
    from ragprep.extract import native

    inner = KERNELS[rng.choice([n for n in KERNELS if n not in ("document", "hostile")])]
    drawn = inner(rng)
    seed = rng.getrandbits(32)

    def hostile(lib: Any) -> None:
        if lib is None:
            return
        calls: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        saved = native._core, native._grids, native._layout
        native._core, native._grids, native._layout = (_Recorder(module, calls) for module in saved)
        try:
            for _, call in drawn:
                # An input the reference refuses may be refused here too (the
                # differential drawers judge that): its calls made so far are recorded.
                with contextlib.suppress(Exception):
                    call(_Recorder(lib, calls))
        finally:
            native._core, native._grids, native._layout = saved
        local = random.Random(seed)
        for function, args in local.sample(calls, min(len(calls), 3)):
            if args:
                at = local.randrange(len(args))
                changed = (*args[:at], _hostile(local, args[at]), *args[at + 1 :])
                with contextlib.suppress(Exception):  # an answer: the kernel refused the argument
                    function(*changed)

    return [("hostile", hostile)]


def _hostile(rng: random.Random, value: Any) -> Any:
    """`value` changed as no caller passes it (its kind kept at times)."""
    if isinstance(value, np.ndarray):
        return _hostile_array(rng, value)
    if isinstance(value, bool):
        return rng.choice((None, 2, "x"))
    if isinstance(value, int):
        return rng.choice((-1, 0, value + 1, value - 1, 2**62, -(2**63), 2**70, 1.5, None))
    if isinstance(value, float):
        return rng.choice((float("nan"), float("inf"), -1.0, 0, None))
    if isinstance(value, list | tuple):
        items = list(value)
        pick = rng.randrange(4)
        if pick == 0 or not items:
            items = items[: len(items) // 2] if items else [None]
        elif pick == 1:
            items.append(items[-1])
        else:
            items[rng.randrange(len(items))] = rng.choice((None, "x", 2**70, -1, (), b"", float("nan"), np.zeros(2)))
        return type(value)(items) if type(value) in (list, tuple) else items
    if isinstance(value, bytes | str):
        return value[: len(value) // 2] if value and rng.random() < 0.5 else value * 3
    if isinstance(value, dict):
        return {} if rng.random() < 0.3 else {**value, rng.choice((0, "x", (1, 2))): rng.choice((None, -1, "x", (1,)))}
    return rng.choice((None, 0, "x", ()))


def _hostile_array(rng: random.Random, value: np.ndarray) -> Any:
    """An array cut, longer, of another dtype, strided, or with an index out of range."""
    pick = rng.randrange(6)
    if pick == 0:
        return value[: len(value) // 2]
    if pick == 1:
        return np.concatenate([value, value[:1]]) if len(value) else np.zeros(3, dtype=value.dtype)
    if pick == 2:
        kind = rng.choice((np.int32, np.float32, np.int8, np.float64, np.int64, object))
        return value.astype(kind) if value.dtype.kind != "O" else np.zeros(len(value), dtype=kind)
    if pick == 3 and value.ndim == 1 and len(value) > 1:
        return np.repeat(value, 2)[::2]  # the same items, not contiguous
    out = value.copy()
    if len(out) and out.dtype.kind in "iu":
        held = np.iinfo(out.dtype)
        out.reshape(-1)[rng.randrange(out.size)] = max(
            held.min, min(held.max, rng.choice((-1, -(2**40), len(out), 2**40, 2**62)))
        )
    elif len(out) and out.dtype.kind == "f":
        out.reshape(-1)[rng.randrange(out.size)] = rng.choice((np.nan, np.inf, -np.inf, 1e308))
    return out


# ---------------------------------------------------------------- the campaign

KERNELS: dict[str, Callable[[random.Random], Drawn]] = {
    "grid_layout": _draw_grid_layout, "tables": _draw_tables, "finish_slots": _draw_finish_slots,
    "placement": _draw_placement, "cell_contents": _draw_cell_contents, "run_labels": _draw_run_labels,
    "nearest": _draw_nearest, "tree_tables": _draw_tree_tables, "text": _draw_text, "frozen_rows": _draw_frozen_rows, "layout": _draw_layout, "grids": _draw_grids,
    "grid_steps": _draw_grid_steps, "layout_page": _draw_layout_page, "document": _draw_document, "hostile": _draw_hostile,
}  # fmt: skip
# Inputs that found a fault (now mended), drawn first in every campaign: the smoke's fixed seeds keep them found.
REGRESSIONS: dict[str, Callable[[random.Random], Drawn]] = {
    "diagonal_grid": _diagonal_grid,
    "heads_scoped_both": _heads_scoped_both,
    "huge_node_count": _huge_node_count,
    "huge_table_count": _huge_table_count,
    "nan_heading_rule": _nan_heading_rule,
    "huge_unit_glyphs": _huge_unit_glyphs,
    "huge_prose_lines": _huge_prose_lines,
    "huge_unit_count": _huge_unit_count,
}


def _canonical(value: Any) -> Any:
    """`value` as plain data two paths' answers compare by: arrays as (dtype
    kind, shape, items), floats by repr with -0.0 as 0.0 (the sign of a tied
    min is either path's choice), dataclasses and namespaces field by field
    (but a field neither compared nor shown: a cache or a hint such as
    CellContents.texts, no part of the value either path answers)."""
    if isinstance(value, np.ndarray):
        return "array", value.dtype.kind, value.shape, _canonical(value.tolist())
    if isinstance(value, float | np.floating):
        return repr(float(value) + 0.0)
    if isinstance(value, bool | int | str | bytes | type(None) | np.integer | np.bool_):
        return value.item() if isinstance(value, np.generic) else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        shown = [f for f in dataclasses.fields(value) if f.compare or f.repr]
        return type(value).__name__, tuple(_canonical(getattr(value, f.name)) for f in shown)
    if isinstance(value, dict):
        return "dict", [(_canonical(k), _canonical(v)) for k, v in value.items()]
    if isinstance(value, frozenset | set):
        return "set", sorted(map(repr, value))
    if isinstance(value, tuple | list):
        return type(value).__name__ if not hasattr(value, "_fields") else "tuple", [_canonical(v) for v in value]
    if isinstance(value, SimpleNamespace):
        return _canonical(vars(value))
    return repr(value)


def _on_path(call: Call, pure: bool, layout: Any) -> tuple[bool, Any]:
    """(answered, its answer or the exception) of `call` on one path."""
    from ragprep.extract.native import PURE_ENV

    if pure:
        os.environ[PURE_ENV] = "1"
    else:
        os.environ.pop(PURE_ENV, None)
    try:
        return True, _canonical(call(None if pure else layout))
    except Exception as exc:  # judged by the caller: the reference's refusal, or a finding
        return False, exc
    finally:
        os.environ.pop(PURE_ENV, None)


def _compare(name: str, call: Call, layout: Any) -> str:
    """'same', 'refused' (the reference raised) or 'finding' (printed)."""
    answered, expected = _on_path(call, True, layout)
    if not answered:
        return "refused"
    answered, got = _on_path(call, False, layout)
    if not answered:
        print(f"{name}: compiled raised {type(got).__name__}: {got}", file=sys.stderr)
        return "finding"
    if got != expected:
        print(
            f"{name}: compiled differs from the reference\n  compiled  {str(got)[:1500]}\n  reference {str(expected)[:1500]}",
            file=sys.stderr,
        )
        return "finding"
    return "same"


def run(args: argparse.Namespace) -> int:
    from ragprep.extract import native

    if native._core is None or native._layout is None or native._grids is None:
        print("the compiled extensions are not all built", file=sys.stderr)
        return 2
    warnings.simplefilter("ignore", RuntimeWarning)  # numpy's over NaN and infinite coordinates: drawn on purpose
    rng = random.Random(args.seed)
    names = sorted(KERNELS)
    first = [*REGRESSIONS, *names]  # then each drawer once: every kernel is reached in the shortest campaign
    drawers = {**KERNELS, **REGRESSIONS}
    campaign = Campaign(args.seconds, args.report)
    runs = calls = refused = findings = 0
    counts = dict.fromkeys(drawers, 0)
    answered: dict[str, int] = {}  # per call's label, the reference's answers
    while campaign.running(runs=runs, calls=calls, refused=refused, findings=findings):
        name = first[runs] if runs < len(first) else rng.choice(names)
        with open(args.crash_file, "w", encoding="utf-8") as out:  # a sanitizer abort leaves where it was
            out.write(f"--seed {args.seed}: run {runs}, drawer {name}\n")
        for label, call in drawers[name](rng):
            outcome = _compare(label, call, native._layout)
            calls += 1
            refused += outcome == "refused"
            answered[label] = answered.get(label, 0) + (outcome != "refused")
            if outcome == "finding":
                findings += 1
                print(f"  --seed {args.seed}: run {runs}, drawer {name}", file=sys.stderr)
        counts[name] += 1
        runs += 1
    # A kernel whose reference refused every input drawn is not fuzzed (a
    # changed signature, say): a finding, or the campaign would pass blind.
    blind = sorted(label for label, count in answered.items() if not count)
    if blind:
        findings += len(blind)
        print(f"the reference refused every input of: {', '.join(blind)}", file=sys.stderr)
    print("drawn: " + "  ".join(f"{name} {count}" for name, count in counts.items()))
    print(
        f"runs: {runs}  calls: {calls}  refused by the reference: {refused}  cpu seconds: {campaign.cpu:.0f}  findings: {findings}"
    )
    return 1 if findings else 0
