"""Word-multiset F1 between two texts: the text-quality measure of bench/quality.py.

The implementation moved into the package, ``ragprep.pipeline.compare.metrics`` (where
``ragprep compare`` uses it too, and where the definitions are documented: NFKC and
casefolded word runs, combining marks kept inside words, one token per CJK character by
default). This module re-exports it so the bench scripts keep importing ``bench._metrics``.
"""

from __future__ import annotations

from ragprep.pipeline.compare.metrics import WordScore, f1, score, tokenize, word_counts

__all__ = ["WordScore", "f1", "score", "tokenize", "word_counts"]
