"""Stage 3: corpus runs into a Parquet dataset, incremental refresh, and the ``ragprep`` CLI.

Entry points::

    from ragprep.pipeline.run import run              # ragprep run: plan, workers, commits
    from ragprep.pipeline.config import Settings      # [extract] + [chunk] + [pipeline] + mode
    from ragprep.pipeline.export import chunk_records # ragprep export: chunks as loader records
    from ragprep.pipeline.stage import read_document  # one document as Arrow, for Spark/Ray/Dask
    from ragprep.pipeline.sync import sync            # ragprep sync: a vector store in step with the dataset

Where things are: ``inputs`` (which files), ``pool`` (the process pool and its
limits), ``worker`` (the per-document stage, ``process_document``), ``records`` and ``schema`` (Arrow tables), ``dataset``
(versions on disk, atomic commits), ``progress`` (bar and JSON log lines),
``commands`` and ``cli`` (the command line), ``compare/`` (``ragprep compare``),
``sync/`` (``ragprep sync``: embedders, LanceDB and Chroma stores).
Kept free of heavy imports: the CLI loads a stage when a command needs it.
"""

from typing import TYPE_CHECKING, Any

from ragprep.extract.lazy import lazy_exports

# What other packages (integrations/) use, resolved on first use (PEP 562) so
# that importing the package stays free of heavy imports.
_EXPORTS = {
    "ragprep.pipeline.config": ("Settings",),
    "ragprep.pipeline.export": ("chunk_records",),
    "ragprep.pipeline.stage": ("read_document",),
}

if TYPE_CHECKING:
    from ragprep.pipeline.config import Settings
    from ragprep.pipeline.export import chunk_records
    from ragprep.pipeline.stage import read_document

# Not `run`: the submodule ragprep.pipeline.run would shadow it once imported.
__all__ = ["Settings", "chunk_records", "read_document"]

_resolve = lazy_exports(__name__, _EXPORTS)


def __getattr__(name: str) -> Any:
    # A def, not `__getattr__ = _resolve`: type checkers read a module's
    # __getattr__ only when it is a function.
    return _resolve(name)
