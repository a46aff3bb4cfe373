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
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Mapping

from ragprep.chunk.config import ChunkConfig, config_hash
from ragprep.extract.config import ExtractConfig, check_known_keys, read_toml
from ragprep.extract.document import Mode
from ragprep.extract.errors import ConfigError

TABLES = ("extract", "chunk", "pipeline")


@dataclass(frozen=True)
class PipelineConfig:
    # Worker processes; 0 means one per CPU core.
    workers: int = 0
    # Wall-clock seconds one document may take (extract + chunk) before its
    # worker is killed and the document becomes an error row.
    timeout_seconds: float = 600.0
    # Address-space limit per worker (RLIMIT_AS), in MiB; 0 disables it. A
    # document that needs more becomes an error row, the worker is replaced.
    max_memory_mb: int = 4096
    # Commit a new dataset version after this many processed documents or
    # this many seconds, whichever comes first: a killed run loses at most
    # the work since the last commit.
    commit_every_documents: int = 200
    commit_every_seconds: float = 300.0
    # A later run retries documents that failed with these error types
    # (transient by nature); other failures are retried only when their
    # bytes or the configuration change, or with --retry-errors.
    retry_error_types: tuple[str, ...] = ("TimeoutError", "MemoryLimitError", "WorkerDiedError")
    # ... up to this many attempts in all, so that a PDF that times out every
    # time does not cost every nightly run its timeout again.
    max_attempts: int = 3

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "retry_error_types":
                if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                    raise ConfigError(f"pipeline.{f.name} must be a list of error type names, got {value!r}")
                object.__setattr__(self, f.name, tuple(value))
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"pipeline.{f.name} must be a number, got {value!r}")
            if f.type == "int" and not isinstance(value, int):
                raise ConfigError(f"pipeline.{f.name} must be a whole number, got {value!r}")
            floor = 0 if f.name in ("workers", "max_memory_mb") else 1e-9
            if value < floor:
                raise ConfigError(f"pipeline.{f.name} must be {'>= 0' if floor == 0 else 'positive'}, got {value!r}")

    @property
    def worker_count(self) -> int:
        return self.workers or os.cpu_count() or 1

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any]) -> "PipelineConfig":
        check_known_keys(cls, table, "pipeline")
        return cls(**dict(table))


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know: the three stages' settings and the mode."""

    extract: ExtractConfig = ExtractConfig()
    chunk: ChunkConfig = ChunkConfig()
    pipeline: PipelineConfig = PipelineConfig()
    mode: Mode = Mode.AUTO

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
            pipeline=PipelineConfig.from_mapping(data.get("pipeline", {})),
            mode=Mode(mode) if mode is not None else Mode.AUTO,
        )

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


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    # TOML basic strings and arrays of them share JSON's escaping.
    return json.dumps(value, ensure_ascii=False)

