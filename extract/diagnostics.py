"""qpdf's messages about a document, kept as its warnings instead of stderr.

qpdf reports damage it repairs (a reconstructed xref table, a page tree entry
ignored) through pikepdf's bridge to Python logging, logger ``pikepdf._core``;
with no handler configured, Python's last-resort handler prints them on
stderr, before and apart from ragprep's own report of the file. While a
document is open its messages go to the document instead: a filter on that
logger hands each record to the sink of the current context and stops it.
"""

from __future__ import annotations

import contextvars
import logging
import re
from collections.abc import Iterable

from ragprep.extract.warning import PageWarning, WarningCounter, WarningKind

QPDF_LOGGER = "pikepdf._core"
# Distinct messages kept per batch; the rest are counted.
MAX_MESSAGES = 5

_sink: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("ragprep_qpdf_sink", default=None)
# qpdf names the input first: "stream <_io.BytesIO object at 0x...>: " or the path.
_SOURCE_PREFIX = re.compile(r"^(?:stream <[^>]*>|\S+\.pdf)(?: \([^)]*\))?: ", re.IGNORECASE)


class _ToSink(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        sink = _sink.get()
        if sink is None:
            return True
        message = record.getMessage().strip()
        if message:
            sink.append(message)
        return False


_FILTER = _ToSink()


def capture() -> tuple[list[str], contextvars.Token[list[str] | None]]:
    """Start sending qpdf's messages to a new list (until ``release``)."""
    logger = logging.getLogger(QPDF_LOGGER)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
    sink: list[str] = []
    return sink, _sink.set(sink)


def release(token: contextvars.Token[list[str] | None]) -> None:
    try:
        _sink.reset(token)
    except ValueError:  # closed from another context than it was opened in
        _sink.set(None)


def summarize(messages: Iterable[str]) -> tuple[PageWarning, ...]:
    """qpdf messages as warnings: without the source prefix, repeats
    counted, at most MAX_MESSAGES distinct ones and a count of the rest."""
    counter = WarningCounter()
    for message in messages:
        text = _SOURCE_PREFIX.sub("", message.strip().splitlines()[0] if message.strip() else "")
        if text:
            counter.add(WarningKind.QPDF, text)
    warnings = counter.warnings()
    kept = warnings[:MAX_MESSAGES]
    rest = sum(w.count for w in warnings[MAX_MESSAGES:])
    if rest:
        kept += (PageWarning(WarningKind.QPDF, f"{rest} more messages"),)
    return kept
