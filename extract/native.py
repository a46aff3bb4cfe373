"""Which path runs: the compiled core (extract/_core.c) or the pure-Python reference.

The extension is built by ``pip install`` where a C compiler is present; it
is optional, and ``RAGPREP_PURE=1`` selects the reference even where it is
built (the reference is the oracle of tests/extract/test_compiled_core.py).
Every compiled hot path asks ``compiled_core()`` and falls back to numpy and
Python when it answers None.
"""

from __future__ import annotations

import os
from types import ModuleType

try:
    from ragprep.extract import _core
except ImportError:  # not built (no compiler at install time): the reference runs
    _core = None

PURE_ENV = "RAGPREP_PURE"


def compiled_available() -> bool:
    """Whether the compiled core is built and importable."""
    return _core is not None


def compiled_core() -> ModuleType | None:
    """The compiled core's module unless RAGPREP_PURE is set to a true value or it is not built."""
    if _core is None or os.environ.get(PURE_ENV, "").strip().lower() not in ("", "0", "false", "no"):
        return None
    return _core
