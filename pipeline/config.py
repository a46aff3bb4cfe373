"""Run settings (the ``[pipeline]`` table) and the whole effective configuration.

One TOML file configures every stage: ``[extract]`` (``ExtractConfig``),
``[chunk]`` (``ChunkConfig``) and ``[pipeline]`` (``PipelineConfig``, below).
An unknown table or key, or a value of the wrong type, is a ``ConfigError``
naming it, so a typo never silently falls back to a default.

Only ``[extract]``, ``[chunk]`` and the reading mode can change a chunk, so
only they enter the document key (``Settings.key_hash``); how many workers ran
or how long they were allowed does not make a document stale.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ragprep.chunk import ChunkConfig, config_hash
from ragprep.extract import ExtractConfig, Mode
from ragprep.extract.errors import ConfigError
from ragprep.extract.settings import check_known_keys, check_settings, read_toml, setting
from ragprep.pipeline.failures import POOL_FAILURE_NAMES, error_type_problem
from ragprep.pipeline.sources import resolve_root

TABLES = ("extract", "chunk", "pipeline", "sync")


def _error_types_problem(names: tuple[str, ...]) -> str | None:
    problems = [p for p in map(error_type_problem, names) if p is not None]
    return problems[0] if problems else None


@dataclass(frozen=True)
class PipelineConfig:
    # Worker processes; 0 means one per CPU core.
    workers: int = setting(0, ge=0)
    # Wall-clock seconds one document may take (extract + chunk) before its
    # worker is killed and the document becomes an error row.
    timeout_seconds: float = setting(600.0, gt=0)
    # Address-space limit per worker (RLIMIT_AS), in MiB; 0 disables it. A
    # document that needs more becomes an error row, the worker is replaced.
    max_memory_mb: int = setting(4096, ge=0)
    # Commit a new dataset version after this many processed documents or
    # this many seconds, whichever comes first: a killed run loses at most
    # the work since the last commit.
    commit_every_documents: int = setting(200, gt=0)
    commit_every_seconds: float = setting(300.0, gt=0)
    # A later run retries documents that failed with these error types
    # (transient by nature); other failures are retried only when their
    # bytes or the configuration change, or with --retry-errors.
    retry_error_types: tuple[str, ...] = setting(POOL_FAILURE_NAMES, check=_error_types_problem)
    # ... up to this many attempts in all, so that a PDF that times out every
    # time does not cost every nightly run its timeout again.
    max_attempts: int = setting(3, gt=0)
    # Sources are keyed relative to this folder when set (else by resolved
    # path), so a corpus that moves to another mount keeps its source keys and
    # chunk ids. A relative value is relative to the config file's folder.
    source_root: str = ""
    # Seconds the parent may spend reading one input's bytes (to hash it)
    # before the file becomes an error row: a hung network share must not
    # hold the dataset's lock forever.
    read_timeout_seconds: float = setting(120.0, gt=0)
    # A run whose inputs no longer hold more than this share of the stored
    # documents stops before removing any (a share half unmounted, a wrong
    # glob) unless --allow-mass-removal is given.
    max_removal_share: float = setting(0.5, ge=0, le=1.0)
    # A dataset version replaced by a commit stays readable this long, so a
    # reader that resolved DATASET/current to it can finish (README: reading
    # a consistent snapshot).
    version_grace_seconds: float = setting(900.0, ge=0)
    # A run's commits are durable at once (the dataset's journal) and published
    # to readers together: within this many seconds of a commit, as soon as
    # the commits have paid for building a version, and at the run's end.
    publish_every_seconds: float = setting(60.0, gt=0)
    # Documents per Parquet part of the documents, chunks and pages tables. A
    # commit rewrites the parts of the documents it replaces, removes or
    # moves: smaller parts make that cheaper, larger ones mean fewer files.
    documents_per_part: int = setting(16, gt=0)

    def __post_init__(self) -> None:
        check_settings(self, "pipeline")

    @property
    def worker_count(self) -> int:
        return self.workers or os.cpu_count() or 1

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any]) -> "PipelineConfig":
        check_known_keys(cls, table, "pipeline")
        return cls(**dict(table))


_PAGE_MODES = ("structure", "layout", "stream")


def _modes_problem(modes: tuple[str, ...]) -> str | None:
    unknown = [m for m in modes if m not in _PAGE_MODES]
    return f"has an unknown mode {unknown[0]!r}; known: {', '.join(_PAGE_MODES)}" if unknown else None


@dataclass(frozen=True)
class SyncConfig:
    """``ragprep sync``: which chunks go to the vector store, and how they are embedded."""

    # Leave out chunks flagged is_boilerplate (running text recurring on most pages).
    skip_boilerplate: bool = True
    # Leave out chunks with fewer tokens than this (0 keeps all).
    min_tokens: int = setting(0, ge=0)
    # Keep only chunks whose every page was read in one of these modes (empty: all).
    modes: tuple[str, ...] = setting((), check=_modes_problem)
    # Texts per embedder call.
    batch_size: int = setting(64, ge=1)
    # Rows per store write (one merge_insert / upsert): bounds memory and the work a kill loses.
    write_batch: int = setting(1024, ge=1)
    # Embedding cache (SQLite, by embedder and text hash); "" = DATASET/.ragprep/embeddings.sqlite.
    cache: str = ""

    def __post_init__(self) -> None:
        check_settings(self, "sync")

    @property
    def filter_key(self) -> str:
        """What decides which chunks a store holds: a store synced under
        another filter is reconciled in full."""
        return json.dumps([self.skip_boilerplate, self.min_tokens, sorted(self.modes)])

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any]) -> "SyncConfig":
        check_known_keys(cls, table, "sync")
        return cls(**dict(table))


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know: the three stages' settings and the mode."""

    extract: ExtractConfig = ExtractConfig()
    chunk: ChunkConfig = ChunkConfig()
    pipeline: PipelineConfig = PipelineConfig()
    mode: Mode = Mode.AUTO
    sync: SyncConfig = SyncConfig()

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", Mode(self.mode))

    @classmethod
    def load(cls, path: str | Path | None = None, *, mode: Mode | str | None = None) -> "Settings":
        """Defaults, overridden by the TOML file at `path` when given."""
        data = read_toml(path) if path is not None else {}
        for name, table in data.items():
            if name not in TABLES:
                raise ConfigError(f"config {path}: unknown table [{name}]; known: {', '.join(TABLES)}")
            if not isinstance(table, dict):
                raise ConfigError(f"config {path}: [{name}] must be a table")
        return cls(
            extract=ExtractConfig.from_mapping(data.get("extract", {})),
            chunk=ChunkConfig.from_mapping(data.get("chunk", {})),
            pipeline=_rooted(PipelineConfig.from_mapping(data.get("pipeline", {})), path),
            mode=Mode(mode) if mode is not None else Mode.AUTO,
            sync=SyncConfig.from_mapping(data.get("sync", {})),
        )

    def with_workers(self, workers: int | None) -> "Settings":
        """These settings with ``--workers`` applied (None: as configured; 0: one per core)."""
        if workers is None:
            return self
        return dataclasses.replace(self, pipeline=dataclasses.replace(self.pipeline, workers=workers))

    @property
    def key_hash(self) -> str:
        """Hash of what can change a document's chunks: extract and chunk
        settings and the reading mode (the chunk ids' config hash)."""
        return config_hash(self.chunk, self.extract, mode=self.mode.value)

    def as_mapping(self) -> dict[str, dict[str, Any]]:
        """The effective configuration, table by table (TOML/JSON-ready)."""
        out: dict[str, dict[str, Any]] = {}
        for name in TABLES:
            table = dataclasses.asdict(getattr(self, name))
            out[name] = {k: list(v) if isinstance(v, tuple) else v for k, v in table.items()}
        return out

    def to_toml(self) -> str:
        """The effective configuration as TOML that ``Settings.load`` reads back."""
        lines = [f"# reading mode of this run (a command-line option, not a config key): {self.mode.value}"]
        for name, table in self.as_mapping().items():
            lines.append(f"\n[{name}]")
            lines.extend(f"{key} = {_toml_value(value)}" for key, value in table.items())
        return "\n".join(lines) + "\n"


def _rooted(pipeline: PipelineConfig, config_path: str | Path | None) -> PipelineConfig:
    """`pipeline.source_root` made absolute against the config file's folder."""
    base = Path(config_path).resolve().parent if config_path is not None else None
    return dataclasses.replace(pipeline, source_root=resolve_root(pipeline.source_root, base))


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    # TOML basic strings and arrays of them share JSON's escaping.
    return json.dumps(value, ensure_ascii=False)

