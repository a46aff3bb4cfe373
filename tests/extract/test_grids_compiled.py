"""Table detection's compiled kernels (extract/_grids.c) against their numpy
references in extract/gridfind.py (RAGPREP_PURE selects the reference).

Each kernel must give exactly what its reference gives: the text lines and
their pieces (``_lines``), rules joined along their line (``_merge_collinear``),
the sets of crossing rules (``_rule_components``), and so every table
``detect_tables`` finds. Inputs: pages of random glyphs and rules with many
ties (equal x, equal baselines, lines painted backwards), values that are not
finite (the kernels decline them and the reference reads the page), and
(slow) every page of the corpus.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from codepath import on_path

from ragprep.extract import open_document
from ragprep.extract import gridfind
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.layout import read_layout
from ragprep.extract.native import compiled_grids

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
    for n in (0, 1, 2, 40, 700):
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
    with pytest.raises(IndexError):
        grids.text_lines(table.origin, table.height, table.quad, np.array([0, 10] + [1] * 8), 1.2, *out)
    with pytest.raises(ValueError):
        grids.text_lines(table.origin, table.height, table.quad, np.arange(9), 1.2, *out)
    with pytest.raises(TypeError):
        grids.text_lines(table.origin, table.height, table.quad, np.arange(10, dtype=np.int32), 1.2, *out)
    with pytest.raises(ValueError):
        grids.rule_components(np.zeros((2, 3)), np.zeros((2, 3)), 2.0, np.empty(3, dtype=np.int64))


def _corpus_files(corpus: Path) -> list[Path]:
    with open(corpus / "MANIFEST.tsv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [corpus / row["path"] for row in rows if row["pages"] not in ("n/a", "")]


@pytest.mark.slow
def test_every_corpus_page_finds_the_same_tables_on_both_paths(corpus, monkeypatch):
    for path in _corpus_files(corpus):
        try:
            doc = open_document(path)
        except Exception:  # unreadable files are other tests' subject
            continue
        with doc:
            for number in range(1, doc.page_count + 1):
                glyphs = doc.page_glyphs(number)
                reading = read_layout(glyphs.table, doc.config, None)

                def detect() -> tuple:
                    return gridfind.detect_tables(  # noqa: B023
                        glyphs.table, glyphs.paths, reading.joined, doc.config, number  # noqa: B023
                    )

                compiled, pure = both(monkeypatch, detect)
                assert compiled == pure, f"{path.name} p{number}"
                lines = both(monkeypatch, lambda: gridfind._lines(glyphs.table, gridfind.text_glyphs(glyphs.table)))  # noqa: B023
                assert_same_lines(*lines, f"{path.name} p{number}")
