"""Reading font-dictionary values defensively.

Font dictionaries in the wild hold every kind of wrong value: a name where a
number belongs, a string where a name belongs, arrays of nulls, streams whose
filter fails. Every helper here returns a default instead of raising, so the
font modules can state what they want in one line and stay readable.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pikepdf

from ragprep.extract.errors import describe
from ragprep.extract.streams import read_stream as read_capped

# Python types pikepdf converts PDF numbers to (integers -> int, reals -> Decimal).
_NUMBER_TYPES = (int, float, Decimal)


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
    """The elements of an array object, else None."""
    if isinstance(value, pikepdf.Array):
        try:
            return list(value)
        except MemoryError:
            raise  # the document fails (MemoryLimitError), never a warning
        except Exception:
            return None
    return None


def numbers(value: Any) -> list[float] | None:
    """An array whose elements are all numbers, as floats; None otherwise."""
    items = array(value)
    if items is None or not all(is_number(item) for item in items):
        return None
    return [float(item) for item in items]


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
