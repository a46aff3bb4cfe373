from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from ragprep.chunk import ChunkConfig, config_hash
from ragprep.extract import ConfigError, ExtractConfig

DEFAULT_TOML = Path(__file__).resolve().parents[2] / "configs" / "default.toml"


def test_defaults_equal_the_default_toml():
    table = tomllib.loads(DEFAULT_TOML.read_text())["chunk"]
    assert table == dataclasses.asdict(ChunkConfig())
    assert ChunkConfig.from_toml(DEFAULT_TOML) == ChunkConfig()


def test_unknown_key_is_named(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[chunk]\nmax_token = 100\n")
    with pytest.raises(ConfigError, match=r"chunk\.max_token\b"):
        ChunkConfig.from_toml(path)


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"max_tokens": "512"}, "max_tokens"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"overlap_tokens": 512}, "overlap_tokens"),
        ({"dehyphenate": 1}, "dehyphenate"),
        ({"encoding": ""}, "encoding"),
        ({"boilerplate_min_share": 0}, "boilerplate_min_share"),
    ],
)
def test_bad_values_name_the_key(changes, key):
    with pytest.raises(ConfigError, match=rf"chunk\.{key}"):
        ChunkConfig().replace(**changes)


def test_other_tables_are_ignored_and_missing_table_gives_defaults(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[extract]\nword_space_ratio = 0.2\n[chunk]\nmax_tokens = 100\n")
    assert ChunkConfig.from_toml(path) == ChunkConfig(max_tokens=100)
    path.write_text("[extract]\n")
    assert ChunkConfig.from_toml(path) == ChunkConfig()


def test_config_hash_is_stable_and_covers_both_stages():
    base = config_hash(ChunkConfig(), ExtractConfig())
    assert base == config_hash(ChunkConfig(), ExtractConfig())
    assert len(base) == 64
    assert config_hash(ChunkConfig(overlap_tokens=10), ExtractConfig()) != base
    assert config_hash(ChunkConfig(), ExtractConfig(word_space_ratio=0.2)) != base
