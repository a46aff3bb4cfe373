"""Diff two ragprep datasets: is what a change produces the same as before?

A re-cut of the code must leave the extracted text and the chunks of every
document as they were. This compares the ``chunks``, ``pages``, ``documents``
and ``tables`` tables of two datasets (``ragprep run --out A`` from one commit,
``--out B`` from another), row by row on each table's key, and reports per
table the rows only in A, only in B, and the columns that differ on the rows
both hold, with a few examples. Columns that differ by nature between any two
runs (times, run ids, the pipeline version) are left out; ``--ignore
TABLE.COLUMN`` leaves out more. ``runs`` and ``changes`` (run ids, times,
commit numbers) are not compared.

It reads the Parquet parts with pyarrow alone, not through ragprep's own
reader, so a change to that reader cannot hide a difference.

Usage::

    python bench/diff_datasets.py BASE NEW [--ignore pages.warnings] [--format json]

Exit codes: 0 identical, 1 they differ, 2 bad usage (a folder that is not a dataset).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.dataset as pads

# Each compared table and the columns that identify one of its rows. Chunks
# are keyed by position, not chunk_id: an id that changed is a difference too.
KEYS: dict[str, tuple[str, ...]] = {
    "documents": ("doc_id",),
    "pages": ("doc_id", "page"),
    "chunks": ("doc_id", "index"),
    "tables": ("doc_id", "table_id", "row", "col"),
}
# Columns that differ between any two runs of the same code.
VOLATILE = frozenset({
    "documents.seconds",
    "documents.run_id",
    "documents.processed_at",
    "documents.pipeline_version",
})  # fmt: skip
EXAMPLES = 3


class UsageError(Exception):
    """A folder is not a dataset (exit code 2)."""


@dataclass
class TableDiff:
    """How one table of B differs from the same table of A."""

    table: str
    rows_a: int
    rows_b: int
    only_a: int = 0
    only_b: int = 0
    # column -> rows (held by both) where its values differ
    columns: dict[str, int] = field(default_factory=dict)
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not (self.only_a or self.only_b or self.columns)


def read_rows(root: Path, table: str) -> list[dict[str, Any]]:
    folder = root / table
    if not folder.is_dir():
        raise UsageError(f"{root} is not a ragprep dataset: it has no {table} table")
    return pads.dataset(folder, format="parquet").to_table().to_pylist()


def _keyed(rows: list[dict[str, Any]], key: tuple[str, ...], table: str, root: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        k = tuple(row[c] for c in key)
        if k in out:
            raise UsageError(f"{root}: {table} holds two rows with key {k!r}")
        out[k] = row
    return out


def diff_table(a: Path, b: Path, table: str, ignored: frozenset[str]) -> TableDiff:
    key = KEYS[table]
    rows_a, rows_b = read_rows(a, table), read_rows(b, table)
    keyed_a, keyed_b = _keyed(rows_a, key, table, a), _keyed(rows_b, key, table, b)
    result = TableDiff(table, len(rows_a), len(rows_b))
    result.only_a = len(keyed_a.keys() - keyed_b.keys())
    result.only_b = len(keyed_b.keys() - keyed_a.keys())
    for k in sorted(keyed_a.keys() & keyed_b.keys(), key=repr):
        row_a, row_b = keyed_a[k], keyed_b[k]
        for column in sorted(row_a.keys() | row_b.keys()):
            if f"{table}.{column}" in ignored or row_a.get(column) == row_b.get(column):
                continue
            result.columns[column] = result.columns.get(column, 0) + 1
            if len(result.examples) < EXAMPLES:
                result.examples.append(
                    {"key": list(k), "column": column, "a": repr(row_a.get(column))[:200], "b": repr(row_b.get(column))[:200]}
                )
    for side, only in (("a", keyed_a.keys() - keyed_b.keys()), ("b", keyed_b.keys() - keyed_a.keys())):
        for k in sorted(only, key=repr)[: max(0, EXAMPLES - len(result.examples))]:
            result.examples.append({"key": list(k), "only_in": side})
    return result


def diff_datasets(a: Path, b: Path, ignored: frozenset[str] = VOLATILE) -> list[TableDiff]:
    return [diff_table(a, b, table, ignored) for table in KEYS]


def _text_report(diffs: list[TableDiff]) -> str:
    lines = []
    for d in diffs:
        state = "identical" if d.identical else "DIFFERENT"
        lines.append(f"{d.table:10} {d.rows_a:>7} rows | {d.rows_b:>7} rows  {state}")
        if d.only_a or d.only_b:
            lines.append(f"    only in A: {d.only_a}, only in B: {d.only_b}")
        for column, n in d.columns.items():
            lines.append(f"    {column}: {n} rows differ")
        for example in d.examples:
            lines.append(f"    e.g. {json.dumps(example, ensure_ascii=False)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path, help="the dataset before (BASE)")
    parser.add_argument("b", type=Path, help="the dataset after (NEW)")
    parser.add_argument(
        "--ignore", action="append", default=[], metavar="TABLE.COLUMN", help="also leave out this column (repeatable)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    bad = [c for c in args.ignore if c.partition(".")[0] not in KEYS or not c.partition(".")[2]]
    if bad:
        parser.error(f"--ignore takes TABLE.COLUMN with TABLE one of {', '.join(KEYS)}; got {bad[0]!r}")
    try:
        diffs = diff_datasets(args.a, args.b, VOLATILE | frozenset(args.ignore))
    except UsageError as exc:
        print(f"diff_datasets: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        payload = {"identical": all(d.identical for d in diffs), "tables": [asdict(d) for d in diffs]}
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(_text_report(diffs))
    return 0 if all(d.identical for d in diffs) else 1


if __name__ == "__main__":
    sys.exit(main())
