"""blocks.run_mcids, compiled (_core.run_mcids) against its numpy body.

Per run of emitted glyphs, its distinct MCIDs in the order they first
occur. The inputs below reach what a set of seen MCIDs can get wrong:
NO_MCID (-1) among them and next to other negative MCIDs, MCIDs at the ends
of int64 (their hashes), one MCID in two runs (seen again in each), a run of
one glyph, and runs of thousands of distinct MCIDs (the set grows).
"""

from __future__ import annotations

import numpy as np
import pytest
from codepath import on_both_paths
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract.blocks import run_mcids
from ragprep.extract.compiled import compiled_available

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")

_MCIDS = st.sampled_from([-1, -2, 0, 1, 2, 3, 2**40, -(2**63), 2**63 - 1])


@st.composite
def _runs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    mcids = draw(st.lists(_MCIDS, min_size=1, max_size=60))
    cuts = draw(st.sets(st.integers(1, max(len(mcids) - 1, 1)), max_size=len(mcids) - 1)) if len(mcids) > 1 else set()
    return np.array(mcids, dtype=np.int64), np.array([0, *sorted(cuts)], dtype=np.int64)


def _both(mcids: np.ndarray, starts: np.ndarray) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    return on_both_paths(lambda: run_mcids(mcids, starts))


@settings(max_examples=400, deadline=None)
@given(_runs())
def test_the_compiled_run_mcids_is_the_reference(runs: tuple[np.ndarray, np.ndarray]) -> None:
    expected, got = _both(*runs)
    assert got == expected
    assert all(type(m) is int for run in got for m in run)


def test_runs_of_many_distinct_mcids_keep_their_first_occurrences() -> None:
    rng = np.random.default_rng(7)
    mcids = rng.integers(-3, 5000, 20_000).astype(np.int64)
    starts = np.array([0, 1, 2, 9_000, 19_999], dtype=np.int64)
    expected, got = _both(mcids, starts)
    assert got == expected
    last = int(mcids[-1])
    assert len(got[2]) > 4000 and got[4] == (() if last == -1 else (last,))


def test_bad_run_starts_are_refused() -> None:
    from ragprep.extract import _core

    mcids = np.array([1, 2, 3], dtype=np.int64)
    for starts in ([0, 3], [1, 1], [-1], [2, 1]):
        with pytest.raises(ValueError, match="bad run starts"):
            _core.run_mcids(mcids, np.array(starts, dtype=np.int64))
