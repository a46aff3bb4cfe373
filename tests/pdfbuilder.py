"""A small builder of fixture PDFs for ragprep's tests, on top of pikepdf.

Tests never depend on third-party PDFs: they build exactly the page they need
(fonts, content streams written raw, form XObjects, a structure tree) and assert
the exact text that comes out. The builder writes content streams byte for byte
as given and never rewrites them, so a test controls every operator.

Conventions:
- A content piece given as ``str`` is encoded as Latin-1, one character per
  byte, so ``"(caf\\xe9) Tj"`` shows the byte 0xE9. Pass ``bytes`` for anything
  else, or use :func:`literal` / :func:`hexstr` to build string operands.
- All pages and forms (unless told otherwise) share one indirect /Font
  dictionary, so a font added after a page still reaches that page.
- Output is deterministic: the same calls give the same bytes
  (``deterministic_id=True``, no /Info unless :meth:`PdfBuilder.set_info`).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pikepdf
from pikepdf import Array, Dictionary, Name, String

Content = str | bytes
Matrix = tuple[float, float, float, float, float, float]
Rect = tuple[float, float, float, float]

# Standard fonts whose built-in encoding is not a Latin one (§9.6.6.2): their
# code -> glyph mapping is not in the encoding tables we use for /Widths.
_SYMBOLIC_STANDARD_FONTS = frozenset({"Symbol", "ZapfDingbats"})

# ToUnicode CMaps keep at most 100 entries per beginbfchar block
# (Adobe Technical Note #5014, referenced by ISO 32000-1 §9.10.3).
_BFCHAR_BLOCK = 100


# --------------------------------------------------------------------------- helpers


def hexstr(data: bytes) -> str:
    """A PDF hex string for a content stream: ``<0001 0002>`` for 2-byte codes.

    Even-length data is grouped in 2-byte codes (CID fonts), odd-length data per
    byte; white space inside a hex string is ignored by readers (§7.3.4.3).
    """
    step = 2 if len(data) % 2 == 0 else 1
    groups = (data[i : i + step].hex().upper() for i in range(0, len(data), step))
    return "<" + " ".join(groups) + ">"


def literal(text: str, encoding: str = "WinAnsiEncoding") -> str:
    """A PDF literal string ``(...)`` for ``text`` in a simple-font encoding.

    Characters are mapped to their code in ``encoding`` (so ’ becomes 0x92 in
    WinAnsiEncoding); codes >= 0x80 and the delimiters are escaped (§7.3.4.2)
    so the content stream stays printable ASCII.
    """
    codes = _encode_simple(text, encoding)
    out = []
    for code in codes:
        ch = chr(code)
        if ch in "()\\":
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{code:03o}")
    return "(" + "".join(out) + ")"


def text_width(text: str, base_font: str = "Helvetica", size: float = 12.0) -> float:
    """Advance of ``text`` in a standard-14 font at ``size``, without Tc/Tw/Tz.

    Widths come from the standard AFM metrics (pdfminer's copy of them), in
    thousandths of text space (§9.2.4), so fixtures can place words exactly.
    """
    metrics = _standard_metrics(base_font)
    missing = sorted({ch for ch in text if ch not in metrics})
    if missing:
        raise ValueError(f"{base_font} has no glyph for {missing!r}")
    return sum(metrics[ch] for ch in text) * size / 1000.0


def wrap(words: list[str], width: float, size: float = 10.0, base_font: str = "Helvetica") -> list[str]:
    """``words`` set in lines of at most ``width`` points (a longer word
    stands alone), measured with :func:`text_width`."""
    lines: list[str] = []
    line: list[str] = []
    for word in words:
        if line and text_width(" ".join([*line, word]), base_font, size) > width:
            lines.append(" ".join(line))
            line = []
        line.append(word)
    return [*lines, " ".join(line)] if line else lines


def pdf_object(value: Any) -> Any:
    """Convert a plain Python value to a pikepdf object.

    ``"/Name"`` strings become names, other strings text strings, dict keys may
    be given with or without the leading slash; pikepdf objects pass through.
    """
    if isinstance(value, pikepdf.Object | pikepdf.Page):
        return value.obj if isinstance(value, pikepdf.Page) else value
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return Name(value) if value.startswith("/") else String(value)
    if isinstance(value, bytes):
        return String(value)
    if isinstance(value, list | tuple):
        return Array([pdf_object(v) for v in value])
    if isinstance(value, Mapping):
        return Dictionary({_key(k): pdf_object(v) for k, v in value.items()})
    raise TypeError(f"cannot convert {type(value).__name__} to a PDF object")


def to_unicode_cmap(mapping: Mapping[bytes, str]) -> bytes:
    """A ToUnicode CMap (§9.10.3) mapping each code (1 or 2 bytes) to its text.

    The destination is UTF-16BE, so characters outside the BMP are written as
    surrogate pairs, as the CMap format requires.
    """
    code_len = {len(code) for code in mapping} or {2}
    if len(code_len) != 1:
        raise ValueError("all codes of one ToUnicode CMap must have the same length")
    (n_bytes,) = code_len
    lo, hi = "00" * n_bytes, "FF" * n_bytes
    lines = [
        "/CIDInit /ProcSet findresource begin",
        "12 dict begin",
        "begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Adobe-Identity-UCS def",
        "/CMapType 2 def",
        "1 begincodespacerange",
        f"<{lo}> <{hi}>",
        "endcodespacerange",
    ]
    items = sorted(mapping.items())
    for start in range(0, len(items), _BFCHAR_BLOCK):
        block = items[start : start + _BFCHAR_BLOCK]
        lines.append(f"{len(block)} beginbfchar")
        lines += [f"<{code.hex().upper()}> <{_utf16_hex(text)}>" for code, text in block]
        lines.append("endbfchar")
    lines += [
        "endcmap",
        "CMapName currentdict /CMap defineresource pop",
        "end",
        "end",
    ]
    return ("\n".join(lines) + "\n").encode("ascii")


def _utf16_hex(text: str) -> str:
    return text.encode("utf-16-be").hex().upper()


def _key(key: str) -> str:
    return key if key.startswith("/") else "/" + key


def _name(name: str) -> Name:
    return Name(_key(name))


def _content_bytes(content: Content) -> bytes:
    if isinstance(content, bytes):
        return content
    try:
        return content.encode("latin-1")
    except UnicodeEncodeError as exc:
        raise ValueError(
            "content strings are written one character per byte (Latin-1); "
            "pass bytes, or build operands with literal()/hexstr()"
        ) from exc


def _standard_metrics(base_font: str) -> dict[str, int]:
    # Imported lazily: pdfminer's metrics table is large and only fixtures need it.
    from pdfminer.fontmetrics import FONT_METRICS

    if base_font not in FONT_METRICS:
        raise ValueError(f"{base_font!r} is not a standard font with known metrics")
    return FONT_METRICS[base_font][1]


def _standard_descriptor_values(base_font: str) -> dict[str, Any]:
    from pdfminer.fontmetrics import FONT_METRICS

    return FONT_METRICS[base_font][0]


def _encoding_table(encoding: str | None, differences: Mapping[int, str] | None) -> dict[int, str]:
    """Code -> Unicode for a simple font encoding, after /Differences (§9.6.6.1).

    ``None`` is the built-in encoding, StandardEncoding for the Latin standard
    fonts (§9.6.6.2). Glyph names go through the Adobe Glyph List.
    """
    from pdfminer.encodingdb import EncodingDB, name2unicode

    table = dict(EncodingDB.get_encoding(encoding or "StandardEncoding"))
    for code, glyph in (differences or {}).items():
        try:
            table[code] = name2unicode(glyph)
        except (KeyError, ValueError):
            table.pop(code, None)  # a glyph name with no Unicode: no metric either
    return table


def _encode_simple(text: str, encoding: str) -> bytes:
    reverse: dict[str, int] = {}
    for code, ch in sorted(_encoding_table(encoding, None).items(), reverse=True):
        reverse[ch] = code  # lowest code wins (WinAnsi maps space to 32 and 160)
    try:
        return bytes(reverse[ch] for ch in text)
    except KeyError as exc:
        raise ValueError(f"{exc.args[0]!r} is not in {encoding}") from None


def _differences_array(differences: Mapping[int, str]) -> Array:
    """``{65: "A", 66: "B", 90: "Z"}`` -> ``[65 /A /B 90 /Z]`` (§9.6.6.1)."""
    items: list[Any] = []
    previous = None
    for code in sorted(differences):
        if previous is None or code != previous + 1:
            items.append(code)
        items.append(_name(differences[code]))
        previous = code
    return Array(items)


def _page_dict(page: pikepdf.Page | pikepdf.Object) -> pikepdf.Object:
    return page.obj if isinstance(page, pikepdf.Page) else page


def _is_struct_elem(obj: Any) -> bool:
    return (
        isinstance(obj, pikepdf.Object)
        and isinstance(obj, Dictionary)
        and obj.get("/Type") == Name.StructElem
    )


# --------------------------------------------------------------------------- builder


class PdfBuilder:
    """Build a fixture PDF step by step; see the module docstring for conventions."""

    #: Written as the header version: everything the builder makes is PDF 1.7.
    min_version = "1.7"

    def __init__(self) -> None:
        self.pdf = pikepdf.new()
        # One indirect /Font dictionary shared by every page and resourced form,
        # so fonts added at any time are visible everywhere.
        self._fonts: pikepdf.Object = self.pdf.make_indirect(Dictionary())
        self._font_count = 0
        self._explicit_struct_parents: dict[tuple[int, int], int] = {}
        self._auto_struct_parents: list[pikepdf.Object] = []

    # ---------------------------------------------------------------- fonts

    def _register_font(self, font: Dictionary) -> str:
        self._font_count += 1
        name = f"F{self._font_count}"
        self._fonts[_key(name)] = self.pdf.make_indirect(font)
        return name

    def font(self, name: str) -> pikepdf.Object:
        """The font dictionary registered under resource ``name`` (e.g. "F1")."""
        return self._fonts[_key(name)]

    def add_standard_font(
        self,
        base_font: str = "Helvetica",
        *,
        encoding: str | None = "WinAnsiEncoding",
        widths: bool = False,
        differences: dict[int, str] | None = None,
    ) -> str:
        """A standard-14 Type1 font without an embedded program (§9.6.2.2).

        ``widths=True`` writes /FirstChar 32 /LastChar 255 /Widths from the
        font's AFM metrics mapped through the encoding: code -> glyph name ->
        Unicode (pdfminer keys its metrics by the glyph's character) -> width;
        codes the encoding leaves unassigned get 0. A /FontDescriptor is added
        too, as producers that write
        widths do; ``widths=False`` leaves both out so readers must fall back to
        the standard metrics.
        """
        font = Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=_name(base_font))
        if differences:
            enc = Dictionary(Type=Name.Encoding, Differences=_differences_array(differences))
            if encoding is not None:
                enc.BaseEncoding = _name(encoding)
            font.Encoding = enc
        elif encoding is not None:
            font.Encoding = _name(encoding)
        if widths:
            if base_font in _SYMBOLIC_STANDARD_FONTS:
                raise ValueError(f"widths=True needs a Latin standard font, not {base_font}")
            metrics = _standard_metrics(base_font)
            table = _encoding_table(encoding, differences)
            font.FirstChar, font.LastChar = 32, 255
            font.Widths = Array([metrics.get(table.get(code, ""), 0) for code in range(32, 256)])
            font.FontDescriptor = self._standard_descriptor(base_font)
        return self._register_font(font)

    def _standard_descriptor(self, base_font: str) -> pikepdf.Object:
        props = _standard_descriptor_values(base_font)
        # §9.8.2 Table 123: bit 1 FixedPitch, bit 2 Serif, bit 6 Nonsymbolic, bit 7 Italic.
        flags = 32
        flags |= 1 if base_font.startswith("Courier") else 0
        flags |= 2 if base_font.startswith("Times") else 0
        flags |= 64 if props.get("ItalicAngle", 0) else 0
        bold = "Bold" in base_font
        return self.pdf.make_indirect(
            Dictionary(
                Type=Name.FontDescriptor,
                FontName=_name(base_font),
                Flags=flags,
                FontBBox=Array(list(props["FontBBox"])),
                ItalicAngle=props.get("ItalicAngle", 0),
                Ascent=props.get("Ascent", 0),
                Descent=props.get("Descent", 0),
                CapHeight=props.get("CapHeight", props.get("Ascent", 0)),
                StemV=120 if bold else 80,  # AFM files carry no StemV; typical values
            )
        )

    def add_cid_font(
        self,
        text_chars: str,
        *,
        vertical: bool = False,
        widths: int = 1000,
        to_unicode: bool = True,
        base_font: str = "FixtureCID",
    ) -> tuple[str, Callable[[str], bytes]]:
        """A Type0 font over a CIDFontType2 without an embedded program (§9.7).

        CIDs 1..n go to the distinct characters of ``text_chars`` in order of
        first appearance; the CMap is Identity-H, or Identity-V when
        ``vertical`` (so codes are CIDs, §9.7.5.2). All glyphs advance /DW
        ``widths``; vertical metrics use the /DW2 default [880 -1000] (§9.7.4.3).
        Returns the resource name and ``encode(text) -> bytes`` (2 bytes per
        character; raises ValueError for characters the font does not have).
        """
        cids = {ch: cid for cid, ch in enumerate(dict.fromkeys(text_chars), start=1)}
        if len(cids) > 0xFFFE:
            raise ValueError("a 2-byte Identity CMap holds at most 65534 characters")
        cmap_name = "Identity-V" if vertical else "Identity-H"
        descendant = self._cid_descendant(base_font, widths)
        font = Dictionary(
            Type=Name.Font,
            Subtype=Name.Type0,
            # §9.7.6.1: a Type0 BaseFont over a predefined CMap is "<CIDFont>-<CMap>".
            BaseFont=_name(f"{base_font}-{cmap_name}"),
            Encoding=_name(cmap_name),
            DescendantFonts=Array([descendant]),
        )
        if to_unicode:
            mapping = {cid.to_bytes(2, "big"): ch for ch, cid in cids.items()}
            font.ToUnicode = self.pdf.make_stream(to_unicode_cmap(mapping))

        def encode(text: str) -> bytes:
            missing = sorted({ch for ch in text if ch not in cids})
            if missing:
                raise ValueError(f"the CID font has no character {missing!r}")
            return b"".join(cids[ch].to_bytes(2, "big") for ch in text)

        return self._register_font(font), encode

    def _cid_descendant(self, base_font: str, widths: int) -> pikepdf.Object:
        """The CIDFontType2 of ``add_cid_font``, with its font descriptor (§9.7.4, §9.8)."""
        descriptor = self.pdf.make_indirect(
            Dictionary(
                Type=Name.FontDescriptor,
                FontName=_name(base_font),
                Flags=4,  # Symbolic (§9.8.2): the glyphs are outside the standard Latin set
                FontBBox=Array([0, -120, widths, 880]),
                ItalicAngle=0,
                Ascent=880,
                Descent=-120,
                CapHeight=700,
                StemV=80,
            )
        )
        return self.pdf.make_indirect(
            Dictionary(
                Type=Name.Font,
                Subtype=Name.CIDFontType2,
                BaseFont=_name(base_font),
                CIDSystemInfo=Dictionary(
                    Registry=String("Adobe"), Ordering=String("Identity"), Supplement=0
                ),
                FontDescriptor=descriptor,
                DW=widths,
                CIDToGIDMap=Name.Identity,
            )
        )

    def add_type3_font(
        self,
        glyphs: dict[str, int],
        *,
        font_matrix: Matrix = (0.001, 0, 0, 0.001, 0, 0),
        width: float = 600,
        to_unicode: dict[int, str] | None = None,
    ) -> str:
        """A Type3 font (§9.6.5): each glyph paints a filled box with d1.

        ``glyphs`` maps glyph name -> code; /Encoding /Differences maps the codes
        back to the names, so text comes from the glyph names unless
        ``to_unicode`` (code -> text) adds a ToUnicode CMap. Widths and boxes
        are in glyph space (scaled by ``font_matrix``).
        """
        if not glyphs:
            raise ValueError("a Type3 font needs at least one glyph")
        box_w, box_h = width * 5 / 6, width * 7 / 6
        char_procs = Dictionary()
        for glyph in glyphs:
            # d1: wx wy llx lly urx ury, then a shape (§9.6.5, Table 113).
            proc = f"{width:g} 0 0 0 {box_w:g} {box_h:g} d1 0 0 {box_w:g} {box_h:g} re f"
            char_procs[_key(glyph)] = self.pdf.make_stream(proc.encode("ascii"))
        codes = sorted(glyphs.values())
        first, last = codes[0], codes[-1]
        used = set(codes)
        font = Dictionary(
            Type=Name.Font,
            Subtype=Name.Type3,
            FontBBox=Array([0, 0, box_w, box_h]),
            FontMatrix=Array(list(font_matrix)),
            CharProcs=char_procs,
            Encoding=Dictionary(
                Type=Name.Encoding,
                Differences=_differences_array({code: name for name, code in glyphs.items()}),
            ),
            FirstChar=first,
            LastChar=last,
            Widths=Array([width if code in used else 0 for code in range(first, last + 1)]),
            Resources=Dictionary(),
        )
        if to_unicode:
            mapping = {bytes([code]): text for code, text in to_unicode.items()}
            font.ToUnicode = self.pdf.make_stream(to_unicode_cmap(mapping))
        return self._register_font(font)

    # ---------------------------------------------------------------- resources

    def _resources(
        self,
        xobjects: Mapping[str, pikepdf.Object] | None = None,
        properties: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Dictionary:
        resources = Dictionary(Font=self._fonts)
        if xobjects:
            resources.XObject = Dictionary({_key(k): v for k, v in xobjects.items()})
        if properties:
            resources.Properties = pdf_object(dict(properties))
        return resources

    def add_form(
        self,
        content: Content,
        *,
        bbox: Rect = (0, 0, 612, 792),
        matrix: Matrix | None = None,
        resources: bool = True,
        xobjects: dict[str, pikepdf.Object] | None = None,
    ) -> pikepdf.Object:
        """A form XObject (§8.10) painting ``content``.

        ``resources=False`` omits /Resources so the form inherits the resources
        of the stream that paints it (§7.8.3); own ``xobjects`` need resources.
        """
        if xobjects and not resources:
            raise ValueError("xobjects need the form's own /Resources (resources=True)")
        form = self.pdf.make_stream(_content_bytes(content))
        form.Type = Name.XObject
        form.Subtype = Name.Form
        form.BBox = Array(list(bbox))
        if matrix is not None:
            form.Matrix = Array(list(matrix))
        if resources:
            form.Resources = self._resources(xobjects)
        return form

    def set_form_xobject(self, form: pikepdf.Object, name: str, target: pikepdf.Object) -> None:
        """Make ``form`` know ``target`` as XObject ``name`` (may be ``form`` itself).

        A form created with ``resources=False`` gets a /Resources holding only
        this /XObject entry.
        """
        if "/Resources" not in form:
            form.Resources = Dictionary()
        resources = form.Resources
        if "/XObject" not in resources:
            resources.XObject = Dictionary()
        resources.XObject[_key(name)] = target

    # ---------------------------------------------------------------- pages

    def add_page(
        self,
        content: Content | list[Content],
        *,
        mediabox: Rect = (0, 0, 612, 792),
        cropbox: Rect | None = None,
        rotate: int | None = None,
        xobjects: dict[str, pikepdf.Object] | None = None,
        properties: dict[str, dict] | None = None,
        struct_parents: int | None = None,
    ) -> pikepdf.Page:
        """Append a page; a list of pieces becomes a /Contents array (§7.8.2).

        ``properties`` become /Properties entries for ``/Tag /name BDC``
        (values converted with :func:`pdf_object`).
        """
        if isinstance(content, list):
            contents: Any = Array([self.pdf.make_stream(_content_bytes(c)) for c in content])
        else:
            contents = self.pdf.make_stream(_content_bytes(content))
        page = Dictionary(
            Type=Name.Page,
            MediaBox=Array(list(mediabox)),
            Resources=self._resources(xobjects, properties),
            Contents=contents,
        )
        if cropbox is not None:
            page.CropBox = Array(list(cropbox))
        if rotate is not None:
            page.Rotate = rotate
        if struct_parents is not None:
            page.StructParents = struct_parents
        self.pdf.pages.append(pikepdf.Page(self.pdf.make_indirect(page)))
        added = self.pdf.pages[-1]
        if struct_parents is not None:
            self._explicit_struct_parents[added.obj.objgen] = struct_parents
        return added

    def set_info(self, entries: Mapping[str, str]) -> None:
        """Fixed document information (§14.3.3), e.g. ``{"Title": "..."}``; no dates."""
        info = self.pdf.make_indirect(Dictionary({_key(k): String(v) for k, v in entries.items()}))
        self.pdf.trailer.Info = info

    # ---------------------------------------------------------------- output

    def to_bytes(self) -> bytes:
        """The PDF as bytes; identical calls give identical bytes."""
        buf = io.BytesIO()
        # deterministic_id: the /ID is a hash of the content, not of the time.
        self.pdf.save(buf, deterministic_id=True, min_version=self.min_version)
        return buf.getvalue()

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    def encrypted_bytes(self, *, user_password: str, owner_password: str = "owner") -> bytes:
        """The PDF encrypted with AES-256 (R6, §7.6.4); not byte-deterministic."""
        buf = io.BytesIO()
        encryption = pikepdf.Encryption(user=user_password, owner=owner_password, R=6, aes=True)
        self.pdf.save(buf, encryption=encryption, min_version=self.min_version)
        return buf.getvalue()

    # ---------------------------------------------------------------- structure

    def mcr(
        self,
        mcid: int,
        *,
        page: pikepdf.Page | None = None,
        stream: pikepdf.Object | None = None,
    ) -> Dictionary:
        """A marked-content reference (§14.7.4.3): /Type /MCR /MCID (/Pg) (/Stm)."""
        ref = Dictionary(Type=Name.MCR, MCID=mcid)
        if page is not None:
            ref.Pg = _page_dict(page)
        if stream is not None:
            ref.Stm = stream
        return ref

    def struct_element(
        self,
        struct_type: str,
        kids: list,
        *,
        page: pikepdf.Page | None = None,
        actual_text: str | None = None,
        alt: str | None = None,
        lang: str | None = None,
        attrs: dict | None = None,
    ) -> pikepdf.Object:
        """An indirect structure element (§14.7.2, Table 323).

        ``kids`` are MCIDs (ints, on ``page`` or the nearest ancestor's /Pg),
        other elements, or :meth:`mcr` dictionaries; /K is always written as an
        array. Each kid element's /P is set to this element now; the root's
        kids get theirs in :meth:`set_struct_tree`. ``attrs`` becomes the
        attribute object /A (values converted with :func:`pdf_object`).
        """
        elem = Dictionary(Type=Name.StructElem, S=_name(struct_type))
        if page is not None:
            elem.Pg = _page_dict(page)
        elem.K = Array(list(kids))
        if actual_text is not None:
            elem.ActualText = String(actual_text)
        if alt is not None:
            elem.Alt = String(alt)
        if lang is not None:
            elem.Lang = String(lang)
        if attrs:
            elem.A = pdf_object(attrs)
        elem = self.pdf.make_indirect(elem)
        for kid in kids:
            if _is_struct_elem(kid):
                kid.P = elem
        return elem

    def set_struct_tree(
        self,
        root_kids: list,
        *,
        role_map: dict[str, str] | None = None,
        parent_tree: bool = True,
    ) -> None:
        """Install /StructTreeRoot (§14.7.2) and /MarkInfo << /Marked true >> (§14.7.1).

        With ``parent_tree`` a /ParentTree (§14.7.4.4) maps each content
        stream's /StructParents key to the array, indexed by MCID, of the
        elements owning that marked content; pages (and forms referenced by an
        MCR's /Stm) get /StructParents unless add_page set it. Without it,
        neither /ParentTree nor any /StructParents is written by this call.
        """
        root = self.pdf.make_indirect(
            Dictionary(Type=Name.StructTreeRoot, K=Array(list(root_kids)))
        )
        for kid in root_kids:
            if _is_struct_elem(kid):
                kid.P = root
        if role_map:
            root.RoleMap = Dictionary({_key(k): _name(v) for k, v in role_map.items()})
        self.pdf.Root.StructTreeRoot = root
        self.pdf.Root.MarkInfo = Dictionary(Marked=True)
        self._clear_auto_struct_parents()
        if parent_tree:
            self._write_parent_tree(root)

    def _clear_auto_struct_parents(self) -> None:
        # Calling set_struct_tree again rebuilds from scratch: forget keys it assigned.
        for owner in self._auto_struct_parents:
            if "/StructParents" in owner:
                del owner["/StructParents"]
        self._auto_struct_parents = []

    def _write_parent_tree(self, root: pikepdf.Object) -> None:
        owners: dict[tuple[int, int], pikepdf.Object] = {}
        entries: dict[tuple[int, int], dict[int, pikepdf.Object]] = {}
        for owner, mcid, elem in _content_items(root):
            slots = entries.setdefault(owner.objgen, {})
            if mcid in slots and slots[mcid].objgen != elem.objgen:
                raise ValueError(f"MCID {mcid} of {owner.objgen} is claimed by two elements")
            owners[owner.objgen] = owner
            slots[mcid] = elem

        keys = self._assign_struct_parents(owners)
        nums: list[Any] = []
        for objgen in sorted(keys, key=keys.__getitem__):
            slots = entries[objgen]
            # Index = MCID; MCIDs not referenced by the tree are null (§14.7.4.4).
            array = Array([slots.get(i) for i in range(max(slots) + 1)])
            nums += [keys[objgen], self.pdf.make_indirect(array)]
        root.ParentTree = self.pdf.make_indirect(Dictionary(Nums=Array(nums)))
        root.ParentTreeNextKey = max(keys.values(), default=-1) + 1

    def _assign_struct_parents(
        self, owners: dict[tuple[int, int], pikepdf.Object]
    ) -> dict[tuple[int, int], int]:
        """Keys for each content stream: explicit ones kept, pages first, then forms."""
        keys = {og: key for og, key in self._explicit_struct_parents.items() if og in owners}
        taken = set(self._explicit_struct_parents.values())
        page_order = {page.obj.objgen: i for i, page in enumerate(self.pdf.pages)}
        pending = sorted(
            (og for og in owners if og not in keys),
            key=lambda og: (og not in page_order, page_order.get(og, 0), og),
        )
        next_key = 0
        for og in pending:
            while next_key in taken:
                next_key += 1
            keys[og] = next_key
            taken.add(next_key)
            owners[og].StructParents = next_key
            self._auto_struct_parents.append(owners[og])
        return keys


def _content_items(
    root: pikepdf.Object,
) -> Iterator[tuple[pikepdf.Object, int, pikepdf.Object]]:
    """(content stream, MCID, owning element) for every marked-content kid.

    /Pg is inherited from the nearest ancestor that has one (§14.7.2, Table 323);
    an MCR's /Stm names a form XObject as the stream (§14.7.4.3).
    """
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[pikepdf.Object, pikepdf.Object | None]] = [
        (kid, None) for kid in reversed(list(root.K))
    ]
    while stack:
        elem, inherited_page = stack.pop()
        if not _is_struct_elem(elem) or elem.objgen in seen:
            continue
        seen.add(elem.objgen)
        page = elem.get("/Pg", inherited_page)
        kids = elem.get("/K", Array())
        kids = kids if isinstance(kids, Array) else Array([kids])
        children = []
        for kid in kids:
            if isinstance(kid, int):
                yield _require_page(page, int(kid), elem), int(kid), elem
            elif isinstance(kid, Dictionary) and kid.get("/Type") == Name.MCR:
                stream = kid.get("/Stm")
                owner = stream if stream is not None else kid.get("/Pg", page)
                yield _require_page(owner, int(kid.MCID), elem), int(kid.MCID), elem
            else:
                children.append((kid, page))
        stack.extend(reversed(children))


def _require_page(
    owner: pikepdf.Object | None, mcid: int, elem: pikepdf.Object
) -> pikepdf.Object:
    if owner is None:
        raise ValueError(
            f"MCID {mcid} of a /{str(elem.S)[1:]} element has no page: pass page= to "
            "struct_element or mcr, or set_struct_tree(parent_tree=False)"
        )
    return owner

