"""reading._run_labels, compiled (_core.run_labels) against its reference
(reading._reference_run_labels over StructTree.labels).

A page's block labels, per run: its owning element's standard type, path,
heading level (None for 0), /Lang, whether it is TH and its /Alt; the
tail's label for a run no element owns (owner -1). The trees below mix
what the fields can get wrong: two raw types of one standard type, TH among
the types, levels 0 and 1 to 6, /Lang None and shared, /Alt on some
elements only; the runs mix owned and tail ones, all owned, all tail, none,
and one element owning several runs.
"""

from __future__ import annotations

import numpy as np
import pytest
from codepath import on_both_paths
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import _core
from ragprep.extract.compiled import compiled_available
from ragprep.extract.reading import _run_labels
from ragprep.extract.structure import StructTree
from ragprep.extract.structure_columns import ContentColumns, ElementColumns

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")

_TYPES = (("P", "P"), ("TH", "TH"), ("Heading", "H1"), ("Body", "P"), ("TD", "TD"), ("Span", "Span"))
_PATHS = (("Document",), ("Document", "P"), ("Document", "Table", "TR", "TH"), ("Document", "H1"))
_LANGS = (None, "en-US", "fr", "")


def _i64(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64).reshape(len(values))


def _tree(types: list[int], paths: list[int], levels: list[int], langs: list[int], alts: dict[int, str]) -> StructTree:
    n = len(types)
    columns = ElementColumns(
        parent=_i64([-1] * n), type=_i64(types), heading_level=_i64(levels), actual_text_owner=_i64([-1] * n),
        ref_number=_i64([0] * n), ref_generation=_i64([0] * n), page=_i64([-1] * n), path=_i64(paths),
        lang=[_LANGS[k] for k in langs], actual_text={}, alt=alts, cells={}, type_names=_TYPES, page_keys=(),
        path_names=_PATHS,
    )  # fmt: skip
    return StructTree(columns, ContentColumns(*(_i64([]) for _ in range(4))), {}, ())


@st.composite
def _trees_and_runs(draw: st.DrawFn) -> tuple[StructTree, np.ndarray]:
    n = draw(st.integers(1, 12))
    ints = lambda hi: st.lists(st.integers(0, hi), min_size=n, max_size=n)  # noqa: E731
    alts = draw(st.dictionaries(st.integers(0, n - 1), st.sampled_from(["a photo", "", "chart"]), max_size=n))
    tree = _tree(draw(ints(len(_TYPES) - 1)), draw(ints(len(_PATHS) - 1)), draw(ints(6)), draw(ints(len(_LANGS) - 1)), alts)
    owners = draw(st.lists(st.integers(-1, n - 1), max_size=20))
    return tree, _i64(owners)


def _both(tree: StructTree, owners: np.ndarray) -> tuple[dict, dict]:
    return on_both_paths(lambda: _run_labels(tree, owners))


def _same(expected: dict, got: dict) -> None:
    assert list(got) == list(expected)
    for name, values in expected.items():
        assert got[name] == values, name
        assert [type(v) for v in got[name]] == [type(v) for v in values], name


@settings(max_examples=400, deadline=None)
@given(_trees_and_runs())
def test_the_compiled_run_labels_are_the_reference(case) -> None:
    _same(*_both(*case))


def test_owned_and_tail_runs_take_their_element_s_label_or_the_tail_s() -> None:
    # Element 0: P at level 0; element 1: TH with /Alt; element 2: H1 (raw Heading), level 1, /Lang fr.
    tree = _tree([0, 1, 2], [1, 2, 3], [0, 0, 1], [1, 1, 2], {1: "a photo"})
    expected, got = _both(tree, _i64([2, -1, 1, 0, 1]))
    _same(expected, got)
    assert got["struct_type"] == ["H1", "P", "TH", "P", "TH"]
    assert got["struct_path"] == [("Document", "H1"), (), ("Document", "Table", "TR", "TH"), ("Document", "P"), _PATHS[2]]
    assert got["heading_level"] == [1, None, None, None, None]
    assert got["lang"] == ["fr", None, "en-US", "en-US", "en-US"]
    assert got["header_cell"] == [False, False, True, False, True]
    assert got["alt"] == [None, None, "a photo", None, "a photo"]


def test_a_page_with_no_runs_has_empty_labels() -> None:
    expected, got = _both(_tree([0], [0], [0], [0], {}), _i64([]))
    _same(expected, got)
    assert all(values == [] for values in got.values())


def test_rows_and_columns_out_of_range_are_refused() -> None:
    tree = _tree([0, 1], [0, 1], [0, 0], [0, 0], {})
    columns = tree.label_columns
    tail = ("P", (), None, None, False, None)
    with pytest.raises(IndexError, match="out of range"):
        _core.run_labels(_i64([2]), *columns, tail)
    bad_type = (_i64([0, 9]), *columns[1:])
    with pytest.raises(IndexError, match="out of range"):
        _core.run_labels(_i64([1]), *bad_type, tail)
    with pytest.raises(ValueError, match="different lengths"):
        _core.run_labels(_i64([0]), *columns[:6], ["en"], columns[7], tail)
