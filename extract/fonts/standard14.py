"""The 14 standard Type 1 fonts (ISO 32000-1 §9.6.2.2): names and metrics.

A font dictionary may omit /Widths (and /FontDescriptor) for these fonts; a
reader is expected to know their metrics. Widths of the twelve Latin fonts come
from pdfminer.six's copy of Adobe's core AFM files (keyed by the Unicode of
each glyph name, so a glyph name is looked up through pdfminer's own glyph
list); Symbol and ZapfDingbats, whose glyphs pdfminer keys inconsistently, are
tabulated below by glyph name.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

STANDARD_14 = frozenset(
    {
        "Times-Roman", "Times-Bold", "Times-Italic", "Times-BoldItalic",
        "Helvetica", "Helvetica-Bold", "Helvetica-Oblique", "Helvetica-BoldOblique",
        "Courier", "Courier-Bold", "Courier-Oblique", "Courier-BoldOblique",
        "Symbol", "ZapfDingbats",
    }
)

# Family names under which producers refer to the standard fonts, or to the
# metric-compatible system fonts (Arial = Helvetica, Times New Roman = Times,
# Courier New = Courier; §9.6.2.2 and Annex H note on font substitution).
_FAMILIES: Mapping[str, str] = {
    "helvetica": "Helvetica", "arial": "Helvetica", "arialmt": "Helvetica",
    "times": "Times", "timesroman": "Times", "timesnewroman": "Times",
    "timesnewromanps": "Times", "timesnewromanpsmt": "Times",
    "courier": "Courier", "couriernew": "Courier", "couriernewps": "Courier",
    "couriernewpsmt": "Courier",
    "symbol": "Symbol", "symbolmt": "Symbol",
    "zapfdingbats": "ZapfDingbats", "zapfdingbatsitc": "ZapfDingbats", "dingbats": "ZapfDingbats",
}
_STYLE_WORDS = re.compile(r"bold|italic|oblique|roman|regular|book|normal|mt|ps")
_SUBSET_PREFIX = re.compile(r"^[A-Z]{6}\+")


def standard_font_name(base_font: str) -> str | None:
    """The standard-14 font a /BaseFont refers to, or None.

    ``ABCDEF+Arial,BoldItalic`` -> ``Helvetica-BoldOblique``. A style word the
    standard fonts do not have (Light, Narrow, Black ...) means different
    metrics, so such names are not standard.
    """
    text = _SUBSET_PREFIX.sub("", base_font).replace(" ", "")
    if text in STANDARD_14:
        return text
    family, _, style = _split(text)
    canonical = _FAMILIES.get(family.lower())
    if canonical is None:
        return None
    style = style.lower()
    if _STYLE_WORDS.sub("", style):
        return None
    if canonical in ("Symbol", "ZapfDingbats"):
        return canonical
    bold = "bold" in style
    italic = "italic" in style or "oblique" in style
    if canonical == "Times":
        return "Times-" + ("BoldItalic" if bold and italic else "Bold" if bold else "Italic" if italic else "Roman")
    suffix = "BoldOblique" if bold and italic else "Bold" if bold else "Oblique" if italic else ""
    return f"{canonical}-{suffix}" if suffix else canonical


def _split(text: str) -> tuple[str, str, str]:
    for separator in (",", "-"):
        if separator in text:
            family, style = text.split(separator, 1)
            return family, separator, style.replace(",", "").replace("-", "")
    # "ArialMT", "TimesNewRomanPSMT", "Arial-BoldMT" without separator
    return text, "", ""


@dataclass(frozen=True)
class StandardMetrics:
    """Metrics of one standard font, in glyph space (1/1000 em)."""

    name: str
    ascent: float
    descent: float
    bbox: tuple[float, float, float, float]
    fixed_pitch: bool
    # Width table and the function that turns a glyph name into its key.
    _widths: Mapping[Any, int]
    _key: Callable[[str], Any]

    def width(self, glyph: str) -> float | None:
        """Advance width of a glyph by name, or None when the font has no such glyph."""
        try:
            found = self._widths.get(self._key(glyph))
        except MemoryError:
            raise  # the document fails (MemoryLimitError), never a warning
        except Exception:  # pdfminer raises KeyError subclasses for unknown names
            return None
        return None if found is None else float(found)


@functools.lru_cache(maxsize=256)
def standard_widths(standard_name: str, names: tuple[str | None, ...]) -> tuple[float | None, ...]:
    """Per code, the width (glyph space) of the glyph an encoding names there
    in standard font `standard_name`; None where it names none or the font
    has no such glyph.

    Memoized, bounded: the standard fonts of a corpus come with a handful of
    encodings, and each font would otherwise look its 256 names up one by
    one. The function is pure (the metrics are bundled and immutable), so a
    cached answer is the answer, whatever document asked first."""
    metrics = standard_metrics(standard_name)
    if metrics is None:
        return (None,) * len(names)
    return tuple(None if glyph is None else metrics.width(glyph) for glyph in names)


def _same(glyph: str) -> str:
    return glyph


def standard_metrics(standard_name: str) -> StandardMetrics | None:
    """Metrics of a name returned by ``standard_font_name`` (pdfminer imported lazily)."""
    if standard_name == "Symbol":
        return StandardMetrics("Symbol", 1010.0, -293.0, (-180.0, -293.0, 1090.0, 1010.0), False, SYMBOL_WIDTHS, _same)
    if standard_name == "ZapfDingbats":
        return StandardMetrics(
            "ZapfDingbats", 820.0, -143.0, (-1.0, -143.0, 981.0, 820.0), False, ZAPF_DINGBATS_WIDTHS, _same
        )
    if standard_name not in STANDARD_14:
        return None
    from pdfminer.encodingdb import name2unicode
    from pdfminer.fontmetrics import FONT_METRICS

    entry: Any = FONT_METRICS[standard_name]
    props, widths = entry
    bbox = tuple(float(v) for v in props.get("FontBBox", (0.0, -200.0, 1000.0, 800.0)))
    return StandardMetrics(
        standard_name,
        float(props.get("Ascent", bbox[3])),
        float(props.get("Descent", bbox[1])),
        (bbox[0], bbox[1], bbox[2], bbox[3]),
        standard_name.startswith("Courier"),
        widths,
        name2unicode,
    )


# Advance widths (glyph space, 1/1000 em) of Symbol's glyphs.
SYMBOL_WIDTHS: dict[str, int] = {
    "space": 250, "exclam": 333, "universal": 713, "numbersign": 500, "existential": 549,
    "percent": 833, "ampersand": 778, "suchthat": 439, "parenleft": 333, "parenright": 333,
    "asteriskmath": 500, "plus": 549, "comma": 250, "minus": 549, "period": 250, "slash": 278,
    "zero": 500, "one": 500, "two": 500, "three": 500, "four": 500, "five": 500, "six": 500,
    "seven": 500, "eight": 500, "nine": 500, "colon": 278, "semicolon": 278, "less": 549,
    "equal": 549, "greater": 549, "question": 444, "congruent": 549, "Alpha": 722, "Beta": 667,
    "Chi": 722, "Delta": 612, "Epsilon": 611, "Phi": 763, "Gamma": 603, "Eta": 722, "Iota": 333,
    "theta1": 631, "Kappa": 722, "Lambda": 686, "Mu": 889, "Nu": 722, "Omicron": 722, "Pi": 768,
    "Theta": 741, "Rho": 556, "Sigma": 592, "Tau": 611, "Upsilon": 690, "sigma1": 439,
    "Omega": 768, "Xi": 645, "Psi": 795, "Zeta": 611, "bracketleft": 333, "therefore": 863,
    "bracketright": 333, "perpendicular": 658, "underscore": 500, "radicalex": 500, "alpha": 631,
    "beta": 549, "chi": 549, "delta": 494, "epsilon": 439, "phi": 521, "gamma": 411, "eta": 603,
    "iota": 329, "phi1": 603, "kappa": 549, "lambda": 549, "mu": 576, "nu": 521, "omicron": 549,
    "pi": 549, "theta": 521, "rho": 549, "sigma": 603, "tau": 439, "upsilon": 576, "omega1": 713,
    "omega": 686, "xi": 493, "psi": 686, "zeta": 494, "braceleft": 480, "bar": 200,
    "braceright": 480, "similar": 549, "Euro": 750, "Upsilon1": 620, "minute": 247,
    "lessequal": 549, "fraction": 167, "infinity": 713, "florin": 500, "club": 753, "diamond": 753,
    "heart": 753, "spade": 753, "arrowboth": 1042, "arrowleft": 987, "arrowup": 603,
    "arrowright": 987, "arrowdown": 603, "degree": 400, "plusminus": 549, "second": 411,
    "greaterequal": 549, "multiply": 549, "proportional": 713, "partialdiff": 494, "bullet": 460,
    "divide": 549, "notequal": 549, "equivalence": 549, "approxequal": 549, "ellipsis": 1000,
    "arrowvertex": 603, "arrowhorizex": 1000, "carriagereturn": 658, "aleph": 823, "Ifraktur": 686,
    "Rfraktur": 795, "weierstrass": 987, "circlemultiply": 768, "circleplus": 768, "emptyset": 823,
    "intersection": 768, "union": 768, "propersuperset": 713, "reflexsuperset": 713,
    "notsubset": 713, "propersubset": 713, "reflexsubset": 713, "element": 713, "notelement": 713,
    "angle": 768, "gradient": 713, "registerserif": 790, "copyrightserif": 790,
    "trademarkserif": 890, "product": 823, "radical": 549, "dotmath": 250, "logicalnot": 713,
    "logicaland": 603, "logicalor": 603, "arrowdblboth": 1042, "arrowdblleft": 987,
    "arrowdblup": 603, "arrowdblright": 987, "arrowdbldown": 603, "lozenge": 494, "angleleft": 329,
    "registersans": 790, "copyrightsans": 790, "trademarksans": 786, "summation": 713,
    "parenlefttp": 384, "parenleftex": 384, "parenleftbt": 384, "bracketlefttp": 384,
    "bracketleftex": 384, "bracketleftbt": 384, "bracelefttp": 494, "braceleftmid": 494,
    "braceleftbt": 494, "braceex": 494, "angleright": 329, "integral": 274, "integraltp": 686,
    "integralex": 686, "integralbt": 686, "parenrighttp": 384, "parenrightex": 384,
    "parenrightbt": 384, "bracketrighttp": 384, "bracketrightex": 384, "bracketrightbt": 384,
    "bracerighttp": 494, "bracerightmid": 494, "bracerightbt": 494,
}

# Advance widths (glyph space, 1/1000 em) of ZapfDingbats' glyphs.
ZAPF_DINGBATS_WIDTHS: dict[str, int] = {
    "space": 278, "a1": 974, "a2": 961, "a202": 974, "a3": 980, "a4": 719, "a5": 789, "a119": 790,
    "a118": 791, "a117": 690, "a11": 960, "a12": 939, "a13": 549, "a14": 855, "a15": 911,
    "a16": 933, "a105": 911, "a17": 945, "a18": 974, "a19": 755, "a20": 846, "a21": 762,
    "a22": 761, "a23": 571, "a24": 677, "a25": 763, "a26": 760, "a27": 759, "a28": 754, "a6": 494,
    "a7": 552, "a8": 537, "a9": 577, "a10": 692, "a29": 786, "a30": 788, "a31": 788, "a32": 790,
    "a33": 793, "a34": 794, "a35": 816, "a36": 823, "a37": 789, "a38": 841, "a39": 823, "a40": 833,
    "a41": 816, "a42": 831, "a43": 923, "a44": 744, "a45": 723, "a46": 749, "a47": 790, "a48": 792,
    "a49": 695, "a50": 776, "a51": 768, "a52": 792, "a53": 759, "a54": 707, "a55": 708, "a56": 682,
    "a57": 701, "a58": 826, "a59": 815, "a60": 789, "a61": 789, "a62": 707, "a63": 687, "a64": 696,
    "a65": 689, "a66": 786, "a67": 787, "a68": 713, "a69": 791, "a70": 785, "a71": 791, "a72": 873,
    "a73": 761, "a74": 762, "a203": 762, "a75": 759, "a204": 759, "a76": 892, "a77": 892,
    "a78": 788, "a79": 784, "a81": 438, "a82": 138, "a83": 277, "a84": 415, "a97": 392, "a98": 392,
    "a99": 668, "a100": 668, "a89": 390, "a90": 390, "a93": 317, "a94": 317, "a91": 276,
    "a92": 276, "a205": 509, "a85": 509, "a206": 410, "a86": 410, "a87": 234, "a88": 234,
    "a95": 334, "a96": 334, "a101": 732, "a102": 544, "a103": 544, "a104": 910, "a106": 667,
    "a107": 760, "a108": 760, "a112": 776, "a111": 595, "a110": 694, "a109": 626, "a120": 788,
    "a121": 788, "a122": 788, "a123": 788, "a124": 788, "a125": 788, "a126": 788, "a127": 788,
    "a128": 788, "a129": 788, "a130": 788, "a131": 788, "a132": 788, "a133": 788, "a134": 788,
    "a135": 788, "a136": 788, "a137": 788, "a138": 788, "a139": 788, "a140": 788, "a141": 788,
    "a142": 788, "a143": 788, "a144": 788, "a145": 788, "a146": 788, "a147": 788, "a148": 788,
    "a149": 788, "a150": 788, "a151": 788, "a152": 788, "a153": 788, "a154": 788, "a155": 788,
    "a156": 788, "a157": 788, "a158": 788, "a159": 788, "a160": 894, "a161": 838, "a163": 1016,
    "a164": 458, "a196": 748, "a165": 924, "a192": 748, "a166": 918, "a167": 927, "a168": 928,
    "a169": 928, "a170": 834, "a171": 873, "a172": 828, "a173": 924, "a162": 924, "a174": 917,
    "a175": 930, "a176": 931, "a177": 463, "a178": 883, "a179": 836, "a193": 836, "a180": 867,
    "a199": 867, "a181": 696, "a200": 696, "a182": 874, "a201": 874, "a183": 760, "a184": 946,
    "a197": 771, "a185": 865, "a194": 771, "a198": 888, "a186": 967, "a195": 888, "a187": 831,
    "a188": 873, "a189": 927, "a190": 970, "a191": 918,
}
