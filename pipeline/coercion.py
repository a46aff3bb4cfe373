"""Command-line values read without pydantic, where the answer is certain.

typer (0.2x) coerces every parameter value through a pydantic ``TypeAdapter``:
importing pydantic and building one adapter per parameter is about 0.08 s CPU,
a fifth of a one-page ``ragprep extract``. Every ragprep parameter is a path,
a string, an integer, a flag, an enum choice, or a list of those, and for a value
typer would accept the result is plain: ``Path(value)``, ``value``,
``int(value)``, the enum member. :func:`install_fast_coercion` gives such
parameters a reader that returns that result through typer's own path and
choice checks, and hands every other value (a bad integer, an unknown choice,
a number out of range) to typer's own coercion, so each error message is
typer's. Types it does not know keep typer's coercion from the start.

It reads typer's internal ``RuntimeParam`` contract; when a typer release
changes that shape, nothing is installed and typer's coercion runs as before
(``tests/pipeline/test_cli_conventions.py`` holds the two equal, value by value).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

_INTEGER = re.compile(r"-?[0-9]+")


class _Decline(Exception):
    """This value is not certain: typer's own coercion reads it."""


try:
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_choice, coerce_cli_path
    from typer.core import _TyperParameter

    KNOWN_TYPER = True
except ImportError:  # another typer: its own coercion runs
    KNOWN_TYPER = False


def _path(annotation: Any, info: Any) -> Callable[[Any, Any, Any], Any] | None:
    if annotation is not Path or info.path_type is not None:
        return None

    def read(value: Any, param: Any, ctx: Any) -> Any:
        if not isinstance(value, (str, Path)) or value == "":
            raise _Decline  # typer names "" in its messages, Path("") is "."
        # A Path instance takes typer's checks (exists, dir_okay, ...) without pydantic.
        return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)

    return read


def _choice(annotation: Any, info: Any) -> Callable[[Any, Any, Any], Any] | None:
    if not (isinstance(annotation, type) and issubclass(annotation, Enum)):
        return None
    choices = tuple(annotation)

    def read(value: Any, param: Any, ctx: Any) -> Any:
        try:
            return coerce_cli_choice(value, choices=choices, case_sensitive=info.case_sensitive, ctx=ctx)
        except ValueError:
            raise _Decline from None

    return read


def _integer(annotation: Any, info: Any) -> Callable[[Any, Any, Any], Any] | None:
    if annotation is not int or info.clamp:
        return None

    def read(value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str) and _INTEGER.fullmatch(value):
            number = int(value)
        elif type(value) is int:
            number = value
        else:
            raise _Decline
        if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
            raise _Decline
        return number

    return read


def _exactly(kind: type) -> Callable[[Any, Any], Callable[[Any, Any, Any], Any] | None]:
    """The rule for an option typed `kind` (str, bool): a value already of that
    type is taken as is; anything else ("yes", "0", ... for a flag) is left to typer's rules."""

    def rule(annotation: Any, info: Any) -> Callable[[Any, Any, Any], Any] | None:
        if annotation is not kind:
            return None

        def read(value: Any, param: Any, ctx: Any) -> Any:
            if not isinstance(value, kind):
                raise _Decline
            return value

        return read

    return rule


_LEAF_RULES = (_path, _choice, _integer, _exactly(str), _exactly(bool))


def _leaf_reader(annotation: Any, info: Any) -> Callable[[Any, Any, Any], Any] | None:
    if info.parser is not None:
        return None
    for rule in _LEAF_RULES:
        reader = rule(annotation, info)
        if reader is not None:
            return reader
    return None


def _reader(annotation: Any, info: Any) -> Callable[[Any, Any, Any], Any] | None:
    """A reader for `annotation`'s values, or None when typer's coercion must run."""
    if get_origin(annotation) is not list:
        return _leaf_reader(annotation, info)
    (item,) = get_args(annotation)
    leaf = _leaf_reader(item, info)
    if leaf is None:
        return None

    def read(value: Any, param: Any, ctx: Any) -> Any:
        items = value if isinstance(value, (list, tuple)) else [value]
        return [leaf(one, param, ctx) for one in items]

    return read


if KNOWN_TYPER:

    class _FastParam(RuntimeParam):
        """Reads a certain value itself; any other value goes to typer's coercion."""

        # Set in __init__ past the frozen base (annotations only: no dataclass fields).
        _descriptor: Any
        _read: Callable[[Any, Any, Any], Any]

        def __init__(self, descriptor: Any, reader: Callable[[Any, Any, Any], Any]) -> None:
            super().__init__(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation)
            object.__setattr__(self, "_descriptor", descriptor)
            object.__setattr__(self, "_read", reader)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                return self._read(value, param, ctx)
            except _Decline:
                return build_runtime_param(self._descriptor)._coerce_value(value, param=param, ctx=ctx)


def fast_param(param: Any) -> Any | None:
    """The fast reader for a typer parameter, or None where typer's coercion stays."""
    if not KNOWN_TYPER or not isinstance(param, _TyperParameter):
        return None
    descriptor = param.type_descriptor
    if descriptor.file_annotation is not None:
        return None
    reader = _reader(descriptor.annotation, descriptor.parameter_info)
    return None if reader is None else _FastParam(descriptor, reader)


def install_fast_coercion(params: Iterable[Any]) -> None:
    """Give each parameter whose values are certain the pydantic-free reader."""
    for param in params:
        if getattr(param, "_runtime_param", True) is None:
            fast = fast_param(param)
            if fast is not None:
                param._runtime_param = fast
