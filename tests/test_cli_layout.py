"""`ragprep layout`: how layout mode reads one page, as rows and as a picture."""

from __future__ import annotations

import json

from pdfbuilder import PdfBuilder, wrap
from typer.testing import CliRunner

from ragprep.pipeline.cli import app

runner = CliRunner()


def two_columns_interleaved(tmp_path):
    """Two columns whose lines the stream paints alternately."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left = wrap([f"left{i}" for i in range(40)], 200)
    right = wrap([f"right{i}" for i in range(40)], 200)
    ops = []
    for i in range(max(len(left), len(right))):
        for x, column in ((72, left), (320, right)):
            if i < len(column):
                ops.append(f"BT /{f} 10 Tf {x} {700 - 12 * i} Td ({column[i]}) Tj ET")
    b.add_page(" ".join(ops))
    path = tmp_path / "columns.pdf"
    path.write_bytes(b.to_bytes())
    return path, left, right


def test_layout_json_lists_lines_in_reading_order_with_their_leaves(tmp_path):
    path, left, right = two_columns_interleaved(tmp_path)
    result = runner.invoke(app, ["layout", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["split"] is True
    assert [row["text"] for row in payload["lines"]] == [*left, *right]
    leaves = [row["leaf"] for row in payload["lines"]]
    assert leaves == [1] * len(left) + [2] * len(right)
    assert payload["lines"][0]["box"][0] == 72


def test_layout_draw_writes_a_png_of_the_page(tmp_path):
    path, _, _ = two_columns_interleaved(tmp_path)
    out = tmp_path / "page.png"
    result = runner.invoke(app, ["layout", str(path), "--page", "1", "--draw", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.stdout.splitlines()[0].split("\t") == ["line", "leaf", "box", "text"]


def test_layout_page_out_of_range_exits_2(tmp_path):
    path, _, _ = two_columns_interleaved(tmp_path)
    assert runner.invoke(app, ["layout", str(path), "--page", "9"]).exit_code == 2
