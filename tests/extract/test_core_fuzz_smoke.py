"""A short fuzz campaign of the compiled core (fuzz/core_fuzz.py) over its
fixed seeds: built with AddressSanitizer + UndefinedBehaviorSanitizer where
gcc has their runtimes, mutants of the seeds interpreted for 25 CPU seconds.
A sanitizer report, a crash, a hang or a Python exception out of the page
interpreter fails it (issue 13: CI runs a <= 60 s smoke: 25 CPU s of pages
and objects, 10 of structure trees, 8 of CMap section bodies, 5 of object
stream headers, 5 of cross-reference tables; and, <= 45 s with the builds of
_layout.c and _grids.c, 12 of the kernels that take Python objects and
numpy columns and 8 of the sweep of hostile arguments over their calls)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ragprep.extract.compiled import compiled_available

FUZZ = Path(__file__).resolve().parents[2] / "fuzz" / "core_fuzz.py"


needs_sanitizer_build = pytest.mark.skipif(
    not compiled_available() or not sys.platform.startswith("linux"),
    reason="the compiled core is not built (pip install compiles it), or the sanitizer build (gcc on Linux) is not here",
)


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder of sanitizer builds for every campaign here: each extension compiled once (~10 CPU s each)."""
    return tmp_path_factory.mktemp("builds")


def run_campaign(tmp_path: Path, builds: Path, *options: str, timeout: int = 180) -> None:
    """One campaign of fuzz/core_fuzz.py over its fixed seeds (seed 13): no finding, more than 100 runs."""
    crash = tmp_path / "input.bin"
    done = subprocess.run(
        [sys.executable, str(FUZZ), *options, "--seed", "13", "--crash-file", str(crash), "--builds", str(builds)],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-4000:], crash.read_bytes()[:2000] if crash.exists() else None)
    summary = done.stdout.strip().splitlines()[-1]
    assert "findings: 0" in summary and int(summary.split("runs: ")[1].split()[0]) > 100, done.stdout


@needs_sanitizer_build
def test_core_fuzz_smoke_has_no_findings(tmp_path: Path, builds: Path):
    run_campaign(tmp_path, builds, "--seconds", "25", timeout=240)


@needs_sanitizer_build
def test_structure_walk_fuzz_smoke_has_no_findings(tmp_path: Path, builds: Path):
    # The compiled tree walk against the reference on mutants of the builder's tree (fuzz/tree_fuzz.py).
    run_campaign(tmp_path, builds, "--target", "trees", "--seconds", "10")


@needs_sanitizer_build
def test_node_walk_fuzz_smoke_has_no_findings(tmp_path: Path, builds: Path):
    # The node walk over object stream bytes against the walk of plain values (fuzz/node_fuzz.py).
    run_campaign(tmp_path, builds, "--target", "nodes", "--seconds", "8")


@needs_sanitizer_build
def test_cmap_section_fuzz_smoke_has_no_findings(tmp_path: Path, builds: Path):
    # The compiled CMap section parser against cmap.py's builder on mutants of fixed CMaps (fuzz/cmap_fuzz.py).
    run_campaign(tmp_path, builds, "--target", "cmaps", "--seconds", "8")


@needs_sanitizer_build
def test_object_stream_header_fuzz_smoke_has_no_findings(tmp_path: Path, builds: Path):
    # The compiled object stream header reader against _header_spans on mutants of fixed streams (fuzz/ostream_fuzz.py).
    run_campaign(tmp_path, builds, "--target", "ostreams", "--seconds", "5")


@needs_sanitizer_build
def test_xref_table_fuzz_smoke_has_no_findings(tmp_path: Path, builds: Path):
    # The compiled cross-reference reader against xref._reference_table and qpdf's table
    # on random tables and mutants of them (fuzz/xref_fuzz.py).
    run_campaign(tmp_path, builds, "--target", "xref", "--seconds", "5")


@needs_sanitizer_build
def test_kernel_fuzz_smoke_has_no_findings(tmp_path: Path, builds: Path):
    # The kernels that take Python objects and numpy columns (_core's tables,
    # reading and text kernels, _layout's and _grids'), all three extensions
    # built with the sanitizers, against their references (fuzz/kernel_fuzz.py).
    # The builds of _layout.c and _grids.c (~12 CPU s, side by side; _core's is the module's one) and 12 CPU s of fuzzing.
    run_campaign(tmp_path, builds, "--target", "kernels", "--seconds", "12", timeout=600)


@needs_sanitizer_build
def test_kernel_sweep_smoke_has_no_findings(tmp_path: Path, builds: Path):
    # Those kernels' recorded calls, every argument changed in turn to values no
    # caller passes (fuzz/kernel_sweep.py; the kernels smoke's builds): 8 CPU s,
    # the whole sweep of one draw per drawer (~13,000 calls).
    run_campaign(tmp_path, builds, "--target", "sweep", "--draws", "1", "--seconds", "8", timeout=600)
