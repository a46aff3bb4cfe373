"""Table detection's compiled kernels (extract/_grids.c) against their numpy
references in extract/gridfind.py (RAGPREP_PURE selects the reference).

Each kernel must give exactly what its reference gives: the text lines and
their pieces (``_lines``), the grids of runs of aligned lines
(``aligned_grids``: pages of table rows, prose columns and blank glyphs), rules joined along their line (``_merge_collinear``),
the sets of crossing rules (``_rule_components``), the whole ruled rule in
one call (``ruled_grids``: pages of ruled grids drawn whole, piece by piece
or as boxes, rules missing, edges of many jittered rules), the text lines and
their aligned grids in one call (``page_aligned_grids``), both finders and
the candidates between them in one call (``find_grids``), each cell's MCIDs
(``_cell_mcids``), and so every table
``detect_tables`` finds; and the running heads' band lines
(``running.band_lines``: its glyphs, segments and keys). Inputs: pages of random glyphs and rules with many
ties (equal x, equal baselines, lines painted backwards), values that are not
finite (the kernels decline them and the reference reads the page), and
(slow) every page of the corpus.
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from codepath import on_path

from ragprep.extract import Document, ExtractConfig, PageGlyphs, gridfind, open_document, running
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.layout import read_layout
from ragprep.extract.native import compiled_grids
from ragprep.extract.paths import PathTable

pytestmark = pytest.mark.skipif(
    compiled_grids() is None, reason="table detection's kernels are not built (pip install compiles extract/_grids.c)"
)

_LINE_FIELDS = ("glyphs", "piece_start", "piece_end", "x0", "x1", "line_piece", "y", "height")


def both(monkeypatch: pytest.MonkeyPatch, run: Callable[[], Any]) -> tuple[Any, Any]:
    """(compiled, reference) results of `run`."""
    compiled = run()
    with on_path(monkeypatch, pure=True):
        return compiled, run()


def assert_same_lines(compiled: gridfind._TextLines, pure: gridfind._TextLines, where: str = "") -> None:
    for name in _LINE_FIELDS:
        a, b = getattr(compiled, name), getattr(pure, name)
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {name}"
        assert np.array_equal(a, b), f"{where}: {name}"


def random_page(rng: np.random.Generator, n: int, painted: str) -> GlyphTable:
    """`n` glyph boxes on a few baselines (jittered below and above the line
    rule's threshold), x on a coarse grid so that many tie, some gaps wide
    enough to cut a line into pieces; painted in reading order, backwards,
    or shuffled."""
    baselines = rng.choice(np.arange(50.0, 750.0, 12.0), size=n)
    y = baselines + rng.choice([0.0, 0.0, 0.0, 0.5, -0.5, 3.0, 4.0], size=n)
    x = rng.integers(0, 120, size=n) * 4.5
    height = rng.choice([10.0, 10.0, 9.5, 12.0, 0.0], size=n)
    width = rng.choice([4.0, 5.5, 6.0], size=n)
    order = np.lexsort((x, -y))
    if painted == "backwards":
        order = order[::-1]
    elif painted == "shuffled":
        order = rng.permutation(n)
    boxes = [(x[i], y[i], x[i] + width[i], y[i] + height[i]) for i in order.tolist()]
    return GlyphTable.empty().with_text_rows(["a"] * n, boxes, [-1] * n, [0] * n)


@pytest.mark.parametrize("painted", ["reading order", "backwards", "shuffled"])
@pytest.mark.parametrize("seed", range(6))
def test_text_lines_equal_the_reference(monkeypatch, painted, seed):
    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 40, 700, 4000):  # 4000: lines of more than 32 glyphs of mixed heights
        table = random_page(rng, n, painted)
        glyphs = np.arange(n, dtype=np.int64)
        compiled, pure = both(monkeypatch, lambda: gridfind._lines(table, glyphs))  # noqa: B023
        assert_same_lines(compiled, pure, f"n={n}")


def test_text_lines_decline_what_is_not_finite_and_the_reference_reads_it(monkeypatch):
    table = random_page(np.random.default_rng(7), 50, "shuffled")
    for bad in (np.nan, np.inf):
        origin = table.origin.copy()
        origin[3, 0] = bad
        odd = GlyphTable(**{**table.__dict__, "origin": origin})
        glyphs = np.arange(len(odd), dtype=np.int64)
        assert gridfind._compiled_lines(compiled_grids(), odd, glyphs) is None
        compiled, pure = both(monkeypatch, lambda: gridfind._lines(odd, glyphs))  # noqa: B023
        assert_same_lines(compiled, pure)


# Writing directions' x: upright (1, within 0.05 of it, -0.0 on the other
# axis), just past the 0.05 bound either way, turned, and not finite.
_DIRECTION_X = np.array(
    [1.0, 1.0, 1.0, 0.96, 1.04, np.nextafter(0.95, 1.0), np.nextafter(1.05, 1.0), 0.95, 1.05,
     np.nextafter(0.95, 0.0), 0.0, -0.0, -1.0, 0.5, 2.0, np.nan, np.inf, -np.inf]
)  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_text_lines_read_the_upright_glyphs_as_the_reference(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    for n in (1, 40, 700):
        table = random_page(rng, n, "shuffled")
        direction = np.stack([rng.choice(_DIRECTION_X, size=n), rng.choice([0.0, -0.0, 0.01, np.nan], size=n)], axis=1)
        turned = GlyphTable(**{**table.__dict__, "direction": direction})
        glyphs = rng.permutation(n)[: max(1, n - 5)].astype(np.int64)  # candidates in no particular order, some left out
        compiled, pure = both(monkeypatch, lambda: gridfind._lines(turned, glyphs))  # noqa: B023
        assert_same_lines(compiled, pure, f"n={n}")
        upright = np.abs(direction[glyphs, 0] - 1.0) < 0.05
        assert np.array_equal(np.sort(compiled.glyphs), np.sort(glyphs[upright]))


def random_rules(rng: np.random.Generator, n: int) -> np.ndarray:
    """Rules (position, from, to) on a few lines, many touching or overlapping."""
    position = rng.choice(np.arange(100.0, 500.0, 20.0), size=n) + rng.choice([0.0, 0.0, 1.5, 2.0, 2.5], size=n)
    start = rng.integers(0, 40, size=n) * 10.0
    return np.stack([position, start, start + rng.integers(1, 12, size=n) * 10.0], axis=1)


@pytest.mark.parametrize("seed", range(8))
def test_merged_rules_and_their_crossings_equal_the_reference(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    for n in (2, 3, 30, 300):
        segments = random_rules(rng, n)
        compiled, pure = both(monkeypatch, lambda: gridfind._merge_collinear(segments))  # noqa: B023
        assert compiled.shape == pure.shape and np.array_equal(compiled, pure)
        horizontal, vertical = random_rules(rng, n), random_rules(rng, n // 2 + 1)
        compiled, pure = both(monkeypatch, lambda: gridfind._rule_components(horizontal, vertical))  # noqa: B023
        assert compiled.dtype == pure.dtype and np.array_equal(compiled, pure)


def random_paths(rng: np.random.Generator, n: int) -> PathTable:
    """Lines and rectangles of every shape the rule tests tell apart: thin
    and thick, short and long, exactly on RULE_THICKNESS and RULE_MIN_LENGTH,
    drawn either way round, with zero sizes, NaN and infinite corners."""
    x0 = rng.choice(np.arange(0.0, 500.0, 25.0), size=n)
    y0 = rng.choice(np.arange(0.0, 700.0, 25.0), size=n)
    sizes = [0.0, -0.0, 1.0, 3.0, -3.0, 4.0, 5.0, -5.0, 40.0, -120.0, np.inf, np.nan]
    x1 = x0 + rng.choice(sizes, size=n)
    y1 = y0 + rng.choice(sizes, size=n)
    corners = [x0, y0, x1, y1]
    for column in corners:
        column[rng.random(n) < 0.02] = np.nan
        column[rng.random(n) < 0.02] = -np.inf
    kind = rng.choice([gridfind.LINE, gridfind.RECT], size=n).astype(np.uint8)
    return PathTable(x0, y0, x1, y1, kind, np.zeros(n, dtype=np.uint8))


@pytest.mark.parametrize("seed", range(8))
def test_rules_equal_the_reference(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    with np.errstate(invalid="ignore"):
        for n in (1, 2, 30, 500):
            paths = random_paths(rng, n)
            compiled, pure = both(monkeypatch, lambda: gridfind._rules(paths))  # noqa: B023
            for a, b in zip(compiled, pure, strict=True):
                assert a.shape == b.shape and a.dtype == b.dtype
                assert np.array_equal(a, b, equal_nan=True)


def test_rules_on_their_thresholds():
    """A piece exactly RULE_THICKNESS thick and RULE_MIN_LENGTH long is a
    rule; a rectangle exactly RULE_THICKNESS thick one way is no box."""
    f = np.array
    paths = PathTable(
        f([10.0, 50.0, 100.0, 200.0]), f([10.0, 50.0, 100.0, 200.0]), f([15.0, 53.0, 103.0, 240.0]),
        f([13.0, 55.0, 140.0, 240.0]), f([gridfind.LINE, gridfind.RECT, gridfind.RECT, gridfind.RECT], dtype=np.uint8),
        np.zeros(4, dtype=np.uint8),
    )  # fmt: skip
    horizontal, vertical = gridfind._rules(paths)
    assert horizontal.tolist() == [[11.5, 10.0, 15.0], [200.0, 200.0, 240.0], [240.0, 200.0, 240.0]]
    assert vertical.tolist() == [[51.5, 50.0, 55.0], [101.5, 100.0, 140.0], [200.0, 200.0, 240.0], [240.0, 200.0, 240.0]]


def test_rules_check_their_buffers():
    grids = compiled_grids()
    columns = [np.zeros(4) for _ in range(4)]
    kind = np.zeros(4, dtype=np.uint8)
    with pytest.raises(ValueError):
        grids.rules(*columns, kind, 0, 1, 3.0, 5.0, np.empty((12, 3)), np.empty((11, 3)))
    with pytest.raises(ValueError):
        grids.rules(*columns[:3], np.zeros(3), kind, 0, 1, 3.0, 5.0, np.empty((12, 3)), np.empty((12, 3)))
    with pytest.raises(TypeError):
        grids.rules(*columns, kind.astype(np.int64), 0, 1, 3.0, 5.0, np.empty((12, 3)), np.empty((12, 3)))


def test_merge_declines_what_is_not_finite(monkeypatch):
    segments = random_rules(np.random.default_rng(3), 20)
    segments[5, 2] = np.inf
    merged = np.empty_like(segments)
    assert compiled_grids().merge_collinear(segments, gridfind.EDGE_TOLERANCE, merged) is None
    compiled, pure = both(monkeypatch, lambda: gridfind._merge_collinear(segments))
    assert np.array_equal(compiled, pure)


@pytest.mark.parametrize("seed", range(6))
def test_word_counts_equal_the_reference(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    table = random_page(rng, 400, "shuffled")
    texts = table.text.copy()
    texts[rng.random(len(texts)) < 0.15] = " "  # blank glyphs start words too
    table = GlyphTable(**{**table.__dict__, "text": texts})
    for cells in (1, 7, 60):
        glyphs = rng.permutation(len(table))[: rng.integers(cells, 400)]
        starts = np.unique(np.concatenate([[0], rng.integers(1, len(glyphs), size=cells - 1)]))
        compiled, pure = both(monkeypatch, lambda: gridfind._word_counts(table, glyphs, starts))  # noqa: B023
        assert compiled.dtype == pure.dtype and np.array_equal(compiled, pure)


def test_word_counts_decline_empty_cells_and_texts_that_are_no_str():
    table = random_page(np.random.default_rng(2), 20, "shuffled")
    out = np.empty(3, dtype=np.int64)
    args = (table.origin, table.own_end, table.height)
    assert compiled_grids().word_counts(*args, ["a"] * 20, np.arange(20), np.array([0, 5, 5]), out) is None
    assert compiled_grids().word_counts(*args, ["a"] * 19 + [None], np.arange(20), np.array([0, 5, 9]), out) is None
    assert compiled_grids().word_counts(*args, ["a"] * 20, np.arange(20), np.array([0, 5, 9]), out) is True


def test_kernels_check_their_buffers():
    grids = compiled_grids()
    table = random_page(np.random.default_rng(1), 10, "shuffled")
    out = [np.empty(10, dtype=np.int64), np.empty(10, dtype=np.int64), np.empty(10), np.empty(10),
           np.empty(11, dtype=np.int64), np.empty(10), np.empty(10)]  # fmt: skip
    columns = (table.origin, table.height, table.quad, table.direction)
    with pytest.raises(IndexError):
        grids.text_lines(*columns, np.array([0, 10] + [1] * 8), 1.2, *out)
    with pytest.raises(IndexError):
        grids.text_lines(*columns, np.array([0, -1] + [1] * 8), 1.2, *out)
    with pytest.raises(ValueError):
        grids.text_lines(*columns, np.arange(9), 1.2, *out)
    with pytest.raises(ValueError):
        grids.text_lines(*columns[:3], table.direction[:9], np.arange(10), 1.2, *out)
    with pytest.raises(TypeError):
        grids.text_lines(*columns, np.arange(10, dtype=np.int32), 1.2, *out)
    with pytest.raises(ValueError):
        grids.rule_components(np.zeros((2, 3)), np.zeros((2, 3)), 2.0, np.empty(3, dtype=np.int64))


def _corpus_files(corpus: Path) -> list[Path]:
    with open(corpus / "MANIFEST.tsv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [corpus / row["path"] for row in rows if row["pages"] not in ("n/a", "")]


def _corpus_pages(corpus: Path) -> Iterator[tuple[str, Document, int, PageGlyphs]]:
    """(where, document, page number, its glyphs) for every page of every readable corpus file."""
    for path in _corpus_files(corpus):
        try:
            doc = open_document(path)
        except Exception:  # unreadable files are other tests' subject
            continue
        with doc:
            for number in range(1, doc.page_count + 1):
                yield f"{path.name} p{number}", doc, number, doc.page_glyphs(number)


@pytest.mark.slow
def test_every_corpus_page_finds_the_same_tables_on_both_paths(corpus, monkeypatch):
    for where, doc, number, glyphs in _corpus_pages(corpus):
        reading = read_layout(glyphs.table, doc.config, None)

        def detect() -> tuple:
            return gridfind.detect_tables(glyphs.table, glyphs.paths, reading.joined, doc.config, number)  # noqa: B023

        compiled, pure = both(monkeypatch, detect)
        assert compiled == pure, where
        lines = both(monkeypatch, lambda: gridfind._lines(glyphs.table, gridfind.text_glyphs(glyphs.table)))  # noqa: B023
        assert_same_lines(*lines, where)


@pytest.mark.parametrize("seed", range(10))
def test_grid_spans_equal_the_reference(monkeypatch, seed):
    """Slots joined into cells (_grids.c grid_spans) as gridfind._spans'
    union-find joins them: grids of one row or column up to 14 x 14, rules
    missing anywhere from never to almost always (L-shaped and ring-shaped
    cells, a cell around another), cells numbered by their first slot."""
    rng = np.random.default_rng(seed)
    for n_rows, n_cols in ((1, 1), (1, 5), (5, 1), (2, 2), (3, 7), (14, 14)):
        for missing in (0.0, 0.2, 0.5, 0.9):
            right = rng.random((n_rows, n_cols - 1)) >= missing
            below = rng.random((n_rows - 1, n_cols)) >= missing
            compiled, pure = both(monkeypatch, lambda: gridfind._spans(right, below, n_rows, n_cols))  # noqa: B023
            for a, b in zip(compiled, pure, strict=True):
                assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), (n_rows, n_cols, missing)
    # A 3 x 3 ring of slots around the middle one: parted from the middle slot only.
    right = np.array([[False, False], [True, True], [False, False]])
    below = np.array([[False, True, False], [False, True, False]])
    cell_of, spans = gridfind._spans(right, below, 3, 3)
    assert cell_of.tolist() == [0, 0, 0, 0, 1, 0, 0, 0, 0] and spans.tolist() == [[0, 0, 3, 3], [1, 1, 1, 1]]


def test_grid_spans_check_their_buffers():
    grids = compiled_grids()
    cell, spans = np.empty(6, dtype=np.int64), np.empty((6, 4), dtype=np.int64)
    right, below = np.zeros((2, 2), dtype=bool), np.zeros((1, 3), dtype=bool)
    assert grids.grid_spans(right, below, 2, 3, cell, spans) == 1
    for args in ((right, below, 3, 2), (right, below, 2, 3, cell[:5], spans), (right, below, 2, 3, cell, spans[:5]),
                 (right[:1], below, 2, 3), (right, below, 0, 3), (right, below, 2, -3)):  # fmt: skip
        with pytest.raises(ValueError):
            grids.grid_spans(*args, *((cell, spans) if len(args) == 4 else ()))
    with pytest.raises(TypeError):
        grids.grid_spans(right.astype(np.int8), below, 2, 3, cell, spans)


@pytest.mark.parametrize("seed", range(12))
def test_glyph_slots_equal_the_reference(monkeypatch, seed):
    """Each glyph's slot of a ruled grid (_grids.c grid_slots) as
    gridfind._slots finds it from the quads' mean corners: centres on the
    edges, between, beyond them and not finite; corners whose sums round;
    one-slot and many-slot grids; edges not finite (the kernel declines, the
    reference reads them)."""
    rng = np.random.default_rng(seed)
    n = 300
    # Corners on a 5-pt lattice (centres on the edges often) plus a third of a point now and then (sums that round).
    quad = rng.integers(-4, 44, (n, 4, 2)) * 5.0 + rng.choice([0.0, 0.0, 1 / 3, 0.1], (n, 4, 2))
    hit = rng.random((n, 4, 2)) < 0.02
    quad[hit] = rng.choice([np.inf, -np.inf, np.nan, -0.0], int(hit.sum()))
    n_rows = n
    table = GlyphTable.empty().with_text_rows(["a"] * n_rows, [(0.0, 0.0, 1.0, 1.0)] * n_rows, [-1] * n_rows, [0] * n_rows)
    table = GlyphTable(**{**table.__dict__, "quad": quad})
    glyphs = rng.permutation(n)[: int(rng.integers(0, n))]
    for _ in range(6):
        xs = np.sort(rng.choice(np.arange(0.0, 200.0, 10.0), int(rng.integers(2, 9)), replace=False))
        ys = np.sort(rng.choice(np.arange(0.0, 200.0, 10.0), int(rng.integers(2, 9)), replace=False))[::-1]
        if rng.random() < 0.2:
            (xs if rng.random() < 0.5 else ys)[0] = rng.choice([np.inf, -np.inf, np.nan])
        compiled, pure = both(monkeypatch, lambda: gridfind._glyph_slots(table, glyphs, xs, ys))  # noqa: B023
        for a, b in zip(compiled, pure, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b), (xs, ys)
        # Centres on every edge and crossing, between the edges and beyond them.
        along = [np.concatenate([e, (e[1:] + e[:-1]) / 2, [e.min() - 5, e.max() + 5]]) for e in (xs, ys)]
        centres = np.array([(x, y) for x in along[0] for y in along[1]])
        ties = GlyphTable(**{**table.__dict__, "quad": np.repeat(centres[:, None, :], 4, axis=1)})
        every = np.arange(len(centres))
        compiled, pure = both(monkeypatch, lambda: gridfind._glyph_slots(ties, every, xs, ys))  # noqa: B023
        for a, b in zip(compiled, pure, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b), (xs, ys)
    grids = compiled_grids()
    out = [np.empty(len(glyphs), dtype=np.int64) for _ in range(3)]
    assert grids.grid_slots(quad, glyphs, np.array([0.0, np.nan]), np.array([10.0, 0.0]), *out) is None


def test_glyph_slots_check_their_buffers():
    grids = compiled_grids()
    quad, glyphs, edges = np.zeros((10, 4, 2)), np.arange(10), np.array([-1.0, 1.0])
    out = [np.empty(10, dtype=np.int64) for _ in range(3)]
    assert grids.grid_slots(quad, glyphs, edges, edges[::-1].copy(), *out) == 10
    with pytest.raises(IndexError):
        grids.grid_slots(quad, np.array([0, 10] + [1] * 8), edges, edges[::-1].copy(), *out)
    with pytest.raises(ValueError):
        grids.grid_slots(quad, glyphs, edges, edges, *out[:2], np.empty(9, dtype=np.int64))
    with pytest.raises(ValueError):
        grids.grid_slots(quad, glyphs, edges[:0], edges, *out)
    with pytest.raises(ValueError):
        grids.grid_slots(np.zeros(81), glyphs, edges, edges, *out)  # no whole number of 4 x 2 corners
    with pytest.raises(TypeError):
        grids.grid_slots(quad, glyphs.astype(np.int32), edges, edges, *out)


# --------------------------------------------------------------------------- detected cells' boxes and spans

ROUNDING_CASES = [-768.6825, 1253.0805, 597.6625, 0.0625, -0.0625, -0.0004, -0.0, 0.0, np.inf, -np.inf, np.nan, 1e300, 2.0**60]


def cell_boxes_both(monkeypatch: pytest.MonkeyPatch, quad: np.ndarray, glyphs: np.ndarray, starts: np.ndarray,
                    position: np.ndarray, char_start: np.ndarray, char_end: np.ndarray) -> tuple[Any, Any]:  # fmt: skip
    n = len(quad)
    table = GlyphTable.empty().with_text_rows(["a"] * n, [(0.0, 0.0, 1.0, 1.0)] * n, [-1] * n, [0] * n)
    table = GlyphTable(**{**table.__dict__, "quad": quad})
    joined = SimpleNamespace(char_start=char_start, char_end=char_end)
    return both(monkeypatch, lambda: gridfind._cell_boxes(table, glyphs, starts, position, joined))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(6))
def test_cell_boxes_equal_the_reference(monkeypatch, seed):
    """_grids.c cell_boxes against gridfind's reductions and rounding: cells
    of one to many glyphs in any order, glyphs the page reading did not
    place (a cell with none of them placed too), corners of every sign with
    NaN, infinities, signed zeros and values on rounding's hard cases."""
    rng = np.random.default_rng(seed)
    n = 400
    quad = rng.integers(-2_000_000, 2_000_000, (n, 4, 2)) / 1000.0 + rng.choice([0.0, 0.0005, 0.00049], (n, 4, 2))
    hit = rng.random((n, 4, 2)) < 0.03
    quad[hit] = rng.choice(ROUNDING_CASES, int(hit.sum()))
    glyphs = rng.permutation(n)[: int(rng.integers(1, n))]
    starts = np.concatenate([[0], np.sort(rng.choice(np.arange(1, len(glyphs)), min(40, len(glyphs) - 1), replace=False))])
    emitted = int(rng.integers(1, n))
    position = np.where(rng.random(n) < 0.2, -1, rng.integers(0, emitted, n))
    position[glyphs[: starts[1] if len(starts) > 1 else len(glyphs)]] = -1  # the first cell: nothing placed
    char_start = rng.integers(0, 10_000, emitted)
    char_end = char_start + rng.integers(0, 5, emitted)
    compiled, pure = cell_boxes_both(monkeypatch, quad, glyphs, starts, position, char_start, char_end)
    assert repr(compiled) == repr(pure)
    assert compiled[1][0] == np.iinfo(np.int64).max and compiled[2][0] == -1


def test_cell_boxes_round_each_value_as_python_rounds_it(monkeypatch):
    """One glyph per cell, its four corners at one value: each box is that
    value rounded by round(v, 3) on both paths (the hard cases go through
    round() itself in the kernel too)."""
    values = np.array(ROUNDING_CASES + (np.arange(-3000, 3000) / 1000.0 + 0.0005).tolist())
    quad = np.repeat(values[:, None, None], 8).reshape(-1, 4, 2)
    cells = np.arange(len(values))
    ones = np.zeros(1, dtype=np.int64)
    compiled, pure = cell_boxes_both(monkeypatch, quad, cells, cells, np.zeros(len(values), dtype=np.int64), ones, ones)
    assert repr(compiled) == repr(pure)
    assert [repr(box) for box in compiled[0]] == [repr((round(v, 3),) * 4) for v in values.tolist()]


def test_cell_boxes_check_their_buffers():
    grids = compiled_grids()
    quad, glyphs, starts = np.zeros((10, 4, 2)), np.arange(10), np.array([0, 4])
    position, spans = np.arange(10), np.zeros(10, dtype=np.int64)
    assert grids.cell_boxes(quad, glyphs, starts, position, spans, spans)[1] == [0, 0]
    with pytest.raises(IndexError):
        grids.cell_boxes(quad, np.array([0, 10]), np.array([0]), position, spans, spans)
    with pytest.raises(IndexError):
        grids.cell_boxes(quad, glyphs, starts, np.full(10, 10), spans, spans)
    for bad in ([1, 4], [0, 0], [0, 11], [4, 2]):
        with pytest.raises(ValueError):
            grids.cell_boxes(quad, glyphs, np.array(bad), position, spans, spans)
    with pytest.raises(ValueError):
        grids.cell_boxes(quad[:9], glyphs, starts, position, spans, spans)
    with pytest.raises(ValueError):
        grids.cell_boxes(quad, glyphs, starts, position, spans, spans[:9])
    with pytest.raises(TypeError):
        grids.cell_boxes(quad, glyphs.astype(np.int32), starts, position, spans, spans)


# --------------------------------------------------------------------------- running heads' band lines


def odd_band_page(rng: np.random.Generator, n: int) -> GlyphTable:
    """A random page (random_page) made harder for the band kernels: glyphs
    not shown, in vertical writing, without text, written at a slant or up
    the page, and NaN, infinite and zero measures in every column the
    kernels read."""
    table = random_page(rng, n, "shuffled")
    columns = {name: getattr(table, name).copy() for name in ("quad", "origin", "own_end", "height", "direction")}
    columns["visible"] = rng.random(n) > 0.1
    columns["wmode"] = (rng.random(n) < 0.05).astype(np.int8)
    text = table.text.copy()
    text[rng.random(n) < 0.05] = ""
    slant = rng.random(n)
    direction = columns["direction"]
    direction[slant < 0.05] = (np.cos(0.01), np.sin(0.01))  # upright enough to count, not (1, 0)
    direction[(slant >= 0.05) & (slant < 0.08)] = (0.0, 1.0)
    direction[(slant >= 0.08) & (slant < 0.1)] = (1.0, -0.0)
    for name in columns:
        if name in ("visible", "wmode"):
            continue
        flat = columns[name].reshape(n, -1)
        for bad in (np.nan, np.inf, -np.inf, 0.0):
            hit = rng.random(n) < 0.01
            flat[hit, rng.integers(0, flat.shape[1])] = bad
    return GlyphTable(**{**table.__dict__, **columns, "text": text})


def assert_same_band_lines(compiled: running.BandLines, pure: running.BandLines, where: str = "") -> None:
    assert compiled.keys == pure.keys, where
    for name in ("glyphs", "line", "row", "row_size"):
        a, b = getattr(compiled, name), getattr(pure, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), f"{where}: {name}"


@pytest.mark.parametrize("odd", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_band_lines_equal_the_reference(monkeypatch, seed, odd):
    """Band glyphs and their segments (band_glyphs, band_segments) against
    running.py's numpy on pages whose bands hold many glyphs (a wide band),
    with ties of baseline and x, and (odd) every kind of glyph they leave
    out or decline."""
    rng = np.random.default_rng(seed)
    config = ExtractConfig(running_band=0.4)
    with np.errstate(invalid="ignore", over="ignore"):
        for n in (1, 2, 40, 600):
            table = odd_band_page(rng, n) if odd else random_page(rng, n, ["reading order", "shuffled"][n % 2])
            compiled, pure = both(monkeypatch, lambda: running.band_lines(table, (0.0, 0.0, 612.0, 792.0), config))  # noqa: B023
            assert_same_band_lines(compiled, pure, f"n={n}")
            # Before candidates are chosen (random texts repeat): every band glyph and segment start.
            found = running._band_glyphs(table, (0.0, 0.0, 612.0, 792.0), config)
            compiled, pure = both(monkeypatch, lambda: running._band_glyphs(table, (0.0, 0.0, 612.0, 792.0), config))  # noqa: B023
            assert (compiled is None) == (pure is None) == (found is None)
            if found is not None:
                assert np.array_equal(compiled[0], pure[0]) and compiled[1] == pure[1]
                starts = both(monkeypatch, lambda: running._starts_and_spaces(table, found[0], config))  # noqa: B023
                assert all(np.array_equal(a, b) for a, b in zip(*starts, strict=True))


def band_rows(rng: np.random.Generator) -> tuple[GlyphTable, running._Segments]:
    """Segments of band lines on up to three rows, glyphs 5 wide in stream
    order, on an x grid of 0.5: gaps between neighbours on a row tie with
    SEGMENT_GAP (6.5 at height 10) and, after a long segment, SEGMENT_BACK
    (-40 at height 10); some glyphs 8 tall, some segments at a slant."""
    m = int(rng.integers(2, 7))
    count = np.where(rng.random(m) < 0.8, rng.integers(1, 4, m), rng.integers(8, 13, m))
    row = rng.integers(0, 3, m)
    boxes = []
    for s in range(m):
        x, base = float(rng.choice([0.0, 5.0, 10.0, 11.5, 16.5, 21.5, 45.0, 51.5])), 700.0 - 20.0 * float(row[s])
        for k in range(int(count[s])):
            height = float(rng.choice([10.0, 10.0, 10.0, 8.0]))
            boxes.append((x + 5.0 * k, base, x + 5.0 * (k + 1), base + height))
    n = len(boxes)
    table = GlyphTable.empty().with_text_rows(["a"] * n, boxes, [-1] * n, [0] * n)
    line = np.repeat(np.arange(m), count)
    # A segment written at a slant: gaps and order along its own direction.
    slant = np.repeat(rng.random(m) < 0.1, count)
    direction = np.where(slant[:, None], [0.8, 0.6], table.direction)
    table = GlyphTable(**{**table.__dict__, "direction": direction})
    return table, running._Segments(np.arange(n), line, ["a"] * m, np.zeros(m, dtype=bool), row)


def test_band_joins_answer_as_the_pieces_joined_test(monkeypatch):
    """band_joins (does running._pieces_joined join any two segments?)
    gives the answer of the reference's own test on rows of segments whose
    gaps tie with its thresholds, both answers seen; it declines a value
    that is not finite, and the reference then runs."""
    grids = compiled_grids()
    config, seen = ExtractConfig(), set()
    rng = np.random.default_rng(19)
    monkeypatch.setattr(running, "_none_joined", lambda table, segments: False)  # the reference's test runs
    for _ in range(3000):
        table, segments = band_rows(rng)
        columns = (table.origin, table.own_end, table.direction, table.height, segments.glyphs, segments.line, segments.row)
        answer = grids.band_joins(*columns, running.SEGMENT_GAP, running.SEGMENT_BACK)
        if len(set(segments.row.tolist())) < len(segments.row):
            assert answer == (running._pieces_joined(table, segments, config) is not segments)
            seen.add(answer)
    assert seen == {True, False}
    origin = table.origin.copy()
    origin[np.flatnonzero(segments.line == segments.line[-1])[0], 0] = np.nan  # the last segment's first glyph
    assert grids.band_joins(origin, *columns[1:], running.SEGMENT_GAP, running.SEGMENT_BACK) is None
    with pytest.raises(ValueError):
        grids.band_joins(*columns[:3], table.height[:-1], *columns[4:], 0.65, 4.0)
    with pytest.raises(IndexError):
        grids.band_joins(*columns[:4], segments.glyphs + 1, *columns[5:], 0.65, 4.0)


def test_band_glyphs_and_segments_on_their_thresholds_equal_the_reference(monkeypatch):
    """Ties with every threshold: box centres exactly on the bands' inner
    edges (a page 800 high, bands of a quarter: 600 and 200), gaps exactly
    a word space (0.15 x 10), a segment gap (0.65 x 10) and a jump back
    (-4 x 10), a move across exactly half the height: none of them cuts."""
    config = ExtractConfig(running_band=0.25)
    # (x, baseline, width, height): own end x + width; box centre baseline + height / 2
    glyphs = [
        (72.0, 595.0, 6.0, 10.0), (79.5, 595.0, 6.0, 10.0),  # centre 600; gap 1.5: no space
        (92.0, 595.0, 6.0, 10.0),  # gap 6.5 = 0.65 x 10: same segment, a space
        (58.0, 595.0, 6.0, 10.0),  # back 40 = 4 x 10: same segment
        (66.0, 600.0, 6.0, 10.0),  # 5.0 across = 0.5 x 10: same line
        (72.0, 196.0, 6.0, 8.0), (79.0, 196.0, 6.0, 8.0),  # bottom band, centre 200; gap 1 < 1.2
        (86.0, 650.0, 6.0, 10.0), (300.0, 400.0, 6.0, 10.0),  # inside the top band; outside both
    ]
    boxes = [(x, y, x + w, y + h) for x, y, w, h in glyphs]
    table = GlyphTable.empty().with_text_rows(["a"] * len(boxes), boxes, [-1] * len(boxes), [0] * len(boxes))
    found = running._band_glyphs(table, (0.0, 0.0, 612.0, 800.0), config)
    assert found is not None and found[0].tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    compiled, pure = both(monkeypatch, lambda: running._band_glyphs(table, (0.0, 0.0, 612.0, 800.0), config))
    assert np.array_equal(compiled[0], pure[0])
    start, space = running._starts_and_spaces(table, found[0], config)
    assert start.tolist() == [True, False, False, False, False, True, False, True]
    assert space.tolist() == [False, False, True, False, True, False, False, False]
    starts = both(monkeypatch, lambda: running._starts_and_spaces(table, found[0], config))
    assert all(np.array_equal(a, b) for a, b in zip(*starts, strict=True))


def turned_page(rng: np.random.Generator, n: int, turned: float) -> GlyphTable:
    """A random page (random_page, shuffled) with the share `turned` of its
    glyphs written up the page: a few, and the page still reads along (1, 0)
    (reading_direction's shortcut fails, its histogram answers (1, 0)); most,
    and it reads up the page."""
    table = random_page(rng, n, "shuffled")
    direction = table.direction.copy()
    direction[rng.random(n) < turned] = (0.0, 1.0)
    return GlyphTable(**{**table.__dict__, "direction": direction})


@pytest.mark.parametrize("seed", range(6))
def test_band_lines_kernel_reads_pages_with_turned_glyphs_as_the_reference(monkeypatch, seed):
    """band_lines in one kernel call (_grids.c band_lines) where every glyph
    is upright, and in a second call where some are not but the page reads
    along (1, 0); not at all where it reads up the page. Each equal to the
    reference (RAGPREP_PURE: numpy steps throughout)."""
    rng = np.random.default_rng(seed)
    config = ExtractConfig(running_band=0.4)
    box = (0.0, 0.0, 612.0, 792.0)
    for turned, kernel_reads in ((0.0, True), (0.05, True), (0.9, False)):
        table = turned_page(rng, 300, turned)
        read = running._compiled_segments(table, box, config)
        assert (read is not None) == kernel_reads, turned
        compiled, pure = both(monkeypatch, lambda: running.band_lines(table, box, config))  # noqa: B023
        assert_same_band_lines(compiled, pure, f"turned={turned}")
        if read is not None:  # the segments before candidates are chosen (random texts repeat), as the steps find them
            steps = running._reference_segments(table, box, config)
            assert steps is not None and len(steps.glyphs) > 50 and read.keys == steps.keys
            for name in ("glyphs", "line", "in_top", "row"):
                a, b = getattr(read, name), getattr(steps, name)
                assert a.dtype == b.dtype and np.array_equal(a, b), name


def test_band_lines_kernel_answers_false_off_the_upright_shortcut():
    table = turned_page(np.random.default_rng(2), 40, 0.05)
    grids = compiled_grids()
    columns = (table.visible, table.quad, table.direction, table.wmode, table.origin, table.own_end, table.height, table.text)
    limits, ratios = (500.0, 300.0, 0.95), (0.5, 0.15, 0.65, 4.0)
    assert grids.band_lines(*columns, *limits, float(np.cos(np.radians(0.5))), *ratios) is False
    assert isinstance(grids.band_lines(*columns, *limits, -np.inf, *ratios), tuple)
    no_str = table.text.copy()
    no_str[:] = None
    assert grids.band_lines(*columns[:-1], no_str, *limits, -np.inf, *ratios) is None


def test_band_segments_decline_other_directions_and_values_not_finite():
    table = random_page(np.random.default_rng(4), 30, "reading order")
    glyphs = np.arange(30, dtype=np.int64)
    grids = compiled_grids()

    def segments(**changed: np.ndarray) -> object:
        odd = GlyphTable(**{**table.__dict__, **changed})
        start, space = np.empty(30, dtype=bool), np.empty(30, dtype=bool)
        args = (odd.origin, odd.own_end, odd.height, odd.direction, glyphs, 0.5, 0.15, 0.65, 4.0, start, space)
        return grids.band_segments(*args)

    assert segments() is True
    slanted = table.direction.copy()
    slanted[7] = (np.cos(0.01), np.sin(0.01))
    assert segments(direction=slanted) is None
    for bad in (np.nan, np.inf):
        height = table.height.copy()
        height[3] = bad
        assert segments(height=height) is None
        own_end = table.own_end.copy()
        own_end[9, 1] = bad
        assert segments(own_end=own_end) is None


# Texts whose keys take every branch of masked_key: digits of other scripts
# (str.isdecimal: what \d matches), figures that are no decimal digit (a
# superscript two, a Roman numeral), white space beyond the ASCII space,
# letters whose case folding is no lowering (the ligature fi, the sharp s), and
# glyphs of several characters.
_KEY_TEXTS = (
    "a", "B", "7", "\u0663", "\u0661\u0662", "\U0001d7d8", "\u00b2", "\u216b", " ", "\u00a0", "\u3000", "\t",
    "\u00df", "\u0130", "\u03a3", "\ufb01", "x y", "A1b", "Page", "", "\u00c9t\u00e9",
)  # fmt: skip


def key_page(rng: np.random.Generator) -> GlyphTable:
    """Band lines of random texts (_KEY_TEXTS): rows in the top and bottom
    bands of a 612 x 792 page, each of one to three segments of 1-8 glyphs
    5 wide, at the left, centre and right slots or now and then right after
    the segment before (a piece that joins it); segments painted in random
    order."""
    pieces: list[tuple[float, float, int]] = []  # (x, baseline, glyphs)
    for base in rng.choice([760.0, 740.0, 720.0, 40.0, 20.0], size=int(rng.integers(1, 6)), replace=False):
        for slot in rng.choice([50.0, 280.0, 500.0], size=int(rng.integers(1, 4)), replace=False):
            count = int(rng.integers(1, 9))
            pieces.append((float(slot), float(base), count))
            if rng.random() < 0.1:
                pieces.append((float(slot) + 5.0 * count, float(base), int(rng.integers(1, 4))))
    boxes = [
        (x + 5.0 * k, base, x + 5.0 * (k + 1), base + 10.0)
        for p in rng.permutation(len(pieces)).tolist()
        for x, base, count in [pieces[p]]
        for k in range(count)
    ]
    n = len(boxes)
    texts = [_KEY_TEXTS[k] for k in rng.integers(0, len(_KEY_TEXTS), n)]
    return GlyphTable.empty().with_text_rows(texts, boxes, [-1] * n, [0] * n)


def test_band_keys_kernel_keys_every_kind_of_text_as_the_reference(monkeypatch):
    """band_lines whole in one call (_grids.c band_keys: segments, masked
    keys, candidates) equals the reference on pages of band lines of random
    texts: digit runs of any script as one "#", any white space collapsed,
    case folded as str.casefold folds it; and where pieces of a row join,
    the kernel leaves the page to the steps, which join them. Both answers
    are seen, and keys with a "#", a space, a non-ASCII letter and a folded
    ligature among the kernel's."""
    rng = np.random.default_rng(21)
    config, box = ExtractConfig(), (0.0, 0.0, 612.0, 792.0)
    answers, keys = set(), set()
    for _ in range(300):
        table = key_page(rng)
        whole = running._compiled_band_lines(table, box, config)
        answers.add(whole is not None)
        keys.update(whole.keys if whole is not None else ())
        compiled, pure = both(monkeypatch, lambda: running.band_lines(table, box, config))  # noqa: B023
        assert_same_band_lines(compiled, pure)
    assert answers == {True, False}
    assert any("#" in key for key in keys) and any(" " in key for key in keys)
    assert any(not key.isascii() for key in keys) and "fi" in "".join(keys)  # the ligature folded, not lowered


def test_band_mask_flags_the_running_lines_as_the_reference(monkeypatch):
    """running_mask in one call (_grids.c band_mask) equals BandLines.mask
    and leaves_text: on band lines of random texts (key_page), with a random
    share of their keys running, and some pages' text outside the bands
    blank or gone. Seen: lines flagged, rows of more than three parts with
    fewer than half running left alone, and flags cleared where the running
    lines are all the page's text."""
    rng = np.random.default_rng(23)
    config, box = ExtractConfig(), (0.0, 0.0, 612.0, 792.0)
    seen = set()
    for _ in range(400):
        band = key_page(rng)
        body = ["a", " ", "\u3000", ""][int(rng.integers(0, 4))] if rng.random() < 0.3 else "a"
        n_body = int(rng.integers(0, 4))
        boxes = [(100.0 + 6.0 * k, 400.0, 105.0 + 6.0 * k, 410.0) for k in range(n_body)]
        texts = [*band.text.tolist(), *[body] * n_body]
        boxes = [tuple(q) for q in np.concatenate([band.quad[:, 0], band.quad[:, 2]], axis=1).tolist()] + boxes
        table = GlyphTable.empty().with_text_rows(texts, boxes, [-1] * len(texts), [0] * len(texts))
        lines = running.band_lines(table, box, config)
        runs = frozenset(k for k in lines.keys if rng.random() < 0.7)
        compiled, pure = both(monkeypatch, lambda: running.running_mask(table, lines, runs))  # noqa: B023
        assert compiled.dtype == pure.dtype == bool and np.array_equal(compiled, pure)
        flagged = lines.mask(runs, len(table))
        seen.add("flagged" if compiled.any() else "cleared" if flagged.any() else "none")
        hit = np.array([k in runs for k in lines.keys], dtype=bool)
        if (hit & (lines.row_size[lines.row] > 3)).any() and not flagged[lines.glyphs[hit[lines.line]]].all():
            seen.add("row of many parts")
    assert seen == {"flagged", "cleared", "none", "row of many parts"}


def test_band_kernels_check_their_buffers():
    grids = compiled_grids()
    table = random_page(np.random.default_rng(1), 10, "shuffled")
    out = np.empty(10, dtype=np.int64)
    args = (table.quad, table.direction, table.wmode)
    with pytest.raises(IndexError):
        grids.band_glyphs(*args, np.array([0, 10] + [1] * 8), 700.0, 100.0, 0.95, out)
    with pytest.raises(ValueError):
        grids.band_glyphs(*args, np.arange(10), 700.0, 100.0, 0.95, np.empty(9, dtype=np.int64))
    with pytest.raises(TypeError):
        grids.band_glyphs(table.quad, table.direction, table.wmode.astype(np.int64), np.arange(10), 700.0, 100.0, 0.95, out)
    flags = np.empty(10, dtype=bool), np.empty(10, dtype=bool)
    with pytest.raises(IndexError):
        grids.band_segments(table.origin, table.own_end, table.height, table.direction, np.array([0, -1] + [1] * 8),
                            0.5, 0.15, 0.65, 4.0, *flags)  # fmt: skip
    with pytest.raises(ValueError):
        grids.band_segments(table.origin, table.own_end, table.height, table.direction, np.arange(9),
                            0.5, 0.15, 0.65, 4.0, *flags)  # fmt: skip
    columns = [table.visible, table.quad, table.direction, table.wmode, table.origin, table.own_end, table.height, table.text]
    numbers = (700.0, 100.0, 0.95, -np.inf, 0.5, 0.15, 0.65, 4.0)
    for k, short in enumerate([table.visible[:9], table.quad[:9], table.direction[:9], table.wmode[:9], table.origin[:9],
                               table.own_end[:9], table.height[:9], table.text[:9]]):  # fmt: skip
        with pytest.raises(ValueError):
            grids.band_lines(*columns[:k], short, *columns[k + 1 :], *numbers)
        with pytest.raises(ValueError):
            grids.band_keys(*columns[:k], short, *columns[k + 1 :], *numbers, 400.0)
    with pytest.raises(TypeError):
        grids.band_lines(table.visible.astype(np.int64), *columns[1:], *numbers)
    with pytest.raises(TypeError):
        grids.band_keys(table.visible.astype(np.int64), *columns[1:], *numbers, 400.0)
    glyphs, line, row, row_size, out = np.array([0, 1]), np.array([0, 0]), np.array([0]), np.array([1]), np.zeros(10, dtype=bool)
    mask_args = (("a",), frozenset("a"), glyphs, line, row, row_size, 3, table.visible, table.text)
    assert grids.band_mask(*mask_args, out) is True and out.tolist() == [True, True] + [False] * 8
    with pytest.raises(IndexError):
        grids.band_mask(*mask_args[:2], np.array([0, 10]), *mask_args[3:], out)
    with pytest.raises(IndexError):
        grids.band_mask(*mask_args[:4], np.array([1]), *mask_args[5:], out)
    with pytest.raises(ValueError):
        grids.band_mask(*mask_args, np.zeros(9, dtype=bool))
    with pytest.raises(TypeError):
        grids.band_mask(["a"], *mask_args[1:], out)


@pytest.mark.slow
def test_every_corpus_page_finds_the_same_band_lines_on_both_paths(corpus, monkeypatch):
    for where, doc, _, glyphs in _corpus_pages(corpus):
        box = glyphs.visible_box or (0.0, 0.0, 612.0, 792.0)
        compiled, pure = both(monkeypatch, lambda: running.band_lines(glyphs.table, box, doc.config))  # noqa: B023
        assert_same_band_lines(compiled, pure, where)


# --------------------------------------------------------------------------- aligned grids


def table_page(rng: np.random.Generator, n_rows: int, painted: str) -> GlyphTable:
    """Rows of cells in 2-6 columns (some cells missing, an edge column of
    long prose now and then, rows now and then too far apart to stay one
    run), words of 5-pt glyphs, a few blank glyphs and a few boxes reaching
    far left of their origin (a piece then starts left of the one before
    it); painted in reading order, backwards or shuffled."""
    n_cols = int(rng.integers(2, 7))
    prose = {0: rng.random() < 0.3, n_cols - 1: rng.random() < 0.3}
    blanks = float(rng.choice([0.0, 0.03, 0.3]))  # blank glyphs start words: many of them make long cells
    rows: list[tuple[str, tuple[float, float, float, float]]] = []
    y = 700.0
    for _ in range(n_rows):
        y -= 12.0 if rng.random() < 0.9 else 40.0
        x = 20.0
        for col in range(n_cols):
            if rng.random() < 0.85:
                at = x
                for _ in range(int(rng.integers(6, 14)) if prose.get(col) else int(rng.integers(1, 5))):
                    for _ in range(int(rng.integers(1, 6))):
                        text = " " if rng.random() < blanks else "a"
                        left = at - 30.0 if rng.random() < 0.02 else at
                        rows.append((text, (at, y + float(rng.choice([0.0, 0.0, 0.4])), left + 5.0, y + 10.0)))
                        at += 5.0
                    at += float(rng.choice([1.0, 3.0, 4.0]))
            x += float(rng.choice([60.0, 90.0, 140.0]))
    order = np.arange(len(rows))
    if painted == "backwards":
        order = order[::-1]
    elif painted == "shuffled":
        order = rng.permutation(len(rows))
    texts, boxes = [rows[i][0] for i in order], [rows[i][1] for i in order]
    return GlyphTable.empty().with_text_rows(texts, boxes, [-1] * len(texts), [0] * len(texts))


def assert_same_grids(compiled: list, pure: list, where: str = "") -> None:
    assert [[cell[:4] for cell in grid] for grid in compiled] == [[cell[:4] for cell in grid] for grid in pure], where
    for a, b in zip(compiled, pure, strict=True):
        for x, y in zip(a, b, strict=True):
            assert x.glyphs.dtype == y.glyphs.dtype and np.array_equal(x.glyphs, y.glyphs), where


@pytest.mark.parametrize("painted", ["reading order", "backwards", "shuffled"])
@pytest.mark.parametrize("seed", range(12))
def test_aligned_grids_equal_the_reference(monkeypatch, painted, seed):
    rng = np.random.default_rng(seed)
    for n_rows in (0, 2, 3, 4, 9, 30):
        table = table_page(rng, n_rows, painted)
        glyphs = np.arange(len(table), dtype=np.int64)
        compiled, pure = both(monkeypatch, lambda: gridfind.aligned_grids(table, glyphs))  # noqa: B023
        assert_same_grids(compiled, pure, f"rows={n_rows}")


@pytest.mark.parametrize("painted", ["reading order", "backwards", "shuffled"])
@pytest.mark.parametrize("seed", range(6))
def test_aligned_grid_columns_are_the_cells_of_aligned_grids(monkeypatch, painted, seed):
    """detect_tables reads the aligned grids column-wise, on the compiled
    path straight from page_aligned_grids' cells (_grid_columns_of): the
    same rows, columns, spans and glyphs (cell after cell, in their dtype)
    as aligned_grids' cells, and as the reference's."""
    rng = np.random.default_rng(seed)
    found = 0
    # grid_page: at least one page of the test holds a grid.
    for n_rows, table in [(n, table_page(rng, n, painted)) for n in (0, 3, 9, 30)] + [(6, grid_page(seed))]:
        glyphs = np.arange(len(table), dtype=np.int64)
        expected = [gridfind._grid_of(cells) for cells in gridfind.aligned_grids(table, glyphs)]
        found += len(expected)
        for columns in both(monkeypatch, lambda: gridfind._aligned_grid_columns(table, glyphs)):  # noqa: B023
            assert [grid[:4] for grid in columns] == [grid[:4] for grid in expected], f"rows={n_rows}"
            for a, b in zip(columns, expected, strict=True):
                assert a.glyphs.dtype == b.glyphs.dtype and np.array_equal(a.glyphs, b.glyphs), f"rows={n_rows}"
                assert a.sizes.tolist() == b.sizes.tolist(), f"rows={n_rows}"
    assert found


def test_aligned_grids_kernel_judges_the_runs_itself():
    """The kernel reads the pages above (it declines none of them to the
    reference): pages where a run makes a grid, and pages whose runs it rejects."""
    rng = np.random.default_rng(3)
    answers = set()
    for _ in range(30):
        table = table_page(rng, 5, "shuffled")
        lines = gridfind._lines(table, np.arange(len(table), dtype=np.int64))
        found = gridfind._compiled_aligned_grids(compiled_grids(), table, lines)
        assert found is not None
        has_run = bool((np.diff(lines.line_piece) >= 2).sum() >= gridfind.TABLE_MIN_ROWS)
        answers.add((has_run, bool(found)))
    assert {(True, True), (True, False)} <= answers


def grid_page(seed: int) -> GlyphTable:
    """The first page of table_page's draws from `seed` where a grid is found."""
    rng = np.random.default_rng(seed)
    while True:
        table = table_page(rng, 6, "reading order")
        if gridfind.aligned_grids(table, np.arange(len(table), dtype=np.int64)):
            return table


def test_aligned_grids_decline_texts_that_are_no_str_and_values_not_finite(monkeypatch):
    table = grid_page(5)
    glyphs = np.arange(len(table), dtype=np.int64)
    lines = gridfind._lines(table, glyphs)
    assert gridfind._compiled_aligned_grids(compiled_grids(), table, lines)
    texts = table.text.copy()
    texts[lines.glyphs[1]] = None
    no_str = GlyphTable(**{**table.__dict__, "text": texts})
    assert gridfind._compiled_aligned_grids(compiled_grids(), no_str, lines) is None
    for bad in (np.nan, np.inf):
        own_end = table.own_end.copy()
        own_end[lines.glyphs[2], 0] = bad
        odd = GlyphTable(**{**table.__dict__, "own_end": own_end})
        assert gridfind._compiled_aligned_grids(compiled_grids(), odd, lines) is None
        compiled, pure = both(monkeypatch, lambda: gridfind.aligned_grids(odd, glyphs))  # noqa: B023
        assert_same_grids(compiled, pure)


def test_aligned_grids_check_their_buffers():
    table = grid_page(6)
    lines = gridfind._lines(table, np.arange(len(table), dtype=np.int64))
    n_pieces, n = len(lines.piece_start), len(lines.glyphs)

    def kernel(glyphs: np.ndarray, line_piece: np.ndarray, cells: int = 5 * n_pieces) -> Any:
        return compiled_grids().aligned_grids(
            table.origin, table.own_end, table.height, table.text, glyphs, lines.piece_start, lines.piece_end,
            lines.x0, lines.x1, line_piece, lines.y, lines.height, 3, 2.6, 5.0, 3.0,
            np.empty(cells, dtype=np.int64), np.empty(n, dtype=np.int64),
        )  # fmt: skip

    assert kernel(lines.glyphs, lines.line_piece)
    with pytest.raises(IndexError):
        kernel(np.full(n, len(table)), lines.line_piece)
    with pytest.raises(ValueError):
        kernel(lines.glyphs, np.concatenate([[0], lines.line_piece[2:], lines.line_piece[1:2]]))
    with pytest.raises(ValueError):
        kernel(lines.glyphs, lines.line_piece, cells=5 * n_pieces - 1)


# --------------------------------------------------------------------------- ruled grids in one call


def grid_rules(rng: np.random.Generator, xs: np.ndarray, ys: np.ndarray) -> list[tuple[float, float, float, float, int]]:
    """The rules of a grid of column edges `xs` and row edges `ys`: drawn
    whole, cell by cell (touching pieces) or as cell boxes, each end jittered
    within EDGE_TOLERANCE (edges of many values, means that round), now and
    then missing (spans)."""
    style, missing = rng.choice(["whole", "pieces", "boxes"]), float(rng.choice([0.0, 0.1, 0.4]))
    jitter = lambda: float(rng.choice([0.0, 0.0, 0.3, -0.7, 1.9, 1e-9, 1 / 3]))  # noqa: E731
    if style == "boxes":
        return [
            (xs[c] + jitter(), ys[r + 1] + jitter(), xs[c + 1] + jitter(), ys[r] + jitter(), gridfind.RECT)
            for r in range(len(ys) - 1) for c in range(len(xs) - 1) if rng.random() >= missing
        ]  # fmt: skip
    rules = []
    for y in ys:
        spans = [(xs[0], xs[-1])] if style == "whole" else list(zip(xs[:-1], xs[1:], strict=True))
        rules += [(a + jitter(), y + jitter(), b + jitter(), y, gridfind.LINE) for a, b in spans if rng.random() >= missing]
    for x in xs:
        spans = [(ys[-1], ys[0])] if style == "whole" else list(zip(ys[1:], ys[:-1], strict=True))
        rules += [(x + jitter(), a + jitter(), x, b + jitter(), gridfind.LINE) for a, b in spans if rng.random() >= missing]
    return rules


def grid_words(rng: np.random.Generator, xs: np.ndarray, ys: np.ndarray) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Glyphs in the cells of a grid: a few short words, prose (the whole
    grid now and then), or none; word gaps now and then exactly on the word
    rule (0.25 x the height); a few blank glyphs."""
    prose, glyphs = rng.random() < 0.2, []
    for r in range(len(ys) - 1):
        for c in range(len(xs) - 1):
            if rng.random() < 0.25:
                continue
            at, base = xs[c] + 2.0, ys[r + 1] + 3.0
            for _ in range(int(rng.integers(8, 30)) if prose else int(rng.integers(1, 4))):
                for _ in range(int(rng.integers(1, 4))):
                    glyphs.append((" " if rng.random() < 0.05 else "a", (at, base, at + 2.0, base + 8.0)))
                    at += 2.0
                at += float(rng.choice([0.5, 2.0, 2.5]))
    return glyphs


def ruled_page(rng: np.random.Generator) -> tuple[GlyphTable, PathTable]:
    """A page of one to three ruled grids (grid_rules, grid_words), a stray
    rule and a lone box, and glyph centres on and one ulp beside every
    column edge (a mean one ulp off moves them)."""
    rules, glyphs, centres = [], [], []
    for _ in range(int(rng.integers(1, 4))):
        left, top = float(rng.integers(0, 300)), float(rng.integers(300, 800))
        xs = left + np.cumsum(np.concatenate([[0.0], rng.choice([30.0, 55.0, 90.0], int(rng.integers(1, 7)))]))
        ys = top - np.cumsum(np.concatenate([[0.0], rng.choice([14.0, 20.0, 33.0], int(rng.integers(1, 9)))]))
        rules += grid_rules(rng, xs, ys)
        glyphs += grid_words(rng, xs, ys)
        centres += [(float(e) if step == 0 else float(np.nextafter(e, e + step)), (ys[0] + ys[1]) / 2) for e in xs for step in (-1, 0, 1)]
    rules += [(50.0, 50.0, 400.0, 52.0, gridfind.LINE), (20.0, 20.0, 60.0, 90.0, gridfind.RECT)]
    texts = [t for t, _ in glyphs] + ["b"] * len(centres)
    boxes = [b for _, b in glyphs] + [(x, y, x, y) for x, y in centres]
    table = GlyphTable.empty().with_text_rows(texts, boxes, [-1] * len(texts), [0] * len(texts))
    quad = table.quad.copy()
    for k, (x, y) in enumerate(centres):
        quad[len(glyphs) + k] = exact_centre(x, y)
    x0, y0, x1, y1, kind = (np.array(column) for column in zip(*rules, strict=True))
    paths = PathTable(x0, y0, x1, y1, kind.astype(np.uint8), np.zeros(len(kind), dtype=np.uint8))
    return GlyphTable(**{**table.__dict__, "quad": quad}), paths


def exact_centre(x: float, y: float) -> list[tuple[float, float]]:
    """Corners whose mean, summed in order, is exactly (x, y): x + x, + 2x, + 0 is 4x."""
    return [(x, y), (x, y), (2 * x, 2 * y), (0.0, 0.0)]


def ruled_both(monkeypatch: pytest.MonkeyPatch, table: GlyphTable, paths: PathTable, glyphs: np.ndarray) -> tuple[Any, Any]:
    return both(monkeypatch, lambda: gridfind.ruled_grids(table, paths, glyphs))


@pytest.mark.parametrize("seed", range(40))
def test_ruled_grids_equal_the_reference(monkeypatch, seed):
    """The whole rule in one call (_grids.c ruled_grids) finds what
    gridfind.ruled_grids' numpy reference finds: the same grids, cells,
    spans and glyphs, on pages where it answers itself."""
    rng = np.random.default_rng(seed)
    table, paths = ruled_page(rng)
    glyphs = np.sort(rng.permutation(len(table))[: len(table) - int(rng.integers(0, 4))]).astype(np.int64)
    assert gridfind._compiled_ruled_grids(compiled_grids(), table, paths, glyphs) is not None
    compiled, pure = ruled_both(monkeypatch, table, paths, glyphs)
    assert_same_grids(compiled, pure, f"seed {seed}")


@pytest.mark.parametrize("seed", range(12))
def test_ruled_grid_columns_are_the_cells_of_ruled_grids(monkeypatch, seed):
    """detect_tables reads the ruled grids column-wise, on the compiled path
    straight from the ruled_grids kernel's cells (_grid_columns_of): the
    same rows, columns, spans and glyphs (cell after cell, empty cells too,
    in their dtype) as ruled_grids' cells, and as the reference's."""
    rng = np.random.default_rng(seed)
    table, paths = ruled_page(rng)
    glyphs = np.sort(rng.permutation(len(table))[: len(table) - int(rng.integers(0, 4))]).astype(np.int64)
    expected = [gridfind._grid_of(cells) for cells in gridfind.ruled_grids(table, paths, glyphs)]
    assert expected or seed not in (0, 1)  # the first pages hold a grid
    for columns in both(monkeypatch, lambda: gridfind._ruled_grid_columns(table, paths, glyphs)):
        assert [grid[:4] for grid in columns] == [grid[:4] for grid in expected]
        for a, b in zip(columns, expected, strict=True):
            assert a.glyphs.dtype == b.glyphs.dtype and np.array_equal(a.glyphs, b.glyphs)
            assert a.sizes.tolist() == b.sizes.tolist()
    assert gridfind._ruled_grid_columns(table, PathTable.empty(), glyphs) == []


def test_ruled_grids_kernel_finds_and_rejects_grids():
    """The pages above hold grids the kernel keeps and sets of rules it
    rejects (no text in two rows and columns, prose, spans)."""
    kept = rejected = 0
    for seed in range(40):
        table, paths = ruled_page(np.random.default_rng(seed))
        found = gridfind._compiled_ruled_grids(compiled_grids(), table, paths, np.arange(len(table), dtype=np.int64))
        kept += len(found)
        rejected += int(len(found) < 2)
    assert kept > 20 and rejected > 5


def test_ruled_grid_edges_are_means_as_numpy_sums_them(monkeypatch):
    """A column edge of up to 300 rules within EDGE_TOLERANCE of each other
    (numpy's pairwise sum over more than 128 values, its halves and its
    eight partial sums): rule i, at the i-th least x, crosses horizontal
    rule i (20 pt apart) and parts the row below it, too far from the next
    rule along the edge to be merged with it. Glyph centres on the edge's
    mean and an ulp either side, in three rows."""
    rng = np.random.default_rng(11)
    for size in [3, 7, 8, 9, 15, 16, 17, 24, 128, 129, 136, 300] * 6 + [8, 9, 10] * 20:
        xs = np.sort(100.0 + rng.random(size) * 1.9)
        mean = float(np.mean(xs))
        rules = [(x, 20.0 * i - 3.0, x, 20.0 * i + 10.0) for i, x in enumerate(xs.tolist())]
        rules += [(40.0, 0.0, 40.0, 20.0 * size), (160.0, 0.0, 160.0, 20.0 * size)]
        rules += [(40.0, 20.0 * i, 160.0, 20.0 * i) for i in range(size)]
        x0, y0, x1, y1 = (np.array(c) for c in zip(*rules, strict=True))
        paths = PathTable(x0, y0, x1, y1, np.full(len(x0), gridfind.LINE, dtype=np.uint8), np.zeros(len(x0), dtype=np.uint8))
        at = [(float(np.nextafter(mean, 0.0)), 10.0), (mean, 30.0 if size > 2 else 10.0), (float(np.nextafter(mean, 200.0)), 10.0)]
        at += [(60.0, 10.0), (130.0, 30.0)]
        table = GlyphTable.empty().with_text_rows(["a"] * len(at), [(x, y, x, y) for x, y in at], [-1] * len(at), [0] * len(at))
        table = GlyphTable(**{**table.__dict__, "quad": np.array([exact_centre(x, y) for x, y in at])})
        compiled, pure = ruled_both(monkeypatch, table, paths, np.arange(len(at), dtype=np.int64))
        assert pure, size
        assert_same_grids(compiled, pure, f"size {size}")


def test_ruled_grids_decline_rules_not_finite_and_texts_that_are_no_str(monkeypatch):
    table, paths = ruled_page(np.random.default_rng(3))
    glyphs = np.arange(len(table), dtype=np.int64)
    assert gridfind._compiled_ruled_grids(compiled_grids(), table, paths, glyphs)
    # A line reaching to infinity is a rule not finite; a NaN end makes no rule (its tests fail).
    line = int(np.flatnonzero((paths.kind == gridfind.LINE) & (np.abs(paths.y1 - paths.y0) < 1))[0])
    for bad, declined in ((np.inf, True), (np.nan, False)):
        x1 = paths.x1.copy()
        x1[line] = bad
        odd = PathTable(paths.x0, paths.y0, x1, paths.y1, paths.kind, paths.paint)
        assert (gridfind._compiled_ruled_grids(compiled_grids(), table, odd, glyphs) is None) == declined
        with np.errstate(invalid="ignore"):
            compiled, pure = ruled_both(monkeypatch, table, odd, glyphs)
        assert_same_grids(compiled, pure)
    texts = table.text.copy()
    texts[:] = None
    no_str = GlyphTable(**{**table.__dict__, "text": texts})
    assert gridfind._compiled_ruled_grids(compiled_grids(), no_str, paths, glyphs) is None


def test_ruled_grids_check_their_buffers():
    table, paths = ruled_page(np.random.default_rng(4))
    glyphs = np.arange(len(table), dtype=np.int64)

    def kernel(x0: np.ndarray = paths.x0, kind: np.ndarray = paths.kind, height: np.ndarray = table.height,
               chosen: np.ndarray = glyphs) -> Any:  # fmt: skip
        return compiled_grids().ruled_grids(
            x0, paths.y0, paths.x1, paths.y1, kind, gridfind.LINE, gridfind.RECT, 3.0, 5.0, 2.0, 4_000_000, 20.0, 0.5,
            table.quad, table.origin, table.own_end, height, table.text, chosen,
        )  # fmt: skip

    assert kernel()
    with pytest.raises(ValueError):
        kernel(x0=paths.x0[:-1])
    with pytest.raises(ValueError):
        kernel(height=table.height[:-1])
    with pytest.raises(IndexError):
        kernel(chosen=np.array([0, len(table)]))
    with pytest.raises(IndexError):
        kernel(chosen=np.array([-1]))
    with pytest.raises(TypeError):
        kernel(kind=paths.kind.astype(np.int64))
    with pytest.raises(TypeError):
        kernel(chosen=glyphs.astype(np.int32))


def words_page(cells: list[tuple[float, float, int]]) -> GlyphTable:
    """Glyphs of `words` words from (x, baseline) for each cell: words of two
    2-pt glyphs 8 pt high, 3 pt apart (more than 0.25 x the height)."""
    texts, boxes = [], []
    for x, y, words in cells:
        for w in range(words):
            for k in range(2):
                texts.append("a")
                boxes.append((x + 7.0 * w + 2.0 * k, y, x + 7.0 * w + 2.0 * k + 2.0, y + 8.0))
    return GlyphTable.empty().with_text_rows(texts, boxes, [-1] * len(texts), [0] * len(texts))


def frame_paths(inner: list[tuple[float, float, float, float]]) -> PathTable:
    """Rules at y 100, 50 and 0 from x 0 to 400, sides at x 0 and 400, and the `inner` lines."""
    lines = [(0.0, y, 400.0, y) for y in (100.0, 50.0, 0.0)] + [(x, 0.0, x, 100.0) for x in (0.0, 400.0)] + inner
    x0, y0, x1, y1 = (np.array(c) for c in zip(*lines, strict=True))
    return PathTable(x0, y0, x1, y1, np.full(len(x0), gridfind.LINE, dtype=np.uint8), np.zeros(len(x0), dtype=np.uint8))


FOUR_CELLS = [(10.0, 70.0, 1), (210.0, 70.0, 1), (10.0, 20.0, 1), (210.0, 20.0, 1)]


@pytest.mark.parametrize(
    ("inner", "cells", "expected"),
    [
        # A rule starting EDGE_TOLERANCE above a row's middle parts that row (only).
        ([(200.0, 77.0, 200.0, 100.0)], FOUR_CELLS, [(0, 0, 1, 1), (0, 1, 1, 1), (1, 0, 1, 2)]),
        ([(200.0, np.nextafter(77.0, 100.0), 200.0, 100.0)], FOUR_CELLS, []),
        # Rules EDGE_TOLERANCE either side of the edge (the mean of 198, 200, 202; too far apart
        # along it to be merged) lie on it: they part the rows they reach.
        ([(198.0, 0.0, 198.0, 30.0), (200.0, 48.0, 200.0, 53.0), (202.0, 70.0, 202.0, 100.0)], FOUR_CELLS,
         [(0, 0, 1, 1), (0, 1, 1, 1), (1, 0, 1, 1), (1, 1, 1, 1)]),
        # Text in one column only: no grid.
        ([(200.0, 0.0, 200.0, 100.0)], [(10.0, 70.0, 1), (10.0, 20.0, 1)], []),
        # Cells of 20 words on average are a table's; 20.25 are prose in boxes.
        ([(200.0, 0.0, 200.0, 100.0)], [(10.0, y, 20) for y in (70.0, 20.0)] + [(210.0, y, 20) for y in (70.0, 20.0)],
         [(0, 0, 1, 1), (0, 1, 1, 1), (1, 0, 1, 1), (1, 1, 1, 1)]),
        ([(200.0, 0.0, 200.0, 100.0)], [(10.0, y, 20) for y in (70.0, 20.0)] + [(210.0, 70.0, 20), (210.0, 20.0, 21)], []),
    ],
)  # fmt: skip
def test_ruled_grids_on_their_thresholds(monkeypatch, inner, cells, expected):
    table, paths = words_page(cells), frame_paths(inner)
    compiled, pure = ruled_both(monkeypatch, table, paths, np.arange(len(table), dtype=np.int64))
    assert_same_grids(compiled, pure)
    assert [tuple(cell[:4]) for grid in pure for cell in grid] == expected


# --------------------------------------------------------------------------- aligned grids in one call


def page_aligned(table: GlyphTable, glyphs: np.ndarray) -> Any:
    return gridfind._compiled_page_aligned_grids(compiled_grids(), table, glyphs)


@pytest.mark.parametrize("painted", ["reading order", "backwards", "shuffled"])
@pytest.mark.parametrize("seed", range(6))
def test_page_aligned_grids_answer_what_lines_then_grids_answer(monkeypatch, painted, seed):
    """One call (_grids.c page_aligned_grids) finds the grids that text_lines
    then aligned_grids find, and the numpy reference: on pages of table rows
    and prose, upright glyphs among turned ones, candidates left out."""
    rng = np.random.default_rng(seed)
    for n_rows in (0, 3, 9, 30):
        table = table_page(rng, n_rows, painted)
        n = len(table)
        direction = np.stack([rng.choice([1.0, 1.0, 1.0, 0.0, 1.04], size=n), np.zeros(n)], axis=1)
        table = GlyphTable(**{**table.__dict__, "direction": direction})
        glyphs = np.sort(rng.permutation(n)[: max(0, n - 3)]).astype(np.int64)
        one_call = page_aligned(table, glyphs)
        assert one_call is not None
        lines = gridfind._lines(table, glyphs)
        two_calls = gridfind._compiled_aligned_grids(compiled_grids(), table, lines) if len(lines.y) else []
        assert_same_grids(one_call, two_calls, f"rows={n_rows}")
        compiled, pure = both(monkeypatch, lambda: gridfind.aligned_grids(table, glyphs))  # noqa: B023
        assert_same_grids(compiled, pure, f"rows={n_rows}")


def two_cell_rows(step: float, heights: tuple[float, ...], apart: bool) -> GlyphTable:
    """Three rows 12 pt apart from y = 0, each of two glyphs (x 20 to 30) and,
    `step` past their end, two more; glyph heights `heights` along each row.
    `apart`: every row's right pair painted before all the left pairs (a
    baseline in runs that are not consecutive), the first row's right pair
    on y = -0.0, its left pair on y = 0.0 (one baseline)."""
    left, right = [], []
    for row in range(3):
        y = -12.0 * row
        xs = (20.0, 25.0, 30.0 + step, 35.0 + step)
        glyphs = [(x, y, x + 5.0, y + h) for x, h in zip(xs, heights, strict=True)]
        left += glyphs[:2]
        right += [(x0, -0.0 if apart and row == 0 else y0, x1, y1) for x0, y0, x1, y1 in glyphs[2:]]
    boxes = right + left if apart else [b for row in range(3) for b in left[2 * row : 2 * row + 2] + right[2 * row : 2 * row + 2]]
    return GlyphTable.empty().with_text_rows(["a"] * 12, boxes, [-1] * 12, [0] * 12)


# A line is cut where a glyph box starts more than TABLE_COLUMN_GAP (1.2) x the
# line's median height past the reach: the kernel finds the median only on a
# line whose widest step passes 1.2 x its least height. Three rows cut in two
# make a grid; rows left whole make none.
@pytest.mark.parametrize(
    ("step", "heights", "grids"),
    [
        (12.0, (10.0, 10.0, 10.0, 10.0), 0),  # exactly 1.2 x 10: not past it
        (12.5, (10.0, 10.0, 10.0, 10.0), 1),
        (11.0, (8.0, 10.0, 10.0, 10.0), 0),  # past 1.2 x the least (9.6), not the median's 12
        (12.5, (8.0, 10.0, 10.0, 10.0), 1),
        (9.7, (8.0, 8.0, 8.0, 10.0), 1),  # the median is 8: 9.6 is passed
    ],
)
@pytest.mark.parametrize("apart", [False, True])
def test_page_aligned_grids_cut_lines_on_their_thresholds(monkeypatch, step, heights, grids, apart):
    table = two_cell_rows(step, heights, apart)
    glyphs = np.arange(len(table), dtype=np.int64)
    one_call = page_aligned(table, glyphs)
    compiled, pure = both(monkeypatch, lambda: gridfind.aligned_grids(table, glyphs))
    assert_same_grids(one_call, pure)
    assert_same_grids(compiled, pure)
    assert len(pure) == grids
    lines = gridfind._lines(table, glyphs)
    assert len(lines.y) == 3  # the -0.0 and 0.0 runs are one baseline
    assert_same_lines(lines, both(monkeypatch, lambda: gridfind._lines(table, glyphs))[1])


def test_page_aligned_grids_decline_what_either_step_declines(monkeypatch):
    table = grid_page(5)
    glyphs = np.arange(len(table), dtype=np.int64)
    assert page_aligned(table, glyphs)
    for column in ("origin", "own_end"):
        values = getattr(table, column).copy()
        values[3, 0] = np.nan
        odd = GlyphTable(**{**table.__dict__, column: values})
        assert page_aligned(odd, glyphs) is None, column
        compiled, pure = both(monkeypatch, lambda: gridfind.aligned_grids(odd, glyphs))  # noqa: B023
        assert_same_grids(compiled, pure, column)
    texts = table.text.copy()
    texts[:] = None
    assert page_aligned(GlyphTable(**{**table.__dict__, "text": texts}), glyphs) is None


def test_page_aligned_grids_check_their_buffers():
    table = grid_page(6)
    glyphs = np.arange(len(table), dtype=np.int64)

    def kernel(chosen: np.ndarray = glyphs, height: np.ndarray = table.height) -> Any:
        return compiled_grids().page_aligned_grids(
            table.origin, table.own_end, height, table.quad, table.direction, table.text, chosen, 1.2, 3, 2.6, 5.0, 3.0
        )

    assert kernel()
    with pytest.raises(IndexError):
        kernel(chosen=np.array([0, len(table)]))
    with pytest.raises(IndexError):
        kernel(chosen=np.array([-1]))
    with pytest.raises(ValueError):
        kernel(height=table.height[:-1])
    with pytest.raises(TypeError):
        kernel(chosen=glyphs.astype(np.int32))


# --------------------------------------------------------------------------- detected cells' MCIDs


@pytest.mark.parametrize("seed", range(6))
def test_cell_mcids_equal_the_reference(monkeypatch, seed):
    """Each cell's MCIDs, each once in the order they first come, NO_MCID left
    out (_grids.c cell_mcids against gridfind._cell_mcids): cells of glyphs
    with no MCID, one, repeated and interleaved ones, empty cells."""
    rng = np.random.default_rng(seed)
    n = 400
    table = random_page(rng, n, "shuffled")
    for choices in ([-1], [-1, 0, 3], [0, 1, 2, 3, 4, 5, 7, 1000, -1, 2**40]):
        mcid = rng.choice(choices, size=n).astype(np.int64)
        marked = GlyphTable(**{**table.__dict__, "mcid": mcid})
        glyphs = rng.permutation(n)[: int(rng.integers(1, n))].astype(np.int64)
        starts = np.unique(np.concatenate([[0], rng.integers(0, len(glyphs), size=int(rng.integers(1, 60)))]))
        compiled, pure = both(monkeypatch, lambda: gridfind._cell_mcids(marked, glyphs, starts))  # noqa: B023
        assert compiled == pure and len(compiled) == len(starts)
    assert compiled_grids().cell_mcids(np.array([5, -1, 5, 2, 5]), np.array([4, 3, 2, 1, 0]), np.array([0, 2, 2])) == [(5, 2), (), (5,)]


def test_cell_mcids_check_their_buffers():
    grids = compiled_grids()
    mcid, glyphs = np.zeros(5, dtype=np.int64), np.arange(5)
    with pytest.raises(IndexError):
        grids.cell_mcids(mcid, np.array([0, 5]), np.array([0]))
    with pytest.raises(IndexError):
        grids.cell_mcids(mcid, np.array([-1]), np.array([0]))
    for starts in ([1], [0, 3, 2], [0, 6]):
        with pytest.raises(ValueError):
            grids.cell_mcids(mcid, glyphs, np.array(starts))
    with pytest.raises(TypeError):
        grids.cell_mcids(mcid.astype(np.int32), glyphs, np.array([0]))


# --------------------------------------------------------------------------- both finders in one call


def mixed_page(seed: int) -> tuple[GlyphTable, PathTable]:
    """ruled_page's grids beside table_page's aligned rows (painted shuffled),
    one glyph in eight flagged an artifact."""
    rng = np.random.default_rng(seed)
    ruled, paths = ruled_page(rng)
    rows = table_page(rng, int(rng.choice([0, 3, 9, 30])), "shuffled")
    table = ruled._columnwise(rows, lambda mine, theirs: np.concatenate([mine, theirs]))
    artifact = rng.random(len(table)) < 0.125
    return dataclasses.replace(table, artifact=artifact), paths


def assert_same_found(compiled: list, pure: list, where: str = "") -> None:
    assert [(method, grid[:4]) for method, grid in compiled] == [(method, grid[:4]) for method, grid in pure], where
    for (_, a), (_, b) in zip(compiled, pure, strict=True):
        assert a.glyphs.dtype == b.glyphs.dtype and np.array_equal(a.glyphs, b.glyphs), where
        assert a.sizes.tolist() == b.sizes.tolist(), where


@pytest.mark.parametrize("seed", range(30))
def test_find_grids_finds_what_the_steps_find(monkeypatch, seed):
    """find_grids (the candidates, ruled_grids, the glyphs they take and
    page_aligned_grids in one call) finds what _grids_found's steps find,
    and what the reference finds: the same grids of each method, in order,
    their cells and glyphs; on pages it answers itself."""
    table, paths = mixed_page(seed)
    assert gridfind._compiled_grids_found(compiled_grids(), table, paths) is not None
    compiled, pure = both(monkeypatch, lambda: gridfind._grids_found(table, paths))
    assert_same_found(compiled, pure, f"seed {seed}")
    candidates = table.text_rows[~table.artifact[table.text_rows]]
    ruled = gridfind._ruled_grid_columns(table, paths, candidates)
    taken = np.zeros(len(table), dtype=bool)
    for grid in ruled:
        taken[grid.glyphs] = True
    aligned = gridfind._aligned_grid_columns(table, candidates[~taken[candidates]])
    steps = [(gridfind.RULES, grid) for grid in ruled] + [(gridfind.ALIGNMENT, grid) for grid in aligned]
    assert_same_found(compiled, steps, f"seed {seed}")


def test_find_grids_finds_both_kinds_and_none():
    """The pages above hold ruled grids, aligned grids, both, and pages where
    it finds none answer () (nothing to read back)."""
    kinds = set()
    for seed in range(30):
        table, paths = mixed_page(seed)
        found = gridfind._compiled_grids_found(compiled_grids(), table, paths)
        kinds.add(tuple(sorted({method for method, _ in found})))
    assert {(gridfind.RULES,), (gridfind.ALIGNMENT, gridfind.RULES)} <= kinds
    assert gridfind._compiled_grids_found(compiled_grids(), GlyphTable.empty(), PathTable.empty()) == []
    table, _ = mixed_page(0)
    quiet = dataclasses.replace(table, artifact=np.ones(len(table), dtype=bool))
    assert find_grids(quiet, PathTable.empty()) == ()


def diagonal_grid(k: int) -> tuple[GlyphTable, PathTable]:
    """A ruled grid of k x k cells, one glyph in each cell of its diagonal."""
    xs, ys = [100.0 + 20.0 * i for i in range(k + 1)], [700.0 - 20.0 * i for i in range(k + 1)]
    rules = [(xs[0], y, xs[-1], y) for y in ys] + [(x, ys[-1], x, ys[0]) for x in xs]
    boxes = [(xs[i] + 5.0, ys[i + 1] + 5.0, xs[i] + 10.0, ys[i + 1] + 13.0) for i in range(k)]
    table = GlyphTable.empty().with_text_rows(["a"] * k, boxes, [-1] * k, [0] * k)
    x0, y0, x1, y1 = (np.array(column, dtype=np.float64) for column in zip(*rules, strict=True))
    kind = np.full(len(rules), gridfind.LINE, dtype=np.uint8)
    return table, PathTable(x0, y0, x1, y1, kind, np.zeros(len(rules), dtype=np.uint8))


@pytest.mark.parametrize("k", [3, 6, 20])
def test_a_ruled_grid_keeps_more_cells_than_it_has_edges_and_glyphs(monkeypatch, k):
    # k glyphs on the diagonal of a k x k grid: every cell meets a row and a
    # column that hold text, so all k * k cells are kept, more than the
    # 2k + 2 rules and k glyphs the kernel sized its sort of the kept cells
    # by (a heap overflow: found by fuzz/kernel_fuzz.py under AddressSanitizer).
    table, paths = diagonal_grid(k)
    compiled, pure = both(monkeypatch, lambda: gridfind._grids_found(table, paths))
    assert_same_found(compiled, pure, f"k {k}")
    assert [(method, len(grid.row)) for method, grid in compiled] == [(gridfind.RULES, k * k)]


def find_grids(table: GlyphTable, paths: PathTable, **changed: Any) -> Any:
    """find_grids' answer, with some arguments `changed` (text_rows, artifact)."""
    # text_rows of a table whose texts are not all str is not found: given, and only then read.
    columns = {"artifact": table.artifact, **changed}
    if "text_rows" not in columns:
        columns["text_rows"] = table.text_rows
    return compiled_grids().find_grids(
        paths.x0, paths.y0, paths.x1, paths.y1, paths.kind, gridfind.LINE, gridfind.RECT, gridfind.RULE_THICKNESS,
        gridfind.RULE_MIN_LENGTH, gridfind.EDGE_TOLERANCE, gridfind.MAX_RULE_PAIRS, gridfind.RULED_MAX_CELL_WORDS,
        gridfind.RULED_MAX_SPANNING_SHARE, table.quad, table.origin, table.own_end, table.height, table.direction,
        table.text, columns["text_rows"], columns["artifact"], gridfind.TABLE_COLUMN_GAP, gridfind.TABLE_MIN_ROWS,
        gridfind.TABLE_MAX_ROW_GAP, gridfind.TABLE_MAX_CELL_WORDS, gridfind.TWO_COLUMN_MAX_CELL_WORDS,
    )  # fmt: skip


def test_find_grids_declines_what_either_finder_declines(monkeypatch):
    """A rule or a glyph value not finite, or a text of a grid's glyph that
    is no str (either finder's): None, and the steps (then the references)
    read the page alike."""
    table, paths = next(page for page in map(mixed_page, range(30)) if len(gridfind._grids_found(*page)) > 2)
    found = gridfind._grids_found(table, paths)
    for method in (gridfind.RULES, gridfind.ALIGNMENT):
        texts = table.text.copy()
        texts[next(grid for m, grid in found if m == method).glyphs] = 7  # text_rows holds no such text: given
        assert find_grids(dataclasses.replace(table, text=texts), paths, text_rows=table.text_rows) is None
    odd_pages = []
    for bad in (np.nan, np.inf):
        origin = table.origin.copy()
        origin[table.text_rows[~table.artifact[table.text_rows]][-2], 1] = bad
        odd_pages.append((dataclasses.replace(table, origin=origin), paths))
    x1 = paths.x1.copy()
    x1[np.flatnonzero(paths.kind == gridfind.RECT)[0]] = np.inf
    odd_pages.append((table, dataclasses.replace(paths, x1=x1)))
    for odd_table, odd_paths in odd_pages:
        assert find_grids(odd_table, odd_paths) is None
        compiled, pure = both(monkeypatch, lambda: gridfind._grids_found(odd_table, odd_paths))  # noqa: B023
        assert_same_found(compiled, pure)


def test_find_grids_checks_its_buffers():
    table, paths = mixed_page(1)
    assert find_grids(table, paths) is not None
    with pytest.raises(IndexError):
        find_grids(table, paths, text_rows=np.array([len(table)], dtype=np.int64))
    with pytest.raises(ValueError):
        find_grids(table, paths, artifact=table.artifact[:-1])
    with pytest.raises(TypeError):
        find_grids(table, paths, artifact=table.artifact.astype(np.int64))
