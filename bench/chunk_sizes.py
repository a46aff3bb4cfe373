"""Chunk-size distribution and chunk-text hygiene over a folder of PDFs.

    python bench/chunk_sizes.py ../shared/corpus [--mode auto] [--workers 2] [--min-tokens N]

Prints, over every chunk of every readable file (default chunk settings unless
``--min-tokens`` overrides ``chunk.min_tokens``):

- the token distribution (p10/p50/p90, and counts per size band);
- the chunks under 20 tokens, by kind: boilerplate, a lone heading (every block
  of the chunk a heading), other (captions, stray lines);
- how many chunks end with a heading that opens nothing (the heading is the
  chunk's last block and the chunk has other text before it);
- the share of chunks whose text holds a ligature (U+FB00-FB06), changes under
  NFKC, or holds U+FFFD (``undecodable > 0``).

Run it before and after a packing change to report the change (issue 16).
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, TimeoutError as FutureTimeout
from pathlib import Path

SMALL = 20
BANDS = ((0, 20), (20, 50), (50, 100), (100, 200), (200, 400), (400, 10**9))


def file_chunks(path: str, mode: str, min_tokens: int | None) -> list[tuple[int, str, bool, bool, bool]]:
    """Per chunk: tokens, text, boilerplate, all its blocks headings, it ends with a heading."""
    from ragprep.chunk import ChunkConfig, chunk_document, document_id, document_text
    from ragprep.chunk.blocks import flatten
    from ragprep.extract import extract_document

    data = Path(path).read_bytes()
    result = extract_document(data, mode=mode)
    config = ChunkConfig() if min_tokens is None else ChunkConfig().replace(min_tokens=min_tokens)
    chunks = chunk_document(result, doc_id=document_id(data), source=path, config=config)
    _, bases = document_text(result.pages)
    blocks = flatten(result.pages, bases, config.boilerplate_min_share)
    out = []
    for c in chunks:
        inside = [b for b in blocks if b.start < c.char_end and b.end > c.core_char_start]
        heads = [b.heading_level is not None for b in inside]
        out.append((c.n_tokens, c.text, c.is_boilerplate, bool(heads) and all(heads),
                    len(heads) > 1 and heads[-1] and not all(heads)))  # fmt: skip
    return out


def _quantile(values: list[int], q: float) -> int:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--mode", default="auto")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--min-tokens", type=int, default=None)
    args = ap.parse_args(argv)
    files = sorted(str(p) for p in Path(args.folder).rglob("*.pdf") if "broken" not in p.parts)
    rows: list[tuple[int, str, bool, bool, bool]] = []
    skipped = 0
    with ProcessPoolExecutor(args.workers) as pool:
        futures = {f: pool.submit(file_chunks, f, args.mode, args.min_tokens) for f in files}
        for f, fut in futures.items():
            try:
                rows += fut.result(timeout=args.timeout)
            except (FutureTimeout, Exception) as exc:  # unreadable files are the extract stage's business
                skipped += 1
                print(f"skipped: {f}: {type(exc).__name__}", file=sys.stderr)
    tokens = sorted(r[0] for r in rows)
    n = len(rows) or 1
    print(f"files: {len(files)} (skipped {skipped}); chunks: {len(rows)}; mode {args.mode}")
    print(f"tokens p10 {_quantile(tokens, 0.1)}  p50 {_quantile(tokens, 0.5)}  p90 {_quantile(tokens, 0.9)}")
    labels = [f"{lo}-{hi - 1}" if hi < 10**9 else f">={lo}" for lo, hi in BANDS]
    bands = Counter(next(label for (lo, hi), label in zip(BANDS, labels) if lo <= t < hi) for t in tokens)
    print("bands: " + "  ".join(f"{label}: {bands[label]}" for label in labels))
    small = [r for r in rows if r[0] < SMALL]
    kinds = Counter("boilerplate" if r[2] else "lone heading" if r[3] else "other" for r in small)
    print(f"under {SMALL} tokens: {len(small)} ({100 * len(small) / n:.1f}%): "
          + ", ".join(f"{k} {kinds[k]}" for k in ("boilerplate", "lone heading", "other")))  # fmt: skip
    print(f"chunks ending with a heading: {sum(r[4] for r in rows)}")
    lig = sum(any("\ufb00" <= ch <= "\ufb06" for ch in r[1]) for r in rows)
    nfkc = sum(unicodedata.normalize("NFKC", r[1]) != r[1] for r in rows)
    bad = sum("\ufffd" in r[1] for r in rows)
    print(f"text: ligatures {100 * lig / n:.1f}%  changes under NFKC {100 * nfkc / n:.1f}%  "
          f"undecodable>0 {100 * bad / n:.1f}%")  # fmt: skip


if __name__ == "__main__":
    main()
