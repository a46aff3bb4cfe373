"""Layout mode against the author's order, and its speed against stream mode (issue 4).

Quality. On tagged multi-column files, the structure tree's order is the reference: layout
mode never consults the tree, so how close it comes to the author's order is a fair test of
its geometry. The order score of a page is the longest common subsequence of the word
sequences over the reference's length (``ragprep.pipeline.compare.metrics.order_score``,
the same words as ``ragprep compare``); a file's score is the sum of its pages' LCS over the
sum of their reference lengths. Pages structure mode cannot read, or with under 10 words,
are not scored.

Files. The scored files are tagged files whose structure tree reads their pages as a reader
would; a tagged file whose tree does not (OCR tags in recognition order, tags wrong on purpose)
is left out with why (``TAGS_NOT_A_TRUTH``), since scoring against it would reward reading the
page wrongly. Every scored file is read as it is (``original``: layout never consults the tree) and as
its scrambled twins (``bench/twins.py``: structure removed, the text repainted reversed, with
the columns interleaved line by line, shuffled, furniture first, x position first), built in a
temporary folder. A twin whose render differs from its original's is reported and not scored.
The reference of every variant is the original's structure text.

Candidates, on every variant:
- ``stream`` and ``layout`` as shipped (``extract_pages``; layout leaves running heads out);
- ``layout_order``: layout with running-head removal off, over the glyphs stream reads;
- peers, where installed: ``pdftotext`` (poppler-utils, its default reading order),
  ``pymupdf`` (``get_text(sort=True)``), ``pymupdf4llm`` (``to_markdown``, page chunks) and
  ``pdfminer`` (pdfminer.six ``extract_text``, default LAParams).

Speed. Stream and layout mode over whole documents (``extract_pages``, so layout includes
its running-head pass), file by file alternately, best of ``--repeat``, on the originals and
their twins; reported as layout's speed relative to stream (target >= 0.7x).

    python bench/layout.py                         # scores + speed (several minutes)
    python bench/layout.py --no-speed --format json
    python bench/layout.py --files 'tagged/lualatex-*' --pages   # per-page scores too
    python bench/layout.py --variants original,shuffled --peers none
    python bench/layout.py --chunks --peers none --no-speed      # chunks mixing two columns too

Not part of CI; see bench/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/layout.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._corpus import DEFAULT_CORPUS, PEERS, BenchError, CorpusFile, quiet_peers, run_cli, select_files  # noqa: E402
from bench._metrics import tokenize  # noqa: E402
from bench.chunk_columns import chunk_mixing  # noqa: E402
from bench.twins import SCRAMBLES, make_twin, pixel_difference, render  # noqa: E402
from ragprep.extract import ExtractConfig, RagprepError, open_document  # noqa: E402
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
        "tagged/pdfmaker23-word-nist-sp800-223-34p.pdf",
        "tagged/chrome-wikipedia-pdfjs-article.pdf",
    ]
)
# Tagged files whose tree reads a page in an order no reader of that page would: their structure
# text is no truth to score an order against, so they are left out of SCORED_FILES as the *_F0*
# files are, each with why (printed with the scores; `--files` still scores one against its tree).
TAGS_NOT_A_TRUTH = {
    "scanned-ocr/internet-archive-newspaper-tagged.pdf": (
        "OCR tags: a contents page's section numbers 2 14 14 read before the date and the title above "
        "them, 4a 7 after the last heading; pdftotext, PyMuPDF and pdfminer.six read the page alike "
        "(0.79 each against the tree)"
    ),
}
SPEED_FILES = "multicolumn/*"
MIN_REFERENCE_WORDS = 10
VARIANTS = ("original", *SCRAMBLES)
OURS = ("stream", "layout_order", "layout")
PEER_NAMES = ("pdftotext", "pymupdf", "pymupdf4llm", "pdfminer")
# A twin whose render differs from its original's on more than this share of pixels does
# not show the same page, and is not scored.
RENDER_TOLERANCE = 0.001
TARGET_SCRAMBLED = 0.97
TARGET_SPEED = 0.7

PageTexts = Callable[[Path], list[str]]


@dataclass
class PageScore:
    page: int
    words: int  # reference length
    lcs: dict[str, int]  # candidate -> LCS length with the reference


@dataclass
class VariantScore:
    file: str
    variant: str
    pages: list[PageScore] = field(default_factory=list)
    render: float = 0.0  # worst page's share of differing pixels against the original
    error: str | None = None
    # candidate -> (chunks, chunks mixing two columns), with --chunks (bench/chunk_columns.py)
    mixing: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def words(self) -> int:
        return sum(p.words for p in self.pages)

    def score(self, candidate: str) -> float | None:
        lcs = [p.lcs.get(candidate) for p in self.pages]
        if not self.words or any(v is None for v in lcs):
            return None
        return sum(v for v in lcs if v is not None) / self.words


# --------------------------------------------------------------------------- peers


def _pdftotext(path: Path) -> list[str]:
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, check=True)
    return out.stdout.decode("utf-8", "replace").split("\f")


def _pymupdf_sorted(path: Path) -> list[str]:
    import pymupdf

    with pymupdf.open(path) as doc:
        return [page.get_text(sort=True) for page in doc]


def _pymupdf4llm(path: Path) -> list[str]:
    import pymupdf
    import pymupdf4llm

    # Its parser's messages ("RapidOCR is missing") go through PyMuPDF's
    # message stream, stdout by default, which would break --format json.
    pymupdf.set_messages(stream=sys.stderr)
    chunks = pymupdf4llm.to_markdown(str(path), page_chunks=True, show_progress=False)
    return [chunk["text"] for chunk in chunks]


def available_peers(names: tuple[str, ...]) -> dict[str, PageTexts]:
    """The peers of `names` that are installed here."""
    found: dict[str, PageTexts] = {}
    for name in names:
        try:
            if name == "pdftotext":
                if shutil.which("pdftotext"):
                    found[name] = _pdftotext
            elif name == "pymupdf":
                import pymupdf

                pymupdf.TOOLS.mupdf_display_errors(False)
                found[name] = _pymupdf_sorted
            elif name == "pymupdf4llm":
                import pymupdf4llm  # noqa: F401

                found[name] = _pymupdf4llm
            elif name == "pdfminer":
                found[name] = PEERS["pdfminer"][1]()
        except ImportError:
            print(f"  {name} is not installed: left out", file=sys.stderr)
    return found


class PeerCache:
    """Peer texts by file content: the peers do not change between runs of this bench."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)

    def pages(self, name: str, run: PageTexts, path: Path) -> list[str] | None:
        target = None
        if self.folder is not None:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:24]
            target = self.folder / f"{digest}.{name}.json"
            if target.is_file():
                return json.loads(target.read_text(encoding="utf-8"))
        try:
            pages = run(path)
        except Exception as exc:  # a peer failing on a file says nothing about layout
            print(f"  {name} failed on {path.name}: {exc}", file=sys.stderr)
            return None
        if target is not None:
            target.write_text(json.dumps(pages, ensure_ascii=False), encoding="utf-8")
        return pages


# --------------------------------------------------------------------------- scoring


def references(path: Path, max_pages: int | None) -> dict[int, list[str]]:
    """Structure text (the author's order) of the pages structure mode reads, as words;
    the first `max_pages` of them when given."""
    found: dict[int, list[str]] = {}
    with open_document(path) as doc:
        for n in range(1, doc.page_count + 1):
            if max_pages is not None and len(found) >= max_pages:
                break
            page = doc.extract_page(n, "structure")
            if page.mode == "structure":
                words = tokenize(page.text)
                if len(words) >= MIN_REFERENCE_WORDS:
                    found[n] = words
    return found


def _ours(path: Path, numbers: list[int]) -> dict[str, dict[int, str]]:
    """Stream, layout without running-head removal, and layout as shipped (its running
    heads decided over the whole document) on pages `numbers`."""
    order_only = ExtractConfig(running_artifacts=False)
    with open_document(path) as doc, open_document(path, config=order_only) as plain:
        return {
            "stream": {p.page: p.text for p in plain.extract_pages(numbers, "stream")},
            "layout_order": {p.page: p.text for p in plain.extract_pages(numbers, "layout")},
            # Running heads are decided over the whole document, as shipped.
            "layout": {
                p.page: p.text for p in doc.extract_pages(range(1, doc.page_count + 1), "layout") if p.page in numbers
            },
        }


CHUNKED = ("stream", "layout")


def score_variant(
    rel: str,
    variant: str,
    path: Path,
    refs: dict[int, list[str]],
    peers: dict[str, PageTexts],
    cache: PeerCache,
    chunks: bool = False,
) -> VariantScore:
    report = VariantScore(rel, variant)
    if chunks:
        try:
            for mode in CHUNKED:
                found = chunk_mixing(path.read_bytes(), refs, mode)
                report.mixing[mode] = (found.chunks, found.mixed)
        except RagprepError as exc:
            report.error = str(exc)
            return report
    try:
        texts = _ours(path, sorted(refs))
    except RagprepError as exc:
        report.error = str(exc)
        return report
    for name, run in peers.items():
        pages = cache.pages(name, run, path)
        if pages is not None:
            texts[name] = dict(enumerate(pages, start=1))
    for n, reference in refs.items():
        lcs = {name: lcs_length(tokenize(pages[n]), reference) for name, pages in texts.items() if n in pages}
        report.pages.append(PageScore(n, len(reference), lcs))
    return report


def score_file(
    corpus_file: CorpusFile,
    variants: tuple[str, ...],
    peers: dict[str, PageTexts],
    cache: PeerCache,
    folder: Path,
    max_pages: int | None,
    chunks: bool = False,
) -> list[VariantScore]:
    """The file and its twins, each against the original's structure text."""
    try:
        refs = references(corpus_file.path, max_pages)
    except RagprepError as exc:
        return [VariantScore(corpus_file.rel, "original", error=str(exc))]
    original = corpus_file.path.read_bytes()
    renders: dict[int, object] = {}
    reports = []
    for variant in variants:
        path = corpus_file.path
        difference = 0.0
        if variant != "original":
            twin = make_twin(original, variant)
            path = folder / f"{corpus_file.path.stem}.{variant}.pdf"
            path.write_bytes(twin)
            for n in refs:
                if n not in renders:
                    renders[n] = render(original, n)
                difference = max(difference, pixel_difference(renders[n], render(twin, n)))  # type: ignore[arg-type]
        if difference > RENDER_TOLERANCE:
            reports.append(VariantScore(corpus_file.rel, variant, render=difference, error="renders differently"))
            continue
        report = score_variant(corpus_file.rel, variant, path, refs, peers, cache, chunks)
        report.render = difference
        reports.append(report)
    return reports


# --------------------------------------------------------------------------- speed


@dataclass
class Speed:
    files: str
    pages: int
    seconds_stream: float
    seconds_layout: float

    @property
    def layout_vs_stream(self) -> float:
        return self.seconds_stream / self.seconds_layout if self.seconds_layout else 0.0


def _read_seconds(path: Path, mode: str) -> tuple[float, int]:
    started = time.process_time()
    with open_document(path) as doc:
        pages = doc.extract_pages(range(1, doc.page_count + 1), mode)
    return time.process_time() - started, len(pages)


def measure_speed(label: str, paths: list[Path], repeat: int) -> Speed:
    """CPU time, best of `repeat` per file and mode, the modes alternating file by file so
    that a change in machine load hits both alike."""
    totals = {"stream": 0.0, "layout": 0.0}
    pages = 0
    for path in paths:
        best = {"stream": float("inf"), "layout": float("inf")}
        try:
            for _ in range(repeat):
                for mode in best:
                    seconds, count = _read_seconds(path, mode)
                    best[mode] = min(best[mode], seconds)
        except RagprepError:
            continue  # unreadable files say nothing about speed
        pages += count
        for mode, seconds in best.items():
            totals[mode] += seconds
    return Speed(label, pages, totals["stream"], totals["layout"])


# --------------------------------------------------------------------------- report


def _fmt(value: float | None) -> str:
    return f"{value:.4f}" if value is not None else "  -   "


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.mean(kept) if kept else None


def summary(reports: list[VariantScore], names: list[str]) -> dict[str, dict[str, float | None]]:
    """Mean score per variant (and over all scrambles) per candidate, over the files."""
    scored = [r for r in reports if r.pages and not r.error]
    means: dict[str, dict[str, float | None]] = {}
    for variant in [*VARIANTS, "scrambles"]:
        group = [r for r in scored if (r.variant == variant or (variant == "scrambles" and r.variant != "original"))]
        if group:
            means[variant] = {c: _mean([r.score(c) for r in group]) for c in names}
    return means


def mixing_summary(reports: list[VariantScore]) -> dict[str, dict[str, dict[str, int]]]:
    """Chunks, and chunks mixing two columns, per variant (and over all scrambles) per
    chunked candidate, summed over the files."""
    totals: dict[str, dict[str, dict[str, int]]] = {}
    for r in reports:
        for group in (r.variant, "scrambles") if r.variant != "original" else (r.variant,):
            for candidate, (chunks, mixed) in r.mixing.items():
                slot = totals.setdefault(group, {}).setdefault(candidate, {"chunks": 0, "mixed": 0})
                slot["chunks"] += chunks
                slot["mixed"] += mixed
    return {group: totals[group] for group in (*VARIANTS, "scrambles") if group in totals}


def _print_mixing(reports: list[VariantScore]) -> None:
    totals = mixing_summary(reports)
    if not totals:
        return
    print("\nchunks mixing two columns (bench/chunk_columns.py), mixed / chunks")
    for r in reports:
        if r.mixing:
            cells = "  ".join(f"{c} {m}/{n}" for c, (n, m) in r.mixing.items())
            print(f"{r.file[-46:]:46} {r.variant:16} {cells}")
    for group, values in totals.items():
        cells = "  ".join(f"{c} {v['mixed']}/{v['chunks']}" for c, v in values.items())
        print(f"{'total, ' + group:63} {cells}")


def _print(reports: list[VariantScore], speeds: list[Speed], show_pages: bool, baseline: dict | None) -> None:
    names = [c for c in (*OURS, *PEER_NAMES) if any(r.score(c) is not None for r in reports)]
    print("order score, reference = the original's structure text (author order)")
    scored = {r.file for r in reports}
    for name, why in TAGS_NOT_A_TRUTH.items():
        if name not in scored:
            print(f"not scored, its tags are no truth: {name}: {why}")
    print(f"{'file':46} {'variant':16} {'words':>6} " + " ".join(f"{c:>12}" for c in names))
    for r in reports:
        label = f"{r.file[-46:]:46} {r.variant:16}"
        if r.error:
            print(f"{label} error: {r.error}" + (f" ({r.render:.2%} of pixels)" if r.render else ""))
            continue
        if not r.pages:
            print(f"{label} no page read by structure")
            continue
        print(f"{label} {r.words:6} " + " ".join(f"{_fmt(r.score(c)):>12}" for c in names))
        if show_pages:
            for p in r.pages:
                cells = " ".join(f"{p.lcs[c] / p.words:12.4f}" if c in p.lcs else f"{'-':>12}" for c in names)
                print(f"{'  page ' + str(p.page):63} {p.words:6} {cells}")
    means = summary(reports, names)
    print()
    for variant, values in means.items():
        print(f"{'mean, ' + variant:63} {'':6} " + " ".join(f"{_fmt(values[c]):>12}" for c in names))
    _print_targets(reports, means, names, baseline)
    _print_mixing(reports)
    for speed in speeds:
        verdict = "met" if speed.layout_vs_stream >= TARGET_SPEED else "NOT met"
        print(
            f"\nspeed on {speed.files} ({speed.pages} pages, CPU): stream {speed.seconds_stream:.2f} s, "
            f"layout {speed.seconds_layout:.2f} s -> layout runs at {speed.layout_vs_stream:.2f}x stream "
            f"(target >= {TARGET_SPEED}x: {verdict})"
        )


def _print_targets(
    reports: list[VariantScore], means: dict[str, dict[str, float | None]], names: list[str], baseline: dict | None
) -> None:
    scrambled = means.get("scrambles", {})
    layout = scrambled.get("layout")
    if layout is None:
        return
    peers = {c: v for c, v in scrambled.items() if c in PEER_NAMES and v is not None}
    best = max(peers.items(), key=lambda kv: kv[1], default=None)
    print(f"\ntarget: mean layout on the scrambles >= {TARGET_SCRAMBLED}: {'met' if layout >= TARGET_SCRAMBLED else 'NOT met'} ({layout:.4f})")
    if best is not None:
        verdict = "met" if layout >= best[1] else "NOT met"
        print(f"target: mean layout on the scrambles >= the best peer ({best[0]} {best[1]:.4f}): {verdict}")
    if baseline is not None:
        before = {f["file"]: f["scores"].get("layout") for f in baseline["files"] if f["variant"] == "original"}
        worse = [
            f"{r.file} ({(r.score('layout') or 0) - (before[r.file] or 0):+.4f})"
            for r in reports
            if r.variant == "original" and r.file in before and (r.score("layout") or 0) < (before[r.file] or 0) - 1e-9
        ]
        print(f"target: no original worse than the baseline: {'met' if not worse else 'NOT met: ' + ', '.join(worse)}")


def main() -> int:
    args = _arguments()
    variants = tuple(v for v in args.variants.split(",") if v)
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise BenchError(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    wanted = () if args.peers == "none" else tuple(p for p in args.peers.split(",") if p)
    if any(p not in PEER_NAMES for p in wanted):
        raise BenchError(f"--peers takes some of {', '.join(PEER_NAMES)}, or none")
    baseline = json.loads(args.baseline.read_text(encoding="utf-8")) if args.baseline else None
    quiet_peers()
    peers = available_peers(wanted)
    reports, speeds = _measure(args, variants, peers)
    if args.format == "json":
        print(json.dumps(_payload(reports, speeds, peers), indent=2, ensure_ascii=False))
        return 0
    _print(reports, speeds, args.pages, baseline)
    return 0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", default=SCORED_FILES, help="manifest path glob(s) to score, comma-separated")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="original and/or twin orders, comma-separated")
    parser.add_argument("--peers", default=",".join(PEER_NAMES), help="peers to score beside ragprep ('none': no peer)")
    parser.add_argument("--cache", type=Path, default=None, help="folder caching peer texts by file content")
    parser.add_argument("--baseline", type=Path, default=None, help="an earlier --format json output to compare the originals with")
    parser.add_argument("--speed-files", default=SPEED_FILES, help="further glob(s) to time (besides the scored files and twins)")
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats per file and mode (best kept)")
    parser.add_argument("--no-speed", action="store_true", help="scores only")
    parser.add_argument("--chunks", action="store_true", help="count chunks mixing two columns (stream, layout)")
    parser.add_argument("--pages", action="store_true", help="print per-page scores")
    parser.add_argument("--max-pages", type=int, default=None, help="score the first N scored pages of each file")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args()
    if args.repeat < 1:
        raise BenchError("--repeat must be at least 1")
    return args


def _measure(
    args: argparse.Namespace, variants: tuple[str, ...], peers: dict[str, PageTexts]
) -> tuple[list[VariantScore], list[Speed]]:
    """The scores of every selected file and its twins, then (unless --no-speed)
    stream and layout timed on the scored files, their twins and --speed-files."""
    cache = PeerCache(args.cache)
    files = select_files(args.corpus, args.files)
    reports: list[VariantScore] = []
    speeds = []
    with tempfile.TemporaryDirectory(prefix="ragprep-twins-") as tmp:
        folder = Path(tmp)
        for corpus_file in files:
            print(f"  scoring {corpus_file.rel}", file=sys.stderr, flush=True)
            reports += score_file(corpus_file, variants, peers, cache, folder, args.max_pages, args.chunks)
        if not args.no_speed:
            print("  timing stream and layout", file=sys.stderr, flush=True)
            speeds.append(measure_speed("the scored files", [f.path for f in files], args.repeat))
            twins = sorted(folder.glob("*.pdf"))
            if twins:  # none with --variants original
                speeds.append(measure_speed("their twins", twins, args.repeat))
            if args.speed_files:
                extra = [f.path for f in select_files(args.corpus, args.speed_files)]
                speeds.append(measure_speed(args.speed_files, extra, args.repeat))
    return reports, speeds


def _payload(reports: list[VariantScore], speeds: list[Speed], peers: dict[str, PageTexts]) -> dict:
    """--format json: per file and variant its scores, pages and mixing; the means and speeds."""
    names = [*OURS, *peers]
    return {
        "files": [
            {
                "file": r.file,
                "variant": r.variant,
                "error": r.error,
                "render": r.render,
                "scores": {c: r.score(c) for c in names},
                "pages": [asdict(p) for p in r.pages],
                "mixing": {c: {"chunks": n, "mixed": m} for c, (n, m) in r.mixing.items()},
            }
            for r in reports
        ],
        "means": summary(reports, names),
        "not_scored": {name: why for name, why in TAGS_NOT_A_TRUTH.items() if name not in {r.file for r in reports}},
        "mixing": mixing_summary(reports),
        "speed": [asdict(s) | {"layout_vs_stream": s.layout_vs_stream} for s in speeds],
    }


if __name__ == "__main__":
    run_cli(main)
