"""Corpus commands of the ``ragprep`` CLI: ``run``, ``export``, ``config show``."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ragprep.extract import Mode
from ragprep.extract.errors import ConfigError, RagprepError
from ragprep.pipeline.exits import EXIT_INPUT, EXIT_USAGE, fail
from ragprep.pipeline.options import Command, Group, WorkersOption

if TYPE_CHECKING:  # the CLI imports each stage only when a command needs it
    from ragprep.pipeline.config import Settings
    from ragprep.pipeline.engine import Engine
    from ragprep.pipeline.run import Reporter, RunSummary

ConfigOption = Annotated[
    Optional[Path],
    typer.Option(
        "--config",
        help="TOML file with [extract], [chunk] and [pipeline] tables overriding the defaults "
        "(see `ragprep config show`).",
        show_default=False,
    ),
]
ModeOption = Annotated[
    Mode,
    typer.Option(
        "--mode",
        help="Reading order: auto (structure where tags cover the page, else layout), structure, layout, stream.",
    ),
]


class LogFormat(str, Enum):
    auto = "auto"
    rich = "rich"
    json = "json"


class EngineName(str, Enum):
    local = "local"
    ray = "ray"


class SummaryFormat(str, Enum):
    text = "text"
    json = "json"


class ExportFormat(str, Enum):
    jsonl = "jsonl"


class ConfigFormat(str, Enum):
    toml = "toml"
    json = "json"


# The options of `ragprep run`, one alias each (typer reads the Annotated metadata).
InputsArgument = Annotated[
    Optional[list[str]],
    typer.Argument(
        help="PDF files, folders (searched recursively for `*.pdf`), globs (`'corpus/**/*.pdf'`) or `@list.txt` "
        "(one per line). None: the bundled sample PDFs.",
        show_default=False,
    ),
]
OutOption = Annotated[Path, typer.Option("--out", "-o", help="Dataset folder to create or bring up to date.")]
KeepMissingOption = Annotated[
    bool, typer.Option("--keep-missing", help="Keep the chunks of documents whose source is no longer among the inputs.")
]
RetryErrorsOption = Annotated[
    bool,
    typer.Option(
        "--retry-errors",
        help="Reprocess every document that failed before, not only transient failures "
        "within pipeline.max_attempts.",
    ),
]
PasswordFileOption = Annotated[
    Optional[Path],
    typer.Option(
        "--password-file",
        help="File of passwords, one per line (blank lines and lines starting with # skipped), tried in "
        "turn on documents that need one; documents that failed for want of a password are retried. "
        "The passwords are written nowhere.",
        show_default=False,
    ),
]
SourceRootOption = Annotated[
    Optional[Path],
    typer.Option(
        "--source-root",
        help="Key sources (and chunk ids) by their path relative to this folder, so a corpus that moves "
        "to another mount keeps its keys (default: pipeline.source_root; none: resolved absolute paths).",
        show_default=False,
    ),
]
LogFormatOption = Annotated[
    LogFormat,
    typer.Option("--log-format", help="Progress on standard error: rich bar, JSON lines, or auto (bar on a terminal, JSON otherwise)."),
]
SummaryFormatOption = Annotated[
    SummaryFormat, typer.Option("--format", help="Summary on standard output: text, or json for scripts.")
]
EngineOption = Annotated[
    EngineName,
    typer.Option(
        "--engine",
        help="Where documents are read: local (worker processes on this machine) or ray (actors of a Ray "
        "cluster, `pip install 'ragprep[ray]'`; this process stays the one driver that plans and commits, "
        "inputs and dataset must be at the same paths on every node). Same rows, limits and exit codes.",
    ),
]
RayAddressOption = Annotated[
    Optional[str],
    typer.Option(
        "--ray-address",
        help="With --engine ray: the cluster to use (`auto`, or HOST:PORT of its head); "
        "default: start a Ray on this machine for the run.",
        show_default=False,
    ),
]
AllowMassRemovalOption = Annotated[
    bool,
    typer.Option(
        "--allow-mass-removal",
        help="Remove the stored documents the inputs no longer hold even when they are more than "
        "pipeline.max_removal_share of the dataset (without it such a run stops before removing anything).",
    ),
]
StrictOption = Annotated[
    bool,
    typer.Option("--strict", help="Exit 3 while the dataset holds error rows, also those of earlier runs."),
]
RehashOption = Annotated[
    bool,
    typer.Option(
        "--rehash",
        help="Read and hash every input, also those whose size, mtime and inode match the last run's "
        "(which are otherwise taken as unchanged without reading them).",
    ),
]


def _settings(
    config: Path | None, mode: Mode, workers: int | None = None, source_root: Path | None = None
) -> Settings:
    from ragprep.pipeline.config import Settings
    from ragprep.pipeline.sources import resolve_root

    try:
        settings = Settings.load(config, mode=mode).with_workers(workers)
        if source_root is not None:
            pipeline = dataclasses.replace(settings.pipeline, source_root=resolve_root(str(source_root)))
            settings = dataclasses.replace(settings, pipeline=pipeline)
    except ConfigError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    return settings


def run_command(
    inputs: InputsArgument = None,
    out: OutOption = ...,  # type: ignore[assignment]  # typer's `...`: a required option
    config: ConfigOption = None,
    mode: ModeOption = Mode.AUTO,
    workers: WorkersOption = None,
    keep_missing: KeepMissingOption = False,
    retry_errors: RetryErrorsOption = False,
    password_file: PasswordFileOption = None,
    source_root: SourceRootOption = None,
    log_format: LogFormatOption = LogFormat.auto,
    output_format: SummaryFormatOption = SummaryFormat.text,
    engine: EngineOption = EngineName.local,
    ray_address: RayAddressOption = None,
    allow_mass_removal: AllowMassRemovalOption = False,
    strict: StrictOption = False,
    rehash: RehashOption = False,
) -> None:
    """Extract and chunk PDFs in parallel into a Parquet dataset; reruns are incremental.

    The dataset folder gets the tables chunks, pages, tables (one row per table cell),
    documents, runs and changes
    (Parquet, zstd), readable by pyarrow, pandas, DuckDB and Polars. A rerun skips
    documents whose bytes and settings are unchanged, replaces changed ones, deletes
    those whose source is gone (unless --keep-missing), and records in `changes`
    which chunk ids were added, removed or updated. A document that fails becomes an
    error row and the run goes on.

    Each commit is durable at once (the dataset's journal); readers (export, sync,
    DATASET/current) see the run's commits in versions published at most
    pipeline.publish_every_seconds apart, and all at its end. A run killed at
    any instant (kill -9) loses no commit: the next run publishes them.

    An input that names no PDF (a missing or empty folder, a glob or @list that
    matches none), or inputs that lost more than pipeline.max_removal_share of
    the stored documents, stop the run before anything is touched.

    Exit codes: 0 every document ok; 3 some documents failed in this run (with
    --strict: the dataset holds error rows); 2 bad usage (missing input, an
    input with no PDF, a mass removal, bad config, output busy or not a dataset,
    --engine ray without Ray installed); 1 the workers could not start (Ray
    cluster unreachable included).
    """
    from ragprep.pipeline.run import run

    settings = _settings(config, mode, workers, source_root)
    passwords = read_passwords(password_file) if password_file is not None else ()
    chosen_engine = _engine(engine, ray_address)
    use_rich = log_format is LogFormat.rich or (log_format is LogFormat.auto and sys.stderr.isatty())

    def run_on(where: Engine) -> RunSummary:
        return run(
            inputs or [], out, settings, _reporter(use_rich),
            keep_missing=keep_missing, retry_errors=retry_errors, passwords=passwords,
            allow_mass_removal=allow_mass_removal, strict=strict, rehash=rehash, engine=where,
        )  # fmt: skip

    summary = _run_on(chosen_engine, run_on)
    _echo_summary(summary, output_format, use_rich)
    raise typer.Exit(summary.exit_code)


def _reporter(use_rich: bool) -> Reporter:
    from ragprep.pipeline.progress import JsonLogReporter, RichReporter

    return RichReporter() if use_rich else JsonLogReporter()


def _run_on(engine: AbstractContextManager[Engine], run_on: Callable[[Engine], RunSummary]) -> RunSummary:
    """`run_on` the engine, which stops with it; a run that cannot start is a usage
    error (exit 2) or, when its workers cannot start, exit 1."""
    from ragprep.pipeline.dataset import DatasetError
    from ragprep.pipeline.errors import WorkerStartError
    from ragprep.pipeline.inputs import InputError

    try:
        with engine as where:
            return run_on(where)
    except (InputError, DatasetError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except WorkerStartError as exc:
        raise fail(str(exc), EXIT_INPUT) from None


def _echo_summary(summary: RunSummary, output_format: SummaryFormat, use_rich: bool) -> None:
    """The summary on standard output: JSON when asked, text unless the rich bar showed it."""
    from ragprep.pipeline.progress import summary_fields, summary_text

    if output_format is SummaryFormat.json:
        typer.echo(json.dumps(summary_fields(summary), ensure_ascii=False))
    elif not use_rich:
        typer.echo(summary_text(summary))


def _engine(name: EngineName, ray_address: str | None) -> AbstractContextManager[Engine]:
    """The engine a run's options name, as a context manager (a Ray started for the run stops with it)."""
    if name is EngineName.local:
        if ray_address is not None:
            raise fail("--ray-address needs --engine ray", EXIT_USAGE)
        from ragprep.pipeline.engine import LocalEngine

        return contextlib.nullcontext(LocalEngine())
    from ragprep.pipeline.ray_engine import INSTALL_HINT, RayEngine, ray_available

    if not ray_available():
        raise fail(INSTALL_HINT, EXIT_USAGE)
    return RayEngine(ray_address)


def read_passwords(path: Path) -> tuple[str, ...]:
    """The passwords of a --password-file: one per line, as written (a
    password may hold spaces), blank lines and # comments skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot read --password-file {path}: {exc.strerror}", EXIT_USAGE) from None
    except UnicodeDecodeError:
        raise fail(f"--password-file {path} is not UTF-8 text", EXIT_USAGE) from None
    lines = (line.rstrip("\r") for line in text.split("\n"))
    passwords = tuple(dict.fromkeys(line for line in lines if line and not line.startswith("#")))
    if not passwords:
        raise fail(f"--password-file {path} holds no password", EXIT_USAGE)
    return passwords


def export_command(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder written by `ragprep run`.", show_default=False)],
    output_format: Annotated[
        ExportFormat, typer.Option("--format", help="jsonl: one {id, page_content, metadata} object per chunk.")
    ] = ExportFormat.jsonl,
    output: Annotated[
        Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of standard output.", show_default=False)
    ] = None,
    flat_metadata: Annotated[
        bool,
        typer.Option(
            "--flat-metadata",
            help="Scalars only in metadata: lists and structs (bboxes, heading_path, mcids, modes, struct_types) "
            "as JSON strings, for stores such as Chroma that take no nested values.",
        ),
    ] = False,
) -> None:
    """Stream a dataset's chunks as JSON lines {"id", "page_content", "metadata"},
    ordered by (source, index): LangChain's Document(**record) takes one as is;
    for LlamaIndex nodes use ragprep.integrations.llamaindex.

    It reads the latest published version: while `ragprep run` writes, its
    commits are published every pipeline.publish_every_seconds (and at its end);
    a note on standard error says how many were not published yet."""
    from ragprep.pipeline.dataset import Snapshot
    from ragprep.pipeline.export import write_jsonl

    try:
        pinned = Snapshot.open(dataset)
        if note := pinned.unpublished_note():
            typer.echo(f"ragprep export: {note}", err=True)
        if output is None:
            write_jsonl(pinned, sys.stdout, flat=flat_metadata)
        else:
            with open(output, "w", encoding="utf-8") as fh:
                write_jsonl(pinned, fh, flat=flat_metadata)
    except RagprepError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except BrokenPipeError:
        raise  # the reader closed standard output: the CLI ends quietly
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror}", EXIT_USAGE) from None


config_app = typer.Typer(
    help="Inspect the configuration.", no_args_is_help=True, add_completion=False, cls=Group, rich_markup_mode=None
)


ShownConfigOption = Annotated[
    Optional[Path],
    typer.Option(
        "--config",
        help="TOML file to apply: its [extract], [chunk] and [pipeline] tables override the defaults "
        "(the file `ragprep run --config` would read).",
        show_default=False,
    ),
]


@config_app.command("show", cls=Command)
def config_show(
    config: ShownConfigOption = None,
    mode: ModeOption = Mode.AUTO,
    output_format: Annotated[ConfigFormat, typer.Option("--format", help="toml (loadable with --config) or json.")] = ConfigFormat.toml,
) -> None:
    """Print the effective configuration: the defaults overridden by --config.
    An unknown table or key, or a bad value, is an error naming it (exit 2)."""
    settings = _settings(config, mode)
    if output_format is ConfigFormat.json:
        typer.echo(json.dumps({"mode": settings.mode.value, **settings.as_mapping()}, indent=2))
    else:
        typer.echo(settings.to_toml(), nl=False)
