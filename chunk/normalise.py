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

from ragprep.extract.running import masked_key

SOFT_HYPHEN = "\u00ad"
# Patterns start with a literal or match only what must change: a pattern
# that can start anywhere (a lookbehind, a lone space) makes the engine try
# every position, and normalisation runs on every span the packer measures.
_HYPHEN_BREAK = re.compile(r"-[ \t]*[\n\f][ \t]*(?=[^\W\d_])")
_LETTER = re.compile(r"[^\W\d_]")
_SPACES = re.compile(r"\t[ \t]*| [ \t]+")  # a tab, or two or more blanks; a single space stays
_MANY_NL = re.compile(r"\n{3,}")


def _join_hyphen(match: re.Match[str]) -> str:
    text, start = match.string, match.start()
    after_letter = start > 0 and _LETTER.match(text, start - 1) is not None
    return "" if after_letter and text[match.end()].islower() else match.group(0)


def normalise(text: str, *, dehyphenate: bool = True) -> str:
    text = text.replace(SOFT_HYPHEN, "")
    if dehyphenate:
        text = _HYPHEN_BREAK.sub(_join_hyphen, text)
    text = text.replace("\f", "\n")
    text = _SPACES.sub(" ", text)
    text = text.replace(" \n", "\n").replace("\n ", "\n")
    text = _MANY_NL.sub("\n\n", text)
    return text.strip()


def boilerplate_key(text: str) -> str:
    """Text compared across pages: normalised, digits masked (page numbers,
    dates), whitespace collapsed, case folded: the key extraction uses for
    running headers and footers (``extract.running.masked_key``), of the
    normalised text."""
    return masked_key(normalise(text))
