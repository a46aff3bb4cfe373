"""Small generated PDFs for pipeline tests, and worker handlers that misbehave.

The handlers live here (not in a test module) because worker processes import
them by module name.
"""

from __future__ import annotations

import hashlib
import os
import time
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa
from pdfbuilder import PdfBuilder, literal

from ragprep.pipeline.model import DocumentOutput, DocumentRow, DocumentTask
from ragprep.pipeline.schema import CHUNKS, PAGES
from ragprep.pipeline.worker import RunContext, process_document

WORDS = ["retrieval", "structure", "column", "glyph", "parquet", "worker", "chunk", "token", "page", "stream", "order", "heading", "table", "figure", "caption", "section", "summary", "method", "result", "dataset", "version", "commit"]


def report_pdf(title: str, pages: int = 2, lines_per_page: int = 12) -> bytes:
    """An untagged report: `title` on top of every page, then numbered lines
    whose words depend on the title (different titles, different chunks)."""
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica", widths=True)
    seed = sum(map(ord, title))
    for page in range(pages):
        ops = [f"BT /{font} 16 Tf 72 740 Td {literal(title)} Tj ET"]
        for line in range(lines_per_page):
            words = " ".join(WORDS[(seed + page * 7 + line * 3 + k) % len(WORDS)] for k in range(9))
            text = f"{title} {page + 1}.{line + 1}: {words}."
            ops.append(f"BT /{font} 10 Tf 72 {700 - 14 * line} Td {literal(text)} Tj ET")
        b.add_page(" ".join(ops))
    b.set_info({"Title": title, "Producer": "pipelinedocs"})
    return b.to_bytes()


def write_corpus(folder: Path, count: int, *, prefix: str = "doc") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"{prefix}-{i:02d}.pdf"
        path.write_bytes(report_pdf(f"{prefix.title()} {i}"))
        paths.append(path)
    return paths


BROKEN_PDF = b"%PDF-1.7\nthis file was cut off before its first object"


def hang_on_slow(task: DocumentTask, context: RunContext, tokenizer) -> DocumentOutput:
    """Hangs on files named *slow*; reads the others normally."""
    if "slow" in Path(task.path).name:
        time.sleep(3600)
    return process_document(task, context, tokenizer)


def die_on_crash(task: DocumentTask, context: RunContext, tokenizer) -> DocumentOutput:
    """Kills its own worker on files named *crash* (as a segfault in a C library would)."""
    if "crash" in Path(task.path).name:
        os._exit(70)
    return process_document(task, context, tokenizer)


def time_out_on_stuck(task: DocumentTask, context: RunContext, tokenizer) -> DocumentOutput:
    """Answers files named *stuck* as a worker stopped at the time limit
    would (without the wait); reads the others normally."""
    if "stuck" in Path(task.path).name:
        return context.error(task, "TimeoutError", "took longer than 600 s (pipeline.timeout_seconds)")
    return process_document(task, context, tokenizer)


def hold_on_held(task: DocumentTask, context: RunContext, tokenizer) -> DocumentOutput:
    """Holds files named *held* until a file `<name>.release` appears beside
    them (at most 120 s), then reads every document normally: one long
    document, as long as the test wants."""
    path = Path(task.path)
    if "held" in path.name:
        release, deadline = path.with_suffix(".release"), time.monotonic() + 120
        while not release.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    return process_document(task, context, tokenizer)


BIG_ALLOCATION = 1536 * 1024 * 1024


def allocate_on_big(task: DocumentTask, context: RunContext, tokenizer) -> DocumentOutput:
    """Allocates 1.5 GiB on files named *big*: fine without a memory limit,
    a MemoryError under a 2 GiB address-space limit."""
    if "big" in Path(task.path).name:
        hog = bytearray(BIG_ALLOCATION)
        hog[-1] = 1
        del hog
    return process_document(task, context, tokenizer)


def address_space_mib(task: DocumentTask, context: RunContext, tokenizer) -> DocumentOutput:
    """Reports the worker's virtual memory size (VmSize) in the error message."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return context.error(task, "Probe", str(int(line.split()[1]) // 1024))
    return context.error(task, "Probe", "unknown")


def _parent_pid(pid: int) -> int:
    # /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after its ")".
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def misbehave(task: DocumentTask, context: RunContext, tokenizer) -> DocumentOutput:
    """Every way a document can go wrong in a worker, by file name: *slow* hangs,
    *big* allocates 1.5 GiB, *crash* kills its worker, *lost* kills the Ray actor
    that hosts its worker (the parent of the worker's forkserver) as a lost node
    would; the others are read normally."""
    name = Path(task.path).name
    if "lost" in name:
        actor = _parent_pid(os.getppid())
        # Ray names an actor's process after it ("ray::_Host..."): never kill anything else.
        if b"ray::" in Path(f"/proc/{actor}/cmdline").read_bytes():
            os.kill(actor, 9)
        os._exit(71)
    for marker, handler in (("slow", hang_on_slow), ("big", allocate_on_big), ("crash", die_on_crash)):
        if marker in name:
            return handler(task, context, tokenizer)
    return process_document(task, context, tokenizer)


# --------------------------------------------------------------------------- synthetic outputs for the commit layer


def _filler(field: pa.Field, count: int) -> pa.Array:
    """`count` plain values of a column no synthetic document sets: zeros, empty text, empty lists."""
    kind = field.type
    if pa.types.is_list(kind):
        return pa.array([[] for _ in range(count)], kind)
    if pa.types.is_string(kind):
        return pa.array([""] * count, kind)
    if pa.types.is_boolean(kind):
        return pa.array([False] * count, kind)
    if pa.types.is_timestamp(kind):
        return pa.array([datetime(2026, 1, 1, tzinfo=timezone.utc)] * count, kind)
    return pa.array([0] * count, kind)


def _batch(schema: pa.Schema, columns: dict[str, list]) -> pa.RecordBatch:
    count = len(next(iter(columns.values())))
    arrays = [pa.array(columns[f.name], f.type) if f.name in columns else _filler(f, count) for f in schema]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def synthetic_bytes(number: int, version: int = 0) -> bytes:
    """The made-up file content whose SHA-256 is synthetic document `number`'s doc_id."""
    return f"%PDF-synthetic {number}:{version}\n".encode()


def synthetic_output(
    number: int,
    *,
    version: int = 0,
    chunks: int = 3,
    run_id: str = "synthetic",
    source: str | None = None,
    config_hash: str = "synthetic",
    pipeline_version: str = "0",
) -> DocumentOutput:
    """A worker's answer for a made-up one-page document `number` (its bytes,
    ``synthetic_bytes``, change with `version`): rows of the real schemas, no
    PDF read. For exercising the commit layer at corpus scale without extracting."""
    source = source or f"corpus/doc-{number:06d}.pdf"
    doc_id = hashlib.sha256(synthetic_bytes(number, version)).hexdigest()
    words = " ".join(WORDS[(number * 7 + version + k) % len(WORDS)] for k in range(60))
    chunk_ids = [hashlib.sha256(f"{doc_id}:{i}".encode()).hexdigest() for i in range(chunks)]
    chunk_rows = _batch(
        CHUNKS,
        {
            "chunk_id": chunk_ids,
            "doc_id": [doc_id] * chunks,
            "source": [source] * chunks,
            "index": list(range(chunks)),
            "text": [f"{i}: {words}" for i in range(chunks)],
            "n_tokens": [60] * chunks,
            "tokenizer": ["cl100k_base"] * chunks,
            "page_start": [1] * chunks,
            "page_end": [1] * chunks,
        },
    )
    page_rows = _batch(PAGES, {"doc_id": [doc_id], "source": [source], "page": [1], "text": [words * chunks]})
    row = DocumentRow(
        doc_id=doc_id, source=source, duplicate_sources=[], bytes=4096 + number, pages=1, producer="synthetic",
        tagged=False, status="ok", error_type=None, error_message=None, error_page=None, attempts=1,
        chunks=chunks, seconds=0.01, mode="auto", pipeline_version=pipeline_version, config_hash=config_hash,
        run_id=run_id,
        processed_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
    )  # fmt: skip
    return DocumentOutput(row, chunk_rows, page_rows)
