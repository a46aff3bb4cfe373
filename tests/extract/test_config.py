"""Extraction configuration: documented defaults and clear errors."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from ragprep.extract import ConfigError, ExtractConfig

DEFAULT_TOML = Path(__file__).resolve().parents[2] / "configs" / "default.toml"


def test_default_toml_documents_exactly_the_code_defaults():
    table = tomllib.loads(DEFAULT_TOML.read_text())["extract"]
    assert table == dataclasses.asdict(ExtractConfig())
    assert ExtractConfig.from_toml(DEFAULT_TOML) == ExtractConfig()


def test_thresholds_have_the_design_defaults():
    config = ExtractConfig()
    assert (config.word_space_ratio, config.line_break_ratio) == (0.15, 0.5)


def test_toml_overrides_and_keeps_other_defaults(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[extract]\nline_break_ratio = 0.6\n[chunk]\nanything = 1\n")
    config = ExtractConfig.from_toml(path)
    assert config.line_break_ratio == 0.6
    assert config.word_space_ratio == 0.15


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[extract]\nword_space = 0.2\n", "unknown setting extract.word_space"),
        ("[extract]\nmax_form_depth = 'deep'\n", "extract.max_form_depth must be a number"),
        ("[extract]\nmax_form_depth = 2.5\n", "extract.max_form_depth must be a whole number"),
        ("[extract]\nline_break_ratio = -1\n", "extract.line_break_ratio must be positive"),
        ("[extract\n", "not valid TOML"),
        ("[extract]\nrunning_artifacts = 'yes'\n", "extract.running_artifacts must be true or false"),
        ("[extract]\nrunning_band = 0.6\n", "extract.running_band must be at most 0.5"),
        ("[extract]\nrunning_band = 0\n", "extract.running_band must be positive"),
        ("[extract]\nrunning_min_share = 1.5\n", "extract.running_min_share must be at most 1.0"),
        ("[extract]\nrunning_min_pages = 2.5\n", "extract.running_min_pages must be a whole number"),
        ("[extract]\nrunning_pages = 3\n", "unknown setting extract.running_pages"),
    ],
)
def test_bad_config_names_the_key(tmp_path, body, message):
    path = tmp_path / "c.toml"
    path.write_text(body)
    with pytest.raises(ConfigError, match=message):
        ExtractConfig.from_toml(path)


def test_missing_config_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config"):
        ExtractConfig.from_toml(tmp_path / "absent.toml")


def test_running_artifact_settings_have_their_defaults_and_read_from_toml(tmp_path):
    config = ExtractConfig()
    assert (config.running_artifacts, config.running_band, config.running_min_share, config.running_min_pages) == (
        True, 0.1, 0.5, 3,
    )  # fmt: skip
    path = tmp_path / "c.toml"
    path.write_text("[extract]\nrunning_artifacts = false\nrunning_band = 0.15\nrunning_min_pages = 4\n")
    config = ExtractConfig.from_toml(path)
    assert (config.running_artifacts, config.running_band, config.running_min_pages) == (False, 0.15, 4)
