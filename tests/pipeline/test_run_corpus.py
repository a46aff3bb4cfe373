"""`ragprep run` on real files: the corpus's broken/ folder plus a few good files.

Reads ../shared/corpus (or $RAGPREP_CORPUS) and writes only to a temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.dataset as pads
import pytest
from typer.testing import CliRunner

from ragprep.pipeline.cli import app

GOOD = (
    "tagged/pdfua-G4_03-columns-correct-order.pdf",
    "multicolumn/acmart-chi-4p.pdf",
)


@pytest.mark.slow
def test_broken_files_become_error_rows_and_the_run_completes_with_exit_3(corpus: Path, tmp_path):
    broken = sorted((corpus / "broken").glob("*.pdf"))
    good = [corpus / g for g in GOOD]
    assert broken and all(p.exists() for p in good), f"{corpus} lacks the files this test reads"
    listing = tmp_path / "inputs.txt"
    listing.write_text("\n".join(str(p) for p in [*broken, *good]) + "\n")
    out = tmp_path / "ds"
    result = CliRunner().invoke(app, ["run", f"@{listing}", "--out", str(out), "--log-format", "json", "--workers", "2"])
    assert result.exit_code == 3, result.output
    docs = pads.dataset(out / "documents", format="parquet").to_table().to_pylist()
    # Sources are keyed by resolved path (the corpus is reached through a symlink here).
    assert {d["source"] for d in docs} | {s for d in docs for s in d["duplicate_sources"]} == {
        os.path.realpath(p) for p in [*broken, *good]
    }
    failed = [d for d in docs if d["status"] == "error"]
    assert failed, "no broken file failed"
    for row in failed:
        # Each failure is typed and says something a person can act on.
        assert row["error_type"] and row["error_message"], row
        assert row["error_type"] != "WorkerDiedError", row
    by_name = {Path(d["source"]).name: d for d in docs}
    if "encrypted-aes256-user-password.pdf" in by_name:
        row = by_name["encrypted-aes256-user-password.pdf"]
        assert row["error_type"] == "EncryptedPDFError" and "needs a password" in row["error_message"]
        assert "encrypted-aes256-user-password.pdf" in row["error_message"]
    for path in good:
        assert by_name[path.name]["status"] == "ok" and by_name[path.name]["chunks"] > 0
    chunks = pads.dataset(out / "chunks", format="parquet").to_table()
    ok_ids = {d["doc_id"] for d in docs if d["status"] == "ok"}
    assert set(chunks.column("doc_id").to_pylist()) <= ok_ids
