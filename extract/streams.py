"""Reading content streams with a cap on decompressed bytes.

Decoding a stream fully and checking its size afterwards is how a small flate
bomb becomes an out-of-memory kill, so FlateDecode (by far the most common
content-stream filter) is inflated here incrementally and stops at the cap.
Other filter chains go through qpdf, after ``decoded_size`` has shown that
their output stays under the cap (a chain it cannot follow to the end, such as
an expanding filter with a predictor before another expanding filter, is
checked after decoding).
"""

from __future__ import annotations

import base64
import binascii
import zlib

import pikepdf

from ragprep.extract.decoded_size import (
    FLATE_MAX_RATIO,
    LZW_MAX_RATIO,
    RUN_LENGTH_MAX_RATIO,
    lzw_decoded_size,
    run_length_decoded_size,
)

_INFLATE_STEP = 1 << 20


class StreamLimitError(Exception):
    """A stream decompresses to more bytes than the configured cap."""


class StreamDecodeError(Exception):
    """A stream's filters cannot be applied (unknown filter, corrupt data)."""


_INPUT_STEP = 64 * 1024
# Filters that never expand their input (§7.4.2, §7.4.3), decoded here in
# full before the capped inflate.
_SHRINKING = frozenset({"/ASCIIHexDecode", "/AHx", "/ASCII85Decode", "/A85"})
_FLATE = frozenset({"/FlateDecode", "/Fl"})
_LZW = frozenset({"/LZWDecode", "/LZW"})
_RUN_LENGTH = frozenset({"/RunLengthDecode", "/RL"})
# zlib's Z_MEM_ERROR: its own allocation failed, as a MemoryError would.
_Z_MEM_ERROR = "Error -4 "


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


def _feed(inflater: "zlib._Decompress", data: bytes, out: bytearray, limit: int) -> None:
    """Inflate `data` into `out`, one output step at a time, up to `limit`."""
    pending = data
    while pending and not inflater.eof:
        out += inflater.decompress(pending, _INFLATE_STEP)
        if len(out) > limit:
            raise StreamLimitError(f"content stream inflates past {limit} bytes")
        pending = inflater.unconsumed_tail


def inflate(raw: bytes, limit: int) -> tuple[bytes, str | None]:
    """Inflate zlib data, never holding more than `limit` + one step of output.

    The input goes in slices, each after a checkpoint of the inflater: when
    zlib reports damage (most often a bad checksum after the last byte), the
    slice is fed again byte by byte from its checkpoint, so everything that
    inflated before the damage is kept, with a warning. Data that simply ends
    early (a truncated stream) keeps what inflated too.
    """
    inflater = zlib.decompressobj()
    out = bytearray()
    try:
        for start in range(0, len(raw), _INPUT_STEP):
            piece = raw[start : start + _INPUT_STEP]
            checkpoint, kept = inflater.copy(), len(out)
            try:
                _feed(inflater, piece, out, limit)
            except zlib.error:
                inflater = checkpoint
                del out[kept:]
                for byte in range(len(piece)):
                    _feed(inflater, piece[byte : byte + 1], out, limit)
            if inflater.eof:
                break
        out += inflater.flush()
    except zlib.error as exc:
        if str(exc).startswith(_Z_MEM_ERROR):
            raise MemoryError(str(exc)) from exc
        return bytes(out), f"damaged FlateDecode data, kept the first {len(out)} bytes ({exc})"
    if len(out) > limit:
        raise StreamLimitError(f"content stream inflates past {limit} bytes")
    if not inflater.eof and raw:
        return bytes(out), f"FlateDecode data ends early, kept the {len(out)} bytes it has"
    return bytes(out), None


def _capped_chain(names: list[str], has_parms: bool) -> int | None:
    """How many leading filters qpdf applies before the capped inflate takes
    the rest, or None when the chain is not shrinking filters then Flate."""
    if has_parms or not names or names[-1] not in _FLATE:
        return None
    flate_from = next(i for i, n in enumerate(names) if n in _FLATE)
    if not all(n in _SHRINKING for n in names[:flate_from]) or not all(n in _FLATE for n in names[flate_from:]):
        return None
    return flate_from


def read_stream(stream: pikepdf.Object, limit: int) -> tuple[bytes, str | None]:
    """Decoded bytes of a content stream and a warning, if any (§7.4 filters).

    Flate is inflated here under the cap, after any ASCII filters before it
    (the common [/ASCII85Decode /FlateDecode] chain); other chains (LZW,
    RunLength, predictors) are decoded by qpdf once their decoded size is
    known to stay under the cap.
    """
    if not isinstance(stream, pikepdf.Stream):
        raise StreamDecodeError("content is not a stream")
    names, has_parms = _filter_names(stream)
    warning = None
    flate_from = _capped_chain(names, has_parms)
    if not names:
        data = stream.read_raw_bytes()
    elif flate_from is not None:
        data = stream.read_raw_bytes()
        if flate_from:
            data = _decode_ascii(data, names[:flate_from])
        for _ in names[flate_from:]:
            data, warning = inflate(data, limit)
            if warning:
                break
    else:
        _refuse_past_cap(stream, names, limit)
        try:
            # qpdf's "generalized" default leaves RunLength (§7.4.5) undecoded;
            # "specialized" adds it and stops short of the lossy image filters.
            data = stream.read_bytes(decode_level=pikepdf.StreamDecodeLevel.specialized)
        except pikepdf.PdfError as exc:
            raise StreamDecodeError(f"cannot decode stream with filters {' '.join(names)}: {exc}") from exc
    if len(data) > limit:
        raise StreamLimitError(f"content stream decodes to {len(data)} bytes, over the {limit} cap")
    return data, warning


def _refuse_past_cap(stream: pikepdf.Stream, names: list[str], limit: int) -> None:
    """Raise StreamLimitError when qpdf would decode `stream` past `limit`.

    Filters are followed in order on the raw bytes: ASCII filters decoded,
    Flate inflated under the cap, LZW and RunLength sized by ``decoded_size``.
    Predictors (§7.4.4.4) never add bytes, so they do not change the bound.
    The walk ends at the first filter whose output it does not build (LZW,
    RunLength, Flate with a predictor, image filters): that filter's own
    size is bounded, and anything after it is checked once qpdf has decoded."""
    data = stream.read_raw_bytes()
    for index, name in enumerate(names):
        if name in _SHRINKING:
            data = _decode_ascii(data, [name])
            continue
        parms = _decode_parms(stream, index)
        last = index == len(names) - 1
        if name in _FLATE and (not last or len(data) * FLATE_MAX_RATIO > limit):
            data, _ = inflate(data, limit)
            if parms is None:
                continue
        elif name in _LZW and len(data) * LZW_MAX_RATIO > limit:
            early_change = int(parms.get("/EarlyChange", 1)) if parms is not None else 1
            if lzw_decoded_size(data, early_change, limit) > limit:
                raise StreamLimitError(f"content stream decodes past {limit} bytes (LZWDecode)")
        elif (
            name in _RUN_LENGTH
            and len(data) * RUN_LENGTH_MAX_RATIO > limit
            and run_length_decoded_size(data, limit) > limit
        ):
            raise StreamLimitError(f"content stream decodes past {limit} bytes (RunLengthDecode)")
        return


def _decode_parms(stream: pikepdf.Stream, index: int) -> pikepdf.Dictionary | None:
    """The /DecodeParms entry of the `index`-th filter (§7.3.8.2, Table 5)."""
    parms = stream.get("/DecodeParms")
    if isinstance(parms, pikepdf.Array):
        parms = parms[index] if index < len(parms) else None
    return parms if isinstance(parms, pikepdf.Dictionary) else None


def _ascii_hex(data: bytes) -> bytes:
    """ASCIIHexDecode (§7.4.2): hex digits up to '>', white space ignored,
    an odd last digit followed by 0."""
    digits = bytes(data.split(b">", 1)[0].translate(None, _WHITESPACE))
    if len(digits) % 2:
        digits += b"0"
    return binascii.unhexlify(digits)


def _ascii85(data: bytes) -> bytes:
    """ASCII85Decode (§7.4.3): base-85 groups up to '~>', white space ignored."""
    return base64.a85decode(data.split(b"~>", 1)[0].translate(None, _WHITESPACE), adobe=False)


_WHITESPACE = b"\x00\t\n\x0c\r "
_ASCII_DECODERS = {"/ASCIIHexDecode": _ascii_hex, "/AHx": _ascii_hex, "/ASCII85Decode": _ascii85, "/A85": _ascii85}


def _decode_ascii(data: bytes, names: list[str]) -> bytes:
    """`data` through the ASCII filters `names`, in order."""
    for name in names:
        try:
            data = _ASCII_DECODERS[name](data)
        except ValueError as exc:  # binascii.Error is a ValueError
            raise StreamDecodeError(f"cannot decode stream with filter {name}: {exc}") from exc
    return data
