"""Exit codes of the ``ragprep`` command, and the one way to fail with one.

0 success; 1 an input could not be read (``extract``, ``glyphs``, ``compare``), or
``run`` or ``compare`` could not start its worker processes; 2 bad usage
(unknown option, bad page selection, bad configuration, an input that does not
exist or names no PDF, a busy or foreign output folder) in every command;
3 a run finished but some documents failed (their error rows are in the
documents table). Defined here only: the library (run.py) imports them too,
so this module imports typer only when it fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_FAILURES = 0, 1, 2, 3


def fail(message: str, code: int) -> "typer.Exit":
    """Print `message` on standard error; the caller raises the returned Exit."""
    import typer

    typer.echo(f"ragprep: {message}", err=True)
    return typer.Exit(code)
