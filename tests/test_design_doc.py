"""DESIGN.md's layout section stays true to the code: every module of the
stage folders is named in its folder's part of the section (`name.py`,
relative to the folder), and every module the section names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("extract", "chunk", "pipeline", "integrations")
TOP_LEVEL = {*FOLDERS, "tests", "bench", "fuzz", "configs"}


def folder_parts(design: str) -> dict[str, str]:
    """The text of each `### folder/` subsection of `## Layout`."""
    layout = design.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    pieces = re.split(r"^### (.+?)\s*$", layout, flags=re.MULTILINE)
    sections = dict(zip(pieces[1::2], pieces[2::2], strict=True))
    return {title.removesuffix("/"): text for title, text in sections.items() if title.endswith("/")}


def named_modules(text: str, folder: str) -> set[str]:
    # Inside its own subsection a module is named relative to its folder
    # (integrations' with the folder: `integrations/langchain.py`); a file of
    # another top-level folder (`tests/...`) is a reference, not a module here.
    names = {name.removeprefix(f"{folder}/") for name in re.findall(r"`([\w/]+\.py)`", text)}
    return {name for name in names if name.split("/")[0] not in TOP_LEVEL}


def modules(folder: str) -> set[str]:
    return {p.relative_to(ROOT / folder).as_posix() for p in (ROOT / folder).rglob("*.py")}


def missing_and_gone(design: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    parts = folder_parts(design)
    missing, gone = {}, {}
    for folder in FOLDERS:
        named = named_modules(parts.get(folder, ""), folder)
        present = modules(folder)
        missing[folder] = present - named
        gone[folder] = named - present
    return missing, gone


def test_every_module_is_named_and_every_named_module_exists():
    missing, gone = missing_and_gone((ROOT / "DESIGN.md").read_text(encoding="utf-8"))
    assert not any(missing.values()), f"modules DESIGN.md's layout section does not name: {missing}"
    assert not any(gone.values()), f"DESIGN.md names modules that do not exist: {gone}"


def test_the_check_sees_a_missing_and_a_gone_module():
    # Not vacuous: a section that drops a real module and names a made-up one fails both ways.
    design = (ROOT / "DESIGN.md").read_text(encoding="utf-8").replace("`blocks.py`", "`blockz.py`")
    missing, gone = missing_and_gone(design)
    assert "blocks.py" in missing["extract"] and "blocks.py" in missing["chunk"]
    assert gone["extract"] == {"blockz.py"}
