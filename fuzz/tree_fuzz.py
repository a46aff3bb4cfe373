"""Differential fuzzing of the compiled structure-tree walk (_core.walk_struct).

core_fuzz.py --target trees runs this inside its sanitizer build. Each
iteration takes the plain values of a tagged PDF's objects (a builder tree
with every kind of kid, plus the small tagged trees of --corpus), changes a
few of them (keys set to values of the wrong kind, references to other
objects, to ancestors, to missing objects, entries removed) and reads the
tree twice: with the compiled walk and with _Walker's own steps. A finding
is an exception out of read_struct_tree or two trees that differ; a sanitizer
report aborts the process.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from pathlib import Path

from campaign import Campaign
from typing import Any

KEYS = ["/K", "/P", "/Pg", "/S", "/MCID", "/Type", "/Lang", "/ActualText", "/Alt", "/Stm", "/Obj", "/NS", "/A",
        "/C", "/ID"]  # fmt: skip
NAMES = ["/P", "/H", "/H2", "/Sect", "/TD", "/TH", "/MCR", "/OBJR", "/StructElem", "/Table", "/Figure", "/Span"]


def _template() -> Any:
    """A tagged page whose tree holds elements, MCRs, an OBJR, a table cell,
    /ActualText, /Alt, /Lang and a /ParentTree."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import pikepdf
    from pdfbuilder import PdfBuilder

    b = PdfBuilder()
    font = b.add_standard_font("Helvetica")
    content = " ".join(f"/P <</MCID {i}>> BDC BT /{font} 12 Tf 72 {700 - 20 * i} Td (t{i}) Tj ET EMC" for i in range(6))
    b.add_page(content)
    page = b.pdf.pages[0]
    cell = b.struct_element("TD", [3], attrs={"O": "/Table", "RowSpan": 2})
    table = b.struct_element("Table", [b.struct_element("TR", [cell, b.struct_element("TH", [4])])])
    heading = b.struct_element("H", [0], actual_text="Head", lang="en")
    section = b.struct_element("Sect", [heading, b.struct_element("P", [1, b.mcr(2, page=page)]), table])
    figure = b.struct_element("Figure", [5], alt="a figure")
    b.set_struct_tree([b.struct_element("Document", [section, figure], page=page, lang="fr")])
    link = b.pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.OBJR, Obj=page.obj, Pg=page.obj))
    figure.K.append(link)
    return pikepdf.open(io.BytesIO(b.to_bytes()))


def _sources(corpus: str | None, limit: int) -> list[Any]:
    import pikepdf

    pdfs = [_template()]
    for path in sorted(Path(corpus).rglob("*.pdf")) if corpus else []:
        try:
            pdf = pikepdf.open(path)
        except Exception:  # unreadable corpus files are no sources
            continue
        if "/StructTreeRoot" in pdf.Root and len(pdf.objects) <= limit:
            pdfs.append(pdf)
        else:
            pdf.close()
    return pdfs


def _values(pdf: Any) -> dict[Any, Any]:
    """Every object read while the tree is read, as plain values: read by
    the walk of plain values, each object asked of qpdf as it is met (the
    object streams left unread). The node walk would read the tree's
    elements off the streams' nodes, leaving in the cache only the few
    objects it asks for (the root and a role map): a corpus tree's mutants
    would then change those alone, and the node walk would find none of the
    elements in the stream node_fuzz writes."""
    from ragprep.extract import structure

    captured: dict[Any, Any] = {}

    class Capturing(structure.PlainObjects):
        def __init__(self, pdf: Any) -> None:
            super().__init__(pdf)
            self._streams_read = True  # no nodes: the walk of plain values, resolve() on each miss
            captured["cache"] = self.cache

    structure.PlainObjects, original = Capturing, structure.PlainObjects
    try:
        structure.read_struct_tree(pdf)
    finally:
        structure.PlainObjects = original
    return dict(captured["cache"])


def _mutant(rng: random.Random, values: dict[Any, Any]) -> dict[Any, Any]:
    out = dict(values)  # unchanged objects are shared: the walks never change a value
    refs = list(values) + [(999_999, 0)]
    pool: list[Any] = [-1, 0, 3, 2**40, 1.5, True, None, b"x", b"\xfe\xff\x00A", "", "/X", [], {}, [0, 1], {"/S": "/P"}]
    for _ in range(rng.randint(1, 4)):
        ref = rng.choice(list(values))
        value = out[ref]
        if type(value) is dict:
            value = dict(value)
            key = rng.choice(KEYS + list(value))
            choice = rng.randrange(4)
            if choice == 0:
                value.pop(key, None)
            else:
                value[key] = rng.choice(refs) if choice == 1 else rng.choice(NAMES) if choice == 2 else rng.choice(pool)
        elif type(value) is list and value:
            value = list(value)
            value[rng.randrange(len(value))] = rng.choice([rng.choice(refs), rng.choice(pool), [rng.choice(refs)]])
        out[ref] = value
    return out


def _read(pdf: Any, values: dict[Any, Any], compiled: bool) -> Any:
    from ragprep.extract import structure

    class Given(structure.PlainObjects):
        def __init__(self, pdf: Any) -> None:
            super().__init__(pdf)
            self.cache.update(values)

    saved = structure.PlainObjects, structure._Walker._compiled_walk
    structure.PlainObjects = Given
    if not compiled:
        structure._Walker._compiled_walk = lambda self: None
    try:
        return structure.read_struct_tree(pdf)
    finally:
        structure.PlainObjects, structure._Walker._compiled_walk = saved


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    sources = [(pdf, _values(pdf)) for pdf in _sources(args.corpus, 3000)]
    campaign = Campaign(args.seconds, args.report)
    runs = findings = 0
    while campaign.running(runs=runs, findings=findings):
        pdf, values = rng.choice(sources)
        mutant = _mutant(rng, values)
        try:
            same = _read(pdf, mutant, True) == _read(pdf, mutant, False)
        except Exception as exc:  # a finding: broken objects are warnings, never exceptions
            print(f"exception {type(exc).__name__}: {exc}", file=sys.stderr)
            same = False
        if not same:
            findings += 1
            print(f"trees differ or raised: source {sources.index((pdf, values))}, run {runs}", file=sys.stderr)
        runs += 1
    print(f"trees: {len(sources)}  runs: {runs}  cpu seconds: {campaign.cpu:.0f}  findings: {findings}")
    return 1 if findings else 0
