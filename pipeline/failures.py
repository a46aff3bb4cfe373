"""Failure kinds a run's error rows carry besides the exceptions documents raise.

The worker pool makes these answers itself (a killed, dead or over-memory
worker); ``pipeline.retry_error_types`` is checked against them and against
the exception classes a document can raise, so a typo there is a usage error
instead of a setting that silently never matches.
"""

from __future__ import annotations

import builtins

from ragprep.extract.errors import RagprepError

TIMEOUT_ERROR = "TimeoutError"
MEMORY_LIMIT_ERROR = "MemoryLimitError"
WORKER_DIED_ERROR = "WorkerDiedError"
POOL_FAILURES = (TIMEOUT_ERROR, MEMORY_LIMIT_ERROR, WORKER_DIED_ERROR)


def _subclass_names(cls: type) -> set[str]:
    names = {cls.__name__}
    for sub in cls.__subclasses__():
        names |= _subclass_names(sub)
    return names


def error_type_problem(name: str) -> str | None:
    """Why `name` can never be a documents.error_type, or None: it must name
    a pool failure, a built-in exception or a ragprep error."""
    builtin = getattr(builtins, name, None)
    if name in POOL_FAILURES or (isinstance(builtin, type) and issubclass(builtin, BaseException)):
        return None
    if name in _subclass_names(RagprepError):
        return None
    known = ", ".join(POOL_FAILURES)
    return f"names no error type a document can fail with: {name!r} (the pool's own: {known}; or an exception class name)"
