"""One document through extract and chunk, as Arrow: the run's stage function for other engines.

``ragprep run`` plans and commits in one driver and reads the documents on an engine: its
own worker pool, or Ray (``--engine ray``, ``ragprep.pipeline.ray_engine``). For another
distributed engine (Spark, Dask), that engine runs this function on its executors::

    from ragprep.pipeline.config import Settings
    from ragprep.pipeline.stage import read_document

    settings = Settings.load("my.toml")           # picklable: ship it to the executors
    output = read_document("a.pdf", settings)     # on an executor
    output.row        # DocumentRow: a row of schema.DOCUMENTS (status, error, counts)
    output.chunks     # pa.RecordBatch of schema.CHUNKS, None when the document failed
    output.pages      # pa.RecordBatch of schema.PAGES
    output.tables     # pa.RecordBatch of schema.TABLE_CELLS

The output is exactly what a worker of ``ragprep run`` sends its parent: the same chunk
ids, rows and error rows (a document that cannot be read is an error row, never an
exception). What stays with ``ragprep run`` is the rest: deciding what to skip, the change
log, the atomic versioned commits; an engine writes its own Parquet with these schemas.
No time or memory limit applies here: the engine's own task limits do that job.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

from ragprep.chunk import Tokenizer
from ragprep.pipeline.config import Settings
from ragprep.pipeline.model import DocumentOutput, DocumentTask
from ragprep.pipeline.run import pipeline_version
from ragprep.pipeline.sources import source_key
from ragprep.pipeline.worker import RunContext, process_document


def read_document(
    path: str | os.PathLike[str],
    settings: Settings,
    *,
    run_id: str = "external",
    passwords: Sequence[str] = (),
    tokenizer: Tokenizer | None = None,
) -> DocumentOutput:
    """Extract and chunk the PDF at `path` with `settings`, as one worker of
    ``ragprep run`` would; `run_id` goes in the row, `passwords` are tried on a
    document that needs one, `tokenizer` saves loading it per call (tiktoken
    also caches it per process)."""
    context = RunContext(run_id, pipeline_version(), settings, tuple(passwords))
    tokenizer = tokenizer or Tokenizer.load(settings.chunk.tokenizer_name)
    # The worker hashes the bytes it reads and keys the rows by that hash ...
    source = source_key(path, settings.pipeline.source_root)
    output = process_document(DocumentTask(os.fspath(path), doc_id=_UNREAD, source=source), context, tokenizer)
    if output.row.doc_id == _UNREAD:
        # ... but a file it could not read has none: null, as in the documents table.
        output = dataclasses.replace(output, row=dataclasses.replace(output.row, doc_id=None))
    return output


_UNREAD = ""  # no SHA-256 is empty
