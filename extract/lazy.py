"""Package attributes that import their module on first use (PEP 562).

A stage's ``__init__`` names what other stages may use; importing the package
must stay free of numpy, pikepdf, pyarrow and fontTools so the CLI's
``--help`` and a small extract start fast (tests/test_packaging.py keeps it so).
Each package hands its table of exports to ``lazy_exports`` and calls the
resolver it returns from its module ``__getattr__``. It lives in extract, the lowest stage,
because every stage above may import extract (see extract/settings.py)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """The resolver for `package`'s ``__getattr__``: it resolves each name in `exports`
    (module -> names it defines) by importing its module once; any other name
    is an AttributeError, as for a module without one."""
    module_of = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # resolved once: later lookups skip __getattr__
        return value

    return __getattr__
