"""reading._placement, compiled (_core.structure_order) against its numpy
reference (reading._reference_placement, then reading._run_labels).

The page's glyphs that the structure tree references, in the tree's order,
each with its block owner (the runs of one owner); the rest (the tail)
in stream order; artifacts left out unless configured; the tail's
non-artifacts counted; on a page with no tail, the runs' labels. The page's
refs are its rows of the document's content columns: the compiled placement
looks them up there, among other pages' rows (drawn around them below). The
inputs below reach what the keys' arithmetic and
the ordering can get wrong: two refs with one key (the first ref wins),
MCIDs of 2**32 and more (their bits overlap the stream's, as numpy's shift
and or make them), negative marked MCIDs, many glyphs of one sequence (kept
in their order), NO_MCID glyphs whose key a ref holds (never placed),
artifacts among placed and tail glyphs, and elements with /ActualText (the
first glyph of each owner carries its text, the others drop out; an owner
with an empty or no text drops them all).

And reading._owner_runs, compiled (_core.owner_runs) against its numpy
reference: the runs of one block owner over the emitted glyphs, None where
some glyph is the tail's; and reading._placed_runs, the same runs as the
placement made them (where join kept its order). All are compared on every
tagged corpus page too.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from types import SimpleNamespace

import numpy as np
import pytest
from codepath import on_both_paths, on_path
from corpusdir import tagged_paths
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import PDFReadError, _core, open_document
from ragprep.extract.compiled import compiled_available
from ragprep.extract.config import ExtractConfig
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.reading import _owner_runs, _placed_runs, _placement, _Placement, _run_labels, _with_texts
from ragprep.extract.structure import StructTree
from ragprep.extract.structure_columns import ContentColumns, ElementColumns, PageContent

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")

# Few distinct values, so that keys meet: 2**32 + k collides with stream + 1, MCID k.
_MCIDS = st.sampled_from([-1, -2, 0, 1, 2, 3, 2**32, 2**32 + 1, 2**40])
_STREAMS = st.sampled_from([0, 1, 7, -1])
_ELEMENTS = 6


def _refs(*refs: tuple[int, int, int], before: int = 0, after: int = 0) -> PageContent:
    """A page's refs, each (mcid, stream, element), as StructTree.page_content_rows
    hands them: rows of the document's content, `before` and `after` other
    pages' rows around them (each a key of a page ref, or (stream 9, MCID k), of element 0)."""
    others = [(refs[k % len(refs)][0] if refs and k % 2 else k, refs[k % len(refs)][1] if refs and k % 2 else 9, 0)
              for k in range(before + after)]  # fmt: skip
    rows = [*others[:before], *refs, *others[before:]]
    mcid, stream, element = map(np.ascontiguousarray, np.array(rows, dtype=np.int64).reshape(len(rows), 3).T)
    return PageContent(stream << 32 | mcid, element, stream, mcid, before, before + len(refs))


# The label columns of _ELEMENTS elements (a page's run labels): types, paths, levels, /Lang and /Alt varied.
_LABELS = StructTree(
    ElementColumns(
        parent=np.full(_ELEMENTS, -1, dtype=np.int64), type=np.array([0, 1, 2, 0, 3, 1], dtype=np.int64),
        heading_level=np.array([0, 0, 2, 0, 0, 0], dtype=np.int64), actual_text_owner=np.full(_ELEMENTS, -1, dtype=np.int64),
        ref_number=np.zeros(_ELEMENTS, dtype=np.int64), ref_generation=np.zeros(_ELEMENTS, dtype=np.int64),
        page=np.full(_ELEMENTS, -1, dtype=np.int64), path=np.array([0, 1, 1, 2, 0, 1], dtype=np.int64),
        lang=[None, "en", "fr", None, "", "en"], actual_text={}, alt={1: "a photo", 3: ""}, cells={},
        type_names=(("P", "P"), ("TH", "TH"), ("Heading", "H2"), ("Span", "Span")), page_keys=(),
        path_names=(("Document",), ("Document", "P"), ("Document", "Table", "TR", "TH")),
    ),
    ContentColumns(*(np.zeros(0, dtype=np.int64) for _ in range(4))), {}, (),
)  # fmt: skip


def _tree(block_owners: list[int], actual_text_owners: list[int], actual_text: dict[int, str]) -> SimpleNamespace:
    """What _placement reads of a tree: block owners and /ActualText as given, the labels _LABELS'."""
    return SimpleNamespace(
        block_owners=np.array(block_owners, dtype=np.int64), actual_text_owners=np.array(actual_text_owners, dtype=np.int64),
        columns=SimpleNamespace(actual_text=actual_text), label_columns=_LABELS.label_columns, labels=_LABELS.labels,
    )  # fmt: skip


def _table(mcid: list[int], stream: list[int], artifact: list[bool]) -> GlyphTable:
    rows = len(mcid)
    table = GlyphTable.empty().with_text_rows([f"g{i}" for i in range(rows)], [(i, 0, i + 1, 1) for i in range(rows)], mcid, stream)
    return dataclasses.replace(table, artifact=np.array(artifact, dtype=bool).reshape(rows))


@st.composite
def _pages(draw: st.DrawFn) -> tuple[GlyphTable, SimpleNamespace, PageContent, np.ndarray, ExtractConfig]:
    rows = draw(st.integers(0, 40))
    mcid = draw(st.lists(_MCIDS, min_size=rows, max_size=rows))
    stream = draw(st.lists(_STREAMS, min_size=rows, max_size=rows))
    artifact = draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
    candidates = sorted(draw(st.sets(st.integers(0, max(rows - 1, 0)), max_size=rows))) if rows else []
    page_refs = draw(st.lists(st.tuples(_MCIDS, _STREAMS), max_size=12))
    refs = _refs(
        *((m, s, draw(st.integers(0, _ELEMENTS - 1))) for m, s in page_refs),
        before=draw(st.integers(0, 3)), after=draw(st.integers(0, 3)),
    )  # fmt: skip
    owners = st.lists(st.integers(0, _ELEMENTS - 1), min_size=_ELEMENTS, max_size=_ELEMENTS)
    actual = st.lists(st.sampled_from([-1, -1, -1, 0, 1, 2, 3]), min_size=_ELEMENTS, max_size=_ELEMENTS)
    texts = {k: text for k, text in enumerate(("A", None, "", "BB", "C", "")) if text is not None}
    tree = _tree(draw(owners), draw(actual), texts)
    config = ExtractConfig(include_artifacts=draw(st.booleans()))
    return _table(mcid, stream, artifact), tree, refs, np.array(candidates, dtype=np.int64), config


def _both(page: tuple) -> tuple[_Placement, _Placement]:
    mp = pytest.MonkeyPatch()
    try:
        with on_path(mp, pure=True):
            expected = _placement(*page, ())
        with on_path(mp, pure=False):
            got = _placement(*page, ())
    finally:
        mp.undo()
    return expected, got


def _same(expected: _Placement, got: _Placement, tree: object) -> None:
    assert got.table.text.tolist() == expected.table.text.tolist()
    for name in ("order", "starts"):
        want, have = getattr(expected, name), getattr(got, name)
        assert have.dtype == want.dtype, name
        assert have.tolist() == want.tolist(), name
    assert (got.tagged, got.untagged) == (expected.tagged, expected.untagged)
    for want, have in zip(expected.runs, got.runs, strict=True):
        assert have.dtype == want.dtype == np.int64
        assert have.tolist() == want.tolist(), "runs"
    # The reference labels the runs after the join (_owned_blocks); the compiled placement with them, with no tail.
    assert expected.labels is None and (got.labels is None) == (got.tagged < len(got.order))
    if got.labels is not None:
        with pytest.MonkeyPatch.context() as mp, on_path(mp, pure=True):
            want_labels = _run_labels(tree, expected.runs[1])  # type: ignore[arg-type]
        assert got.labels == want_labels
        assert [[type(v) for v in values] for values in got.labels.values()] == [[type(v) for v in values] for values in want_labels.values()]


@settings(max_examples=500, deadline=None)
@given(_pages())
def test_the_compiled_placement_is_the_reference(page) -> None:
    _same(*_both(page), page[1])


def test_the_first_of_two_refs_with_one_key_ranks_and_one_sequence_keeps_its_order() -> None:
    table = _table([5, 2**32, 5, 9, 5, -1], [0, 0, 0, 0, 0, 0], [False, False, False, False, True, False])
    refs = _refs(
        (0, 1, 0),  # key 1 << 32: glyph 1's, whose MCID is 2**32
        (5, 0, 1),
        (5, 0, 2),  # the same key again: ref 1 wins
        before=2,  # another page's rows: (stream 9, MCID 0) and MCID 5 of stream 0 again, never looked up
    )
    tree = _tree([0, 3, 2, 3, 4, 5], [-1] * _ELEMENTS, {})
    expected, got = _both((table, tree, refs, np.arange(6, dtype=np.int64), ExtractConfig()))
    _same(expected, got, tree)
    # Glyph 4 is an artifact (left out); 3 (MCID 9) and 5 (no MCID) are the tail, two untagged.
    assert got.order.tolist() == [1, 0, 2, 3, 5] and got.tagged == 3 and got.untagged == 2
    # Glyph 1 is element 0's (block owner 0), 0 and 2 element 1's (owner 3): two runs, the tail after.
    assert got.runs[0].tolist() == [0, 1] and got.runs[1].tolist() == [0, 3]
    assert got.owner_of_glyph().tolist() == [3, 0, 3, -1, -1, -1] and got.labels is None
    assert got.starts.tolist() == [False, True, False, True, False]


def test_an_actual_text_element_replaces_the_text_of_its_glyphs() -> None:
    table = _table([0, 0, 1], [0, 0, 0], [False, False, False])
    refs = _refs((0, 0, 1), (1, 0, 2), after=2)
    tree = _tree([0, 1, 2, 3, 4, 5], [-1, 1, -1, -1, -1, -1], {1: "fi"})
    expected, got = _both((table, tree, refs, np.arange(3, dtype=np.int64), ExtractConfig()))
    _same(expected, got, tree)
    assert got.table.text.tolist() == ["fi", "g1", "g2"] and got.order.tolist() == [0, 2]
    # No tail: the runs (elements 1 and 2, each its own block owner) are labelled with the placement.
    assert got.labels is not None and got.labels["struct_type"] == ["TH", "H2"] and got.labels["alt"] == ["a photo", None]


def test_an_empty_actual_text_drops_its_glyphs_and_the_tail_follows_what_stays() -> None:
    # Element 1 owns MCIDs 0 and 1 with /ActualText "" (no text); element 2's
    # /ActualText is "ff"; glyph 5 (MCID 7) is the tail.
    table = _table([0, 1, 2, 2, 0, 7], [0] * 6, [False] * 6)
    refs = _refs((0, 0, 1), (1, 0, 1), (2, 0, 2))
    tree = _tree([0, 1, 2, 3, 4, 5], [-1, 1, 2, -1, -1, -1], {1: "", 2: "ff"})
    expected, got = _both((table, tree, refs, np.arange(6, dtype=np.int64), ExtractConfig()))
    _same(expected, got, tree)
    assert got.order.tolist() == [2, 5] and got.tagged == 1 and got.runs[1].tolist() == [2]
    assert got.table.text.tolist() == ["", "g1", "ff", "g3", "g4", "g5"]
    assert got.owner_of_glyph().tolist() == [-1, -1, 2, -1, -1, -1] and got.starts.tolist() == [False, True]


def test_bad_indices_are_refused() -> None:
    def call(
        candidates: list[int], ref_element: list[int], actual_owner: tuple[int, int] = (-1, -1), rows: tuple[int, int] | None = None
    ) -> None:
        n = len(candidates)
        lo, hi = rows if rows is not None else (0, len(ref_element))
        i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
        _core.structure_order(
            i64(candidates), i64([0] * 3), i64([0] * 3), np.zeros(3, dtype=bool), False, -1,
            i64([0] * len(ref_element)), i64(ref_element), lo, hi, i64([0, 0]), i64(actual_owner), {0: "x", 1: "y"},
            np.empty(n, dtype=np.int64), np.empty(n, dtype=bool), np.empty(max(hi - lo, 0), dtype=np.int64),
            np.empty(max(hi - lo, 0), dtype=np.int64),
        )  # fmt: skip

    call([0, 2], [1])
    call([0, 2], [1], (-1, 0))  # element 1's text is element 0's
    call([0, 2], [2, 1, 5], rows=(1, 2))  # only the page's rows are read: elements 2 and 5 are another page's
    for candidates, ref_element in (([3], [0]), ([-1], [0]), ([0], [2]), ([0], [-1])):
        with pytest.raises(IndexError, match="out of range"):
            call(candidates, ref_element)
    with pytest.raises(IndexError, match="out of range"):  # an /ActualText owner is an element
        call([0, 2], [1], (-1, 2))
    for rows in ((-1, 0), (1, 0), (0, 2)):  # the page's rows are rows of the content
        with pytest.raises(IndexError, match="out of range"):
            call([0], [0], rows=rows)


@pytest.mark.slow
def test_the_compiled_placement_is_the_reference_on_every_tagged_corpus_page(corpus) -> None:
    """Every page of every tagged corpus file, placed by its own tree: the
    kernel's runs meet real sequences (thousands of glyphs, artifacts between
    them, forms' streams, /ActualText)."""
    placed = 0
    for relpath in tagged_paths():
        try:
            document = open_document(corpus / relpath)
        except PDFReadError:
            continue  # encrypted or damaged past opening: no page is read
        with document:
            tree = document.struct_tree
            if tree is None:
                continue
            for number in range(1, document.page_count + 1):
                table = document.page_glyphs(number).table
                refs = tree.page_content_rows(document.pdf.pages[number - 1].obj.objgen)
                for config in (ExtractConfig(), ExtractConfig(include_artifacts=True)):
                    expected, got = _both((table, tree, refs, table.text_rows, config))
                    _same(expected, got, tree)
                    owner_of_glyph = got.owner_of_glyph()
                    _same_runs(*on_both_paths(partial(_owner_runs, owner_of_glyph, got.order)))
                    _same_runs(_owner_runs(owner_of_glyph, got.order), _placed_runs(got))
                    placed += got.tagged
    assert placed > 100_000


# -- the runs of one block owner over the emitted glyphs (reading._owner_runs) --


def _same_runs(expected: tuple[np.ndarray, np.ndarray] | None, got: tuple[np.ndarray, np.ndarray] | None) -> None:
    assert (got is None) == (expected is None)
    if got is not None and expected is not None:
        for want, have in zip(expected, got, strict=True):
            assert have.dtype == want.dtype and have.tolist() == want.tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-1, 3), max_size=30).flatmap(
    lambda owners: st.tuples(st.just(owners), st.lists(st.integers(0, max(len(owners) - 1, 0)), max_size=40 if owners else 0))
))  # fmt: skip
def test_the_compiled_owner_runs_are_the_reference(case) -> None:
    owners, order = case
    owner_of_glyph, positions = np.array(owners, dtype=np.int64), np.array(order, dtype=np.int64)
    _same_runs(*on_both_paths(lambda: _owner_runs(owner_of_glyph, positions)))


def test_a_run_starts_where_the_owner_changes_and_the_tail_gives_none() -> None:
    owner_of_glyph = np.array([4, 4, 7, -1, 7], dtype=np.int64)
    expected, got = on_both_paths(lambda: _owner_runs(owner_of_glyph, np.array([1, 0, 2, 4, 0, 2], dtype=np.int64)))
    _same_runs(expected, got)
    assert got is not None
    assert got[0].tolist() == [0, 2, 4, 5] and got[1].tolist() == [4, 7, 4, 7]
    # Row 3 is the tail's (owner -1): its runs are split by geometry too, elsewhere.
    _same_runs(*on_both_paths(lambda: _owner_runs(owner_of_glyph, np.array([0, 3], dtype=np.int64))))
    assert _owner_runs(owner_of_glyph, np.array([0, 3], dtype=np.int64)) is None


def test_owner_runs_refuses_an_order_index_out_of_range() -> None:
    owner_of_glyph, out = np.zeros(3, dtype=np.int64), np.empty(1, dtype=np.int64)
    for row in (3, -1):
        with pytest.raises(IndexError, match="out of range"):
            _core.owner_runs(owner_of_glyph, np.array([row], dtype=np.int64), out, out.copy())


@settings(max_examples=300, deadline=None)
@given(_pages())
def test_the_runs_read_off_a_placement_are_its_owner_runs(page) -> None:
    """_placed_runs (the runs the placement made, on either path) against
    _owner_runs over its order: the tail, /ActualText drops and owners
    repeated across refs included."""
    table, tree, refs, _, config = page
    for placed in _both(page):
        _same_runs(_owner_runs(placed.owner_of_glyph(), placed.order), _placed_runs(placed))
        # Where a tail follows, the runs still cover the placed glyphs: they begin at 0 and where `starts` says.
        assert placed.runs[0].tolist() == [p for p in range(placed.tagged) if p == 0 or placed.starts[p]]
        # Each placed glyph's owner is the block owner of its ref's element (the first ref of its key on the page).
        page_refs = refs.refs()
        element_of_key = {}
        for key, element in zip(page_refs.key.tolist(), page_refs.element.tolist(), strict=True):
            element_of_key.setdefault(key, element)
        rows = placed.order[: placed.tagged]
        keys = (table.mcid_stream[rows] << 32 | table.mcid[rows]).tolist()
        assert placed.placed_owners().tolist() == [int(tree.block_owners[element_of_key[k]]) for k in keys]


def test_with_texts_is_the_table_with_those_rows_texts_replaced() -> None:
    """reading._with_texts (how /ActualText reaches its carriers' rows):
    every column the table's own but the text, and the rows with text found
    from the new text, not carried over from the old table's."""
    table = _table([0, 0, 1], [0, 0, 0], [False, False, False])
    assert table.text_rows.tolist() == [0, 1, 2]  # found, and cached on the old table
    got = _with_texts(table, np.array([0, 2]), ["", "Z"])
    assert got.text.tolist() == ["", "g1", "Z"] and table.text.tolist() == ["g0", "g1", "g2"]
    assert got.text_rows.tolist() == [1, 2]  # row 0 carries no text now
    for field in dataclasses.fields(GlyphTable):
        if field.name != "text":
            assert getattr(got, field.name) is getattr(table, field.name), field.name
    assert repr(got) == repr(dataclasses.replace(table, text=got.text))
