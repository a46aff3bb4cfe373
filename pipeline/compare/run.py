"""Running the chosen modes over the same documents and measuring them.

Each document is opened once; every mode that no dataset supplies is extracted from that one
open document (fonts and the structure tree are read once) and chunked with the same chunk
settings, so the modes differ in reading order only. Documents run in worker processes when
more than one worker is configured; a document that cannot be read becomes a
``DocumentError`` and the others go on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ragprep.chunk import ChunkConfig, Tokenizer, chunk_document, document_id, normalise
from ragprep.extract import DocumentResult, ExtractConfig, Mode, RagprepError, open_document
from ragprep.pipeline.compare.gold import GoldSet, GoldText
from ragprep.pipeline.compare.measure import (
    BlockBudget,
    CompareResult,
    DocumentComparison,
    DocumentError,
    measure_document,
)
from ragprep.pipeline.compare.model import ModeDocument

MODES = tuple(m.value for m in Mode)  # what --modes accepts

# Readings taken from existing datasets: mode -> doc_id -> reading.
ReusedReadings = Mapping[str, Mapping[str, ModeDocument]]


@dataclass(frozen=True)
class CompareSettings:
    modes: tuple[str, ...]
    extract: ExtractConfig = ExtractConfig()
    chunk: ChunkConfig = ChunkConfig()


@dataclass(frozen=True)
class _Task:
    path: Path
    settings: CompareSettings
    reused: tuple[ModeDocument, ...]  # readings some datasets already hold
    gold: GoldText | None


def read_modes(
    path: Path, modes: Sequence[str], settings: CompareSettings, tokenizer: Tokenizer
) -> tuple[ModeDocument, ...]:
    """Extract and chunk one document in each of ``modes`` (RagprepError when unreadable)."""
    source = str(path)
    doc_id = document_id(path.read_bytes())
    readings = []
    # Opened by path, not from the bytes, so that errors name the file.
    with open_document(path, config=settings.extract) as document:
        numbers = range(1, document.page_count + 1)
        for mode in modes:
            # All pages together, as `ragprep run` reads them: running heads are found across pages.
            result = DocumentResult(source, document.page_count, document.extract_pages(numbers, mode))
            chunks = chunk_document(
                result, doc_id=doc_id, source=source, config=settings.chunk,
                extract_config=settings.extract, tokenizer=tokenizer, mode=mode,
            )
            readings.append(ModeDocument.from_result(result, chunks, mode=mode, doc_id=doc_id, source=source))
    return tuple(readings)


def _compare_one(task: _Task) -> DocumentComparison | DocumentError:
    source = str(task.path)
    try:
        settings = task.settings
        tokenizer = Tokenizer.load(settings.chunk.encoding)  # tiktoken caches the encoding per process
        reused = {d.mode: dataclasses.replace(d, source=source) for d in task.reused}
        live = [m for m in settings.modes if m not in reused]
        fresh = {d.mode: d for d in read_modes(task.path, live, settings, tokenizer)} if live else {}
        readings = [reused.get(m) or fresh[m] for m in settings.modes]
        budget = BlockBudget(
            count_tokens=lambda text: tokenizer.count(normalise(text, dehyphenate=settings.chunk.dehyphenate)),
            max_tokens=settings.chunk.max_tokens,
        )
        return measure_document(readings, budget, task.gold)
    except RagprepError as exc:
        return DocumentError(source, str(exc))
    except OSError as exc:
        return DocumentError(source, f"{source}: cannot be read: {exc.strerror or exc}")
    except Exception as exc:  # noqa: BLE001 - one document's failure is one error row, never a lost run
        return DocumentError(source, f"{source}: {type(exc).__name__}: {exc}")


def _doc_id(path: Path) -> str | None:
    try:
        return document_id(path.read_bytes())
    except OSError:
        return None  # reported by the worker, with the reason


def compare_documents(
    paths: Sequence[Path],
    settings: CompareSettings,
    *,
    datasets: ReusedReadings | None = None,
    gold: GoldSet | None = None,
    workers: int = 1,
) -> CompareResult:
    """Run ``settings.modes`` over ``paths`` and measure every document.

    ``datasets`` supplies readings already made (``--dataset MODE=PATH``), matched by
    doc_id (the SHA-256 of the file's bytes); modes and documents it lacks are extracted.
    """
    datasets = datasets or {}
    tasks = []
    for path in paths:
        doc_id = _doc_id(path) if datasets else None
        reused = tuple(
            datasets[m][doc_id] for m in settings.modes if doc_id and m in datasets and doc_id in datasets[m]
        )
        tasks.append(_Task(path, settings, reused, gold.for_source(str(path)) if gold else None))
    if workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
            outcomes = list(pool.map(_compare_one, tasks, chunksize=1))
    else:
        outcomes = [_compare_one(task) for task in tasks]
    return CompareResult(
        modes=settings.modes,
        documents=tuple(o for o in outcomes if isinstance(o, DocumentComparison)),
        errors=tuple(o for o in outcomes if isinstance(o, DocumentError)),
        gold=gold is not None,
    )
