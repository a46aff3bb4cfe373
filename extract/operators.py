"""Counting a content stream's operators and cutting it into bounded slices.

pikepdf's tokenizer builds every instruction of the stream it is given before
handing back the first one (about 0.3-1.5 KB each), so a small flate stream of
millions of ``n`` operators exhausts memory long before a count taken after
parsing could stop it. This module finds operator boundaries first, with one
regular expression run at C speed over the decoded bytes, so the interpreter
hands pikepdf at most ``SLICE_OPERATORS`` operators at a time and stops at the
page's budget without building what lies beyond it.

What counts as one operator (the rule the compiled core counts by too): every
keyword token of the stream (§7.8.2) — a run of regular characters (§7.2.2)
that is not a number (§7.3.3), not ``true``, ``false`` or ``null``, and not
inside a string, a name or a comment. Path, colour, image and unknown keywords
count like text operators. An inline image, ``BI`` … ``ID`` data ``EI``
(§8.9.7), counts once, as pikepdf hands it over as one instruction.

Lexing here is an approximation of qpdf's in one respect: literal strings are
recognised with at most ``_STRING_DEPTH`` levels of nested balanced parentheses
(§7.3.4.2); a deeper or unbalanced one is read as loose delimiters, which can
only make the count larger.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# Operators handed to pikepdf per parse: bounds the instructions alive at once.
SLICE_OPERATORS = 50_000

_WS = rb"\x00\t\n\x0c\r "
_REGULAR = rb"[^" + _WS + rb"()<>\[\]{}/%]"
_STRING_DEPTH = 4


def _literal_string(depth: int) -> bytes:
    """A literal string with up to `depth` levels of nested parentheses."""
    inner = rb"[^()\\]++|\\(?s:.)"
    pattern = rb"\((?:" + inner + rb")*+\)"
    for _ in range(depth - 1):
        pattern = rb"\((?:" + inner + rb"|" + pattern + rb")*+\)"
    return pattern


# Everything that is not an operator, one token at a time; the last branch
# takes a lone delimiter (an unbalanced parenthesis, a stray '>'), so every
# byte is covered by either this or _OPERATOR.
_SKIP = (
    rb"(?:[" + _WS + rb"]++"
    rb"|%[^\r\n]*+"
    rb"|" + _literal_string(_STRING_DEPTH) +
    rb"|<<|>>"
    rb"|<[^<>]*+>"
    rb"|/" + _REGULAR + rb"*+"
    rb"|[+-]?(?:\d+\.?\d*|\.\d+)(?!" + _REGULAR + rb")"
    rb"|(?:true|false|null)(?!" + _REGULAR + rb")"
    rb"|[()<>\[\]{}])"
)
# A keyword, but not ID: inline image data follows ID and is not tokens.
_OPERATOR = rb"(?!ID(?!" + _REGULAR + rb"))" + _REGULAR + rb"++"
_ONE = _SKIP + rb"*+" + _OPERATOR
_ONE_RE = re.compile(_ONE)
_INLINE_DATA_START = re.compile(_SKIP + rb"*+ID[" + _WS + rb"]")
_INLINE_DATA_END = re.compile(rb"[" + _WS + rb"]EI(?!" + _REGULAR + rb")")


def _run(count: int) -> re.Pattern[bytes]:
    # re caches compiled patterns; slices use a handful of distinct counts.
    return re.compile(rb"(?:" + _ONE + rb"){0,%d}" % count)


def _exact(count: int) -> re.Pattern[bytes]:
    return re.compile(rb"(?:" + _ONE + rb"){%d}" % count)


# An operator takes at least 2 bytes (itself and a delimiter); content
# streams average about 8 (measured on the corpus).
_MIN_BYTES, _LIKELY_BYTES = 2, 8


def _take(data: bytes, pos: int, end: int, want: int) -> tuple[int, int]:
    """Up to `want` operators from `pos`, stopping before an inline image's
    data: (how many, where they end). One pass over the bytes where it can
    be: the rest of a stream too short to hold `want` (and free of inline
    images) is counted whole; a long one is first tried for exactly `want`."""
    if (end - pos) < _MIN_BYTES * want and data.find(b"ID", pos, end) < 0:
        return _ONE_RE.subn(b"", data[pos:end])[1], end
    if (end - pos) > _LIKELY_BYTES * want:
        exact = _exact(want).match(data, pos, end)
        if exact is not None:
            return want, exact.end()
    match = _run(want).match(data, pos, end)
    assert match is not None  # {0,n} matches the empty string at worst
    found = _ONE_RE.subn(b"", data[pos : match.end()])[1] if match.end() > pos else 0
    return found, match.end()


def count_operators(data: bytes) -> int:
    """The number of operators in decoded content-stream bytes (see module doc)."""
    return sum(piece.operators for piece in slices(data, len(data) + 1))


@dataclass(frozen=True, slots=True)
class Slice:
    """A run of whole operators: data[start:end] of the stream."""

    start: int
    end: int
    operators: int


def slices(data: bytes, size: int, start: int = 0, end: int | None = None) -> Iterator[Slice]:
    """Cut data[start:end] after every `size` operators (inline images whole).

    The last slice runs to `end` and takes any trailing operands along.
    """
    end = len(data) if end is None else end
    pos = start
    while pos < end:
        slice_start, operators = pos, 0
        while operators < size:
            found, pos = _take(data, pos, end, size - operators)
            operators += found
            inline = _INLINE_DATA_START.match(data, pos, end)
            if inline is None:
                if found == 0 or operators < size:
                    break
                continue
            # Inline image data, through its EI (the rest of the stream when
            # EI is missing); BI, counted already, stands for the image.
            close = _INLINE_DATA_END.search(data, inline.end() - 1, end)
            pos = close.end() if close else end
        if operators < size:
            # The run stopped short of `size`: no operator is left, only
            # operands (or nothing), and the tail goes along.
            pos = end
        yield Slice(slice_start, pos, operators)
        if operators == 0:
            return
