"""Chunk-size distribution and chunk-text hygiene over a folder of PDFs.

    python bench/chunk_sizes.py ../shared/corpus [--mode auto] [--workers 2] [--min-tokens N ...] [--show N]

Prints, over every chunk of every readable file (default chunk settings unless
``--min-tokens`` overrides ``chunk.min_tokens``; given more than once, each
setting is reported from the same extraction):

- the token distribution (p10/p50/p90, and counts per size band);
- the chunks under 20 tokens, by kind: boilerplate, a lone heading (every block
  of the chunk a heading), other (captions, stray lines);
- how many chunks end with a heading that opens nothing (the heading is the
  chunk's last block and the chunk has other text before it);
- the share of chunks whose text holds a ligature (U+FB00-FB06), changes under
  NFKC, or holds U+FFFD (``undecodable > 0``);
- with ``--show N``, up to N of the small chunks that are not boilerplate, each
  with what stands before and after it (why it found no neighbour to join).

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


Row = tuple[int, str, bool, bool, bool, str]


def file_chunks(path: str, mode: str, min_tokens: list[int | None]) -> list[list[Row]]:
    """Per setting of `min_tokens`, per chunk: tokens, text, boilerplate, all its
    blocks headings, it ends with a heading, and its neighbours (for --show)."""
    from ragprep.chunk import ChunkConfig, chunk_document, document_id, document_text
    from ragprep.chunk.blocks import flatten
    from ragprep.extract import extract_document

    data = Path(path).read_bytes()
    result = extract_document(data, mode=mode)
    _, bases = document_text(result.pages)
    out = []
    for setting in min_tokens:
        config = ChunkConfig() if setting is None else ChunkConfig().replace(min_tokens=setting)
        chunks = chunk_document(result, doc_id=document_id(data), source=path, config=config)
        blocks = flatten(result.pages, bases, config.boilerplate_min_share)
        rows = []
        for k, c in enumerate(chunks):
            inside = [b for b in blocks if b.start < c.char_end and b.end > c.core_char_start]
            heads = [b.heading_level is not None for b in inside]
            around = " | ".join(_kind(chunks[j]) for j in (k - 1, k + 1) if 0 <= j < len(chunks))
            rows.append((c.n_tokens, c.text, c.is_boilerplate, bool(heads) and all(heads),
                         len(heads) > 1 and heads[-1] and not all(heads),
                         f"{Path(path).name} p{c.page_start}: before/after: {around or 'nothing'}"))  # fmt: skip
        out.append(rows)
    return out


def _kind(chunk) -> str:
    words = " ".join(chunk.text.split()[:6])
    return f"{'boilerplate' if chunk.is_boilerplate else 'text'} {chunk.n_tokens}t {words!r}"


def _quantile(values: list[int], q: float) -> int:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--mode", default="auto")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--min-tokens", type=int, action="append", help="chunk.min_tokens (repeatable)")
    ap.add_argument("--show", type=int, default=0, help="print up to N small non-boilerplate chunks")
    args = ap.parse_args(argv)
    settings: list[int | None] = args.min_tokens or [None]
    files = sorted(str(p) for p in Path(args.folder).rglob("*.pdf") if "broken" not in p.parts)
    per_setting: list[list[Row]] = [[] for _ in settings]
    skipped = 0
    with ProcessPoolExecutor(args.workers) as pool:
        futures = {f: pool.submit(file_chunks, f, args.mode, settings) for f in files}
        for f, fut in futures.items():
            try:
                for rows, found in zip(per_setting, fut.result(timeout=args.timeout), strict=True):
                    rows += found
            except (FutureTimeout, Exception) as exc:  # unreadable files are the extract stage's business
                skipped += 1
                print(f"skipped: {f}: {type(exc).__name__}", file=sys.stderr)
    print(f"files: {len(files)} (skipped {skipped}); mode {args.mode}")
    for setting, rows in zip(settings, per_setting, strict=True):
        print(f"\nchunk.min_tokens = {'default' if setting is None else setting}")
        report(rows, args.show)


def report(rows: list[Row], show: int) -> None:
    tokens = sorted(r[0] for r in rows)
    n = len(rows) or 1
    print(f"chunks: {len(rows)}; tokens p10 {_quantile(tokens, 0.1)}  p50 {_quantile(tokens, 0.5)}  p90 {_quantile(tokens, 0.9)}")
    labels = [f"{lo}-{hi - 1}" if hi < 10**9 else f">={lo}" for lo, hi in BANDS]
    bands = Counter(next(label for (lo, hi), label in zip(BANDS, labels, strict=True) if lo <= t < hi) for t in tokens)
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
    for r in [r for r in small if not r[2]][:show]:
        print(f"  {'heading' if r[3] else 'other'} {r[0]}t {' '.join(r[1].split())[:60]!r}  ({r[5]})")


if __name__ == "__main__":
    main()
