"""Layout mode on the generated family of pages, painting by painting (issue 19).

tests/layoutfamily.py builds pages the corpus does not have, each with its reading order
known by construction, and paints each in every order of bench/twins.py and in seeded
shuffles. The tests hold layout mode to every painting it reads right; this report covers
all of them, the known failures too (``LIMITS`` in tests/layoutfamily.py, each with why),
so that the list of what layout mode cannot read yet is measured, not just written down.

Per painting: whether the text is the page's truth exactly (``reads_as``: floats such as a
sidebar may read whole anywhere) and its order score (LCS of the word sequences over the
truth's length, as bench/layout.py scores). The summary names the known failures that now
read right (take them out of LIMITS) and any failure LIMITS does not know (a regression).

    python bench/family.py                                   # every page, every order, 8 shuffles
    python bench/family.py --random 60                       # and random_page seeds 0..59
    python bench/family.py --pages one_column,sidebar --orders plain,reversed --format json

Exit status: 0 when every painting outside LIMITS reads exactly, 1 otherwise. No corpus needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as `python bench/family.py`: make `bench` importable
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the generator builds its pages with the tests' PdfBuilder

from layoutfamily import LIMITS, PAGES, Sheet, random_page, reads_as  # noqa: E402

from bench.twins import ORDERS  # noqa: E402
from ragprep.extract import open_document  # noqa: E402
from ragprep.pipeline.compare.metrics import lcs_length, tokenize  # noqa: E402

SHUFFLES = tuple(range(1, 9))


@dataclass(frozen=True)
class Painting:
    """One page painted in one order, as layout mode read it."""

    page: str
    order: str
    exact: bool
    score: float
    limit: str  # why LIMITS says this painting does not read right yet ("" when it should)

    @property
    def verdict(self) -> str:
        if self.exact:
            return "now reads (take it out of LIMITS)" if self.limit else "reads"
        return "known" if self.limit else "NEW FAILURE"


def _order_key(order: str) -> str | int:
    return int(order) if order.isdigit() else order


def paint_and_read(page: str, sheet: Sheet, order: str) -> Painting:
    with open_document(sheet.paint(_order_key(order))) as doc:
        text = doc.extract_page(1, "layout").text
    truth = tokenize("\n".join(sheet.truth))
    score = lcs_length(truth, tokenize(text)) / max(len(truth), 1)
    limit = LIMITS.get((page, _order_key(order)), "")
    return Painting(page, order, reads_as(text, sheet), round(score, 4), limit)


def paintings(pages: dict[str, Callable[[], Sheet]], orders: list[str]) -> Iterator[Painting]:
    for page, build in pages.items():
        for order in orders:
            yield paint_and_read(page, build(), order)


def _chosen_pages(names: str | None, random_count: int) -> dict[str, Callable[[], Sheet]]:
    pages: dict[str, Callable[[], Sheet]] = dict(PAGES)
    pages.update({f"random_{seed}": (lambda seed=seed: random_page(seed)) for seed in range(random_count)})
    if names is None:
        return pages
    unknown = [name for name in names.split(",") if name not in pages]
    if unknown:
        raise SystemExit(f"bench/family.py: no page named {', '.join(unknown)} (see PAGES in tests/layoutfamily.py)")
    return {name: pages[name] for name in names.split(",")}


def _chosen_orders(names: str | None) -> list[str]:
    orders = list(ORDERS) + [str(seed) for seed in SHUFFLES]
    if names is None:
        return orders
    unknown = [name for name in names.split(",") if name not in ORDERS and not name.isdigit()]
    if unknown:
        raise SystemExit(f"bench/family.py: no order {', '.join(unknown)} (orders: {', '.join(ORDERS)}, or a shuffle seed)")
    return names.split(",")


def _print_text(found: list[Painting]) -> None:
    for painting in found:
        if painting.verdict != "reads":
            print(f"{painting.page:28s} {painting.order:16s} {painting.score:.3f}  {painting.verdict}"
                  + (f": {painting.limit}" if painting.limit and not painting.exact else ""))
    exact = sum(painting.exact for painting in found)
    print(f"{exact} of {len(found)} paintings read exactly; lowest score "
          f"{min((p.score for p in found), default=1.0):.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", help="comma-separated page names (default: every page of PAGES)")
    parser.add_argument("--orders", help="comma-separated orders of bench/twins.py or shuffle seeds (default: all, seeds 1-8)")
    parser.add_argument("--random", type=int, default=0, metavar="N", help="add random_page seeds 0..N-1")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    found = list(paintings(_chosen_pages(args.pages, args.random), _chosen_orders(args.orders)))
    if args.format == "json":
        print(json.dumps([asdict(p) | {"verdict": p.verdict} for p in found], indent=1))
    else:
        _print_text(found)
    return 1 if any(p.verdict == "NEW FAILURE" for p in found) else 0


if __name__ == "__main__":
    sys.exit(main())
