"""Reading content streams with a cap on decompressed bytes.

Decoding a stream fully and checking its size afterwards is how a small flate
bomb becomes an out-of-memory kill, so FlateDecode (by far the most common
content-stream filter) is inflated here incrementally and stops at the cap.
Other filter chains go through qpdf and are checked after decoding.
"""

from __future__ import annotations

import zlib

import pikepdf

_INFLATE_STEP = 1 << 20


class StreamLimitError(Exception):
    """A stream decompresses to more bytes than the configured cap."""


class StreamDecodeError(Exception):
    """A stream's filters cannot be applied (unknown filter, corrupt data)."""


def _filter_names(stream: pikepdf.Stream) -> tuple[list[str], bool]:
    filters = stream.get("/Filter")
    if filters is None:
        names: list[str] = []
    elif isinstance(filters, pikepdf.Array):
        names = [str(f) for f in filters]
    else:
        names = [str(filters)]
    parms = stream.get("/DecodeParms")
    has_parms = parms is not None and not (
        isinstance(parms, pikepdf.Array) and all(p is None for p in parms)
    )
    return names, has_parms


def _inflate(raw: bytes, limit: int) -> tuple[bytes, str | None]:
    """Inflate zlib data, never holding more than `limit` + one step of output.

    Returns the data and a warning when the data was damaged (what inflated
    before the damage is kept: a truncated page still has its first lines).
    """
    inflater = zlib.decompressobj()
    out = bytearray()
    pending = raw
    try:
        while pending:
            out += inflater.decompress(pending, _INFLATE_STEP)
            if len(out) > limit:
                raise StreamLimitError(f"content stream inflates past {limit} bytes")
            pending = inflater.unconsumed_tail
            if inflater.eof:
                break
        out += inflater.flush()
    except zlib.error as exc:
        return bytes(out), f"damaged FlateDecode data, kept the first {len(out)} bytes ({exc})"
    if len(out) > limit:
        raise StreamLimitError(f"content stream inflates past {limit} bytes")
    return bytes(out), None


def read_stream(stream: pikepdf.Object, limit: int) -> tuple[bytes, str | None]:
    """Decoded bytes of a content stream and a warning, if any (§7.4 filters)."""
    if not isinstance(stream, pikepdf.Stream):
        raise StreamDecodeError("content is not a stream")
    names, has_parms = _filter_names(stream)
    if not names:
        data = stream.read_raw_bytes()
        warning = None
    elif all(n in ("/FlateDecode", "/Fl") for n in names) and not has_parms:
        data = stream.read_raw_bytes()
        warning = None
        for _ in names:
            data, warning = _inflate(data, limit)
            if warning:
                break
    else:
        try:
            data = stream.read_bytes()
        except pikepdf.PdfError as exc:
            raise StreamDecodeError(f"cannot decode stream with filters {' '.join(names)}: {exc}") from exc
        warning = None
    if len(data) > limit:
        raise StreamLimitError(f"content stream decodes to {len(data)} bytes, over the {limit} cap")
    return data, warning
