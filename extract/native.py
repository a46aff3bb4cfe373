"""Which path runs: the compiled extensions (extract/_core.c, _grids.c, _layout.c) or the pure-Python reference.

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
from typing import Any

try:
    from ragprep.extract import _core
except ImportError:  # not built (no compiler at install time): the reference runs
    _core = None
try:
    from ragprep.extract import _grids
except ImportError:
    _grids = None
try:
    from ragprep.extract import _layout
except ImportError:
    _layout = None

PURE_ENV = "RAGPREP_PURE"


def compiled_available() -> bool:
    """Whether the compiled core is built and importable."""
    return _core is not None


# The compiled paths ask ``_pure`` per line, per table and per kernel of every
# page. ``os.environ.get`` encodes the key and, with the variable unset (the
# usual case), raises and catches a KeyError inside: 1-2 µs a call. CPython's
# os.environ keeps the environment in a plain dict that every assignment and
# deletion through os.environ (monkeypatch.setenv included) updates at once:
# reading that dict is one lookup and sees every change; each raw value's
# answer is kept. Elsewhere os.environ.get is read.
_ENVIRON: dict[Any, Any] | None = getattr(os.environ, "_data", None)
_ENVIRON_KEY: Any = os.environ.encodekey(PURE_ENV) if _ENVIRON is not None else None
_ANSWERS: dict[Any, bool] = {}


def _pure() -> bool:
    """RAGPREP_PURE is set to a true value: the reference runs everywhere."""
    raw = _ENVIRON.get(_ENVIRON_KEY) if _ENVIRON is not None else os.environ.get(PURE_ENV)
    answer = _ANSWERS.get(raw)
    if answer is None:
        value = os.fsdecode(raw) if isinstance(raw, bytes) else (raw or "")
        answer = _ANSWERS[raw] = value.strip().lower() not in ("", "0", "false", "no")
    return answer


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


def compiled_layout() -> ModuleType | None:
    """Layout's compiled kernels (extract/_layout.c, layout/kernels.py), as
    ``compiled_core``. Asked once per page (units.Page.lib), which every
    kernel takes as its first argument: None runs the reference."""
    if _layout is None or _pure():
        return None
    return _layout
