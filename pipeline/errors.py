"""Every public ragprep error, importable from one place (as pikepdf's ``exceptions``).

The extract stage's errors (``RagprepError`` and the PDF and configuration
errors) are defined in ``ragprep.extract.errors``, the lowest stage, because
chunk and extract raise them too and imports run one way (pipeline -> chunk ->
extract). The pipeline's own are defined here, and the extract ones are
re-exported, so ``from ragprep.pipeline.errors import X`` works for every X.
This module imports nothing heavy: the CLI catches these before any stage loads.

Failure kinds. A document's row says why it failed in ``documents.error_type``:
the class name of the exception it raised, or one of the ``PoolFailure``
classes below when its worker could not answer at all (stopped at the time
limit, over the memory limit, dead). The pool makes those answers itself, so
they are never raised, but they are classes all the same: the class name *is*
the ``error_type``, ``pipeline.retry_error_types`` is checked against the
classes, and a new kind cannot be a string that one place spells differently.
"""

from __future__ import annotations

import builtins

from ragprep.extract.errors import (
    ConfigError,
    EncryptedPDFError,
    PageRangeError,
    PDFReadError,
    RagprepError,
)

__all__ = [
    "POOL_FAILURES",
    "ConfigError",
    "DatasetBusyError",
    "DatasetError",
    "DatasetReadError",
    "EmbedderError",
    "EncryptedPDFError",
    "GoldError",
    "InputError",
    "MassRemovalError",
    "MemoryLimitError",
    "PDFReadError",
    "PageRangeError",
    "PoolFailure",
    "RagprepError",
    "StoreError",
    "StoreUnreachableError",
    "TimeoutError",
    "WorkerDiedError",
    "WorkerStartError",
]


# --------------------------------------------------------------------------- usage and run errors


class InputError(RagprepError):
    """An input names nothing: a missing file or folder, a glob with no match,
    an unreadable @list."""


class MassRemovalError(InputError):
    """The run would remove more of the stored documents than
    ``pipeline.max_removal_share`` allows (and --allow-mass-removal was not given)."""


class DatasetError(RagprepError):
    """The output folder is not a ragprep dataset, or cannot be written."""


class DatasetBusyError(DatasetError):
    """Another run holds the dataset's lock."""


class DatasetReadError(RagprepError):
    """A --dataset path that is not a ragprep dataset of the mode it is given for."""


class GoldError(RagprepError):
    """The gold folder cannot be used (missing, or a file is not UTF-8 text)."""


class WorkerStartError(RagprepError):
    """Worker processes cannot start, so no document can be read."""


class StoreError(RagprepError):
    """A store URI names nothing usable, or the store refused a write."""


class StoreUnreachableError(StoreError):
    """The store's server does not answer."""


class EmbedderError(RagprepError):
    """An embedder spec names nothing loadable, or the embedder failed."""


# --------------------------------------------------------------------------- failure kinds


class PoolFailure(RagprepError):
    """A document whose worker could not answer; the message says what happened
    and which setting to change. Subclasses are the kinds (their names are the
    documents' ``error_type``)."""

    @classmethod
    def error_type(cls) -> str:
        return cls.__name__


# The name predates the class (datasets and configs hold "TimeoutError"), so it
# shadows the builtin here; it subclasses it, so `except TimeoutError` still holds.
class TimeoutError(PoolFailure, builtins.TimeoutError):  # noqa: A001 - the name is the error_type (above)
    """The document took longer than ``pipeline.timeout_seconds``; its worker was stopped."""


class MemoryLimitError(PoolFailure):
    """The document needed more than ``pipeline.max_memory_mb``; its worker retired."""


class WorkerDiedError(PoolFailure):
    """The worker process died while reading the document (a crash in a C library,
    the system's out-of-memory killer, a lost Ray node)."""


# Transient by nature: the default of pipeline.retry_error_types.
POOL_FAILURES: tuple[type[PoolFailure], ...] = (TimeoutError, MemoryLimitError, WorkerDiedError)
