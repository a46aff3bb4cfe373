"""Stage packages resolve their exports on first use (extract/lazy.py): each
exported name is its module's object, __all__ lists exactly the exports, an
unknown name is an AttributeError, and importing the package imports none of
the modules behind the exports."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

LAZY = ("ragprep.extract", "ragprep.pipeline")


@pytest.mark.parametrize("package", LAZY)
def test_every_export_is_its_modules_object_and_listed(package):
    pkg = importlib.import_module(package)
    exports = pkg._EXPORTS
    assert sorted(pkg.__all__) == sorted(n for names in exports.values() for n in names)
    for module, names in exports.items():
        for name in names:
            assert getattr(pkg, name) is getattr(importlib.import_module(module), name), name


@pytest.mark.parametrize("package", LAZY)
def test_an_unknown_name_is_an_attribute_error(package):
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'no_such_name'"):
        getattr(importlib.import_module(package), "no_such_name")  # noqa: B009 -- the lookup itself is under test, through the module's __getattr__


@pytest.mark.parametrize(("package", "name", "module"), [
    ("ragprep.extract", "extract_document", "ragprep.extract.document"),
    ("ragprep.pipeline", "chunk_records", "ragprep.pipeline.export"),
])  # fmt: skip
def test_a_module_behind_an_export_is_imported_when_the_name_is_used(package, name, module):
    code = (
        f"import sys, {package} as pkg; before = {module!r} in sys.modules; "
        f"pkg.{name}; print(before, {module!r} in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.split() == ["False", "True"]
