"""Embedded font programs: the last source of Unicode for codes nothing else maps.

Read only when a decoded string holds a code that ToUnicode and the encoding
left unmapped, and read once per font. What is taken from each kind:

- FontFile2 (TrueType) and FontFile3 /OpenType: the glyph order and the cmap
  subtables. Simple fonts look a code up in the (3,0) symbol subtable at
  0xF000+code, else the (1,0) Mac subtable (§9.6.6.4); CIDFontType2 maps CID
  to glyph through /CIDToGIDMap (§9.7.4.2). A glyph's Unicode is found by
  reversing the Unicode subtables, else from its name through the AGL.
- FontFile3 /Type1C and /CIDFontType0C (bare CFF): the built-in encoding and
  the charset's glyph names (name-keyed fonts), or the charset's CIDs
  (CID-keyed fonts, whose glyph names carry no Unicode).
- FontFile (Type 1): the built-in encoding from the cleartext part; the
  glyph programs are encrypted and carry no Unicode anyway.

The format is taken from the program's first bytes where they tell (OpenType
in /FontFile2 and CFF under a wrong /Subtype occur), else from the key.
fontTools raises all kinds of exceptions on the damaged and subsetted fonts
PDF files contain; every one is caught here and turned into a warning.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragprep.extract.errors import describe
from ragprep.extract.fonts import pdfvalues as pv
from ragprep.extract.fonts.encoding_tables import STANDARD
from ragprep.extract.fonts.names import glyph_name_to_unicode

_TYPE1_DUP = re.compile(rb"dup\s+(\d+)\s*/([^\s/\[\]{}()<>]+)\s+put")
# Unicode cmap subtables, most complete first: (3,10) and (0,4)/(0,6) hold
# the full repertoire, (3,1) and (0,3) the Basic Multilingual Plane.
_UNICODE_SUBTABLES = ((3, 10), (0, 6), (0, 4), (3, 1), (0, 3), (0, 2), (0, 1), (0, 0))


@dataclass
class FontProgram:
    """What text extraction needs from one embedded font program."""

    kind: str
    glyph_order: list[str] = field(default_factory=list)
    # Built-in encoding (Type 1, CFF): code -> glyph name.
    builtin_encoding: dict[int, str] = field(default_factory=dict)
    # TrueType cmap subtables by (platform, encoding): code -> glyph name.
    cmaps: dict[tuple[int, int], Mapping[int, str]] = field(default_factory=dict)
    # Glyph name -> Unicode, from reversing the Unicode cmap subtables.
    name_unicode: dict[str, str] = field(default_factory=dict)
    # CID-keyed CFF: CID -> glyph index.
    cid_to_gid: dict[int, int] | None = None
    glyph_set: frozenset[str] = frozenset()

    def glyph_name(self, gid: int) -> str | None:
        if 0 <= gid < len(self.glyph_order):
            return self.glyph_order[gid]
        return None

    def has_glyph(self, glyph: str) -> bool:
        return glyph in self.glyph_set

    def text_for_glyph(self, glyph: str | None) -> str | None:
        """Unicode of a glyph of this font: reversed cmap, else its name."""
        if glyph is None:
            return None
        return self.name_unicode.get(glyph) or glyph_name_to_unicode(glyph)

    def glyph_for_simple_code(self, code: int) -> str | None:
        """The glyph a simple TrueType font shows for a code without a usable name (§9.6.6.4)."""
        symbol = self.cmaps.get((3, 0))
        if symbol is not None:
            for candidate in (code, 0xF000 + code, 0xF100 + code, 0xF200 + code):
                glyph = symbol.get(candidate)
                if glyph is not None:
                    return glyph
        mac = self.cmaps.get((1, 0))
        if mac is not None:
            return mac.get(code)
        return None

    def glyph_for_cid(self, cid: int, cid_to_gid: bytes | None) -> str | None:
        """The glyph a CIDFont shows for a CID (§9.7.4.2; CFF charsets for CID-keyed fonts)."""
        if self.cid_to_gid is not None:
            gid = self.cid_to_gid.get(cid)
            return None if gid is None else self.glyph_name(gid)
        if cid_to_gid is not None:
            if 2 * cid + 2 > len(cid_to_gid):
                return None
            gid = (cid_to_gid[2 * cid] << 8) | cid_to_gid[2 * cid + 1]
        else:
            gid = cid
        return self.glyph_name(gid)


@contextlib.contextmanager
def _fonttools_log_muted() -> Iterator[None]:
    """Keep fontTools' complaints about the fonts it reads (``2 extra bytes in
    post.stringData array`` ...) off stderr while one program loads: subset
    fonts in PDFs trip them constantly and nobody can act on them. What
    matters surfaces as an exception, which becomes a font warning."""
    logger = logging.getLogger("fontTools")
    handler = logging.NullHandler()
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.propagate = propagate
        logger.removeHandler(handler)


def load_program(descriptor: Any, max_bytes: int) -> tuple[FontProgram | None, list[str]]:
    """Read the embedded font program of a font descriptor, if there is one."""
    for key in ("/FontFile2", "/FontFile3", "/FontFile"):
        stream = pv.get(descriptor, key)
        if stream is not None:
            break
    else:
        return None, []
    data, problem = pv.read_stream(stream, max_bytes)
    if data is None:
        return None, [f"embedded font program unreadable ({problem})"]
    warnings = [f"embedded font program: {problem}"] if problem else []
    kind = _sniff(data) or {"/FontFile2": "sfnt", "/FontFile3": "cff"}.get(key, "type1")
    if key == "/FontFile3" and pv.name(pv.get(stream, "/Subtype")) == "OpenType":
        kind = "sfnt"
    try:
        with _fonttools_log_muted():
            if kind == "sfnt":
                program = _sfnt(data)
            elif kind == "cff":
                program = _bare_cff(data)
            else:
                program = _type1(data, pv.integer(pv.get(stream, "/Length1")))
        program.glyph_set = frozenset(program.glyph_order)
        return program, warnings
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception as exc:  # damaged or unsupported program: every fontTools error lands here
        return None, [*warnings, f"embedded font program unreadable ({describe(exc)})"]


def _sniff(data: bytes) -> str | None:
    """The program's real format from its first bytes: producers put
    OpenType in /FontFile2 or bare CFF under the wrong /Subtype often enough."""
    if data[:4] in (b"\x00\x01\x00\x00", b"OTTO", b"true", b"ttcf"):
        return "sfnt"
    if data[:2] in (b"%!", b"\x80\x01"):
        return "type1"
    if data[:1] == b"\x01" and len(data) > 4 and data[2] >= 4:  # CFF header: major 1, header size >= 4
        return "cff"
    return None


def _sfnt(data: bytes) -> FontProgram:
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(data), lazy=True, recalcBBoxes=False, recalcTimestamp=False, fontNumber=0)
    program = FontProgram(kind="TrueType")
    if "CFF " in font:
        program.kind = "OpenType-CFF"
        _read_cff_top(font["CFF "].cff, program)
    elif _has_glyph_names(font):
        program.glyph_order = list(font.getGlyphOrder())
    elif "maxp" in font:
        # No glyph names in the font (post format 3, or no post table, as in
        # most subsets): fontTools would invent them from the cmap, which
        # costs more than everything else here. Index names do the same job.
        count = int(font["maxp"].numGlyphs)
        program.glyph_order = [f"glyph{gid:05d}" for gid in range(count)]
        font.setGlyphOrder(program.glyph_order)
    if "cmap" in font:
        # Subtables decompile on first access: read only the symbol, Mac and
        # best Unicode ones (CJK fonts carry several copies of 20,000 codes).
        subtables = {(t.platformID, t.platEncID): t for t in font["cmap"].tables}
        unicode_key = next((key for key in _UNICODE_SUBTABLES if key in subtables), None)
        for key in ((3, 0), (1, 0), unicode_key):
            if key is not None and key in subtables:
                try:
                    program.cmaps[key] = subtables[key].cmap
                except MemoryError:
                    raise  # the document fails (MemoryLimitError), never a warning
                except Exception:  # one damaged subtable must not hide the others
                    continue
        if unicode_key in program.cmaps:
            program.name_unicode = reverse_unicode_cmap(program.cmaps[unicode_key])
    return program


def _has_glyph_names(font: Any) -> bool:
    if "post" not in font:
        return False
    try:
        return float(font["post"].formatType) in (1.0, 2.0)
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception:
        return False


def reverse_unicode_cmap(table: Mapping[int, str]) -> dict[str, str]:
    """Glyph name -> Unicode from a Unicode cmap subtable.

    A glyph reached from several code points takes the lowest one outside the
    Private Use Areas (a PUA code point is a font-internal alias, not text).
    """
    codes = sorted(table, reverse=True)
    private = [c for c in codes if 0xE000 <= c <= 0xF8FF or 0xF0000 <= c <= 0x10FFFF]
    public = [c for c in codes if c < 0xD800 or 0xF8FF < c < 0xF0000]
    # Later entries win: private-use first, then public code points, each
    # from the highest down, so the lowest public code point is kept.
    result = {table[c]: chr(c) for c in private}
    result.update({table[c]: chr(c) for c in public})
    return result


def _bare_cff(data: bytes) -> FontProgram:
    from fontTools.cffLib import CFFFontSet

    cff = CFFFontSet()
    cff.decompile(io.BytesIO(data), None)
    program = FontProgram(kind="CFF")
    _read_cff_top(cff, program)
    return program


def _read_cff_top(cff: Any, program: FontProgram) -> None:
    top = cff[cff.fontNames[0]]
    charset = list(top.charset or [])
    program.glyph_order = charset
    if hasattr(top, "ROS"):
        # CID-keyed: the charset names glyphs "cidNNNNN" after their CID.
        program.cid_to_gid = {}
        for gid, glyph in enumerate(charset):
            if glyph.startswith("cid") and glyph[3:].isdigit():
                program.cid_to_gid[int(glyph[3:])] = gid
            elif gid == 0:
                program.cid_to_gid[0] = 0
        return
    encoding = getattr(top, "Encoding", None)
    if encoding == "StandardEncoding" or encoding is None:
        program.builtin_encoding = dict(STANDARD)
    elif isinstance(encoding, list):
        program.builtin_encoding = {
            code: glyph for code, glyph in enumerate(encoding[:256]) if glyph and glyph != ".notdef"
        }
    # "ExpertEncoding" (rare): leave the built-in encoding empty.


def _type1(data: bytes, length1: int | None) -> FontProgram:
    if data[:2] == b"\x80\x01":  # PFB segment header: cleartext segment length follows
        size = int.from_bytes(data[2:6], "little")
        clear = data[6 : 6 + size]
    else:
        # The cleartext ends at /Length1 where the data holds it, else at eexec,
        # else with the data.
        end = length1 if length1 and 0 < length1 <= len(data) else data.find(b"eexec")
        clear = data[: end if end >= 0 else len(data)]
    program = FontProgram(kind="Type1")
    if re.search(rb"/Encoding\s+StandardEncoding\s+def", clear):
        program.builtin_encoding = dict(STANDARD)
    else:
        for code, glyph in _TYPE1_DUP.findall(clear):
            value = int(code)
            if 0 <= value <= 255:
                program.builtin_encoding[value] = glyph.decode("latin-1")
    return program
