"""Gold reading order for ``ragprep compare --gold DIR``.

A document's gold text is found by the stem of its file name, in one of two layouts:

- ``DIR/<stem>.txt``: the whole document's text in reading order (page breaks optional);
- ``DIR/<stem>/<n>.txt``: page ``n`` (1-based) only; pages without a file are not scored.

Files are UTF-8 (a byte-order mark is ignored). When both layouts exist for a stem, the
per-page files win: they pin errors to pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragprep.pipeline.errors import GoldError  # defined with every public error


@dataclass(frozen=True)
class GoldText:
    document: str | None  # whole-document text, when given per document
    pages: tuple[tuple[int, str], ...] = ()  # (page, text), when given per page


@dataclass(frozen=True)
class GoldSet:
    folder: Path
    texts: tuple[tuple[str, GoldText], ...]  # (stem, gold), sorted by stem

    def for_source(self, source: str) -> GoldText | None:
        stem = Path(source).stem
        return dict(self.texts).get(stem)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GoldError(f"gold file {path} is not UTF-8 text") from exc
    except OSError as exc:
        raise GoldError(f"gold file {path} cannot be read: {exc.strerror or exc}") from exc


def load_gold(folder: Path) -> GoldSet:
    if not folder.is_dir():
        raise GoldError(f"--gold {folder}: no such folder")
    texts: dict[str, GoldText] = {}
    for path in sorted(folder.glob("*.txt")):
        texts[path.stem] = GoldText(document=_read(path))
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        pages = sorted((int(p.stem), _read(p)) for p in sub.glob("*.txt") if p.stem.isdigit() and int(p.stem) > 0)
        if pages:
            texts[sub.name] = GoldText(document=None, pages=tuple(pages))
    return GoldSet(folder, tuple(sorted(texts.items())))
