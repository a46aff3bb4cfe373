"""Store URIs: which vector store ``ragprep sync --to URI`` writes."""

from __future__ import annotations

from ragprep.pipeline.sync.model import Store, StoreError

SCHEMES = ("lancedb", "chroma")


def open_store(uri: str) -> Store:
    """``lancedb:PATH[#TABLE]`` (also a bare PATH), ``chroma:http://HOST:PORT/COLLECTION``
    or ``chroma:PATH[#COLLECTION]``; StoreError when the URI names none."""
    scheme, sep, rest = uri.partition(":")
    if not sep or scheme not in SCHEMES:
        if "://" in uri:
            raise StoreError(f"--to {uri!r}: unknown store; use lancedb:PATH[#TABLE] or chroma:http://HOST:PORT/COLLECTION")
        scheme, rest = "lancedb", uri
    if not rest:
        raise StoreError(f"--to {uri!r}: the store's path or address is missing")
    if scheme == "lancedb":
        from ragprep.pipeline.sync.lance import LanceStore

        path, _, table = rest.partition("#")
        return LanceStore(path, table or "chunks")
    from ragprep.pipeline.sync.chroma import ChromaStore

    return ChromaStore(rest)
