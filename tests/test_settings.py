"""One validator for every stage's settings: each key is checked at load, and
the error names it (issue 12, item 6)."""

from __future__ import annotations

import dataclasses
import enum
import math
import typing
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragprep.chunk import ChunkConfig
from ragprep.extract import ConfigError, ExtractConfig
from ragprep.extract.settings import check_settings, setting
from ragprep.pipeline.cli import app
from ragprep.pipeline.config import PipelineConfig, Settings, SyncConfig

STAGES = {"extract": ExtractConfig, "chunk": ChunkConfig, "pipeline": PipelineConfig, "sync": SyncConfig}
runner = CliRunner()


def wrong_values(hint: object) -> list[object]:
    """Values of the wrong kind for a field declared as `hint`."""
    if hint is bool:
        return [1, "yes"]
    if hint is int:
        return [True, 2.5, "3"]
    if hint is float:
        return [False, "0.5", math.inf, -math.inf, math.nan]
    if hint is str:
        return [3, True]
    if typing.get_origin(hint) is tuple:
        return ["TimeoutError", [1]]
    raise AssertionError(f"no wrong values for {hint}")


FIELDS = [
    (stage, f.name, value)
    for stage, cls in STAGES.items()
    for f in dataclasses.fields(cls)
    for value in wrong_values(typing.get_type_hints(cls)[f.name])
]


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


@pytest.mark.parametrize("stage, key, value", FIELDS, ids=[f"{s}.{k}={v!r}" for s, k, v in FIELDS])
def test_every_key_rejects_a_value_of_the_wrong_kind_and_names_the_key(tmp_path, stage, key, value):
    path = tmp_path / "c.toml"
    path.write_text(f"[{stage}]\n{key} = {toml_value(value)}\n")
    with pytest.raises(ConfigError, match=rf"^{stage}\.{key}\b"):
        Settings.load(path)


@pytest.mark.parametrize(
    "body, message",
    [
        ("[pipeline]\ntimeout_seconds = inf\n", "pipeline.timeout_seconds must be a finite number"),
        ("[pipeline]\ntimeout_seconds = nan\n", "pipeline.timeout_seconds must be a finite number"),
        ("[extract]\nline_break_ratio = nan\n", "extract.line_break_ratio must be a finite number"),
        ("[pipeline]\nretry_error_types = ['NoSuchError']\n", "pipeline.retry_error_types names no error type"),
        ("[chunk]\nencoding = 'no_such_encoding'\n", "chunk.encoding 'no_such_encoding' is not a tiktoken encoding"),
        ("[pipeline]\nmax_removal_share = 1.5\n", "pipeline.max_removal_share must be at most 1.0"),
        ("[pipeline]\nread_timeout_seconds = 0\n", "pipeline.read_timeout_seconds must be positive"),
        ("[extract]\nauto_max_untagged_share = 2\n", "extract.auto_max_untagged_share must be at most 1.0"),
        ("[chunk]\nencoding = ''\n", "chunk.encoding '' is not a tiktoken encoding"),
        ("[sync]\nmodes = ['auto']\n", "sync.modes has an unknown mode 'auto'"),
    ],
)
def test_values_outside_their_domain_name_the_key(tmp_path, body, message):
    path = tmp_path / "c.toml"
    path.write_text(body)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        Settings.load(path)


def test_known_error_types_and_ints_for_floats_are_accepted(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[pipeline]\nretry_error_types = ['PDFReadError', 'OSError', 'WorkerDiedError']\ntimeout_seconds = 5\n")
    pipeline = Settings.load(path).pipeline
    assert pipeline.retry_error_types == ("PDFReadError", "OSError", "WorkerDiedError")
    assert pipeline.timeout_seconds == 5.0 and isinstance(pipeline.timeout_seconds, float)


def test_a_config_file_that_is_not_utf8_is_a_config_error(tmp_path):
    path = tmp_path / "c.toml"
    path.write_bytes(b"[chunk]\n# caf\xe9 in Latin-1\nmax_tokens = 100\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        Settings.load(path)
    result = runner.invoke(app, ["config", "show", "--config", str(path)])
    assert result.exit_code == 2 and "not UTF-8" in result.output


def test_extract_config_checks_every_table(tmp_path):
    pdf = Path(__file__).resolve().parents[1] / "pipeline" / "samples" / "untagged-report.pdf"
    for body, key in [
        ("[chunk]\nencoding = 'no_such_encoding'\n", "chunk.encoding"),
        ("[pipeline]\nworkerz = 2\n", "pipeline.workerz"),
        ("[pipeline]\ntimeout_seconds = inf\n", "pipeline.timeout_seconds"),
    ]:
        path = tmp_path / "c.toml"
        path.write_text(body)
        result = runner.invoke(app, ["extract", str(pdf), "--config", str(path)])
        assert result.exit_code == 2, body
        assert key in result.output


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Probe:
    """Field kinds no stage uses yet, declared as a stage would."""

    flag: bool | None = None
    limit: int | None = setting(None, ge=1)
    colour: Colour = Colour.RED
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_settings(self, "probe")


def test_optional_enum_and_tuple_fields_follow_their_type_hints():
    assert Probe(flag=None).flag is None and Probe(flag=True).flag is True
    with pytest.raises(ConfigError, match="probe.flag must be true or false"):
        Probe(flag=1)  # type: ignore[arg-type]
    assert Probe(limit=3).limit == 3
    with pytest.raises(ConfigError, match="probe.limit must be >= 1"):
        Probe(limit=0)
    assert Probe(colour="blue").colour is Colour.BLUE  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="probe.colour must be one of red, blue"):
        Probe(colour="green")  # type: ignore[arg-type]
    assert Probe(names=["a", "b"]).names == ("a", "b")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"probe.names\[1\] must be a string"):
        Probe(names=["a", 2])  # type: ignore[list-item]
