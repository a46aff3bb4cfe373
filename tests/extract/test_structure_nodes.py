"""The node walk (_core.TreeObjects, structure_objects.py / structure.py):
the object streams' bytes parsed into nodes once, the structure tree walked
over them, and plain values made only of what Python asks for. It must give
the tree the walks of plain values give (_core.walk_struct, and _Walker's own
steps, the reference), or leave the tree to them."""

from __future__ import annotations

import csv
import io
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pikepdf
import pytest
from corpusdir import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pikepdf import Array, Dictionary, Name, String
from pdfbuilder import PdfBuilder

from ragprep.extract import reading, structure
from ragprep.extract.native import compiled_core
from ragprep.extract.structure_columns import ContentColumns, ElementColumns, StructElement
from ragprep.extract.structure_objects import PlainObjects

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))
from node_fuzz import _read as _read_stream  # noqa: E402  (fuzz/ is no package)
from node_fuzz import _objects as _stream_objects  # noqa: E402
from node_fuzz import _stream, _values_agree  # noqa: E402
from tree_fuzz import _values  # noqa: E402

needs_core = pytest.mark.skipif(
    compiled_core() is None or not hasattr(compiled_core(), "TreeObjects"), reason="the compiled core is not built"
)


def _read(pdf: pikepdf.Pdf, monkeypatch: pytest.MonkeyPatch, *, nodes: bool, compiled: bool = True) -> Any:
    with monkeypatch.context() as m:
        m.setattr(structure._Walker, "_node_walk", nodes)
        if not compiled:
            m.setattr(structure._Walker, "_compiled_walk", lambda self: None)
        return structure.read_struct_tree(pdf)


def _read_by_reference(pdf: pikepdf.Pdf, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[StructElement]]:
    """The tree by _Walker's own steps, and the StructElements that walk made itself."""
    own: list[StructElement] = []
    real = structure._Walker._tree

    def spy(self: Any) -> Any:
        own.extend(self._elements)
        return real(self)

    with monkeypatch.context() as m:
        m.setattr(structure._Walker, "_tree", spy)
        return _read(pdf, monkeypatch, nodes=False, compiled=False), own


def _assert_same_columns(a: Any, b: Any, where: object) -> None:
    """Two trees' columns (structure_columns.py) equal, field by field."""
    for name, x, y in zip(ElementColumns._fields, a.columns, b.columns, strict=True):
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype == np.int64 and np.array_equal(x, y), (where, name)
        else:
            assert (list(x) == list(y)) if name == "lang" else (x == y), (where, name)
    for name, x, y in zip(ContentColumns._fields, a.content, b.content, strict=True):
        assert x.dtype == y.dtype == np.int64 and np.array_equal(x, y), (where, name)
    # The whole-tree columns, which the node walk makes itself (StructTree.whole_columns).
    for name in ("block_owners", "content_keys"):
        x, y = getattr(a._tables, name), getattr(b._tables, name)
        assert x.dtype == y.dtype == np.int64 and np.array_equal(x, y), (where, name)
    assert a._tables.page_offsets == b._tables.page_offsets, (where, "page_offsets")


def _walked_by_nodes(pdf: pikepdf.Pdf, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Did the node walk give the tree (rather than leave it to the walks of plain values)?"""
    answers: list[bool] = []
    real = structure._Walker.run_over_nodes

    def spy(self: Any) -> Any:
        tree = real(self)
        answers.append(tree is not None)
        return tree

    with monkeypatch.context() as m:
        m.setattr(structure._Walker, "run_over_nodes", spy)
        structure.read_struct_tree(pdf)
    return answers == [True]


def _in_streams(b: PdfBuilder) -> pikepdf.Pdf:
    out = io.BytesIO()
    b.pdf.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    return pikepdf.open(io.BytesIO(out.getvalue()))


def _rich_tree() -> PdfBuilder:
    """A tree with every kind of kid the node walk reads itself: MCIDs, MCRs
    (one with /Stm), an OBJR, nested /K arrays, a cell with attributes, a
    heading in a section, /ActualText, /Alt, /Lang, a role map, an element in
    a namespace, content with no /Pg (placed through /ParentTree), a cycle
    and a kid listed twice."""
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica")
    content = " ".join(f"/P <</MCID {i}>> BDC BT /{font} 12 Tf 72 {700 - 20 * i} Td (t{i}) Tj ET EMC" for i in range(8))
    b.add_page(content)
    page = b.pdf.pages[0]
    form = b.pdf.make_stream(b"/P <</MCID 0>> BDC EMC")
    cell = b.struct_element("TD", [3], attrs={"O": "/Table", "RowSpan": 2, "Scope": "/Row"})
    table = b.struct_element("Table", [b.struct_element("TR", [cell, b.struct_element("TH", [4])])])
    heading = b.struct_element("H", [0], actual_text="Head", lang="en")
    paragraph = b.struct_element("Para", [1, b.mcr(2, page=page), b.mcr(0, page=page, stream=form)])
    section = b.struct_element("Sect", [heading, paragraph, table])
    figure = b.struct_element("Figure", [5], alt="a figure")
    orphan = b.struct_element("Span", [6])
    namespace = b.pdf.make_indirect(Dictionary(Type=Name.Namespace, NS=String("http://iso.org/pdf2/ssn")))
    titled = b.struct_element("Title", [7])
    titled.NS = namespace
    document = b.struct_element("Document", [section, figure, orphan, titled], page=page, lang="fr")
    b.set_struct_tree([document], role_map={"Para": "P"})
    orphan.K = Array([Array([6])])  # an array in /K, and content whose /Pg is nowhere
    figure.K.append(b.pdf.make_indirect(Dictionary(Type=Name.OBJR, Obj=page.obj, Pg=page.obj)))
    figure.K.append(section)  # reached a second time
    heading.K.append(document)  # a cycle
    del document.Pg
    section.Pg = page.obj
    figure.Pg = page.obj
    titled.Pg = page.obj
    return b


@needs_core
def test_the_node_walk_reads_the_builder_tree_as_the_walks_of_plain_values(monkeypatch: pytest.MonkeyPatch):
    pdf = _in_streams(_rich_tree())
    assert _walked_by_nodes(pdf, monkeypatch)
    by_nodes = _read(pdf, monkeypatch, nodes=True)
    assert by_nodes == _read(pdf, monkeypatch, nodes=False) == _read(pdf, monkeypatch, nodes=False, compiled=False)
    types = [e.type for e in by_nodes.elements]
    assert types[:3] == ["Document", "Sect", "H"] and "P" in types and "Title" in types
    assert any(r.stream > 0 for refs in by_nodes.page_content.values() for r in refs)  # the MCR's /Stm
    assert sum(by_nodes.object_refs.values()) == 1
    messages = " ".join(w.message for w in by_nodes.warnings)
    assert "cycle" in messages and "second time" in messages and "/ParentTree" in messages
    cell = next(e for e in by_nodes.elements if e.type == "TD")
    assert (cell.row_span, cell.scope) == (2, "Row")


@needs_core
def test_the_node_walk_writes_the_columns_the_walks_of_plain_values_make(monkeypatch: pytest.MonkeyPatch):
    pdf = _in_streams(_rich_tree())
    assert _walked_by_nodes(pdf, monkeypatch)
    by_nodes = _read(pdf, monkeypatch, nodes=True)
    reference, own = _read_by_reference(pdf, monkeypatch)
    _assert_same_columns(by_nodes, _read(pdf, monkeypatch, nodes=False), "compiled walk")
    _assert_same_columns(by_nodes, reference, "reference")
    assert list(by_nodes.elements) == own and len(own) > 10
    assert by_nodes.columns.actual_text and by_nodes.columns.alt and by_nodes.columns.cells  # sparse columns exercised
    assert len(by_nodes.content.page) > 5 and dict(by_nodes.page_content) == dict(reference.page_content)


@needs_core
def test_the_node_walk_makes_the_whole_tree_columns_tree_tables_makes(monkeypatch: pytest.MonkeyPatch):
    # Block owners of a block type, of a role-mapped one and of one in a
    # namespace; content on a page and in a form; pages with and without content.
    pdf = _in_streams(_rich_tree())
    by_nodes = _read(pdf, monkeypatch, nodes=True)
    assert by_nodes.whole_columns is not None and _read(pdf, monkeypatch, nodes=False).whole_columns is None
    c = by_nodes.columns
    owns = np.array([structure._owns_block(std) for _, std in c.type_names], dtype=bool)
    reference = structure._reference_whole_tree_columns(c.parent, c.type, owns, by_nodes.content, len(c.page_keys))
    owners, keys, offsets = reference
    made_owners, made_keys, made_offsets = by_nodes.whole_columns
    assert made_owners.dtype == made_keys.dtype == np.int64
    assert np.array_equal(made_owners, owners) and np.array_equal(made_keys, keys)
    assert made_offsets == offsets.tolist() and made_offsets[-1] == len(by_nodes.content.page) > 5
    assert not np.array_equal(made_owners, np.arange(len(made_owners)))  # some element's owner is above it


@needs_core
def test_block_labels_read_from_the_columns_are_the_walks_element_fields(monkeypatch: pytest.MonkeyPatch):
    pdf = _in_streams(_rich_tree())
    reference, own = _read_by_reference(pdf, monkeypatch)
    rows = np.array([*range(len(own) - 1, -1, -1), 2, 0, 2], dtype=np.int64)  # any order, rows repeated
    expected = [(e.type, e.path, e.heading_level, e.lang, e.header_cell, e.alt) for e in (own[i] for i in rows.tolist())]
    for tree in (_read(pdf, monkeypatch, nodes=True), reference):
        assert list(zip(*tree.labels(rows), strict=True)) == expected
    # Runs outside the structure (owner -1) get the tail's label, the others their element's.
    labels = reading._run_labels(reference, np.array([-1, 3, -1, 5], dtype=np.int64))
    tail = (reading._TAIL.type, reading._TAIL.path, None, None, False, None)
    owned = [(e.type, e.path, e.heading_level, e.lang, e.header_cell, e.alt) for e in (own[3], own[5])]
    assert list(zip(*(labels[name] for name, _ in reading._LABEL_FIELDS), strict=True)) == [tail, owned[0], tail, owned[1]]


def _nested_sections(depth: int) -> PdfBuilder:
    """Sections nested `depth` deep, each with a P and a Para (role-mapped to
    P) over one MCID each: every path but the deepest twice, once by each name."""
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica")
    b.add_page(" ".join(f"/P <</MCID {i}>> BDC BT /{font} 9 Tf 72 {760 - 8 * i} Td (m{i}) Tj ET EMC" for i in range(2 * depth)))
    inner: list[Any] = []
    for level in range(depth):
        inner = [b.struct_element("Sect", [b.struct_element("P", [2 * level]), b.struct_element("Para", [2 * level + 1]), *inner])]
    b.set_struct_tree([b.struct_element("Document", inner, page=b.pdf.pages[0])], role_map={"Para": "P"})
    return b


@needs_core
def test_elements_of_one_path_share_its_row_whichever_walk_read_them(monkeypatch: pytest.MonkeyPatch):
    depth = 40  # 121 elements, 81 paths: more than the node walk's first table of path steps holds
    pdf = _in_streams(_nested_sections(depth))
    assert _walked_by_nodes(pdf, monkeypatch)
    reference, own = _read_by_reference(pdf, monkeypatch)
    by_nodes = _read(pdf, monkeypatch, nodes=True)
    _assert_same_columns(by_nodes, reference, "nested sections")
    for tree in (by_nodes, reference, _read(pdf, monkeypatch, nodes=False)):
        names = tree.columns.path_names
        assert tree.size == 3 * depth + 1 and len(names) == 2 * depth + 1 and len(set(names)) == len(names)
        assert [names[row] for row in tree.columns.path.tolist()] == [e.path for e in own]
    assert own[2].path == own[3].path == ("Document", "Sect", "P") and own[3].raw_type == "Para"


@needs_core
def test_a_file_without_object_streams_is_walked_over_its_own_bytes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    # Its objects, read from the file where qpdf reads them (_WrittenObjects),
    # are the nodes: the node walk reads the tree itself, as the walks of
    # plain values (each object through qpdf) read it. From memory, or
    # encrypted, the file's bytes are not what qpdf reads: the walks of
    # plain values read the tree, as before.
    built = _rich_tree()
    path = tmp_path / "written.pdf"
    built.pdf.save(path, object_stream_mode=pikepdf.ObjectStreamMode.disable)
    encrypted = tmp_path / "encrypted.pdf"
    encrypted.write_bytes(built.encrypted_bytes(user_password=""))
    with pikepdf.open(path) as pdf:
        assert not any(entry.type == 2 for entry in pdf.get_xref_table().values())
        assert _walked_by_nodes(pdf, monkeypatch)
        by_nodes = _read(pdf, monkeypatch, nodes=True)
        reference, own = _read_by_reference(pdf, monkeypatch)
        assert by_nodes == _read(pdf, monkeypatch, nodes=False) == reference
        _assert_same_columns(by_nodes, reference, "written objects")
        assert list(by_nodes.elements) == own and len(own) > 10
    for other in (pikepdf.open(io.BytesIO(path.read_bytes())), pikepdf.open(encrypted)):
        with other as pdf:
            assert not _walked_by_nodes(pdf, monkeypatch)
            assert _read(pdf, monkeypatch, nodes=True) == by_nodes


_TYPES = ("P", "H", "H2", "Sect", "Div", "Span", "Figure", "Table", "TR", "TD", "TH", "Para", "L", "LI")


@st.composite
def _random_tree(draw: st.DrawFn) -> PdfBuilder:
    """A tree of drawn elements (types, a role map entry, /Alt, /ActualText,
    /Lang, cell attributes) over MCIDs on two pages, /Pg on some elements only
    (content with none is dropped: no /ParentTree), MCRs, an MCID twice."""
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica")
    content = " ".join(f"/P <</MCID {i}>> BDC BT /{font} 12 Tf 72 {700 - 20 * i} Td (t{i}) Tj ET EMC" for i in range(6))
    pages = [b.add_page(content), b.add_page(content)]
    count = draw(st.integers(1, 24))
    elements: list[Any] = []
    for _ in range(count):
        kids: list[Any] = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["mcid", "mcr", "element"]))
            if kind == "element" and elements:
                kids.append(elements.pop(draw(st.integers(0, len(elements) - 1))))
            elif kind == "mcr":
                kids.append(b.mcr(draw(st.integers(0, 5)), page=pages[draw(st.integers(0, 1))]))
            else:
                kids.append(draw(st.integers(0, 5)))
        struct_type = draw(st.sampled_from(_TYPES))
        page = draw(st.sampled_from([None, 0, 1]))
        texts = {key: draw(st.sampled_from([None, "x", "y\u00e9"])) for key in ("actual_text", "alt", "lang")}
        attrs = {"O": "/Table", "RowSpan": draw(st.integers(0, 3)), "Scope": "/Row"} if struct_type in ("TD", "TH") and draw(st.booleans()) else None
        elements.append(b.struct_element(struct_type, kids, page=pages[page] if page is not None else None, attrs=attrs, **texts))
    b.set_struct_tree(elements, role_map={"Para": "P"}, parent_tree=False)  # content with no page: dropped, warned
    return b


@needs_core
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(_random_tree())
def test_the_node_walk_writes_the_reference_columns_on_drawn_trees(monkeypatch: pytest.MonkeyPatch, built: PdfBuilder):
    pdf = _in_streams(built)
    by_nodes = _read(pdf, monkeypatch, nodes=True)
    reference, own = _read_by_reference(pdf, monkeypatch)
    assert _walked_by_nodes(pdf, monkeypatch)
    _assert_same_columns(by_nodes, reference, "drawn tree")
    assert list(by_nodes.elements) == own and by_nodes == reference


@needs_core
@pytest.mark.parametrize("change", ["pg_not_a_page", "direct_namespace", "s_not_a_name"])
def test_what_the_node_walk_leaves_is_read_by_the_walks_of_plain_values(monkeypatch: pytest.MonkeyPatch, change: str):
    b = _rich_tree()
    element = b.pdf.Root.StructTreeRoot.K[0].K[0]  # the Sect
    if change == "pg_not_a_page":
        element.Pg = b.pdf.make_indirect(Dictionary(Type=Name.Font))
    elif change == "direct_namespace":
        element.NS = Dictionary(Type=Name.Namespace, NS=String("http://iso.org/pdf2/ssn"))
    else:
        element.S = String("Sect")
    pdf = _in_streams(b)
    assert not _walked_by_nodes(pdf, monkeypatch)
    assert _read(pdf, monkeypatch, nodes=True) == _read(pdf, monkeypatch, nodes=False, compiled=False)


@needs_core
def test_the_nodes_hand_over_values_as_parse_objects_does(monkeypatch: pytest.MonkeyPatch):
    """value(number) of every object of the streams: parse_objects' value, or
    NotImplemented (qpdf's to read) where parse_objects leaves it out."""
    pdf = _in_streams(_rich_tree())
    lazy, eager = PlainObjects(pdf), PlainObjects(pdf)
    lazy.resolve(pdf.Root.objgen)
    eager.resolve(pdf.Root.objgen)
    eager.fill_cache()
    in_streams = [ref for ref, entry in pdf.get_xref_table().items() if entry.type == 2]
    assert lazy.nodes is not None and eager.nodes is None and len(in_streams) > 10
    for ref in in_streams:
        value = lazy.nodes.value(ref[0])
        assert (value is NotImplemented) == (ref not in eager.cache), ref
        assert value is NotImplemented or value == eager.cache[ref], ref


def _tagged_corpus() -> list[Path]:
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with open(manifest, encoding="utf-8") as handle:
        return [CORPUS / row["path"] for row in csv.DictReader(handle, delimiter="\t") if row["tagged"] == "yes"]


@needs_core
@pytest.mark.slow
def test_the_node_walk_equals_the_walks_of_plain_values_on_the_tagged_corpus(monkeypatch: pytest.MonkeyPatch):
    files = _tagged_corpus()
    if not files:
        pytest.skip(f"no corpus at {CORPUS}")
    walked = 0
    for path in files:
        try:
            with pikepdf.open(path) as pdf:
                by_nodes = _read(pdf, monkeypatch, nodes=True)
                by_nodes_alone = _walked_by_nodes(pdf, monkeypatch)
        except (pikepdf.PdfError, pikepdf.PasswordError):
            continue  # encrypted or damaged past opening: the tree is never read
        with pikepdf.open(path) as pdf:
            by_values = _read(pdf, monkeypatch, nodes=False)
            assert by_nodes == by_values, path
        with pikepdf.open(path) as pdf:
            reference, own = _read_by_reference(pdf, monkeypatch)
            assert by_nodes == reference, path
        if by_nodes is not None:
            _assert_same_columns(by_nodes, by_values, path)
            _assert_same_columns(by_nodes, reference, path)
            assert list(reference.elements) == own, path  # the columns keep every field of the walk's elements
        walked += len(by_nodes.elements) if by_nodes and by_nodes_alone else 0
    assert walked > 25_000  # the node walk reads most of the corpus's trees itself


def _table_of_attributed_cells() -> PdfBuilder:
    """A table whose cells carry table attributes in every form §14.7.5.2
    allows and some it does not: /A a dictionary, a reference, an array of
    them with revision numbers, an owner other than /Table; /C a class or
    classes through /ClassMap (an entry an array); spans that are not
    positive integers, a span through a reference, /Scope, /Headers with
    items that are not strings, /ID (a string, a name), a cell written
    directly in its row's /K, and references to missing objects."""
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica")
    b.add_page(" ".join(f"/P <</MCID {i}>> BDC BT /{font} 9 Tf 72 {700 - 12 * i} Td (c{i}) Tj ET EMC" for i in range(16)))
    pdf = b.pdf
    missing = pdf.make_indirect(Dictionary())  # deleted below: a reference to a missing object
    table_attrs = Dictionary(O=Name.Table, RowSpan=3, ColSpan=2, Scope=Name.Column, Headers=Array([String("h1"), String("h2")]))
    forms: list[dict[str, Any]] = [
        {"A": table_attrs},
        {"A": pdf.make_indirect(Dictionary(O=Name.Table, ColSpan=pdf.make_indirect(4), Scope=Name.Both))},
        {"A": Array([Dictionary(O=Name.Table, RowSpan=2), 0, pdf.make_indirect(Dictionary(O=Name.Table, RowSpan=5)), 1])},
        {"A": Dictionary(O=Name.Layout, RowSpan=7)},
        {"A": Dictionary(O=Name.Table, RowSpan=0, ColSpan=-1, Scope=Name.Bogus)},
        {"A": Dictionary(O=Name.Table, RowSpan=Name.Two, ColSpan=2.5, Headers=Array([1, String("x"), Name.y, missing]))},
        {"C": Name.Wide},
        {"C": Array([Name.Wide, Name.Tall, Name.Nowhere, 3]), "A": Dictionary(O=Name.Table, ColSpan=9)},
        {"C": Name.Listed, "ID": String("cell-9")},
        {"ID": Name.notastring},
        {"ID": String("only-an-id")},
        {"A": missing, "ID": missing},
        {"A": pdf.make_indirect(Array([pdf.make_indirect(Dictionary(O=Name.Table, Headers=pdf.make_indirect(Array([String("r")]))))]))},
    ]
    cells = []
    for i, form in enumerate(forms):
        cell = b.struct_element("TH" if i % 2 else "TD", [i])
        for key, value in form.items():
            cell[Name("/" + key)] = value
        cells.append(cell)
    direct = Dictionary(Type=Name.StructElem, S=Name.TD, K=Array([14]), A=Dictionary(O=Name.Table, RowSpan=6), ID=String("d"))
    rows = [b.struct_element("TR", cells[:7]), b.struct_element("TR", cells[7:]), b.struct_element("TR", [])]
    rows[2].K = Array([direct])
    table = b.struct_element("Table", rows, page=b.pdf.pages[0])
    b.set_struct_tree([table])
    pdf.Root.StructTreeRoot.ClassMap = Dictionary(
        Wide=Dictionary(O=Name.Table, ColSpan=3),
        Tall=pdf.make_indirect(Dictionary(O=Name.Table, RowSpan=4, ColSpan=1)),
        Listed=Array([Dictionary(O=Name.Table, Scope=Name.Row), pdf.make_indirect(Dictionary(O=Name.Table, RowSpan=2))]),
    )
    del pdf.objects[missing.objgen[0] - 1]  # its reference now names no object
    return b


@needs_core
def test_the_node_walk_reads_cell_attributes_itself_as_python_does(monkeypatch: pytest.MonkeyPatch):
    pdf = _in_streams(_table_of_attributed_cells())
    assert _walked_by_nodes(pdf, monkeypatch)
    asked: list[Any] = []
    real = structure._Walker._cell_attributes
    with monkeypatch.context() as m:
        m.setattr(structure._Walker, "_cell_attributes", lambda self, obj: asked.append(obj) or real(self, obj))
        by_nodes = _read(pdf, monkeypatch, nodes=True)
    assert asked == []  # every cell read over the nodes, none handed to Python
    with monkeypatch.context() as m:
        m.setattr(structure._Walker, "_cell_nodes", False)
        by_python = _read(pdf, monkeypatch, nodes=True)
    assert by_nodes == by_python == _read(pdf, monkeypatch, nodes=False) == _read(pdf, monkeypatch, nodes=False, compiled=False)
    cells = [e for e in by_nodes.elements if e.type in ("TH", "TD")]
    assert len(cells) == 14
    as_read = [(c.row_span, c.col_span, c.scope, c.headers, c.element_id) for c in cells]
    assert as_read[0] == (3, 2, "Column", ("h1", "h2"), None)
    assert as_read[1] == (1, 4, "Both", (), None)  # the span through a reference
    assert as_read[2][0] == 5  # the later object of the array wins
    assert as_read[3] == (1, 1, None, (), None)  # not owned by /Table
    assert as_read[4] == as_read[5][:2] + (None, (), None) == (1, 1, None, (), None)
    assert as_read[5][3] == ("x",)
    assert as_read[6][1] == 3 and as_read[7][:2] == (4, 9)  # classes, then /A over them
    assert as_read[8] == (2, 1, "Row", (), "cell-9")
    assert as_read[9][4] is None and as_read[10][4] == "only-an-id" and as_read[11] == (1, 1, None, (), None)
    assert as_read[12][3] == ("r",) and as_read[13][:1] + as_read[13][4:] == (6, "d")
    complaints = [w for w in by_nodes.warnings if w.message.startswith("table cell")]
    assert [w.message for w in complaints] == [
        "table cell /RowSpan is not a positive integer; 1 used",
        "table cell /ColSpan is not a positive integer; 1 used",
    ]


def _class_mapped(written: str, classes: bool) -> pikepdf.Pdf:
    """_table_of_attributed_cells with its /ClassMap `written` indirect or
    direct, a dictionary or not (an array of it), saved with object
    streams; its cells' /C kept or (`classes` False) taken out."""
    b = _table_of_attributed_cells()
    root = b.pdf.Root.StructTreeRoot
    entries = root.ClassMap if "not" not in written else Array([root.ClassMap])
    root.ClassMap = b.pdf.make_indirect(entries) if written.startswith("indirect") else entries
    if not classes:
        for number in range(1, len(b.pdf.objects) + 1):
            obj = b.pdf.get_object(number, 0)
            if isinstance(obj, Dictionary) and "/C" in obj:
                del obj["/C"]
    return _in_streams(b)


@needs_core
@pytest.mark.parametrize("written", ["indirect", "direct, not a dictionary", "indirect, not a dictionary"])
def test_the_class_map_is_read_where_a_cell_names_a_class(monkeypatch: pytest.MonkeyPatch, written: str):
    """/ClassMap read as the root writes it, at the first cell with /C: an
    indirect one (in the object streams) gives the node walk the classes
    Python's walkers read through it; one that is no dictionary is no class map."""
    pdf = _class_mapped(written, classes=True)
    assert _walked_by_nodes(pdf, monkeypatch)
    by_nodes = _read(pdf, monkeypatch, nodes=True)
    assert by_nodes == _read(pdf, monkeypatch, nodes=False) == _read(pdf, monkeypatch, nodes=False, compiled=False)
    wide = [e for e in by_nodes.elements if e.type in ("TH", "TD")][6]  # /C Wide: /ColSpan 3 through the class map
    assert wide.col_span == (3 if written == "indirect" else 1)


@needs_core
def test_a_tree_whose_cells_name_no_class_never_reads_the_class_map(monkeypatch: pytest.MonkeyPatch):
    """The /ClassMap object is not resolved where no cell has /C (it was, as
    the walker began: a class map of hundreds of entries parsed for nothing)."""
    for classes in (False, True):
        pdf = _class_mapped("indirect", classes)
        ref = pdf.Root.StructTreeRoot.ClassMap.objgen
        asked: list[Any] = []
        real = PlainObjects.resolve
        with monkeypatch.context() as m:
            m.setattr(PlainObjects, "resolve", lambda self, r, real=real, asked=asked: asked.append(r) or real(self, r))
            by_nodes, by_python = _read(pdf, monkeypatch, nodes=True), _read(pdf, monkeypatch, nodes=False, compiled=False)
        assert by_nodes == by_python
        # The Python walker resolves it where a cell names a class; no walk does where none does.
        assert (ref in asked) == classes


def _orphans_in_streams() -> tuple[pikepdf.Pdf, set[tuple[int, int]]]:
    """Two pages whose elements' content has no /Pg (placed through
    /ParentTree), saved with object streams; and the elements /ParentTree lists."""
    b = PdfBuilder()
    pages = [b.add_page(""), b.add_page("")]
    elements = [b.struct_element("P", [0], page=pages[0]), b.struct_element("P", [0, 1], page=pages[1])]
    b.set_struct_tree(elements)  # writes /ParentTree and /StructParents
    for element in elements:
        del element["/Pg"]
    elements[1].K.append(5)  # not in /ParentTree: dropped
    pdf = _in_streams(b)
    nums = pdf.Root.StructTreeRoot.ParentTree.Nums
    return pdf, {owner.objgen for owners in list(nums)[1::2] for owner in owners}


@needs_core
def test_the_parent_tree_owners_are_checked_without_a_plain_value_each(monkeypatch: pytest.MonkeyPatch):
    pdf, owners = _orphans_in_streams()
    objects = PlainObjects(pdf)
    root = structure._tree_root(pdf, objects)
    assert root is not None
    by_nodes = structure._Walker(pdf, objects, root, 128).run_over_nodes()
    assert by_nodes == _read(pdf, monkeypatch, nodes=False) == _read(pdf, monkeypatch, nodes=False, compiled=False)
    assert sorted(len(refs) for refs in by_nodes.page_content.values()) == [1, 2]
    messages = [w.message for w in by_nodes.warnings]
    assert any("/ParentTree" in m for m in messages) and any("dropped" in m for m in messages)
    # The node walk read the owners in the nodes (TreeObjects.is_dict): none became a plain value.
    assert len(owners) == 2 and not owners & set(objects.cache)


@needs_core
def test_is_dict_answers_true_only_for_dictionaries_the_nodes_hold():
    pdf = _in_streams(_rich_tree())
    objects = PlainObjects(pdf)
    objects.resolve(pdf.Root.objgen)  # reads the object streams
    nodes = objects.nodes
    assert nodes is not None
    answers = {}
    for number, generation in pdf.get_xref_table():
        answer = nodes.is_dict(number)
        assert answer is True or answer is NotImplemented
        if answer is True:
            assert type(nodes.value(number)) is dict and generation == 0
        answers[number] = answer
    held_arrays = [n for n in answers if type(nodes.value(n)) is list]
    assert held_arrays and all(answers[n] is NotImplemented for n in held_arrays)
    assert sum(answer is True for answer in answers.values()) > 10
    page = pdf.pages[0].obj.objgen[0]  # a page is read through qpdf, never held
    assert nodes.is_dict(page) is NotImplemented
    assert nodes.is_dict(0) is nodes.is_dict(-1) is nodes.is_dict(10**30) is NotImplemented


@needs_core
@pytest.mark.parametrize("parent_tree", [True, False])
def test_the_node_walk_places_content_with_no_page_as_the_reference_does(monkeypatch: pytest.MonkeyPatch, parent_tree: bool):
    """Content with no /Pg anywhere in a one-page document (tw_orphan_page):
    with a /ParentTree, the page content it lists is placed through it and
    the rest dropped (a form's content by /Stm, a direct element's content);
    without one, all of it goes to the only page."""
    b = PdfBuilder()
    page = b.add_page("")
    form = b.pdf.make_stream(b"/P <</MCID 0>> BDC EMC")
    listed = b.struct_element("P", [0, b.mcr(0, stream=form)], page=page)
    b.set_struct_tree([listed], parent_tree=parent_tree)
    del listed["/Pg"]
    listed.K.append(Dictionary(Type=Name.StructElem, S=Name.Span, K=1))  # direct: /ParentTree cannot list it
    pdf = _in_streams(b)
    assert _walked_by_nodes(pdf, monkeypatch)
    by_nodes = _read(pdf, monkeypatch, nodes=True)
    assert by_nodes == _read(pdf, monkeypatch, nodes=False) == _read(pdf, monkeypatch, nodes=False, compiled=False)
    placed = sorted((r.stream > 0, r.mcid) for refs in by_nodes.page_content.values() for r in refs)
    counts = {w.message: w.count for w in by_nodes.warnings}
    if parent_tree:
        assert placed == [(False, 0)]
        assert counts[structure._M.orphan_parent_tree] == 1 and counts[structure._M.orphan_dropped] == 2
    else:
        assert placed == [(False, 0), (False, 1), (True, 0)]
        assert counts == {structure._M.orphan_one_page: 3}


@needs_core
def test_place_owners_places_a_held_array_of_held_dictionaries_and_declines_the_rest():
    """TreeObjects.place_owners, structure.py's /ParentTree owners read in the
    nodes: an array of element references (and a number, not an owner) placed
    by index, a key already set kept; an array naming a page (never held),
    and what is no held array, declined with nothing placed."""
    b = PdfBuilder()
    page = b.add_page("")
    elements = [b.struct_element("P", [0], page=page), b.struct_element("P", [1], page=page)]
    b.set_struct_tree(elements)
    b.pdf.Root.Good = b.pdf.make_indirect(Array([elements[0], 7, elements[1]]))
    b.pdf.Root.Page = b.pdf.make_indirect(Array([elements[0], page.obj]))
    pdf = _in_streams(b)
    objects = PlainObjects(pdf)
    objects.resolve(pdf.Root.objgen)  # reads the object streams
    nodes = objects.nodes
    assert nodes is not None
    good, named_page = pdf.Root.Good.objgen, pdf.Root.Page.objgen
    first, second = (e.objgen for e in pdf.Root.Good if isinstance(e, pikepdf.Dictionary))
    out: dict[Any, Any] = {(second, 2): "earlier"}
    assert nodes.place_owners(good[0], "here", out) is None
    assert out == {(second, 2): "earlier", (first, 0): "here"}
    assert [type(v) for v in objects.value(good)] == [tuple, int, tuple]  # what the value path reads
    for number in (named_page[0], first[0], 0, -1, 10**30, max(n for n, _ in pdf.get_xref_table()) + 1):
        untouched: dict[Any, Any] = {}
        assert nodes.place_owners(number, "here", untouched) is NotImplemented and not untouched


def _kids_parent_tree(root: Callable[[pikepdf.Pdf, Any], Any]) -> tuple[pikepdf.Pdf, tuple[int, int]]:
    """Two pages whose elements' content has no /Pg, and a /ParentTree made
    by `root` (the pdf, the /Nums array the builder wrote): an indirect
    dictionary with /Kids. Saved with object streams; the tree's reference."""
    b = PdfBuilder()
    pages = [b.add_page(""), b.add_page("")]
    elements = [b.struct_element("P", [0], page=pages[0]), b.struct_element("P", [0, 1], page=pages[1])]
    b.set_struct_tree(elements)
    for element in elements:
        del element["/Pg"]
    tree = b.pdf.Root.StructTreeRoot
    tree.ParentTree = root(b.pdf, tree.ParentTree.Nums)
    pdf = _in_streams(b)
    return pdf, pdf.Root.StructTreeRoot.ParentTree.objgen


def _walk_resolving(pdf: pikepdf.Pdf, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[tuple[int, int]]]:
    """The node walk's tree, and the references it resolved through PlainObjects (Python, qpdf)."""
    resolved: list[tuple[int, int]] = []
    real = PlainObjects.resolve

    def spy(self: PlainObjects, ref: tuple[int, int]) -> Any:
        resolved.append(ref)
        return real(self, ref)

    objects = PlainObjects(pdf)
    root = structure._tree_root(pdf, objects)
    assert root is not None
    with monkeypatch.context() as m:
        m.setattr(PlainObjects, "resolve", spy)
        return structure._Walker(pdf, objects, root, 128).run_over_nodes(), resolved


@needs_core
def test_a_number_tree_node_with_kids_is_read_from_its_node(monkeypatch: pytest.MonkeyPatch):
    """A /ParentTree whose root has /Kids (§7.9.7) is no page tree node: the
    walk reads it from its own bytes (tw_kids_node) rather than resolve it
    (qpdf would parse the whole object stream holding it), and places the
    content as the reference does."""
    pdf, ref = _kids_parent_tree(lambda doc, nums: doc.make_indirect(Dictionary(Kids=Array([doc.make_indirect(Dictionary(Nums=nums))]))))
    by_nodes, resolved = _walk_resolving(pdf, monkeypatch)
    assert by_nodes is not None and ref not in resolved
    assert by_nodes == _read(pdf, monkeypatch, nodes=False, compiled=False)
    assert sorted(len(refs) for refs in by_nodes.page_content.values()) == [1, 2]


@needs_core
def test_a_page_tree_node_with_kids_alone_is_resolved_as_qpdf_holds_it(monkeypatch: pytest.MonkeyPatch):
    """An object with /Kids and neither /Type nor /Parent that is a node of
    the page tree (here the /Pages root, its /Type removed, made /ParentTree
    too) is never read from its own bytes: qpdf may change it in memory. The
    walk resolves it, and the tree is the reference's."""

    def pages_root(doc: pikepdf.Pdf, nums: Any) -> Any:
        del doc.Root.Pages["/Type"]
        return doc.Root.Pages

    pdf, ref = _kids_parent_tree(pages_root)
    assert ref == pdf.Root.Pages.objgen
    by_nodes, resolved = _walk_resolving(pdf, monkeypatch)
    assert ref in resolved
    assert by_nodes == _read(pdf, monkeypatch, nodes=False, compiled=False)


@st.composite
def _drawn_parent_tree(draw: st.DrawFn) -> tuple[PdfBuilder, bool]:
    """Elements whose content has no /Pg over one to three pages, and a
    drawn /ParentTree (§14.7.4.4, a number tree §7.9.7) to place it: entries
    in /Nums or in /Kids nodes, direct or indirect; owners that are
    elements, numbers, null, arrays; keys given twice, keys that are no
    integer, an odd last item, pages without /StructParents or with a key
    the tree lacks, a node listed twice. And whether the tree is one the
    node walk reads itself (a node listed twice: the reference warns, and
    reads it)."""
    b = PdfBuilder()
    pages = [b.add_page("") for _ in range(draw(st.integers(1, 3)))]
    count = draw(st.integers(1, 5))
    elements = [b.struct_element("P", [j, *draw(st.lists(st.integers(0, 4), max_size=2))]) for j in range(count)]
    b.set_struct_tree(elements, parent_tree=False)
    pdf = b.pdf
    others = st.one_of(
        st.sampled_from(elements), st.integers(0, 3), st.none(),
        st.just(Array([1])).map(pdf.make_indirect), st.just(Dictionary(Type=Name.Span)),
    )  # fmt: skip
    nums: list[Any] = []
    for _ in range(draw(st.integers(1, 4))):
        key = draw(st.one_of(st.integers(0, 2), st.integers(0, 2), st.just(Name.Key), st.just(2).map(pdf.make_indirect)))
        # Element j at index j mostly: it owns MCID j.
        entry: Any = Array([draw(st.one_of(st.just(elements[j % count]), others)) for j in range(draw(st.integers(0, 6)))])
        entry = pdf.make_indirect(entry) if draw(st.booleans()) else entry
        nums += [key, draw(st.one_of(st.just(entry), st.just(entry), st.none(), st.just(elements[0])))]
    if draw(st.booleans()):
        nums.append(0)  # pairs with nothing
    split = draw(st.integers(0, len(nums) // 2)) * 2
    kids = [pdf.make_indirect(Dictionary(Nums=Array(nums[:split]))), Dictionary(Nums=Array(nums[split:]))]
    twice = draw(st.booleans()) and draw(st.booleans())
    if twice:
        kids.append(kids[0])
    root: Any = Dictionary(Kids=Array(kids)) if draw(st.booleans()) else Dictionary(Nums=Array(nums))
    if draw(st.booleans()):
        root.Nums = pdf.make_indirect(Array([0, Array(elements)]))  # /Kids and /Nums both read
    pdf.Root.StructTreeRoot.ParentTree = pdf.make_indirect(root) if draw(st.booleans()) else root
    for page in pages:
        key = draw(st.one_of(st.none(), st.integers(0, 2), st.integers(0, 2), st.integers(0, 2)))
        if key is not None:
            page.obj.StructParents = key
    return b, not (twice and "/Kids" in root)


@needs_core
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(_drawn_parent_tree())
def test_the_node_walk_reads_drawn_parent_trees_as_the_reference(monkeypatch: pytest.MonkeyPatch, drawn: tuple[PdfBuilder, bool]):
    """The node walk's own /ParentTree reading (_core's tw_read_parent_tree)
    places content as _read_parent_tree_pages does, with the same warnings;
    it asks _Walker._parent_tree only where it declines."""
    built, read_by_nodes = drawn
    pdf = _in_streams(built)
    asked: list[bool] = []
    real = structure._Walker._parent_tree

    def spy(self: Any) -> Any:
        asked.append(True)
        return real(self)

    with monkeypatch.context() as m:
        m.setattr(structure._Walker, "_parent_tree", spy)
        by_nodes = _read(pdf, monkeypatch, nodes=True)
    assert _walked_by_nodes(pdf, monkeypatch)
    reference, own = _read_by_reference(pdf, monkeypatch)
    _assert_same_columns(by_nodes, reference, "drawn parent tree")
    assert list(by_nodes.elements) == own and by_nodes == reference
    assert asked == ([] if read_by_nodes else [True])


def _respelled(data: bytes, spans: list[Any], respell: Callable[[bytes], bytes]) -> tuple[bytes, list[Any]]:
    """The stream with each object's bytes respelled, in reverse order (an
    element last: the stream's data ends a few bytes past its last name)."""
    out, placed = bytearray(), []
    for number, start, end, held in reversed(spans):
        piece = respell(data[start:end].strip())
        placed.append((number, len(out), len(out) + len(piece), held))
        out += piece + b"\n"
    return bytes(out).rstrip(), placed


# The same objects written as a writer may write them (§7.2.3, §7.3.10): the
# node parse reads names, integers and references straight from the bytes
# where they are plain, and leaves the rest to next_token.
_SPELLINGS: dict[str, Callable[[bytes], bytes]] = {
    "as written": lambda b: b,
    "every kind of white space": lambda b: b.replace(b" ", b"\r\n\t\x0c\x00 "),
    "no white space before a delimiter": lambda b: re.sub(rb" (?=[/\[\]<>(])", b"", b),
    "a comment inside each reference": lambda b: re.sub(rb"(\d+) (\d+) R", rb"\1 \2%R\n R", b),
    "a comment before each generation": lambda b: re.sub(rb"(\d+) (\d+) R", rb"\1%0 R\r\2 R", b),
    # A key's value read in the key's step, an array's numbers in a run of steps (tree_entry_value,
    # tree_array_numbers): a comment between them leaves each to a step of its own.
    "a comment after each name and bracket": lambda b: re.sub(rb"(/[^\0\t\n\x0c\r /\[\]<>(){}%]*|\[)", rb"\1%c\n", b),
    # Most objects are read flat (tree_flat: one dictionary, its arrays and inner dictionaries, or one
    # array); these give each object that would be to tree_parse (an array in an array, a dictionary
    # in an inner one, more entries than tree_flat holds), after tree_flat has read part of it.
    "an empty array first in each /K array": lambda b: b.replace(b"/K[", b"/K[[]").replace(b"/K [", b"/K [[]"),
    "an inner dictionary holding an array in each dictionary": lambda b: b.replace(b"<<", b"<</ZzInner<</ZzArray[0]>>"),
    "fifty more entries in each dictionary": lambda b: b.replace(b"<<", b"<<" + b"".join(b"/Zz%d %d" % (i, i) for i in range(50))),
}


@needs_core
@pytest.mark.parametrize("spelling", list(_SPELLINGS))
def test_the_node_parse_reads_each_spelling_of_its_tokens_as_parse_objects(monkeypatch: pytest.MonkeyPatch, spelling: str):
    # Types alike but for their last byte, of up to 16 bytes and of more (the
    # parse knows a name by its first 16 bytes and its length, and compares
    # the rest of a longer one), mapped to types of their own; a name with a
    # '#' escape; and /K arrays of MCIDs ("N G" and no R); the tree's first
    # kid has hundreds of kids (an array longer than a batch of steps, TREE_BATCH).
    built = _rich_tree()
    page = built.pdf.pages[0]
    root = built.pdf.Root.StructTreeRoot
    # Hundreds of each: some share a slot of the names met lately, or a run of the name table.
    standard = ("P", "H1", "Note", "Span")
    types = {f"Head-Level-{i:03}": standard[i % 4] for i in range(300)} | {"Odd Name": "Span"}
    types |= {f"ParagraphOfTheDocument-{i:03}": standard[i % 3] for i in range(300)}
    for raw, standard in types.items():
        root.RoleMap[Name("/" + raw)] = Name("/" + standard)
    root.K[0].K.extend(built.struct_element(raw, [i % 4, 4 + i % 4] if i < 5 else [], page=page) for i, raw in enumerate(types))
    pdf = built.pdf  # no object streams: every object of the tree is read as a plain value, then written in the stream
    values = _values(pdf)
    data, spans = _respelled(*_stream(values), _SPELLINGS[spelling])
    elements = {number for (number, _), value in values.items() if type(value) is dict and "/S" in value}
    assert len(elements) > 600
    objects = _stream_objects(pdf, data, spans)
    objects._read_object_streams()
    assert {number for number in elements if objects.nodes.is_dict(number) is True} == elements  # each parsed in the nodes
    by_nodes = _read_stream(pdf, data, spans, True)
    assert by_nodes is not None  # walked by the nodes, not left to the plain walk
    assert by_nodes == _read_stream(pdf, data, spans, False)
    read = {e.raw_type: e.path[-1] for e in by_nodes.elements}
    assert {raw: read[raw] for raw in types} == types
    assert _values_agree(pdf, data, spans)
