"""Which files a run reads: files, folders, globs and @lists, resolved up front.

Every input must resolve to at least one PDF before the run starts. A folder
that is missing at 2 a.m. (an unmounted share), or that is there but empty (a
mount point with nothing mounted on it), must stop the run with a usage error;
read as "no documents", it would delete every chunk that came from it.

Only regular files are inputs: a FIFO, socket or device named ``*.pdf`` in a
folder would block the reader forever (opening a FIFO waits for a writer), so
folders and globs skip them (``Inputs.skipped`` says which and why) and a
named one is an ``InputError``.
"""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragprep.pipeline.errors import InputError  # defined with every public error

SAMPLES = Path(__file__).parent / "samples"


@dataclass(frozen=True)
class SkippedInput:
    """A file a folder or glob matched that is not read, and why."""

    path: Path
    reason: str


@dataclass(frozen=True)
class Inputs:
    """What the input specs name: the PDF files to read, each once, and the
    matches skipped because they are not regular files."""

    paths: tuple[Path, ...]
    skipped: tuple[SkippedInput, ...] = ()
    # Each path's realpath (``realpaths``) when known, for its source key.
    resolved: tuple[str, ...] = ()


def _is_pdf(name: str) -> bool:
    """Whether a file name has the suffix .pdf, in any case (as ``Path.suffix``
    reads it: ".pdf" alone is a hidden file with no suffix)."""
    return len(name) > 4 and name[-4:].lower() == ".pdf"


def not_regular(path: Path) -> str | None:
    """Why `path` is not a regular file (a FIFO, a socket, ...), or None when it
    is one. ``stat`` never blocks on a FIFO the way ``open`` does."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # gone or unreadable: the reader reports it as an error row
    if stat.S_ISREG(mode):
        return None
    kinds = {stat.S_ISFIFO: "a FIFO", stat.S_ISSOCK: "a socket", stat.S_ISCHR: "a character device",
             stat.S_ISBLK: "a block device", stat.S_ISDIR: "a folder"}  # fmt: skip
    kind = next((name for test, name in kinds.items() if test(mode)), "not a regular file")
    return f"{kind}, not a regular file"


class _Collector:
    """Expands specs into PDF paths, noting the matches it skips."""

    def __init__(self) -> None:
        self.skipped: list[SkippedInput] = []

    def keep_regular(self, candidates: Iterable[Path]) -> list[Path]:
        kept = []
        for path in candidates:
            reason = not_regular(path)
            if reason is None:
                kept.append(path)
            else:
                self.skipped.append(SkippedInput(path, reason))
        return kept

    def folder_pdfs(self, folder: Path) -> list[Path]:
        found: list[Path] = []
        self._walk(os.fspath(folder), found)
        return found

    def _walk(self, folder: str, found: list[Path]) -> None:
        """os.walk's order and rules (folders sorted, files before subfolders,
        symlinked folders not followed, so a link loop cannot hang a run, an
        unreadable folder skipped), typing each file by its directory entry:
        a regular file costs no stat of its own."""
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            return
        subfolders = []
        for entry in entries:
            if _entry_is(entry.is_dir):
                if not entry.is_symlink():
                    subfolders.append(entry.path)
            elif _is_pdf(entry.name):
                path = Path(entry.path)
                if _entry_is(entry.is_file):
                    found.append(path)
                else:
                    found.extend(self.keep_regular([path]))
        for subfolder in subfolders:
            self._walk(subfolder, found)

    def expand(self, spec: str, *, from_list: Path | None = None) -> list[Path]:
        where = f" (listed in {from_list})" if from_list else ""
        if spec.startswith("@") and from_list is None:
            return self.read_list(Path(spec[1:]))
        path = Path(spec).expanduser()
        if path.is_dir():
            return _named_something(self.folder_pdfs(path), f"{spec}{where}: the folder holds no PDF files")
        if path.exists():
            reason = not_regular(path)
            if reason is not None:
                raise InputError(f"{spec}{where}: {reason}")
            return [path]
        if glob.has_magic(spec):
            matches = sorted(Path(m) for m in glob.glob(spec, recursive=True))
            files = self.keep_regular(m for m in matches if not m.is_dir() and _is_pdf(m.name))
            for folder in (m for m in matches if m.is_dir()):
                files.extend(self.folder_pdfs(folder))
            return _named_something(files, f"{spec}{where}: the pattern matches no PDF file")
        raise InputError(f"{spec}{where}: no such file or folder{_flag_value_hint(spec)}")

    def read_list(self, list_file: Path) -> list[Path]:
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
                paths.extend(self.expand(resolved, from_list=list_file))
        return _named_something(paths, f"@{list_file}: the list names no PDF files")


def _entry_is(test: Callable[[], bool]) -> bool:
    """A directory entry's type test, False when the entry cannot be examined
    (a broken or looping symlink is a file the reader then reports)."""
    try:
        return test()
    except OSError:
        return False


# Words a user writes after a flag that takes none (`--keep-missing true`).
_FLAG_VALUES = frozenset({"true", "false", "yes", "no", "on", "off"})


def _flag_value_hint(spec: str) -> str:
    """For a missing input that reads as a flag's value: say that flags take none."""
    if spec.lower() in _FLAG_VALUES:
        return " (flags such as --keep-missing take no value: write the flag alone)"
    return ""


def _named_something(paths: list[Path], message: str) -> list[Path]:
    """An input that yields no PDF names nothing: to read it as "no documents"
    would delete every document stored from it."""
    if not paths:
        raise InputError(message)
    return paths


def resolve_inputs(specs: Sequence[str]) -> Inputs:
    """The PDF files the input specs name, each once, in a stable order.

    A spec is a file, a folder (searched recursively for ``*.pdf`` in any
    case), a glob (``corpus/**/*.pdf``) or ``@list.txt`` (one spec per line,
    ``#`` comments, relative to the list's folder). No spec: the bundled
    samples. Files named explicitly are taken whatever their suffix. A spec
    that yields no PDF is an ``InputError``.
    """
    collector = _Collector()
    if not specs:
        return Inputs(tuple(collector.folder_pdfs(SAMPLES)))
    paths, resolved = _unique(p for spec in specs for p in collector.expand(spec))
    return Inputs(tuple(paths), tuple(collector.skipped), tuple(resolved))


def collect_inputs(specs: Sequence[str]) -> tuple[Path, ...]:
    """The paths of ``resolve_inputs`` (skipped matches left out silently)."""
    return resolve_inputs(specs).paths


def realpaths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """``os.path.realpath`` of each path, each folder resolved once: a file
    that is not itself a symlink resolves to its folder's real path joined
    with its name, so a corpus of 50,000 files costs one ``lstat`` each
    rather than one per path component."""
    folders: dict[str, str] = {}
    out = []
    for path in paths:
        head, name = os.path.split(os.fspath(path))
        if name in ("", ".", "..") or os.path.islink(path):
            out.append(os.path.realpath(path))
            continue
        real = folders.get(head)
        if real is None:
            real = folders[head] = os.path.realpath(head or os.curdir)
        out.append(os.path.join(real, name))
    return out


def _unique(paths: Iterable[Path]) -> tuple[list[Path], list[str]]:
    """Each file once (by its resolved path), with those resolved paths."""
    seen: set[str] = set()
    out, resolved = [], []
    paths = list(paths)
    for path, key in zip(paths, realpaths(paths), strict=True):
        if key not in seen:
            seen.add(key)
            out.append(path)
            resolved.append(key)
    return out, resolved
