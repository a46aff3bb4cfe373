"""The measures behind ``ragprep compare``: pure functions over words, spans and boxes.

Standard library only, so that ``bench/`` and ``bench/chunk_quality.py`` reuse them without
pulling in any dependency (``bench/_metrics.py`` re-exports the word measures from here).

Words
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

Word F1
    ``2·|A∩B| / (|A|+|B|)`` on the word multisets A and B: agreement on *which* words, blind to
    their order.

Order score
    ``LCS(candidate words, reference words) / len(reference words)``: the share of the reference
    words that the candidate reads in the reference's order. ``ragprep compare`` scores each mode
    against structure mode (on the pages where structure is available) and, with ``--gold``,
    against the gold text. 1.0 means every reference word appears in reference order; a page
    read with its two columns interleaved line by line scores about 0.5 to 0.75.

Column jump
    Lines are taken in emitted order, page by page; blank lines are left out. A line is a
    *column line* when it is narrower than ``max_width_share`` (0.6) of the page's text width
    (the x-extent of all the page's lines) and at least ``min_width_share`` (0.15) of it. A
    wider line (a title, a full-width paragraph) ends the current column context, and so does
    a line inside a table (a TD/TH/TR block, or one whose structure path runs through a
    Table): cells read row by row are the table's order, not an interleaving. A narrower line
    is a *fragment* and is passed over: the pieces of a display equation (a sum sign, its
    limits above and below, a fraction's numerator and denominator), a figure label, a page
    number, a paragraph's short last line are not columns, and a reading that goes between
    them is not a column splice. Consecutive column lines belong to one *run* when their
    x-ranges overlap (the run's x-range grows with each line), or when the line continues the
    previous one on its row (half the height shared, less than one line height apart:
    structure mode emits an inline formula or link as a line of its own). Any other column
    line, horizontally disjoint from the current run, switches to a new run.

    A column jump is a switch *back*: into an earlier run of the context (A) that is
    horizontally disjoint from the run just left (B, so A and B are different columns, which
    a centred title above both is not) and not read wholly between A's last line and the
    return (a short line of text set between two centred display equations is the reading
    going down one column), resuming A where the reading left it: the line starts below A's
    last line (its top no higher than the middle of that line) and at most
    ``RESUME_HEIGHTS`` (3) line heights below it. Reading columns one after the other
    (A A A B B B) has no jump; interleaving them (A A B B A A B B) has two: the signature
    A→B→A, counted at each return. A page read band by band (two columns of text, then two
    columns of references well below) resumes no column and has none, and neither does a
    reading that goes back up (a limit above a sum sign). Limitations: a table that only
    geometry knows (stream and layout modes have no table blocks), with each cell on a line
    of its own, has the signature too; columns narrower than ``min_width_share`` of the text
    width (five or more columns) are fragments; columns interleaved on shared baselines are
    joined into one full-width line by the line rule and are not counted.

Interleaved chunk
    A chunk that holds a column jump whole -- the last line read in a column before the
    reading left it, and the line that returns to it: text from one column, then another,
    then the first again, inside one chunk -- a column splice. Jumps are those of the page's
    reading (a chunk that starts inside a page is judged in the page's context, not as if the
    page began with it), so no chunk is interleaved on a page without a column jump. A display
    equation read piece by piece is not one (its pieces are fragments, see Column jump).

Mid-sentence
    The chunk text does not end with . ! ? : ; … (or their CJK forms), optionally followed by
    closing quotes or brackets and a citation mark like ``[12]``.

Block integrity
    Of the blocks that are not empty and fit the chunk budget, the share that lands whole
    inside one chunk's span.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

__all__ = [
    "TokenStats",
    "WordScore",
    "block_kept_whole",
    "column_jumps",
    "ends_mid_sentence",
    "f1",
    "lcs_length",
    "order_score",
    "percentile",
    "score",
    "token_stats",
    "tokenize",
    "word_counts",
]


# --------------------------------------------------------------------------- words


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


# --------------------------------------------------------------------------- order


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``.

    Bit-parallel (Allison & Dix 1986, in Hyyrö's 2004 form): one bit per element of the
    longer sequence, held in a Python integer, so each element of the shorter sequence
    costs a handful of big-integer operations of len/64 machine words each. Two 10,000-word
    pages take milliseconds instead of the 10^8 steps of the textbook table.

    Invariant: bit j of V is 0 exactly where the LCS of the prefix of ``a`` read so far and
    ``b[:j+1]`` grows by one at j; so the LCS is the number of zero bits.
    """
    if len(a) > len(b):
        a, b = b, a  # loop over the shorter sequence, bits over the longer
    n = len(b)
    if not a or n == 0:
        return 0
    wanted = set(a)
    masks: dict[Hashable, int] = {}
    for j, item in enumerate(b):
        if item in wanted:
            masks[item] = masks.get(item, 0) | (1 << j)
    full = (1 << n) - 1
    v = full
    for item in a:
        m = masks.get(item)
        if m is None:
            continue  # no match anywhere: V is unchanged
        u = v & m
        v = ((v + u) | (v - u)) & full
    return n - v.bit_count()


def order_score(candidate: Sequence[Hashable], reference: Sequence[Hashable]) -> float | None:
    """LCS(candidate, reference) / len(reference); None when the reference is empty."""
    if not reference:
        return None
    return lcs_length(candidate, reference) / len(reference)


# --------------------------------------------------------------------------- geometry


BBox = tuple[float, float, float, float]  # x0, y0, x1, y1


def _overlap(a0: float, a1: float, b0: float, b1: float) -> bool:
    return min(a1, b1) > max(a0, b0)


def _same_row(a: BBox, b: BBox) -> bool:
    """``b`` continues line ``a`` on its row: they share half the smaller height vertically
    and sit less than one line height apart horizontally (a gutter is wider)."""
    ha, hb = a[3] - a[1], b[3] - b[1]
    shared = min(a[3], b[3]) - max(a[1], b[1])
    gap = max(b[0] - a[2], a[0] - b[2])
    return shared > 0.5 * min(ha, hb) and gap < max(ha, hb)


# A return resumes a column when it starts at most this many line heights below the last
# line read there; further down, the reading has moved on to a lower band of the page.
RESUME_HEIGHTS = 3.0


@dataclass(frozen=True)
class _Run:
    x0: float
    x1: float
    last: BBox  # the run's last line
    bottom: float  # of its lowest line (y grows upwards)
    top: float  # of its highest line
    last_index: int  # position of its last line among the lines given

    @classmethod
    def start(cls, box: BBox, index: int) -> "_Run":
        return cls(box[0], box[2], box, box[1], box[3], index)

    def extend(self, box: BBox, index: int) -> "_Run":
        return _Run(
            min(self.x0, box[0]), max(self.x1, box[2]), box, min(self.bottom, box[1]), max(self.top, box[3]), index
        )


def _between(left: _Run, last: BBox, box: BBox) -> bool:
    """The run just ``left`` lies wholly below ``last`` (the column's last line read) and
    above ``box`` (the line that goes back to it): the reading went down one column, past
    a line of text set between centred display equations, and came back to nothing."""
    return left.bottom >= box[3] and left.top <= last[1]


def _resumes(last: BBox, box: BBox) -> bool:
    """``box`` continues down the column whose last line read is ``last``: below it
    (y grows upwards), by at most ``RESUME_HEIGHTS`` line heights."""
    height = max(last[3] - last[1], box[3] - box[1])
    below = box[3] <= (last[1] + last[3]) / 2
    return below and last[1] - box[3] <= RESUME_HEIGHTS * height


def column_jumps(
    boxes: Sequence[BBox | None],
    *,
    text_width: float,
    max_width_share: float = 0.6,
    min_width_share: float = 0.15,
) -> int:
    """Column jumps among lines given by their boxes, in emitted order.

    See the module docstring for the definition. ``None`` stands for a line that ends the
    column context whatever its width (a table's). ``text_width`` is the x-extent of all the
    page's lines.
    """
    return len(column_jump_lines(boxes, text_width=text_width, max_width_share=max_width_share,
                                 min_width_share=min_width_share))  # fmt: skip


def column_jump_lines(
    boxes: Sequence[BBox | None],
    *,
    text_width: float,
    max_width_share: float = 0.6,
    min_width_share: float = 0.15,
) -> list[tuple[int, int]]:
    """Each column jump (``column_jumps``) as the positions of two lines: the last line
    read in the column before the reading left it, and the line that returns to it."""
    limit = max_width_share * text_width
    fragment = min_width_share * text_width
    jumps: list[tuple[int, int]] = []
    left: list[_Run] = []  # runs the reading has left, in this context
    run: _Run | None = None
    for index, box in enumerate(boxes):
        if box is None or box[2] - box[0] >= limit:
            left.clear()  # whatever follows starts a new context
            run = None
            continue
        if box[2] - box[0] < fragment:
            continue  # an equation piece, a label: neither a column nor the end of one
        x0, x1 = box[0], box[2]
        if run is None:
            run = _Run.start(box, index)
        elif _overlap(run.x0, run.x1, x0, x1) or _same_row(run.last, box):
            run = run.extend(box, index)
        else:
            # Back in a column (c) that is another column than the one just left, where
            # the reading left it: the A -> B -> A signature.
            resumed = [
                c for c in left
                if _overlap(c.x0, c.x1, x0, x1)
                and not _overlap(c.x0, c.x1, run.x0, run.x1)
                and _resumes(c.last, box)
                and not _between(run, c.last, box)
            ]  # fmt: skip
            if resumed:
                jumps.append((resumed[-1].last_index, index))
            left.append(run)
            run = _Run.start(box, index)
    return jumps


# --------------------------------------------------------------------------- chunks

_SENTENCE_END = re.compile(r"[.!?…:;。！？][\"'”’)\]]*(\[\d+\])*$")


def ends_mid_sentence(text: str) -> bool:
    """True when ``text`` does not end a sentence (trailing blanks ignored)."""
    return not _SENTENCE_END.search(text.rstrip())


def block_kept_whole(chunk_starts: Sequence[int], chunk_ends: Sequence[int], start: int, end: int) -> bool:
    """Does one chunk span [start, end)? ``chunk_starts`` ascending, as chunks are emitted.

    Only the last few chunks starting at or before the block can hold it: with overlap,
    chunk starts advance monotonically, so earlier ones end before later ones do.
    """
    k = bisect.bisect_right(chunk_starts, start)
    return any(chunk_ends[j] >= end for j in range(max(0, k - 3), k))


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) of ascending values, linear between ranks (numpy's default)."""
    if not sorted_values:
        return math.nan
    rank = (len(sorted_values) - 1) * q / 100
    lo = math.floor(rank)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (rank - lo)


@dataclass(frozen=True)
class TokenStats:
    count: int
    mean: float
    p50: float
    p95: float
    max: int


def token_stats(tokens: Sequence[int]) -> TokenStats:
    """Distribution of chunk sizes in tokens (NaN statistics when there are no chunks)."""
    values = sorted(tokens)
    if not values:
        return TokenStats(0, math.nan, math.nan, math.nan, 0)
    return TokenStats(
        count=len(values),
        mean=sum(values) / len(values),
        p50=percentile(values, 50),
        p95=percentile(values, 95),
        max=values[-1],
    )
