"""Running part of one test on the pure-Python reference and part on the
compiled path (RAGPREP_PURE, read per page): the differential tests of the
interpreter, the layout kernels and the table kernels compare the two."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import pytest

from ragprep.extract.native import PURE_ENV

T = TypeVar("T")


@contextmanager
def on_path(monkeypatch: pytest.MonkeyPatch, pure: bool) -> Iterator[None]:
    """Inside the block, extraction takes the reference (`pure`) or the compiled path."""
    with monkeypatch.context() as m:
        if pure:
            m.setenv(PURE_ENV, "1")
        else:
            m.delenv(PURE_ENV, raising=False)
        yield


def on_both_paths(call: Callable[[], T]) -> tuple[T, T]:
    """`call`'s answer on the reference path, then on the compiled path."""
    mp = pytest.MonkeyPatch()
    try:
        with on_path(mp, pure=True):
            expected = call()
        with on_path(mp, pure=False):
            got = call()
    finally:
        mp.undo()
    return expected, got
