"""Reductions per group over a column cut into consecutive runs, without a Python loop per group.

A page's lines, a line's pieces, a grid's cells: the geometric readers keep
their members as one array cut at ``starts`` (the offset of each run, the
first one 0), so each reduction runs once over the page, never once per line.
Imports only numpy: any module of extract can use it.
"""

from __future__ import annotations

import numpy as np


def group_ids(starts: np.ndarray, n: int) -> np.ndarray:
    """The run each of `n` positions belongs to."""
    ids = np.zeros(n, dtype=np.int64)
    ids[starts[1:]] = 1
    return np.cumsum(ids)


def group_medians(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """np.median of every run of `values` (runs non-empty): the middle value,
    or the mean of the two middle ones, as np.median computes them."""
    n = len(values)
    ids = group_ids(starts, n)
    ordered = values[np.lexsort((values, ids))]
    sizes = np.diff(np.append(starts, n))
    low = starts + (sizes - 1) // 2
    high = starts + sizes // 2
    medians: np.ndarray = (ordered[low] + ordered[high]) / 2
    return medians


def median_of(values: np.ndarray) -> float:
    """np.median of `values` (non-empty) as group_medians computes it (the
    middle value, or the mean of the two middle ones), without np.median's
    overhead, which costs more than the sort on a leaf's few lines."""
    ordered = np.sort(values)
    n = len(ordered)
    return float((ordered[(n - 1) // 2] + ordered[n // 2]) / 2)


def running_max(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """np.maximum.accumulate restarted at every run: exact, by ranking the
    values and offsetting each run's ranks past all earlier runs' ranks."""
    n = len(values)
    if not n:
        return values.copy()
    by_value = np.argsort(values, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[by_value] = np.arange(n)
    offset = group_ids(starts, n) * n
    maxima: np.ndarray = values[by_value[np.maximum.accumulate(rank + offset) - offset]]
    return maxima


def concat_ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """np.concatenate of np.arange(start, start + size) for every run, in one pass."""
    total = int(sizes.sum())
    run_start = np.cumsum(sizes) - sizes
    return np.repeat(starts - run_start, sizes) + np.arange(total)
