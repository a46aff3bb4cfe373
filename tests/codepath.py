"""Running part of one test on the pure-Python reference and part on the
compiled path (RAGPREP_PURE, read per page): the differential tests of the
interpreter, the layout kernels and the table kernels compare the two."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from ragprep.extract.native import PURE_ENV


@contextmanager
def on_path(monkeypatch: pytest.MonkeyPatch, pure: bool) -> Iterator[None]:
    """Inside the block, extraction takes the reference (`pure`) or the compiled path."""
    with monkeypatch.context() as m:
        if pure:
            m.setenv(PURE_ENV, "1")
        else:
            m.delenv(PURE_ENV, raising=False)
        yield
