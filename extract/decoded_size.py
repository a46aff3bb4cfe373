"""How many bytes a filter will decode to, found without building them.

qpdf decodes LZW and RunLength (and Flate with a predictor) in one call, so a
small stream that expands past ``extract.max_stream_bytes`` would be held in
full before its size could be checked. These walkers read only the codes
(LZW) or run headers (RunLength) and stop as soon as the count passes the cap,
so ``streams.read_stream`` can refuse such a stream before qpdf decodes it.

Each filter also has a fixed worst-case ratio: a stream too short to reach
the cap at that ratio is not walked at all, which keeps the walk (a Python
loop) off every ordinary stream.
"""

from __future__ import annotations

# §7.4.4.2: codes are 9 to 12 bits, so at most 4,096 - 258 table entries; an
# entry is at most one byte longer than the previous longest, so one code
# stands for at most 3,839 bytes and 9 bits of input for no more than that.
LZW_MAX_RATIO = 3839 * 8 // 9 + 1
# §7.4.5: two bytes (a length byte and the byte to repeat) give 128 bytes.
RUN_LENGTH_MAX_RATIO = 64
# zlib's documentation (zlib.net/zlib_tech.html) gives 1032:1 as the most
# deflate can expand.
FLATE_MAX_RATIO = 1032

_CLEAR_TABLE, _EOD, _FIRST_ENTRY = 256, 257, 258
_LZW_TABLE_SIZE = 4096


def lzw_decoded_size(data: bytes, early_change: int, limit: int) -> int:
    """Decoded length of LZW `data` (§7.4.4), or the first count over `limit`.

    The table is tracked by entry lengths only: an entry is the previous
    code's string plus one byte. A code the table cannot hold ends the walk
    (qpdf reports the damage when it decodes)."""
    total, previous, width = 0, 0, 9
    lengths: list[int] = []
    accumulator = bits = 0
    for byte in data:
        accumulator, bits = (accumulator << 8) | byte, bits + 8
        while bits >= width:
            bits -= width
            code = accumulator >> bits
            accumulator &= (1 << bits) - 1
            if code == _CLEAR_TABLE:
                lengths.clear()
                previous, width = 0, 9
                continue
            if code == _EOD:
                return total
            length = _lzw_length(code, lengths, previous)
            if length == 0:
                return total
            if previous and _FIRST_ENTRY + len(lengths) < _LZW_TABLE_SIZE:
                lengths.append(previous + 1)
            previous, total = length, total + length
            if total > limit:
                return total
            # EarlyChange (Table 8): widen one code early when it is 1.
            width = min(12, (_FIRST_ENTRY + len(lengths) + early_change).bit_length())
    return total


def _lzw_length(code: int, lengths: list[int], previous: int) -> int:
    """Length of `code`'s string, or 0 for a code the table cannot hold."""
    if code < _CLEAR_TABLE:
        return 1
    entry = code - _FIRST_ENTRY
    if entry < len(lengths):
        return lengths[entry]
    # The code being defined right now (the KwKwK case of §7.4.4.2).
    if entry == len(lengths) and previous:
        return previous + 1
    return 0


def run_length_decoded_size(data: bytes, limit: int) -> int:
    """Decoded length of RunLength `data` (§7.4.5), or the first count over `limit`."""
    total = index = 0
    while index < len(data):
        length = data[index]
        if length == 128:  # EOD
            break
        if length < 128:
            total, index = total + length + 1, index + length + 2
        else:
            total, index = total + 257 - length, index + 2
        if total > limit:
            break
    return total
