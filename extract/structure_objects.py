"""The objects of a structure tree as plain Python values, each read once.

Reading the tree through pikepdf costs a pikepdf object per key, value and
array item (about 20 µs per element); a tagged document has hundreds of
elements per page. Here each indirect object is unparsed once by qpdf and
parsed by the compiled core (``_core.parse_object``) into plain values:

* dict (keys are names, "/Key"; a null value is an absent key, §7.3.7),
  list, int, float, bool, None;
* str for a name, "/Name" as pikepdf spells it; bytes for a string;
* ``(number, generation)``, a tuple, for an indirect reference (§7.3.10):
  indirect objects stay references until ``resolve`` reads them, so a
  walker knows each object's identity (cycles, shared subtrees);
* ``Stream`` for a stream: only its identity is kept.

Without the compiled core (``RAGPREP_PURE=1``, or not built) ``plain``
converts the pikepdf object to the same values: it is the reference of
tests/extract/test_structure_objects.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pikepdf
from pikepdf import ObjectType

from ragprep.extract.native import compiled_core

__all__ = ["PlainObjects", "Ref", "Stream", "kind_of", "plain", "text_string"]

Ref = tuple[int, int]


@dataclass(frozen=True)
class Stream:
    """A stream object (§7.3.8), by its object number and generation."""

    objgen: Ref


_DICT, _ARRAY, _STREAM = ObjectType.dictionary, ObjectType.array, ObjectType.stream
_NAME, _STRING = ObjectType.name_, ObjectType.string


def plain(obj: Any) -> Any:
    """A pikepdf object as plain values (see the module docstring); what an
    indirect object holds is a reference, not its value."""
    if type(obj) is not pikepdf.Object:
        return float(obj) if isinstance(obj, Decimal) else obj  # pikepdf gives int, bool, None, Decimal
    code = obj._type_code
    if code is _NAME:
        return str(obj)
    if code is _STRING:
        return bytes(obj)
    if code is _ARRAY:
        return [_held(item) for item in obj]
    if code is _DICT:
        return {key: _held(value) for key, value in obj.items() if value is not None}
    if code is _STREAM:
        return Stream(obj.objgen)
    return None  # null, and what pikepdf cannot hold (operators, inline images)


def _held(obj: Any) -> Any:
    """An item of a container: a reference when it is an indirect object."""
    if type(obj) is pikepdf.Object and obj.is_indirect:
        return obj.objgen
    return plain(obj)


def text_string(raw: bytes) -> str:
    """A PDF text string (§7.9.2.2) as pikepdf decodes it (PDFDocEncoding, UTF-16BE, UTF-8)."""
    return str(pikepdf.String(raw))


# §7.3's names of the object types, for messages.
_KINDS = {
    bool: "boolean", int: "integer", float: "real", str: "name", bytes: "string",
    list: "array", dict: "dictionary", Stream: "stream", type(None): "null",
}  # fmt: skip


def kind_of(value: Any) -> str:
    """What kind of PDF object (§7.3) a plain value is, for messages."""
    return _KINDS.get(type(value), type(value).__name__)


class PlainObjects:
    """The document's indirect objects as plain values, read on first use."""

    def __init__(self, pdf: pikepdf.Pdf) -> None:
        self._pdf = pdf
        core = compiled_core()
        self._parse = core.parse_object if core is not None else None
        self._cache: dict[Ref, Any] = {}

    def resolve(self, ref: Ref) -> Any:
        """The value of indirect object `ref`; None for a missing object (§7.3.10)."""
        cache = self._cache
        if ref in cache:
            return cache[ref]
        value = cache[ref] = self._read(self._pdf.get_object(ref))
        return value

    def value(self, value: Any) -> Any:
        """`value` with a reference replaced by what it refers to."""
        return self.resolve(value) if type(value) is tuple else value

    def of(self, obj: Any) -> Any:
        """A pikepdf object (direct or indirect) as a plain value."""
        if type(obj) is pikepdf.Object and obj.is_indirect:
            return self.resolve(obj.objgen)
        return self._read(obj)

    def _read(self, obj: Any) -> Any:
        parse = self._parse
        if parse is not None and type(obj) is pikepdf.Object and obj._type_code in (_DICT, _ARRAY):
            return parse(obj.unparse(resolved=True))
        return plain(obj)
