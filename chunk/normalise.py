"""The one normalisation between document text and chunk text.

``chunk.text == chunk.header_prefix + normalise(document_text[char_start:char_end])``.
In order:

1. soft hyphens (U+00AD) are removed;
2. with ``dehyphenate``, a hyphen ending a line (or a page: ``\\f``) after a
   letter is joined with the next line when that line starts with a lowercase
   letter: ``infor-\\nmation`` -> ``information``;
3. the page separator ``\\f`` becomes a newline;
4. runs of spaces/tabs become one space, spaces around newlines go, more than
   two newlines in a row become two, and the ends are stripped.
"""

from __future__ import annotations

import re

SOFT_HYPHEN = "\u00ad"
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])-[ \t]*[\n\f][ \t]*(?=[^\W\d_])")
_SPACES = re.compile(r"[ \t]+")
_SPACE_AROUND_NL = re.compile(r" ?\n ?")
_MANY_NL = re.compile(r"\n{3,}")
_DIGITS = re.compile(r"\d+")
_WS = re.compile(r"\s+")


def _join_hyphen(match: re.Match[str]) -> str:
    return "" if match.string[match.end()].islower() else match.group(0)


def normalise(text: str, *, dehyphenate: bool = True) -> str:
    text = text.replace(SOFT_HYPHEN, "")
    if dehyphenate:
        text = _HYPHEN_BREAK.sub(_join_hyphen, text)
    text = text.replace("\f", "\n")
    text = _SPACES.sub(" ", text)
    text = _SPACE_AROUND_NL.sub("\n", text)
    text = _MANY_NL.sub("\n\n", text)
    return text.strip()


def boilerplate_key(text: str) -> str:
    """Text compared across pages: normalised, digits masked (page numbers,
    dates), whitespace collapsed, case folded."""
    return _WS.sub(" ", _DIGITS.sub("#", normalise(text))).strip().casefold()
