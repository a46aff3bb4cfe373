"""Damaged and hostile input: bad tokens, damaged streams, operator floods,
memory exhaustion, lost page trees, qpdf's messages. Each test is named after
the defect it pins (issue 12)."""

from __future__ import annotations

import base64
import io
import re
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pikepdf
import pytest
from corpusdir import CORPUS
from pdfbuilder import PdfBuilder

from ragprep.extract import ExtractConfig, PDFReadError, extract_document
from ragprep.extract.errors import describe
from ragprep.extract.operators import count_operators, slices
from ragprep.extract.streams import inflate


def flate_zeros(chunks: int) -> bytes:
    """Deflate data of `chunks` x 16 MiB of zeros, without its end: a
    compressor in steady state emits the same bytes for each further chunk,
    so a bomb of any size costs two compressions (the reader stops at its cap
    or runs out of memory before it would miss the end)."""
    deflater = zlib.compressobj(9)
    chunk = bytes(16 * 1024 * 1024)
    first, steady = deflater.compress(chunk), deflater.compress(chunk)
    return first + steady * (chunks - 1)


def as_written(b: PdfBuilder) -> bytes:
    """The builder's PDF saved with every stream as it is: a default save
    would decode (and so inflate) the bombs these tests build."""
    out = io.BytesIO()
    b.pdf.save(out, deterministic_id=True, stream_decode_level=pikepdf.StreamDecodeLevel.none, compress_streams=False)
    return out.getvalue()


def one_page(content: bytes | str, **config: object) -> tuple[str, tuple[str, ...]]:
    b = PdfBuilder()
    b.add_standard_font("Helvetica", widths=True)
    b.add_page(content)
    page = extract_document(b.to_bytes(), mode="stream", config=ExtractConfig(**config)).pages[0]
    return page.text, page.warnings


def font_name() -> str:
    b = PdfBuilder()
    return b.add_standard_font("Helvetica", widths=True)


F = font_name()


# --------------------------------------------------------------------------- item 7: bad tokens


@pytest.mark.parametrize(
    "bad",
    [
        "[1 0 R] TJ",  # an indirect reference: not allowed in content streams (§7.8.2)
        "/P << /A 1 0 R >> BDC",  # a dictionary holding one
        "1 0 R Tj",
    ],
)
def test_an_indirect_reference_in_a_content_stream_loses_only_its_operator(bad):
    text, warnings = one_page(f"BT /{F} 12 Tf 72 700 Td (before) Tj {bad} ( after) Tj ET")
    assert text == "before after"
    assert warnings  # what was skipped is said


def test_a_stray_closing_parenthesis_does_not_lose_the_next_string():
    # ")" becomes a null operand before (after): Tj takes its last operand.
    text, warnings = one_page(f"BT /{F} 12 Tf 72 700 Td (before) Tj ) ( after) Tj ET")
    assert text == "before after"


def test_a_bad_token_among_many_operators_loses_only_its_operator():
    # Past one slice of operators: the halving finds the bad one among thousands.
    filler = " 0 0 m" * 30_000
    text, _ = one_page(f"BT /{F} 12 Tf 72 700 Td (a) Tj{filler} [1 0 R] TJ{filler} (b) Tj ET")
    assert text == "ab"


# --------------------------------------------------------------------------- item 3: operator limits


def test_operator_limit_counts_path_operators():
    # 20 path operators and 4 text ones: the budget of 10 ends before the text.
    paths = " ".join(["0 0 m 10 10 l"] * 10)
    text, warnings = one_page(
        f"{paths} BT /{F} 12 Tf 72 700 Td (late) Tj ET", max_operators_per_page=10
    )
    assert text == ""
    assert any(w.setting == "extract.max_operators_per_page" for w in warnings)


def test_operator_limit_counts_the_operators_of_forms():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    form = b.add_form(" ".join(["0 0 m 1 1 l S"] * 100))
    b.add_page(f"/P Do BT /{f} 12 Tf 72 700 Td (after) Tj ET", xobjects={"P": form})
    page = extract_document(b.to_bytes(), config=ExtractConfig(max_operators_per_page=50)).pages[0]
    assert page.text == ""
    assert any(w.setting == "extract.max_operators_per_page" for w in page.warnings)
    # Within budget, the same page reads in full.
    page = extract_document(b.to_bytes(), config=ExtractConfig(max_operators_per_page=500)).pages[0]
    assert page.text == "after"


def _run_limited(script: str, address_space_mib: int) -> subprocess.CompletedProcess[str]:
    """`script` in a fresh interpreter under an address-space limit beyond its start."""
    prelude = textwrap.dedent(
        f"""
        import resource
        status = open("/proc/self/status").read()
        size = int(next(l for l in status.splitlines() if l.startswith("VmSize:")).split()[1]) * 1024
        limit = size + {address_space_mib} * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        """
    )
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(script)], capture_output=True, text=True, timeout=300
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_AS and /proc")
def test_operator_limit_stops_before_pikepdf_builds_the_rest(tmp_path):
    # 3 M `q` operators in a 12 KB flate stream: pikepdf alone needs ~800 MB
    # to build them; within a 300 MB address space the page stops at the limit.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = b.add_page("")
    stream = b.pdf.make_stream(zlib.compress(f"BT /{f} 12 Tf 72 700 Td (first) Tj ET ".encode() + b"q " * 3_000_000, 9))
    stream.Filter = pikepdf.Name.FlateDecode
    page.obj.Contents = stream
    path = tmp_path / "flood.pdf"
    path.write_bytes(as_written(b))
    done = _run_limited(
        f"""
        from ragprep.extract import ExtractConfig, extract_document
        page = extract_document({str(path)!r}, mode="stream", config=ExtractConfig(max_operators_per_page=100_000)).pages[0]
        print(page.text, [w for w in page.warnings if w.setting == "extract.max_operators_per_page"] != [])
        """,
        300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["first", "True"]


def test_operator_count_is_the_number_of_instructions_pikepdf_parses():
    data = (
        b"q 1 0 0 1 5 5 cm BT /F1 12 Tf (Tj inside (nested) a string) Tj [(a) -5 (b)] TJ ET "
        b"% a comment with Tj in it\n/Name true false null 1.5 -.5 +3 re f* "
        b"<48656c6c6f> Tj << /MCID 0 /Tag /P >> BDC EMC "
        b"BI /W 2 /H 1 /BPC 8 /CS /G ID \x00EI\xff EI Q 12Tj"
    )
    pdf = pikepdf.new()
    expected = len(pikepdf.parse_content_stream(pikepdf.Stream(pdf, data)))
    assert count_operators(data) == expected


# The stream ends on operands with no operator (" 7 8"), which the slices
# must keep; pikepdf, the oracle here, warns about exactly that.
@pytest.mark.filterwarnings("ignore:Unexpected end of stream:UserWarning")
def test_slices_cut_between_operators_and_keep_inline_images_whole():
    data = b"".join(b"%d 0 m (x) Tj BI /W 1 /H 1 ID \x00 EI " % i for i in range(50)) + b" 7 8"
    pieces = list(slices(data, 7))
    assert b"".join(data[p.start : p.end] for p in pieces) == data
    assert all(p.operators <= 7 for p in pieces)
    assert sum(p.operators for p in pieces) == count_operators(data) == 150
    pdf = pikepdf.new()
    whole = [str(i.operator) for i in pikepdf.parse_content_stream(pikepdf.Stream(pdf, data))]
    parts = [
        str(i.operator)
        for p in pieces
        for i in pikepdf.parse_content_stream(pikepdf.Stream(pdf, data[p.start : p.end]))
    ]
    assert parts == whole


# --------------------------------------------------------------------------- item 8: damaged streams


def _flate_page(compressed: bytes, filters: object = pikepdf.Name.FlateDecode) -> bytes:
    b = PdfBuilder()
    b.add_standard_font("Helvetica", widths=True)
    page = b.add_page("")
    stream = b.pdf.make_stream(compressed)
    stream.Filter = filters
    page.obj.Contents = stream
    return as_written(b)


def test_a_checksum_error_at_the_end_of_a_stream_keeps_what_inflated():
    compressed = bytearray(zlib.compress(f"BT /{F} 12 Tf 72 700 Td (kept text) Tj ET".encode()))
    compressed[-1] ^= 0xFF  # the Adler-32 checksum (RFC 1950)
    page = extract_document(_flate_page(bytes(compressed)), mode="stream").pages[0]
    assert page.text == "kept text"
    assert any("damaged FlateDecode" in w.message for w in page.warnings)


def test_a_truncated_stream_keeps_what_inflated():
    lines = " ".join(f"0 -14 Td (line{i}) Tj" for i in range(200))
    compressed = zlib.compress(f"BT /{F} 12 Tf 72 700 Td {lines} ET".encode())
    page = extract_document(_flate_page(compressed[: len(compressed) * 2 // 3]), mode="stream").pages[0]
    assert page.text.startswith("line0\nline1\nline2")
    assert any("ends early" in w.message for w in page.warnings)


def test_inflate_keeps_everything_before_damage_in_the_middle():
    # Text-like data, 5 MB: damage halfway through the compressed bytes.
    words = [b"alpha", b"beta", b"gamma", b"delta", b"epsilon", b"zeta"]
    rng = __import__("random").Random(12)
    payload = b" ".join(rng.choice(words) for _ in range(800_000))
    compressed = bytearray(zlib.compress(payload))
    compressed[len(compressed) // 2] ^= 0x55
    data, warning = inflate(bytes(compressed), 1 << 30)
    assert warning is not None and "damaged FlateDecode" in warning
    # Everything up to about the damage is kept, not just the first slice.
    assert data[: len(payload) // 3] == payload[: len(payload) // 3]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_AS and /proc")
def test_the_size_cap_holds_while_decoding_an_ascii85_flate_chain(tmp_path):
    # 2 GiB of zeros behind [/ASCII85Decode /FlateDecode]: qpdf would decode all
    # of it before the cap was checked; within 600 MB it must stop at the cap.
    encoded = base64.a85encode(flate_zeros(128)) + b"~>"
    path = tmp_path / "bomb.pdf"
    path.write_bytes(_flate_page(encoded, pikepdf.Array([pikepdf.Name.ASCII85Decode, pikepdf.Name.FlateDecode])))
    done = _run_limited(
        f"""
        from ragprep.extract import ExtractConfig, extract_document
        page = extract_document({str(path)!r}, mode="stream", config=ExtractConfig(max_stream_bytes=10_000_000)).pages[0]
        print([w for w in page.warnings if w.setting == "extract.max_stream_bytes"] != [])
        """,
        600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True"]


def test_zen_of_python_corrupted_is_read_with_its_text():
    path = CORPUS / "broken" / "zen-of-python-corrupted.pdf"
    if not path.is_file():
        pytest.skip(f"corpus file {path} not present (set RAGPREP_CORPUS)")
    page = extract_document(path).pages[0]
    assert "Beautiful is better than ugly" in page.text
    assert any("damaged FlateDecode" in w.message for w in page.warnings)


# --------------------------------------------------------------------------- item 4: MemoryError


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_AS and /proc")
def test_memory_error_inside_a_form_fails_the_document_instead_of_a_warning(tmp_path):
    # A form inflating to 1 GiB under a 400 MB address space, with the stream cap
    # raised past it: the MemoryError met inside `Do` must leave the document.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    form = b.add_form("")
    form.write(flate_zeros(64), filter=pikepdf.Name.FlateDecode)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (text) Tj ET /X Do", xobjects={"X": form})
    path = tmp_path / "hungry.pdf"
    path.write_bytes(as_written(b))
    done = _run_limited(
        f"""
        from ragprep.extract import ExtractConfig, extract_document
        try:
            page = extract_document({str(path)!r}, mode="stream", config=ExtractConfig(max_stream_bytes=4 << 30)).pages[0]
            print("ok", page.warnings)
        except MemoryError:
            print("MemoryError")
        """,
        400,
    )
    assert done.stdout.strip() == "MemoryError", done.stdout + done.stderr[-2000:]


def test_no_handler_in_extract_turns_memory_error_into_a_warning():
    # Every `except Exception` in extract/ must let MemoryError through: the
    # pipeline turns it into a MemoryLimitError row and retires the worker.
    import ast

    root = Path(__file__).resolve().parents[2] / "extract"
    offenders = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Try):
                continue
            names: list[str] = []
            for handler in node.handlers:
                caught = handler.type
                kinds = caught.elts if isinstance(caught, ast.Tuple) else [caught]
                labels = [k.id if isinstance(k, ast.Name) else getattr(k, "attr", "") for k in kinds if k is not None]
                reraises = bool(handler.body) and isinstance(handler.body[-1], ast.Raise) and handler.body[-1].exc is None
                if (caught is None or {"Exception", "BaseException"} & set(labels)) and not reraises and "MemoryError" not in names:
                        offenders.append(f"{path.relative_to(root)}:{handler.lineno}")
                names.extend(labels)
    assert offenders == []


# --------------------------------------------------------------------------- item 9: page recovery


def _pages_tree_file(pages: int = 3) -> tuple[bytes, int]:
    """A file whose pages take /Resources from the page tree (§7.7.3.4), and its /Pages object number."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    for i in range(pages):
        b.add_page(f"BT /{f} 12 Tf 72 700 Td (page{i + 1}) Tj ET")
    root = b.pdf.Root.Pages
    root.Resources = b.pdf.pages[0].obj.Resources
    for page in b.pdf.pages:
        del page.obj["/Resources"]
    out = io.BytesIO()
    b.pdf.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate, deterministic_id=True)
    return out.getvalue(), root.objgen[0]


def test_a_page_tree_loop_is_recovered_by_scanning_for_pages():
    data, _ = _pages_tree_file()
    b = pikepdf.open(io.BytesIO(data))
    b.Root.Pages.Kids.append(b.Root.Pages)  # /Pages lists itself
    out = io.BytesIO()
    b.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    result = extract_document(out.getvalue(), mode="stream")
    assert [p.text for p in result.pages] == ["page1", "page2", "page3"]
    assert any("recovered 3 pages" in w.message for w in result.pages[0].warnings)


def test_a_file_without_trailer_and_root_is_recovered_with_inherited_resources():
    data, _ = _pages_tree_file()
    data = data.replace(b"/Root", b"/Rooo")  # in the xref stream: no catalog
    with pytest.raises(pikepdf.PdfError):
        pikepdf.open(io.BytesIO(data))
    result = extract_document(data, mode="stream")
    assert [p.text for p in result.pages] == ["page1", "page2", "page3"]
    assert any("recovered 3 pages" in w.message for w in result.pages[0].warnings)


def test_a_file_with_no_page_objects_stays_an_error():
    with pytest.raises(PDFReadError, match="cannot be read as a PDF"):
        extract_document(b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n")


# --------------------------------------------------------------------------- item 10: messages


def test_qpdf_messages_go_to_the_page_warnings_not_to_stderr(tmp_path):
    data, _ = _pages_tree_file()
    damaged = re.sub(rb"startxref\s+\d+", b"startxref\n999999", data)
    path = tmp_path / "damaged.pdf"
    path.write_bytes(damaged)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom ragprep.extract import extract_document\n"
            f"r = extract_document({str(path)!r}, mode='stream')\n"
            "print(r.pages[0].text, any(w.kind.value == 'qpdf' for w in r.pages[0].warnings))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["page1", "True"]
    assert done.stderr == ""


def test_an_operator_with_too_few_operands_says_so():
    text, warnings = one_page(f"BT /{F} Tf 72 700 Td (x) Tj ET")
    assert "operator Tf skipped: it needs 2 operands, got 1" in [w.message for w in warnings]


def test_warnings_never_show_a_bare_exception_name():
    assert describe(IndexError()) == "IndexError without a message"
    assert describe(TypeError("bad operand\nmore")) == "TypeError: bad operand"
