"""Exit codes of the ``ragprep`` command, and the one way to fail with one.

0 success; 1 an input could not be read (``extract``, ``glyphs``, ``compare``), or
``run`` or ``compare`` could not start its worker processes; 2 bad usage
(unknown option, bad page selection, bad configuration, missing input, a busy
or foreign output folder); 3 a run finished but some documents failed (their
error rows are in the documents table).
"""

from __future__ import annotations

import typer

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_FAILURES = 0, 1, 2, 3


def fail(message: str, code: int) -> typer.Exit:
    """Print `message` on standard error; the caller raises the returned Exit."""
    typer.echo(f"ragprep: {message}", err=True)
    return typer.Exit(code)
