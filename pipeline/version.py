"""What made a document: the installed ragprep version and a digest of the code
that turns bytes into chunks. ``pipeline_version()`` is part of every document
key (the ``pipeline_version`` column): a rerun re-reads a stored document whose
key differs, so a change of extraction or chunking rules re-chunks existing
datasets even when the version number was not bumped (an editable install, a
patched release). ``ragprep --version`` prints ``package_version()``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

# The stages whose code decides a chunk's text, span and provenance; the
# pipeline only stores them. Their sources, not compiled files: the compiled
# core is built from _core.c, and bytecode differs between Python versions.
OUTPUT_PACKAGES = ("ragprep.extract", "ragprep.chunk")
SOURCE_SUFFIXES = (".py", ".c", ".h")


def package_version() -> str:
    try:
        return metadata.version("ragprep")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _package_folders(name: str) -> list[Path]:
    spec = importlib.util.find_spec(name)
    return [Path(folder) for folder in (spec.submodule_search_locations or ())] if spec else []


def source_digest(packages: Iterable[tuple[str, Path]]) -> str:
    """SHA-256 of the source files under each (package name, folder): their
    paths and bytes, 12 hex digits. Bytecode and built files do not count."""
    digest = hashlib.sha256()
    for package, folder in packages:
        for path in sorted(p for p in folder.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()):
            digest.update(f"{package}/{path.relative_to(folder).as_posix()}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:12]


@functools.cache
def rules_digest() -> str:
    """The source digest of the installed OUTPUT_PACKAGES (about 3 ms, once per process)."""
    return source_digest((package, folder) for package in OUTPUT_PACKAGES for folder in _package_folders(package))


def pipeline_version() -> str:
    """The version part of a document key: ``0.1.0+rules.1a2b3c4d5e6f``."""
    return f"{package_version()}+rules.{rules_digest()}"
