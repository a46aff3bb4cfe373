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
from pathlib import Path, PurePath

from ragprep.pipeline.inputs import SAMPLES, InputError

SAMPLES_KEY = "ragprep:samples"  # no path can start so: a sample's key never names a user's file


def source_key(path: str | os.PathLike[str], source_root: str | os.PathLike[str] | None = None) -> str:
    """The key of the file at `path` (see the module docstring)."""
    resolved = os.path.realpath(path)
    sample = os.path.relpath(resolved, os.path.realpath(SAMPLES))
    if not sample.startswith(os.pardir):
        return f"{SAMPLES_KEY}/{PurePath(sample).as_posix()}"
    if not source_root:
        return resolved
    root = os.path.realpath(source_root)
    relative = os.path.relpath(resolved, root)
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
