"""Structure mode on the corpus' tagged files: what it reads, how it compares, how fast.

For every tagged file (MANIFEST.tsv column ``tagged``), per file:
- pages read in structure mode, pages where it was unavailable (and why);
- untagged share and artifact share of the visible glyphs;
- auto mode's choices (pages by structure / by geometry);
- tree warnings;
- word-multiset F1 between structure text and stream text with artifacts left
  out of both (the same words, possibly in a different order): structure mode
  should lose and invent nothing;
- time of structure mode and of stream mode over the file, and PLAYA's time to
  walk the same structure tree (``playa.open(path).structure``, every element).

Not part of CI; see bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/structure.py`: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._corpus import DEFAULT_CORPUS, BenchError, run_cli, select_files  # noqa: E402
from bench._metrics import f1, word_counts  # noqa: E402
from ragprep.extract import Mode, RagprepError, open_document  # noqa: E402


_PLAYA_ELEMENT_CAP = 100_000


@dataclass
class FileReport:
    file: str
    pages: int
    structure_pages: int
    unavailable: dict[str, int]
    untagged_share: float
    artifact_share: float
    auto_structure: int
    auto_geometry: int
    warnings: list[str]
    f1_structure_vs_stream: float | None
    seconds_stream: float
    seconds_structure: float
    seconds_playa_tree: float | None
    error: str | None = None


def _time_mode(path: Path, mode: Mode) -> tuple[float, list]:
    started = time.perf_counter()
    with open_document(path) as doc:
        pages = [doc.extract_page(n, mode) for n in range(1, doc.page_count + 1)]
    return time.perf_counter() - started, pages


def _time_playa_tree(path: Path) -> float | None:
    try:
        import playa
    except ImportError:
        return None
    logging.getLogger("playa").setLevel(logging.CRITICAL)  # per-reference complaints drown the report
    started = time.perf_counter()
    try:
        with playa.open(path, max_workers=1) as pdf:
            tree = pdf.structure
            if tree is not None:
                # PLAYA's walk does not detect /K cycles (the PowerPoint file has
                # one): stop it well past any real tree's size.
                for count, _ in enumerate(tree.find_all()):
                    if count > _PLAYA_ELEMENT_CAP:
                        return None
    except Exception:  # a peer failing on a file is a data point, not our crash
        return None
    return time.perf_counter() - started


def report_file(path: Path, rel: str) -> FileReport:
    seconds_stream, stream_pages = _time_mode(path, Mode.STREAM)
    seconds_structure, structure_pages = _time_mode(path, Mode.STRUCTURE)
    with open_document(path) as doc:
        auto_pages = [doc.extract_page(n, Mode.AUTO) for n in range(1, doc.page_count + 1)]
        stream_no_artifacts = _stream_text_without_artifacts(doc)
        tree = doc.struct_tree
        warnings = [w.render() for w in tree.warnings] if tree is not None else []
    glyphs = sum(p.glyphs for p in structure_pages)
    unavailable = Counter(p.reason or "" for p in structure_pages if p.mode == "unavailable")
    read = [p for p in structure_pages if p.mode == "structure"]
    structure_words = word_counts("\n".join(p.text for p in read))
    stream_words = word_counts(
        "\n".join(text for p, text in zip(structure_pages, stream_no_artifacts, strict=True) if p.mode == "structure")
    )
    return FileReport(
        file=rel,
        pages=len(structure_pages),
        structure_pages=len(read),
        unavailable=dict(unavailable),
        untagged_share=sum(p.untagged_glyphs for p in read) / max(1, sum(p.glyphs for p in read)),
        artifact_share=sum(p.artifact_glyphs for p in structure_pages) / max(1, glyphs),
        auto_structure=sum(p.mode == "structure" for p in auto_pages),
        auto_geometry=sum(p.mode != "structure" for p in auto_pages),
        warnings=warnings,
        f1_structure_vs_stream=f1(structure_words, stream_words) if (structure_words or stream_words) else None,
        seconds_stream=seconds_stream,
        seconds_structure=seconds_structure,
        seconds_playa_tree=_time_playa_tree(path),
    )


def _stream_text_without_artifacts(doc) -> list[str]:
    """Stream-mode text of every page with /Artifact glyphs dropped (structure
    mode leaves them out by default, so the word sets are comparable)."""
    from ragprep.extract.geometric import join, stream_order

    texts = []
    for n in range(1, doc.page_count + 1):
        table = doc.page_glyphs(n).table
        kept = table.select(~table.artifact)
        texts.append(join(kept, stream_order(kept, doc.config), doc.config).text)
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", help="manifest path glob(s), comma-separated (default: tagged files)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args()
    files = [f for f in select_files(args.corpus, args.files) if f.tagged]
    if not files:
        raise BenchError("no tagged files selected")
    reports: list[FileReport] = []
    for corpus_file in files:
        print(f"  {corpus_file.rel}", file=sys.stderr, flush=True)
        try:
            reports.append(report_file(corpus_file.path, corpus_file.rel))
        except RagprepError as exc:
            reports.append(FileReport(corpus_file.rel, 0, 0, {}, 0, 0, 0, 0, [], None, 0, 0, None, str(exc)))
    if args.format == "json":
        print(json.dumps([asdict(r) for r in reports], indent=2, ensure_ascii=False))
        return 0
    _print(reports)
    return 0


def _print(reports: list[FileReport]) -> None:
    print(f"{'file':58} {'pages':>5} {'struct':>6} {'untag%':>6} {'artif%':>6} {'auto S/G':>8} {'F1':>6}  warnings")
    for r in reports:
        if r.error:
            print(f"{r.file:58} error: {r.error}")
            continue
        f1_text = f"{r.f1_structure_vs_stream:.3f}" if r.f1_structure_vs_stream is not None else "  -  "
        auto = f"{r.auto_structure}/{r.auto_geometry}"
        print(
            f"{r.file:58} {r.pages:5} {r.structure_pages:6} {100 * r.untagged_share:6.1f} "
            f"{100 * r.artifact_share:6.1f} {auto:>8} {f1_text:>6}  {len(r.warnings)}"
        )
        for reason, count in r.unavailable.items():
            print(f"{'':60}unavailable x{count}: {reason}")
        for warning in r.warnings[:3]:
            print(f"{'':60}warning: {warning[:110]}")
    scored = [r.f1_structure_vs_stream for r in reports if r.f1_structure_vs_stream is not None]
    print(f"\nmean F1 structure vs stream (artifacts aside): {statistics.mean(scored):.4f} over {len(scored)} files")
    print("files below 0.9:", ", ".join(r.file for r in reports if (r.f1_structure_vs_stream or 1) < 0.9) or "none")
    stream = sum(r.seconds_stream for r in reports if not r.error)
    structure = sum(r.seconds_structure for r in reports if not r.error)
    playa_times = [r.seconds_playa_tree for r in reports if r.seconds_playa_tree is not None]
    print(f"\nstream mode {stream:.2f} s, structure mode {structure:.2f} s over the same files: "
          f"structure runs at {stream / structure:.2f}x the speed of stream")
    if playa_times:
        print(f"PLAYA structure-tree walk alone: {sum(playa_times):.2f} s over {len(playa_times)} files "
              "(ragprep's structure mode includes interpretation and text; its tree read is part of that)")


if __name__ == "__main__":
    run_cli(main)
