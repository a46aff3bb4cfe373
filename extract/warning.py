"""Page warnings as data: what went wrong reading a page, and how often.

A warning is a small frozen value: its ``kind`` (what a program filters on), the
``setting`` it names when raising that setting would have avoided it (a resource
limit), its ``message`` for people, and how many times it happened on the page.
Readers count repeats while they read (``WarningCounter``); the text a person
sees (``render``: ``limit: more than 10 operators on this page; ... (extract.
max_operators_per_page) (x3)``) is made only at the edges, the dataset's pages
table and the CLI, so one counting format holds everywhere and tests ask for a
kind or a setting instead of matching substrings.

Lives in extract/, the lowest stage, because the pages that carry warnings are
made there and every stage above reads them (imports run pipeline -> chunk ->
extract).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class WarningKind(enum.Enum):
    """What a warning is about."""

    # A resource limit cut the reading short (the warning names the setting).
    LIMIT = "limit"
    # Damaged or unusual content: a stream, an operator, a form, marked content.
    CONTENT = "content"
    # A font resource: widths, encodings, CMaps, embedded programs.
    FONT = "font"
    # The structure tree (§14.7): role maps, kids, parent tree, attributes.
    STRUCTURE = "structure"
    # qpdf's own messages about the file (repairs it made while opening or reading).
    QPDF = "qpdf"
    # How the document or page was opened: pages recovered, a page unreadable.
    DOCUMENT = "document"


# The prefix a kind's text starts with (the message says the rest).
_PREFIXES = {
    WarningKind.LIMIT: "limit: ",
    WarningKind.STRUCTURE: "structure tree: ",
    WarningKind.QPDF: "qpdf: ",
}


@dataclass(frozen=True)
class PageWarning:
    kind: WarningKind
    message: str
    # The configuration key (``extract.max_stream_bytes``) whose value caused it, if any.
    setting: str | None = None
    # Times it happened on the page (one warning per distinct kind, message, setting).
    count: int = 1

    def render(self) -> str:
        """The warning as a person reads it (records, CLI)."""
        text = _PREFIXES.get(self.kind, "") + self.message
        if self.setting is not None:
            text += f" ({self.setting})"
        return text if self.count == 1 else f"{text} (x{self.count})"

    def __str__(self) -> str:
        return self.render()


def render_all(warnings: Iterable[PageWarning]) -> list[str]:
    return [w.render() for w in warnings]


class WarningCounter:
    """A reader's warnings while it reads: repeats counted, first-seen order kept."""

    def __init__(self) -> None:
        self._counts: dict[tuple[WarningKind, str, str | None], int] = {}

    def add(self, kind: WarningKind, message: str, setting: str | None = None, *, count: int = 1) -> None:
        key = (kind, message, setting)
        self._counts[key] = self._counts.get(key, 0) + count

    def warnings(self) -> tuple[PageWarning, ...]:
        return tuple(PageWarning(kind, message, setting, n) for (kind, message, setting), n in self._counts.items())
