"""Chunks that mix two columns: does a chunk's text go back and forth in the author's order? (issue 19)

A reading order that interleaves two columns gives chunks made of alternating lines of
both; a chunker cannot repair that. This measure chunks a document as shipped
(``extract_document`` in the given mode, ``chunk_document`` with the default chunk
settings) and follows every chunk's words in the reference, the original's structure
text (the author's order): a word of a scored page is placed in the reference where
the run of SHINGLE words it starts occurs there, when it occurs there once (an
alignment that keeps order, such as difflib's matching blocks, could never go back),
and a chunk
*mixes* when its matched words go back in the reference, by more than ``BACK_WORDS``
words (a line or so), MIXING_BACKS times or more. Text read in the author's order
never goes back; a block read out of place (a sidebar early, a caption late) goes
forward to it and back once; interleaved columns go back at every other line.

Words are located in the page text by the raw word-character runs they come from
(``tokenize`` of each run: NFKC and case folding may change a run's length, not its
place), and a word belongs to the chunk whose core span (its overlap with the previous
chunk left out) holds the run's start.

    python bench/chunk_columns.py FILE.pdf [--mode layout]      # one file against its own tags

bench/layout.py --chunks runs it on every scored file and twin.
"""

from __future__ import annotations

import argparse
from itertools import pairwise
import re
import sys
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/chunk_columns.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._metrics import tokenize  # noqa: E402
from ragprep.chunk import ChunkConfig, Tokenizer, chunk_document, document_id, document_text  # noqa: E402
from ragprep.extract import extract_document  # noqa: E402

# A chunk goes back in the reference by more than this many words (about a line) ...
BACK_WORDS = 8
# ... this many times or more: it mixes two columns (two blocks out of place in one
# chunk, a float and a page head, go back twice; lines of two columns go back at every
# other line).
MIXING_BACKS = 3
# Words are placed in the reference by the runs of this many words starting at them
# that occur once in the reference page.
SHINGLE = 3
_RUN = re.compile(r"\w+")


@dataclass(frozen=True)
class ChunkMixing:
    chunks: int  # chunks holding a matched word of a scored page
    mixed: int  # of those, the chunks that go back in the reference MIXING_BACKS times or more


def _located_words(text: str) -> tuple[list[str], list[int]]:
    """The words of `text` (bench tokenize) and, per word, the offset of the raw run it
    comes from."""
    words: list[str] = []
    offsets: list[int] = []
    for run in _RUN.finditer(text):
        for word in tokenize(run.group()):
            words.append(word)
            offsets.append(run.start())
    return words, offsets


def _unique_shingles(words: list[str]) -> dict[tuple[str, ...], int]:
    """Each run of SHINGLE words that occurs once in `words`, with its position."""
    seen: dict[tuple[str, ...], int] = {}
    twice: set[tuple[str, ...]] = set()
    for k in range(len(words) - SHINGLE + 1):
        key = tuple(words[k : k + SHINGLE])
        if key in seen:
            twice.add(key)
        seen[key] = k
    return {key: k for key, k in seen.items() if key not in twice}


def chunk_mixing(pdf: bytes, refs: dict[int, list[str]], mode: str, tokenizer: Tokenizer | None = None) -> ChunkMixing:
    """How many chunks of `pdf` read in `mode` mix two columns, against the reference
    words `refs` (page number -> the author's words of that page)."""
    result = extract_document(pdf, mode=mode)
    config = ChunkConfig()
    tokenizer = tokenizer or Tokenizer.load(config.tokenizer_name)
    chunks = chunk_document(result, doc_id=document_id(pdf), source="bench", config=config, tokenizer=tokenizer)
    _, bases = document_text(result.pages)
    # Reference positions run on across the scored pages, in page order.
    position: list[tuple[int, int]] = []  # (document offset, reference position) per matched word
    start = 0
    for page, base in zip(result.pages, bases, strict=True):
        reference = refs.get(page.page)
        if reference is None:
            continue
        words, offsets = _located_words(page.text)
        where = _unique_shingles(reference)
        for k in range(len(words) - SHINGLE + 1):
            found = where.get(tuple(words[k : k + SHINGLE]))
            if found is not None:
                position.append((base + offsets[k], start + found))
        start += len(reference)
    position.sort()
    counted = mixed = 0
    at = 0
    for chunk in chunks:
        while at < len(position) and position[at][0] < chunk.core_char_start:
            at += 1
        trail = []
        while at < len(position) and position[at][0] < chunk.char_end:
            trail.append(position[at][1])
            at += 1
        if not trail:
            continue
        counted += 1
        backs = sum(1 for a, b in pairwise(trail) if b < a - BACK_WORDS)
        mixed += backs >= MIXING_BACKS
    return ChunkMixing(counted, mixed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    parser.add_argument("--mode", default="layout")
    parser.add_argument("--reference", type=Path, default=None, help="tagged PDF whose structure text is the truth (default: FILE)")
    args = parser.parse_args(argv)
    from bench.layout import references

    refs = references(args.reference or args.file, None)
    found = chunk_mixing(args.file.read_bytes(), refs, args.mode)
    print(f"{args.file.name}: {found.mixed} of {found.chunks} chunks mix two columns ({args.mode} mode)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
