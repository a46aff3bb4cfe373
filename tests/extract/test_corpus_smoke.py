"""Smoke test over the real-world corpus (../shared/corpus, read-only).

Every readable file extracts in stream mode without an exception; every file in
broken/ gives a typed error or (partial) text within the limits. Skips, with the
reason, where the corpus is absent.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from corpusdir import CORPUS

from ragprep.extract import EncryptedPDFError, PDFReadError, extract_document


def _manifest() -> list[dict[str, str]]:
    path = CORPUS / "MANIFEST.tsv"
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


ROWS = _manifest()
READABLE = [r["path"] for r in ROWS if not r["path"].startswith("broken/")]
BROKEN = [r for r in ROWS if r["path"].startswith("broken/")]
_PASSWORD = re.compile(r"(?:user|open) password '([^']*)'")


@pytest.mark.slow
@pytest.mark.parametrize("relpath", READABLE or ["<corpus absent>"])
def test_readable_corpus_file_extracts_in_stream_and_auto_mode(corpus: Path, relpath: str):
    # auto covers structure and layout: every tagged page goes through one, every other through layout.
    result = extract_document(corpus / relpath, mode="stream")
    assert len(result.pages) == result.page_count > 0
    for page in result.pages:
        assert page.mode == "stream"
        assert 0 <= page.undecodable_glyphs <= page.glyphs
    for page in extract_document(corpus / relpath, mode="auto").pages:
        assert page.mode in ("structure", "layout")
        assert (page.fallback is None) == (page.mode == "structure")
        assert all(page.text[b.char_start : b.char_end] == b.text for b in page.blocks)


@pytest.mark.parametrize("row", BROKEN or [None], ids=lambda r: r["path"] if r else "<corpus absent>")
def test_broken_corpus_file_gives_typed_error_or_text(corpus: Path, row: dict[str, str]):
    path = corpus / row["path"]
    try:
        result = extract_document(path)
    except EncryptedPDFError as exc:
        password = _PASSWORD.search(row["notes"])
        assert password, f"{row['path']} asked for a password it should not need: {exc}"
        result = extract_document(path, password=password.group(1))
    except PDFReadError as exc:
        assert str(path) in str(exc)
        return
    assert len(result.pages) == result.page_count
