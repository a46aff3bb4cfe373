"""Which path runs: the compiled extensions (extract/_core.c, extract/_grids.c) or the pure-Python reference.

The extensions are built by ``pip install`` where a C compiler is present;
they are optional, and ``RAGPREP_PURE=1`` selects the reference even where
they are built (the reference is the oracle of tests/extract/test_compiled_core.py
and tests/extract/test_grids_compiled.py). Every compiled hot path asks
``compiled_core()`` (or ``compiled_grids()``, table detection's kernels) and
falls back to numpy and Python when it answers None.
"""

from __future__ import annotations

import os
from types import ModuleType

try:
    from ragprep.extract import _core
except ImportError:  # not built (no compiler at install time): the reference runs
    _core = None
try:
    from ragprep.extract import _grids
except ImportError:
    _grids = None

PURE_ENV = "RAGPREP_PURE"


def compiled_available() -> bool:
    """Whether the compiled core is built and importable."""
    return _core is not None


def _pure() -> bool:
    """RAGPREP_PURE is set to a true value: the reference runs everywhere."""
    return os.environ.get(PURE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def compiled_core() -> ModuleType | None:
    """The compiled core's module unless RAGPREP_PURE is set to a true value or it is not built."""
    if _core is None or _pure():
        return None
    return _core


def compiled_grids() -> ModuleType | None:
    """Table detection's compiled kernels (extract/_grids.c, gridfind.py), as ``compiled_core``."""
    if _grids is None or _pure():
        return None
    return _grids
