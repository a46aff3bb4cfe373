"""Reading the inputs' bytes while planning: a SHA-256 per file, bounded in time.

The parent hashes every input before it plans, while it holds the dataset's
lock, so reading must never block it forever: a FIFO named ``*.pdf`` blocks
``open`` until a writer comes, and a read from a dead network share can hang
in the kernel. Files are opened with ``O_NONBLOCK`` and checked to be regular
before a byte is read, and each file's hashing runs in a daemon thread the
parent stops waiting for after ``timeout_seconds`` (a thread stuck in
``read(2)`` cannot be killed, but a daemon one cannot hold up the exit either).
The file becomes an error row, and the run goes on.

A rerun need not read an unchanged file at all: a file whose (size,
mtime_ns, inode) equal what the last run saw keeps that run's hash
(``known``). A file modified within ``RACY_NANOSECONDS`` of when it was
hashed is not recorded for that skip, because a second write in the same
mtime tick would leave its stat unchanged (git's "racy" entries).
"""

from __future__ import annotations

import hashlib
import os
import queue
import stat
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_BLOCK = 1 << 20
# Coarsest mtime tick of the filesystems a corpus lives on (FAT: 2 s).
RACY_NANOSECONDS = 2_000_000_000


@dataclass(frozen=True)
class FileStat:
    """What identifies a file's bytes without reading them."""

    size: int
    mtime_ns: int
    inode: int

    @classmethod
    def of(cls, result: os.stat_result) -> "FileStat":
        return cls(result.st_size, result.st_mtime_ns, result.st_ino)


@dataclass(frozen=True)
class Fingerprint:
    """A file's SHA-256 and the stat it had when read."""

    sha256: str
    stat: FileStat
    # The stat may stand for the hash on the next run (it was not racy).
    reusable: bool = True
    # The bytes were read this run (False: the stat matched the last run's).
    hashed: bool = True

    @property
    def size(self) -> int:
        return self.stat.size


class NotRegularFileError(OSError):
    """The input is a FIFO, socket or device: there are no PDF bytes to read."""


class ReadTimeoutError(OSError):
    """Reading the input took longer than the limit (a hung share, a slow device)."""


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a regular file's bytes (no time limit: for one file the caller chose)."""
    return _hash_open(path)[0]


def _hash_open(path: str | Path) -> tuple[str, FileStat]:
    # O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise NotRegularFileError(0, "not a regular file (a FIFO, socket or device)", str(path))
        digest = hashlib.sha256()
        while block := fh.read(_BLOCK):
            digest.update(block)
        return digest.hexdigest(), FileStat.of(before)


def _fingerprint(path: Path, known: Mapping[str, Mapping[FileStat, str]]) -> Fingerprint:
    seen = known.get(str(path))
    if seen:
        now = FileStat.of(os.stat(path))
        if now in seen:
            return Fingerprint(seen[now], now, hashed=False)
    started = time.time_ns()
    digest, file_stat = _hash_open(path)
    return Fingerprint(digest, file_stat, reusable=file_stat.mtime_ns < started - RACY_NANOSECONDS)


def fingerprint_files(
    paths: Sequence[Path],
    *,
    timeout_seconds: float,
    known: Mapping[str, Mapping[FileStat, str]] | None = None,
    threads: int = 4,
) -> list[Fingerprint | OSError]:
    """A fingerprint of each file, or the OSError that prevented reading it
    (``ReadTimeoutError`` past `timeout_seconds` for one file).
    `known`: source -> {stat: sha256} from earlier runs; a file whose stat is
    one of those is not read. hashlib releases the GIL on large buffers, so the
    threads overlap the I/O."""
    readers = _Readers(paths, known or {}, timeout_seconds)
    for _ in range(min(threads, len(paths))):
        readers.start()
    return readers.answers()


class _Readers:
    """Daemon threads that fingerprint the files of a queue, one at a time; a
    reader stuck past the limit is forgotten and a fresh one takes its place."""

    def __init__(self, paths: Sequence[Path], known: Mapping[str, Mapping[FileStat, str]], timeout_seconds: float) -> None:
        self.paths = paths
        self.known = known
        self.timeout_seconds = timeout_seconds
        self.todo: queue.SimpleQueue[int] = queue.SimpleQueue()
        self.done: queue.SimpleQueue[tuple[int, Fingerprint | OSError]] = queue.SimpleQueue()
        for index in range(len(paths)):
            self.todo.put(index)
        # Which file each live thread is reading, and since when (monotonic).
        self.busy: dict[int, tuple[int, float]] = {}
        self.lock = threading.Lock()
        self.slots = 0

    def start(self) -> None:
        slot = self.slots
        self.slots += 1
        threading.Thread(target=self._work, args=(slot,), daemon=True, name=f"ragprep-hash-{slot}").start()

    def _work(self, slot: int) -> None:
        while True:
            try:
                index = self.todo.get_nowait()
            except queue.Empty:
                return
            with self.lock:
                self.busy[slot] = (index, time.monotonic())
            try:
                answer: Fingerprint | OSError = _fingerprint(self.paths[index], self.known)
            except OSError as exc:
                answer = exc
            with self.lock:
                if self.busy.pop(slot, None) is None:
                    return  # abandoned after a timeout: its answer was given already
            self.done.put((index, answer))

    def answers(self) -> list[Fingerprint | OSError]:
        """Every file's answer in input order, waiting for the readers (a stuck one's
        file answered with ``ReadTimeoutError``)."""
        results: list[Fingerprint | OSError | None] = [None] * len(self.paths)
        remaining = len(self.paths)
        # Looking for stuck readers after every answer would cost more than the
        # answers themselves when most files are a stat: a few times a second is enough.
        every = min(0.25, self.timeout_seconds / 4)
        next_check = time.monotonic() + every
        while remaining:
            try:
                index, answer = self.done.get(timeout=every)
                results[index] = answer
                remaining -= 1
            except queue.Empty:
                pass
            if time.monotonic() < next_check:
                continue
            next_check = time.monotonic() + every
            for index in _abandon_stuck(self.busy, self.lock, self.timeout_seconds):
                message = f"reading took more than {self.timeout_seconds:g} s (pipeline.read_timeout_seconds)"
                self.done.put((index, ReadTimeoutError(0, message, str(self.paths[index]))))
                self.start()
        return [r for r in results if r is not None]


def _abandon_stuck(busy: dict[int, tuple[int, float]], lock: threading.Lock, timeout_seconds: float) -> list[int]:
    """The files whose reader has run past the limit; their threads are forgotten."""
    now = time.monotonic()
    with lock:
        stuck = [slot for slot, (_, since) in busy.items() if now - since > timeout_seconds]
        return [busy.pop(slot)[0] for slot in stuck]
