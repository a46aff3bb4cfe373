"""Property test: random documents and budgets."""

from __future__ import annotations

import hashlib

import numpy as np
from chunkdocs import check_slices, random_documents
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragprep.chunk import ChunkConfig, Tokenizer, chunk_document, document_text, normalise

TOK = Tokenizer.load("cl100k_base")
WORDS = ["alpha", "beta", "gamma", "delta", "infor-\nmation", "co\u00adop", "x", "Zeta.", "eta,", "theta\n"]


def documents():
    return random_documents(WORDS)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(result=documents(), max_tokens=st.integers(12, 300), overlap_share=st.floats(0, 0.45))
def test_budget_coverage_and_overlap(result, max_tokens, overlap_share):
    overlap = int(max_tokens * overlap_share)
    cfg = ChunkConfig(max_tokens=max_tokens, overlap_tokens=overlap)
    chunks = chunk_document(result, doc_id=hashlib.sha256(b"p").hexdigest(), source="p", config=cfg, tokenizer=TOK)
    check_slices(result, chunks)
    text, bases = document_text(result.pages)
    covered = np.zeros(len(text), dtype=bool)
    for k, c in enumerate(chunks):
        # Budget: the only words here are short, so no unsplittable run exists.
        assert c.n_tokens <= max_tokens, c.text
        assert c.n_tokens == TOK.count(c.text)
        # New text never overlaps the previous chunk's span (nothing duplicated
        # beyond the overlap), and the overlap comes from that chunk's new text.
        if k:
            prev = chunks[k - 1]
            assert c.core_char_start >= prev.char_end
            assert c.char_start >= prev.core_char_start
            if c.char_start < c.core_char_start:
                assert TOK.count(normalise(text[c.char_start : prev.char_end])) <= overlap
        covered[c.core_char_start : c.char_end] = True
    # Nothing lost: every non-space character of every block is new text of a chunk.
    for i, page in enumerate(result.pages):
        for b in page.blocks:
            for off, ch in enumerate(b.text):
                if not ch.isspace():
                    assert covered[bases[i] + b.char_start + off]
