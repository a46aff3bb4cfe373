"""Splitting one over-budget block at paragraph, sentence, then word boundaries.

RecursiveCharacterTextSplitter does the choosing; its pieces are mapped back
to offsets by cumulative length (with ``keep_separator="end"``,
``strip_whitespace=False`` and no overlap the pieces concatenate to the input,
which is checked), never by searching for the piece text.
"""

from __future__ import annotations

from langchain_text_splitters import RecursiveCharacterTextSplitter

from ragprep.chunk.tokens import Tokenizer

# Paragraph, sentence, line, clause, word (regular expressions). Sentences come
# before lines: a newline inside a PDF block is mostly visual wrapping. No ""
# separator: a run without any of these (a long URL, a base64 blob) stays one
# piece even when over budget.
SEPARATORS = [r"\n[ \t]*\n", r"(?<=[.!?])\s+", r"\n", r"(?<=[;:])\s+", r"\s+"]


def splitter(tokenizer: Tokenizer, piece_tokens: int) -> RecursiveCharacterTextSplitter:
    # Measured with the chunk's own tokenizer (tiktoken or a model's), as the packer measures.
    return RecursiveCharacterTextSplitter(
        chunk_size=piece_tokens,
        chunk_overlap=0,
        length_function=tokenizer.count,
        separators=SEPARATORS,
        is_separator_regex=True,
        keep_separator="end",
        strip_whitespace=False,
    )


def split_offsets(text: str, split: RecursiveCharacterTextSplitter) -> list[tuple[int, int]]:
    """(start, end) offsets in `text` of consecutive pieces covering it."""
    pieces = split.split_text(text)
    if "".join(pieces) != text:  # defensive: a splitter change must not shift offsets
        raise AssertionError("text splitter pieces do not reassemble the block text")
    spans: list[tuple[int, int]] = []
    pos = 0
    for piece in pieces:
        if spans and not piece.strip():
            # Whitespace alone is no piece: it joins the one before.
            spans[-1] = (spans[-1][0], pos + len(piece))
        else:
            spans.append((pos, pos + len(piece)))
        pos += len(piece)
    if len(spans) > 1 and not text[spans[0][0] : spans[0][1]].strip():
        spans[:2] = [(spans[0][0], spans[1][1])]  # leading whitespace joins the first real piece
    return spans
