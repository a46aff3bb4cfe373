"""Configuration tables: reading TOML, and the one validator every stage's settings use.

Each stage's settings are a frozen dataclass (``ExtractConfig``, ``ChunkConfig``,
``PipelineConfig``). What a value may be is declared once, on the field: its
type hint says the kind (``bool``, ``int``, ``float``, ``str``, ``tuple[str, ...]``,
an ``Enum``, ``X | None``) and ``setting(...)`` adds bounds and an optional
check in the field's metadata. ``check_settings`` reads both through
``typing.get_type_hints`` (real types, not the strings ``from __future__ import
annotations`` leaves in ``Field.type``), so a new field is validated the moment
it is declared, and every error names its key (``chunk.max_tokens must be
positive, got 0``).

Why this lives in ``extract/``: imports run one way, pipeline -> chunk ->
extract, and the top-level layout is fixed, so the lowest stage is the only
place all three stages can import shared infrastructure from (as they do its
errors). It knows nothing of any stage's settings.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import tomllib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ragprep.extract.errors import ConfigError

_BOUNDS = "ragprep.bounds"
_CHECK = "ragprep.check"

# A check returns why a (well-typed) value is not allowed, or None.
Check = Callable[[Any], "str | None"]


@dataclass(frozen=True)
class Bounds:
    """Closed (ge, le) or open (gt, lt) limits of a number."""

    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None

    def violation(self, value: float) -> str | None:
        if self.gt is not None and not value > self.gt:
            return "positive" if self.gt == 0 else f"> {self.gt!r}"
        if self.ge is not None and not value >= self.ge:
            return f">= {self.ge!r}"
        if self.lt is not None and not value < self.lt:
            return f"< {self.lt!r}"
        if self.le is not None and not value <= self.le:
            return f"at most {self.le!r}"
        return None


def setting(
    default: Any,
    *,
    gt: float | None = None,
    ge: float | None = None,
    lt: float | None = None,
    le: float | None = None,
    check: Check | None = None,
) -> Any:
    """A settings field with its default, bounds and an optional check."""
    metadata = {_BOUNDS: Bounds(gt, ge, lt, le), _CHECK: check}
    if isinstance(default, (list, dict, set)):
        raise TypeError("settings defaults are immutable: use a tuple")
    return dataclasses.field(default=default, metadata=metadata)


def check_settings(instance: Any, prefix: str) -> None:
    """Validate every field of a settings dataclass against its type hint and
    metadata; normalise in place (a TOML list becomes a tuple, an int for a
    float a float). ConfigError naming ``prefix.key`` on the first bad value."""
    hints = _type_hints(type(instance))  # type: ignore[arg-type]  # a class is hashable; mypy reads type.__hash__ unbound
    for f in fields(instance):
        key = f"{prefix}.{f.name}"
        value = _coerce(hints[f.name], getattr(instance, f.name), key)
        bounds: Bounds | None = f.metadata.get(_BOUNDS)
        if bounds is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            problem = bounds.violation(value)
            if problem is not None:
                raise ConfigError(f"{key} must be {problem}, got {value!r}")
        check: Check | None = f.metadata.get(_CHECK)
        if check is not None and value is not None:
            problem = check(value)
            if problem is not None:
                raise ConfigError(f"{key} {problem}")
        object.__setattr__(instance, f.name, value)


@functools.cache
def _type_hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _coerce(hint: Any, value: Any, key: str) -> Any:
    """`value` as the type `hint` declares, or a ConfigError naming `key`."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        real = [o for o in options if o is not type(None)]
        if len(real) != 1:
            raise TypeError(f"{key}: settings support one type or that type | None, not {hint}")
        return _coerce(real[0], value, key)
    if origin is tuple:
        item, *rest = typing.get_args(hint)
        if rest != [Ellipsis]:
            raise TypeError(f"{key}: a tuple setting is tuple[X, ...], not {hint}")
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{key} must be a list, got {value!r}")
        return tuple(_coerce(item, v, f"{key}[{i}]") for i, v in enumerate(value))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            choices = ", ".join(str(m.value) for m in hint)
            raise ConfigError(f"{key} must be one of {choices}, got {value!r}") from None
    rule = _SCALARS.get(hint)
    if rule is None:
        raise TypeError(f"{key}: no validation rule for settings of type {hint}")
    return rule(value, key)


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    return value


def _number(value: Any, key: str) -> int | float:
    # TOML has no bool-as-number; Python's True == 1 must not pass for a count.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{key} must be a number, got {value!r}")
    return value


def _int(value: Any, key: str) -> int:
    number = _number(value, key)
    if not isinstance(number, int):
        raise ConfigError(f"{key} must be a whole number, got {value!r}")
    return number


def _float(value: Any, key: str) -> float:
    number = float(_number(value, key))
    # inf overflows timers and sleeps; nan compares false with every bound and so disables it.
    if not math.isfinite(number):
        raise ConfigError(f"{key} must be a finite number, got {value!r}")
    return number


def _str(value: Any, key: str) -> str:
    # "" is a value some settings give a meaning ("no folder"); a check rejects it where not.
    if not isinstance(value, str):
        raise ConfigError(f"{key} must be a string, got {value!r}")
    return value


_SCALARS: dict[Any, Callable[[Any, str], Any]] = {bool: _bool, int: _int, float: _float, str: _str}


def check_known_keys(config_class: type, table: Mapping[str, Any], prefix: str) -> None:
    """ConfigError naming the first key that is not a field of `config_class`."""
    known = {f.name for f in fields(config_class)}
    for key in table:
        if key not in known:
            raise ConfigError(f"unknown setting {prefix}.{key}; known: {', '.join(sorted(known))}")


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML file's content, or a ConfigError saying what is wrong with it."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config {path} is not UTF-8 text (byte {exc.start}): TOML files are UTF-8") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from exc


def read_toml_table(path: str | Path, name: str) -> dict[str, Any]:
    """The `[name]` table of a TOML file ({} when absent), or a ConfigError
    saying what is wrong with the file."""
    data = read_toml(path)
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"config {path}: [{name}] must be a table")
    return table
