"""Stage 3: corpus runs, Parquet, incremental refresh, and the ``ragprep`` CLI.

For now the CLI (``ragprep.pipeline.cli``) exposes the extract stage
(``ragprep extract``, ``ragprep glyphs``); corpus runs are issue 6.
"""
