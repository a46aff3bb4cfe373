"""The dataset's `tables` table: one row per cell, spans exact in the document text."""

from __future__ import annotations

from pathlib import Path

import pyarrow.dataset as pads
from tabledocs import build_table

from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run


def test_tables_table_has_a_row_per_cell_with_exact_document_spans(tmp_path: Path):
    rows = [[("TH", "Item", None), ("TH", "Qty", None)]] + [[("TD", f"item {i}", None), ("TD", str(i), None)] for i in range(3)]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "t.pdf").write_bytes(build_table(rows, page_rows=[2, 2]))
    out = tmp_path / "ds"
    summary = run([str(tmp_path / "in")], out, Settings(pipeline=PipelineConfig(workers=1)), QuietReporter())
    assert summary.failed == 0
    cells = pads.dataset(out / "tables", format="parquet").to_table().to_pylist()
    assert [(c["page"], c["row"], c["col"], c["text"]) for c in cells] == [
        (1, 0, 0, "Item"), (1, 0, 1, "Qty"), (1, 1, 0, "item 0"), (1, 1, 1, "0"),
        (2, 2, 0, "item 1"), (2, 2, 1, "1"), (2, 3, 0, "item 2"), (2, 3, 1, "2"),
    ]  # fmt: skip
    assert {c["table_id"] for c in cells} == {cells[0]["table_id"]}  # one table over both pages
    assert [c["is_header"] for c in cells[:3]] == [True, True, False]
    assert cells[6]["header_labels"] == ["Item"]
    pages = sorted(pads.dataset(out / "pages", format="parquet").to_table().to_pylist(), key=lambda p: p["page"])
    document_text = "\f".join(p["text"] for p in pages)
    for c in cells:
        assert document_text[c["char_start"] : c["char_end"]] == c["text"]
        assert c["method"] == "structure" and c["mcids"] and c["x1"] > c["x0"]
