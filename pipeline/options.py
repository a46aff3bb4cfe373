"""Command-line pieces shared by several ``ragprep`` commands: the ``--workers``
option, the Command and Group classes (plain help, fast value reading), and the
quiet end on a closed pipe.

Only typer is imported here: ``ragprep --help`` must not load a stage.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from ragprep.pipeline.coercion import install_fast_coercion
from ragprep.pipeline.helpformat import (
    argument_usage,
    format_commands,
    format_help_text,
    format_parameters,
    name_values,
)

if TYPE_CHECKING:
    from typer._click import Context, HelpFormatter

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


def _prepared(params: list[Any]) -> list[Any]:
    """Parameters with their help value names and the pydantic-free reader
    (``ragprep.pipeline.coercion``); both are set once, on first use."""
    name_values(params)
    install_fast_coercion(params)
    return params


class Command(TyperCommand):
    """A ragprep command: plain help with conventional value names
    (``ragprep.pipeline.helpformat``) and values read without pydantic."""

    def get_params(self, ctx: Context) -> list[Any]:
        return _prepared(super().get_params(ctx))

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        arguments = [argument_usage(p) for p in self.get_params(ctx) if isinstance(p, TyperArgument)]
        return [self.options_metavar or "[OPTIONS]", *arguments]

    def format_help_text(self, ctx: Context, formatter: HelpFormatter) -> None:
        format_help_text(self, formatter)

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        format_parameters(self, ctx, formatter)


class Group(TyperGroup):
    """The ``ragprep`` group (and ``config``): the same help as Command's, the
    commands listed with their first paragraph, and every command ends quietly
    on a closed pipe."""

    def get_params(self, ctx: Context) -> list[Any]:
        return _prepared(super().get_params(ctx))

    def format_help_text(self, ctx: Context, formatter: HelpFormatter) -> None:
        format_help_text(self, formatter)

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        format_parameters(self, ctx, formatter)
        format_commands(self, ctx, formatter)

    def invoke(self, ctx: Context) -> object:
        # typer turns EPIPE into exit status 1; a closed pipe is the reader's
        # choice, not a failure (`ragprep export DS | head`).
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            exit_on_closed_pipe()


def exit_on_closed_pipe() -> NoReturn:
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
