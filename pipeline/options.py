"""Command-line pieces shared by several ``ragprep`` commands: the ``--workers``
option, help rendering of boolean flags, and the quiet end on a closed pipe.

Only typer is imported here: ``ragprep --help`` must not load a stage.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

WorkersOption = Annotated[
    Optional[int],
    typer.Option(
        "--workers",
        "-j",
        min=0,
        help="Worker processes (default: pipeline.workers; 0 = one per core).",
        show_default=False,
    ),
]


def _hide_flag_placeholders(params: list[Any]) -> list[Any]:
    """A boolean flag takes no value, so its help shows none. typer prints a
    ``<bool>`` placeholder by default, which reads as if the flag took one: users
    then write ``--keep-missing true`` and ``true`` is taken as an input path."""
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and not param.count and param.metavar is None:
            param.metavar = ""
    return params


class Command(TyperCommand):
    """A typer command whose help shows flags without a value placeholder."""

    def get_params(self, ctx: typer.Context) -> list[Any]:
        return _hide_flag_placeholders(super().get_params(ctx))


class Group(TyperGroup):
    """The ``ragprep`` group: help shows flags (``--help``, ``--version``) without a
    value placeholder, and every command ends quietly on a closed pipe."""

    def get_params(self, ctx: typer.Context) -> list[Any]:
        return _hide_flag_placeholders(super().get_params(ctx))

    def invoke(self, ctx: typer.Context) -> object:
        # typer turns EPIPE into exit status 1; a closed pipe is the reader's
        # choice, not a failure (`ragprep export DS | head`).
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            exit_on_closed_pipe()


def exit_on_closed_pipe() -> None:
    """End quietly, status 0, when the reader of standard output went away
    (``ragprep export DS | head``), as ``cat`` and ``jq`` do.

    Python would print a second ``BrokenPipeError`` while flushing stdout at
    exit; pointing stdout at /dev/null first keeps that flush silent.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    raise SystemExit(0)
