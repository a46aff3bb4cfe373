"""Differential fuzzing of the node walk (_core.TreeObjects: the object
streams' bytes parsed into nodes, and the structure tree walked over them).

core_fuzz.py --target nodes runs this inside its sanitizer build. Each
iteration takes the plain values of a tagged PDF's objects (tree_fuzz.py's
builder tree and the small tagged trees of --corpus), changes a few of them
as tree_fuzz.py does (every third
iteration also making some elements table cells with attributes of every
form, _cell_mutant), writes them as one object stream (§7.5.7), and, every
other iteration, edits that stream's bytes too (core_fuzz.py's token
mutations: cut, repeated or foreign tokens, which the node parser must
refuse or read exactly as parse_objects does). The tree is then read twice
from those bytes: by the node walk, and, from a fresh reader, by the walk of
plain values (_core.walk_struct over parse_objects' values). A finding is an
exception out of either, a node walk that answers where the two trees
differ (their elements and content, and the whole-tree tables a page
reading looks things up in: block owners, content keys, page offsets,
_tables_agree), or an object whose value() differs from parse_objects' value (or
is no dictionary where is_dict() says it is, or whose owners place_owners()
places otherwise than the value reads); a
sanitizer report aborts the process. The node walk may leave a tree to the
other walk (it answers None): those runs are counted, not findings.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
from collections.abc import Callable
from typing import Any

from campaign import Campaign
from tree_fuzz import _mutant, _sources, _values

# Name bytes written as they are (§7.3.5): regular characters other than '#'.
_REGULAR = frozenset(range(0x21, 0x7F)) - frozenset(b"()<>[]{}/%#")


def _name(name: str) -> bytes:
    raw = name[1:].encode("utf-8", "surrogateescape")
    return b"/" + b"".join(bytes([c]) if c in _REGULAR else b"#%02X" % c for c in raw)


def _written(value: Any) -> bytes:
    """A plain value (structure_objects.py) in PDF syntax (§7.3); a Stream as null."""
    if value is None or value is True or value is False:
        return {None: b"null", True: b"true", False: b"false"}[value]
    if type(value) is int:
        return b"%d" % value
    if type(value) is float:
        return b"%f" % value
    if type(value) is str:
        return _name(value)
    if type(value) is bytes:
        return b"<" + value.hex().encode() + b">"
    if type(value) is tuple:
        return b"%d %d R" % value
    if type(value) is list:
        return b"[" + b" ".join(map(_written, value)) + b"]"
    if type(value) is dict:
        return b"<<" + b" ".join(_name(k) + b" " + _written(v) for k, v in value.items()) + b">>"
    return b"null"


def _stream(values: dict[Any, Any]) -> tuple[bytes, list[tuple[int, int, int, bool]]]:
    """The generation-0 objects as one decoded object stream's data and spans."""
    data, spans = bytearray(), []
    for (number, gen), value in values.items():
        if gen == 0 and number > 0:
            written = _written(value) + b"\n"
            spans.append((number, len(data), len(data) + len(written), value is not None))
            data += written
    return bytes(data), spans


def _objects(pdf: Any, data: bytes, spans: list[tuple[int, int, int, bool]]) -> Any:
    """A PlainObjects whose object streams are this one stream."""
    from ragprep.extract import structure_objects as so

    class Synthetic(so.PlainObjects):
        def _read_object_streams(self) -> None:
            in_stream = {number for number, *_ in spans}
            present = so._bitmap([number for number, _, _, held in spans if held])
            known: set[Any] = set()

            def exists(ref: Any) -> bool:
                if ref[0] in in_stream:
                    return False  # a null object of the stream
                try:
                    return pdf.get_object(ref) is not None
                except Exception:  # unreadable: resolving it decides
                    return True

            refs: list[Any] = [None] * (max(in_stream, default=0) + 1)
            self._unparsed = [functools.partial(self._parse_objects, data, spans, known, exists, present, refs, self.cache)]
            self._nodes = so._core_nodes([(data, spans)], present, known, exists, refs)
            if self._nodes is None:
                self.fill_cache()

    return Synthetic(pdf)


def _read(pdf: Any, data: bytes, spans: list[Any], nodes: bool) -> Any:
    from ragprep.extract import structure

    objects = _objects(pdf, data, spans)
    root_ref = pdf.Root.StructTreeRoot.objgen
    root = objects.resolve(root_ref)
    if type(root) is not dict:
        return "no root"
    if nodes:
        return structure._Walker(pdf, objects, (root_ref, root), 128).run_over_nodes()
    objects.fill_cache()
    return structure._Walker(pdf, objects, (root_ref, root), 128).run()


def _tables_agree(by_nodes: Any, plain: Any) -> bool:
    """The whole-tree tables a page reading looks things up in (StructTree._tables:
    block owners, content keys, page offsets) the same off both walks' trees.
    StructTree's == compares the elements and the content, not these: the node
    walk makes them in C with its columns, the walk of plain values leaves them
    to _tree_tables."""
    import numpy as np

    from ragprep.extract.structure import StructTree

    if type(by_nodes) is not StructTree or type(plain) is not StructTree:
        return True
    a, b = by_nodes._tables, plain._tables
    arrays = ("content_keys", "content_element", "block_owners")
    return (
        a.page_row == b.page_row
        and a.page_offsets == b.page_offsets
        and all(getattr(a, n).dtype == getattr(b, n).dtype == np.int64 and np.array_equal(getattr(a, n), getattr(b, n)) for n in arrays)
    )


def _values_agree(pdf: Any, data: bytes, spans: list[Any]) -> bool:
    """Every object's value() equals parse_objects' value of it (NotImplemented where it has none)."""
    lazy, eager = _objects(pdf, data, spans), _objects(pdf, data, spans)
    lazy._read_object_streams()
    nodes = lazy.nodes
    if nodes is None:
        return True
    eager._read_object_streams()
    eager.fill_cache()
    parsed = eager.cache
    for number, *_ in spans:
        value = nodes.value(number)
        if (value is NotImplemented) != ((number, 0) not in parsed) or (value is not NotImplemented and value != parsed[(number, 0)]):
            return False
        if nodes.is_dict(number) is True and type(value) is not dict:  # structure.py's /ParentTree check
            return False
        if not _owners_agree(nodes, number, value, parsed):
            return False
    return True


def _owners_agree(nodes: Any, number: int, value: Any, parsed: dict[Any, Any]) -> bool:
    """place_owners(number) placed what structure.py's /ParentTree reading
    places from the value (each reference to a dictionary, by index), or
    declined, leaving its dict untouched."""
    out: dict[Any, Any] = {}
    if nodes.place_owners(number, (1, 0), out) is NotImplemented:
        return not out
    if type(value) is not list:
        return False
    expected = {(owner, mcid): (1, 0) for mcid, owner in enumerate(value) if type(owner) is tuple and type(parsed.get(owner)) is dict}
    return out == expected


def _cell_mutant(rng: random.Random, values: dict[Any, Any], root_ref: Any) -> dict[Any, Any]:
    """Some elements made TH/TD cells with table attributes (§14.8.5.7) in
    every form the node walk reads, well formed or not: /A a dictionary, a
    reference, an array with revision numbers; /C classes through a
    /ClassMap; spans, /Scope, /Headers and /ID of every kind, some through
    references, some to missing objects."""
    out = dict(values)
    top = max((number for number, _ in out), default=0) + 1
    refs = [*list(values)[:50], (999_999, 0)]

    def indirect(value: Any) -> Any:
        nonlocal top
        out[(top, 0)] = value
        top += 1
        return (top - 1, 0)

    def pick(*choices: Any) -> Any:
        value = rng.choice(choices)
        return value(rng) if callable(value) else value

    def attrs(rng: random.Random) -> Any:
        span = (2, 3, 0, -1, 1.5, "/X", None, b"2", rng.choice(refs))
        found = {
            "/O": pick("/Table", "/Table", "/Layout", None, 1),
            "/RowSpan": pick(*span, lambda r: indirect(r.choice(span))),
            "/ColSpan": pick(*span),
            "/Scope": pick("/Row", "/Column", "/Both", "/Bogus", b"Row", lambda r: indirect("/Both")),
            "/Headers": pick([b"h1", 1, "/n", None, (999_999, 0)], [], b"h", lambda r: indirect([b"r", indirect(b"s")])),
        }
        return {k: v for k, v in found.items() if rng.random() < 0.7}

    attribute = (attrs, lambda r: indirect(attrs(r)), lambda r: [attrs(r), 0, indirect(attrs(r)), "/N"], None, 3, (999_999, 0))
    root = out.get(root_ref)
    if type(root) is dict and rng.random() < 0.7:
        classes = {f"/c{i}": pick(*attribute, lambda r: [attrs(r), indirect(attrs(r))]) for i in range(3)}
        out[root_ref] = {**root, "/ClassMap": pick(classes, classes, lambda r: indirect(classes), [])}
    elements = [ref for ref, value in values.items() if type(value) is dict and "/S" in value]
    for ref in rng.sample(elements, min(len(elements), rng.randint(1, 6))):
        cell = {**out[ref], "/S": pick("/TD", "/TH")}
        if rng.random() < 0.7:
            cell["/A"] = pick(*attribute)
        if rng.random() < 0.4:
            cell["/C"] = pick("/c0", "/c1", ["/c2", "/c0", "/none", 4], b"c1", lambda r: indirect("/c1"))
        if rng.random() < 0.4:
            cell["/ID"] = pick(b"id", "/id", 5, lambda r: indirect(b"ref-id"), (999_999, 0))
        out[ref] = cell
    return out


def _edited(rng: random.Random, data: bytes, spans: list[Any], mutate: Callable[..., bytes]) -> tuple[bytes, list[Any]]:
    """The stream with one object's bytes edited (the spans follow)."""
    if not spans:
        return data, spans
    k = rng.randrange(len(spans))
    number, start, end, held = spans[k]
    piece = mutate(rng, data[start:end], [data[s:e] for _, s, e, _ in spans], 2)
    shift = len(piece) - (end - start)
    out = [*spans[:k], (number, start, start + len(piece), held)]
    out += [(n, s + shift, e + shift, h) for n, s, e, h in spans[k + 1 :]]
    return data[:start] + piece + data[end:], out


def run(args: argparse.Namespace, mutate: Callable[..., bytes]) -> int:
    rng = random.Random(args.seed)
    sources = [(pdf, _values(pdf)) for pdf in _sources(args.corpus, 3000)]
    campaign = Campaign(args.seconds, args.report)
    runs = findings = walked = left = 0
    while campaign.running(runs=runs, walked=walked, left=left, findings=findings):
        pdf, values = rng.choice(sources)
        mutant = _mutant(rng, values)
        if runs % 3 == 0:
            mutant = _cell_mutant(rng, mutant, pdf.Root.StructTreeRoot.objgen)
        data, spans = _stream(mutant)
        if runs % 2:
            data, spans = _edited(rng, data, spans, mutate)
        by_nodes = None
        try:
            by_nodes = _read(pdf, data, spans, True)
            plain = None if by_nodes is None else _read(pdf, data, spans, False)
            same = by_nodes is None or (by_nodes == plain and _tables_agree(by_nodes, plain))
            same = same and _values_agree(pdf, data, spans)
        except Exception as exc:  # a finding: broken objects are warnings, never exceptions
            print(f"exception {type(exc).__name__}: {exc}", file=sys.stderr)
            same = False
        walked += by_nodes is not None
        left += by_nodes is None
        if not same:
            findings += 1
            print(f"trees or values differ, or raised: run {runs}, stream {data[:300]!r}", file=sys.stderr)
        runs += 1
    print(f"trees: {len(sources)}  walked by nodes: {walked}  left to the plain walk: {left}")
    print(f"runs: {runs}  cpu seconds: {campaign.cpu:.0f}  findings: {findings}")
    return 1 if findings else 0
