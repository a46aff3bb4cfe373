"""Score ragprep's page text against pdftotext, file by file, as word-multiset F1.

pdftotext (poppler, default mode, -enc UTF-8) is the reference: not ground truth, but an
independent, mature extractor. Files where it finds fewer than --min-words words (scans
without an OCR layer, text drawn as curves) are skipped as not text-bearing. Words are
maximal runs of word characters after NFKC and casefolding (see bench/_metrics.py); F1 is
2·|A∩B| / (|A|+|B|) on word multisets, so it ignores reading order and line breaks and
measures which words came out, how often. Not part of CI; see bench/README.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/quality.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._corpus import (  # noqa: E402  (needs the path fix above)
    DEFAULT_CORPUS,
    BenchError,
    CorpusFile,
    Extractor,
    FileTimeout,
    make_extractor,
    parse_peer_list,
    quiet_peers,
    ragprep_import_error,
    run_cli,
    select_files,
    short_error,
    time_limit,
)
from bench._metrics import WordScore, score, word_counts  # noqa: E402

TSV_COLUMNS = (
    "file",
    "f1",
    "precision",
    "recall",
    "candidate_words",
    "reference_words",
    "common_words",
    "error",
)

# JSON-shaped report, printed with --format json.
Report = dict[str, Any]


@dataclass
class FileQuality:
    """Scores of one text-bearing file, plus what diagnosis needs."""

    file: str
    score: WordScore
    about: str = ""  # producer and tagging from the manifest: often the first clue
    error: str = ""  # the candidate failed on this file: its F1 is 0, it counts in the mean
    only_candidate: list[tuple[str, int]] = field(default_factory=list)
    only_reference: list[tuple[str, int]] = field(default_factory=list)

    def row(self) -> dict[str, object]:
        s = self.score
        return {
            "file": self.file,
            "f1": round(s.f1, 4),
            "precision": round(s.precision, 4),
            "recall": round(s.recall, 4),
            "candidate_words": s.candidate_words,
            "reference_words": s.reference_words,
            "common_words": s.common_words,
            "error": self.error,
        }


@dataclass
class Skipped:
    file: str
    reason: str


# --------------------------------------------------------------------------- reference


def require_pdftotext() -> str:
    exe = shutil.which("pdftotext")
    if exe is None:
        raise BenchError(
            "pdftotext not found on PATH; install poppler-utils (apt-get install -y poppler-utils)"
        )
    return exe


def pdftotext_version(exe: str) -> str:
    done = subprocess.run([exe, "-v"], capture_output=True, text=True)
    # poppler prints its version on stderr: "pdftotext version 22.12.0"
    first = (done.stderr or done.stdout).splitlines()
    return first[0].strip() if first else "pdftotext (unknown version)"


def reference_text(exe: str, path: Path, timeout: float) -> str:
    """pdftotext's text of the whole document; raises on a non-zero exit or a timeout."""
    done = subprocess.run(
        [exe, "-enc", "UTF-8", str(path), "-"],
        capture_output=True,
        timeout=timeout if timeout > 0 else None,
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"pdftotext exit {done.returncode}: {message[-1] if message else ''}")
    return done.stdout.decode("utf-8", "replace")


# --------------------------------------------------------------------------- scoring


def candidate_text(extractor: Extractor, path: Path, timeout: float) -> str:
    with time_limit(timeout):
        return "\n".join(extractor(path))


def examples(words: Counter[str], count: int, width: int = 30) -> list[tuple[str, int]]:
    """The most frequent words of a difference; long runs (unspaced CJK) are shortened."""
    return [
        (w if len(w) <= width else w[: width - 1] + "…", n) for w, n in words.most_common(count)
    ]


def score_file(
    f: CorpusFile,
    reference: Counter[str],
    extractor: Extractor,
    timeout: float,
    n_examples: int,
    split_cjk: bool,
) -> FileQuality:
    try:
        candidate = word_counts(candidate_text(extractor, f.path, timeout), split_cjk=split_cjk)
        error = ""
    except FileTimeout as exc:
        candidate, error = Counter(), f"timeout: {exc}"
    except Exception as exc:  # one failing file must not end the run
        candidate, error = Counter(), short_error(exc)
    return FileQuality(
        file=f.rel,
        score=score(candidate, reference),
        about=f"{'tagged' if f.tagged else 'untagged'}, producer: {f.producer or 'none'}",
        error=error,
        only_candidate=examples(candidate - reference, n_examples),
        only_reference=examples(reference - candidate, n_examples),
    )


def evaluate(
    files: list[CorpusFile],
    exe: str,
    extractor: Extractor,
    min_words: int,
    timeout: float,
    n_examples: int,
    split_cjk: bool,
    progress: bool,
) -> tuple[list[FileQuality], list[Skipped]]:
    scored: list[FileQuality] = []
    skipped: list[Skipped] = []
    for i, f in enumerate(files, 1):
        if progress:
            print(f"\r  {i:>4}/{len(files)} {f.rel[:70]:<70}", end="", file=sys.stderr, flush=True)
        try:
            reference = word_counts(reference_text(exe, f.path, timeout), split_cjk=split_cjk)
        except Exception as exc:  # incl. subprocess.TimeoutExpired
            skipped.append(Skipped(f.rel, f"pdftotext failed: {short_error(exc)}"))
            continue
        if reference.total() < min_words:
            skipped.append(
                Skipped(f.rel, f"pdftotext gives {reference.total()} word(s) (< {min_words})")
            )
            continue
        scored.append(score_file(f, reference, extractor, timeout, n_examples, split_cjk))
    if progress:
        print("\r" + " " * 80 + "\r", end="", file=sys.stderr)
    return scored, skipped


def summary(scored: list[FileQuality]) -> dict[str, float]:
    """Macro (mean of per-file F1, every file weighs the same) and micro (pooled words) F1."""
    f1s = [q.score.f1 for q in scored]
    common = sum(q.score.common_words for q in scored)
    total = sum(q.score.candidate_words + q.score.reference_words for q in scored)
    return {
        "files": len(scored),
        "mean_f1": round(statistics.fmean(f1s), 4) if f1s else float("nan"),
        "median_f1": round(statistics.median(f1s), 4) if f1s else float("nan"),
        "micro_f1": round(2 * common / total, 4) if total else float("nan"),
        "files_below_0_9": sum(v < 0.9 for v in f1s),
        "candidate_failures": sum(bool(q.error) for q in scored),
    }


# --------------------------------------------------------------------------- output


def render_text(meta: Report, scored: list[FileQuality], skipped: list[Skipped], worst: int) -> str:
    s = meta["summary"]
    cand, ref = meta["candidate"], "pdftotext"
    out = [
        f"corpus: {meta['corpus']}",
        f"reference: {meta['reference']} (default mode, -enc UTF-8); candidate: {cand}",
        f"files selected: {meta['files_selected']}; "
        f"text-bearing (pdftotext >= {meta['min_words']} words): "
        f"{s['files']}; skipped: {len(skipped)}; Han/kana counted as {meta['cjk_tokens']}",
        "",
        f"Per-file word F1, ascending (P = share of {cand} words also in {ref}; "
        f"R = share of {ref} words also in {cand})",
        f"{'F1':>6} {'P':>6} {'R':>6} {'cand':>7} {'ref':>7}  file",
    ]
    for q in sorted(scored, key=lambda q: (q.score.f1, q.file)):
        sc = q.score
        note = f"  [{q.error}]" if q.error else ""
        out.append(
            f"{sc.f1:6.3f} {sc.precision:6.3f} {sc.recall:6.3f} {sc.candidate_words:7d} "
            f"{sc.reference_words:7d}  {q.file}{note}"
        )
    out += [
        "",
        f"mean F1 (per file, {s['files']} files): {s['mean_f1']:.4f}   "
        f"median: {s['median_f1']:.4f}   "
        f"micro F1 (all words pooled): {s['micro_f1']:.4f}",
        f"files with F1 < 0.9: {s['files_below_0_9']}; files where {cand} failed (scored 0): "
        f"{s['candidate_failures']}",
        "",
        f"The {min(worst, len(scored))} worst files:",
    ]
    for q in sorted(scored, key=lambda q: (q.score.f1, q.file))[:worst]:
        sc = q.score
        out.append(
            f"  {q.file}  F1 {sc.f1:.3f}  words: {cand} {sc.candidate_words}, {ref} "
            f"{sc.reference_words}, common {sc.common_words}"
        )
        out.append(f"    ({q.about})")
        if q.error:
            out.append(f"    error: {q.error}")
        out.append(f"    only in {cand}: {format_examples(q.only_candidate)}")
        out.append(f"    only in {ref}: {format_examples(q.only_reference)}")
    if skipped:
        out += ["", "Skipped (not text-bearing by pdftotext, or pdftotext failed):"]
        out += [f"  {x.file}: {x.reason}" for x in skipped]
    return "\n".join(out)


def format_examples(words: list[tuple[str, int]]) -> str:
    return ", ".join(f"{w!r}×{n}" if n > 1 else repr(w) for w, n in words) or "-"


def write_tsv(path: Path, scored: list[FileQuality]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=TSV_COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        for q in sorted(scored, key=lambda q: (q.score.f1, q.file)):
            writer.writerow(q.row())


def to_json(meta: Report, scored: list[FileQuality], skipped: list[Skipped]) -> str:
    files = []
    for q in sorted(scored, key=lambda q: (q.score.f1, q.file)):
        files.append(
            q.row() | {"only_candidate": q.only_candidate, "only_reference": q.only_reference}
        )
    payload = meta | {
        "files": files,
        "skipped": [{"file": x.file, "reason": x.reason} for x in skipped],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False)


# --------------------------------------------------------------------------- CLI


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/quality.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "examples:\n"
            "  python bench/quality.py                                  # all text-bearing files\n"
            "  python bench/quality.py --files 'multicolumn/*' --worst 5\n"
            "  python bench/quality.py --out /tmp/f1.tsv --format json > /tmp/f1.json\n"
            "  python bench/quality.py --extractor pymupdf   # calibration: a peer vs pdftotext\n"
        ),
    )
    _selection_arguments(parser)
    _scoring_arguments(parser)
    _output_arguments(parser)
    return parser.parse_args(argv)


def _selection_arguments(parser: argparse.ArgumentParser) -> None:
    """Which files are scored, and whose text."""
    parser.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help="corpus folder holding MANIFEST.tsv (default: %(default)s)",
    )
    parser.add_argument(
        "--files",
        metavar="GLOB",
        help="only manifest paths matching this glob, comma-separated for several",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N selected files")
    parser.add_argument(
        "--extractor",
        default="ragprep",
        help="text to score: ragprep (default) or a peer name (pymupdf, pypdfium2, "
        "playa, pypdf, pdfminer) to see where a peer lands against the same reference",
    )
    parser.add_argument(
        "--mode", default="stream", help="ragprep extraction mode (default: %(default)s)"
    )
    parser.add_argument(
        "--min-words",
        type=int,
        default=20,
        metavar="N",
        help="a file is text-bearing when pdftotext yields at least N words (default: %(default)s)",
    )


def _scoring_arguments(parser: argparse.ArgumentParser) -> None:
    """The per-file limit, how much the worst files are detailed, how words are counted."""
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="per-file limit for pdftotext and the extractor, 0 for none (default: %(default)s)",
    )
    parser.add_argument(
        "--worst",
        type=int,
        default=10,
        metavar="N",
        help="worst files to detail (default: %(default)s)",
    )
    parser.add_argument(
        "--examples",
        type=int,
        default=8,
        metavar="N",
        help="example words per side for the worst files (default: %(default)s)",
    )
    parser.add_argument(
        "--cjk-runs",
        action="store_true",
        help="count a run of Han/kana as one word, like any other \\w run, instead of "
        "one token per character (the default; see bench/_metrics.py)",
    )


def _output_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument(
        "--out", type=Path, metavar="FILE", help="write the per-file table here as TSV"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    files = select_files(args.corpus, args.files, args.limit)
    exe = require_pdftotext()
    names = parse_peer_list(args.extractor)
    if len(names) != 1:
        raise BenchError(f"--extractor takes one name, got {args.extractor!r}")
    name = names[0]
    if name == "ragprep" and (reason := ragprep_import_error()):
        raise BenchError(f"ragprep's extraction API does not import ({reason})")
    quiet_peers()
    label, extractor = make_extractor(name, args.mode)
    started = time.perf_counter()
    scored, skipped = evaluate(
        files,
        exe,
        extractor,
        args.min_words,
        args.timeout,
        args.examples,
        split_cjk=not args.cjk_runs,
        progress=not args.quiet,
    )
    meta = {
        "corpus": str(args.corpus),
        "reference": pdftotext_version(exe),
        "candidate": label,
        "files_selected": len(files),
        "min_words": args.min_words,
        "cjk_tokens": "runs" if args.cjk_runs else "characters",
        "seconds": round(time.perf_counter() - started, 1),
        "summary": summary(scored),
    }
    if args.out:
        write_tsv(args.out, scored)
    if args.format == "json":
        print(to_json(meta, scored, skipped))
    else:
        print(render_text(meta, scored, skipped, args.worst))
    return 0


if __name__ == "__main__":
    run_cli(main)
