"""Stage 3: corpus runs, Parquet, incremental refresh, and the ``ragprep`` CLI.

The CLI (``ragprep.pipeline.cli``) exposes the extract stage
(``ragprep extract``, ``ragprep glyphs``); corpus runs are issue 6.
"""
