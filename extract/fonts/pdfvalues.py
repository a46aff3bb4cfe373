"""Reading font-dictionary values defensively.

Font dictionaries in the wild hold every kind of wrong value: a name where a
number belongs, a string where a name belongs, arrays of nulls, streams whose
filter fails. Every helper here returns a default instead of raising, so the
font modules can state what they want in one line and stay readable.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pikepdf

from ragprep.extract.errors import describe
from ragprep.extract.streams import read_stream as read_capped

# Python types pikepdf converts PDF numbers to (integers -> int, reals -> Decimal).
_NUMBER_TYPES = (int, float, Decimal)
_EXACT_NUMBER_TYPES = frozenset(_NUMBER_TYPES)


def is_number(value: Any) -> bool:
    return isinstance(value, _NUMBER_TYPES) and not isinstance(value, bool)


def get(container: Any, key: str) -> Any:
    """``container[key]`` for dictionaries and stream dictionaries, else None."""
    if container is None:
        return None
    try:
        return container.get(key)
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception:  # not a dictionary, or a reference that cannot be resolved
        return None


def name(value: Any) -> str | None:
    """The text of a name object without the slash, else None."""
    if isinstance(value, pikepdf.Name):
        return str(value)[1:]
    return None


def number(value: Any, default: float | None = None) -> float | None:
    if is_number(value):
        result = float(value)
        if result == result and abs(result) != float("inf"):  # drop NaN and infinities
            return result
    return default


def integer(value: Any, default: int | None = None) -> int | None:
    if is_number(value):
        try:
            return int(value)
        except (ValueError, OverflowError):
            return default
    return default


def array(value: Any) -> list[Any] | None:
    """The elements of an array object (or of a list from ``number_groups``), else None."""
    if isinstance(value, list):
        return value
    if isinstance(value, pikepdf.Array):
        try:
            return list(value)
        except MemoryError:
            raise  # the document fails (MemoryLimitError), never a warning
        except Exception:
            return None
    return None


def numbers(value: Any) -> list[float] | None:
    """An array whose elements are all numbers, as floats; None otherwise.

    /Widths and /W hold thousands of numbers per font: an array is read from
    its unparsed text when every token of it is a number (float() of the
    token is float() of the Decimal pikepdf would give), without one pikepdf
    object per element; anything else (a reference, a name, a nested array)
    takes the element-wise path. bool, which pikepdf gives for PDF booleans,
    is a type of its own and never passes."""
    if isinstance(value, pikepdf.Array):
        found = _unparsed_numbers(value)
        if found is not None:
            return found
    items = array(value)
    if items is None or not set(map(type, items)) <= _EXACT_NUMBER_TYPES:
        return None
    return list(map(float, items))


def _unparsed_tokens(value: pikepdf.Array) -> list[bytes] | None:
    """The tokens inside qpdf's text of an array ("[ 1 [ 2.5 ] ]": qpdf puts
    blanks around every token, brackets too)."""
    try:
        text = value.unparse(resolved=True)
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception:
        return None
    if not (text.startswith(b"[") and text.endswith(b"]")):
        return None
    return text[1:-1].split()


def _unparsed_numbers(value: pikepdf.Array) -> list[float] | None:
    """The elements of an array of numbers read from its text, or None when
    a token is not a finite number."""
    tokens = _unparsed_tokens(value)
    if tokens is None:
        return None
    try:
        found = list(map(float, tokens))
    except ValueError:
        return None
    return found if all(map(math.isfinite, found)) else None


def number_groups(value: Any) -> list[Any] | None:
    """An array of numbers and arrays of numbers (a CIDFont's /W or /W2,
    §9.7.4.3) as Python floats and lists, read from its text; None when it
    holds anything else (then read it with ``array``). Every helper here
    takes the floats and lists as it takes pikepdf's objects."""
    if not isinstance(value, pikepdf.Array):
        return None
    tokens = _unparsed_tokens(value)
    if tokens is None:
        return None
    top: list[Any] = []
    group: list[float] | None = None
    try:
        for token in tokens:
            if token == b"[":
                if group is not None:
                    return None
                group = []
            elif token == b"]":
                if group is None or not all(map(math.isfinite, group)):
                    return None
                top.append(group)
                group = None
            else:
                number = float(token)
                if not math.isfinite(number):
                    return None
                (top if group is None else group).append(number)
    except ValueError:
        return None
    return top if group is None else None


def finite_numbers(value: Any) -> list[float] | None:
    """``numbers`` when every one is finite (what ``number`` keeps), else None."""
    found = numbers(value)
    return found if found is not None and all(map(math.isfinite, found)) else None


def dictionary(value: Any) -> pikepdf.Dictionary | None:
    if isinstance(value, pikepdf.Dictionary):
        return value
    return None


def is_stream(value: Any) -> bool:
    return isinstance(value, pikepdf.Stream)


def string_bytes(value: Any) -> bytes | None:
    if isinstance(value, pikepdf.String):
        return bytes(value)
    return None


def object_key(value: Any) -> tuple[int, int] | None:
    """(object number, generation) of an indirect object, else None."""
    try:
        if value.is_indirect:
            objgen: tuple[int, int] = value.objgen
            return objgen
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception:
        pass
    return None


def read_stream(stream: Any, max_bytes: int) -> tuple[bytes | None, str | None]:
    """Decoded data of a font resource stream (ToUnicode, CMap, font program) and a warning.

    Uses the interpreter's capped reader (``ragprep.extract.streams``), so a
    flate bomb hidden in a font resource never reaches memory. Returns
    (None, reason) when the stream cannot be read at all.
    """
    if not is_stream(stream):
        return None, "not a stream"
    try:
        return read_capped(stream, max_bytes)
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception as exc:  # StreamLimitError, StreamDecodeError, qpdf errors
        return None, describe(exc)
