"""How ``ragprep ... --help`` reads: plain text, reflowed to the terminal.

typer's Rich help (panels, Markdown) imports rich.markdown, markdown-it and
typer's Rich layer before printing a line: about 0.16 s of ``run --help``'s
0.43 s CPU. This renders the same sections (usage, the command's text,
arguments, options, commands) with click's plain formatter, and names values
the way command-line tools do: ``PATH``, ``INTEGER``, ``[auto|stream]``,
``INPUTS...``, where typer would print ``<path>``, ``<int range>`` or
``<list[str]>``. A flag shows no value name: it takes none.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

from typer.core import TyperArgument, TyperOption

# Help is at most this wide on a wide terminal: longer lines are hard to read.
MAX_HELP_WIDTH = 120
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def plain_text(text: str) -> str:
    """Help text without Markdown code marks: `ragprep config show` -> ragprep config show."""
    return _CODE_SPAN.sub(r"\1", text)


def _choices_name(annotation: Any) -> str | None:
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "[" + "|".join(str(member.value) for member in annotation) + "]"
    return None


def _path_name(param: Any) -> str:
    info = param.type_descriptor.parameter_info
    if not info.dir_okay:
        return "FILE"
    if not info.file_okay:
        return "DIR"
    return "PATH"


def value_name(param: Any) -> str:
    """What an option's value is called in help: PATH, INTEGER, TEXT, [a|b|c]."""
    annotation = param.type_descriptor.annotation
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    choices = _choices_name(annotation)
    if choices is not None:
        return choices
    if isinstance(annotation, type) and issubclass(annotation, Path):
        return _path_name(param)
    return {int: "INTEGER", float: "NUMBER", str: "TEXT"}.get(annotation, "VALUE")


def name_values(params: Iterable[Any]) -> None:
    """Set each parameter's value name (its metavar), unless the code chose one."""
    for param in params:
        if param.metavar is not None:
            continue
        if isinstance(param, TyperArgument):
            param.metavar = param.name.upper()
        elif isinstance(param, TyperOption):
            flag = param.is_flag and not param.count
            param.metavar = "" if flag else value_name(param)


def argument_usage(param: Any) -> str:
    """An argument in the usage line: FILE, [INPUTS]..., DATASET."""
    name = param.metavar or param.name.upper()
    piece = name if param.required else f"[{name}]"
    return piece + ("..." if param.nargs != 1 else "")


def _argument_row(param: Any, ctx: Any) -> tuple[str, str] | None:
    record = param.get_help_record(ctx)
    if record is None:
        return None
    name = (param.metavar or param.name.upper()) + ("..." if param.nargs != 1 else "")
    return name, plain_text(record[1])


def _option_row(param: Any, ctx: Any) -> tuple[str, str] | None:
    record = param.get_help_record(ctx)
    if record is None:
        return None
    return record[0], plain_text(record[1])


def format_parameters(command: Any, ctx: Any, formatter: Any) -> None:
    """The Arguments and Options sections of `command`'s help."""
    params = command.get_params(ctx)
    arguments = [row for p in params if isinstance(p, TyperArgument) and (row := _argument_row(p, ctx))]
    options = [row for p in params if not isinstance(p, TyperArgument) and (row := _option_row(p, ctx))]
    for title, rows in (("Arguments", arguments), ("Options", options)):
        if rows:
            with formatter.section(title):
                formatter.write_dl(rows)


def format_help_text(command: Any, formatter: Any) -> None:
    """The command's own text, paragraphs reflowed (click's rules: ``\\b`` keeps a block as is)."""
    text = inspect.cleandoc(command.help or "").partition("\f")[0]
    if text:
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(plain_text(text))


def first_paragraph(command: Any) -> str:
    """What a group's command list says of a command: its first paragraph, in full."""
    text = command.short_help or inspect.cleandoc(command.help or "").partition("\f")[0]
    return plain_text(" ".join(text.split("\n\n")[0].split()))


def format_commands(group: Any, ctx: Any, formatter: Any) -> None:
    """A group's Commands section: every visible command with its first paragraph."""
    rows = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None and not command.hidden:
            rows.append((name, first_paragraph(command)))
    if rows:
        with formatter.section("Commands"):
            formatter.write_dl(rows)
