"""The project installs as ragprep.extract / ragprep.chunk / ragprep.pipeline."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_maps_stage_folders_to_ragprep_subpackages(tmp_path):
    # A non-editable build: what `pip install .` installs.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("ragprep-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in (
        "ragprep/extract/__init__.py",
        "ragprep/extract/interpreter.py",
        "ragprep/extract/fonts/__init__.py",
        "ragprep/chunk/__init__.py",
        "ragprep/pipeline/cli.py",
    ):
        assert module in names
    # Implicit namespace package: no ragprep/__init__.py, no top-level `chunk`.
    assert "ragprep/__init__.py" not in names
    assert not any(n.startswith(("chunk/", "extract/", "pipeline/")) for n in names)
    assert any(n.startswith("ragprep/pipeline/samples/") and n.endswith(".pdf") for n in names)
    # The compiled core, layout's and table detection's kernels are built by the install
    # itself (gcc and the Python headers are there wherever the suite runs);
    # nothing prebuilt is committed.
    for extension in ("_core", "_layout", "_grids"):
        assert any(n.startswith(f"ragprep/extract/{extension}.") and n.endswith(".so") for n in names)
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "*.so"], capture_output=True, text=True).stdout
    assert tracked.strip() == ""


def test_importing_extract_keeps_heavy_dependencies_lazy():
    code = (
        "import sys, ragprep.extract, ragprep.pipeline.cli; "
        "heavy = [m for m in ('pdfminer', 'fontTools.ttLib', 'pyarrow', 'tiktoken') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == ""


def test_built_extensions_are_not_older_than_their_sources():
    # The extensions are optional in pyproject.toml, so a build that fails
    # after a pull or a rebase leaves the old .so in place without a word:
    # an editable checkout then tests kernels that are not the ones in its
    # C files (a rebase that brought a second definition of a kernel went
    # unseen that way). Built in place, each must be newer than its source.
    from ragprep.extract import _core, _grids, _layout

    for module in (_core, _grids, _layout):
        built = Path(module.__file__)
        source = ROOT / "extract" / f"{module.__name__.rsplit('.', 1)[1]}.c"
        if built.parent == source.parent:
            assert built.stat().st_mtime >= source.stat().st_mtime, (
                f"{built.name} is older than {source.name}: rebuild with "
                "`.venv/bin/python -m pip install --no-deps --no-build-isolation -e .` and read its errors"
            )
