"""Token counts of texts joined at a line break, from the counts of their parts.

tiktoken cuts a text into pieces with its encoding's pattern and runs BPE in
each piece alone, so a text's count is the sum of its pieces' counts. Under
cl100k's pattern (pinned in ``CL100K_PATTERN``) a line break between two texts
parts their pieces: for ``left + sep + right``, where ``sep`` is newlines only
and ``right`` starts with a visible character,

* the pieces of ``right`` are those of ``right`` alone: the pattern looks
  behind nothing, and no piece that begins in ``left + sep`` runs on into a
  visible character after a newline (``\\s*[\\r\\n]`` and the newlines a
  punctuation run takes, ``[\\r\\n]*+``, stop there);
* ``left`` ending in a letter or a digit: its pieces are its own (a letter or
  digit run stops at the newline) and ``sep`` is one piece of its own;
* ``left`` ending in a run ``T`` of punctuation, symbols or marks: its last piece ``P`` is
  ``T`` with the one space before it (`` ?[^\\s\\p{L}\\p{N}]++``), and that piece
  takes ``sep`` in (``[\\r\\n]*+``); its other pieces are its own.

So ``count(left + sep + right) = count(left) + extra + count(right)``, where
``extra`` is ``count(sep)``, or ``count(P + sep) - count(P)``: two or three
tiny texts encoded once. Anything else (another pattern, a text ending in
other punctuation or in blanks, a right side starting with a blank) is not
claimed: the caller encodes the whole text. The packer uses this to count a
chunk from its blocks' counts, each block encoded once, with counts exact
(``tests/chunk/test_chunk_joins.py`` holds them equal to encoding the whole).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

# cl100k_base's pre-tokenizer pattern (tiktoken 0.5 and later): the rule above
# is read off it, so any other pattern is not claimed.
CL100K_PATTERN = (
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"
    r"|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
)

# The pattern's \s: Unicode White_Space.
_WHITE_SPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    map(chr, range(0x2000, 0x200B))
)


def _letter_or_digit(char: str) -> bool:
    """\\p{L} or \\p{N}."""
    return unicodedata.category(char)[0] in "LN"


def _run_char(char: str) -> bool:
    """A character of a punctuation run, ``[^\\s\\p{L}\\p{N}]``, of the kinds
    claimed: punctuation, symbols, marks (no control, format or unassigned
    character, where Unicode versions may disagree)."""
    return unicodedata.category(char)[0] in "PSM"


def last_piece(text: str) -> str | None:
    """The last piece of `text` when it is a punctuation run (with the space
    before it, as the pattern takes it); "" when `text` ends in a letter or a
    digit; None otherwise (blanks, control characters, an empty text)."""
    if not text:
        return None
    if _letter_or_digit(text[-1]):
        return ""
    k = len(text)
    while k and _run_char(text[k - 1]):
        k -= 1
    if k == len(text):
        return None
    if k and not (text[k - 1] in _WHITE_SPACE or _letter_or_digit(text[k - 1])):
        return None  # the run goes on with characters not claimed
    return text[k - 1 :] if k and text[k - 1] == " " else text[k:]


class Joins:
    """Counts of ``left + sep + right`` from the counts of ``left`` and ``right``
    (see the module docstring), for one tokenizer's ``count``."""

    def __init__(self, count: Callable[[str], int], pattern: str) -> None:
        self._count = count
        self.enabled = pattern == CL100K_PATTERN
        self._extra: dict[tuple[str, str], int] = {}

    def extra(self, left: str, sep: str, right: str) -> int | None:
        """``count(left + sep + right) - count(left) - count(right)``, or None
        where the rule claims nothing."""
        if not self.enabled or not sep or sep.strip("\n") or not right or right[0] in _WHITE_SPACE:
            return None
        piece = last_piece(left)
        if piece is None:
            return None
        key = (piece, sep)
        known = self._extra.get(key)
        if known is None:
            known = self._extra[key] = self._count(piece + sep) - (self._count(piece) if piece else 0)
        return known

    def after_break(self, left: str, left_tokens: int, right: str, right_tokens: int) -> int | None:
        """``count(left + right)`` for a `left` that ends in a newline (its last
        piece, blanks or a punctuation run with its newlines, stops there), or
        None where the rule claims nothing."""
        if not self.enabled or not left.endswith("\n") or not right or right[0] in _WHITE_SPACE:
            return None
        return left_tokens + right_tokens

    def joined(self, left: str, left_tokens: int, sep: str, right: str, right_tokens: int) -> int | None:
        """``count(left + sep + right)``, or None where the rule claims nothing."""
        extra = self.extra(left, sep, right)
        return None if extra is None else left_tokens + extra + right_tokens
