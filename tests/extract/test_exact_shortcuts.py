"""Shortcuts of table detection and running heads decide as the long way does.

gridfind skips work whose outcome is already known (a glyph outside a grid's
outer edges is in none of its slots); running.py projects upright glyphs on
one column where a product with a zero adds nothing. Each shortcut is held here to the
computation it replaces, written out in full, on random inputs with the
cases that could part them: centres on an edge, ties, -0.0, infinities and
NaN.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ragprep.extract import gridfind, running
from ragprep.extract.geometric import SAME_DIRECTION
from ragprep.extract.glyphs import GlyphTable


def _slots_in_full(xs: np.ndarray, ys: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every centre searched: its slot, and whether it is one of the grid's."""
    col = np.searchsorted(xs, centres[:, 0]) - 1
    row = np.searchsorted(-ys, -centres[:, 1]) - 1
    inside = (col >= 0) & (col < len(xs) - 1) & (row >= 0) & (row < len(ys) - 1)
    return np.flatnonzero(inside), row[inside], col[inside]


def _edges(rng: np.random.Generator, special: bool) -> np.ndarray:
    edges = np.sort(rng.choice(np.arange(0.0, 200.0, 10.0), size=int(rng.integers(1, 7)), replace=False))
    if special and rng.random() < 0.5:
        edges[rng.integers(len(edges))] = rng.choice([np.inf, -np.inf, np.nan, -0.0])
        edges = np.sort(edges)  # NaN sorts last, as _edges leaves it
    return edges


@pytest.mark.parametrize("seed", range(40))
def test_slots_are_the_slots_a_search_of_every_centre_finds(seed):
    rng = np.random.default_rng(seed)
    xs = _edges(rng, special=seed % 2 == 1)
    ys = _edges(rng, special=seed % 4 == 3)[::-1]  # top first
    # Centres on the edges themselves, between them, beyond them, and not finite.
    values = np.concatenate([np.arange(-20.0, 220.0, 5.0), [0.0, -0.0, np.inf, -np.inf, np.nan]])
    centres = rng.choice(values, size=(300, 2))
    got = gridfind._slots(xs, ys, centres)
    want = _slots_in_full(xs, ys, centres)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def _quad_table(rng: np.random.Generator, n: int) -> GlyphTable:
    """`n` glyphs whose corners and directions take odd values now and then."""
    odd = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e308, -1e308, 5e-324])
    quad = rng.uniform(-50.0, 800.0, size=(n, 4, 2))
    at = rng.random(quad.shape) < 0.03
    quad[at] = rng.choice(odd, size=int(np.count_nonzero(at)))
    angle = rng.choice([0.0, 0.0, np.pi / 2, 0.2, np.pi], size=n)
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    at = rng.random(direction.shape) < 0.06
    direction[at] = rng.choice(odd, size=int(np.count_nonzero(at)))
    table = GlyphTable.empty().with_text_rows(["a"] * n, [(0.0, 0.0, 1.0, 1.0)] * n, [-1] * n, [0] * n)
    return dataclasses.replace(table, quad=quad, direction=direction)


@pytest.mark.parametrize("seed", range(20))
def test_band_centres_and_directions_are_the_products(seed):
    rng = np.random.default_rng(seed)
    table = _quad_table(rng, 400)
    glyphs = np.sort(rng.choice(400, size=300, replace=False))
    for along in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([-1.0, 0.0]), np.array([0.6, 0.8])):
        up = np.array([-along[1], along[0]])
        with np.errstate(invalid="ignore", over="ignore"):
            centre = (table.quad[glyphs, 0] + table.quad[glyphs, 2]) @ (up / 2)
            got = running._centres_across(table, glyphs, up)
            same = table.direction[glyphs] @ along >= SAME_DIRECTION
            along_got = running._along(table, glyphs, along)
        # Equal, NaN where the product is NaN (a zero's sign decides no comparison).
        assert np.array_equal(got, centre, equal_nan=True)
        assert np.array_equal(along_got, same)
