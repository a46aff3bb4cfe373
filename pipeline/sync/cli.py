"""``ragprep sync DATASET --to URI``: the command, its progress bar and its summary."""

from __future__ import annotations

import dataclasses
import json
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ragprep.pipeline.exits import EXIT_INPUT, EXIT_USAGE, fail

if TYPE_CHECKING:
    from rich.progress import TaskID


class SyncFormat(str, Enum):
    text = "text"
    json = "json"


class RichSyncProgress:
    """Rows written (upserts, then deletes) on standard error."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("[bold]sync"), BarColumn(), MofNCompleteColumn(), TextColumn("rows"),
            TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True),
        )  # fmt: skip
        self._task: TaskID | None = None

    def start(self, total: int) -> None:
        self._progress.start()
        self._task = self._progress.add_task("sync", total=total)

    def advance(self, rows: int) -> None:
        if self._task is not None:
            self._progress.advance(self._task, rows)

    def finish(self) -> None:
        self._progress.stop()


def summary_text(summary) -> str:  # SyncSummary
    how = "in full" if summary.full else f"from version {summary.from_version}"
    text = (
        f"synced {summary.dataset} version {summary.version} to {summary.store} ({how}): "
        f"{summary.added} added, {summary.updated} updated, {summary.removed} removed; "
        f"{summary.embedded} embedded, {summary.reused} reused, {summary.truncated} truncated "
        f"(over the embedder's window); {summary.seconds:.1f} s, {summary.embed_seconds:.1f} s embedding"
    )
    if summary.unpublished:
        text += (
            f"\n{summary.unpublished} later commit(s) of a run are not published yet, so not synced: "
            "the next sync takes them"
        )
    return text


# The options of `ragprep sync`, one alias each (typer reads the Annotated metadata).
DatasetArgument = Annotated[Path, typer.Argument(help="Dataset folder written by `ragprep run`.", show_default=False)]
ToOption = Annotated[
    str,
    typer.Option(
        "--to",
        help="Store URI: lancedb:PATH[#TABLE] (embedded, the default kind; a bare PATH means it), "
        "chroma:http://HOST:PORT/COLLECTION (a `chroma run` server) or chroma:PATH[#COLLECTION] (embedded).",
    ),
]
EmbedderOption = Annotated[
    Optional[str],
    typer.Option(
        "--embedder",
        help="sentence-transformers:MODEL_OR_PATH (default all-MiniLM-L6-v2, bundled by ragprep[embed]) "
        "or module:callable taking a list of texts and returning one vector each.",
        show_default=False,
    ),
]
ConfigOption = Annotated[
    Optional[Path],
    typer.Option("--config", help="TOML file whose [sync] table sets the filters and the cache.", show_default=False),
]
CacheOption = Annotated[
    Optional[Path],
    typer.Option("--cache", help="Embedding cache file (default: sync.cache, else DATASET/.ragprep/embeddings.sqlite).", show_default=False),
]
ProgressOption = Annotated[
    Optional[bool], typer.Option("--progress/--no-progress", help="Progress bar on standard error (default: on a terminal).", show_default=False)
]
SyncFormatOption = Annotated[SyncFormat, typer.Option("--format", help="Summary: text, or json for scripts.")]


def sync_command(
    dataset: DatasetArgument,
    to: ToOption = ...,  # type: ignore[assignment]  # typer's `...`: a required option
    embedder: EmbedderOption = None,
    config: ConfigOption = None,
    cache: CacheOption = None,
    progress: ProgressOption = None,
    output_format: SyncFormatOption = SyncFormat.text,
) -> None:
    """Bring a vector store in step with a dataset: upsert the chunks added or
    changed since the version the store recorded, delete those removed, in one
    idempotent pass (a killed sync is finished by the next one). Unchanged texts
    keep their vectors; new texts are embedded once (cache by text hash).

    It reads the latest published version: while `ragprep run` writes, its
    commits are published every pipeline.publish_every_seconds (and at its end),
    and the summary says how many commits were not published yet.

    Exit codes: 0 synced; 2 bad usage (not a dataset, bad URI, embedder or config);
    1 the store or the embedder failed.
    """
    from ragprep.extract.errors import ConfigError
    from ragprep.pipeline.config import Settings
    from ragprep.pipeline.dataset import DatasetError, Snapshot
    from ragprep.pipeline.sync import DEFAULT_EMBEDDER, EmbedderError, EmbeddingCache, StoreError, load_embedder, open_store, sync
    from ragprep.pipeline.sync.model import StoreUnreachableError

    try:
        settings = Settings.load(config).sync
        if cache is not None:
            settings = dataclasses.replace(settings, cache=str(cache))
        Snapshot.open(dataset)  # not a dataset: a usage error before the store is touched
        store = open_store(to)
        model = load_embedder(embedder or DEFAULT_EMBEDDER)
    except StoreUnreachableError as exc:
        raise fail(str(exc), EXIT_INPUT) from None
    except (ConfigError, DatasetError, EmbedderError, StoreError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    vectors = EmbeddingCache(settings.cache or dataset / ".ragprep" / "embeddings.sqlite")
    bar = RichSyncProgress() if (progress if progress is not None else sys.stderr.isatty()) else None
    try:
        summary = sync(dataset, store, model, settings, vectors, bar)
    except (StoreError, EmbedderError) as exc:
        raise fail(str(exc), EXIT_INPUT) from None
    finally:
        vectors.close()
        store.close()
    if output_format is SyncFormat.json:
        typer.echo(json.dumps(dataclasses.asdict(summary)))
    else:
        typer.echo(summary_text(summary))
