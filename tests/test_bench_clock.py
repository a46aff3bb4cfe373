"""bench's CPU clock counts every read in full while the extract bench's CPU-time limit is armed."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._corpus import cpu_seconds  # noqa: E402

SPIN = 0.002  # shorter than a scheduler tick: what a one-page read costs


def _spin(seconds: float) -> None:
    # On the wall clock: reading this thread's CPU clock would bring the process
    # clock up to date too, and hide the fault this test is about.
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        pass


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timers on this platform")
def test_cpu_seconds_counts_a_short_read_under_an_armed_profiling_timer():
    previous = signal.signal(signal.SIGPROF, lambda signum, frame: None)
    misses = []
    try:
        for _ in range(8):
            signal.setitimer(signal.ITIMER_PROF, 60.0)  # as bench/extract.py's timed read arms it
            thread_before = time.thread_time()
            before = cpu_seconds()
            _spin(SPIN)
            measured = cpu_seconds() - before
            used = time.thread_time() - thread_before  # exact: this one thread did all the work
            signal.setitimer(signal.ITIMER_PROF, 0)
            misses.append(used - measured)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    assert max(misses) <= 0.1 * SPIN, misses
