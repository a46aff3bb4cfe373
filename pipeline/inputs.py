"""Which files a run reads: files, folders, globs and @lists, resolved up front.

Every input must resolve to something before the run starts. A folder that is
missing at 2 a.m. (an unmounted share) must stop the run with a usage error;
read as "no documents", it would delete every chunk that came from it.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from ragprep.extract.errors import RagprepError

SAMPLES = Path(__file__).parent / "samples"


class InputError(RagprepError):
    """An input names nothing: a missing file or folder, a glob with no match,
    an unreadable @list."""


def _is_pdf(path: Path) -> bool:
    return path.suffix.lower() == ".pdf"


def _folder_pdfs(folder: Path) -> list[Path]:
    found = []
    # os.walk does not follow symlinked folders, so a link loop cannot hang a run.
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        found.extend(Path(root) / name for name in sorted(files) if _is_pdf(Path(name)))
    return found


def _expand(spec: str, *, from_list: Path | None = None) -> list[Path]:
    where = f" (listed in {from_list})" if from_list else ""
    if spec.startswith("@") and from_list is None:
        return _read_list(Path(spec[1:]))
    path = Path(spec).expanduser()
    if path.is_dir():
        return _folder_pdfs(path)
    if path.is_file():
        return [path]
    if glob.has_magic(spec):
        matches = sorted(Path(m) for m in glob.glob(spec, recursive=True))
        files = [m for m in matches if m.is_file() and _is_pdf(m)]
        for folder in (m for m in matches if m.is_dir()):
            files.extend(_folder_pdfs(folder))
        if not files:
            raise InputError(f"{spec}{where}: the pattern matches no PDF file")
        return files
    raise InputError(f"{spec}{where}: no such file or folder")


def _read_list(list_file: Path) -> list[Path]:
    try:
        lines = list_file.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"@{list_file}: cannot read the list: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"@{list_file}: the list is not UTF-8 text") from exc
    paths: list[Path] = []
    for line in lines:
        entry = line.strip()
        if entry and not entry.startswith("#"):
            # Relative entries are relative to the list, so a list travels with its corpus.
            resolved = entry if Path(entry).is_absolute() else str(list_file.parent / entry)
            paths.extend(_expand(resolved, from_list=list_file))
    return paths


def collect_inputs(specs: Sequence[str]) -> tuple[Path, ...]:
    """The PDF files the input specs name, each once, in a stable order.

    A spec is a file, a folder (searched recursively for ``*.pdf`` in any
    case), a glob (``corpus/**/*.pdf``) or ``@list.txt`` (one spec per line,
    ``#`` comments, relative to the list's folder). No spec: the bundled
    samples. Files named explicitly are taken whatever their suffix.
    """
    if not specs:
        return tuple(_folder_pdfs(SAMPLES))
    return tuple(_unique(p for spec in specs for p in _expand(spec)))


def _unique(paths: Iterable[Path]) -> list[Path]:
    seen: set[str] = set()
    out = []
    for path in paths:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out
