"""The one normalisation between document text and chunk text.

``chunk.text == chunk.header_prefix + normalise(document_text[char_start:char_end], ...)``
with the chunk settings (``normaliser(config)``). Offsets stay those of the
document text; only the chunk text is normalised. In order:

1. soft hyphens (U+00AD) are removed;
2. compatibility characters, by ``unicode_form``: ``"ligatures"`` (the
   default) expands the Latin and Armenian ligatures (U+FB00-FB06, U+FB13-FB17,
   U+0132/0133: ``ﬁ`` -> ``fi``) and turns compatibility spaces (no-break, en,
   em, thin, narrow, ideographic...) into a space, so embedding tokenizers see
   the words (``ﬁxed``, not ``ﬁ`` + ``##xed``); ``"nfkc"`` applies all of NFKC
   (Unicode UAX #15), superscripts and full-width forms too; ``"none"`` keeps
   the characters as extracted;
3. with ``dehyphenate``, a hyphen ending a line (or a page: ``\\f``) after a
   letter is joined with the next line when that line starts with a lowercase
   letter: ``infor-\\nmation`` -> ``information``;
4. the page separator ``\\f`` becomes a newline;
5. runs of spaces/tabs become one space, spaces around newlines go, more than
   two newlines in a row become two, and the ends are stripped.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ragprep.extract import masked_key

if TYPE_CHECKING:
    from ragprep.chunk.config import ChunkConfig

SOFT_HYPHEN = "\u00ad"
# Patterns start with a literal or match only what must change: a pattern
# that can start anywhere (a lookbehind, a lone space) makes the engine try
# every position, and normalisation runs on every span the packer measures.
_HYPHEN_BREAK = re.compile(r"-[ \t]*[\n\f][ \t]*(?=[^\W\d_])")
_LETTER = re.compile(r"[^\W\d_]")
_SPACES = re.compile(r"\t[ \t]*| [ \t]+")  # a tab, or two or more blanks; a single space stays
_MANY_NL = re.compile(r"\n{3,}")


def _compatibility_table() -> dict[int, str]:
    """Ligatures to their letters, compatibility spaces to a space (their NFKC forms)."""
    ligatures = [*range(0xFB00, 0xFB07), *range(0xFB13, 0xFB18), 0x0132, 0x0133]
    spaces = [0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000]
    return {cp: unicodedata.normalize("NFKC", chr(cp)) for cp in ligatures + spaces}


_COMPATIBILITY = _compatibility_table()
# str.translate looks every character of the text up in the table; one regex
# scan finds the few that are in it far faster.
_COMPATIBLE = re.compile("[" + "".join(map(chr, sorted(_COMPATIBILITY))) + "]")


def _compatible(match: re.Match[str]) -> str:
    return _COMPATIBILITY[ord(match.group())]


def _join_hyphen(match: re.Match[str]) -> str:
    text, start = match.string, match.start()
    after_letter = start > 0 and _LETTER.match(text, start - 1) is not None
    return "" if after_letter and text[match.end()].islower() else match.group(0)


def normalise(text: str, *, dehyphenate: bool = True, unicode_form: str = "ligatures") -> str:
    # Each pattern runs only where a character it needs is in the text: a
    # scan for one character costs far less than a regex pass, and most
    # block texts need no step but the last (half of chunking's normalising).
    if SOFT_HYPHEN in text:
        text = text.replace(SOFT_HYPHEN, "")
    if not text.isascii():  # compatibility characters are none of ASCII, and NFKC keeps ASCII
        if unicode_form == "ligatures":
            text = _COMPATIBLE.sub(_compatible, text)
        elif unicode_form == "nfkc":
            text = unicodedata.normalize("NFKC", text)
    if dehyphenate and "-" in text:
        text = _HYPHEN_BREAK.sub(_join_hyphen, text)
    text = text.replace("\f", "\n")
    if "\t" in text or "  " in text:
        text = _SPACES.sub(" ", text)
    text = text.replace(" \n", "\n").replace("\n ", "\n")
    if "\n\n\n" in text:
        text = _MANY_NL.sub("\n\n", text)
    return text.strip()


def normaliser(config: ChunkConfig) -> Callable[[str], str]:
    """``normalise`` with the settings of ``config`` (the one way chunk text is made)."""
    return partial(normalise, dehyphenate=config.dehyphenate, unicode_form=config.unicode_form)


_GAP_BLANKS = frozenset(" \t\n\f")


def joined_separator(text: str, left_end: int, right_start: int, left: str, right: str) -> str | None:
    """What ``normalise`` puts between two neighbouring spans of `text`
    normalised together, ``[.., left_end)`` and ``[right_start, ..)`` whose own
    normalised texts are `left` and `right`: ``normalise(whole) == left + sep +
    right``. Claimed only where every step of ``normalise`` stays on its side
    of the gap (the blanks between the last character `left` keeps and the
    first `right` keeps): the gap holds blanks and at least one line or page
    break, and the characters beside it are kept as they are (no hyphen to
    join, no soft hyphen, ligature or compatibility space at the edge); then
    the gap is one or two newlines (rule 5). None otherwise."""
    if not left or not right or left[-1] == "-":
        return None
    start, end = left_end, right_start
    while start > 0 and text[start - 1] in _GAP_BLANKS:
        start -= 1
    while end < len(text) and text[end] in _GAP_BLANKS:
        end += 1
    if start == 0 or end == len(text) or text[start - 1] != left[-1] or text[end] != right[0]:
        return None
    gap = text[left_end:right_start]
    if not _GAP_BLANKS.issuperset(gap):
        return None
    breaks = text.count("\n", start, end) + text.count("\f", start, end)
    return "\n" * min(breaks, 2) if breaks else None


def count_undecodable(text: str) -> int:
    """U+FFFD in a chunk's text: glyphs no font information mapped to Unicode."""
    return text.count("\ufffd")


def boilerplate_key(text: str) -> str:
    """Text compared across pages: normalised, digits masked (page numbers,
    dates), whitespace collapsed, case folded: the key extraction uses for
    running headers and footers (``extract.running.masked_key``), of the
    normalised text."""
    return masked_key(normalise(text))
