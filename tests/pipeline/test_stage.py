"""`read_document`: the run's stage function, for engines other than ragprep's pool."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
from pipelinedocs import BROKEN_PDF, write_corpus

from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run
from ragprep.pipeline.schema import CHUNKS, PAGES
from ragprep.pipeline.stage import read_document

SETTINGS = Settings(pipeline=PipelineConfig(workers=1))
SAME = ["chunk_id", "doc_id", "source", "text", "char_start", "char_end", "n_tokens", "config_hash"]


def test_another_engine_mapping_read_document_gets_what_ragprep_run_writes(tmp_path):
    corpus = tmp_path / "in"
    paths = write_corpus(corpus, 3)
    run([str(corpus)], tmp_path / "ds", SETTINGS, QuietReporter())
    written = pads.dataset(tmp_path / "ds" / "chunks", format="parquet").to_table()

    # A process pool stands in for the engine: the function and its settings pickle.
    with ProcessPoolExecutor(2) as engine:
        outputs = list(engine.map(partial(read_document, settings=SETTINGS), [str(p) for p in paths]))
    assert all(o.row.status == "ok" and o.chunks.schema == CHUNKS and o.pages.schema == PAGES for o in outputs)
    chunks = pa.Table.from_batches([o.chunks for o in outputs], CHUNKS)
    key = [("chunk_id", "ascending")]
    assert chunks.select(SAME).sort_by(key).equals(written.select(SAME).sort_by(key))
    assert sum(o.row.chunks for o in outputs) == written.num_rows


def test_a_document_that_cannot_be_read_is_an_error_row(tmp_path):
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(BROKEN_PDF)
    output = read_document(broken, SETTINGS, run_id="nightly-7")
    assert (output.row.status, output.row.error_type, output.row.run_id) == ("error", "PDFReadError", "nightly-7")
    assert output.row.doc_id is not None and output.chunks is None
    missing = read_document(tmp_path / "gone.pdf", SETTINGS)
    assert (missing.row.status, missing.row.error_type, missing.row.doc_id) == ("error", "OSError", None)
    assert Path(missing.row.source).name == "gone.pdf"
