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
