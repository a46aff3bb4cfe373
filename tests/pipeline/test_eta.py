"""The run's remaining-time estimate (``ragprep.pipeline.eta``) on synthetic
runs: documents of known cost, the largest first, on two workers, and the
estimate at each point compared with the time the simulated run really had left."""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np
import pytest

from ragprep.pipeline.eta import CostModel, fit_cost


def simulate(cost: Callable[[np.ndarray], np.ndarray], *, documents: int = 300, workers: int = 2, seed: int = 7):
    """(sizes largest first, each document's seconds, finishing order, finish times) of a run."""
    rng = np.random.default_rng(seed)
    sizes = np.sort(rng.lognormal(12, 1.5, documents).astype(np.int64) + 1000)[::-1]
    seconds = cost(sizes.astype(float)) * rng.lognormal(0.0, 0.3, documents)
    free = [0.0] * workers
    ends = np.empty(documents)
    for k, s in enumerate(seconds):  # each document goes to the first worker free
        t = heapq.heappop(free)
        ends[k] = t + s
        heapq.heappush(free, ends[k])
    return sizes, seconds, np.argsort(ends, kind="stable"), ends


def estimates(cost, fractions=(0.1, 0.25, 0.5, 0.75)):
    """Per fraction of documents done: (true seconds left, model's, by bytes)."""
    sizes, seconds, order, ends = simulate(cost)
    model = CostModel(sizes.tolist())
    total = ends.max()
    out, done_bytes = {}, 0
    marks = {int(f * len(sizes)): f for f in fractions}
    for count, k in enumerate(order, 1):
        model.done(int(sizes[k]), float(seconds[k]))
        done_bytes += int(sizes[k])
        if count in marks:
            elapsed = float(ends[k])
            by_bytes = elapsed * (int(sizes.sum()) - done_bytes) / done_bytes
            out[marks[count]] = (total - elapsed, model.remaining(elapsed), by_bytes)
    return out


def test_a_fixed_cost_per_document_is_learned_where_bytes_promise_the_small_files_cost_nothing():
    # Each document costs 0.3 s to open plus its bytes: the small files at the end
    # dominate the time left, which counting bytes puts near zero.
    for fraction, (true, model, by_bytes) in estimates(lambda x: 0.3 + 2e-7 * x).items():
        assert model == pytest.approx(true, rel=0.3), fraction
        assert by_bytes < true / 3, fraction


def test_a_cost_that_grows_slower_than_bytes_is_estimated_closer_than_by_bytes():
    # Cost ~ sqrt(bytes) (large files mostly images): by bytes underestimates by 3x and
    # more; the model, which cannot tell a fixed cost from a slow growth on the large
    # files it has seen, overestimates, by less.
    for fraction, (true, model, by_bytes) in estimates(lambda x: 1e-3 * np.sqrt(x), (0.25, 0.5, 0.75)).items():
        assert by_bytes < true / 2.5, fraction
        assert true / 2 < model < true * 2 and abs(np.log(model / true)) < abs(np.log(by_bytes / true)), fraction


def test_when_bytes_say_little_the_estimate_falls_back_to_bytes_not_to_nothing():
    # The first nine documents of a corpus run (bytes, seconds): large scans read in a
    # second or two, two long books (400 and 352 pages) in 40 s. A fit on the relative
    # error took the scans for the rule and promised the 189 small files left cost
    # nothing (5 s left, of 116). With beta <= 1 a small file costs at least as much
    # per byte as a large one: the estimate is never below the one by bytes.
    done = [(3_388_137, 1.91), (2_818_798, 2.96), (3_597_121, 43.92), (2_598_727, 40.17), (2_229_351, 1.40),
            (2_151_239, 2.34), (2_498_460, 7.04), (1_764_540, 0.75), (1_511_478, 0.18)]  # fmt: skip
    pending = np.geomspace(1_400_000, 2_000, 189).astype(int).tolist()
    model = CostModel([size for size, _ in done] + pending)
    for size, seconds in done:
        model.done(size, seconds)
    elapsed = 59.2
    by_bytes = elapsed * sum(pending) / sum(size for size, _ in done)
    assert model.remaining(elapsed) >= 0.95 * by_bytes


def test_the_fit_recovers_the_cost_of_exact_data():
    sizes = np.geomspace(1e3, 1e8, 40)
    a, b, beta = fit_cost(sizes, 0.2 + 3e-4 * sizes**0.5)
    assert (a, beta) == (pytest.approx(0.2, rel=0.05), 0.5) and b == pytest.approx(3e-4, rel=0.05)
    assert fit_cost(sizes, np.full(40, 1.5))[2] == 0.0  # every document alike: beta 0 (a count)


def test_nothing_done_no_estimate_and_nothing_left_none_to_wait():
    model = CostModel([1000, 2000])
    assert model.remaining(10.0) is None
    model.done(2000, 1.0)
    assert model.remaining(0.0) is None and model.remaining(5.0) > 0
    model.done(1000, 0.5)
    assert model.remaining(5.0) == 0.0
