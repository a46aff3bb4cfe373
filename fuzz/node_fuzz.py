"""Differential fuzzing of the node walk (_core.TreeObjects: the object
streams' bytes parsed into nodes, and the structure tree walked over them).

core_fuzz.py --target nodes runs this inside its sanitizer build. Each
iteration takes the plain values of a tagged PDF's objects (tree_fuzz.py's
builder tree and the small tagged trees of --corpus), changes a few of them
as tree_fuzz.py does, writes them as one object stream (§7.5.7), and, every
other iteration, edits that stream's bytes too (core_fuzz.py's token
mutations: cut, repeated or foreign tokens, which the node parser must
refuse or read exactly as parse_objects does). The tree is then read twice
from those bytes: by the node walk, and, from a fresh reader, by the walk of
plain values (_core.walk_struct over parse_objects' values). A finding is an
exception out of either, a node walk that answers where the two trees
differ, or an object whose value() differs from parse_objects' value; a
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
    return True


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
        data, spans = _stream(_mutant(rng, values))
        if runs % 2:
            data, spans = _edited(rng, data, spans, mutate)
        by_nodes = None
        try:
            by_nodes = _read(pdf, data, spans, True)
            same = by_nodes is None or by_nodes == _read(pdf, data, spans, False)
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
