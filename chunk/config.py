"""Chunking settings (the ``[chunk]`` table) and the configuration hash.

Loading follows ``ragprep.extract.config.ExtractConfig``: defaults here equal
``configs/default.toml`` (a test keeps them equal), an unknown key or a value of
the wrong type is a ``ConfigError`` naming the key as ``chunk.<key>``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ragprep.extract import TABLE_FORMATS
from ragprep.extract import ExtractConfig
from ragprep.extract.errors import ConfigError
from ragprep.extract.settings import Check, check_known_keys, check_settings, read_toml_table, setting


def _loadable_encoding(name: str) -> str | None:
    """Why tiktoken cannot give encoding `name` offline, or None: checked at
    load, so a typo is a usage error, not a failure in every worker."""
    from ragprep.chunk.tokens import encoding_problem  # tiktoken: imported only to check

    return encoding_problem(name)


def _loadable_tokenizer(name: str) -> str | None:
    """Why chunk.tokenizer cannot be loaded offline here, or None: checked at
    load like the encoding, so a model that is not installed is a usage error
    naming the setting, not a worker that cannot start."""
    from ragprep.chunk.tokens import tokenizer_problem  # tiktoken, tokenizers: imported only to check

    return tokenizer_problem(name)

# The values of chunk.unicode_form, in ragprep.chunk.normalise's order of strength.
UNICODE_FORMS = ("ligatures", "nfkc", "none")


def _one_of(choices: tuple[str, ...]) -> Check:
    """A check that a string setting names one of `choices`."""

    def check(value: str) -> str | None:
        return None if value in choices else f"must be one of {', '.join(choices)}, got {value!r}"

    return check


@dataclass(frozen=True)
class ChunkConfig:
    # Token budget of one chunk, overlap and header prefix included.
    max_tokens: int = setting(512, gt=0)
    # Tokens repeated from the end of the previous chunk (whole blocks where
    # they fit, else a word-boundary tail of the last block).
    overlap_tokens: int = setting(64, ge=0)
    # tiktoken encoding; cl100k_base is served from the bundled offline copy.
    encoding: str = setting("cl100k_base", check=_loadable_encoding)
    # Count tokens with this instead of `encoding` when set: an embedding model's
    # own tokenizer ("sentence-transformers:all-MiniLM-L6-v2", "tokenizers:PATH")
    # so max_tokens is its window, or "tiktoken:NAME".
    tokenizer: str = setting("", check=_loadable_tokenizer)
    # A table split across chunks gets its header row (TH cells) on top of each part.
    repeat_table_header: bool = True
    # How table rows read in chunks: markdown (pipe rows, header first), tsv, or lines.
    table_format: str = setting("markdown", check=_one_of(TABLE_FORMATS))
    # Join "infor-\nmation" when the next line starts lowercase.
    dehyphenate: bool = True
    # A chunk whose new text is under this many tokens (not boilerplate) joins a
    # neighbour in the same section when the budget allows; 0 turns it off.
    min_tokens: int = setting(20, ge=0)
    # Compatibility characters in chunk text (ragprep.chunk.normalise): "ligatures"
    # expands ligatures and compatibility spaces, "nfkc" applies all of NFKC, "none" keeps them.
    unicode_form: str = setting("ligatures", check=_one_of(UNICODE_FORMS))
    # A block whose digit-masked text recurs on at least this share of the
    # document's pages (and on two pages at least) is boilerplate.
    boilerplate_min_share: float = setting(0.5, gt=0, le=1.0)

    def __post_init__(self) -> None:
        check_settings(self, "chunk")
        # Overlap must leave room for new text, or packing could not advance.
        if self.overlap_tokens >= self.max_tokens:
            raise ConfigError(
                f"chunk.overlap_tokens must be >= 0 and < max_tokens ({self.max_tokens}), "
                f"got {self.overlap_tokens!r}"
            )

    @property
    def tokenizer_name(self) -> str:
        """What token counts use (and chunks record): `tokenizer`, else `encoding`."""
        return self.tokenizer or self.encoding

    def replace(self, **changes: Any) -> "ChunkConfig":
        return self.from_mapping({**dataclasses.asdict(self), **changes})

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any]) -> "ChunkConfig":
        check_known_keys(cls, table, "chunk")
        return cls(**dict(table))

    @classmethod
    def from_toml(cls, path: str | Path) -> "ChunkConfig":
        """Read the ``[chunk]`` table of a TOML file (other tables are ignored)."""
        return cls.from_mapping(read_toml_table(path, "chunk"))


def config_hash(chunk: ChunkConfig, extract: ExtractConfig | None = None, mode: str | None = None) -> str:
    """SHA-256 of the canonical JSON of both stages' settings and, when given,
    the requested reading mode: any setting that can change a chunk's text or
    span changes its id."""
    payload: dict[str, object] = {
        "extract": (extract or ExtractConfig()).output_settings(),
        "chunk": dataclasses.asdict(chunk),
    }
    if mode is not None:
        payload["mode"] = mode
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
