"""The [pipeline] table and the whole-file Settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragprep.extract import ConfigError
from ragprep.pipeline.config import PipelineConfig, Settings

DEFAULT_TOML = Path(__file__).resolve().parents[2] / "configs" / "default.toml"


def test_default_toml_documents_exactly_the_code_defaults():
    assert Settings.load(DEFAULT_TOML) == Settings()
    assert PipelineConfig() == Settings.load(DEFAULT_TOML).pipeline


@pytest.mark.parametrize(
    "body, message",
    [
        ("[pipeline]\nworkers = -1\n", "pipeline.workers must be >= 0"),
        ("[pipeline]\nworkers = 1.5\n", "pipeline.workers must be a whole number"),
        ("[pipeline]\ntimeout_seconds = 0\n", "pipeline.timeout_seconds must be positive"),
        ("[pipeline]\nretry_error_types = 'TimeoutError'\n", "pipeline.retry_error_types must be a list"),
        ("[pipeline]\ncommit_every_documents = true\n", "pipeline.commit_every_documents must be a number"),
        ("[pipelines]\nworkers = 1\n", "unknown table [pipelines]"),
        ("[chunk]\nmax_tokenz = 1\n", "unknown setting chunk.max_tokenz"),
        ("pipeline = 3\n", "[pipeline] must be a table"),
    ],
)
def test_bad_settings_name_the_key(tmp_path, body, message):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Settings.load(path)


def test_the_key_hash_follows_what_changes_chunks_and_nothing_else():
    base = Settings()
    assert Settings(pipeline=PipelineConfig(workers=7, timeout_seconds=5)).key_hash == base.key_hash
    assert Settings(mode="stream").key_hash != base.key_hash
    assert Settings(chunk=base.chunk.replace(max_tokens=100)).key_hash != base.key_hash
    assert Settings(extract=base.extract.replace(word_space_ratio=0.2)).key_hash != base.key_hash
    # A memory bound with the same output at any value: tuning it keeps every chunk id.
    assert Settings(extract=base.extract.replace(running_hold_glyphs=0)).key_hash == base.key_hash
