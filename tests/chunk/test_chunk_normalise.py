from __future__ import annotations

import importlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.chunk import boilerplate_key, normalise


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("infor-\nmation", "information"),
        ("infor-\fmation", "information"),  # across a page break
        ("infor- \n  mation", "information"),
        ("Anglo-\nSaxon", "Anglo-\nSaxon"),  # next line starts uppercase: a real hyphen
        ("page 3-\n4", "page 3-\n4"),
        ("co\u00adoperate", "cooperate"),
        ("a  b\t c \n\n\n\n d", "a b c\n\nd"),
        ("  x\fy  ", "x\ny"),
    ],
)
def test_normalise(raw, expected):
    assert normalise(raw) == expected


def test_dehyphenation_can_be_turned_off():
    assert normalise("infor-\nmation", dehyphenate=False) == "infor-\nmation"
    assert normalise("co\u00adoperate", dehyphenate=False) == "cooperate"


def test_boilerplate_key_masks_digits_and_case():
    assert boilerplate_key("Page 3 of 10") == boilerplate_key("page 12  of 10")


_REF_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]*[\n\f][ \t]*(?=[^\W\d_])")


def reference_normalise(text: str, dehyphenate: bool) -> str:
    """The module docstring's rules, written the plain (slow) way."""
    text = text.replace("\u00ad", "")
    if dehyphenate:
        text = _REF_HYPHEN.sub(lambda m: "" if m.string[m.end()].islower() else m.group(0), text)
    text = text.replace("\f", "\n")
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r" ?\n ?", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


@settings(deadline=None)  # a loaded CI machine must not fail a property on time
@given(st.text(alphabet="ab A1_-\t\n\f é\u00ad", max_size=30), st.booleans())
def test_fast_normalise_equals_the_plain_rules(text: str, dehyphenate: bool):
    assert normalise(text, dehyphenate=dehyphenate) == reference_normalise(text, dehyphenate)


class _Counted:
    """A compiled pattern that counts its passes."""

    def __init__(self, pattern: re.Pattern[str], passes: list[str]) -> None:
        self.pattern, self.passes = pattern, passes

    def sub(self, repl, text):
        self.passes.append(self.pattern.pattern)
        return self.pattern.sub(repl, text)


def test_a_text_that_needs_no_step_takes_no_regex_pass(monkeypatch):
    """Each pattern runs only where a character it needs is there: most block
    texts need none of them, and chunking normalises every block and chunk."""
    module = importlib.import_module("ragprep.chunk.normalise")
    passes: list[str] = []
    for name in ("_COMPATIBLE", "_HYPHEN_BREAK", "_SPACES", "_MANY_NL"):
        monkeypatch.setattr(module, name, _Counted(getattr(module, name), passes))
    assert normalise("A plain line.\nAnd the next one, 12 words long.\n\nA paragraph.") == (
        "A plain line.\nAnd the next one, 12 words long.\n\nA paragraph."
    )
    assert passes == []
    assert normalise("ﬁne  text,\tinfor-\nmation\n\n\n\nend") == "fine text, information\n\nend"
    assert len(passes) == 4


@pytest.mark.parametrize("form", ["ligatures", "nfkc", "none"])
def test_every_unicode_form_applies_where_the_text_is_not_ascii(form):
    expected = {"ligatures": "fix a b", "nfkc": "fix a b 2", "none": "ﬁx a\xa0b ²"}[form]
    assert normalise("ﬁx a\xa0b ²" if form != "ligatures" else "ﬁx a\xa0b", unicode_form=form) == expected
