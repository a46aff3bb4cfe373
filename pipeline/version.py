"""The installed ragprep version: part of every document key, and `ragprep --version`."""

from __future__ import annotations

from importlib import metadata


def pipeline_version() -> str:
    try:
        return metadata.version("ragprep")
    except metadata.PackageNotFoundError:
        return "0+unknown"
