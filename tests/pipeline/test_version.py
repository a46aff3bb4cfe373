"""A document's key names the code that made it: the ragprep version and a
digest of the extract and chunk sources, so a rule change without a version
bump still re-chunks a stored dataset."""

from __future__ import annotations

import importlib.util
import shutil
from importlib import metadata
from pathlib import Path

from ragprep.pipeline.version import OUTPUT_PACKAGES, pipeline_version, rules_digest, source_digest


def _installed() -> list[tuple[str, Path]]:
    found = []
    for package in OUTPUT_PACKAGES:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations
        found += [(package, Path(folder)) for folder in spec.submodule_search_locations]
    return found


def _copy(tmp_path: Path) -> list[tuple[str, Path]]:
    copies = []
    for package, folder in _installed():
        target = tmp_path / package
        shutil.copytree(folder, target, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        copies.append((package, target))
    return copies


def test_the_key_is_the_version_and_the_digest_of_the_installed_stage_sources():
    assert pipeline_version() == f"{metadata.version('ragprep')}+rules.{rules_digest()}"
    assert len(rules_digest()) == 12 and rules_digest() == source_digest(_installed())


def test_a_changed_rule_changes_the_digest_and_bytecode_does_not(tmp_path):
    copies = _copy(tmp_path)
    before = source_digest(copies)
    assert before == rules_digest()
    chunk_folder = dict(copies)["ragprep.chunk"]
    (chunk_folder / "__pycache__").mkdir(exist_ok=True)
    (chunk_folder / "__pycache__" / "packing.cpython-311.pyc").write_bytes(b"\x00bytecode")
    assert source_digest(copies) == before  # built files are not rules
    packing = chunk_folder / "packing.py"
    packing.write_text(packing.read_text() + "\n# a changed rule\n")
    changed = source_digest(copies)
    assert changed != before
    (dict(copies)["ragprep.extract"] / "new_rule.py").write_text("RULE = 1\n")
    assert source_digest(copies) not in (before, changed)
