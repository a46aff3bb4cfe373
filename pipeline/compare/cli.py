"""The ``ragprep compare`` command: a typer command function, registered by the main CLI.

    app.command()(compare)

Exit codes (pipeline/exits.py, as ``ragprep run``'s): 0 every document compared; 1 a
document no mode could open or that ran past the worker limits (the report still covers
the others), or no worker process could start; 2 bad usage (unknown mode, bad --dataset
or --config, missing --gold folder, an input that does not exist or names no PDF).
Only typer is imported here: the heavy stages load when the command runs.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ragprep.pipeline.exits import EXIT_INPUT, EXIT_USAGE, fail
from ragprep.pipeline.options import WorkersOption

if TYPE_CHECKING:
    from ragprep.pipeline.compare.gold import GoldSet
    from ragprep.pipeline.compare.measure import CompareResult
    from ragprep.pipeline.compare.run import ReusedReadings
    from ragprep.pipeline.config import Settings

DEFAULT_MODES = "structure,layout,stream"


class ReportFormat(str, Enum):
    text = "text"
    json = "json"


@dataclass(frozen=True)
class DatasetSpec:
    """``--dataset MODE=PATH``: readings of MODE already written by ``ragprep run``."""

    mode: str
    path: Path


def parse_modes(text: str, known: tuple[str, ...]) -> tuple[str, ...]:
    modes = tuple(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    unknown = [m for m in modes if m not in known]
    if not modes or unknown:
        raise fail(f"--modes {text!r}: use a comma-separated list of {', '.join(known)}", EXIT_USAGE)
    return modes


def parse_dataset(spec: str, modes: tuple[str, ...]) -> DatasetSpec:
    mode, sep, path = spec.partition("=")
    if not sep or not mode.strip() or not path.strip():
        raise fail(f"--dataset {spec!r}: use MODE=PATH, e.g. structure=out/structure", EXIT_USAGE)
    if mode.strip() not in modes:
        raise fail(f"--dataset {spec!r}: mode {mode.strip()!r} is not among --modes {','.join(modes)}", EXIT_USAGE)
    return DatasetSpec(mode.strip(), Path(path.strip()))


def reused_readings(specs: tuple[DatasetSpec, ...], settings: Settings) -> ReusedReadings:
    """The readings the ``--dataset`` folders hold, per mode and doc_id; documents made
    with other settings are left out (and extracted again), with a note on stderr."""
    import dataclasses

    from ragprep.extract import Mode
    from ragprep.pipeline.compare.dataset import DatasetReadError, load_dataset_readings

    out = {}
    for spec in specs:
        key_hash = dataclasses.replace(settings, mode=Mode(spec.mode)).key_hash
        try:
            loaded = load_dataset_readings(spec.path, spec.mode, key_hash)
        except DatasetReadError as exc:
            raise fail(str(exc), EXIT_USAGE) from None
        if loaded.stale:
            typer.echo(
                f"ragprep: --dataset {spec.mode}={spec.path}: {loaded.stale} documents were made with other "
                "settings and are extracted again",
                err=True,
            )
        out[spec.mode] = loaded.readings
    return out


# The options of `ragprep compare`, one alias each (typer reads the Annotated metadata).
InputsArgument = Annotated[
    list[Path],
    typer.Argument(help="PDF files and folders (every `*.pdf` below a folder).", show_default=False),
]
ModesOption = Annotated[
    str, typer.Option("--modes", help="Comma-separated modes to compare: structure, layout, stream, auto.")
]
ConfigOption = Annotated[
    Optional[Path],
    typer.Option(
        "--config",
        help="TOML file with [extract], [chunk] and [pipeline] tables overriding the defaults "
        "(see `ragprep config show`); [pipeline] sets workers, timeout_seconds and max_memory_mb.",
        show_default=False,
    ),
]
OutOption = Annotated[
    Optional[Path],
    typer.Option(
        "--out",
        help="Write report.md, metrics.parquet, agreement.parquet and PNG plots into this folder.",
        show_default=False,
    ),
]
DatasetOption = Annotated[
    Optional[list[str]],
    typer.Option("--dataset", help="MODE=PATH: reuse a `ragprep run` dataset for MODE (repeatable).", show_default=False),
]
GoldOption = Annotated[
    Optional[Path],
    typer.Option(
        "--gold",
        help="Folder of gold reading-order text: `<stem>.txt` per document or `<stem>/<page>.txt` per page.",
        show_default=False,
    ),
]
ReportFormatOption = Annotated[
    ReportFormat, typer.Option("--format", help="text: a table on the terminal; json: every metric, for scripts.")
]
PasswordFileOption = Annotated[
    Optional[Path],
    typer.Option(
        "--password-file",
        help="File of passwords, one per line (# comments), tried in turn on documents that need one "
        "(as `ragprep run --password-file`).",
        show_default=False,
    ),
]


def compare(
    inputs: InputsArgument,
    modes: ModesOption = DEFAULT_MODES,
    config: ConfigOption = None,
    out: OutOption = None,
    dataset: DatasetOption = None,
    gold: GoldOption = None,
    output_format: ReportFormatOption = ReportFormat.text,
    workers: WorkersOption = None,
    password_file: PasswordFileOption = None,
) -> None:
    """Compare chunk quality across extraction modes on your own documents.

    Per mode: coverage (glyphs, untagged/artifact/undecodable shares, unavailable pages),
    order agreement with structure (order score, column jumps), chunk quality (token
    distribution, block integrity, mid-sentence and boilerplate shares, interleaved
    chunks), word agreement between modes and the documents where they disagree most.

    Documents run in worker processes under the limits of `ragprep run`
    (pipeline.timeout_seconds, pipeline.max_memory_mb): a document past them, or one
    that crashes its worker, is reported as unreadable and the others go on.
    """
    from ragprep.pipeline.commands import read_passwords
    from ragprep.pipeline.compare.run import MODES, CompareSettings, compare_documents
    from ragprep.pipeline.errors import WorkerStartError

    chosen = parse_modes(modes, MODES)
    specs = tuple(parse_dataset(s, chosen) for s in dataset or ())
    settings = _load_settings(config)
    gold_set = _load_gold(gold)
    paths = _input_paths(inputs)
    readings = reused_readings(specs, settings)
    compare_settings = CompareSettings(
        modes=chosen,
        run=settings,
        passwords=read_passwords(password_file) if password_file is not None else (),
    )
    try:
        result = compare_documents(
            paths, compare_settings, datasets=readings, gold=gold_set, workers=settings.with_workers(workers).pipeline.worker_count
        )
    except WorkerStartError as exc:
        raise fail(str(exc), EXIT_INPUT) from None
    _show(result, out, output_format)
    if result.errors:
        raise typer.Exit(EXIT_INPUT)


def _load_settings(config: Path | None) -> Settings:
    from ragprep.extract import ConfigError
    from ragprep.pipeline.config import Settings

    try:
        return Settings.load(config)
    except ConfigError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


def _load_gold(gold: Path | None) -> GoldSet | None:
    from ragprep.pipeline.compare.gold import GoldError, load_gold

    try:
        return load_gold(gold) if gold is not None else None
    except GoldError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


def _input_paths(inputs: list[Path]) -> tuple[Path, ...]:
    """The PDFs the inputs name; none, or an input that does not exist, is a usage error
    (as in `ragprep run`: the command line names nothing)."""
    from ragprep.pipeline.inputs import InputError, collect_inputs

    try:
        paths = collect_inputs([str(i) for i in inputs])
    except InputError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    if not paths:
        raise fail(f"no PDF files in {', '.join(str(i) for i in inputs)}", EXIT_USAGE)
    return paths


def _show(result: CompareResult, out: Path | None, output_format: ReportFormat) -> None:
    """The report into `out` (when given), then JSON or the terminal table on standard output."""
    from ragprep.pipeline.compare.report import print_summary, to_json, write_report

    if out is not None:
        try:
            write_report(result, out)
        except OSError as exc:
            raise fail(f"cannot write the report to {out}: {exc.strerror or exc}", EXIT_INPUT) from None
    if output_format is ReportFormat.json:
        sys.stdout.write(to_json(result))
        sys.stdout.flush()
    else:
        from rich.console import Console

        console = Console()
        print_summary(result, console)
        if out is not None:
            console.print(f"report written to {out}", markup=False)
