"""Fixtures of the pipeline tests: a real Chroma server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path) -> Iterator[str]:
    """`chroma run` on 127.0.0.1 (the chromadb package's real server), stopped
    after the test; yields its store URI prefix ``chroma:http://127.0.0.1:PORT``
    (a collection is ``/NAME`` after it)."""
    port = _free_port()
    chroma = Path(sys.executable).parent / "chroma"
    server = subprocess.Popen(
        [str(chroma), "run", "--path", str(tmp_path / "chroma-server"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"chroma run did not start (exit {server.poll()})")
                time.sleep(0.3)
        yield f"chroma:http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
