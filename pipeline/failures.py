"""Which names a ``documents.error_type`` can hold, for checking settings.

A row's error type is the class name of the exception its document raised, or
of the ``PoolFailure`` its worker's pool answered with (ragprep.pipeline.errors);
``pipeline.retry_error_types`` is checked against them, so a typo there is a
usage error instead of a setting that silently never matches.
"""

from __future__ import annotations

import builtins

from ragprep.pipeline.errors import POOL_FAILURES, RagprepError

# The default of pipeline.retry_error_types: the pool's failure kinds, transient by nature.
POOL_FAILURE_NAMES: tuple[str, ...] = tuple(kind.error_type() for kind in POOL_FAILURES)


def _subclass_names(cls: type[BaseException]) -> set[str]:
    names = {cls.__name__}
    for sub in cls.__subclasses__():
        names |= _subclass_names(sub)
    return names


def error_type_problem(name: str) -> str | None:
    """Why `name` can never be a documents.error_type, or None: it must name
    a pool failure, a built-in exception or a ragprep error."""
    builtin = getattr(builtins, name, None)
    if isinstance(builtin, type) and issubclass(builtin, BaseException):
        return None
    if name in _subclass_names(RagprepError):
        return None
    known = ", ".join(POOL_FAILURE_NAMES)
    return f"names no error type a document can fail with: {name!r} (the pool's own: {known}; or an exception class name)"
