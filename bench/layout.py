"""Layout mode against the author's order, and its speed against stream mode (issue 4).

Quality. On tagged multi-column files, the structure tree's order is the reference: layout
mode never consults the tree, so how close it comes to the author's order is a fair test of
its geometry. The order score of a page is the longest common subsequence of the word
sequences over the reference's length (``ragprep.pipeline.compare.metrics.order_score``,
the same words as ``ragprep compare``); a file's score is the sum of its pages' LCS over the
sum of their reference lengths. Pages structure mode cannot read, or with under 10 words,
are not scored.

Candidates:
- ``stream`` and ``layout`` as shipped (``extract_pages``): the issue's comparison.
- ``stream_content``: stream order over the glyphs layout reads, i.e. without the running
  headers and footers layout leaves out (``Document.running_glyphs``);
- ``layout_order``: layout with running-head removal off, over the glyphs stream reads;
- ``pymupdf``: PyMuPDF ``get_text(sort=True)`` when installed (its "natural reading order").

Why the two same-glyph pairs: LCS over the reference's length rewards extra words that
happen to match elsewhere in the reference. A running footer "1 of 4" kept by stream mode
matches a "1", an "of", a "4" of the body somewhere, so dropping it can lower a score by a
few words even where the author's tree marks it as an artifact. Order is compared on the
same glyphs: layout against ``stream_content``, and ``layout_order`` against ``stream``.

Speed. Stream and layout mode over whole documents (``extract_pages``, so layout includes
its running-head pass), file by file alternately, best of ``--repeat``; reported as layout's
speed relative to stream (target ≥ 0.7x), on the scored files and on ``multicolumn/*``.

    python bench/layout.py                         # scores + speed (~1 min)
    python bench/layout.py --no-speed --format json
    python bench/layout.py --files 'tagged/lualatex-*' --pages   # per-page scores too

Not part of CI; see bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/layout.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._corpus import DEFAULT_CORPUS, BenchError, CorpusFile, quiet_peers, run_cli, select_files  # noqa: E402
from bench._metrics import tokenize  # noqa: E402
from ragprep.extract import ExtractConfig, RagprepError, open_document  # noqa: E402
from ragprep.extract.reading import read_stream  # noqa: E402
from ragprep.pipeline.compare.metrics import lcs_length  # noqa: E402

# The tagged files whose pages set text in columns or beside sidebars (MANIFEST notes), with
# a structure tree that reads them in the right order. The pdfua *_F0* files are left out:
# their tags are wrong on purpose.
SCORED_FILES = ",".join(
    [
        "tagged/lualatex-tagpdf-two-column.pdf",
        "tagged/pdfua-G4_03-columns-correct-order.pdf",
        "tagged/pdfua-G4_04-sidebar-correct.pdf",
        "tagged/indesign-excavator-manual-4p.pdf",
        "tagged/indesign-faa-amt-handbook-sample.pdf",
        "tagged/chrome-wikipedia-bart-simpson-16p.pdf",
        "tagged/indesign2015-breast-cancer-guide-76p.pdf",
        "scanned-ocr/internet-archive-newspaper-tagged.pdf",
        "tagged/pdfmaker23-word-nist-sp800-223-34p.pdf",
        "tagged/chrome-wikipedia-pdfjs-article.pdf",
    ]
)
SPEED_FILES = "multicolumn/*"
MIN_REFERENCE_WORDS = 10
CANDIDATES = ("stream", "stream_content", "layout_order", "layout", "pymupdf")
# (candidate, compared with, on what) for the target lines.
COMPARISONS = (
    ("layout", "stream", "as shipped"),
    ("layout", "stream_content", "same glyphs, running heads left out"),
    ("layout_order", "stream", "same glyphs, running heads kept"),
)
TARGET_MEAN = 0.95
TARGET_SPEED = 0.7


@dataclass
class PageScore:
    page: int
    words: int  # reference length
    lcs: dict[str, int]  # candidate -> LCS length with the reference


@dataclass
class FileScore:
    file: str
    pages: list[PageScore] = field(default_factory=list)
    error: str | None = None

    @property
    def words(self) -> int:
        return sum(p.words for p in self.pages)

    def score(self, candidate: str) -> float | None:
        lcs = [p.lcs.get(candidate) for p in self.pages]
        if not self.words or any(v is None for v in lcs):
            return None
        return sum(v for v in lcs if v is not None) / self.words


def _pymupdf_pages(path: Path) -> list[str] | None:
    try:
        import pymupdf
    except ImportError:
        return None
    pymupdf.TOOLS.mupdf_display_errors(False)
    with pymupdf.open(path) as doc:
        return [page.get_text(sort=True) for page in doc]


def score_file(corpus_file: CorpusFile) -> FileScore:
    report = FileScore(corpus_file.rel)
    path = corpus_file.path
    order_only = ExtractConfig(running_artifacts=False)
    try:
        pymupdf_pages = _pymupdf_pages(path)
        with open_document(path) as doc, open_document(path, config=order_only) as plain:
            numbers = range(1, doc.page_count + 1)
            shipped = doc.extract_pages(numbers, "layout")
            running = doc.running_glyphs(numbers)
            for n in numbers:
                as_tagged = doc.extract_page(n, "structure")
                if as_tagged.mode != "structure":
                    continue
                reference = tokenize(as_tagged.text)
                if len(reference) < MIN_REFERENCE_WORDS:
                    continue
                table = plain.page_glyphs(n).table
                candidates = {
                    "stream": plain.extract_page(n, "stream").text,
                    "stream_content": read_stream(table.select(~running[n]), order_only).joined.text,
                    "layout_order": plain.extract_page(n, "layout").text,
                    "layout": shipped[n - 1].text,
                }
                if pymupdf_pages is not None:
                    candidates["pymupdf"] = pymupdf_pages[n - 1]
                words = {name: tokenize(text) for name, text in candidates.items()}
                report.pages.append(PageScore(n, len(reference), {c: lcs_length(w, reference) for c, w in words.items()}))
    except RagprepError as exc:
        report.error = str(exc)
    return report


@dataclass
class Speed:
    files: str
    pages: int
    seconds_stream: float
    seconds_layout: float

    @property
    def layout_vs_stream(self) -> float:
        return self.seconds_stream / self.seconds_layout


def _read_seconds(path: Path, mode: str) -> tuple[float, int]:
    started = time.perf_counter()
    with open_document(path) as doc:
        pages = doc.extract_pages(range(1, doc.page_count + 1), mode)
    return time.perf_counter() - started, len(pages)


def measure_speed(label: str, files: list[CorpusFile], repeat: int) -> Speed:
    """Best of `repeat` per file and mode, the modes alternating file by file so that a
    change in machine load hits both alike."""
    totals = {"stream": 0.0, "layout": 0.0}
    pages = 0
    for corpus_file in files:
        best = {"stream": float("inf"), "layout": float("inf")}
        try:
            for _ in range(repeat):
                for mode in best:
                    seconds, count = _read_seconds(corpus_file.path, mode)
                    best[mode] = min(best[mode], seconds)
        except RagprepError:
            continue  # unreadable files say nothing about speed
        pages += count
        for mode, seconds in best.items():
            totals[mode] += seconds
    return Speed(label, pages, totals["stream"], totals["layout"])


def _fmt(value: float | None) -> str:
    return f"{value:.4f}" if value is not None else "  -   "


def _print(reports: list[FileScore], speeds: list[Speed], show_pages: bool) -> None:
    names = [c for c in CANDIDATES if any(r.score(c) is not None for r in reports)]
    print("order score, reference = structure text (author order)")
    print(f"{'file':52} {'words':>6} " + " ".join(f"{c:>14}" for c in names))
    for r in reports:
        if r.error:
            print(f"{r.file:52} error: {r.error}")
            continue
        if not r.pages:
            print(f"{r.file:52} no page read by structure")
            continue
        print(f"{r.file:52} {r.words:6} " + " ".join(f"{_fmt(r.score(c)):>14}" for c in names))
        if show_pages:
            for p in r.pages:
                cells = " ".join(f"{p.lcs[c] / p.words:14.4f}" for c in names if c in p.lcs)
                print(f"{'  page ' + str(p.page):52} {p.words:6} {cells}")
    scored = [r for r in reports if r.pages and not r.error]
    if not scored:
        print("no file has pages structure mode reads: nothing to score (untagged files give speed only)")
        names = []
    means = {c: statistics.mean(s for r in scored if (s := r.score(c)) is not None) for c in names}
    if scored:
        print(f"{'mean over ' + str(len(scored)) + ' files':52} {'':6} " + " ".join(f"{_fmt(means[c]):>14}" for c in names))
        _print_targets(scored, means)
    for speed in speeds:
        verdict = "met" if speed.layout_vs_stream >= TARGET_SPEED else "NOT met"
        print(
            f"\nspeed on {speed.files} ({speed.pages} pages): stream {speed.seconds_stream:.2f} s, "
            f"layout {speed.seconds_layout:.2f} s -> layout runs at {speed.layout_vs_stream:.2f}x stream "
            f"(target >= {TARGET_SPEED}x: {verdict})"
        )


def _print_targets(scored: list[FileScore], means: dict[str, float]) -> None:
    print(f"\ntarget: mean layout >= {TARGET_MEAN}: {'met' if means['layout'] >= TARGET_MEAN else 'NOT met'} ({means['layout']:.4f})")
    for candidate, other, what in COMPARISONS:
        below = [
            f"{r.file} ({(r.score(candidate) or 0) - (r.score(other) or 0):+.4f})"
            for r in scored
            if (r.score(candidate) or 0) < (r.score(other) or 0)
        ]
        verdict = "met" if not below else "NOT met: " + ", ".join(below)
        print(f"target: {candidate} >= {other} on every file ({what}): {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", default=SCORED_FILES, help="manifest path glob(s) to score, comma-separated")
    parser.add_argument("--speed-files", default=SPEED_FILES, help="further glob(s) to time (besides the scored files)")
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats per file and mode (best kept)")
    parser.add_argument("--no-speed", action="store_true", help="scores only")
    parser.add_argument("--pages", action="store_true", help="print per-page scores")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args()
    if args.repeat < 1:
        raise BenchError("--repeat must be at least 1")
    quiet_peers()
    files = select_files(args.corpus, args.files)
    reports = []
    for corpus_file in files:
        print(f"  scoring {corpus_file.rel}", file=sys.stderr, flush=True)
        reports.append(score_file(corpus_file))
    speeds = []
    if not args.no_speed:
        print("  timing stream and layout", file=sys.stderr, flush=True)
        speeds.append(measure_speed("the scored files", files, args.repeat))
        if args.speed_files:
            speeds.append(measure_speed(args.speed_files, select_files(args.corpus, args.speed_files), args.repeat))
    if args.format == "json":
        payload = {
            "files": [
                {
                    "file": r.file,
                    "error": r.error,
                    "scores": {c: r.score(c) for c in CANDIDATES},
                    "pages": [asdict(p) for p in r.pages],
                }
                for r in reports
            ],
            "speed": [asdict(s) | {"layout_vs_stream": s.layout_vs_stream} for s in speeds],
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    _print(reports, speeds, args.pages)
    return 0


if __name__ == "__main__":
    run_cli(main)
