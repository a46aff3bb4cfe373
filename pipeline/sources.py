"""Source keys: how a document's origin is named in the dataset, independently
of the working directory and of how an input was spelled.

A key is the file's resolved path (symlinks and ``..`` resolved, absolute), or,
with ``pipeline.source_root``, its path relative to that root in POSIX form, so a
corpus that moves to another mount keeps its keys. The bundled samples (the run
with no input) are ``ragprep:samples/NAME`` wherever the package is installed: a
site-packages path says nothing to a reader and changes with every virtualenv. Chunk ids hash the key
(``ragprep.chunk.chunk_id``), so a key that changed with the spelling would
re-key every chunk of an unchanged corpus.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePath

from ragprep.pipeline.inputs import SAMPLES, InputError, realpaths

SAMPLES_KEY = "ragprep:samples"  # no path can start so: a sample's key never names a user's file


def source_key(path: str | os.PathLike[str], source_root: str | os.PathLike[str] | None = None) -> str:
    """The key of the file at `path` (see the module docstring)."""
    return source_keys([path], source_root)[0]


def source_keys(
    paths: Sequence[str | os.PathLike[str]],
    source_root: str | os.PathLike[str] | None = None,
    resolved: Sequence[str] = (),
) -> list[str]:
    """The key of each file (``source_key``), resolving each folder once;
    `resolved`: the paths' realpaths when the caller has them already."""
    samples = os.path.join(os.path.realpath(SAMPLES), "")
    root = os.path.realpath(source_root) if source_root else None
    real = list(resolved) if len(resolved) == len(paths) else realpaths(paths)
    return [_key(path, r, root, samples) for path, r in zip(paths, real, strict=True)]


def _key(path: str | os.PathLike[str], resolved: str, root: str | None, samples: str) -> str:
    if resolved.startswith(samples):
        return f"{SAMPLES_KEY}/{PurePath(resolved[len(samples) :]).as_posix()}"
    return resolved if root is None else _under_root(path, resolved, root)


def _under_root(path: str | os.PathLike[str], resolved: str, root: str) -> str:
    prefix = os.path.join(root, "")
    # A resolved path under the root is its tail (relpath would split both again for every file).
    relative = resolved[len(prefix) :] if resolved.startswith(prefix) else os.path.relpath(resolved, root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        raise InputError(f"{path}: not under pipeline.source_root {root}; set --source-root to a folder that holds every input")
    return PurePath(relative).as_posix()


def resolve_root(source_root: str, base: Path | None = None) -> str:
    """`source_root` as an absolute path: a relative one is relative to `base`
    (the folder of the config file that set it), else to the working directory."""
    if not source_root:
        return ""
    root = Path(source_root).expanduser()
    if not root.is_absolute():
        root = (base or Path.cwd()) / root
    return os.path.realpath(root)
