"""Word-multiset F1 between two texts: the text-quality measure of bench/quality.py.

Standard library only, so the compare feature can reuse this module as is (or move it into
the package) without pulling in any bench dependency.

A "word" is a maximal run of word characters after NFKC normalisation and casefolding.
Word characters are Python's ``\\w`` plus the Unicode combining marks (categories Mn, Mc,
Me). The marks are added on purpose: ``re``'s ``\\w`` excludes them, which would cut every
Devanagari word at each vowel sign and every vocalised Arabic word into single letters, so
"word" F1 on those scripts would silently become letter F1.

Chinese and Japanese are written without spaces, so a "run of word characters" there is a
whole clause or line, and one extractor that breaks lines differently (vertical writing
read as one character per line, say) would score near 0 with every character right. By
default each Han, kana or Bopomofo character is therefore a token of its own (character F1
for those scripts); ``split_cjk=False`` gives the plain run-of-\\w definition. Korean is
spaced and keeps its words. Thai, Lao, Khmer and Myanmar are unspaced too but not split:
their clusters carry combining marks, so per-character tokens would be meaningless.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass

__all__ = ["WordScore", "f1", "score", "tokenize", "word_counts"]


@functools.cache
def _word_re() -> re.Pattern[str]:
    # Built once, on first use (~0.3 s): the set of combining marks depends on the Unicode
    # version of the running Python, so it is derived rather than hard-coded.
    ranges: list[str] = []
    start = prev = -2
    for cp in range(sys.maxunicode + 1):
        if unicodedata.category(chr(cp)) in ("Mn", "Mc", "Me"):
            if cp != prev + 1:
                if start >= 0:
                    ranges.append(_range(start, prev))
                start = cp
            prev = cp
    if start >= 0:
        ranges.append(_range(start, prev))
    return re.compile(r"[\w" + "".join(ranges) + "]+")


def _range(first: int, last: int) -> str:
    return f"\\U{first:08x}" if first == last else f"\\U{first:08x}-\\U{last:08x}"


# Han (with the ideographic iteration/closing marks and Hangzhou numerals), Hiragana,
# Katakana, Bopomofo, CJK extensions A-H and compatibility ideographs. Halfwidth katakana
# need no entry: NFKC has already mapped them to these blocks.
_CJK_CHAR = re.compile(
    "([\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff"
    "\u3100-\u312f\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0002fa1f\U00030000-\U000323af])"
)


def tokenize(text: str, *, split_cjk: bool = True) -> list[str]:
    """Words of ``text`` in order: NFKC, casefold, then maximal word-character runs.

    NFKC first so that ligatures (U+FB01 "ﬁ"), full-width forms and compatibility
    characters count as the letters they stand for; casefold so that case differences
    (small caps drawn as capitals, for instance) are not counted as errors. With
    ``split_cjk`` (the default) every Han/kana character is its own token; see the module
    docstring for why.
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    if split_cjk:
        text = _CJK_CHAR.sub(r" \1 ", text)
    return _word_re().findall(text)


def word_counts(text: str, *, split_cjk: bool = True) -> Counter[str]:
    """The multiset of words of ``text``."""
    return Counter(tokenize(text, split_cjk=split_cjk))


def f1(candidate: Counter[str], reference: Counter[str]) -> float:
    """2·|A∩B| / (|A|+|B|) on multisets; 1.0 when both are empty (nothing to disagree on)."""
    total = candidate.total() + reference.total()
    if total == 0:
        return 1.0
    return 2 * (candidate & reference).total() / total


@dataclass(frozen=True)
class WordScore:
    """Agreement of a candidate text with a reference text, counted in words."""

    candidate_words: int
    reference_words: int
    common_words: int

    @property
    def f1(self) -> float:
        total = self.candidate_words + self.reference_words
        return 1.0 if total == 0 else 2 * self.common_words / total

    @property
    def precision(self) -> float:
        """Share of candidate words found in the reference (low: extra or garbled text)."""
        return 1.0 if self.candidate_words == 0 else self.common_words / self.candidate_words

    @property
    def recall(self) -> float:
        """Share of reference words found in the candidate (low: missing text)."""
        return 1.0 if self.reference_words == 0 else self.common_words / self.reference_words


def score(candidate: Counter[str], reference: Counter[str]) -> WordScore:
    """F1, precision and recall of ``candidate`` against ``reference`` word multisets."""
    return WordScore(
        candidate_words=candidate.total(),
        reference_words=reference.total(),
        common_words=(candidate & reference).total(),
    )
