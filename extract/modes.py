"""The reading modes (README "Modes"), apart from the code that reads them, so
the command line can name them without loading the interpreter."""

from __future__ import annotations

from enum import Enum


class Mode(str, Enum):
    STREAM = "stream"
    STRUCTURE = "structure"
    LAYOUT = "layout"
    AUTO = "auto"
