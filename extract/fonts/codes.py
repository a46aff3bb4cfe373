"""Splitting a composite font's show string into character codes (ISO 32000-1 §9.7.6.2).

Bytes are taken one at a time and matched against the codespace ranges of
that length, shortest first, until a range matches; codes of 1 to 4 bytes and
mixed lengths (Shift-JIS style CMaps) follow from that. A byte sequence that
matches no range is an invalid code (§9.7.6.3): it consumes as many bytes as the
shortest range that starts with its first byte (a partial match), else as many
as the shortest range of all, and shows the notdef glyph.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ragprep.extract.fonts.cmap import CodespaceRange

# Split result: codes, their byte lengths, and whether each matched a codespace range.
SplitCodes = tuple[list[int], list[int], list[bool]]


@lru_cache(maxsize=256)
def code_splitter(ranges: tuple[CodespaceRange, ...]) -> "CodeSplitter":
    """The splitter of these codespace ranges, shared: the composite fonts
    of a corpus use a few codespaces (Identity-H's above all), and building
    a splitter walks the 256 first bytes of every range."""
    return CodeSplitter(ranges)


class CodeSplitter:
    """Splits byte strings by a fixed set of codespace ranges."""

    def __init__(self, ranges: Sequence[CodespaceRange], default_length: int = 2) -> None:
        usable = [r for r in ranges if 1 <= r.nbytes <= 4]
        self._shortest = min((r.nbytes for r in usable), default=max(1, min(default_length, 4)))
        # Candidate ranges per first byte, shortest first, so matching one
        # byte tries only the ranges that can start with it.
        candidates: list[list[CodespaceRange]] = [[] for _ in range(256)]
        for r in sorted(usable, key=lambda r: r.nbytes):
            for b in range(r.low[0], r.high[0] + 1):
                candidates[b].append(r)
        self._by_first: list[tuple[CodespaceRange, ...]] = [tuple(c) for c in candidates]
        full_two = any(r.nbytes == 2 and r.low == b"\x00\x00" and r.high == b"\xff\xff" for r in usable)
        self.identity_two_bytes = full_two and all(r.nbytes == 2 for r in usable)
        self.one_byte = bool(usable) and all(r.nbytes == 1 for r in usable)
        self._one_byte_valid = np.array([bool(self._by_first[b]) for b in range(256)], dtype=bool)
        self._one_byte_valid.flags.writeable = False  # splitters are shared (code_splitter)

    def split(self, data: bytes) -> SplitCodes:
        if self.identity_two_bytes:
            return _split_two(data)
        if self.one_byte:
            arr = np.frombuffer(data, dtype=np.uint8)
            return list(data), [1] * len(data), self._one_byte_valid[arr].tolist()
        return self._split_general(data)

    def _split_general(self, data: bytes) -> SplitCodes:
        codes: list[int] = []
        lengths: list[int] = []
        valid: list[bool] = []
        by_first = self._by_first
        i, n = 0, len(data)
        while i < n:
            candidates = by_first[data[i]]
            size = 0
            for r in candidates:
                if r.matches(data, i):
                    size = r.nbytes
                    break
            ok = size > 0
            if not ok:
                size = candidates[0].nbytes if candidates else self._shortest
            size = min(size, n - i)
            codes.append(int.from_bytes(data[i : i + size], "big"))
            lengths.append(size)
            valid.append(ok)
            i += size
        return codes, lengths, valid


def _split_two(data: bytes) -> SplitCodes:
    """Identity-style <0000>-<FFFF> codespace: every code is two bytes."""
    even = len(data) & ~1
    codes = np.frombuffer(data, dtype=">u2", count=even // 2).tolist()
    lengths = [2] * len(codes)
    valid = [True] * len(codes)
    if even != len(data):  # a dangling final byte is an invalid one-byte code
        codes.append(data[-1])
        lengths.append(1)
        valid.append(False)
    return codes, lengths, valid
