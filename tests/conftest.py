"""Shared test fixtures: the real-world corpus location (optional)."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpusdir import CORPUS


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        pytest.skip(f"real-world corpus not found at {CORPUS} (set RAGPREP_CORPUS to its folder)")
    return CORPUS


# -- both interpreters ---------------------------------------------------------
# Every extract test runs on both interpreters: the compiled core and the
# pure-Python reference (RAGPREP_PURE=1). Corpus-wide tests run once, on the
# default path: tests/extract/test_compiled_core.py holds the two paths equal
# there, page by page.

from ragprep.extract.compiled import PURE_ENV, compiled_available  # noqa: E402

_EXTRACT_TESTS = Path(__file__).resolve().parent / "extract"
_PATHS = ("compiled", "pure") if compiled_available() else ("pure",)
# Modules that choose their paths themselves: the differential test, the
# core's fuzz smoke (which runs the compiled core only) and the plain-object
# parser's test (the parser against its pikepdf reference), the node walk's
# (against the walks of plain values), and the layout and table kernels' and
# the CMap section parser's and the cross-reference reader's differential tests.
_ONE_PATH_MODULES = frozenset(
    {
        "test_compiled_core.py", "test_core_fuzz_smoke.py", "test_structure_objects.py", "test_layout_kernels.py",
        "test_grids_compiled.py", "test_cmap_compiled.py", "test_structure_nodes.py", "test_layout_region_verdicts.py",
        "test_xref.py", "test_layout_witness.py", "test_layout_column_groups.py",
    }
)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = Path(str(metafunc.definition.path))
    if module.parent != _EXTRACT_TESTS or module.name in _ONE_PATH_MODULES:
        return
    if "corpus" not in metafunc.fixturenames:
        metafunc.parametrize("interpreter_path", _PATHS, indirect=True)


@pytest.fixture(autouse=True)
def interpreter_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The interpreter this test runs on: its parameter, else the default."""
    path = getattr(request, "param", None)
    if path == "pure":
        monkeypatch.setenv(PURE_ENV, "1")
    elif path == "compiled":
        monkeypatch.delenv(PURE_ENV, raising=False)
    return path or ("compiled" if compiled_available() else "pure")
