"""Command-line conventions every `ragprep` command keeps: --version, help that
shows what a flag takes, --workers 0, a reason on stderr for an empty page,
a quiet end on a closed pipe, and a start that loads no stage it does not need."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from pipelinedocs import report_pdf
from typer.testing import CliRunner

from ragprep.pipeline.cli import app

runner = CliRunner()
COMMANDS = (["extract"], ["glyphs"], ["run"], ["compare"], ["export"], ["config", "show"])
# What `ragprep --help` and a small extract have no use for.
HEAVY = ("numpy", "pikepdf", "pyarrow", "matplotlib", "tiktoken", "fontTools", "pdfminer", "langchain_text_splitters")
# What typer would load to render Rich help or read values: none of it is needed.
CLI_HEAVY = ("pydantic", "pydantic_core", "rich", "markdown_it")


def help_text(*command: str) -> str:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_version_prints_the_installed_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"ragprep {metadata.version('ragprep')}\n"


@pytest.mark.parametrize("command", [[]] + list(COMMANDS), ids=lambda c: " ".join(c) or "ragprep")
def test_help_shows_no_value_placeholder_for_flags_and_no_raw_control_characters(command):
    text = help_text(*command)
    assert "<bool>" not in text
    assert not any(ord(ch) < 32 and ch not in "\n" for ch in text), repr(text)


@pytest.mark.parametrize("command", [[]] + list(COMMANDS), ids=lambda c: " ".join(c) or "ragprep")
def test_help_is_plain_text_with_conventional_value_names(command):
    text = help_text(*command)
    # typer's placeholders (<list[str]>, <int range>, {file}) and Markdown code marks
    for mark in ("<list[", "<str>", "<path>", "<file>", "<int", "{file}", "{inputs}", "`", "╭", "│"):
        assert mark not in text, (mark, text)


def test_help_names_values_as_command_line_tools_do():
    run = " ".join(help_text("run").split())
    assert "Usage: ragprep run [OPTIONS] [INPUTS]..." in run
    for shown in ("-o, --out PATH", "--mode [stream|structure|layout|auto]", "-j, --workers INTEGER",
                  "--ray-address TEXT", "INPUTS... PDF files", "[default: auto]"):  # fmt: skip
        assert shown in run, shown
    extract = " ".join(help_text("extract").split())
    assert "Usage: ragprep extract [OPTIONS] FILE " in extract and "FILE The PDF file to read. [required]" in extract
    assert "Usage: ragprep compare [OPTIONS] INPUTS..." in help_text("compare")
    root = " ".join(help_text().split())
    # A group lists each command with its whole first paragraph, not cut short.
    assert "delete those removed, in one idempotent pass (a killed sync is finished by the next one)." in root


@pytest.mark.parametrize("columns", [60, 100, 200])
def test_help_reflows_to_the_terminal_up_to_120_columns(columns):
    # A real process: click's test runner pins help to 80 columns.
    done = subprocess.run(_ragprep("run", "--help"), capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": str(columns)})  # fmt: skip
    widths = [len(line) for line in done.stdout.splitlines()]
    assert max(widths) <= min(columns, 120)
    assert max(widths) > min(columns, 120) - 12  # the width is used, not a fixed 80


def test_separator_help_shows_the_form_feed_escaped():
    line = next(ln for ln in help_text("extract").splitlines() if "--separator" in ln or "default: (\\f)" in ln)
    assert "\\f" in help_text("extract") and line


def test_config_show_help_does_not_point_at_itself():
    text = " ".join(help_text("config", "show").split())
    config_help = text[text.index("--config") : text.index("--mode")]
    assert "config show" not in config_help
    assert "[extract]" in config_help


def test_workers_zero_means_one_per_core(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.pdf").write_bytes(report_pdf("Alpha"))
    result = runner.invoke(app, ["run", str(tmp_path / "in"), "--out", str(tmp_path / "ds"), "--workers", "0",
                                 "--format", "json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["processed"] == 1
    assert runner.invoke(app, ["run", str(tmp_path / "in"), "--out", str(tmp_path / "ds"), "-j", "-1"]).exit_code == 2


def test_a_value_after_a_flag_is_an_input_and_the_error_says_flags_take_none(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.pdf").write_bytes(report_pdf("Alpha"))
    result = runner.invoke(app, ["run", str(tmp_path / "in"), "--keep-missing", "true", "--out", str(tmp_path / "ds")])
    assert result.exit_code == 2
    assert "true: no such file or folder (flags such as --keep-missing take no value" in result.stderr
    assert not (tmp_path / "ds").exists()  # stopped before anything was written
    # A missing input of another name gets no such hint.
    other = runner.invoke(app, ["run", str(tmp_path / "nowhere"), "--out", str(tmp_path / "ds")])
    assert other.exit_code == 2 and "flags such as" not in other.stderr


def test_structure_mode_on_an_untagged_file_says_why_on_stderr(tmp_path):
    path = tmp_path / "untagged.pdf"
    path.write_bytes(report_pdf("Untagged", pages=2))
    result = runner.invoke(app, ["extract", str(path), "--mode", "structure"])
    assert result.exit_code == 0
    assert result.stdout == "\f"  # two empty pages
    assert result.stderr == "ragprep: pages 1, 2 unavailable: the document has no structure tree (/StructTreeRoot)\n"
    # json carries the reason in its own field: nothing on stderr then
    result = runner.invoke(app, ["extract", str(path), "--mode", "structure", "--format", "json"])
    assert result.stderr == ""
    assert {p["reason"] for p in json.loads(result.stdout)["pages"]} == {
        "the document has no structure tree (/StructTreeRoot)"
    }


def _ragprep(*args: str) -> list[str]:
    return [sys.executable, "-c", "from ragprep.pipeline.cli import main; main()", *args]


def _read_a_line_then_close(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does
    stderr = proc.stderr.read()
    proc.wait(timeout=120)
    return subprocess.CompletedProcess(args, proc.returncode, first, stderr)


def test_a_closed_pipe_ends_extract_and_export_quietly(tmp_path):
    # Far more than a pipe buffer (64 KiB), so the writer meets the closed pipe.
    path = tmp_path / "long.pdf"
    path.write_bytes(report_pdf("Long report", pages=80, lines_per_page=30))
    done = _read_a_line_then_close(_ragprep("extract", str(path), "--mode", "stream", "--format", "json"))
    assert done.stdout and (done.returncode, done.stderr) == (0, b"")

    built = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "ds"), "--workers", "1"])
    assert built.exit_code == 0, built.output
    done = _read_a_line_then_close(_ragprep("export", str(tmp_path / "ds")))
    assert json.loads(done.stdout)["page_content"]
    assert (done.returncode, done.stderr) == (0, b"")


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)), file=sys.__stderr__)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    return {name.split(".")[0] for name in done.stderr.split()}


def test_help_imports_no_stage():
    loaded = _modules_after(
        "import sys\nfrom ragprep.pipeline.cli import main\nsys.argv = ['ragprep', 'run', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    assert "typer" in loaded
    assert not loaded & set(HEAVY + CLI_HEAVY)


def test_a_one_page_extract_loads_no_chunking_dataset_or_plotting_library(tmp_path):
    path = tmp_path / "one.pdf"
    path.write_bytes(report_pdf("One", pages=1))
    loaded = _modules_after(
        f"import sys\nfrom ragprep.pipeline.cli import main\nsys.argv = ['ragprep', 'extract', {str(path)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    assert "pikepdf" in loaded  # it did read the file
    assert not loaded & {"pyarrow", "matplotlib", "tiktoken", "langchain_text_splitters", *CLI_HEAVY}
