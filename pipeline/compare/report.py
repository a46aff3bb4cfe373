"""Showing a ``CompareResult``: terminal table, report.md, Parquet, JSON and PNG plots.

Files written to the report folder:

- ``report.md``: the corpus table per mode, word agreement between modes, the order score
  per tagged document, layout against stream per untagged document (with what differs),
  the documents with column jumps or interleaved chunks, the documents where modes
  disagree most (page and excerpts), errors, the plots. Tables stay a few columns wide:
  every measure per document is in ``metrics.parquet``;
- ``metrics.parquet``: one row per (document, mode) with ``scope = "document"`` and one per
  mode with ``scope = "corpus"`` (doc_id and source null); schema ``METRICS_SCHEMA``;
- ``agreement.parquet``: one row per (document, pair of modes) and per pair over the corpus;
- ``tokens.png`` and ``order_score.png``: see ``ragprep.pipeline.compare.plots``.

pyarrow, rich and matplotlib are imported inside the functions that need them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragprep.pipeline.compare.measure import (
    CompareResult,
    DocumentComparison,
    Disagreement,
    ModeMetrics,
    PairAgreement,
)
from ragprep.pipeline.compare.plots import (
    UNTAGGED_PAIR,
    order_rows,
    plot_order,
    plot_tokens,
    short_names,
    untagged_documents,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from rich.console import Console

REPORT_FILES = ("report.md", "metrics.parquet", "agreement.parquet", "tokens.png", "order_score.png")


@dataclass(frozen=True)
class Column:
    """One column of a machine-readable table: name, Arrow type name, value."""

    name: str
    kind: str  # "string", "int64" or "float64"
    value: Callable[[Any], Any]


def _float(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def _metric_scope(m: ModeMetrics) -> str:
    return "corpus" if m.doc_id is None else "document"


METRIC_COLUMNS: tuple[Column, ...] = (
    Column("scope", "string", _metric_scope),
    Column("doc_id", "string", lambda m: m.doc_id),
    Column("source", "string", lambda m: m.source),
    Column("mode", "string", lambda m: m.mode),
    Column("documents", "int64", lambda m: m.documents),
    Column("pages", "int64", lambda m: m.pages),
    Column("pages_unavailable", "int64", lambda m: m.pages_unavailable),
    Column("glyphs", "int64", lambda m: m.glyphs),
    Column("untagged_glyphs", "int64", lambda m: m.untagged_glyphs),
    Column("artifact_glyphs", "int64", lambda m: m.artifact_glyphs),
    Column("undecodable_glyphs", "int64", lambda m: m.undecodable_glyphs),
    Column("untagged_share", "float64", lambda m: m.untagged_share),
    Column("artifact_share", "float64", lambda m: m.artifact_share),
    Column("undecodable_share", "float64", lambda m: m.undecodable_share),
    Column("words", "int64", lambda m: m.words),
    Column("order_pages", "int64", lambda m: m.order_pages),
    Column("order_reference_words", "int64", lambda m: m.order_reference_words),
    Column("order_common_words", "int64", lambda m: m.order_common_words),
    Column("order_score", "float64", lambda m: m.order_score),
    Column("column_jumps", "int64", lambda m: m.column_jumps),
    Column("chunks", "int64", lambda m: len(m.chunk_tokens)),
    Column("tokens_mean", "float64", lambda m: _float(m.tokens.mean)),
    Column("tokens_p50", "float64", lambda m: _float(m.tokens.p50)),
    Column("tokens_p95", "float64", lambda m: _float(m.tokens.p95)),
    Column("tokens_max", "int64", lambda m: m.tokens.max),
    Column("blocks", "int64", lambda m: m.blocks),
    Column("blocks_whole", "int64", lambda m: m.blocks_whole),
    Column("block_integrity", "float64", lambda m: m.block_integrity),
    Column("body_chunks", "int64", lambda m: m.body_chunks),
    Column("mid_sentence_chunks", "int64", lambda m: m.mid_sentence_chunks),
    Column("mid_sentence_share", "float64", lambda m: m.mid_sentence_share),
    Column("boilerplate_chunks", "int64", lambda m: m.boilerplate_chunks),
    Column("boilerplate_share", "float64", lambda m: m.boilerplate_share),
    Column("interleaved_chunks", "int64", lambda m: m.interleaved_chunks),
    Column("gold_reference_words", "int64", lambda m: m.gold_reference_words),
    Column("gold_common_words", "int64", lambda m: m.gold_common_words),
    Column("gold_order_score", "float64", lambda m: m.gold_order_score),
    Column("gold_f1", "float64", lambda m: m.gold_f1),
)

AGREEMENT_COLUMNS: tuple[Column, ...] = (
    Column("scope", "string", lambda a: "corpus" if a.doc_id is None else "document"),
    Column("doc_id", "string", lambda a: a.doc_id),
    Column("source", "string", lambda a: a.source),
    Column("mode_a", "string", lambda a: a.mode_a),
    Column("mode_b", "string", lambda a: a.mode_b),
    Column("pages", "int64", lambda a: a.pages),
    Column("words_a", "int64", lambda a: a.words_a),
    Column("words_b", "int64", lambda a: a.words_b),
    Column("shared_words", "int64", lambda a: a.shared_words),
    Column("common_words", "int64", lambda a: a.common_words),
    Column("word_f1", "float64", lambda a: a.word_f1),
    Column("sequence_agreement", "float64", lambda a: a.sequence_agreement),
)


def _schema(columns: Sequence[Column]) -> pa.Schema:
    import pyarrow as pa

    kinds = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64()}
    return pa.schema([pa.field(c.name, kinds[c.kind], nullable=True) for c in columns])


def metrics_schema() -> pa.Schema:
    return _schema(METRIC_COLUMNS)


def agreement_schema() -> pa.Schema:
    return _schema(AGREEMENT_COLUMNS)


def _records(columns: Sequence[Column], items: Sequence[Any]) -> list[dict[str, Any]]:
    return [{c.name: c.value(item) for c in columns} for item in items]


def _metric_rows(result: CompareResult) -> list[ModeMetrics]:
    return [m for d in result.documents for m in d.metrics] + list(result.totals)


def _agreement_rows(result: CompareResult) -> list[PairAgreement]:
    return [a for d in result.documents for a in d.agreements] + list(result.pair_totals)


def _table(columns: Sequence[Column], items: Sequence[Any]) -> pa.Table:
    import pyarrow as pa

    schema = _schema(columns)
    return pa.Table.from_pylist(_records(columns, items), schema=schema)


def metrics_table(result: CompareResult) -> pa.Table:
    return _table(METRIC_COLUMNS, _metric_rows(result))


def agreement_table(result: CompareResult) -> pa.Table:
    return _table(AGREEMENT_COLUMNS, _agreement_rows(result))


# --------------------------------------------------------------------------- JSON


def _disagreement_record(d: Disagreement) -> dict[str, Any]:
    return {
        "doc_id": d.doc_id,
        "source": d.source,
        "page": d.page,
        "mode_a": d.mode_a,
        "mode_b": d.mode_b,
        "sequence_agreement": d.sequence_agreement,
        "excerpts": {mode: text for mode, text in d.excerpts},
    }


def to_json(result: CompareResult) -> str:
    """Everything the report holds, for scripts (``--format json``)."""
    payload = {
        "modes": list(result.modes),
        "documents": len(result.documents),
        "gold": result.gold,
        "corpus": _records(METRIC_COLUMNS, result.totals),
        "agreement": _records(AGREEMENT_COLUMNS, result.pair_totals),
        "per_document": _records(METRIC_COLUMNS, [m for d in result.documents for m in d.metrics]),
        "agreement_per_document": _records(AGREEMENT_COLUMNS, [a for d in result.documents for a in d.agreements]),
        "disagreements": [_disagreement_record(d) for d in result.disagreements()],
        "errors": [{"source": e.source, "message": e.message} for e in result.errors],
    }
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


# --------------------------------------------------------------------------- text


def _pct(value: float | None) -> str:
    return "–" if value is None or math.isnan(value) else f"{100 * value:.1f}%"


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _int(value: int) -> str:
    return f"{value:,}"


# (label, formatter) per row of the per-mode table, shared by terminal and report.md.
SUMMARY_ROWS: tuple[tuple[str, Callable[[ModeMetrics], str]], ...] = (
    ("documents", lambda m: _int(m.documents)),
    ("pages", lambda m: _int(m.pages)),
    ("pages unavailable", lambda m: _int(m.pages_unavailable)),
    ("glyphs", lambda m: _int(m.glyphs)),
    ("untagged share", lambda m: _pct(m.untagged_share)),
    ("artifact share", lambda m: _pct(m.artifact_share)),
    ("undecodable share", lambda m: _pct(m.undecodable_share)),
    ("pages with structure", lambda m: _int(m.order_pages)),
    ("order score vs structure", lambda m: _num(m.order_score)),
    ("column jumps", lambda m: _int(m.column_jumps)),
    ("chunks", lambda m: _int(len(m.chunk_tokens))),
    ("tokens mean", lambda m: _num(m.tokens.mean, 1)),
    ("tokens p50", lambda m: _num(m.tokens.p50, 1)),
    ("tokens p95", lambda m: _num(m.tokens.p95, 1)),
    ("tokens max", lambda m: _int(m.tokens.max)),
    ("block integrity", lambda m: _pct(m.block_integrity)),
    ("mid-sentence (body chunks)", lambda m: _pct(m.mid_sentence_share)),
    ("boilerplate chunks", lambda m: _pct(m.boilerplate_share)),
    ("interleaved chunks", lambda m: _int(m.interleaved_chunks)),
)
GOLD_ROWS: tuple[tuple[str, Callable[[ModeMetrics], str]], ...] = (
    ("order score vs gold", lambda m: _num(m.gold_order_score)),
    ("word F1 vs gold", lambda m: _num(m.gold_f1)),
)


def _summary_rows(result: CompareResult) -> list[tuple[str, list[str]]]:
    totals = result.totals
    rows = SUMMARY_ROWS + (GOLD_ROWS if result.gold else ())
    return [(label, [fmt(m) for m in totals]) for label, fmt in rows]


def print_summary(result: CompareResult, console: Console) -> None:
    """The corpus table per mode, agreement between modes and where they disagree most."""
    from rich.table import Table

    table = Table(title=f"ragprep compare: {len(result.documents)} documents", title_justify="left")
    table.add_column("metric")
    for mode in result.modes:
        table.add_column(mode, justify="right")
    for label, cells in _summary_rows(result):
        table.add_row(label, *cells)
    console.print(table)
    if result.pair_totals:
        pairs = Table(title="agreement between modes (pages both read)", title_justify="left")
        for name in ("modes", "pages", "word F1", "sequence agreement"):
            pairs.add_column(name, justify="left" if name == "modes" else "right")
        for a in result.pair_totals:
            pairs.add_row(f"{a.mode_a} / {a.mode_b}", _int(a.pages), _num(a.word_f1), _num(a.sequence_agreement))
        console.print(pairs)
    worst = result.disagreements()
    if worst:
        console.print("modes disagree most on:", markup=False)
        for d in worst:
            console.print(
                f"  {d.source} page {d.page}: {d.mode_a} / {d.mode_b} agree {d.sequence_agreement:.3f}", markup=False
            )
    if result.errors:
        console.print(f"{len(result.errors)} documents could not be read:", style="yellow", markup=False)
        for e in result.errors[:10]:
            console.print(f"  {e.message}", markup=False)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]], right_from: int = 1) -> list[str]:
    align = ["---" if i < right_from else "---:" for i in range(len(header))]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows]
    return out


def _order_section(result: CompareResult, names: dict[str, str]) -> list[str]:
    """Order score per tagged document and mode, in the plot's order (widest gap first)."""
    series, rows = order_rows(result, names)
    if not rows or not series:
        return []
    pages = {names[d.source]: d.metrics[0].order_pages for d in result.documents}
    table = [[r.name, _int(pages[r.name]), *(_num(v) for v in r.values)] for r in rows]
    return [
        "", "## Order score per document (tagged pages)", "",
        "Against structure on the pages where structure is available (structure scores 1 by "
        "definition); widest gap between modes first.", "",
        *_md_table(["document", "pages with structure", *series], table),
    ]


def _untagged_section(result: CompareResult, names: dict[str, str]) -> list[str]:
    """Untagged documents have no reference order: compare layout with stream there."""
    untagged = [d for d in result.documents if not d.tagged]
    if not untagged:
        return []
    head = ["", "## Untagged documents: layout against stream", ""]
    compared = untagged_documents(result)
    if not compared:
        return head + [f"{len(untagged)} documents have no page where structure is available; add "
                       f"{' and '.join(UNTAGGED_PAIR)} to --modes to compare their readings here."]
    a, b = UNTAGGED_PAIR

    def agreement(d: DocumentComparison) -> PairAgreement:
        pair = d.agreement(a, b)
        assert pair is not None
        return pair

    compared.sort(key=lambda d: (agreement(d).sequence_agreement or 0.0, names[d.source]))
    table = []
    for d in compared:
        pair, ma, mb = agreement(d), d.metrics_of(a), d.metrics_of(b)
        assert ma is not None and mb is not None
        table.append([names[d.source], _int(pair.pages), _num(pair.word_f1), _num(pair.sequence_agreement),
                      _int(ma.column_jumps), _int(mb.column_jumps)])
    same = sum(agreement(d).sequence_agreement == 1.0 for d in compared)
    lines = head + [
        f"{len(untagged)} documents have no page where structure is available, so no order to score "
        f"against. {a.capitalize()} and {b} read {same} of the {len(compared)} compared the same, word for word. "
        "Word F1 below 1: the modes read different words (text one of them drops or garbles); sequence "
        "agreement below a word F1 of 1: the same words in another order (columns, boxes, running heads "
        "placed differently). Column jumps: returns to a column left earlier (layout should have none).",
        "",
        *_md_table(["document", "pages", "word F1", "sequence agreement", f"{a} jumps", f"{b} jumps"], table),
    ]
    differing = [w for d in compared if (w := d.disagreement(a, b)) is not None][:5]
    for w in differing:
        lines += ["", f"### {_md_escape(names[w.source])}, page {w.page}", "",
                  f"{a} / {b} sequence agreement {w.sequence_agreement:.3f}; each reading from just before "
                  "the first word where they part:", ""]
        lines += [f"- **{mode}**: {_md_escape(text)}" for mode, text in w.excerpts if mode in UNTAGGED_PAIR]
    return lines


def _jumps_section(result: CompareResult, names: dict[str, str]) -> list[str]:
    """One row per (document, mode) with a column jump or an interleaved chunk."""
    rows = sorted(
        ((names[d.source], m) for d in result.documents for m in d.metrics if m.column_jumps or m.interleaved_chunks),
        key=lambda r: (-r[1].interleaved_chunks, -r[1].column_jumps, r[0], result.modes.index(r[1].mode)),
    )
    lines = ["", "## Column jumps and interleaved chunks per document", ""]
    if not rows:
        return lines + ["No mode returns to a column it left on any page, so no chunk interleaves columns."]
    table = [[name, m.mode, _int(m.column_jumps), _int(m.interleaved_chunks), _int(len(m.chunk_tokens))]
             for name, m in rows]
    return lines + [
        "Only the (document, mode) pairs that have some; every other measure per document is in "
        "`metrics.parquet` (`scope = 'document'`).", "",
        *_md_table(["document", "mode", "column jumps", "interleaved chunks", "chunks"], table, right_from=2),
    ]


def report_markdown(result: CompareResult, *, plots: bool = True) -> str:
    modes = list(result.modes)
    lines = [
        "# ragprep compare",
        "",
        f"{len(result.documents)} documents compared, {len(result.errors)} could not be read; "
        f"modes: {', '.join(modes)}.",
        "Definitions (order score, column jump, interleaved chunk, block integrity, mid-sentence): "
        "`ragprep.pipeline.compare.metrics`.",
        "",
        "## Per mode, over all documents",
        "",
        *_md_table(["metric", *modes], [[label, *cells] for label, cells in _summary_rows(result)]),
    ]
    if result.pair_totals:
        lines += [
            "",
            "## Agreement between modes",
            "",
            "On the pages both modes read. Word F1 ignores order; sequence agreement is the LCS "
            "of the two word sequences over the longer one.",
            "",
            *_md_table(
                ["modes", "pages", "word F1", "sequence agreement"],
                [[f"{a.mode_a} / {a.mode_b}", _int(a.pages), _num(a.word_f1), _num(a.sequence_agreement)]
                 for a in result.pair_totals],
            ),
        ]
    names = short_names([d.source for d in result.documents])
    lines += _order_section(result, names)
    lines += _untagged_section(result, names)
    lines += _jumps_section(result, names)
    if result.gold:
        gold_rows = [
            [names[d.source], *[f"{_num(m.gold_order_score)} / {_num(m.gold_f1)}" for m in d.metrics]]
            for d in result.documents
            if any(m.gold_reference_words for m in d.metrics)
        ]
        lines += ["", "## Against gold text (order score / word F1)", "", *_md_table(["document", *modes], gold_rows)]
    worst = result.disagreements()
    if worst:
        lines += ["", "## Where modes disagree most", "",
                  "Normalised words of each mode, from just before the first word where the readings differ."]
        for d in worst:
            lines += ["", f"### {_md_escape(names.get(d.source, d.source))}, page {d.page}",
                      "", f"{d.mode_a} / {d.mode_b} sequence agreement {d.sequence_agreement:.3f}", ""]
            lines += [f"- **{mode}**: {_md_escape(text)}" for mode, text in d.excerpts]
    if result.errors:
        lines += ["", "## Documents that could not be read", ""]
        lines += [f"- {_md_escape(e.message)}" for e in result.errors]
    if plots:
        lines += ["", "## Plots", "", "![chunk sizes per mode](tokens.png)", "",
                  "![order score per tagged document; layout against stream per untagged document](order_score.png)"]
    return "\n".join(lines) + "\n"


def write_report(result: CompareResult, folder: Path) -> tuple[Path, ...]:
    """Write every report file into ``folder`` (created if needed); returns their paths."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    paths = tuple(folder / name for name in REPORT_FILES)
    md, metrics, agreement, tokens, order = paths
    md.write_text(report_markdown(result), encoding="utf-8")
    pq.write_table(metrics_table(result), metrics)
    pq.write_table(agreement_table(result), agreement)
    plot_tokens(result, tokens)
    plot_order(result, order)
    return paths
