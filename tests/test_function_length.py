"""No function over 60 lines: a function the next engineer cannot read at once
becomes named steps. Data tables (a function whose body is a literal table)
are the one exemption, each named in EXEMPT with its reason.

ALLOWED listed the offenders of the day the rule came (17, each with its
length) and could only shrink: a listed function that grew failed, and one
that fit in 60 lines (or was gone) failed until its entry was removed. It is
empty now; a new entry needs a reason as strong as an exemption's."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Every folder of code, the tests' builders and cases included.
FOLDERS = ("extract", "chunk", "pipeline", "integrations", "bench", "fuzz", "tests")
LIMIT = 60

# "path::qualname" -> why its length is a data table, not logic. None today.
EXEMPT: dict[str, str] = {}

# "path::qualname" -> its length when listed (owner in the comment). Shrink only; empty since session 8.
ALLOWED: dict[str, int] = {}


def function_lengths(source: str) -> dict[str, int]:
    """Each function's qualified name -> its lines, `def` line to last line
    (decorators not counted; a nested function counts in its parent too)."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    assert child.end_lineno is not None
                    lengths[name] = child.end_lineno - child.lineno + 1
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return lengths


def project_lengths() -> dict[str, int]:
    found: dict[str, int] = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            for name, lines in function_lengths(path.read_text(encoding="utf-8")).items():
                found[f"{relative}::{name}"] = lines
    return found


def test_no_function_over_the_limit():
    found = project_lengths()
    over = {
        key: lines
        for key, lines in found.items()
        if lines > LIMIT and key not in EXEMPT and not (key in ALLOWED and lines <= ALLOWED[key])
    }
    assert not over, f"functions over {LIMIT} lines (split them into named steps): {over}"


def test_the_allowlist_only_shrinks():
    # An entry whose function now fits (or is gone) must leave the list.
    found = project_lengths()
    stale = {key: found.get(key) for key in ALLOWED if found.get(key, 0) <= LIMIT}
    assert not stale, f"remove from ALLOWED, these fit in {LIMIT} lines now (None: gone): {stale}"


def test_every_exemption_is_still_a_long_data_table():
    found = project_lengths()
    for key, reason in EXEMPT.items():
        assert reason.strip(), f"{key}: an exemption says why"
        assert found.get(key, 0) > LIMIT, f"{key} fits in {LIMIT} lines: remove its exemption"


def test_the_count_sees_a_long_function_and_a_long_method():
    # Not vacuous: 61 lines fail, 60 do not, methods and nested functions are named.
    body = "".join(f"    x{i} = {i}\n" for i in range(59))
    source = (
        f"def short():\n{body}\n"
        f"def long():\n{body}    x = 0\n"
        f"class Page:\n    def text(self):\n{body.replace('    ', '        ')}"
        "        def inner():\n            return 1\n        return inner\n"
    )
    lengths = function_lengths(source)
    assert lengths["short"] == 60
    assert lengths["long"] == 61
    assert lengths["Page.text"] == 63
    assert lengths["Page.text.inner"] == 2
