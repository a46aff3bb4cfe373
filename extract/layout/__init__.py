"""Layout mode: a geometric reading order for pages without usable tags.

A geometric extractor that follows the content stream returns sentences that
were never written wherever a producer paints out of reading order (a footer
first, a table column by column, two columns line by line). Layout mode reads
the page from its geometry, so the same page reads the same whatever order it
was painted in, and the stream only breaks the ties geometry leaves open
(DESIGN.md, "Modes"). The rules run in this sequence (``page._layout``), each
a named function in the module that says why:

1. Units (``units``): stream order cut into line segments at line breaks and
   at jumps along the line (``geometric.unit_breaks``, shared with running.py), in the
   page's reading frame (its dominant writing direction, glyphs counted by
   their height). Vertical writing
   keeps ``stream_order``, which reads its columns right to left (§9.7.4.3).
   Units across the page's direction in a side margin (an arXiv stamp, a
   spine title) read before or after the page (``units.margin_text``); a
   letter a visit paints back into a gap of its own line (a logo's lowered
   E painted after the line) is a unit of its own, which rule 2 reads in
   that gap (``units.pieces_painted_back``).
2. Lines (``lines.line_order``): the units side by side on one baseline, with
   no gap wider than a word space's bound, are one line, read along the line,
   however the stream painted its pieces; a space painted apart reads inside
   the line it sits on (``lines.blanks_on_their_lines``).
3. Columns and the cut (``cut.read_region``): a recursive XY-cut of the lines
   at gutters between text columns (``regions.is_text_column``; narrower
   than COLUMN_WIDTH only where their lines wrap, ``regions.wraps``) or
   between columns set on their own leading whatever they hold
   (``regions.own_rows``: a spec sheet's columns of label-value tables, an
   author grid's columns of blocks each starting at its own pace,
   ``regions.staggered``; a table's columns share their rows and its cells
   of a row start on it), and at whitespace bands; a title or
   spanning block is a band above its columns, a ragged column end (a
   footnote at the foot of its column) joins its column; furniture across
   a gap at the top or bottom of a region (a running head, a title line, a
   page number) reads first or last, whatever gutter it leaves clear
   (``cut._edge_bands``); a part under one column that is no running
   text reads after the columns where the stream paints it after them,
   but not where it walks down its column into it (``cut._walked_into``);
   full-width gaps
   over which every column ends rows apart are section breaks, read
   section after section by the region's columns
   (``cut._sections_in_columns``). The leaves are columns, parts of
   columns and column-free bands.
4. Stream-order tie-breaks (``tiebreaks``): where both cuts fit the same
   region (columns whose gaps line up, sections laid out in columns), a
   part has no place of its own (a page number beside the last lines), or
   bands between the furniture are painted in another order by a stream
   that paints each band in one visit reading down (a callout box placed
   under the text it follows, ``stream_band_order``; small print at the
   foot stays there, ``_small_print_at_foot``; a band across the gutter
   at the foot of a region whose sides the stream reads one after the
   other reads after them, ``foot_apart``), the stream decides,
   and only where it reads one of the orders consistently.
5. Inside a leaf (``leaves.leaf_order``): lines top to bottom; runs of lines
   the stream painted out of order merge and read by rows; a table's columns
   (runs sharing baselines) read row by row; a table's cells of two or three
   tight lines, and paragraphs the stream paints out of order or in turn
   with a block beside them, and a box beside a text column on a leading
   of its own (an infobox), read as one whatever the stream painted
   between their lines; a run above or below every
   other (a running head, a page number) reads first or last, and so do
   the pieces of the page's top and bottom rows (``leaves._edge_rows``),
   and a stack of lines whose blocks the stream paints out of order
   reads top to bottom (``leaves._stack_down``);
   only blocks
   side by side that no cut separated (a sidebar, a pull quote) keep paint
   order, and where the stream paints the leaf in pieces (no witness), its
   paragraphs are the blocks and read top first, then along the line.
   A note boxed at the head of the page, smaller than the running text
   under it and set in from its edge, reads after that text, before the
   furniture at the foot (``leaves.head_note_last``); a note in the
   margin, a narrow gutter from the text (LaTeX's marginpar), reads after
   the block of text its first line stands beside
   (``leaves.margin_note_after_its_block``).
6. Blocks and labels (``labels``): block starts where geometry starts a
   paragraph and at every leaf change; H with a level where the glyphs are
   clearly larger than the body text.

Thresholds live in ``params``, in body heights (the page's most common glyph
height) unless said otherwise.
"""

from ragprep.extract.layout.page import LayoutPicture, layout_order, layout_picture, read_layout

__all__ = [
    "LayoutPicture",
    "layout_order",
    "layout_picture",
    "read_layout",
]
