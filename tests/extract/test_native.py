"""Which path runs (extract/native.py): RAGPREP_PURE is read on every call,
cheaply, so a test switches paths between two calls however it sets it."""

from __future__ import annotations

import os

import pytest
from codepath import on_path

from ragprep.extract import native
from ragprep.extract.native import PURE_ENV, compiled_available, compiled_core, compiled_grids

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built: only the reference runs")


@pytest.mark.parametrize(("value", "pure"), [("1", True), ("yes", True), (" TRUE ", True), ("0", False), ("false", False), (" No", False), ("", False)])
def test_the_value_decides_and_each_change_is_seen_at_once(monkeypatch, value, pure):
    monkeypatch.delenv(PURE_ENV, raising=False)
    assert compiled_core() is not None
    monkeypatch.setenv(PURE_ENV, value)
    assert (compiled_core() is None) == pure and (compiled_grids() is None) == pure
    monkeypatch.delenv(PURE_ENV)
    assert compiled_core() is not None


def test_os_environ_set_directly_and_codepath_switch_too(monkeypatch):
    monkeypatch.delenv(PURE_ENV, raising=False)
    try:
        os.environ[PURE_ENV] = "1"
        assert compiled_core() is None
    finally:
        del os.environ[PURE_ENV]
    assert compiled_core() is not None
    with on_path(monkeypatch, pure=True):
        assert compiled_core() is None
        with on_path(monkeypatch, pure=False):
            assert compiled_core() is not None
        assert compiled_core() is None
    assert compiled_core() is not None


def test_asking_does_not_go_through_os_environ_get(monkeypatch):
    """os.environ.get raises and catches a KeyError when the variable is unset:
    1-2 µs, asked per line and per table of every page."""
    monkeypatch.delenv(PURE_ENV, raising=False)
    looked_up = []
    real = type(os.environ).__getitem__
    monkeypatch.setattr(type(os.environ), "__getitem__", lambda self, key: looked_up.append(key) or real(self, key))
    assert not native._pure() and compiled_core() is not None
    assert looked_up == []
