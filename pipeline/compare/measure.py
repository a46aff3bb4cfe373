"""From the readings of one document (one ``ModeDocument`` per mode) to its metrics.

Per mode: coverage (glyph counts, unavailable pages), order agreement with structure (order
score on the pages where structure is available, column jumps on every page), chunk quality
(token distribution, block integrity, mid-sentence and boilerplate shares, interleaved
chunks) and, with gold text, order score and word F1 against it. Per pair of modes: word F1
and sequence agreement on the pages both read. Definitions: ``ragprep.pipeline.compare.metrics``.

Every ratio is kept as its numerator and denominator, so corpus totals are sums (word- and
chunk-weighted), never means of per-document ratios.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields

from ragprep.pipeline.compare.gold import GoldText
from ragprep.pipeline.compare.metrics import (
    TokenStats,
    block_kept_whole,
    column_jump_lines,
    ends_mid_sentence,
    lcs_length,
    token_stats,
    tokenize,
)
from ragprep.pipeline.compare.model import ModeDocument, ModePage

REFERENCE_MODE = "structure"  # the order every other mode is scored against
EXCERPT_WORDS = 24  # words shown per mode where readings diverge


@dataclass(frozen=True)
class BlockBudget:
    """Which blocks block integrity counts: those the chunker could keep whole."""

    count_tokens: Callable[[str], int]  # tokens of a block's text as the chunker counts them
    max_tokens: int


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


@dataclass(frozen=True)
class ModeMetrics:
    """One mode over one document (``doc_id`` set) or over the corpus (``doc_id`` None)."""

    doc_id: str | None
    source: str | None
    mode: str
    documents: int
    pages: int
    pages_unavailable: int
    glyphs: int
    untagged_glyphs: int
    artifact_glyphs: int
    undecodable_glyphs: int
    words: int
    # Order score against structure, over the pages where structure is available.
    order_pages: int
    order_reference_words: int
    order_common_words: int  # LCS with the structure words, summed over pages
    column_jumps: int
    chunk_tokens: tuple[int, ...]  # n_tokens of every chunk, in order
    blocks: int  # blocks that fit the budget (block integrity's denominator)
    blocks_whole: int
    body_chunks: int  # chunks not flagged boilerplate
    mid_sentence_chunks: int  # body chunks ending mid-sentence
    boilerplate_chunks: int
    interleaved_chunks: int
    # Against --gold text (zeros when there is none for the document).
    gold_reference_words: int = 0
    gold_candidate_words: int = 0
    gold_common_words: int = 0  # LCS with the gold words
    gold_shared_words: int = 0  # multiset intersection with the gold words

    @property
    def untagged_share(self) -> float | None:
        return _ratio(self.untagged_glyphs, self.glyphs)

    @property
    def artifact_share(self) -> float | None:
        return _ratio(self.artifact_glyphs, self.glyphs)

    @property
    def undecodable_share(self) -> float | None:
        return _ratio(self.undecodable_glyphs, self.glyphs)

    @property
    def order_score(self) -> float | None:
        return _ratio(self.order_common_words, self.order_reference_words)

    @property
    def tokens(self) -> TokenStats:
        return token_stats(self.chunk_tokens)

    @property
    def block_integrity(self) -> float | None:
        return _ratio(self.blocks_whole, self.blocks)

    @property
    def mid_sentence_share(self) -> float | None:
        return _ratio(self.mid_sentence_chunks, self.body_chunks)

    @property
    def boilerplate_share(self) -> float | None:
        return _ratio(self.boilerplate_chunks, len(self.chunk_tokens))

    @property
    def gold_order_score(self) -> float | None:
        return _ratio(self.gold_common_words, self.gold_reference_words)

    @property
    def gold_f1(self) -> float | None:
        return _ratio(2 * self.gold_shared_words, self.gold_candidate_words + self.gold_reference_words)


def total(mode: str, rows: Iterable[ModeMetrics]) -> ModeMetrics:
    """The corpus row of a mode: every count summed, chunk tokens concatenated."""
    rows = [r for r in rows if r.mode == mode]
    sums: dict[str, object] = {}
    for f in fields(ModeMetrics):
        if f.name in ("doc_id", "source", "mode"):
            continue
        if f.name == "chunk_tokens":
            sums[f.name] = tuple(itertools.chain.from_iterable(r.chunk_tokens for r in rows))
        else:
            sums[f.name] = sum(getattr(r, f.name) for r in rows)
    # Summed field by field, by name: each sum keeps its field's type, which a
    # dict of them cannot say.
    return ModeMetrics(doc_id=None, source=None, mode=mode, **sums)  # type: ignore[arg-type]


@dataclass(frozen=True)
class PairAgreement:
    """Two modes on the pages both read, over one document (or the corpus: ``doc_id`` None)."""

    doc_id: str | None
    source: str | None
    mode_a: str
    mode_b: str
    pages: int
    words_a: int
    words_b: int
    shared_words: int  # multiset intersection
    common_words: int  # LCS, summed over pages

    @property
    def word_f1(self) -> float | None:
        return _ratio(2 * self.shared_words, self.words_a + self.words_b)

    @property
    def sequence_agreement(self) -> float | None:
        """LCS / the longer reading: 1.0 only with the same words in the same order."""
        return _ratio(self.common_words, max(self.words_a, self.words_b))


def pair_total(mode_a: str, mode_b: str, rows: Iterable[PairAgreement]) -> PairAgreement:
    rows = [r for r in rows if (r.mode_a, r.mode_b) == (mode_a, mode_b)]
    return PairAgreement(
        None, None, mode_a, mode_b,
        pages=sum(r.pages for r in rows),
        words_a=sum(r.words_a for r in rows),
        words_b=sum(r.words_b for r in rows),
        shared_words=sum(r.shared_words for r in rows),
        common_words=sum(r.common_words for r in rows),
    )


@dataclass(frozen=True)
class Disagreement:
    """The page of a document where two modes agree least, and what each mode reads there."""

    doc_id: str
    source: str
    page: int
    mode_a: str
    mode_b: str
    sequence_agreement: float
    excerpts: tuple[tuple[str, str], ...]  # (mode, normalised words from where readings diverge)


@dataclass(frozen=True)
class DocumentComparison:
    doc_id: str
    source: str
    metrics: tuple[ModeMetrics, ...]  # one per mode, in the order of the modes
    agreements: tuple[PairAgreement, ...]  # one per pair of modes
    worst: Disagreement | None  # None when all modes agree on every page
    # Per pair of modes that disagree somewhere, its worst page (``worst`` is the least of these).
    pair_worst: tuple[Disagreement, ...] = ()

    def metrics_of(self, mode: str) -> ModeMetrics | None:
        return next((m for m in self.metrics if m.mode == mode), None)

    def agreement(self, mode_a: str, mode_b: str) -> PairAgreement | None:
        """The agreement of two modes, in either order."""
        return next((a for a in self.agreements if {a.mode_a, a.mode_b} == {mode_a, mode_b}), None)

    def disagreement(self, mode_a: str, mode_b: str) -> Disagreement | None:
        """Where two modes (either order) agree least, None when they agree everywhere."""
        return next((w for w in self.pair_worst if {w.mode_a, w.mode_b} == {mode_a, mode_b}), None)

    @property
    def tagged(self) -> bool:
        """Some page has structure to score order against."""
        return any(m.order_pages for m in self.metrics)


@dataclass(frozen=True)
class DocumentError:
    source: str
    message: str


@dataclass(frozen=True)
class CompareResult:
    modes: tuple[str, ...]
    documents: tuple[DocumentComparison, ...]
    errors: tuple[DocumentError, ...] = ()
    gold: bool = False  # --gold was given
    max_tokens: int | None = None  # the chunk budget the readings were chunked to

    @property
    def totals(self) -> tuple[ModeMetrics, ...]:
        rows = [m for d in self.documents for m in d.metrics]
        return tuple(total(mode, rows) for mode in self.modes)

    @property
    def pair_totals(self) -> tuple[PairAgreement, ...]:
        rows = [a for d in self.documents for a in d.agreements]
        return tuple(pair_total(a, b, rows) for a, b in itertools.combinations(self.modes, 2))

    def disagreements(self, limit: int = 5) -> tuple[Disagreement, ...]:
        """Documents whose modes disagree most, worst first."""
        found = sorted((d.worst for d in self.documents if d.worst), key=lambda w: (w.sequence_agreement, w.source))
        return tuple(found[:limit])


# --------------------------------------------------------------------------- one document


@dataclass(frozen=True)
class _PageLine:
    start: int  # span in the document text
    end: int
    page_index: int
    bbox: tuple[float, float, float, float]
    table_cell: bool  # inside a table block: not a column line


def _text_width(page: ModePage) -> float:
    if not page.lines:
        return 0.0
    return max(ln.bbox[2] for ln in page.lines) - min(ln.bbox[0] for ln in page.lines)


def _table_cell_lines(page: ModePage) -> list[bool]:
    """Per line of the page: does it start inside a table block?"""
    cells = sorted((b.char_start, b.char_end) for b in page.blocks if b.in_table)
    starts = [s for s, _ in cells]
    out = []
    for ln in page.lines:
        k = bisect.bisect_right(starts, ln.char_start) - 1
        out.append(k >= 0 and ln.char_start < cells[k][1])
    return out


def _doc_lines(doc: ModeDocument) -> list[_PageLine]:
    out = []
    for index, (page, base) in enumerate(zip(doc.pages, doc.page_bases, strict=True)):
        for ln, cell in zip(page.lines, _table_cell_lines(page), strict=True):
            if not page.text[ln.char_start : ln.char_end].strip():
                continue  # a line of blanks has a box but no text to misplace
            out.append(_PageLine(base + ln.char_start, base + ln.char_end, index, ln.bbox, cell))
    return out


def _jumps(lines: Sequence[_PageLine], widths: Sequence[float]) -> list[tuple[_PageLine, _PageLine]]:
    """Column jumps of lines in emitted order, each as (line left, line of the return);
    each page is its own context."""
    out: list[tuple[_PageLine, _PageLine]] = []
    for index, group in itertools.groupby(lines, key=lambda ln: ln.page_index):
        page = list(group)
        boxes = [None if ln.table_cell else ln.bbox for ln in page]
        out.extend((page[a], page[b]) for a, b in column_jump_lines(boxes, text_width=widths[index]))
    return out


@dataclass(frozen=True)
class _ChunkCounts:
    """A mode's chunk quality counts over one document (ModeMetrics' chunk fields)."""

    column_jumps: int
    chunk_tokens: tuple[int, ...]
    blocks: int
    blocks_whole: int
    body_chunks: int
    mid_sentence_chunks: int
    boilerplate_chunks: int
    interleaved_chunks: int


@dataclass(frozen=True)
class _GoldCounts:
    """A mode's words against gold text over one document (zeros without gold)."""

    reference_words: int = 0
    candidate_words: int = 0
    common_words: int = 0
    shared_words: int = 0


def _chunk_metrics(doc: ModeDocument, budget: BlockBudget) -> _ChunkCounts:
    chunks = doc.chunks
    starts = [c.char_start for c in chunks]
    ends = [c.char_end for c in chunks]
    blocks = whole = 0
    for page, base in zip(doc.pages, doc.page_bases, strict=True):
        for b in page.blocks:
            text = page.text[b.char_start : b.char_end]
            if not text.strip():
                continue
            # A token is at least one byte: a block of few bytes fits without counting.
            if len(text.encode("utf-8")) > budget.max_tokens and budget.count_tokens(text) > budget.max_tokens:
                continue
            blocks += 1
            whole += block_kept_whole(starts, ends, base + b.char_start, base + b.char_end)
    jumps = _jumps(_doc_lines(doc), [_text_width(p) for p in doc.pages])
    # A chunk is interleaved when it overlaps both lines of a jump (see metrics: Interleaved chunk).
    interleaved = sum(
        any(c.char_start < left.end and back.start < c.char_end for left, back in jumps)
        for c in chunks
    )
    body = [c for c in chunks if not c.is_boilerplate]
    return _ChunkCounts(
        column_jumps=len(jumps),
        chunk_tokens=tuple(c.n_tokens for c in chunks),
        blocks=blocks,
        blocks_whole=whole,
        body_chunks=len(body),
        mid_sentence_chunks=sum(ends_mid_sentence(c.text) for c in body),
        boilerplate_chunks=len(chunks) - len(body),
        interleaved_chunks=interleaved,
    )


def _gold_metrics(pages: Sequence[int], words: Mapping[int, list[str]], gold: GoldText) -> _GoldCounts:
    """Against gold text; a page the mode could not read counts with no words."""
    if gold.pages:
        pairs = [(words.get(page, []), tokenize(text)) for page, text in gold.pages if page in pages]
    else:
        pairs = [(list(itertools.chain.from_iterable(words.values())), tokenize(gold.document or ""))]
    return _GoldCounts(
        reference_words=sum(len(g) for _, g in pairs),
        candidate_words=sum(len(c) for c, _ in pairs),
        common_words=sum(lcs_length(c, g) for c, g in pairs),
        shared_words=sum((Counter(c) & Counter(g)).total() for c, g in pairs),
    )


def _excerpts(page_words: Sequence[tuple[str, list[str]]]) -> tuple[tuple[str, str], ...]:
    """Each mode's words from a little before the first word where the readings differ."""
    prefix = 0
    sequences = [w for _, w in page_words]
    shortest = min(len(w) for w in sequences)
    while prefix < shortest and len({w[prefix] for w in sequences}) == 1:
        prefix += 1
    start = max(0, prefix - 4)
    out = []
    for mode, w in page_words:
        text = " ".join(w[start : start + EXCERPT_WORDS])
        out.append((mode, ("… " if start else "") + text + (" …" if len(w) > start + EXCERPT_WORDS else "")))
    return tuple(out)


def measure_document(
    readings: Sequence[ModeDocument], budget: BlockBudget, gold: GoldText | None = None
) -> DocumentComparison:
    """Metrics of one document read by several modes (``readings``: one per mode, same doc_id)."""
    first = readings[0]
    # Words once per mode and page; every measure below reuses them.
    words = {
        doc.mode: {p.page: tokenize(p.text) for p in doc.pages if p.available} for doc in readings
    }
    agreements, worst_pages, lcs = _pair_agreements(readings, words)
    reference = words.get(REFERENCE_MODE, {}) if any(d.mode == REFERENCE_MODE for d in readings) else {}
    metrics = tuple(_mode_metrics(doc, words[doc.mode], reference, lcs, budget, gold) for doc in readings)
    pair_worst = tuple(
        Disagreement(first.doc_id, first.source, page, a, b, agreement, _excerpts(
            [(d.mode, words[d.mode][page]) for d in readings if page in words[d.mode]]
        ))
        for agreement, page, a, b in worst_pages
    )
    # The first of the least agreeing pairs, in the order of the modes.
    worst = min(pair_worst, key=lambda w: w.sequence_agreement, default=None)
    return DocumentComparison(first.doc_id, first.source, metrics, tuple(agreements), worst, pair_worst)


def _pair_agreements(
    readings: Sequence[ModeDocument], words: Mapping[str, Mapping[int, list[str]]]
) -> tuple[list[PairAgreement], list[tuple[float, int, str, str]], dict[tuple[str, str, int], int]]:
    """Per pair of modes: their agreement, their least agreeing page (agreement,
    page, a, b) when one disagrees at all, and the LCS of every page both read.
    LCS once per pair of modes and page: it gives both the order score against
    structure and the pairwise sequence agreement."""
    first = readings[0]
    agreements: list[PairAgreement] = []
    worst_pages: list[tuple[float, int, str, str]] = []  # per pair: (agreement, page, a, b)
    lcs: dict[tuple[str, str, int], int] = {}
    for a, b in itertools.combinations([d.mode for d in readings], 2):
        pages = sorted(words[a].keys() & words[b].keys())
        shared = common = 0
        pair_worst: tuple[float, int, str, str] | None = None
        for page in pages:
            wa, wb = words[a][page], words[b][page]
            lcs[a, b, page] = lcs[b, a, page] = common_page = lcs_length(wa, wb)
            common += common_page
            shared += (Counter(wa) & Counter(wb)).total()
            longest = max(len(wa), len(wb))
            agreement = common_page / longest if longest else 1.0
            if agreement < 1.0 and (pair_worst is None or agreement < pair_worst[0]):
                pair_worst = (agreement, page, a, b)
        if pair_worst is not None:
            worst_pages.append(pair_worst)
        agreements.append(
            PairAgreement(
                first.doc_id, first.source, a, b, len(pages),
                words_a=sum(len(words[a][p]) for p in pages),
                words_b=sum(len(words[b][p]) for p in pages),
                shared_words=shared,
                common_words=common,
            )
        )
    return agreements, worst_pages, lcs


def _mode_metrics(
    doc: ModeDocument,
    mine: Mapping[int, list[str]],
    reference: Mapping[int, list[str]],
    lcs: Mapping[tuple[str, str, int], int],
    budget: BlockBudget,
    gold: GoldText | None,
) -> ModeMetrics:
    """One mode's metrics over the document (``mine``: its words per page)."""
    order_pages = sorted(reference.keys())
    common = sum(
        len(reference[p]) if doc.mode == REFERENCE_MODE else lcs.get((doc.mode, REFERENCE_MODE, p), 0)
        for p in order_pages
    )
    chunks = _chunk_metrics(doc, budget)
    against = _gold_metrics([p.page for p in doc.pages], mine, gold) if gold else _GoldCounts()
    return ModeMetrics(
        doc_id=doc.doc_id,
        source=doc.source,
        mode=doc.mode,
        documents=1,
        pages=len(doc.pages),
        pages_unavailable=sum(not p.available for p in doc.pages),
        glyphs=sum(p.glyphs for p in doc.pages),
        untagged_glyphs=sum(p.untagged_glyphs for p in doc.pages),
        artifact_glyphs=sum(p.artifact_glyphs for p in doc.pages),
        undecodable_glyphs=sum(p.undecodable_glyphs for p in doc.pages),
        words=sum(len(w) for w in mine.values()),
        order_pages=len(order_pages),
        order_reference_words=sum(len(reference[p]) for p in order_pages),
        order_common_words=common,
        column_jumps=chunks.column_jumps,
        chunk_tokens=chunks.chunk_tokens,
        blocks=chunks.blocks,
        blocks_whole=chunks.blocks_whole,
        body_chunks=chunks.body_chunks,
        mid_sentence_chunks=chunks.mid_sentence_chunks,
        boilerplate_chunks=chunks.boilerplate_chunks,
        interleaved_chunks=chunks.interleaved_chunks,
        gold_reference_words=against.reference_words,
        gold_candidate_words=against.candidate_words,
        gold_common_words=against.common_words,
        gold_shared_words=against.shared_words,
    )
