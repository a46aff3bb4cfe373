"""Stage 3: corpus runs into a Parquet dataset, incremental refresh, and the ``ragprep`` CLI.

Entry points::

    from ragprep.pipeline.run import run              # ragprep run: plan, workers, commits
    from ragprep.pipeline.config import Settings      # [extract] + [chunk] + [pipeline] + mode
    from ragprep.pipeline.export import chunk_records # ragprep export: chunks as loader records
    from ragprep.pipeline.stage import read_document  # one document as Arrow, for Spark/Ray/Dask
    from ragprep.pipeline.sync import sync            # ragprep sync: a vector store in step with the dataset

Where things are: ``inputs`` (which files), ``worker`` (the process pool, limits,
``process_document``), ``records`` and ``schema`` (Arrow tables), ``dataset``
(versions on disk, atomic commits), ``progress`` (bar and JSON log lines),
``commands`` and ``cli`` (the command line), ``compare/`` (``ragprep compare``),
``sync/`` (``ragprep sync``: embedders, LanceDB and Chroma stores).
Kept free of heavy imports: the CLI loads a stage when a command needs it.
"""
