"""The CPU-time budget every fuzz campaign runs under (core_fuzz.py and the
targets it hands a campaign to), and its progress lines: a campaign stopped
from outside, or killed by a sanitizer report, still leaves the figures it
reached on stdout."""

from __future__ import annotations

import time


class Campaign:
    """`seconds` of process CPU time from now, with a progress line every `report` CPU seconds."""

    def __init__(self, seconds: float, report: float) -> None:
        self.start = time.process_time()
        self.deadline = self.start + seconds
        self.every = report
        self.next_report = self.start + report

    def running(self, **figures: int) -> bool:
        """True while the budget lasts; prints `figures` when a progress line is due."""
        now = time.process_time()
        if now >= self.next_report:
            self.next_report = now + self.every
            shown = "  ".join(f"{name} {value}" for name, value in figures.items())
            print(f"progress: {shown}  cpu {now - self.start:.0f} s", flush=True)
        return now < self.deadline

    @property
    def cpu(self) -> float:
        """CPU seconds spent so far."""
        return time.process_time() - self.start
