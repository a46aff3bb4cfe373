"""The fuzz campaign of bench/fuzz.py in small: a few dozen mutants of
fixture PDFs, ragprep alone, each read in a forked child under a time and an
address-space limit. No mutant may end in a traceback, a signal, a hang, an
out-of-memory or a message on stderr (issue 12)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pdfbuilder import PdfBuilder

BENCH = Path(__file__).resolve().parents[2] / "bench"


def seeds() -> list[tuple[str, bytes]]:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    form = b.add_form(f"BT /{f} 10 Tf 72 100 Td (form text) Tj ET")
    for i in range(3):
        b.add_page(f"BT /{f} 12 Tf 72 700 Td (page {i} text) Tj 0 -14 Td (more words) Tj ET /X Do", xobjects={"X": form})
    tagged = PdfBuilder()
    g = tagged.add_standard_font("Times-Roman", widths=True)
    page = tagged.add_page(f"/P <</MCID 0>> BDC BT /{g} 12 Tf 72 700 Td (tagged) Tj ET EMC")
    tagged.set_struct_tree([tagged.struct_element("P", [0], page=page)])
    return [("plain", b.to_bytes()), ("tagged", tagged.to_bytes())]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork, RLIMIT_AS and /proc")
def test_no_mutant_ends_in_a_traceback_signal_hang_or_oom(tmp_path):
    sys.path.insert(0, str(BENCH))
    try:
        import fuzz
    finally:
        sys.path.remove(str(BENCH))
    mutants = fuzz.make_mutants(seeds(), 3 * len(fuzz.MUTATORS), rng_seed=7, folder=tmp_path)
    records = fuzz.campaign(mutants, fuzz.Readers(["ragprep"]), timeout=120, memory_mb=1024)
    failures = [
        (r["mutator"], r["ragprep"]["outcome"], r["ragprep"]["detail"], r["ragprep"]["stderr"])
        for r in records
        if r["ragprep"]["outcome"] not in ("ok", "error") or r["ragprep"]["stderr"].strip()
    ]
    assert failures == []
    # The mutants are damaged, not destroyed: most still give text.
    assert sum(r["ragprep"]["chars"] > 0 for r in records) > len(records) // 2
