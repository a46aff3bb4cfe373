"""Extraction settings: the geometric thresholds and the resource limits.

The defaults here are the documented defaults of ``configs/default.toml``
(a test keeps the two equal). A TOML file's ``[extract]`` table overrides them;
an unknown key or a value of the wrong type is a ``ConfigError`` naming the key.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ragprep.extract.settings import check_known_keys, check_settings, read_toml, read_toml_table, setting

__all__ = ["ExtractConfig", "check_known_keys", "read_toml", "read_toml_table"]

MIB = 1024 * 1024


@dataclass(frozen=True)
class ExtractConfig:
    # A space goes in when the gap from the previous glyph's own end to this
    # glyph's origin exceeds word_space_ratio x this glyph's height.
    word_space_ratio: float = setting(0.15, gt=0)
    # A line break goes in when the move across the writing direction exceeds
    # line_break_ratio x the larger height of the two glyphs.
    line_break_ratio: float = setting(0.5, gt=0)
    # Decompressed bytes allowed per content stream (page, form XObject); the
    # cap is enforced while inflating so a flate bomb never reaches memory.
    max_stream_bytes: int = setting(256 * MIB, gt=0)
    # Nesting depth of form XObjects, on top of cycle detection.
    max_form_depth: int = setting(32, gt=0)
    # Operators interpreted per page (page stream and its forms together).
    max_operators_per_page: int = setting(5_000_000, gt=0)
    # Straight painted path pieces (lines, rectangles) recorded per page for
    # table rules (extract/paths.py); past it a page records no more.
    max_path_pieces_per_page: int = setting(200_000, gt=0)
    # Structure tree: nesting depth walked before a branch is cut (§14.7.2),
    # on top of cycle detection.
    max_struct_depth: int = setting(128, gt=0)
    # auto mode reads a page by its structure when at most this share of its
    # glyphs lies outside the tagged content (untagged_glyphs <= share x glyphs).
    auto_max_untagged_share: float = setting(0.25, gt=0, le=1.0)
    # Text inside /Artifact sequences (running heads, page numbers, §14.8.2.2)
    # is left out of structure-mode text; it is always counted.
    include_artifacts: bool = False
    # A Figure's /Alt text (§14.9.3) enters structure-mode text where the
    # figure's image is, as a block of its own; it is always kept on the block.
    figure_alt_in_text: bool = False
    # Running headers and footers (extract/running.py): a line in the top or
    # bottom band of the page that repeats, digits masked, on at least
    # running_min_share of the pages read together (or of their odd or their
    # even pages: recto and verso heads) and on at least running_min_pages of
    # them is marked as an artifact (§14.8.2.2), counted in artifact_glyphs and
    # left out of layout-mode text (auto's fallback included). Needs the
    # document: Document.extract_pages and extract_document apply it,
    # Document.extract_page (one page alone) cannot.
    running_artifacts: bool = True
    # Height of each band, top and bottom, as a share of the visible page height.
    # Two bands of more than half the page would overlap.
    running_band: float = setting(0.1, gt=0, le=0.5)
    running_min_share: float = setting(0.5, gt=0, le=1.0)
    running_min_pages: int = setting(3, gt=0)
    # Memory bound of that pass: glyphs of the glyph tables held while pages
    # wait for the document's counts (a glyph costs 200-400 bytes, so the
    # default is about 100-200 MB). Pages beyond it are interpreted again
    # instead of held: slower, same output. 0 holds none.
    running_hold_glyphs: int = setting(500_000, ge=0)
    # Tables on pages read by geometry (layout, auto's fallback): grids of
    # ruling lines and rectangles, or aligned text columns (extract/gridfind.py).
    detect_tables: bool = True

    def __post_init__(self) -> None:
        check_settings(self, "extract")

    def output_settings(self) -> dict[str, Any]:
        """The settings that can change what is extracted (for content hashes):
        all but those that only trade memory for time."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k not in _OUTPUT_NEUTRAL}

    def replace(self, **changes: Any) -> "ExtractConfig":
        return self.from_mapping({**dataclasses.asdict(self), **changes})

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any]) -> "ExtractConfig":
        check_known_keys(cls, table, "extract")
        return cls(**dict(table))

    @classmethod
    def from_toml(cls, path: str | Path) -> "ExtractConfig":
        """Read the ``[extract]`` table of a TOML file (other tables are ignored)."""
        return cls.from_mapping(read_toml_table(path, "extract"))


# Same output whatever their value: left out of content hashes, so that
# tuning memory never changes a chunk id.
_OUTPUT_NEUTRAL = frozenset({"running_hold_glyphs"})
