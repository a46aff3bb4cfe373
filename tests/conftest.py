"""Shared test fixtures: the real-world corpus location (optional)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# ../shared/corpus beside the repository; RAGPREP_CORPUS overrides it.
CORPUS = Path(os.environ.get("RAGPREP_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"))


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        pytest.skip(f"real-world corpus not found at {CORPUS} (set RAGPREP_CORPUS to its folder)")
    return CORPUS
