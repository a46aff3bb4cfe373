"""Table detection's shortcuts decide as the long way does.

gridfind skips work whose outcome is already known (a glyph outside a grid's
outer edges is in none of its slots). Each shortcut is held here to the
computation it replaces, written out in full, on random inputs with the
cases that could part them: centres on an edge, ties, -0.0, infinities and
NaN.
"""

from __future__ import annotations

import numpy as np
import pytest

from ragprep.extract import gridfind


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
