from __future__ import annotations

import pytest

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
