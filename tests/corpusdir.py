"""Where the real-world corpus is: ../shared/corpus beside the repository, or
$RAGPREP_CORPUS. A plain module (tests/ is on pytest's pythonpath), not a
conftest: two conftest.py files are both the module `conftest`, so a test that
imported a name from one broke whenever the other was loaded first (running
tests/extract and tests/pipeline in one call)."""

from __future__ import annotations

import csv
import os
from pathlib import Path

CORPUS = Path(os.environ.get("RAGPREP_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"))


def corpus_paths() -> list[str]:
    """Every file of the corpus's MANIFEST.tsv (paths relative to CORPUS); none where it is absent."""
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with open(manifest, newline="", encoding="utf-8") as fh:
        return [row["path"] for row in csv.DictReader(fh, delimiter="\t")]


def tagged_paths() -> list[str]:
    """The manifest's tagged files (its `tagged` column says yes); none where the corpus is absent."""
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with open(manifest, newline="", encoding="utf-8") as fh:
        return [row["path"] for row in csv.DictReader(fh, delimiter="\t") if row["tagged"] == "yes"]
