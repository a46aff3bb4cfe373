"""Building many frozen dataclass instances fast.

A page has thousands of lines and blocks, a structure tree thousands of
elements, each a frozen dataclass. The ``__init__`` dataclasses generate for
frozen classes sets every field through ``object.__setattr__``, which made
building them a tenth of stream mode's time and a fifth of reading a
structure tree. ``frozen_instance`` fills the instance's ``__dict__`` at
once instead (a class with slots, which has none, has its fields set one
by one as its ``__init__`` would): the result is the instance ``cls(**values)`` gives (same
fields, eq, hash, repr, pickling, ``dataclasses.replace``), provided
`values` names every field (no defaults are applied, and no __post_init__
runs, so it is only for classes without one).

``frozen_rows`` builds a whole column-wise table of them at once (in the
compiled core where it runs: no Python call per row). The classes built by
the ten thousand per document (Block, TextLine, TableCell) keep
their fields in slots: the core stores each value straight into its slot,
where setting a field of a class with a __dict__ costs an attribute lookup
and a keyed insert into values it allocates per row (``weakref_slot``
keeps such rows weakly referable, as rows with a __dict__ are).

``paused_collection`` keeps the cyclic garbage collector out of such a build:
each 700 allocations start a collection that walks every young object, and
the rows being built all survive; a fifth of reading a structure tree went
there. The rows hold no cycles, so nothing waits longer to be freed.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ragprep.extract.native import compiled_core

_T = TypeVar("_T")


def frozen_instance(cls: type[_T], values: dict[str, Any]) -> _T:
    """An instance of frozen dataclass `cls` whose fields are `values` (all of them)."""
    instance = object.__new__(cls)
    try:
        instance.__dict__.update(values)
    except AttributeError:  # slots, no __dict__: each field set as the dataclass's __init__ sets it
        for name, value in values.items():
            object.__setattr__(instance, name, value)
    return instance


def frozen_replace(instance: _T, **changes: Any) -> _T:
    """``dataclasses.replace(instance, **changes)`` for a frozen dataclass
    with a ``__dict__`` (no slots) whose fields are all set by its __init__
    and that has no __post_init__: its values copied at once (frozen_instance),
    not passed one by one through ``__init__`` and its ``object.__setattr__``
    per field (a fifth of the cost, where a document's pages and tables are
    copied per page). `changes` names fields only, as replace's do."""
    values = instance.__dict__
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(instance).__name__} has no field {', '.join(sorted(unknown))}")
    return frozen_instance(type(instance), {**values, **changes})


def frozen_rows(cls: type[_T], columns: dict[str, list[Any]]) -> tuple[_T, ...]:
    """``frozen_instance`` of every row of `columns` (one list per field of
    `cls`, all of one length): row k's fields are the columns' k-th items."""
    core = compiled_core()
    if core is not None:
        rows: tuple[_T, ...] = core.frozen_rows(cls, tuple(columns), tuple(columns.values()))
        return rows
    names = tuple(columns)
    return tuple(frozen_instance(cls, dict(zip(names, row, strict=True))) for row in zip(*columns.values(), strict=True))


@contextmanager
def paused_collection() -> Iterator[None]:
    """No cyclic garbage collection inside the block; the collector's state
    (on or off) is as before afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
