"""Running headers and footers (extract/running.py): lines repeated in the top
or bottom band across a document's pages are artifacts in layout mode.

Fixture documents paint, on every page, a distinct body of text and some
furniture around it; the tests assert the exact text layout mode reads and
the artifact counts.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from pdfbuilder import PdfBuilder, text_width, wrap

from ragprep.extract import ExtractConfig, extract_document, open_document
from ragprep.extract.geometric import text_glyphs
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.running import KeyTally, leaves_text, masked_key

SIZE = 10
LEADING = 12
HEADER = "Annual Report of the Fixture Society"


def body(page: int) -> list[str]:
    """Distinct prose for each page: every word says where it belongs."""
    stems = ["river", "stone", "maple", "cloud", "amber", "quiet", "lantern", "harbor", "meadow"]
    return wrap([f"{stems[i % len(stems)]}p{page}w{i}" for i in range(60)], 440)


def show(font: str, x: float, y: float, text: str, size: float = SIZE) -> str:
    return f"BT /{font} {size} Tf {x:.2f} {y:.2f} Td ({text}) Tj ET"


def document(
    pages: int = 5,
    header: dict[int, str] | None = None,
    footer: dict[int, str] | None = None,
    extra: dict[int, list[tuple[float, float, str]]] | None = None,
) -> tuple[bytes, list[list[str]]]:
    """`pages` pages of body text from y=700 down; `header` (at y=750) and
    `footer` (at y=40) text per page number, and `extra` pieces (x, y, text)
    per page, painted after the body."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    bodies = []
    for n in range(1, pages + 1):
        lines = body(n)
        bodies.append(lines)
        ops = []
        if header and n in header:
            ops.append(show(f, 72, 750, header[n]))
        ops += [show(f, 72, 700 - LEADING * i, line) for i, line in enumerate(lines)]
        ops += [show(f, x, y, text) for x, y, text in (extra or {}).get(n, [])]
        if footer and n in footer:
            ops.append(show(f, 280, 40, footer[n]))
        b.add_page(" ".join(ops))
    return b.to_bytes(), bodies


def page_numbers(pages: int) -> dict[int, str]:
    return {n: f"Page {n} of {pages}" for n in range(1, pages + 1)}


def every(pages: int, text: str) -> dict[int, str]:
    return {n: text for n in range(1, pages + 1)}


def every_extra(pages: int, piece: tuple[float, float, str]) -> dict[int, list[tuple[float, float, str]]]:
    return {n: [piece] for n in range(1, pages + 1)}


def test_running_header_and_footer_are_left_out_and_counted():
    data, bodies = document(header=every(5, HEADER), footer=page_numbers(5))
    result = extract_document(data, mode="layout")
    for page, lines in zip(result.pages, bodies, strict=True):
        assert page.text == "\n".join(lines)
        footer = f"Page {page.page} of 5"
        assert page.artifact_glyphs == len(HEADER) + len(footer)
        assert page.glyphs == len("".join(lines)) + len(HEADER) + len(footer)
        assert page.untagged_glyphs == page.glyphs - page.artifact_glyphs
        # Blocks and lines are those of the text: nothing of the furniture.
        assert "\n".join(b.text for b in page.blocks) == page.text
        assert [page.text[ln.char_start : ln.char_end] for ln in page.lines] == lines
        assert all(b.bbox[3] < 720 and b.bbox[1] > 60 for b in page.blocks)


def test_config_off_keeps_them():
    data, bodies = document(header=every(5, HEADER), footer=page_numbers(5))
    config = ExtractConfig(running_artifacts=False)
    result = extract_document(data, mode="layout", config=config)
    for page, lines in zip(result.pages, bodies, strict=True):
        assert page.text == "\n".join([HEADER, *lines, f"Page {page.page} of 5"])
        assert page.artifact_glyphs == 0


def test_header_on_two_of_five_pages_is_kept():
    data, bodies = document(header={2: HEADER, 4: HEADER}, footer=page_numbers(5))
    result = extract_document(data, mode="layout")
    for page, lines in zip(result.pages, bodies, strict=True):
        head = [HEADER] if page.page in (2, 4) else []
        assert page.text == "\n".join([*head, *lines])
        assert page.artifact_glyphs == len(f"Page {page.page} of 5")


def test_repeated_body_line_outside_the_bands_is_kept():
    note = "Continued on the next page"
    data, bodies = document(footer=page_numbers(5), extra=every_extra(5, (72, 120, note)))
    result = extract_document(data, mode="layout")
    for page, lines in zip(result.pages, bodies, strict=True):
        assert page.text == "\n".join([*lines, note])


def test_auto_falls_back_to_layout_with_running_artifacts_and_stream_keeps_them():
    data, bodies = document(header=every(5, HEADER), footer=page_numbers(5))
    auto = extract_document(data, mode="auto")
    stream = extract_document(data, mode="stream")
    for a, s, lines in zip(auto.pages, stream.pages, bodies, strict=True):
        assert a.mode == "layout" and a.fallback
        assert a.text == "\n".join(lines)
        # Stream mode is content-stream order, raw: the furniture stays.
        assert s.text == "\n".join([HEADER, *lines, f"Page {s.page} of 5"])
        assert s.artifact_glyphs == 0


def test_a_page_read_alone_cannot_know_its_running_heads():
    data, bodies = document(header=every(5, HEADER), footer=page_numbers(5))
    with open_document(data) as doc:
        alone = doc.extract_page(3, "layout")
        together = doc.extract_pages([1, 2, 3, 4, 5], "layout")
    assert alone.text == "\n".join([HEADER, *bodies[2], "Page 3 of 5"])
    assert together[2].text == "\n".join(bodies[2])
    # Fewer pages read together than the minimum: nothing runs.
    assert extract_document(data, mode="layout", pages="1-2").pages[0].text.startswith(HEADER)


def test_pages_not_held_are_interpreted_again_with_the_same_result():
    data, _ = document(pages=6, header=every(6, HEADER), footer=page_numbers(6))
    with open_document(data) as doc:
        held = doc.extract_pages(range(1, 7), "layout")
    with open_document(data, config=ExtractConfig(running_hold_glyphs=0)) as doc:
        again = doc.extract_pages(range(1, 7), "layout")
    assert held == again
    assert all(page.artifact_glyphs > 0 for page in again)


def test_recto_and_verso_heads_run_on_their_side():
    # 7 pages: the left-hand (even) pages' head is on 3 of them, short of half
    # of all pages (4), but on every even page; the odd pages carry their
    # chapter's name, which does not repeat.
    pages = 7
    verso = {n: f"{n}   Fixture Society" for n in range(2, pages + 1, 2)}
    chapters = ["Alpha", "Beta", "Gamma", "Delta"]
    recto = {n: f"Chapter {chapters[n // 2]}" for n in range(1, pages + 1, 2)}
    data, bodies = document(pages, header={**verso, **recto})
    result = extract_document(data, mode="layout")
    for page, lines in zip(result.pages, bodies, strict=True):
        if page.page % 2 == 0:
            assert page.text == "\n".join(lines)
            assert page.artifact_glyphs == len(verso[page.page])
        else:
            assert page.text == "\n".join([recto[page.page], *lines])
            assert page.artifact_glyphs == 0


def test_head_painted_in_pieces_cut_anywhere_runs():
    # A layout tool (or a scrambled twin, issue 19) paints the head in two
    # pieces, its right-hand piece first, cut after another word on every
    # page: stream order gives every page other segments ("Report of the
    # Fixture Society" then "Annual "), so no key would recur. Joined along
    # the line, each page's head is the whole line again, and runs.
    words = HEADER.split(" ")
    heads = {}
    for n in range(1, 6):
        left = " ".join(words[:n]) + " "
        heads[n] = [(72 + text_width(left, size=SIZE), 750, " ".join(words[n:])), (72, 750, left)]
    data, bodies = document(extra=heads)
    result = extract_document(data, mode="layout")
    for page, lines in zip(result.pages, bodies, strict=True):
        assert page.text == "\n".join(lines)
        assert page.artifact_glyphs == len(HEADER)


def test_table_row_whose_status_repeats_is_not_a_running_footer():
    # A table reaching into the bottom band: one row per page, its status
    # cell the same on every page, the other cells not.
    vendors = ["Acme", "Globex", "Initech", "Umbrella", "Hooli"]
    towns = ["Springfield", "Shelbyville", "Ogdenville", "Brockway", "Capital City"]
    regions = ["North", "South", "East", "West", "Central"]
    rows = {
        n: [(72, 60, vendors[n - 1]), (170, 60, towns[n - 1]), (290, 60, "Closure Permanent"),
            (420, 60, regions[n - 1])]
        for n in range(1, 6)
    }  # fmt: skip
    data, bodies = document(extra=rows)
    result = extract_document(data, mode="layout")
    for page in result.pages:
        assert "Closure Permanent" in page.text and page.artifact_glyphs == 0


def test_running_head_on_a_page_drawn_at_90_degrees():
    # /Rotate 90, text running up the page in user space: the head is at the
    # top of the reading frame, which is the page's left edge in user space.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    bodies = []
    for n in range(1, 5):
        lines = body(n)
        bodies.append(lines)
        ops = [f"BT /{f} {SIZE} Tf 0 1 -1 0 40 72 Tm ({HEADER}) Tj ET"]
        ops += [f"BT /{f} {SIZE} Tf 0 1 -1 0 {100 + LEADING * i} 72 Tm ({line}) Tj ET" for i, line in enumerate(lines)]
        b.add_page(" ".join(ops), rotate=90)
    result = extract_document(b.to_bytes(), mode="layout")
    for page, lines in zip(result.pages, bodies, strict=True):
        assert page.text == "\n".join(lines)
        assert page.artifact_glyphs == len(HEADER)


@pytest.mark.parametrize("seed", range(4))
def test_masked_key_collapses_every_white_space_as_the_regex_does(seed):
    """Every run of white space (each code point str.isspace, and the regex
    \\s, call so: tabs, no-break and ideographic spaces, line and paragraph
    separators) is one space and none at the ends; digit runs are one #."""
    rng = np.random.default_rng(seed)
    blanks = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    pool = blanks + list("aZ9 0\u0661\u00df\u0130")
    for _ in range(2000):
        text = "".join(rng.choice(pool, size=int(rng.integers(0, 12))).tolist())
        assert masked_key(text) == re.sub(r"\s+", " ", re.sub(r"\d+", "#", text)).strip().casefold(), repr(text)


def test_masked_key_is_the_chunkers_boilerplate_key_of_normalised_text():
    from ragprep.chunk import boilerplate_key

    assert masked_key("Page 3  of\t10 ") == masked_key("page 12 of 10") == "page # of #"
    assert boilerplate_key("Page 3 of 10") == masked_key("Page 3 of 10")


@pytest.mark.parametrize(
    ("carrying", "running"),
    [
        # pages carrying the key, of pages 1..7 -> running?
        ((1, 2, 3, 4), True),  # half of all pages
        ((2, 4, 6), True),  # every even page
        ((1, 3, 5), True),  # 3 of the 4 odd pages
        ((1, 5, 6), False),  # 3 of all 7 pages, 2 odd ones, 1 even one
        ((2, 4), False),  # 2 of the 3 even pages: under the minimum of 3 pages
    ],
)
def test_tally_thresholds(carrying, running):
    tally = KeyTally(range(1, 8), ExtractConfig())
    for n in range(1, 8):
        tally.add(["head"] if n in carrying else [], n)
    assert tally.is_running("head") is running
    assert tally.decided(["head"])


def test_tally_decides_early():
    tally = KeyTally(range(1, 11), ExtractConfig())
    for n in range(1, 6):
        tally.add(["head", f"line {n}"] if n > 1 else ["head"], n)
    # 5 of 10 pages: running before the other pages are seen; a key seen
    # once may still reach the threshold.
    assert tally.decided(["head"]) and tally.running(["head", "line 2"]) == {"head"}
    assert not tally.decided(["line 2"])
    for n in range(6, 11):
        tally.add([], n)
    assert tally.decided(["line 2"]) and not tally.is_running("line 2")


def test_running_glyphs_flag_what_extract_pages_leaves_out():
    data, bodies = document(header=every(5, HEADER), footer=page_numbers(5))
    with open_document(data) as doc:
        together = doc.extract_pages(range(1, 6), "layout")
        masks = doc.running_glyphs(range(1, 6))
        for page, lines in zip(together, bodies, strict=True):
            table = doc.page_glyphs(page.page).table
            flagged = "".join(t for t, hit in zip(table.text, masks[page.page], strict=True) if hit)
            assert flagged == HEADER + f"Page {page.page} of 5"
            assert page.artifact_glyphs == len(flagged)
            kept = "".join(t for t, hit in zip(table.text, masks[page.page], strict=True) if not hit)
            assert kept.replace(" ", "") == "".join(lines).replace(" ", "")


def test_a_page_whose_only_text_is_the_repeated_line_keeps_it():
    # A plan set: every sheet carries the same title block in the bottom band
    # and no other text on some sheets. Removing it would leave those pages,
    # or the whole document, with nothing to find them by.
    title = "Solar farm plan - Commune of Fixture - 20 December 2022"
    extra = {1: [(72, 400, "Sheet legend and notes")]}
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    for n in range(1, 5):
        ops = [show(f, 72, 40, title)] + [show(f, x, y, t) for x, y, t in extra.get(n, [])]
        b.add_page(" ".join(ops))
    with open_document(b.to_bytes()) as doc:
        pages = doc.extract_pages(range(1, 5), "layout")
        masks = doc.running_glyphs(range(1, 5))
    # Sheet 1 has other text: its title block is furniture there.
    assert (pages[0].text, pages[0].artifact_glyphs) == ("Sheet legend and notes", len(title))
    assert masks[1].sum() == len(title)
    for page in pages[1:]:
        assert (page.text, page.artifact_glyphs) == (title, 0)
        assert not masks[page.page].any()


@pytest.mark.parametrize("seed", range(40))
def test_leaves_text_is_any_unflagged_text_glyph_not_blank(seed):
    """leaves_text answers whether a text glyph (geometric.text_glyphs:
    visible, with text) not flagged running is more than white space: on
    pages of hidden, empty, blank and inked glyphs, flagged at random; on
    long pages inked glyphs are rare, so that the answer lies past the
    first slices leaves_text looks at (or nowhere)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 12)) if seed < 10 else int(rng.integers(12, 400))
    inked = 1 / 3 if seed < 10 else float(rng.choice([0.0, 0.002, 0.01]))
    weights = [inked / 2, (1 - inked) / 4, (1 - inked) / 4, (1 - inked) / 4, (1 - inked) / 4, inked / 2]
    texts = [str(t) for t in rng.choice(["a", " ", "", "\u00a0", " \t", "b c"], size=n, p=weights)]
    table = GlyphTable.empty().with_text_rows(texts, [(0.0, 0.0, 1.0, 1.0)] * n, [-1] * n, [0] * n)
    table = GlyphTable(**{**table.__dict__, "visible": rng.random(n) < 0.7})
    running = rng.random(n) < 0.5
    expected = any(not table.text[k].isspace() for k in text_glyphs(table) if not running[k])
    assert leaves_text(table, running) == expected
