"""fuzz/kernel_fuzz.py's own judgement: what it counts a finding."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from ragprep.extract import native

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))
import kernel_fuzz  # noqa: E402

pytestmark = pytest.mark.skipif(native._layout is None, reason="the compiled extensions are not built")


def test_hostile_arguments_after_an_input_the_reference_refuses_are_no_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    # The hostile drawer makes another drawer's calls to record them; an input
    # that drawer draws and the reference refuses (tree_tables' parent out of
    # range: IndexError on both paths) was reported as the compiled path
    # raising (campaign seed 2511, run 939).
    def refused(rng: random.Random) -> list[tuple[str, Any]]:
        def call(lib: Any) -> None:
            raise IndexError("index 1099511627776 is out of bounds for axis 0 with size 5")

        return [("refused", call)]

    monkeypatch.setattr(kernel_fuzz, "KERNELS", {"refused": refused, "hostile": kernel_fuzz._draw_hostile})
    (label, hostile), *_ = kernel_fuzz._draw_hostile(random.Random(1))
    assert kernel_fuzz._compare(label, hostile, native._layout) == "same"
