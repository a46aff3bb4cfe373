"""The stream cap holds while decoding LZW and RunLength, not after.

qpdf decodes these filters in one call, so ragprep sizes them first
(extract/decoded_size.py). The sizes are checked against what qpdf itself
decodes from streams built here, and a bomb of each kind must stop at the cap
inside an address space far smaller than its output.
"""

from __future__ import annotations

import io
import random
import subprocess
import sys
import textwrap

import pikepdf
import pytest
from pdfbuilder import PdfBuilder
from test_damaged_input import flate_zeros

from ragprep.extract import ExtractConfig, extract_document
from ragprep.extract.decoded_size import lzw_decoded_size, run_length_decoded_size

F = "F1"


class _Bits:
    """MSB-first bit packer (§7.4.4.2 packs codes high-order bit first)."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.pending = self.pending_bits = self.count = 0

    def write(self, code: int, width: int) -> None:
        self.pending, self.pending_bits = (self.pending << width) | code, self.pending_bits + width
        self.count += width
        while self.pending_bits >= 8:
            self.pending_bits -= 8
            self.out.append(self.pending >> self.pending_bits)
            self.pending &= (1 << self.pending_bits) - 1

    def to_bytes(self) -> bytes:
        tail = bytes([self.pending << (8 - self.pending_bits)]) if self.pending_bits else b""
        return bytes(self.out) + tail


def lzw_encode(data: bytes, early_change: int) -> bytes:
    """A plain LZW encoder: clear code first, a new table when it fills."""
    bits = _Bits()
    table = {bytes([i]): i for i in range(256)}
    next_code, width = 258, 9
    bits.write(256, width)
    word = b""
    for byte in data:
        extended = word + bytes([byte])
        if extended in table:
            word = extended
            continue
        bits.write(table[word], width)
        table[extended] = next_code
        next_code += 1
        word = bytes([byte])
        # The decoder is one entry behind the encoder (it defines an entry
        # only on the code after), hence next_code - 1.
        width = min(12, (next_code - 1 + early_change).bit_length())
        if next_code >= 4094:
            bits.write(256, width)
            table = {bytes([i]): i for i in range(256)}
            next_code, width = 258, 9
    if word:
        bits.write(table[word], width)
        width = min(12, (next_code + early_change).bit_length())
    bits.write(257, width)
    return bits.to_bytes()


def run_length_encode(data: bytes) -> bytes:
    """RunLength (§7.4.5): repeats of 2-128 bytes as runs, the rest literal."""
    out, index = bytearray(), 0
    while index < len(data):
        run = 1
        while index + run < len(data) and run < 128 and data[index + run] == data[index]:
            run += 1
        if run > 1:
            out += bytes([257 - run, data[index]])
        else:
            literal = data[index : index + 128]
            out += bytes([len(literal) - 1]) + literal
            run = len(literal)
        index += run
    return bytes(out + b"\x80")


def _stream_pdf(encoded: bytes, filter_name: str, parms: dict[str, int] | None = None) -> bytes:
    b = PdfBuilder()
    b.add_standard_font("Helvetica", widths=True)
    page = b.add_page("")
    stream = b.pdf.make_stream(encoded)
    stream.Filter = pikepdf.Name(filter_name)
    if parms:
        stream.DecodeParms = pikepdf.Dictionary({f"/{k}": v for k, v in parms.items()})
    page.obj.Contents = stream
    out = io.BytesIO()
    b.pdf.save(out, compress_streams=False, stream_decode_level=pikepdf.StreamDecodeLevel.none)
    return out.getvalue()


def _qpdf_decoded(pdf_bytes: bytes) -> bytes:
    with pikepdf.open(io.BytesIO(pdf_bytes)) as pdf:
        return pdf.pages[0].obj.Contents.read_bytes(decode_level=pikepdf.StreamDecodeLevel.specialized)


def _samples() -> list[bytes]:
    rng = random.Random(7)
    text = b"".join(rng.choice([b"the ", b"page ", b"text ", b"BT ", b"(Tj) ", b"\n"]) for _ in range(60_000))
    return [b"", b"a", bytes(rng.randrange(256) for _ in range(20_000)), text, bytes(100_000)]


@pytest.mark.parametrize("early_change", [0, 1])
def test_lzw_size_is_what_qpdf_decodes(early_change):
    for data in _samples():
        encoded = lzw_encode(data, early_change)
        pdf = _stream_pdf(encoded, "/LZWDecode", {"EarlyChange": early_change})
        assert _qpdf_decoded(pdf) == data  # the encoder is right...
        assert lzw_decoded_size(encoded, early_change, 1 << 40) == len(data)  # ...and so is the size


def test_run_length_size_is_what_qpdf_decodes():
    for data in _samples():
        encoded = run_length_encode(data)
        assert _qpdf_decoded(_stream_pdf(encoded, "/RunLengthDecode")) == data
        assert run_length_decoded_size(encoded, 1 << 40) == len(data)


def test_sizes_stop_counting_past_the_limit():
    encoded = lzw_encode(bytes(1_000_000), 1)
    assert 1000 < lzw_decoded_size(encoded, 1, 1000) < 1_000_000
    assert 1000 < run_length_decoded_size(run_length_encode(bytes(1_000_000)), 1000) < 1_000_000


def test_a_stream_under_the_cap_reads_through_either_filter():
    content = f"BT /{F} 12 Tf 72 700 Td (packed text) Tj ET".encode()
    for encoded, name in ((lzw_encode(content, 1), "/LZWDecode"), (run_length_encode(content), "/RunLengthDecode")):
        # A cap below the worst case of the raw length makes the size walk run.
        page = extract_document(_stream_pdf(encoded, name), config=ExtractConfig(max_stream_bytes=len(content) + 1))
        assert page.pages[0].text == "packed text"


def test_a_stream_over_the_cap_is_refused_with_the_setting_named():
    content = f"BT /{F} 12 Tf 72 700 Td (packed text) Tj ET ".encode() * 200
    for encoded, name in ((lzw_encode(content, 1), "/LZWDecode"), (run_length_encode(content), "/RunLengthDecode")):
        page = extract_document(_stream_pdf(encoded, name), config=ExtractConfig(max_stream_bytes=len(content) // 2))
        assert page.pages[0].text == ""
        assert any(w.setting == "extract.max_stream_bytes" and name[1:] in w.message for w in page.pages[0].warnings)


def _lzw_zeros_bomb(tables: int) -> bytes:
    """LZW codes for `tables` x 7.4 MB of zeros, written without the zeros:
    after a clear, a run of zeros encodes as 0, 258, 259, ... each code one
    byte longer than the last, until the table fills."""
    bits = _Bits()
    for _ in range(tables):
        bits.write(256, 9 if not bits.count else 12)
        codes = [0, *range(258, 4094)]
        for index, code in enumerate(codes):
            bits.write(code, min(12, (258 + max(index - 1, 0) + 1).bit_length()))
    bits.write(257, 12)
    return bits.to_bytes()


def test_the_zeros_bomb_builder_is_what_qpdf_decodes():
    encoded = _lzw_zeros_bomb(2)
    decoded = _qpdf_decoded(_stream_pdf(encoded, "/LZWDecode"))
    assert decoded == bytes(len(decoded)) and len(decoded) == 2 * sum(range(1, 4094 - 258 + 2))
    assert lzw_decoded_size(encoded, 1, 1 << 40) == len(decoded)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_AS and /proc")
@pytest.mark.parametrize("kind", ["lzw", "run-length", "flate-predictor"])
def test_the_cap_holds_while_decoding_a_bomb(tmp_path, kind):
    # About 2 GiB of zeros each; within 600 MB of address space the page must
    # stop at the cap rather than let qpdf build them.
    parms = None
    if kind == "lzw":
        encoded, name = _lzw_zeros_bomb(300), "/LZWDecode"
    elif kind == "run-length":
        encoded, name = bytes([129, 0]) * (18 << 20), "/RunLengthDecode"
    else:  # PNG predictor rows of zeros (§7.4.4.4): qpdf inflates them whole
        encoded, name, parms = flate_zeros(128), "/FlateDecode", {"Predictor": 12, "Columns": 4}
    path = tmp_path / "bomb.pdf"
    path.write_bytes(_stream_pdf(encoded, name, parms))
    script = f"""
        import resource
        status = open("/proc/self/status").read()
        size = int(next(l for l in status.splitlines() if l.startswith("VmSize:")).split()[1]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + 600 * 2**20, size + 600 * 2**20))
        from ragprep.extract import ExtractConfig, extract_document
        page = extract_document({str(path)!r}, mode="stream", config=ExtractConfig(max_stream_bytes=10_000_000)).pages[0]
        print([w for w in page.warnings if w.setting == "extract.max_stream_bytes"] != [])
        """
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True"]
