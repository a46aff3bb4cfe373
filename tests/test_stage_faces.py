"""Stages meet at their faces: a stage imports another stage only through that
stage's package (its __init__ exports) or its shared infrastructure modules,
never through its internal modules, and imports run one way
(integrations -> pipeline -> chunk -> extract)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("extract", "chunk", "pipeline", "integrations")
# The lower stages a stage may import, in the one direction imports run.
BELOW = {"extract": (), "chunk": ("extract",), "pipeline": ("extract", "chunk"), "integrations": ("extract", "chunk", "pipeline")}
# Modules other than a stage's package that every stage may import: the one
# errors module, the settings validator and the lazy exports of the stage
# packages (extract/settings.py says why they live in the lowest stage), and
# the pipeline's errors module.
SHARED = {"ragprep.extract.errors", "ragprep.extract.settings", "ragprep.extract.lazy", "ragprep.pipeline.errors"}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
    return out


def _violations() -> list[str]:
    found = []
    for stage in STAGES:
        for path in sorted((ROOT / stage).rglob("*.py")):
            for line, module in _imports(path):
                parts = module.split(".")
                if parts[0] != "ragprep" or len(parts) < 2 or parts[1] == stage:
                    continue
                where = f"{path.relative_to(ROOT)}:{line} imports {module}"
                if parts[1] not in BELOW[stage]:
                    found.append(f"{where} (upward: {stage} must not know {parts[1]})")
                elif len(parts) > 2 and module not in SHARED:
                    found.append(f"{where} (an internal module: import it from ragprep.{parts[1]})")
    return found


def test_stages_import_each_other_only_through_their_faces():
    assert _violations() == []


def test_the_check_sees_an_internal_import(tmp_path, monkeypatch):
    # The rule is not vacuous: a chunk module reaching into extract.running is found.
    fake = tmp_path / "chunk"
    fake.mkdir()
    (fake / "bad.py").write_text("from ragprep.extract.running import masked_key\nfrom ragprep.extract import Mode\n")
    for stage in ("extract", "pipeline", "integrations"):
        (tmp_path / stage).mkdir()
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert _violations() == ["chunk/bad.py:1 imports ragprep.extract.running (an internal module: import it from ragprep.extract)"]


# Inside extract, two sides meet only at the glyph model: reading the bytes
# (content streams, fonts: the interpreter's side) and reading the glyph table
# (text, structure, tables, layout: the text side). The model they share
# imports neither; the composers (the package face and document.py, which runs
# a page through both) may import anything. Layout mode is one of the text
# side's readers, imported through its package and by the composers only.
# Every module of extract is on exactly one side: a new module names its own.
INTERPRETER_SIDE = {"interpreter", "compiled", "operators", "streams", "decoded_size", "recovery", "fonts"}
TEXT_SIDE = {
    "geometric", "bidi", "blocks", "reading", "running", "structure", "structure_columns", "structure_objects", "tables", "gridfind",
    "tabletext", "groups", "layout", "xref",
}  # fmt: skip
MODEL = {"errors", "settings", "config", "warning", "geometry", "glyphs", "pagebox", "paths", "rows", "modes", "native", "lazy"}
COMPOSERS = {"__init__", "document", "docinfo", "diagnostics"}


def _extract_part(path: Path) -> str:
    """The top-level module or subpackage of extract that `path` belongs to."""
    parts = path.relative_to(ROOT / "extract").parts
    return parts[0] if len(parts) > 1 else path.stem


def _inner_violations() -> list[str]:
    sides = {**dict.fromkeys(INTERPRETER_SIDE, "interpreter"), **dict.fromkeys(TEXT_SIDE, "text"), **dict.fromkeys(MODEL, "model")}
    found = []
    for path in sorted((ROOT / "extract").rglob("*.py")):
        part = _extract_part(path)
        if part in COMPOSERS:
            continue
        if part not in sides:
            found.append(f"extract/{part} is on no side (tests/test_stage_faces.py)")
            continue
        for line, module in _imports(path):
            names = module.split(".")
            if names[:2] != ["ragprep", "extract"] or len(names) < 3 or names[2] == part:
                continue
            target = names[2]
            where = f"{path.relative_to(ROOT)}:{line} imports {module}"
            if target in COMPOSERS:
                found.append(f"{where} (a composer)")
            elif sides[part] == "model" and sides.get(target) != "model":
                found.append(f"{where} (the model imports only the model)")
            elif {sides[part], sides.get(target)} == {"interpreter", "text"}:
                found.append(f"{where} (the {sides[part]} side reaches into the {sides.get(target)} side)")
            elif target == "layout":
                found.append(f"{where} (layout mode is imported by the composers only)")
    return found


def test_inside_extract_the_sides_meet_only_at_the_model():
    assert _inner_violations() == []


def test_the_inner_check_sees_a_crossing(tmp_path, monkeypatch):
    # Not vacuous: reading.py taking a class from the interpreter, running.py
    # taking a rule from layout mode, and a module on no side are all found.
    extract = tmp_path / "extract"
    (extract / "layout").mkdir(parents=True)
    (extract / "reading.py").write_text("from ragprep.extract.interpreter import ImagePlacement\n")
    (extract / "running.py").write_text("from ragprep.extract.layout import unit_breaks\n")
    (extract / "newthing.py").write_text("")
    (extract / "document.py").write_text("from ragprep.extract.layout import read_layout\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert _inner_violations() == [
        "extract/newthing is on no side (tests/test_stage_faces.py)",
        "extract/reading.py:1 imports ragprep.extract.interpreter (the text side reaches into the interpreter side)",
        "extract/running.py:1 imports ragprep.extract.layout (layout mode is imported by the composers only)",
    ]
