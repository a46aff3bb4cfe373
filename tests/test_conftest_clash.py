"""Every test folder runs in one pytest call with any other: no test imports
a name from a conftest.py (each conftest.py is the module `conftest`, so the
one loaded last wins) — shared values live in plain modules (corpusdir.py)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _imports_conftest(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "conftest":
            return True
        if isinstance(node, ast.Import) and any(alias.name == "conftest" for alias in node.names):
            return True
    return False


def test_no_test_imports_from_a_conftest():
    offenders = [p.relative_to(TESTS).as_posix() for p in sorted(TESTS.rglob("*.py")) if _imports_conftest(p)]
    assert not offenders, f"import shared test values from a plain module, not conftest: {offenders}"


def test_the_check_sees_a_conftest_import(tmp_path):
    bad = tmp_path / "test_bad.py"
    bad.write_text("from conftest import CORPUS\n")
    assert _imports_conftest(bad)


def test_extract_and_pipeline_tests_collect_in_one_call():
    # The order that broke: tests/pipeline's conftest loaded before an extract
    # test that needs the corpus path.
    files = ["pipeline/test_eta.py", "extract/test_corpus_smoke.py", "extract/test_compiled_core.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
        cwd=TESTS, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
