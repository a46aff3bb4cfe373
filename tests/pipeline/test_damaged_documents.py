"""Damaged documents in a run: a MemoryError met anywhere while reading a
document is a MemoryLimitError row, never a stored document with its text
missing (issue 12, item 4)."""

from __future__ import annotations

import io
import sys
import zlib
from pathlib import Path

import pikepdf
import pyarrow.dataset as pads
import pytest
from pdfbuilder import PdfBuilder
from pipelinedocs import write_corpus

from ragprep.extract import ExtractConfig
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run


def hungry_pdf() -> bytes:
    """A page whose form XObject inflates to 1 GiB of zeros (built in two
    compressions: a deflater in steady state repeats its output)."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    deflater = zlib.compressobj(9)
    chunk = bytes(16 * 1024 * 1024)
    first, steady = deflater.compress(chunk), deflater.compress(chunk)
    form = b.add_form("")
    form.write(first + steady * 63, filter=pikepdf.Name.FlateDecode)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (visible text) Tj ET /X Do", xobjects={"X": form})
    out = io.BytesIO()
    # Saved as written: a default save would inflate the form in this process.
    b.pdf.save(out, stream_decode_level=pikepdf.StreamDecodeLevel.none, compress_streams=False)
    return out.getvalue()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced this way on Linux only")
def test_memory_error_inside_the_operator_loop_is_a_memory_limit_error_row(tmp_path):
    folder = tmp_path / "in"
    write_corpus(folder, 2)
    (folder / "hungry.pdf").write_bytes(hungry_pdf())
    # The stream cap raised past the form, so only the worker's memory limit stops it.
    settings = Settings(
        extract=ExtractConfig(max_stream_bytes=4 << 30),
        pipeline=PipelineConfig(workers=1, max_memory_mb=1024),
    )
    summary = run([str(folder)], tmp_path / "ds", settings, QuietReporter())
    assert (summary.processed, summary.failed) == (3, 1)
    rows = pads.dataset(tmp_path / "ds" / "documents", format="parquet").to_table().to_pylist()
    docs = {Path(r["source"]).name: r for r in rows}
    assert docs["hungry.pdf"]["status"] == "error"
    assert docs["hungry.pdf"]["error_type"] == "MemoryLimitError"
    assert all(docs[f"doc-0{i}.pdf"]["status"] == "ok" for i in range(2))
