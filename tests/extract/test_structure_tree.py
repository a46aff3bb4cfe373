"""The structure-tree walk (ISO 32000-1 §14.7, §14.8): ragprep.extract.structure.

Fixtures come from the builder; what it cannot express (cycles, shared
elements, /K as a single dictionary or integer, MCRs without /Type, broken
kids) is made by editing the pikepdf objects after ``set_struct_tree``.
"""

from __future__ import annotations

import csv
import dataclasses
import io

import pikepdf
import pytest
from pdfbuilder import PdfBuilder
from pikepdf import Array, Dictionary, Name, String

from ragprep.extract.glyphs import PAGE_STREAM
from ragprep.extract.warning import WarningKind, render_all
from ragprep.extract.structure import (
    MarkedContentRef,
    StructElement,
    StructTree,
    page_struct_parents,
    read_struct_tree,
)

W = "structure tree: "  # prefix of every warning as rendered


def texts(tree) -> tuple[str, ...]:
    """The tree's warnings as a person reads them (kind STRUCTURE, counted)."""
    assert all(w.kind is WarningKind.STRUCTURE for w in tree.warnings)
    return tuple(render_all(tree.warnings))


def read(b: PdfBuilder, **kwargs) -> StructTree:
    tree = read_struct_tree(b.pdf, **kwargs)
    assert tree is not None
    return tree


def refs(tree: StructTree, page) -> list[tuple[int, int, str]]:
    """(MCID, stream, owning element's type) of a page's marked content, in tree order."""
    return [(r.mcid, r.stream, tree.elements[r.element].type) for r in tree.page_refs(page)]


def types(tree: StructTree) -> list[str]:
    return [e.type for e in tree.elements]


# --------------------------------------------------------------------------- order and pages


def test_author_order_with_nested_sect_and_p():
    b = PdfBuilder()
    page = b.add_page("")
    h1 = b.struct_element("H1", [0])
    p1 = b.struct_element("P", [3, 1])  # /K order, not MCID order, is reading order
    sect1 = b.struct_element("Sect", [h1, p1])
    p2 = b.struct_element("P", [2])
    sect2 = b.struct_element("Sect", [p2, 4])  # content after a kid element
    doc = b.struct_element("Document", [sect1, sect2], page=page)
    b.set_struct_tree([doc])

    tree = read(b)
    assert types(tree) == ["Document", "Sect", "H1", "P", "Sect", "P"]
    assert [e.index for e in tree.elements] == [0, 1, 2, 3, 4, 5]
    assert [e.parent for e in tree.elements] == [-1, 0, 1, 1, 0, 4]
    assert [e.path for e in tree.elements] == [
        ("Document",),
        ("Document", "Sect"),
        ("Document", "Sect", "H1"),
        ("Document", "Sect", "P"),
        ("Document", "Sect"),
        ("Document", "Sect", "P"),
    ]
    assert tree.page_refs(page) == (
        MarkedContentRef(mcid=0, stream=PAGE_STREAM, element=2),
        MarkedContentRef(mcid=3, stream=PAGE_STREAM, element=3),
        MarkedContentRef(mcid=1, stream=PAGE_STREAM, element=3),
        MarkedContentRef(mcid=2, stream=PAGE_STREAM, element=5),
        MarkedContentRef(mcid=4, stream=PAGE_STREAM, element=4),
    )
    # A page object, a pikepdf.Page or the objgen tuple all name the page.
    assert tree.page_refs(page.obj.objgen) == tree.page_refs(page.obj) == tree.page_refs(page)
    assert texts(tree) == ()
    assert all(e.ref is not None for e in tree.elements)
    assert tree.elements[0].ref == doc.objgen


def test_elements_are_the_instances_their_constructor_gives():
    """The walker builds elements without StructElement's __init__
    (extract/rows.py): each must hold every field, equal, hash and print
    as the constructor's instance."""
    b = PdfBuilder()
    page = b.add_page("")
    th = b.struct_element("TH", [0])
    td = b.struct_element("TD", [1])
    table = b.struct_element("Table", [b.struct_element("TR", [th, td])])
    b.set_struct_tree([b.struct_element("Document", [b.struct_element("H", [2]), table], page=page)])

    for element in read(b).elements:
        # Slots: a field the walker left unset raises AttributeError here.
        built = StructElement(**{f.name: getattr(element, f.name) for f in dataclasses.fields(StructElement)})
        assert element == built and hash(element) == hash(built) and repr(element) == repr(built)


def test_two_pages_with_pg_only_on_the_parents():
    b = PdfBuilder()
    page1 = b.add_page("")
    page2 = b.add_page("")
    page3 = b.add_page("")
    # /Pg on the Sects only; the P elements inherit the nearest one (Table 323).
    sect1 = b.struct_element("Sect", [b.struct_element("P", [0]), b.struct_element("P", [1])], page=page1)
    sect2 = b.struct_element("Sect", [b.struct_element("P", [0])], page=page2)
    # The nearest /Pg wins over one further up.
    inner = b.struct_element("P", [5], page=page3)
    sect3 = b.struct_element("Sect", [inner, 6], page=page2)
    b.set_struct_tree([b.struct_element("Document", [sect1, sect2, sect3])])

    tree = read(b)
    assert refs(tree, page1) == [(0, PAGE_STREAM, "P"), (1, PAGE_STREAM, "P")]
    assert refs(tree, page2) == [(0, PAGE_STREAM, "P"), (6, PAGE_STREAM, "Sect")]
    assert refs(tree, page3) == [(5, PAGE_STREAM, "P")]
    assert [e.page for e in tree.elements] == [
        None,
        page1.obj.objgen,
        page1.obj.objgen,
        page1.obj.objgen,
        page2.obj.objgen,
        page2.obj.objgen,
        page2.obj.objgen,
        page3.obj.objgen,
    ]
    assert tree.page_refs(b.pdf.pages[0].obj.objgen) == tree.page_refs(page1)
    assert texts(tree) == ()


def test_mcr_with_its_own_pg_overrides_the_element():
    b = PdfBuilder()
    page1 = b.add_page("")
    page2 = b.add_page("")
    para = b.struct_element("P", [0, b.mcr(0, page=page2), 1, b.mcr(2)], page=page1)
    b.set_struct_tree([para])
    # An MCR written without /Type is still an MCR (the dictionary has /MCID).
    para.K.append(Dictionary(MCID=3, Pg=page2.obj))

    tree = read(b)
    assert refs(tree, page1) == [(0, 0, "P"), (1, 0, "P"), (2, 0, "P")]
    assert refs(tree, page2) == [(0, 0, "P"), (3, 0, "P")]
    assert texts(tree) == ()


def test_mcr_with_stm_names_the_form_xobject():
    b = PdfBuilder()
    form = b.add_form("/P <</MCID 0>> BDC EMC")
    page = b.add_page("/P <</MCID 0>> BDC /Fm1 Do EMC", xobjects={"Fm1": form})
    para = b.struct_element("P", [b.mcr(0, page=page, stream=form), 0], page=page)
    b.set_struct_tree([para])
    para.K.append(Dictionary(Type=Name.MCR, MCID=1, Stm=form, StmOwn=page.obj))  # /StmOwn ignored

    tree = read(b)
    form_number = form.objgen[0]
    assert form_number > 0
    assert tree.page_refs(page) == (
        MarkedContentRef(0, form_number, 0),
        MarkedContentRef(0, PAGE_STREAM, 0),  # same MCID, other stream: both kept
        MarkedContentRef(1, form_number, 0),
    )
    assert texts(tree) == ()


def test_object_references_are_counted_per_page_not_content():
    b = PdfBuilder()
    page1 = b.add_page("")
    page2 = b.add_page("")
    annot1 = b.pdf.make_indirect(Dictionary(Type=Name.Annot, Subtype=Name.Link))
    annot2 = b.pdf.make_indirect(Dictionary(Type=Name.Annot, Subtype=Name.Link))
    annot3 = b.pdf.make_indirect(Dictionary(Type=Name.Annot, Subtype=Name.Widget))
    link = b.struct_element(
        "Link",
        [
            0,
            Dictionary(Type=Name.OBJR, Obj=annot1),
            Dictionary(Type=Name.OBJR, Obj=annot2, Pg=page2.obj),  # own /Pg wins
            Dictionary(Obj=annot3),  # no /Type: still an object reference
        ],
        page=page1,
    )
    b.set_struct_tree([b.struct_element("P", [link])])

    tree = read(b)
    assert dict(tree.object_refs) == {page1.obj.objgen: 2, page2.obj.objgen: 1}
    assert refs(tree, page1) == [(0, 0, "Link")]
    assert tree.page_refs(page2) == ()
    assert types(tree) == ["P", "Link"]
    assert texts(tree) == ()


def test_k_as_a_single_integer_dictionary_or_element():
    b = PdfBuilder()
    page = b.add_page("")
    a = b.struct_element("P", [], page=page)
    c = b.struct_element("P", [], page=page)
    inner = b.struct_element("Span", [], page=page)
    d = b.struct_element("P", [], page=page)
    b.set_struct_tree([a, c, d])
    a.K = 7  # /K may be one MCID ...
    c.K = Dictionary(Type=Name.MCR, MCID=8)  # ... one MCR ...
    d.K = inner  # ... or one element (Table 323)
    inner.K = 9

    tree = read(b)
    assert types(tree) == ["P", "P", "P", "Span"]
    assert refs(tree, page) == [(7, 0, "P"), (8, 0, "P"), (9, 0, "Span")]
    assert tree.elements[3].parent == 2
    assert texts(tree) == ()


def test_direct_elements_and_nested_arrays_in_k():
    b = PdfBuilder()
    page = b.add_page("")
    para = b.struct_element("P", [0], page=page)
    b.set_struct_tree([para])
    # An element written as a direct dictionary without /Type, and an array
    # inside /K (not allowed, but met in the wild): both kept in order.
    para.K = Array([0, Array([1, Dictionary(S=Name.Span, K=Array([2]))]), 3])

    tree = read(b)
    assert types(tree) == ["P", "Span"]
    assert tree.elements[1].ref is None
    assert refs(tree, page) == [(0, 0, "P"), (1, 0, "P"), (2, 0, "Span"), (3, 0, "P")]
    assert texts(tree) == ()


# --------------------------------------------------------------------------- missing or wrong pages


def test_content_without_any_page_is_dropped_and_counted():
    b = PdfBuilder()
    page1 = b.add_page("")
    b.add_page("")
    b.set_struct_tree([b.struct_element("P", [0, 1]), b.struct_element("P", [0], page=page1)], parent_tree=False)

    tree = read(b)
    assert refs(tree, page1) == [(0, 0, "P")]
    assert texts(tree) == (
        W + "marked content with no /Pg on its MCR, element or ancestors, nor in /ParentTree; dropped (x2)",
    )


def test_missing_pg_recovered_from_the_parent_tree():
    b = PdfBuilder()
    page1 = b.add_page("")
    page2 = b.add_page("")
    p1 = b.struct_element("P", [0], page=page1)
    p2 = b.struct_element("P", [0, 1], page=page2)
    b.set_struct_tree([p1, p2])  # writes /ParentTree and /StructParents
    del p1["/Pg"]
    del p2["/Pg"]
    p2.K.append(5)  # not in /ParentTree: no page for it

    tree = read(b)
    assert refs(tree, page1) == [(0, 0, "P")]
    assert refs(tree, page2) == [(0, 0, "P"), (1, 0, "P")]
    assert texts(tree) == (
        W + "marked content with no /Pg; page found through /ParentTree (x3)",
        W + "marked content with no /Pg on its MCR, element or ancestors, nor in /ParentTree; dropped",
    )


def test_missing_pg_recovered_from_a_parent_tree_with_kids_and_a_loop():
    b = PdfBuilder()
    page1 = b.add_page("")
    page2 = b.add_page("")
    p1 = b.struct_element("P", [0], page=page1)
    p2 = b.struct_element("P", [1], page=page2)
    b.set_struct_tree([p1, p2])
    root = b.pdf.Root.StructTreeRoot
    nums = list(root.ParentTree.Nums)  # [0, [p1], 1, [None, p2]]
    # The same number tree as intermediate nodes (§7.9.7), one of them listing
    # itself among its kids.
    leaf1 = b.pdf.make_indirect(Dictionary(Limits=Array([0, 0]), Nums=Array(nums[:2])))
    leaf2 = b.pdf.make_indirect(Dictionary(Limits=Array([1, 1]), Nums=Array(nums[2:])))
    middle = b.pdf.make_indirect(Dictionary(Limits=Array([1, 1]), Kids=Array([leaf2])))
    middle.Kids.append(middle)
    root.ParentTree = b.pdf.make_indirect(Dictionary(Kids=Array([leaf1, middle])))
    del p1["/Pg"]
    del p2["/Pg"]

    tree = read(b)
    assert refs(tree, page1) == [(0, 0, "P")]
    assert refs(tree, page2) == [(1, 0, "P")]
    assert texts(tree) == (
        W + "/ParentTree node reached twice; visited once",
        W + "marked content with no /Pg; page found through /ParentTree (x2)",
    )


def test_missing_pg_in_a_one_page_document_without_parent_tree():
    b = PdfBuilder()
    page = b.add_page("")
    b.set_struct_tree([b.struct_element("P", [0, 1])], parent_tree=False)

    tree = read(b)
    assert refs(tree, page) == [(0, 0, "P"), (1, 0, "P")]
    assert texts(tree) == (W + "marked content with no /Pg; the document's only page assumed (x2)",)


def test_pg_that_is_not_a_page_and_duplicate_mcids():
    b = PdfBuilder()
    page = b.add_page("")
    not_a_page = b.pdf.make_indirect(Dictionary(Type=Name.Foo))
    first = b.struct_element("P", [0, 1], page=page)
    second = b.struct_element("P", [1, 2], page=page)  # MCID 1 claimed again
    stray = b.struct_element("P", [0], page=page)
    b.set_struct_tree([first, second, stray], parent_tree=False)
    stray.Pg = not_a_page
    second.K.append(Dictionary(Type=Name.MCR, MCID=3, Pg=String("page 1")))  # bad /Pg: inherited

    tree = read(b)
    assert [(r.mcid, r.element) for r in tree.page_refs(page)] == [(0, 0), (1, 0), (2, 1), (3, 1)]
    assert texts(tree) == (
        W + "MCR /Pg is not a page dictionary; inherited page used",
        W + "marked content assigned twice on a page; first assignment kept",
        W + "marked content on an object that is not a page of the document; dropped",
    )


# --------------------------------------------------------------------------- role map


def test_role_map_chains_cycles_and_standard_types():
    b = PdfBuilder()
    page = b.add_page("")
    names = ["Heading1", "Para", "Loop1", "Custom", "P", "Title", "Aside", "Document"]
    kids = [b.struct_element(name, [i]) for i, name in enumerate(names)]
    b.set_struct_tree(
        [b.struct_element("Sect", kids, page=page)],
        role_map={
            "Heading1": "Heading",  # a chain: Heading1 -> Heading -> H1
            "Heading": "H1",
            "Para": "P",
            "Loop1": "Loop2",  # a cycle: raw type kept
            "Loop2": "Loop1",
            "Custom": "Unknown",  # ends on a non-standard type: raw type kept
            "P": "Span",  # followed even for a standard type (§14.7.3), with a warning
            "Title": "H1",  # a PDF 2.0 type is a custom name in a 1.x file
            "Document": "Document",  # identity entries are harmless
        },
    )

    tree = read(b)
    assert [(e.raw_type, e.type) for e in tree.elements[1:]] == [
        ("Heading1", "H1"),
        ("Para", "Span"),  # Para -> P -> Span
        ("Loop1", "Loop1"),
        ("Custom", "Custom"),
        ("P", "Span"),
        ("Title", "H1"),
        ("Aside", "Aside"),  # PDF 2.0 type, not mapped: standard
        ("Document", "Document"),
    ]
    assert tree.elements[1].heading_level == 1
    assert tree.elements[1].path == ("Sect", "H1")
    assert refs(tree, page)[0] == (0, 0, "H1")
    # Counted per element whose resolution meets the entry: Para (via P) and P.
    assert texts(tree) == (
        W + "/RoleMap remaps standard type /P to /Span; followed (§14.7.3) (x2)",
        W + "/RoleMap cycle Loop1 -> Loop2 -> Loop1; raw type /Loop1 kept",
    )


def test_role_map_cycle_through_a_standard_looking_chain_terminates():
    b = PdfBuilder()
    page = b.add_page("")
    b.set_struct_tree(
        [b.struct_element("A", [0], page=page), b.struct_element("A", [1], page=page)],
        role_map={"A": "B", "B": "C", "C": "A"},
    )
    tree = read(b)
    assert types(tree) == ["A", "A"]
    assert texts(tree) == (W + "/RoleMap cycle A -> B -> C -> A; raw type /A kept (x2)",)


def test_namespaces_pdf20_types_and_role_map_ns():
    b = PdfBuilder()
    page = b.add_page("")
    pdf2 = b.pdf.make_indirect(Dictionary(Type=Name.Namespace, NS=String("http://iso.org/pdf2/ssn")))
    latex = b.pdf.make_indirect(
        Dictionary(
            Type=Name.Namespace,
            NS=String("https://www.latex-project.org/ns/dflt"),
            RoleMapNS=Dictionary(
                section=Array([Name.H1, pdf2]),
                float=Array([Name.Aside, pdf2]),
                text=Name.P,  # a name: the default (PDF 1.7) namespace
            ),
        )
    )
    mathml = b.pdf.make_indirect(
        Dictionary(Type=Name.Namespace, NS=String("http://www.w3.org/1998/Math/MathML"))
    )
    specs = [("Title", pdf2), ("H7", pdf2), ("section", latex), ("float", latex), ("text", latex), ("mi", mathml)]
    kids = []
    for i, (name, ns) in enumerate(specs):
        elem = b.struct_element(name, [i])
        elem.NS = ns
        kids.append(elem)
    # /RoleMap (the default namespace's) maps Title to P for PDF 1.7 readers;
    # an element in the PDF 2.0 namespace stays a Title.
    b.set_struct_tree([b.struct_element("Document", kids, page=page)], role_map={"Title": "P", "float": "Note"})

    tree = read(b)
    assert [(e.raw_type, e.type, e.heading_level, e.block) for e in tree.elements[1:]] == [
        ("Title", "Title", None, True),
        ("H7", "H7", 7, True),
        ("section", "H1", 1, True),
        ("float", "Aside", None, True),
        ("text", "P", None, True),
        ("mi", "mi", None, False),
    ]
    assert texts(tree) == ()


def test_elements_of_one_namespace_resolve_alike_and_warn_each_time():
    # Every element in the indirect PDF 1.7 namespace follows /RoleMap's remap
    # of a standard type, and each one says so: the answer cached for the
    # namespace's first element is the answer, and the warning, of the others.
    b = PdfBuilder()
    page = b.add_page("")
    pdf17 = b.pdf.make_indirect(Dictionary(Type=Name.Namespace, NS=String("http://iso.org/pdf/ssn")))
    kids = []
    for i in range(3):
        elem = b.struct_element("P", [i])
        elem.NS = pdf17
        kids.append(elem)
    kids.append(b.struct_element("P", [3]))  # no /NS: the same remap, cached apart
    b.set_struct_tree([b.struct_element("Document", kids, page=page)], role_map={"P": "H1"})

    tree = read(b)
    assert [(e.raw_type, e.type) for e in tree.elements[1:]] == [("P", "H1")] * 4
    assert texts(tree) == (W + "/RoleMap remaps standard type /P to /H1; followed (§14.7.3) (x4)",)


# --------------------------------------------------------------------------- attributes


def test_actual_text_alt_and_inherited_lang():
    b = PdfBuilder()
    page = b.add_page("")
    word = b.struct_element("Span", [1], actual_text="inner")
    span = b.struct_element("Span", [0, word], actual_text="ﬁ → fi")
    figure = b.struct_element("Figure", [2], alt="图表: sales by year")
    para = b.struct_element("P", [span], lang="fr-FR")
    unknown = b.struct_element("P", [3], lang="")  # "" is "language unknown" (§14.9.2.1)
    below_unknown = b.struct_element("Span", [4])
    unknown.K.append(below_unknown)
    b.set_struct_tree([b.struct_element("Document", [para, figure, unknown], page=page)])
    b.pdf.Root.Lang = String("en-US")  # the document default

    tree = read(b)
    by_type = [(e.type, e.lang, e.actual_text, e.alt, e.actual_text_owner) for e in tree.elements]
    assert by_type == [
        ("Document", "en-US", None, None, -1),
        ("P", "fr-FR", None, None, -1),
        ("Span", "fr-FR", "ﬁ → fi", None, 2),
        ("Span", "fr-FR", "inner", None, 2),  # the outer /ActualText covers it
        ("Figure", "en-US", None, "图表: sales by year", -1),
        ("P", None, None, None, -1),
        ("Span", None, None, None, -1),
    ]
    assert texts(tree) == ()


def test_attribute_values_of_the_wrong_type_are_ignored():
    b = PdfBuilder()
    page = b.add_page("")
    para = b.struct_element("P", [0], page=page, lang="de")
    span = b.struct_element("Span", [1])
    para.K.append(span)
    b.set_struct_tree([para])
    span.ActualText = Name.Oops
    span.Alt = 5
    span.Lang = Array([])

    tree = read(b)
    assert [(e.actual_text, e.alt, e.lang) for e in tree.elements] == [(None, None, "de"), (None, None, "de")]
    assert texts(tree) == (
        W + "/Lang is not a text string; ignored",
        W + "/ActualText is not a text string; ignored",
        W + "/Alt is not a text string; ignored",
    )


def test_heading_levels_by_number_and_by_nesting():
    b = PdfBuilder()
    page = b.add_page("")
    e = b.struct_element
    tree_kids = [
        e("H", [0]),  # Document/H: 1
        e("H2", [1]),  # Hn: n
        e(
            "Sect",
            [
                e("H", [2]),  # Sect/H: 1 (the Sect it heads does not count)
                e(
                    "Sect",
                    [
                        e("H", [3]),  # one headed Sect above its own: 2
                        e("Sect", [e("P", [4]), e("Heading", [5])]),  # two above: 3 (role-mapped H)
                    ],
                ),
                e("P", [e("H", [6])]),  # Sect(H)/P/H: 2
            ],
        ),
        e("Sect", [e("Div", [e("H", [7])])]),  # the outer Sect has no heading: 1
    ]
    b.set_struct_tree([e("Document", tree_kids, page=page)], role_map={"Heading": "H"})

    tree = read(b)
    headings = [(r.mcid, tree.elements[r.element].heading_level) for r in tree.page_refs(page)]
    assert headings == [(0, 1), (1, 2), (2, 1), (3, 2), (4, None), (5, 3), (6, 2), (7, 1)]
    assert tree.elements[0].heading_level is None


def test_block_and_header_cell_flags():
    b = PdfBuilder()
    page = b.add_page("")
    e = b.struct_element
    row = e("TR", [e("TH", [0]), e("TD", [1])])
    item = e("LI", [e("Lbl", [2]), e("LBody", [e("Span", [3])])])
    b.set_struct_tree([e("Document", [e("Table", [row]), e("L", [item])], page=page)])

    tree = read(b)
    assert [(x.type, x.block, x.header_cell) for x in tree.elements] == [
        ("Document", True, False),
        ("Table", True, False),
        ("TR", True, False),
        ("TH", True, True),
        ("TD", True, False),
        ("L", True, False),
        ("LI", True, False),
        ("Lbl", False, False),  # "1." and the item's text stay on one line
        ("LBody", False, False),
        ("Span", False, False),
    ]


# --------------------------------------------------------------------------- hostile trees


def _chain(b: PdfBuilder, depth: int, page: pikepdf.Page) -> pikepdf.Object:
    """``depth`` nested Div elements, the innermost holding MCID 0; returns the outermost."""
    inner = b.pdf.make_indirect(Dictionary(Type=Name.StructElem, S=Name.Div, K=0))
    for _ in range(depth - 1):
        inner = b.pdf.make_indirect(Dictionary(Type=Name.StructElem, S=Name.Div, K=Array([inner])))
    inner.Pg = page.obj
    return inner


def test_tree_200_deep_stops_at_the_depth_limit():
    b = PdfBuilder()
    page = b.add_page("")
    b.set_struct_tree([_chain(b, 200, page)], parent_tree=False)

    tree = read(b)  # max_depth defaults to 128
    assert len(tree.elements) == 128
    assert tree.elements[-1].path == ("Div",) * 128
    assert tree.page_refs(page) == ()  # the MCID sits at depth 200
    assert texts(tree) == (W + "tree deeper than 128 levels; deeper elements and their content dropped",)

    deep = read(b, max_depth=200)
    assert len(deep.elements) == 200
    assert deep.page_refs(page) == (MarkedContentRef(0, PAGE_STREAM, 199),)
    assert texts(deep) == ()


def test_very_deep_tree_never_recurses():
    # Far beyond Python's recursion limit: the walk uses an explicit stack.
    b = PdfBuilder()
    page = b.add_page("")
    b.set_struct_tree([_chain(b, 5000, page)], parent_tree=False)
    tree = read(b, max_depth=10_000)
    assert len(tree.elements) == 5000
    assert tree.page_refs(page) == (MarkedContentRef(0, PAGE_STREAM, 4999),)


def test_cyclic_k_ends_the_branch():
    b = PdfBuilder()
    page = b.add_page("")
    para = b.struct_element("P", [0])
    sect = b.struct_element("Sect", [para, 1])
    b.set_struct_tree([b.struct_element("Document", [sect], page=page)])
    para.K.append(sect)  # P -> its own parent
    para.K.append(para)  # P -> itself
    para.K.append(b.pdf.Root.StructTreeRoot)  # P -> the root
    para.K.append(2)

    tree = read(b)
    assert types(tree) == ["Document", "Sect", "P"]
    assert refs(tree, page) == [(0, 0, "P"), (2, 0, "P"), (1, 0, "Sect")]
    assert texts(tree) == (W + "cycle: a /K points back to an ancestor; that branch ends there (x3)",)


def test_cyclic_k_array_and_mutual_recursion_terminate():
    b = PdfBuilder()
    page = b.add_page("")
    a = b.struct_element("Div", [0], page=page)
    c = b.struct_element("Div", [1], page=page)
    b.set_struct_tree([a])
    a.K.append(c)
    c.K.append(a)
    looped = b.pdf.make_indirect(Array([2]))
    looped.append(looped)  # an array that contains itself
    c.K.append(looped)

    tree = read(b)
    assert types(tree) == ["Div", "Div"]
    assert refs(tree, page) == [(0, 0, "Div"), (1, 0, "Div"), (2, 0, "Div")]
    assert texts(tree) == (
        W + "/K array reached a second time; visited once",
        W + "cycle: a /K points back to an ancestor; that branch ends there",
    )


def test_element_shared_by_two_parents_is_visited_once():
    b = PdfBuilder()
    page = b.add_page("")
    shared = b.struct_element("P", [0])
    first = b.struct_element("Sect", [shared], page=page)
    second = b.struct_element("Sect", [1], page=page)
    b.set_struct_tree([first, second])
    second.K.append(shared)

    tree = read(b)
    assert types(tree) == ["Sect", "P", "Sect"]
    assert tree.elements[1].parent == 0
    assert refs(tree, page) == [(0, 0, "P"), (1, 0, "Sect")]
    assert texts(tree) == (W + "element reached a second time (two parents, or listed twice); visited once",)


def test_broken_kids_become_warnings():
    b = PdfBuilder()
    page = b.add_page("")
    para = b.struct_element("P", [0], page=page)
    no_s = b.pdf.make_indirect(Dictionary(Type=Name.StructElem, K=Array([5])))
    b.set_struct_tree([para])
    for bad in [
        String("text"),
        Name.Oops,
        1.5,
        True,
        None,
        -3,
        Dictionary(Foo=1),
        Dictionary(Type=Name.MCR),
        Dictionary(Type=Name.MCR, MCID=-1),
        Dictionary(Type=Name.MCR, MCID=6, Stm=5),
        Dictionary(S=String("P"), K=7),
        no_s,
        1,
    ]:
        para.K.append(bad)
    b.pdf.Root.StructTreeRoot.K.append(9)  # content straight under the root

    tree = read(b)
    assert [(e.raw_type, e.type) for e in tree.elements] == [("P", "P"), ("", "NonStruct"), ("", "NonStruct")]
    assert refs(tree, page) == [(0, 0, "P"), (7, 0, "NonStruct"), (5, 0, "NonStruct"), (1, 0, "P")]
    assert texts(tree) == (
        W + "marked content directly under /StructTreeRoot; dropped",
        W + "/K kid of unexpected kind (string); ignored",
        W + "/K kid of unexpected kind (name); ignored",
        W + "/K kid of unexpected kind (real); ignored",
        W + "/K kid of unexpected kind (boolean); ignored",
        W + "null kid in /K; ignored",
        W + "negative MCID; dropped",
        W + "/K kid dictionary is neither an element, an MCR nor an OBJR; ignored",
        W + "MCR without a valid /MCID; dropped (x2)",
        W + "MCR /Stm is not a content stream; dropped",
        W + "element /S is not a name; treated as NonStruct",
        W + "element without a /S name; treated as NonStruct",
    )


@pytest.mark.parametrize("k", [String("oops"), Name.Foo, None])
def test_odd_root_k_values(k):
    b = PdfBuilder()
    b.add_page("")
    b.set_struct_tree([], parent_tree=False)
    if k is None:
        del b.pdf.Root.StructTreeRoot["/K"]
    else:
        b.pdf.Root.StructTreeRoot.K = k
    tree = read(b)
    assert tree.elements == ()
    assert dict(tree.page_content) == {}
    assert len(tree.warnings) == (0 if k is None else 1)


# --------------------------------------------------------------------------- no tree, /StructParents


def test_no_struct_tree_root_gives_none():
    b = PdfBuilder()
    b.add_page("")
    assert read_struct_tree(b.pdf) is None
    b.pdf.Root.StructTreeRoot = Array([1, 2])  # not a dictionary
    assert read_struct_tree(b.pdf) is None


def test_empty_struct_tree():
    b = PdfBuilder()
    page = b.add_page("")
    b.set_struct_tree([])
    tree = read(b)
    assert tree.elements == ()
    assert tree.page_refs(page) == ()
    assert dict(tree.object_refs) == {}
    assert texts(tree) == ()


def test_page_struct_parents():
    b = PdfBuilder()
    tagged = b.add_page("/P <</MCID 0>> BDC EMC")
    untagged = b.add_page("")
    b.set_struct_tree([b.struct_element("P", [0], page=tagged)])
    assert page_struct_parents(tagged) == 0
    assert page_struct_parents(tagged.obj) == 0
    assert page_struct_parents(untagged) is None
    untagged.obj.StructParents = -1
    assert page_struct_parents(untagged) is None


def test_the_parsed_objects_are_freed_before_collection_resumes(monkeypatch: pytest.MonkeyPatch):
    # The walk's objects are tens of thousands of fresh containers: freed
    # while collection is paused, the collector never walks them.
    import contextlib
    import gc
    import weakref

    from ragprep.extract import structure

    made: list[weakref.ref[object]] = []
    alive_at_resume: list[bool] = []

    class Recorded(structure.PlainObjects):
        def __init__(self, pdf: pikepdf.Pdf) -> None:
            super().__init__(pdf)
            made.append(weakref.ref(self))

    real_pause = structure.paused_collection

    @contextlib.contextmanager
    def pause():  # the real pause, with a look at what is alive as it ends
        with real_pause() as paused:
            yield paused
            assert not gc.isenabled()
            alive_at_resume.extend(ref() is not None for ref in made)

    monkeypatch.setattr(structure, "PlainObjects", Recorded)
    monkeypatch.setattr(structure, "paused_collection", pause)
    b = PdfBuilder()
    page = b.add_page("/P <</MCID 0>> BDC EMC")
    b.set_struct_tree([b.struct_element("P", [0], page=page)])
    assert read_struct_tree(b.pdf) is not None
    assert alive_at_resume == [False]


def test_round_trip_through_bytes():
    b = PdfBuilder()
    page = b.add_page("/P <</MCID 0>> BDC EMC")
    b.set_struct_tree([b.struct_element("Document", [b.struct_element("P", [0])], page=page)])
    with pikepdf.open(io.BytesIO(b.to_bytes())) as pdf:
        tree = read_struct_tree(pdf)
        assert tree is not None
        assert [(r.mcid, tree.elements[r.element].path) for r in tree.page_refs(pdf.pages[0])] == [
            (0, ("Document", "P"))
        ]


# --------------------------------------------------------------------------- corpus smoke


def test_corpus_tagged_files_read_without_exceptions(corpus):
    with (corpus / "MANIFEST.tsv").open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["tagged"] == "yes"]
    assert rows
    for row in rows:
        with pikepdf.open(corpus / row["path"]) as pdf:
            tree = read_struct_tree(pdf)
            assert tree is not None, row["path"]
            pages = {page.obj.objgen for page in pdf.pages}
            assert set(tree.page_content) <= pages, row["path"]
            for refs_ in tree.page_content.values():
                assert len({(r.stream, r.mcid) for r in refs_}) == len(refs_)
                assert all(0 <= r.element < len(tree.elements) for r in refs_)


def test_plain_type_answers_standard_names_as_the_role_map_resolves_them():
    """_Walker._plain_type answers a standard type's /S name in no namespace
    from a table made once (_UNMAPPED_STANDARD) unless /RoleMap names it:
    each answer is the one _Roles.resolve and _type_info give, a remapped
    standard type included (P -> Span, with its warning)."""
    from ragprep.extract import structure
    from ragprep.extract.structure_objects import PlainObjects

    b = PdfBuilder()
    page = b.add_page("")
    b.set_struct_tree([b.struct_element("P", [0], page=page)], role_map={"P": "Span", "Custom": "H2", "Sect": "Sect"})
    objects = PlainObjects(b.pdf)
    root = structure._tree_root(b.pdf, objects)
    assert root is not None
    walker = structure._Walker(b.pdf, objects, root, 128)
    for raw in sorted(structure._STANDARD_TYPES | {"Custom", "H7", "Unknown"}):
        std, problem = walker._roles.resolve(raw, None)
        assert walker._plain_type("/" + raw) == (raw, std, structure._type_info(std), problem), raw
    assert walker._plain_type("/P")[1:4:2] == ("Span", "/RoleMap remaps standard type /P to /Span; followed (§14.7.3)")
