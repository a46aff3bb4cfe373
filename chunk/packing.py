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
* a heading starts a new chunk (consecutive headings stay together);
* boilerplate blocks form chunks of their own, so the flag means something;
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
from dataclasses import dataclass

from ragprep.chunk.blocks import DocBlock
from ragprep.chunk.config import ChunkConfig
from ragprep.chunk.normalise import normaliser
from ragprep.chunk.splitting import split_offsets, splitter
from ragprep.chunk.tokens import Tokenizer

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


class Packer:
    def __init__(self, text: str, tokenizer: Tokenizer, config: ChunkConfig) -> None:
        self.text = text
        self.tok = tokenizer
        self.cfg = config
        self._normalise = normaliser(config)
        # Packing measures the same spans more than once (the budget check,
        # the overlap search, the chunk's own count): tokenizing is the cost.
        self._counts: dict[tuple[str, int, int], int] = {}

    def norm(self, start: int, end: int) -> str:
        return self._normalise(self.text[start:end])

    def count(self, prefix: str, start: int, end: int) -> int:
        """Tokens of ``prefix + norm(start, end)``."""
        key = (prefix, start, end)
        counted = self._counts.get(key)
        if counted is None:
            counted = self._counts[key] = self.tok.count(prefix + self.norm(start, end))
        return counted

    # -- atoms -----------------------------------------------------------------

    def atoms(self, blocks: Sequence[DocBlock]) -> list[Atom]:
        # Pieces leave room for the overlap that will be put in front of them.
        piece_budget = self.cfg.max_tokens - self.cfg.overlap_tokens
        split = None
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
            common = dict(
                heading=b.heading_level is not None,
                boilerplate=all(x.boilerplate for x in blocks[k : last + 1]),
                table=b.table,
                header_row=b.header_row,
            )
            # Split only what cannot fit at all; a block that fits without
            # overlap stays whole (packing then drops the overlap in front of it).
            if tokens <= self.cfg.max_tokens:
                out.append(Atom(start, end, tokens, k, last, whole=True, **common))
            else:
                # Right after headings (which open a chunk with no overlap) the
                # pieces are made small enough to share that chunk with them.
                lead = 0
                for prev in reversed(out):
                    if not prev.heading:
                        break
                    lead += prev.tokens + 1
                size = min(piece_budget, self.cfg.max_tokens - lead - 1)
                if size < max(1, self.cfg.max_tokens // 4):
                    size = piece_budget  # headings too long to share: they stand alone
                if size == piece_budget:
                    split = split or splitter(self.tok, piece_budget)
                    use = split
                else:
                    use = splitter(self.tok, size)
                for s, e in split_offsets(self.text[start:end], use):
                    piece_tokens = self.count("", start + s, start + e)
                    # A piece lies inside one block; find it for provenance.
                    first = next(j for j in range(k, last + 1) if blocks[j].end > start + s)
                    lastb = max(j for j in range(k, last + 1) if blocks[j].start < start + e)
                    out.append(Atom(start + s, start + e, piece_tokens, first, lastb, whole=False, **common))
            k = last + 1
        return out

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
            if self.count("", atoms[k].start, end) <= budget:
                best = atoms[k].start
                continue
            # Part of atom k: the longest word-started tail that fits.
            seg = self.text[atoms[k].start : atoms[k].end]
            starts = [atoms[k].start + m.start() for m in _WORD_START.finditer(seg)]
            starts = [p for p in starts if self.text[p - 2 : p - 1] != "-"]  # not inside "infor-\nmation"
            lo_i, hi_i, found = 0, len(starts) - 1, None
            while lo_i <= hi_i:  # token count falls as the start moves right
                mid = (lo_i + hi_i) // 2
                if self.count("", starts[mid], end) <= budget:
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

    def pack(self, atoms: Sequence[Atom]) -> list[Span]:
        cfg = self.cfg
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
                    break
                # Cheap upper estimate first; count exactly only near the budget.
                estimate = used + a.tokens + 1
                if estimate > cfg.max_tokens:
                    exact = self.count(prefix, start, a.end)
                    if exact > cfg.max_tokens:
                        break
                    estimate = exact
                used = estimate
                j += 1
            # The estimate is not a proof: check the real count and back off.
            while j - 1 > i and self.count(prefix, start, atoms[j - 1].end) > cfg.max_tokens:
                j -= 1
            spans.append(Span(start, first.start, atoms[j - 1].end, prefix, i, j - 1))
            i = j
        return spans
