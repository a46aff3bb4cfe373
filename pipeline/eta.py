"""How long a run has left: a per-document cost model learned from the
documents it has done so far.

A run processes the largest files first, and a document's cost is not its
size: opening a file and reading its fonts costs about the same whatever it
holds, and a large scan costs little per byte. Counting documents promises
that the small ones last as long as the large; counting bytes promises that
they cost nothing (it showed a run of 3:00 as 1:30). The model is

    seconds(document) = a + b * bytes ** beta

fitted to the finished documents' own seconds (``documents.seconds``) by least
squares, a, b >= 0, beta on a grid from 0 (every document alike: a count) to 1
(by bytes). The time left is the elapsed time scaled by the model's seconds for
the documents still to do over its seconds for those done: the parallelism,
whatever the engine, cancels out, and so does a bias the fit has for every
document alike. With beta <= 1 a small file never costs less per byte than a
large one, so the estimate lies between the one by bytes and the one by count:
on the corpus, where a few long documents (400 pages) dominate the time and
bytes say little, the fit falls back to bytes instead of promising the small
files cost nothing (a fit on the relative error did).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

# Exponents tried for bytes (0: a per-document cost; 1: by bytes).
BETAS = np.arange(11) / 10
class CostModel:
    """Seconds left in a run, by the bytes of the documents still to do."""

    def __init__(self, sizes: Iterable[int]) -> None:
        pending = np.maximum(np.fromiter(sizes, np.float64), 1.0)
        # Sum of bytes ** beta over the pending documents, one per BETAS entry.
        self._pending = (pending[:, None] ** BETAS).sum(axis=0) if pending.size else np.zeros(BETAS.size)
        self._done = np.zeros(BETAS.size)  # the same sums over the documents done
        self._bytes: list[float] = []
        self._seconds: list[float] = []
        self._fit = (0.0, 1.0, 1.0)  # a, b, beta: by bytes until something is done
        self._fitted_at = 0

    def done(self, size: int, seconds: float) -> None:
        """One document finished: `size` bytes (as given at the start), in `seconds` of its worker."""
        x = max(float(size), 1.0)
        powers = x**BETAS
        self._pending = np.maximum(self._pending - powers, 0.0)
        self._done += powers
        self._bytes.append(x)
        self._seconds.append(max(seconds, 0.0))

    def remaining(self, elapsed: float) -> float | None:
        """Seconds left after `elapsed` seconds of the run; None before any document is done."""
        if not self._bytes or elapsed <= 0:
            return None
        a, b, beta = self._current()
        column = int(np.argmin(np.abs(BETAS - beta)))
        # Sums kept per exponent: a document's update costs the same at 50,000 done as at 5.
        done = a * self._done[0] + b * self._done[column]
        if done <= 0:
            return None
        left = a * self._pending[0] + b * self._pending[column]
        return float(left * elapsed / done)

    def _current(self) -> tuple[float, float, float]:
        """The fit, redone when the finished documents grew by a tenth since
        the last one: a refit costs the documents done, so it is not redone
        for every document of a large run."""
        count = len(self._bytes)
        if count >= self._fitted_at + max(1, self._fitted_at // 10):
            self._fit = fit_cost(np.array(self._bytes), np.array(self._seconds))
            self._fitted_at = count
        return self._fit


def fit_cost(sizes: np.ndarray, seconds: np.ndarray) -> tuple[float, float, float]:
    """(a, b, beta) of ``seconds ~ a + b * sizes ** beta`` with the least
    squared error, a, b >= 0 (see the module)."""
    y = np.maximum(seconds, 0.0)
    best: tuple[float, float, float, float] | None = None
    for beta in BETAS:
        f = sizes**beta
        scale = float(f.mean()) or 1.0
        for a, b in _candidates(f / scale, y):
            error = float(((y - a - b * f / scale) ** 2).sum())
            # Ties go to the smaller exponent (beta means nothing when b is 0).
            if best is None or error < best[0] * (1 - 1e-9):
                best = (error, a, b / scale, float(beta) if b else 0.0)
    assert best is not None
    return best[1], best[2], best[3]


def _candidates(f: np.ndarray, y: np.ndarray) -> list[tuple[float, float]]:
    """Least-squares (a, b) of ``y ~ a + b f``: the free solution when both are
    >= 0, and the two one-term fits (b = 0, a = 0)."""
    n, sf, sy, sff, sfy = float(y.size), f.sum(), y.sum(), (f * f).sum(), (f * y).sum()
    out = [(float(sy / n), 0.0)]
    if sff > 0:
        out.append((0.0, float(sfy / sff)))
    det = n * sff - sf * sf
    if det > 1e-12 * n * sff:
        a, b = (sy * sff - sf * sfy) / det, (n * sfy - sf * sy) / det
        if a >= 0 and b >= 0:
            out.append((float(a), float(b)))
    return out
