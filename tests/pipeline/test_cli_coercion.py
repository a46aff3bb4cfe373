"""The CLI reads values without pydantic (ragprep.pipeline.coercion) exactly as
typer's own coercion does: same value, or the same error, for every parameter of
every command and for valid and invalid inputs alike."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
import typer.main

from ragprep.pipeline.cli import app
from ragprep.pipeline.coercion import KNOWN_TYPER, fast_param

if not KNOWN_TYPER:
    pytest.skip("this typer has no pydantic coercion layer to stand in for", allow_module_level=True)

from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param


def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = [(path, command)]
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, (*path, name))
    return found


ROOT = typer.main.get_command(app)
PARAMS = [
    (" ".join(path) or "ragprep", command, param)
    for path, command in _commands(ROOT)
    for param in command.get_params(Context(command))
]


def _samples(annotation: Any, tmp_path: Path) -> list[Any]:
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        one = _samples(item, tmp_path)
        return [tuple(one[:2]), (one[-1],), one[0]]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        members = list(annotation)
        return [*members, *(str(m.value) for m in members), str(members[0].value).upper(), "bogus", ""]
    if annotation is Path:
        (tmp_path / "a.pdf").write_bytes(b"%PDF-1.4")
        return ["a.pdf", str(tmp_path / "a.pdf"), str(tmp_path), "", "~/x.pdf", tmp_path / "a.pdf"]
    if annotation is int:
        return ["3", "0", "1", "-1", "007", "+4", " 5", "1_000", "1.5", "x", "", 7, 0]
    if annotation is bool:
        return [True, False, "true", "0"]
    return ["abc", "", "1,3-5", " padded "]


def _outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        result = runtime.coerce(value, param=param, ctx=ctx)
    except BadParameter as error:
        return "error", error.format_message()
    return type(result).__name__, result


@pytest.mark.parametrize(("where", "command", "param"), PARAMS, ids=[f"{w} {p.name}" for w, _, p in PARAMS])
def test_the_fast_reader_matches_typers_coercion(where, command, param, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fast = fast_param(param)
    assert fast is not None, f"{where} {param.name}: no fast reader, so typer would load pydantic"
    ctx = Context(command)
    own = build_runtime_param(param.type_descriptor)
    for value in _samples(param.type_descriptor.annotation, tmp_path):
        assert _outcome(fast, value, param, ctx) == _outcome(own, value, param, ctx), (where, param.name, value)


def test_every_parameter_is_checked():
    # The walk reached every command (root, config show included) and their options.
    names = {(where, param.name) for where, _, param in PARAMS}
    assert {("ragprep", "version"), ("run", "workers"), ("config show", "mode"), ("extract", "file")} <= names
