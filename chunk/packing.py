"""Packing atoms (whole blocks, whole table rows, or pieces of an over-budget
block) into chunk spans on the document text.

Rules, in order of precedence:

* a chunk is a contiguous span ``[start, end)`` of the document text; its text
  (``prefix + normalise(span)``) is at most ``max_tokens`` tokens, except a
  chunk made of one atom that cannot be split further (a run with no
  paragraph, sentence or word boundary);
* atoms: a block, a table row, or a paragraph continued across a column or
  page break (block ending without a sentence end, the next block, on the
  same page or the next, starting lowercase) are each one atom, split only
  when larger than the budget;
* a heading starts a new chunk (consecutive headings stay together), and
  never ends one alone: a body atom after headings that would not fit in
  their chunk is cut so its first piece does; page furniture between a
  heading and its body (the page's footer and the next page's running head,
  when a heading ends a page) goes into the heading's chunk with that body,
  rather than leaving the heading alone;
* a chunk whose new text is under ``min_tokens`` (and not boilerplate) joins
  the chunk before it, else the one after, within the same section and budget;
* boilerplate blocks form chunks of their own, so the flag means something
  (but for the furniture above);
* overlap: a new chunk repeats up to ``overlap_tokens`` tokens from the end
  of the previous chunk's new text -- whole atoms where they fit, else a tail of
  the last atom that starts at a word. No overlap into a chunk that starts with
  a heading, nor into or out of boilerplate;
* tables: a chunk that starts inside a table after its header row gets the
  header row text as ``prefix`` (config ``repeat_table_header``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragprep.chunk.blocks import DocBlock
from ragprep.chunk.config import ChunkConfig
from ragprep.chunk.normalise import joined_separator, normaliser
from ragprep.chunk.splitting import split_offsets, splitter
from ragprep.chunk.tokens import Tokenizer

if TYPE_CHECKING:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

_WORD_START = re.compile(r"(?<=\s)(?=\S)")


@dataclass(frozen=True)
class Atom:
    start: int
    end: int
    tokens: int
    first_block: int
    last_block: int
    heading: bool
    boilerplate: bool
    table: int | None
    header_row: bool
    whole: bool  # covers whole blocks (False for a piece of a split block)


@dataclass(frozen=True)
class _Shared:
    """What every atom cut from one unit of blocks (a block, a table row, a
    continued paragraph) has in common."""

    heading: bool
    boilerplate: bool
    table: int | None
    header_row: bool

    def atom(self, start: int, end: int, tokens: int, first_block: int, last_block: int, whole: bool) -> Atom:
        return Atom(
            start, end, tokens, first_block, last_block,
            heading=self.heading, boilerplate=self.boilerplate, table=self.table, header_row=self.header_row, whole=whole,
        )  # fmt: skip


@dataclass(frozen=True)
class Span:
    start: int  # including overlap
    core_start: int  # where the chunk's new text starts
    end: int
    prefix: str
    first_atom: int  # first atom of the new text
    last_atom: int


_SENTENCE_END = re.compile(r"[.!?:;…。！？][\"'”’)\]]*\s*$")


def continues(prev: DocBlock, cur: DocBlock) -> bool:
    """`cur` carries on the paragraph `prev` left unfinished at a column or
    page end: the same page or the next, plain text both, no sentence end
    before, lowercase after. (In reading order the two are neighbours; a
    column break, a figure set inside the paragraph, or the page end parted
    them into two blocks.)"""
    if cur.page_index not in (prev.page_index, prev.page_index + 1):
        return False
    for b in (prev, cur):
        if b.heading_level is not None or b.table is not None or b.boilerplate:
            return False
    head = cur.block.text.lstrip()[:1]
    return bool(head) and head.islower() and not _SENTENCE_END.search(prev.block.text)


def _heading_lead(atoms: Sequence[Atom]) -> int:
    """Tokens of the headings at the end of ``atoms``, and of the page
    furniture after them (one separator each): what the next atom shares its
    chunk with (see ``_furniture_end``); 0 when no heading is there."""
    lead = headings = 0
    for prev in reversed(atoms):
        if prev.heading:
            headings += 1
        elif headings or not prev.boilerplate:
            break
        lead += prev.tokens + 1
    return lead if headings else 0


def _furniture_end(atoms: Sequence[Atom], i: int, j: int) -> int | None:
    """Rule "a heading never ends a chunk alone", across page furniture: when
    the chunk atoms[i:j] is all headings and boilerplate follows at j (a
    heading ending a page: the footer, then the next page's running head),
    the index of the first atom after that furniture, which the chunk goes on
    to; None otherwise (and when only furniture follows)."""
    if not atoms[j].boilerplate or atoms[i].boilerplate or not all(a.heading for a in atoms[i:j]):
        return None
    k = j
    while k < len(atoms) and atoms[k].boilerplate:
        k += 1
    return k if k < len(atoms) else None


class Packer:
    def __init__(self, text: str, tokenizer: Tokenizer, config: ChunkConfig) -> None:
        self.text = text
        self.tok = tokenizer
        self.cfg = config
        self._normalise = normaliser(config)
        # Packing measures the same spans more than once (the budget check,
        # the overlap search, the chunk's own count): tokenizing is the cost.
        self._counts: dict[tuple[str, int, int], int] = {}
        self._norms: dict[tuple[int, int], str] = {}  # normalising a span costs about what encoding it does
        self._splitters: dict[int, RecursiveCharacterTextSplitter] = {}  # by piece size
        # Each atom's neighbour before it, by the atom's end (every packed
        # segment's): a span that ends at an atom's end is counted from the
        # count of the span up to that neighbour and the atom's own
        # (``_joined_count``). `_joined_spans` holds the spans counted so.
        self._after: dict[int, tuple[Atom, Atom]] = {}
        self._joined_spans: set[tuple[int, int]] = set()

    def norm(self, start: int, end: int) -> str:
        key = (start, end)
        normal = self._norms.get(key)
        if normal is None:
            normal = self._norms[key] = self._normalise(self.text[start:end])
        return normal

    def count(self, prefix: str, start: int, end: int) -> int:
        """Tokens of ``prefix + norm(start, end)``."""
        key = (prefix, start, end)
        counted = self._counts.get(key)
        if counted is None:
            joined = None if prefix else self._joined_count(start, end, encode=True)
            counted = self._counts[key] = self.tok.count(prefix + self.norm(start, end)) if joined is None else joined
        return counted

    def known(self, prefix: str, start: int, end: int) -> int | None:
        """``count(prefix, start, end)`` when it is known without encoding
        anything (counted before, or joined from counted parts), else None."""
        counted = self._counts.get((prefix, start, end))
        if counted is None and not prefix:
            counted = self._joined_count(start, end, encode=False)
        return counted

    def fits(self, prefix: str, start: int, end: int, budget: int) -> bool:
        """``count(prefix, start, end) <= budget``, encoding the span only when
        its count is not known and its word count (Tokenizer.at_least) does not
        already exceed the budget: the overlap search and the small-chunk test
        ask this of long spans."""
        known = self.known(prefix, start, end)
        if known is not None:
            return known <= budget
        if self.tok.at_least(prefix + self.norm(start, end)) > budget:
            return False
        return self.count(prefix, start, end) <= budget

    def _joined_count(self, start: int, end: int, *, encode: bool) -> int | None:
        """``count("", start, end)`` for a span that ends at an atom's end and
        starts before that atom: the counts of its atoms joined in turn
        (``Tokenizer.joins``) where normalising neighbours together changes
        neither (``joined_separator``), from the atom it starts in (or the tail
        of it: encoded only when `encode`), or from a span up to an atom before
        that was counted so. None where a join is not claimed."""
        joins: list[tuple[int, Atom]] = []  # (tokens the join adds, the atom joined), last first
        cut = end
        while True:
            pair = self._after.get(cut)
            if pair is None or start >= pair[1].start or start >= pair[0].end:
                return None
            before, atom = pair
            left, right = self.norm(max(start, before.start), before.end), self.norm(atom.start, atom.end)
            sep = joined_separator(self.text, before.end, atom.start, left, right)
            extra = None if sep is None else self.tok.joins.extra(left, sep, right)
            if extra is None:
                return None
            joins.append((extra, atom))
            cut = before.end
            if start >= before.start or (start, cut) in self._joined_spans:
                break
        counted = self._counts.get(("", start, cut))
        if counted is None and encode:  # the tail the span starts in
            counted = self.count("", start, cut)
        if counted is None:
            return None
        for extra, atom in reversed(joins):
            counted += extra + atom.tokens
            self._counts[("", start, atom.end)] = counted
            self._joined_spans.add((start, atom.end))
        return counted

    # -- atoms -----------------------------------------------------------------

    def atoms(self, blocks: Sequence[DocBlock]) -> list[Atom]:
        # Pieces leave room for the overlap that will be put in front of them.
        piece_budget = self.cfg.max_tokens - self.cfg.overlap_tokens
        out: list[Atom] = []
        k = 0
        while k < len(blocks):
            b = blocks[k]
            last = k
            if b.row is not None:  # a table row is one unit
                while last + 1 < len(blocks) and blocks[last + 1].row == b.row:
                    last += 1
            else:  # a paragraph continued in the next column or on the next page is one unit
                while last + 1 < len(blocks) and continues(blocks[last], blocks[last + 1]):
                    last += 1
            start, end = b.start, blocks[last].end
            tokens = self.count("", start, end)
            if b.row is None and last > k and tokens > self.cfg.max_tokens:
                # A continued paragraph too large for one chunk: cut it at the
                # column or page break rather than inside a block.
                last, end = k, b.end
                tokens = self.count("", start, end)
            common = _Shared(
                heading=b.heading_level is not None,
                boilerplate=all(x.boilerplate for x in blocks[k : last + 1]),
                table=b.table,
                header_row=b.header_row,
            )
            lead = _heading_lead(out)
            if tokens > self.cfg.max_tokens:  # split only what cannot fit at all
                cuts = split_offsets(self.text[start:end], self._splitter(self._piece_size(lead, piece_budget)))
            else:
                # A block that fits without overlap stays whole (packing then drops
                # the overlap in front of it), unless the headings before it would
                # then end a chunk alone.
                opening = self._opening_piece(b, start, end, tokens, lead)
                cuts = [(0, end - start)] if opening is None else [(0, opening - start), (opening - start, end - start)]
            if len(cuts) == 1 and tokens <= self.cfg.max_tokens:
                out.append(common.atom(start, end, tokens, k, last, whole=True))
            else:
                out.extend(self._piece(blocks, k, last, start + s, start + e, common) for s, e in cuts)
            k = last + 1
        return out

    def _piece_size(self, lead: int, piece_budget: int) -> int:
        """Right after headings (which open a chunk with no overlap) the pieces of
        an over-budget atom are made small enough to share that chunk with them."""
        size = min(piece_budget, self.cfg.max_tokens - lead - 1)
        return piece_budget if size < max(1, self.cfg.max_tokens // 4) else size  # long headings stand alone

    def _splitter(self, size: int) -> RecursiveCharacterTextSplitter:
        if size not in self._splitters:
            self._splitters[size] = splitter(self.tok, size)
        return self._splitters[size]

    def _piece(self, blocks: Sequence[DocBlock], k: int, last: int, start: int, end: int, common: _Shared) -> Atom:
        """The atom of the piece [start, end) of blocks[k..last], with the blocks it lies in."""
        first = next(j for j in range(k, last + 1) if blocks[j].end > start)
        lastb = max(j for j in range(k, last + 1) if blocks[j].start < end)
        return common.atom(start, end, self.count("", start, end), first, lastb, whole=False)

    def _opening_piece(self, block: DocBlock, start: int, end: int, tokens: int, lead: int) -> int | None:
        """Rule "a heading never ends a chunk alone": where to cut the body
        atom [start, end) that follows headings (``lead`` tokens of them) so its
        first piece fits in their chunk; None when it fits whole, is not body
        text, the headings leave too little room, or it has no boundary to cut at."""
        room = self.cfg.max_tokens - lead - 1
        if not lead or tokens + lead + 1 <= self.cfg.max_tokens or room < max(1, self.cfg.max_tokens // 4):
            return None
        if block.heading_level is not None or block.row is not None or block.boilerplate:
            return None
        pieces = split_offsets(self.text[start:end], self._splitter(room))
        if len(pieces) < 2:
            return None
        cut = start + pieces[0][1]
        # The rest must fit too: a cut inside a word the normalisation joins
        # ("infor-\nmation") leaves a rest that counts more than the whole.
        return cut if self.count("", cut, end) <= self.cfg.max_tokens else None

    # -- packing ---------------------------------------------------------------

    def _overlap_start(self, atoms: Sequence[Atom], lo: int, hi: int) -> int | None:
        """Start of the overlap taken from atoms[lo..hi] (the previous chunk's
        new text), or None when not even one word fits."""
        budget = self.cfg.overlap_tokens
        if budget <= 0:
            return None
        end = atoms[hi].end
        best = None
        for k in range(hi, lo - 1, -1):
            if self.fits("", atoms[k].start, end, budget):
                best = atoms[k].start
                continue
            # Part of atom k: the longest word-started tail that fits.
            seg = self.text[atoms[k].start : atoms[k].end]
            starts = [atoms[k].start + m.start() for m in _WORD_START.finditer(seg)]
            starts = [p for p in starts if self.text[p - 2 : p - 1] != "-"]  # not inside "infor-\nmation"
            lo_i, hi_i, found = 0, len(starts) - 1, None
            while lo_i <= hi_i:  # token count falls as the start moves right
                mid = (lo_i + hi_i) // 2
                if self.fits("", starts[mid], end, budget):
                    found, hi_i = starts[mid], mid - 1
                else:
                    lo_i = mid + 1
            if found is not None:
                best = found
            break
        if best is not None and not self.norm(best, end):
            return None
        return best

    def _prefix(self, atom: Atom, start: int, headers: dict[int, Atom]) -> tuple[str, int]:
        """The repeated header for a chunk whose new text starts with `atom`,
        and the span start (moved out of the header row if overlap cut into it)."""
        if not self.cfg.repeat_table_header or atom.table is None or atom.header_row:
            return "", start
        header = headers.get(atom.table)
        if header is None or start <= header.start:
            return "", start
        return self.norm(header.start, header.end) + "\n", max(start, header.end)

    def _grown(self, prefix: str, start: int, used: int, atom: Atom) -> int | None:
        """Tokens of the chunk ``[start, atom.end)``, `used` being those up to
        the atom before; None over the budget. Exact when the parts' counts
        give it; else a cheap upper estimate first, counted exactly only near
        the budget."""
        estimate = self.known(prefix, start, atom.end)
        if estimate is None:
            estimate = used + atom.tokens + 1
        if estimate > self.cfg.max_tokens:
            estimate = self.count(prefix, start, atom.end)
        return None if estimate > self.cfg.max_tokens else estimate

    def pack(self, atoms: Sequence[Atom]) -> list[Span]:
        cfg = self.cfg
        self._after.update((atom.end, (before, atom)) for before, atom in pairwise(atoms))
        headers: dict[int, Atom] = {}
        for a in atoms:
            if a.header_row and a.table is not None and a.whole:
                headers.setdefault(a.table, a)
        spans: list[Span] = []
        i = 0
        while i < len(atoms):
            first = atoms[i]
            start = first.start
            prev = spans[-1] if spans else None
            if (
                prev is not None
                and not first.heading
                and not first.boilerplate
                and not atoms[prev.last_atom].boilerplate
            ):
                over = self._overlap_start(atoms, prev.first_atom, prev.last_atom)
                if over is not None:
                    start = over
            prefix, start = self._prefix(first, start, headers)
            if start < first.start and self.count(prefix, start, first.end) > cfg.max_tokens:
                start = first.start  # the overlap would crowd out the new atom
                prefix, start = self._prefix(first, start, headers)
            if prefix and self.count(prefix, start, first.end) > cfg.max_tokens:
                prefix = ""  # a header too large to repeat is left out, not the budget broken
            used = self.count(prefix, start, first.end)
            j = i + 1
            while j < len(atoms):
                a = atoms[j]
                if a.heading and not all(x.heading for x in atoms[i:j]):
                    break
                if a.boilerplate != first.boilerplate:
                    after = _furniture_end(atoms, i, j)
                    if after is None or self.count(prefix, start, atoms[after].end) > cfg.max_tokens:
                        break
                    used, j = self.count(prefix, start, atoms[after].end), after + 1
                    continue
                grown = self._grown(prefix, start, used, a)
                if grown is None:
                    break
                used = grown
                j += 1
            # The estimate is not a proof: check the real count and back off.
            while j - 1 > i and self.count(prefix, start, atoms[j - 1].end) > cfg.max_tokens:
                j -= 1
            spans.append(Span(start, first.start, atoms[j - 1].end, prefix, i, j - 1))
            i = j
        return self._merge_small(spans, atoms)

    # -- small chunks ----------------------------------------------------------

    def _small(self, span: Span, atoms: Sequence[Atom]) -> bool:
        """New text under ``min_tokens``, none of it boilerplate (that stays apart)."""
        core = atoms[span.first_atom : span.last_atom + 1]
        if any(a.boilerplate for a in core):
            return False
        return self.fits("", core[0].start, core[-1].end, self.cfg.min_tokens - 1)

    def _joined(self, head: Span, tail: Span, atoms: Sequence[Atom]) -> Span | None:
        """``head`` and ``tail`` as one chunk, when they are neighbours in one
        section (``tail`` does not open with a heading), neither is
        boilerplate, and the two fit the budget together -- with ``head``'s
        overlap, else without it (new text matters more than repeated text)."""
        if head.last_atom + 1 != tail.first_atom or atoms[tail.first_atom].heading:
            return None
        if atoms[head.first_atom].boilerplate or atoms[tail.first_atom].boilerplate:
            return None
        for start in dict.fromkeys((head.start, head.core_start)):
            if self.count(head.prefix, start, tail.end) <= self.cfg.max_tokens:
                return Span(start, head.core_start, tail.end, head.prefix, head.first_atom, tail.last_atom)
        return None

    def _merge_small(self, spans: list[Span], atoms: Sequence[Atom]) -> list[Span]:
        """Rule: a chunk whose new text is under ``min_tokens`` (a caption, a
        stray line, a heading whose body did not fit) joins its neighbour in
        the same section when the budget allows: the chunk before it, else the
        chunk after it."""
        if self.cfg.min_tokens <= 0:
            return spans
        out: list[Span] = []
        i = 0
        while i < len(spans):
            span = spans[i]
            if self._small(span, atoms):
                before = self._joined(out[-1], span, atoms) if out else None
                if before is not None:
                    out[-1] = before
                    i += 1
                    continue
                after = self._joined(span, spans[i + 1], atoms) if i + 1 < len(spans) else None
                if after is not None:
                    out.append(after)
                    i += 2
                    continue
            out.append(span)
            i += 1
        return out
