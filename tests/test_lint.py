"""The lint gate: ruff's B, SIM and C90 rules (pyproject [tool.ruff]) hold on
every stage; an exception is a noqa with its reason on the line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    # The [test] extra installs ruff beside this interpreter.
    local = Path(sys.executable).parent / "ruff"
    found = str(local) if local.exists() else shutil.which("ruff")
    assert found, "ruff is not installed: pip install -e '.[test]'"
    return [found]


def test_ruff_finds_nothing():
    done = subprocess.run(
        [*_ruff(), "check", "--no-cache", "extract", "chunk", "pipeline", "integrations", "bench/diff_datasets.py"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_sees_a_violation(tmp_path):
    # Not vacuous: the configured rules reject a mutable default (B006) under this config.
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x=[]):\n    return x\n")
    done = subprocess.run(
        [*_ruff(), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1 and "B006" in done.stdout
