"""The ``ragprep`` command line: ``extract`` and ``glyphs`` here (one file);
``run``, ``export`` and ``config`` in ``ragprep.pipeline.commands`` (a corpus).

Exit codes: ``ragprep.pipeline.exits``.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

# Only typer and the light parts of the stages load here, so `--help` and a
# small extract start fast; each command imports what it needs when it runs.
from ragprep.extract import Mode
from ragprep.pipeline import commands
from ragprep.pipeline.compare.cli import compare
from ragprep.pipeline.sync import cli as sync_cli
from ragprep.pipeline.exits import EXIT_INPUT, EXIT_OK, EXIT_USAGE, fail
from ragprep.pipeline.helpformat import MAX_HELP_WIDTH
from ragprep.pipeline.options import Command, Group, exit_on_closed_pipe

if TYPE_CHECKING:
    import numpy as np

    from collections.abc import Sequence

    from rich.box import Box

    from ragprep.extract import DocumentResult, ExtractConfig, GlyphTable, JoinedText, PageGlyphs, PageResult, Table
    from ragprep.extract import Block

app = typer.Typer(
    name="ragprep",
    cls=Group,
    help="Turn PDFs into retrieval-ready text and chunks, in the order their authors declared.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help (pipeline/helpformat.py): typer's Rich help costs a third of
    # `--help`'s start-up. Paragraphs reflow to the terminal, up to 120 columns.
    rich_markup_mode=None,
    context_settings={"max_content_width": MAX_HELP_WIDTH},
)


def _print_version(value: bool) -> None:
    if value:
        from ragprep.pipeline.version import package_version

        typer.echo(f"ragprep {package_version()}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the ragprep version and exit (documents are keyed by it and by a digest of the "
            "extract and chunk code).",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """Turn PDFs into retrieval-ready text and chunks, in the order their authors declared."""


class TextFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"  # --tables only
    markdown = "markdown"  # --tables only


class TableFormat(str, Enum):
    table = "table"
    json = "json"


def _load_config(path: Path | None) -> ExtractConfig:
    """The [extract] settings of `path`; the whole file is checked, so a bad
    [chunk] or [pipeline] value is an error here too, as in `ragprep run`."""
    from ragprep.extract import ConfigError, ExtractConfig

    if path is None:
        return ExtractConfig()  # no config: nothing of chunk or pipeline needs loading
    from ragprep.pipeline.config import Settings

    try:
        return Settings.load(path).extract
    except ConfigError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


FileArgument = Annotated[
    Path, typer.Argument(help="The PDF file to read.", show_default=False, dir_okay=False)
]
PasswordOption = Annotated[
    Optional[str], typer.Option("--password", help="User password of an encrypted PDF.", show_default=False)
]
ConfigOption = Annotated[
    Optional[Path],
    typer.Option(
        "--config",
        help="TOML configuration; its [extract] table overrides the defaults (every table is checked).",
        show_default=False,
    ),
]


# The options of `ragprep extract`, one alias each (typer reads the Annotated metadata).
PagesOption = Annotated[
    Optional[str], typer.Option("--pages", help="Pages to read, 1-based: 1,3-5 or 4- (default: all).")
]
ExtractModeOption = Annotated[
    Mode,
    typer.Option(
        "--mode",
        help="Reading order: auto (structure where the page's tags cover it, else geometry), "
        "structure (tagged-PDF order), layout (column-aware geometry, never interleaving "
        "columns), stream (content-stream order).",
    ),
]
TextFormatOption = Annotated[
    TextFormat,
    typer.Option(
        "--format",
        help="text, or json with per-page counts. With --tables: markdown (the default), "
        "json, or csv (one row per cell).",
    ),
]
TablesOption = Annotated[
    bool,
    typer.Option(
        "--tables",
        help="Write the tables instead of the text: tagged tables (Table/TR/TH/TD) and grids "
        "detected on untagged pages, one table over all the pages it covers.",
    ),
]
SeparatorOption = Annotated[
    str,
    typer.Option("--separator", help="Text between pages in text format (default: a form feed).", show_default="\\f"),
]
OutputOption = Annotated[
    Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of standard output.")
]
BomOption = Annotated[bool, typer.Option("--bom", help="Start the text output with a UTF-8 byte-order mark.")]


@app.command(cls=Command)
def extract(
    file: FileArgument,
    pages: PagesOption = None,
    mode: ExtractModeOption = Mode.AUTO,
    output_format: TextFormatOption = TextFormat.text,
    tables: TablesOption = False,
    password: PasswordOption = None,
    separator: SeparatorOption = "\f",
    output: OutputOption = None,
    bom: BomOption = False,
    config: ConfigOption = None,
) -> None:
    """Extract the text of a PDF, page by page.

    Text format writes the pages separated by a form feed; json writes, per page,
    the mode used, the text, the glyph counts (glyphs, untagged_glyphs,
    artifact_glyphs, undecodable_glyphs), warnings, and the blocks (type, struct
    path, text, character span, bbox, MCIDs) the chunker keeps whole. A page
    the requested mode cannot read has mode "unavailable" and a reason; in auto
    mode, "fallback" says why a page was read by geometry instead of structure.

    With --tables the output is the tables of the selected pages: Markdown pipe
    tables (header first), json (per table its id, method, shape, pages and
    cells: row, col, spans, header flag and labels, text, page, bbox, MCIDs), or
    csv with one row per cell. Exit code 0 also when no table is found.
    """
    if output_format in (TextFormat.csv, TextFormat.markdown) and not tables:
        raise fail(f"--format {output_format.value} needs --tables", EXIT_USAGE)
    result = _read_selection(file, password, _load_config(config), pages, mode)
    if tables:
        _write(_tables_output(result.tables, output_format, file), output)
        return
    if output_format is TextFormat.json:
        data = _pages_json(file, result.pages)
    else:
        data = (("\ufeff" if bom else "") + separator.join(r.text for r in result.pages)).encode("utf-8")
        _explain_unavailable(result.pages)
    _write(data, output)


def _read_selection(
    file: Path, password: str | None, extract_config: ExtractConfig, pages: str | None, mode: Mode
) -> DocumentResult:
    """The selected pages of `file`, read together (so running headers and
    footers are found across the selection); a bad page range is a usage error
    (exit 2), an unreadable file exit 1 (with a hint when it needs a password)."""
    from ragprep.extract import EncryptedPDFError, PageRangeError, RagprepError, open_document, parse_page_selection

    try:
        with open_document(file, password=password, config=extract_config) as document:
            return document.read(mode, parse_page_selection(pages, document.page_count))
    except PageRangeError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except EncryptedPDFError as exc:
        hint = "" if password else " (give it with --password)"
        raise fail(f"{exc}{hint}", EXIT_INPUT) from None
    except RagprepError as exc:
        raise fail(str(exc), EXIT_INPUT) from None


def _pages_json(file: Path, results: Sequence[PageResult]) -> bytes:
    """`ragprep extract --format json`: per page its mode, text, counts, warnings and blocks."""
    from ragprep.extract import render_all

    payload = {
        "file": str(file),
        "pages": [
            {
                "page": r.page,
                "mode": r.mode,
                "text": r.text,
                "glyphs": r.glyphs,
                "untagged_glyphs": r.untagged_glyphs,
                "artifact_glyphs": r.artifact_glyphs,
                "undecodable_glyphs": r.undecodable_glyphs,
                "warnings": render_all(r.warnings),
                **({"reason": r.reason} if r.reason else {}),
                **({"fallback": r.fallback} if r.fallback else {}),
                "blocks": [_block_json(b) for b in r.blocks],
            }
            for r in results
        ],
    }
    return (json.dumps(payload, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _explain_unavailable(results: Sequence[PageResult]) -> None:
    """Text format has no room for a page's reason: an empty output with exit 0
    would leave the user guessing, so say on stderr why pages have no text."""
    missing = [r for r in results if r.mode == "unavailable"]
    by_reason: dict[str, list[int]] = {}
    for r in missing:
        by_reason.setdefault(r.reason or "no reason given", []).append(r.page)
    for reason, numbers in by_reason.items():
        pages = ", ".join(map(str, numbers[:10])) + (f", … ({len(numbers)} pages)" if len(numbers) > 10 else "")
        typer.echo(f"ragprep: page{'s' if len(numbers) > 1 else ''} {pages} unavailable: {reason}", err=True)


_CELL_COLUMNS = (
    "table_id", "method", "page", "row", "col", "row_span", "col_span", "is_header", "header_labels",
    "text", "x0", "y0", "x1", "y1", "mcids",
)  # fmt: skip


def _cell_record(table: Table, cell) -> dict[str, object]:
    box = cell.bbox or (None, None, None, None)
    return {
        "table_id": table.table_id,
        "method": table.source,
        "page": cell.page,
        "row": cell.row,
        "col": cell.col,
        "row_span": cell.row_span,
        "col_span": cell.col_span,
        "is_header": cell.is_header,
        "header_labels": list(cell.header_labels),
        "text": cell.text,
        "x0": box[0],
        "y0": box[1],
        "x1": box[2],
        "y1": box[3],
        "mcids": list(cell.mcids),
    }


def _tables_output(found: tuple[Table, ...], output_format: TextFormat, file: Path) -> bytes:
    from ragprep.extract import render_table

    if output_format is TextFormat.json:
        payload = {
            "file": str(file),
            "tables": [
                {
                    "table_id": t.table_id,
                    "method": t.source,
                    "rows": t.n_rows,
                    "cols": t.n_cols,
                    "header_rows": t.header_rows,
                    "pages": list(t.pages),
                    "cells": [{k: v for k, v in _cell_record(t, c).items() if k not in ("table_id", "method")} for c in t.cells],
                }
                for t in found
            ],
        }
        return (json.dumps(payload, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    if output_format is TextFormat.csv:
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=_CELL_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for t in found:
            for c in t.cells:
                record = _cell_record(t, c)
                record["header_labels"] = "; ".join(c.header_labels)
                record["mcids"] = " ".join(map(str, c.mcids))
                writer.writerow(record)
        return buffer.getvalue().encode("utf-8")
    parts = [
        f"Table {t.table_id} ({t.source}, {t.n_rows} x {t.n_cols}, "
        f"page{'s' if len(t.pages) > 1 else ''} {', '.join(map(str, t.pages))})\n\n{render_table(t)}\n"
        for t in found
    ]
    return "\n".join(parts).encode("utf-8")


def _block_json(block: Block) -> dict[str, object]:
    return {
        "type": block.struct_type,
        "path": "/".join(block.struct_path),
        "heading_level": block.heading_level,
        "text": block.text,
        "char_start": block.char_start,
        "char_end": block.char_end,
        "bbox": list(block.bbox),
        "mcids": list(block.mcids),
        **({"lang": block.lang} if block.lang else {}),
        **({"header_cell": True} if block.header_cell else {}),
        **({"alt": block.alt} if block.alt else {}),
    }


def _write(data: bytes, output: Path | None) -> None:
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        output.write_bytes(data)
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror}", EXIT_INPUT) from None


def _point(value: np.ndarray) -> list[float]:
    return [round(float(value[0]), 3), round(float(value[1]), 3)]


def _decision(separator: int) -> str:
    """What went in before a glyph of the stream join: a space, a line break, or nothing."""
    from ragprep.extract import LINE_BREAK, SPACE

    return {SPACE: "space", LINE_BREAK: "line"}.get(separator, "-")


# The options of `ragprep glyphs`.
PageOption = Annotated[int, typer.Option("--page", help="Page number, 1-based.", min=1)]
WhyOption = Annotated[
    bool,
    typer.Option(
        "--why",
        help="Add, per glyph, the gap to the previous glyph and the move across its line, the "
        "thresholds they were compared with, whether a space or line break went in, and whether "
        "the glyph is part of a running header or footer (this reads every page of the document).",
    ),
]
TableFormatOption = Annotated[TableFormat, typer.Option("--format", help="table or json.")]


@app.command(cls=Command)
def glyphs(
    file: FileArgument,
    page: PageOption = 1,
    why: WhyOption = False,
    output_format: TableFormatOption = TableFormat.table,
    password: PasswordOption = None,
    config: ConfigOption = None,
) -> None:
    """Show the glyph table of one page: where every glyph sits and why the text reads as it does.

    Rows are in content-stream order: text, origin, own_end (end of the glyph's own
    width), pen_end (where the pen went, with Tc/Tw), height, mcid, token_index,
    stream (0 = page, else the form XObject's object number), whether the glyph
    is visible and whether it is inside an /Artifact sequence. Invisible glyphs
    (outside the CropBox or a form's BBox) are listed but are not page text;
    artifacts are left out of structure and layout text.
    """
    from ragprep.extract import render_all

    result, joined, running = _read_glyphs(file, password, _load_config(config), page, why)
    table = result.table
    position = {int(g): i for i, g in enumerate(joined.order)}
    rows = []
    for index in range(len(table)):
        row = _glyph_row(table, index)
        if why:
            row.update(_why_fields(joined, position.get(index)))
            row["running"] = bool(running[index]) if running is not None else None
        rows.append(row)

    if output_format is TableFormat.json:
        payload = {"file": str(file), "page": page, "warnings": render_all(result.warnings), "glyphs": rows}
        _write((json.dumps(payload, ensure_ascii=False, indent=2) + "\n").encode("utf-8"), None)
        return
    _print_table(rows, tuple(render_all(result.warnings)))


def _read_glyphs(
    file: Path, password: str | None, extract_config: ExtractConfig, page: int, why: bool
) -> tuple[PageGlyphs, JoinedText, np.ndarray | None]:
    """The page's glyph table, its stream join, and (with --why) which of its
    glyphs are running headers or footers; exit 2 on a bad page, 1 on a bad file."""
    from ragprep.extract import PageRangeError, RagprepError, open_document, read_stream

    try:
        with open_document(file, password=password, config=extract_config) as document:
            result = document.page_glyphs(page)
            joined = read_stream(result.table, extract_config).joined
            # Running heads are a property of the whole document: only --why pays for reading it.
            running = document.running_glyphs(range(1, document.page_count + 1))[page] if why else None
    except PageRangeError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except RagprepError as exc:
        raise fail(str(exc), EXIT_INPUT) from None
    return result, joined, running


def _glyph_row(table: GlyphTable, index: int) -> dict[str, object]:
    """One glyph of the table as `ragprep glyphs` shows it."""
    return {
        "index": index,
        "text": table.text[index],
        "origin": _point(table.origin[index]),
        "own_end": _point(table.own_end[index]),
        "pen_end": _point(table.pen_end[index]),
        "height": round(float(table.height[index]), 3),
        "mcid": int(table.mcid[index]),
        "token_index": int(table.token_index[index]),
        "stream": int(table.stream[index]),
        "visible": bool(table.visible[index]),
        "artifact": bool(table.artifact[index]),
    }


def _why_fields(joined: JoinedText, at: int | None) -> dict[str, object]:
    """--why for the glyph at position `at` of the stream join (None: not page text):
    the measures the join compared, their thresholds, and what went in before it."""
    import numpy as np

    if at is None:
        return {"gap": None, "space_threshold": None, "move_across": None, "line_threshold": None, "decision": "not text"}

    def number(values: np.ndarray) -> float | None:
        value = float(values[at])
        return None if np.isnan(value) else round(value, 3)

    return {
        "gap": number(joined.gap),
        "space_threshold": number(joined.space_threshold),
        "move_across": number(joined.move_across),
        "line_threshold": number(joined.line_threshold),
        "decision": _decision(int(joined.separator[at])) if at else "first",
    }


def _cell(key: str, value: object) -> str:
    if value is None:
        return ""
    if key == "text":
        return repr(value)
    if isinstance(value, list):
        return ",".join(f"{v:g}" for v in value)
    return str(value)


# Terminal headers (the JSON keys and the piped header line keep the full names), and the
# order columns are given up in when the terminal is too narrow: geometry the --why
# columns already explain goes first, the glyph and its decision last.
SHORT_HEADERS = {
    "index": "#", "height": "h", "token_index": "tok", "visible": "vis", "artifact": "art",
    "space_threshold": "space at", "move_across": "across", "line_threshold": "line at", "running": "run",
}
GIVEN_UP_FIRST = (
    "pen_end", "own_end", "token_index", "stream", "artifact", "visible", "mcid", "height",
    "running", "line_threshold", "move_across", "space_threshold", "gap", "origin",
)  # never the glyph (index, text) nor its decision; rich wraps what still does not fit


def _fit_columns(rows: list[dict[str, object]], width: int) -> tuple[list[str], list[str]]:
    """The columns that fit ``width`` whole (none cut to "…"), and those left out."""
    keys = list(rows[0].keys())

    def need(key: str) -> int:  # the widest cell or header, its padding and one border
        return max(len(SHORT_HEADERS.get(key, key)), *(len(_cell(key, row[key])) for row in rows)) + 3

    total = 1 + sum(need(k) for k in keys)
    dropped = []
    for key in GIVEN_UP_FIRST:
        if total <= width:
            break
        if key in keys:
            keys.remove(key)
            dropped.append(key)
            total -= need(key)
    return keys, dropped


def _print_table(rows: list[dict[str, object]], warnings: tuple[str, ...]) -> None:
    """A rich table on a terminal, of the columns that fit its width; tab-separated
    lines when piped (for grep, cut), every column."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        if rows:
            lines = ["\t".join(rows[0].keys())]
            lines += ["\t".join(_cell(k, v) for k, v in row.items()) for row in rows]
            sys.stdout.write("\n".join(lines) + "\n")
        for warning in warnings:
            sys.stderr.write(f"warning: {warning}\n")
        return
    if not rows:
        console.print("no glyphs on this page")
    else:
        keys, dropped = _fit_columns(rows, console.width)
        table = Table(*(SHORT_HEADERS.get(k, k) for k in keys), show_lines=False, box=box_style())
        for row in rows:
            table.add_row(*(_cell(k, row[k]) for k in keys))
        console.print(table)
        if dropped:
            console.print(
                f"not shown at {console.width} columns: {', '.join(dropped)} (every column: --format json, "
                "or pipe the output for tab-separated lines)",
                style="dim", markup=False, highlight=False,
            )
    for warning in warnings:
        console.print(f"warning: {warning}", style="yellow", markup=False)


def box_style() -> Box:
    from rich import box

    return box.SIMPLE_HEAD  # one rule under the header, no side borders: columns get the width


@app.command("layout", cls=Command)
def layout_command(
    file: FileArgument,
    page: Annotated[int, typer.Option("--page", help="Page number, 1-based.", min=1)] = 1,
    draw: Annotated[
        Optional[Path],
        typer.Option(
            "--draw",
            help="Write a PNG of the page: glyph boxes, the lines layout mode read (coloured by leaf), each "
            "leaf (column, part of one, band) outlined and numbered, the reading order as a numbered path.",
        ),
    ] = None,
    output_format: Annotated[TableFormat, typer.Option("--format", help="table or json.")] = TableFormat.table,
    password: PasswordOption = None,
    config: ConfigOption = None,
) -> None:
    """Show how layout mode reads one page: its lines in reading order, each with its leaf.

    A leaf is what the cut left whole (a column, a part of one, a band without
    columns); lines inside a leaf read top to bottom. Rows: reading position,
    leaf, the line's box in the page's reading frame (user space on an upright
    page), its text. Running headers and footers are not left out here.
    """
    from ragprep.extract import PageRangeError, RagprepError, layout_picture, open_document
    from ragprep.pipeline.layout_picture import draw_layout

    extract_config = _load_config(config)
    try:
        with open_document(file, password=password, config=extract_config) as document:
            table = document.page_glyphs(page).table
    except PageRangeError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except RagprepError as exc:
        raise fail(str(exc), EXIT_INPUT) from None
    picture = layout_picture(table, extract_config)
    if draw is not None:
        draw_layout(table, picture, draw, f"{file.name}, page {page}: layout mode")
    rows: list[dict[str, object]] = []
    if picture is not None:
        for k, (leaf, box, text) in enumerate(zip(picture.line_leaf.tolist(), picture.line_box, picture.line_text, strict=True)):
            rows.append({"line": k + 1, "leaf": leaf + 1, "box": [round(float(v), 2) for v in box], "text": text})
    if output_format is TableFormat.json:
        payload = {"file": str(file), "page": page, "split": bool(picture and picture.split), "lines": rows}
        _write((json.dumps(payload, ensure_ascii=False, indent=2) + "\n").encode("utf-8"), None)
        return
    _print_table(rows, ())


app.command("run", cls=Command)(commands.run_command)
app.command("compare", cls=Command)(compare)
app.command("export", cls=Command)(commands.export_command)
app.command("sync", cls=Command)(sync_cli.sync_command)
app.add_typer(commands.config_app, name="config")


def main() -> None:
    """Console-script entry: never a traceback for bad input or usage."""
    try:
        app()
    except BrokenPipeError:
        exit_on_closed_pipe()
    except KeyboardInterrupt:
        typer.echo("ragprep: interrupted", err=True)
        sys.exit(130)
