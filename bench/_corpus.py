"""Shared helpers of the bench scripts: finding the corpus, choosing files, running extractors.

Nothing here is part of ragprep itself; the bench scripts are run by hand (see README.md).
Every extractor, ragprep included, is wrapped as ``Path -> list[str]`` (one string per page)
so that timing and scoring code treats them all alike. Each wrapper imports its library
lazily, so a missing peer only matters when it is asked for.
"""

from __future__ import annotations

import csv
import fnmatch
import logging
import os
import signal
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# The corpus lives next to the repository (DESIGN.md: ../shared/corpus/), never inside it.
DEFAULT_CORPUS = REPO_ROOT.parent / "shared" / "corpus"
# Damaged and encrypted files: interesting for robustness, meaningless for speed or quality.
EXCLUDED_BY_DEFAULT = ("broken/",)

Extractor = Callable[[Path], list[str]]


@dataclass(frozen=True)
class CorpusFile:
    """One row of MANIFEST.tsv that the bench scripts care about."""

    rel: str  # path relative to the corpus root, with forward slashes
    path: Path
    pages: int | None  # None when the manifest says n/a (pikepdf could not open it)
    tagged: bool
    producer: str


class BenchError(Exception):
    """A user-facing problem with the bench invocation; the scripts print it and exit 2."""


def run_cli(main: Callable[[], int]) -> None:
    """Run a bench script's main(), turning BenchError into a message and exit status 2."""
    try:
        status = main()
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        status = 2
    except BrokenPipeError:  # output piped into `head`: stop quietly, like other CLI tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)


def require_corpus(corpus: Path) -> Path:
    """Return the corpus root, or stop with a message that says how to point at it."""
    manifest = corpus / "MANIFEST.tsv"
    if not manifest.is_file():
        raise BenchError(
            f"no corpus at {corpus} (expected {manifest}); pass --corpus DIR pointing at the "
            "shared corpus folder, e.g. --corpus /work/shared/corpus"
        )
    return corpus


def read_manifest(corpus: Path) -> list[CorpusFile]:
    """All PDFs listed in MANIFEST.tsv, in manifest order."""
    rows: list[CorpusFile] = []
    with (corpus / "MANIFEST.tsv").open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            pages = row.get("pages", "")
            rows.append(
                CorpusFile(
                    rel=row["path"],
                    path=corpus / row["path"],
                    pages=int(pages) if pages.isdigit() else None,
                    tagged=row.get("tagged") == "yes",
                    producer=row.get("producer", ""),
                )
            )
    return rows


def select_files(
    corpus: Path, pattern: str | None = None, limit: int | None = None
) -> list[CorpusFile]:
    """Files to run on: every readable file outside broken/, or those matching ``pattern``.

    ``pattern`` is an fnmatch glob against the manifest path (``multicolumn/*``, ``*arxiv*``);
    several globs may be given separated by commas. An explicit pattern may select files in
    broken/ (the caller asked for them); files pikepdf cannot open at all are still skipped
    because they have no pages to time or score.
    """
    files = [f for f in read_manifest(require_corpus(corpus)) if f.pages is not None]
    if pattern:
        globs = [g.strip() for g in pattern.split(",") if g.strip()]
        files = [f for f in files if any(fnmatch.fnmatchcase(f.rel, g) for g in globs)]
    else:
        files = [f for f in files if not f.rel.startswith(EXCLUDED_BY_DEFAULT)]
    missing = [f.rel for f in files if not f.path.is_file()]
    if missing:
        raise BenchError(
            f"{len(missing)} manifest file(s) missing from {corpus}, e.g. {missing[0]}"
        )
    if limit is not None:
        files = files[:limit]
    if not files:
        raise BenchError(f"no corpus files selected (pattern={pattern!r}, limit={limit})")
    return files


# --------------------------------------------------------------------------- timeouts


def cpu_seconds() -> float:
    """This process's CPU time (user + system, every thread), exact to the microsecond.

    Not ``time.process_time``: while a process-wide CPU timer is armed (the
    extract bench's ITIMER_PROF timeout), Linux answers CLOCK_PROCESS_CPUTIME_ID
    from the timer's own accumulator, which advances only at scheduler ticks. A
    2 ms read then measures anywhere from 0 to a tick, and the least of three
    reads picks the one the tick missed. getrusage sums the threads' exact run
    times whether a timer is armed or not.
    """
    import resource  # POSIX only, like the timers that make it needed

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    """This process's peak resident set in MiB.

    On Linux, getrusage's ru_maxrss survives fork and exec: a child started by
    a 300 MB parent reports at least 300 MB whatever it touched. VmHWM is the
    high-water mark of this process's own address space, reset at exec.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource  # macOS and the BSDs: no /proc; ru_maxrss is theirs alone there

    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale


class FileTimeout(Exception):
    """One file took longer than the per-file limit."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise FileTimeout in the block after ``seconds`` (0 disables).

    SIGALRM interrupts Python code only: a call stuck inside a C library (MuPDF, PDFium,
    qpdf) is interrupted when it returns to Python. Good enough to stop one pathological
    file from stalling a whole run of the pure-Python peers.
    """
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum: int, frame: object) -> None:
        raise FileTimeout(f"timed out after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --------------------------------------------------------------------------- extractors


def quiet_peers() -> None:
    """Silence the peers' logging and warnings: thousands of lines would bury the tables."""
    warnings.filterwarnings("ignore")
    for name in ("pdfminer", "playa", "pypdf", "pikepdf", "fontTools"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _ragprep(mode: str) -> Extractor:
    from ragprep.extract import extract_document

    def run(path: Path) -> list[str]:
        result = extract_document(path, mode=mode)
        return [page.text for page in result.pages]

    return run


def _pdfminer() -> Extractor:
    # The machinery of pdfminer.high_level.extract_text, with the output buffer drained
    # after each page so that we get per-page strings at the same cost.
    import io

    from pdfminer.converter import TextConverter
    from pdfminer.layout import LAParams
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage

    def run(path: Path) -> list[str]:
        texts: list[str] = []
        out = io.StringIO()
        manager = PDFResourceManager(caching=True)
        device = TextConverter(manager, out, codec="utf-8", laparams=LAParams())
        interpreter = PDFPageInterpreter(manager, device)
        with path.open("rb") as fh:
            for page in PDFPage.get_pages(fh):
                interpreter.process_page(page)
                texts.append(out.getvalue())
                out.seek(0)
                out.truncate()
        device.close()
        return texts

    return run


def _playa() -> Extractor:
    # PLAYA's documented text path: page.extract_text() (marked-content aware on tagged
    # files, displacement-based otherwise), one process (max_workers=1) like everyone else.
    import playa

    def run(path: Path) -> list[str]:
        with playa.open(path, max_workers=1) as pdf:
            return [page.extract_text() for page in pdf.pages]

    return run


def _pypdf() -> Extractor:
    from pypdf import PdfReader

    def run(path: Path) -> list[str]:
        reader = PdfReader(path)
        return [page.extract_text() for page in reader.pages]

    return run


def _pypdfium2() -> Extractor:
    import pypdfium2 as pdfium

    def run(path: Path) -> list[str]:
        pdf = pdfium.PdfDocument(path)
        try:
            texts: list[str] = []
            for index in range(len(pdf)):
                page = pdf[index]
                textpage = page.get_textpage()
                texts.append(textpage.get_text_range())
                # Close eagerly: PDFium keeps every loaded page otherwise.
                textpage.close()
                page.close()
            return texts
        finally:
            pdf.close()

    return run


def _pymupdf() -> Extractor:
    import pymupdf

    # MuPDF prints repair messages to stderr for damaged files; they are noise here.
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)

    def run(path: Path) -> list[str]:
        with pymupdf.open(path) as doc:
            return [page.get_text() for page in doc]

    return run


# Names accepted by --peers, with the label printed in tables. Aliases keep the CLI forgiving.
PEERS: dict[str, tuple[str, Callable[[], Extractor]]] = {
    "pdfminer": ("pdfminer.six", _pdfminer),
    "playa": ("PLAYA", _playa),
    "pypdf": ("pypdf", _pypdf),
    "pypdfium2": ("pypdfium2", _pypdfium2),
    "pymupdf": ("PyMuPDF", _pymupdf),
}
ALIASES = {
    "pdfminer.six": "pdfminer",
    "playa-pdf": "playa",
    "fitz": "pymupdf",
    "pdfium": "pypdfium2",
}


def make_extractor(name: str, ragprep_mode: str = "stream") -> tuple[str, Extractor]:
    """(label, extractor) for ``ragprep`` or a peer name; imports the library now.

    Importing here, before any timing starts, keeps import cost out of the measurements.
    """
    if name == "ragprep":
        return f"ragprep ({ragprep_mode})", _ragprep(ragprep_mode)
    key = ALIASES.get(name, name)
    if key not in PEERS:
        known = ", ".join(["ragprep", *PEERS])
        raise BenchError(f"unknown extractor {name!r}; choose from {known}")
    label, factory = PEERS[key]
    return label, factory()


def parse_peer_list(spec: str) -> list[str]:
    """Canonical peer names from a comma-separated --peers value, duplicates dropped.

    ``none`` (as bench/layout.py spells it) asks for no peer at all."""
    if spec.strip().lower() == "none":
        return []
    names: list[str] = []
    for raw in spec.split(","):
        name = ALIASES.get(raw.strip().lower(), raw.strip().lower())
        if not name:
            continue
        if name != "ragprep" and name not in PEERS:
            known = ", ".join(["ragprep", *PEERS])
            raise BenchError(f"unknown peer {raw.strip()!r}; choose from {known}")
        if name not in names:
            names.append(name)
    return names


def ragprep_import_error() -> str | None:
    """None when ragprep's extraction API imports, else a one-line reason."""
    try:
        from ragprep.extract import extract_document  # noqa: F401
    except Exception as exc:  # any failure means "not usable yet", whatever its type
        return f"{type(exc).__name__}: {exc}"
    return None


def short_error(exc: BaseException, limit: int = 160) -> str:
    """A one-line ``Type: message`` for tables and JSON."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
