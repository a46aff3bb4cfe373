"""A short fuzz campaign of the compiled core (fuzz/core_fuzz.py) over its
fixed seeds: built with AddressSanitizer + UndefinedBehaviorSanitizer where
gcc has their runtimes, mutants of the seeds interpreted for 25 CPU seconds.
A sanitizer report, a crash, a hang or a Python exception out of the page
interpreter fails it (issue 13: CI runs a <= 60 s smoke)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ragprep.extract.compiled import compiled_available

FUZZ = Path(__file__).resolve().parents[2] / "fuzz" / "core_fuzz.py"


@pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built (pip install compiles it)")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sanitizer build is set up for gcc on Linux")
def test_core_fuzz_smoke_has_no_findings(tmp_path: Path):
    crash = tmp_path / "input.bin"
    done = subprocess.run(
        [sys.executable, str(FUZZ), "--seconds", "25", "--seed", "13", "--crash-file", str(crash)],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-4000:], crash.read_bytes()[:2000] if crash.exists() else None)
    summary = done.stdout.strip().splitlines()[-1]
    assert "findings: 0" in summary and int(summary.split("runs: ")[1].split()[0]) > 100, done.stdout


@pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built (pip install compiles it)")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sanitizer build is set up for gcc on Linux")
def test_structure_walk_fuzz_smoke_has_no_findings(tmp_path: Path):
    # The compiled tree walk against the reference on mutants of the builder's tree (fuzz/tree_fuzz.py).
    done = subprocess.run(
        [sys.executable, str(FUZZ), "--target", "trees", "--seconds", "10", "--seed", "13",
         "--crash-file", str(tmp_path / "input.bin")],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-4000:])
    summary = done.stdout.strip().splitlines()[-1]
    assert "findings: 0" in summary and int(summary.split("runs: ")[1].split()[0]) > 100, done.stdout
