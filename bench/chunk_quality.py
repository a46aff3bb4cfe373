"""Chunk quality over a folder of PDFs (issue 5's closing-note numbers).

    python bench/chunk_quality.py ../shared/corpus [--mode auto] [--max-files N]

(``ragprep compare`` reports the same measures per mode and per document; this
script is the quick per-mode total.)

Per extraction mode of the chunk's pages ("mixed" when they differ): chunks,
mean/max tokens, share ending mid-sentence, share flagged boilerplate, and the
block-integrity rate (blocks no larger than the budget that land whole inside
one chunk's span). Mid-sentence and block integrity are defined (and
computed) in ``ragprep.pipeline.compare.metrics``, shared with ``ragprep compare``.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, TimeoutError as FutureTimeout
from pathlib import Path

from ragprep.chunk.chunker import chunk_document, document_id
from ragprep.chunk.blocks import document_text
from ragprep.chunk.config import ChunkConfig
from ragprep.chunk.normalise import normalise
from ragprep.chunk.tokens import Tokenizer
from ragprep.pipeline.compare.metrics import block_kept_whole, ends_mid_sentence


def file_stats(path: str, mode: str) -> dict:
    from ragprep.extract import extract_document

    data = Path(path).read_bytes()
    result = extract_document(data, mode=mode)
    cfg = ChunkConfig()
    tok = Tokenizer.load(cfg.tokenizer_name)
    chunks = chunk_document(result, doc_id=document_id(data), source=path, config=cfg, tokenizer=tok)
    out: dict = defaultdict(lambda: defaultdict(float))
    for c in chunks:
        modes = {m for _, m in c.modes}
        key = modes.pop() if len(modes) == 1 else "mixed"
        s = out[key]
        s["chunks"] += 1
        s["tokens"] += c.n_tokens
        s["max_tokens"] = max(s["max_tokens"], c.n_tokens)
        mid = ends_mid_sentence(c.text)
        s["mid_sentence"] += mid
        s["boilerplate"] += c.is_boilerplate
        # Boilerplate chunks (page numbers, running heads) end mid-sentence by nature.
        s["body_chunks"] += not c.is_boilerplate
        s["body_mid_sentence"] += mid and not c.is_boilerplate
    text, bases = document_text(result.pages)
    starts = [c.char_start for c in chunks]
    ends = [c.char_end for c in chunks]
    for i, page in enumerate(result.pages):
        for b in page.blocks:
            if tok.count(normalise(b.text)) > cfg.max_tokens or not b.text.strip():
                continue
            whole = block_kept_whole(starts, ends, bases[i] + b.char_start, bases[i] + b.char_end)
            st = out[page.mode]
            st["blocks"] += 1
            st["blocks_whole"] += whole
    return {m: dict(v) for m, v in out.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--mode", default="auto")
    ap.add_argument("--max-files", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args(argv)
    files = sorted(str(p) for p in Path(args.folder).rglob("*.pdf"))
    if args.max_files:
        files = files[: args.max_files]
    total: dict = defaultdict(lambda: defaultdict(float))
    failed = 0
    with ProcessPoolExecutor() as pool:
        futures = {f: pool.submit(file_stats, f, args.mode) for f in files}
        for f, fut in futures.items():
            try:
                stats = fut.result(timeout=args.timeout)
            except FutureTimeout:
                failed += 1
                print(f"timeout: {f}", file=sys.stderr)
                continue
            except Exception as exc:  # broken/encrypted files are the extract stage's business
                failed += 1
                print(f"skipped: {f}: {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            for mode, s in stats.items():
                t = total[mode]
                for k, v in s.items():
                    t[k] = max(t[k], v) if k == "max_tokens" else t[k] + v
    print(f"files: {len(files)} (skipped {failed})")
    print("mode       chunks  mean_tok  max_tok  mid_sentence  (non-boilerplate)  boilerplate  block_integrity")
    for mode, t in sorted(total.items()):
        n = t["chunks"] or 1
        integ = t["blocks_whole"] / t["blocks"] if t["blocks"] else float("nan")
        print(
            f"{mode:<10} {int(t['chunks']):>6}  {t['tokens'] / n:>8.1f}  {int(t['max_tokens']):>7}  "
            f"{t['mid_sentence'] / n:>12.3f}  {t['body_mid_sentence'] / (t['body_chunks'] or 1):>17.3f}  "
            f"{t['boilerplate'] / n:>11.3f}  {integ:>15.4f} ({int(t['blocks'])} blocks)"
        )


if __name__ == "__main__":
    main()
