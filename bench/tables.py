"""Table extraction against docling's ground truth: ragprep, pdfplumber, PyMuPDF (issue 17).

Files: the untagged corpus files whose docling ground-truth JSON
(``groundtruth/docling/pdf/*.json``) lists tables. Per file and system:

* cell precision / recall / F1: the multiset of non-empty cell texts of all tables found on
  a page against the ground truth's cells on that page (texts NFKC-normalised, case-folded,
  blanks collapsed). A cell merged with its neighbour or split in two counts as wrong;
* adjacency F1 (ICDAR 2013 style): the multiset of (cell, next non-empty cell to its right)
  and (cell, next non-empty cell below) text pairs — it checks the grid, not just the texts;
* CPU seconds for the whole file.

The summary is the mean over files of each score, over the files whose ground truth
lists tables. Conservative detection is measured on the other pages: every page of
those files and of the untagged text files whose ground truth lists no table
(scanned pages left out) is a prose page, and a system that reports a table on one
has a false-positive page. Systems: ``ragprep`` (auto mode, whose
untagged pages are read by layout with table detection), ``pdfplumber``
(``page.extract_tables()``, default settings), ``pymupdf`` (``page.find_tables()``,
default strategy). Not part of CI; see bench/README.md.

    python bench/tables.py                 # table on stdout
    python bench/tables.py --format json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import DEFAULT_CORPUS, BenchError, quiet_peers, read_manifest, require_corpus, run_cli  # noqa: E402

# A grid per table: rows of cell texts ("" for an empty or covered slot), with its page.
Grid = tuple[int, list[list[str]]]

_GROUND_TRUTH = re.compile(r"groundtruth/docling/pdf/[^,\s]+\.json")


def norm(text: str | None) -> str:
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


def truth_grids(path: Path) -> list[Grid]:
    data = json.loads(path.read_text())
    grids = []
    for table in data.get("tables", []):
        info = table["data"]
        rows = [[""] * info["num_cols"] for _ in range(info["num_rows"])]
        for cell in info["table_cells"]:
            r, c = cell["start_row_offset_idx"], cell["start_col_offset_idx"]
            if r < len(rows) and c < len(rows[r]):
                rows[r][c] = cell["text"]
        grids.append((table["prov"][0]["page_no"], rows))
    return grids


def ragprep_grids(path: Path) -> list[Grid]:
    from ragprep.extract import extract_document, grid_texts

    return [(t.pages[0], grid_texts(t)) for t in extract_document(path, mode="auto").tables]


def pdfplumber_grids(path: Path) -> list[Grid]:
    import pdfplumber

    out = []
    with pdfplumber.open(path) as pdf:
        for number, page in enumerate(pdf.pages, start=1):
            for rows in page.extract_tables():
                out.append((number, [[c or "" for c in row] for row in rows]))
    return out


def pymupdf_grids(path: Path) -> list[Grid]:
    import pymupdf

    out = []
    with pymupdf.open(path) as doc:
        for number, page in enumerate(doc, start=1):
            for table in page.find_tables().tables:
                out.append((number, [[c or "" for c in row] for row in table.extract()]))
    return out


SYSTEMS: dict[str, Callable[[Path], list[Grid]]] = {
    "ragprep": ragprep_grids,
    "pdfplumber": pdfplumber_grids,
    "pymupdf": pymupdf_grids,
}


def cells(grids: list[Grid]) -> Counter:
    return Counter((page, norm(t)) for page, rows in grids for row in rows for t in row if norm(t))


def adjacency(grids: list[Grid]) -> Counter:
    pairs: Counter = Counter()
    for page, rows in grids:
        texts = [[norm(t) for t in row] for row in rows]
        for row in texts:
            filled = [t for t in row if t]
            pairs.update((page, "h", a, b) for a, b in pairwise(filled))
        width = max((len(r) for r in texts), default=0)
        for c in range(width):
            filled = [r[c] for r in texts if c < len(r) and r[c]]
            pairs.update((page, "v", a, b) for a, b in pairwise(filled))
    return pairs


def prf(found: Counter, truth: Counter) -> tuple[float, float, float]:
    hit = sum((found & truth).values())
    p = hit / sum(found.values()) if found else 0.0
    r = hit / sum(truth.values()) if truth else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def bench_files(corpus: Path) -> list[tuple[str, Path, Path]]:
    """Untagged text files with a docling ground truth, with or without tables."""
    out = []
    rows = (corpus / "MANIFEST.tsv").read_text().split("\n")
    for f in read_manifest(corpus):
        if f.tagged or f.rel.startswith(("broken/", "scanned-ocr/")):
            continue
        notes = next((line for line in rows if line.startswith(f.rel + "\t")), "")
        match = _GROUND_TRUTH.search(notes)
        if match:
            out.append((f.rel, f.path, corpus / match.group(0)))
    return out


def truth_pages(path: Path) -> int:
    return len(json.loads(path.read_text()).get("pages", {})) or 1


def prose_pages(found: list[Grid], truth: list[Grid], pages: int) -> tuple[int, int]:
    """(prose pages, those of them a table was reported on)."""
    with_tables = {page for page, _ in truth}
    prose = [p for p in range(1, pages + 1) if p not in with_tables]
    reported = {page for page, _ in found}
    return len(prose), sum(1 for p in prose if p in reported)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--format", choices=("table", "json"), default="table")
    args = parser.parse_args()
    corpus = require_corpus(args.corpus)
    quiet_peers()
    files = bench_files(corpus)
    if not any(truth_grids(t) for _, _, t in files):
        raise BenchError("no untagged file with docling table ground truth in the corpus")
    results, prose = score_files(files)
    summary = mean_scores(results, prose)
    if args.format == "json":
        print(json.dumps({"files": results, "mean": summary}, indent=2))
        return 0
    print_scores(results, summary)
    return 0


def score_files(files: list[tuple[str, Path, Path]]) -> tuple[list[dict], dict[str, list[int]]]:
    """Per file with ground truth and per system: cell and adjacency precision,
    recall and F1, and CPU seconds; per system, over every file: (prose pages,
    prose pages a table was reported on)."""
    results = []
    prose: dict[str, list[int]] = {name: [0, 0] for name in SYSTEMS}  # prose pages, false-positive pages
    for rel, pdf, truth_path in files:
        truth = truth_grids(truth_path)
        for name, system in SYSTEMS.items():
            started = time.process_time()
            try:
                found = system(pdf)
                error = None
            except Exception as exc:  # noqa: BLE001 - a peer failing on a file is a result
                found, error = [], f"{type(exc).__name__}: {exc}"[:120]
            seconds = time.process_time() - started
            n_prose, false_positive = prose_pages(found, truth, truth_pages(truth_path))
            prose[name][0] += n_prose
            prose[name][1] += false_positive
            if not truth:
                continue
            cp, cr, cf = prf(cells(found), cells(truth))
            ap, ar, af = prf(adjacency(found), adjacency(truth))
            results.append(
                {
                    "file": rel, "system": name, "tables": len(found), "truth_tables": len(truth),
                    "cell_precision": round(cp, 3), "cell_recall": round(cr, 3), "cell_f1": round(cf, 3),
                    "adjacency_precision": round(ap, 3), "adjacency_recall": round(ar, 3),
                    "adjacency_f1": round(af, 3), "cpu_seconds": round(seconds, 3), "error": error,
                }  # fmt: skip
            )
    return results, prose


def mean_scores(results: list[dict], prose: dict[str, list[int]]) -> dict[str, dict]:
    summary = {
        name: {
            key: round(statistics.mean(r[key] for r in results if r["system"] == name), 3)
            for key in ("cell_precision", "cell_recall", "cell_f1", "adjacency_f1", "cpu_seconds")
        }
        for name in SYSTEMS
    }
    for name, (n_prose, false_positive) in prose.items():
        summary[name]["prose_pages"] = n_prose
        summary[name]["false_positive_pages"] = false_positive
    return summary


def print_scores(results: list[dict], summary: dict[str, dict]) -> None:
    head = f"{'file':42} {'system':10} {'tables':>6} {'cellP':>6} {'cellR':>6} {'cellF1':>6} {'adjF1':>6} {'cpu s':>6}"
    print(head)
    for r in results:
        print(
            f"{r['file'][:42]:42} {r['system']:10} {r['tables']:>3}/{r['truth_tables']:<2} {r['cell_precision']:6.3f} "
            f"{r['cell_recall']:6.3f} {r['cell_f1']:6.3f} {r['adjacency_f1']:6.3f} {r['cpu_seconds']:6.2f}"
            + (f"  {r['error']}" if r["error"] else "")
        )
    print("\nmean over files")
    for name, s in summary.items():
        print(
            f"  {name:10} cell P {s['cell_precision']:.3f} R {s['cell_recall']:.3f} F1 {s['cell_f1']:.3f}"
            f"  adjacency F1 {s['adjacency_f1']:.3f}  cpu {s['cpu_seconds']:.2f} s"
            f"  tables on prose pages {s['false_positive_pages']}/{s['prose_pages']}"
        )

if __name__ == "__main__":
    run_cli(main)
