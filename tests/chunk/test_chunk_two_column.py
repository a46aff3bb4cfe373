"""End to end: a two-column page painted interleaved, chunked through
structure mode (tagged) and through layout mode (untagged, also as auto's
fallback). Each chunk's blocks come from one column, or from the left column
then the right one, never back and forth."""

from __future__ import annotations

import pytest
from pdfbuilder import PdfBuilder

from ragprep.chunk import ChunkConfig, chunk_document, document_id, document_text
from ragprep.extract import extract_document

MID = 300.0  # the gutter between the columns


def two_column_pdf(tagged: bool = True) -> bytes:
    """Three paragraphs per column, two lines each, the paragraph gaps at the
    same height in both columns; lines painted left, right, left, right...
    Untagged: the same page without marked content or structure tree."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    ops, left, right = [], [], []
    mcid = 0
    for para in range(3):
        for ln in range(2):
            y = 700 - para * 40 - ln * 12
            for x, col, side in ((72, left, "left"), (320, right, "right")):
                words = f"{side} para {para} line {ln} words here"
                show = f"BT /{f} 10 Tf {x} {y} Td ({words}) Tj ET"
                ops.append(f"/P <</MCID {mcid}>> BDC {show} EMC" if tagged else show)
                col.append((para, mcid))
                mcid += 1
    page = b.add_page(" ".join(ops))
    if not tagged:
        return b.to_bytes()

    def paras(col):
        return [b.struct_element("P", [m for p, m in col if p == para], page=page) for para in range(3)]

    b.set_struct_tree([b.struct_element("Document", paras(left) + paras(right), page=page)])
    return b.to_bytes()


def column(bbox) -> int:
    return 0 if bbox[2] < MID else 1


def chunks_of(data: bytes, mode: str = "structure", **cfg):
    result = extract_document(data, mode=mode)
    chunks = chunk_document(
        result, doc_id=document_id(data), source="two.pdf", config=ChunkConfig(**cfg)
    )
    return result, chunks


# Untagged, the stream reads across the gutter row by row and the paragraph
# gaps line up: only layout mode's column order keeps the chunks apart.
@pytest.mark.parametrize(("tagged", "mode"), [(True, "structure"), (False, "layout"), (False, "auto")])
def test_chunks_follow_column_order(tagged: bool, mode: str):
    data = two_column_pdf(tagged)
    for max_tokens, overlap in ((12, 0), (20, 0), (30, 6), (60, 10), (512, 64)):
        result, chunks = chunks_of(data, mode, max_tokens=max_tokens, overlap_tokens=overlap)
        page = result.pages[0]
        assert page.mode == ("structure" if tagged else "layout") and len(page.blocks) == 6
        # The left column's three paragraphs, then the right column's.
        assert [(column(b.bbox), b.text.split()[2]) for b in page.blocks] == [
            (c, str(p)) for c in (0, 1) for p in range(3)
        ]
        text, _ = document_text(result.pages)
        for c in chunks:
            blocks = [b for b in page.blocks if b.char_start < c.char_end and b.char_end > c.char_start]
            cols = [column(b.bbox) for b in blocks]
            assert cols == sorted(cols), (max_tokens, c.text)  # left ... then right, never back
            # The chunk box agrees: a one-column chunk's box stays on its side of the gutter.
            (box,) = c.bboxes
            if set(cols) == {0}:
                assert box.x1 < MID
            if set(cols) == {1}:
                assert box.x0 > MID
            # And the text itself never mixes lines: no "right" line before a "left" one.
            lines = c.text.splitlines()
            sides = [0 if ln.startswith("left") else 1 for ln in lines if ln.split()[0] in ("left", "right")]
            assert sides == sorted(sides)


def test_small_budget_keeps_each_column_paragraph_whole():
    result, chunks = chunks_of(two_column_pdf(), max_tokens=20, overlap_tokens=0)
    page = result.pages[0]
    for b in page.blocks:
        owners = [c for c in chunks if c.char_start <= b.char_start and b.char_end <= c.char_end]
        assert len(owners) == 1
    assert chunks[0].mcids[0][0] == 1


def test_ids_are_the_same_in_another_process(tmp_path):
    import os
    import subprocess
    import sys

    data = two_column_pdf()
    path = tmp_path / "two.pdf"
    path.write_bytes(data)
    script = (
        "import sys\nfrom ragprep.chunk import ChunkConfig, chunk_file\n"
        "print(' '.join(c.chunk_id for c in chunk_file(sys.argv[1], mode='structure', config=ChunkConfig(max_tokens=20, overlap_tokens=4), source='two.pdf')))"
    )
    runs = [
        subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout.split()
        for seed in ("1", "2")
    ]
    assert runs[0] == runs[1] and len(runs[0]) > 1
    _, here = chunks_of(data, max_tokens=20, overlap_tokens=4)
    # chunk_file and chunk_document agree under the same source key (the id hashes it).
    assert [c.chunk_id for c in here] == runs[0]
