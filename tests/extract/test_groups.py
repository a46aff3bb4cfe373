"""Reductions per run of a column (extract/groups.py) against numpy applied run by run."""

import numpy as np

from ragprep.extract.groups import concat_ranges, group_ids, group_medians, median_of, running_max

# Runs of sizes 1, 2, 3, 4 and 5 with ties inside runs and across them.
VALUES = np.array([7.0, 2.5, 2.5, 9.0, 1.0, 3.0, 1.0, 4.0, 4.0, 0.5, 8.0, 8.0, 6.0, 0.5, 9.5])
STARTS = np.array([0, 1, 3, 6, 10])


def runs(values: np.ndarray) -> list[np.ndarray]:
    return np.split(values, STARTS[1:])


def test_group_ids_number_the_runs():
    assert group_ids(STARTS, len(VALUES)).tolist() == [0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4]


def test_group_medians_are_numpy_medians_of_each_run_odd_and_even():
    assert group_medians(VALUES, STARTS).tolist() == [float(np.median(r)) for r in runs(VALUES)]


def test_median_of_is_the_numpy_median_odd_and_even_unsorted():
    # Every run of VALUES (sizes 1 to 5, ties inside), each reversed too:
    # the middle value, or the mean of the two middle ones, of the sorted run.
    for run in runs(VALUES):
        for values in (run, run[::-1]):
            assert median_of(values) == float(np.median(values))
    assert median_of(np.array([4.0, 1.0, 3.0, 2.0])) == 2.5


def test_running_max_restarts_at_every_run():
    expected = np.concatenate([np.maximum.accumulate(r) for r in runs(VALUES)])
    assert running_max(VALUES, STARTS).tolist() == expected.tolist()


def test_running_max_is_exact_for_values_far_apart():
    values = np.array([1e12, 1e-12, 3.0, 1e12 + 1, -1e12])
    starts = np.array([0, 2])
    assert running_max(values, starts).tolist() == [1e12, 1e12, 3.0, 1e12 + 1, 1e12 + 1]


def test_concat_ranges_is_the_concatenated_aranges():
    starts, sizes = np.array([5, 0, 9]), np.array([3, 2, 0])
    assert concat_ranges(starts, sizes).tolist() == [5, 6, 7, 0, 1]
