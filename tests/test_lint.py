"""The lint gate: ruff's B, SIM and C90 rules (pyproject [tool.ruff]) and mypy
([tool.mypy]: the whole package at its defaults, extract at --strict) hold on
every stage (ruff also on the bench and fuzz scripts and the tests themselves); an exception is a noqa or
type: ignore with its reason on the line."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    # The [test] extra installs ruff beside this interpreter.
    local = Path(sys.executable).parent / "ruff"
    found = str(local) if local.exists() else shutil.which("ruff")
    assert found, "ruff is not installed: pip install -e '.[test]'"
    return [found]


def test_ruff_finds_nothing():
    done = subprocess.run(
        [*_ruff(), "check", "--no-cache", "extract", "chunk", "pipeline", "integrations", "bench", "fuzz", "tests"],
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


STAGES = ("extract", "chunk", "pipeline", "integrations")


def _mypy(root: Path, packages: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    # mypy finds a module by folder names; the stage folders are installed under
    # other names (ragprep.extract is extract/), so it reads them through links
    # laid out as the installed package is.
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache),
         *(arg for p in packages for arg in ("-p", p))],
        cwd=root, capture_output=True, text=True,
    )  # fmt: skip


def _linked(tmp_path: Path, folders: dict[str, Path]) -> Path:
    package = tmp_path / "tree" / "ragprep"
    package.mkdir(parents=True)
    for name, folder in folders.items():
        (package / name).symlink_to(folder, target_is_directory=True)
    return package.parent


@pytest.mark.slow
def test_mypy_finds_nothing(tmp_path):
    # Whole package at mypy's defaults, extract at --strict ([tool.mypy]).
    tree = _linked(tmp_path, {stage: ROOT / stage for stage in STAGES})
    done = _mypy(tree, [f"ragprep.{stage}" for stage in STAGES], tmp_path / "cache")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_holds_extract_to_strict(tmp_path):
    # Not vacuous: an unannotated function is an error in extract (--strict's
    # disallow_untyped_defs), not in chunk (the defaults).
    for stage in ("extract", "chunk"):
        (tmp_path / stage).mkdir()
        (tmp_path / stage / "__init__.py").write_text("def f(x):\n    return x\n")
    tree = _linked(tmp_path, {stage: tmp_path / stage for stage in ("extract", "chunk")})
    done = _mypy(tree, ["ragprep.extract", "ragprep.chunk"], tmp_path / "cache")
    assert done.returncode == 1
    assert "ragprep/extract/__init__.py:1: error: Function is missing a type annotation" in done.stdout
    assert "ragprep/chunk" not in done.stdout


def _strict_flags() -> set[str]:
    """The flags `mypy --strict` turns on, as its --help lists them."""
    text = subprocess.run([sys.executable, "-m", "mypy", "--help"], capture_output=True, text=True, check=True).stdout
    start = text.index("enables the following flags:")
    listed = text[start : text.index("\n  --", start)]
    listed = re.sub(r"-\n\s+", "-", listed)  # flags broken across lines at a hyphen
    return set(re.findall(r"--([a-z][a-z-]+)", listed))


def test_the_extract_override_is_mypys_strict():
    # The override spells --strict out flag by flag (mypy has no per-module
    # strict); a mypy release that adds a flag to --strict fails here.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    override = next(o for o in config["overrides"] if "ragprep.extract.*" in o["module"])
    settings = {**{k: v for k, v in config.items() if k != "overrides"}, **override}
    spelled = {
        ("no-" + key.replace("_", "-")) if value is False else key.replace("_", "-")
        for key, value in settings.items()
        if isinstance(value, bool)
    }
    assert _strict_flags() <= spelled
