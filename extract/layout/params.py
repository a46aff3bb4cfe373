"""Every threshold of layout mode, in one place (those it shares with
running.py, the unit cut's and the reading direction's, are geometric.py's).

Lengths are in body heights (the page's most common glyph height) unless
said otherwise; the module of each rule says why it is what it is.
"""

from __future__ import annotations

import numpy as np

# After a blank, a jump wider than this many heights is measured again from
# the blank's start (units.unit_starts): word spaces set by Tw, narrower,
# cost no look.
BLANK_GAP = 0.3
# Two glyphs of one text whose centres lie within this share of a height
# of each other are one glyph painted twice (fake bold), not two glyphs.
DOUBLE_STRIKE = 0.1
# A glyph whose centre lies this share of a height or more before the one
# painted before it along the line steps back (lines.glyphs_along): a
# visit whose steps go back more often than forward, twice or more, paints
# its line backwards a glyph at a time (narrower steps than a glyph height,
# so no unit break); an accent over its letter steps back by less.
BACK_STEP = 0.25
# Units the stream painted apart are one line where their baselines lie
# within this share of the smaller height of each other ...
LINE_BASELINE = 0.3
# ... and no more than this many (smaller) heights of whitespace part them
# along the line: a word space, even a justified one; less than SEGMENT_GAP.
LINE_JOIN_GAP = 0.6
# Pieces of one row painted a word at a time (a browser's justified line)
# are one line where three or more of them lie apart by gaps wider than
# LINE_JOIN_GAP yet equal to within this many body heights
# (lines._justified_lines): the justified word space, the same across its
# line; a gutter equals a line's word space only by chance.
JUSTIFIED_EVEN = 0.02
# ... and no wider than this many body heights: a line stretched further
# would have taken another word (the widest such gaps, in narrow columns,
# are about a body height); a table's cells of one word each lie apart by
# their columns' widths.
JUSTIFIED_SPACE = 2.0
# A section's number ending in a painted space reads with the title after
# it on its row across up to this many heights (the smaller) of
# whitespace (lines._numbered_headings): a quad after the number, an em,
# is 0.7 of a glyph height in a font with a tall box (lualatex-tagpdf's
# headings) and 1.1 in one with a short box (Helvetica's).
NUMBER_GAP = 1.5
# ... a number of at most this many glyphs.
NUMBER_GLYPHS = 8
# A unit of a line whose centre lies inside the extent of a unit before
# it, at most this share as wide, is a piece painted in that unit's gaps
# (LaTeX's logo: lines._pieces_inside) and reads among its glyphs; a unit
# painted twice over itself (fake bold) is as wide as itself.
PIECE_SHARE = 0.5
# A unit at most this many body heights tall beside a line (a footnote
# mark, a raised reference, an index) is a mark read inside that line
# (lines.line_order), whatever its baseline: browsers set marks at 80% of
# the text's size, which a bound of 0.8 missed by a rounding.
MARK_SIZE = 0.85
# A gutter is a strip of whitespace at least this many body heights wide.
GUTTER = 0.6
# A margin note stands at most this many body heights from its text
# (leaves.margin_note_after_its_block): LaTeX's \marginparsep, 10 or 11pt,
# is 0.78 of lualatex-tagpdf's body height; a sidebar set in the margin
# as a column of its own, read before the text beside it
# (pdfua-G4_04-sidebar: 5.9), or a cover's label beside its title
# (breast-cancer-guide p1: 1.3) stands further off.
MARGIN_NOTE_GAP = 1.0
# Two rows of units may overlap by this many body heights (tall ascenders
# over deep descenders) and still be separate rows.
ROW_OVERLAP = 0.2
# A horizontal whitespace gap of this many body heights across a whole region
# may separate bands (sections, a title block); wider than the space between
# lines and paragraphs.
SECTION_GAP = 1.2
# Where both cuts fit a region, a gap under which its columns start on one
# row, over which they end this many body heights apart or more, is a
# section break (cut._sections_in_columns): more than the space before a
# heading, which is all the whitespace a column of flowing text leaves.
SECTION_RAGGED = 2.0
# A side caption's lines step down this many body heights or less, one block
# (cut._side_captions): more than a caption's leading, less than the blank
# line between a table's rows of wrapped labels.
SIDE_CAPTION_LEADING = 1.5
# A band at the top or bottom of a region, across a full-width gap, of at
# most this many rows and no running text is furniture (cut._edge_bands):
# a running head, a title line, a page number, a footer; the ends of two
# columns under a gap are more rows.
FURNITURE_ROWS = 2
# A block at the head of the page whose lines' median height is at most this
# share of the running text's under it, and whose start edge lies NOTE_INSET
# body heights or more inside the text's measure, is a note boxed at the head
# of the page (leaves.head_note_last): 8 pt notes over 11 pt text are 0.73, a
# table's labels in 9 pt beside 8 pt cells 0.8; a caption in 9 pt over 10 pt
# text (0.9) or a heading (larger) is no such note.
NOTE_SIZE = 0.85
# ... the box's padding: a frame sets its text in from the column's edge by
# a few points (8 pt in 11 pt text: 0.75); a paragraph's first-line indent
# indents one line, not the block.
NOTE_INSET = 0.5
# Bands at the foot of a region whose lines' median height is at most this
# share of the other bands' are small print (footnotes across the page):
# they stay under the text whatever the stream paints first
# (tiebreaks._small_print_at_foot); 7 pt notes under 10 pt text are 0.7,
# a caption in 9 pt under 10 pt text is 0.9.
SMALL_PRINT = 0.8
# A gutter candidate for banding has content on both sides in rows that make
# up at least this share of the region's height.
GUTTER_SUPPORT = 0.2
# A text column is at least this many body heights wide ...
COLUMN_WIDTH = 12.0
# A column narrower than that (a box of two narrow columns, a sidebar set
# in columns) is running text only where its lines wrap (regions.wraps),
# down to this many body heights: about fourteen characters a line.
NARROW_COLUMN = 6.0
# Lines wrap where at least this share of them, followed by a line of the
# same column, could not have taken the next line's first word: a greedy
# line breaker's lines (a paragraph's last line does not wrap; a table's
# cells, ending where their content ends, mostly do not).
WRAPPED = 0.75
# ... of the lines that the next one follows at the leading: a step down
# wider than this many times the median step is a paragraph gap, after a
# paragraph's last line, which does not wrap.
PARAGRAPH_STEP = 1.5
# ... out of at least this many such lines (a block of four lines or more).
WRAP_PAIRS = 3
# ... of this many words or more, in the median: a paragraph's narrow lines,
# not an address block's lines of a name each.
WRAP_WORDS = 3
# ... a word space being about this many body heights.
WRAP_SPACE = 0.25
# Within a unit, a gap along the line wider than this many heights ends a
# word (join()'s word space, ExtractConfig.word_space_ratio, is 0.15).
WORD_GAP = 0.15
# ... and its rows fill, in the median, at least this share of its width.
COLUMN_FILL = 0.6
# ... with at most this share of rows made of several units (cells) ...
COLUMN_SPLIT_ROWS = 0.25
# ... with at least this many glyphs per row (median; a CJK line as wide as
# COLUMN_WIDTH holds about that many), ...
COLUMN_GLYPHS = 10
# ... of which at least this share are letters.
COLUMN_LETTERS = 0.5
# A region of columns (not a text column itself) counts as a column beside
# a text column that runs along at least this share of its height.
COMPOUND_COVER = 0.9
# When a region can be cut into columns and into bands, the stream decides
# for the bands only when at most this share of its units is out of their
# order (see read_region).
STRAYS = 0.1
# Where only bands cut a region, the stream's column-by-column reading stands
# only with at most this share of its units out of that order: a stream
# painted out of order is no witness.
CONSISTENT = 0.25
# A leaf whose stream goes down the page (or along a row) from at least this
# share of its lines to the next reads in paint order, the order of a
# producer that paints in reading order; a reversed stream goes down from
# none, a shuffled one from about half.
COHERENT = 0.8
# A leaf with at least this many lines as long as a text column's lines
# (COLUMN_FILL x COLUMN_WIDTH) holds prose, even where it fails the
# text-column test: no figure's labels, whose paint order would stand.
PROSE_LINES = 3
# A group beside a gutter whose rows hold such lines in at least this share
# is a column of prose (regions.holds_prose), whatever else it holds.
PROSE_SHARE = 0.3
# A leaf of more runs than this is read by rows without weighing its runs
# (a bound on the quadratic work of ordering them, not a layout limit).
MAX_RUNS = 400
# A run goes on down its block across whitespace up to this many body
# heights (a paragraph gap); a wider jump down starts a run.
RUN_GAP = 2.0
# A stream's pass down a leaf (leaves._passes_in_turn) goes on across such
# whitespace only to a line whose edge lies within this many body heights
# of the last one's (the same column's next paragraph; a hanging label
# indented by a space from the line before).
PASS_EDGE = 0.5
# A sidebar is a box of facts, a float (leaves._sidebar_box), where at least
# this many of its rows hold a label and its value side by side (two lines
# on one row): an infobox; a figure's captions in a column of their own hold none.
FACT_ROWS = 2
# A stream that paints this many runs of a leaf or more into holes it left
# in a column (after a run over them, then one under them) is no witness of
# their order (leaves._holes_filled_later); one such run is a float it placed.
FILLED_HOLES = 2
# A stream that goes back up from one block of a leaf that is no text column
# (a run of two lines or more) to a block above it this many times or more,
# in more than CONSISTENT of its moves from block to block, is no witness of
# the blocks' order (leaves._blocks_painted_back: a figure's callouts painted
# in no order); going back up once is a float it placed.
BLOCKS_BACK = 2
# Two runs of lines whose boxes overlap across the line by less than this
# many body heights lie one above the other (tall glyph boxes of
# consecutive lines overlap by a third of a line or so).
STACKED = 0.5
# A table's rows of cells set on several lines (leaves._grid_rows): lines
# whose boxes touch are one row, when every other gap between lines is
# padding of at least this many body heights ...
CELL_PADDING = 0.8
# ... and no row is more than this many lines.
MAX_CELL_LINES = 3
# Cells and lines read one after another whose boxes overlap across the
# line by at least this share of the shorter box lie on one row of a table
# (leaves._cells_along_rows), and read along it: a cell centred on a row
# of two-line cells overlaps its neighbours by far more; the lines of a
# column, one above the other, by none.
SHARED_ROW = 0.5
# Lines of one cell (leaves.stacked_cells; and kernels.grid_rows' cells
# wrapped under a row of fuller rows) lie at most this many body heights of
# whitespace apart (single-spaced lines leave about 0.2), less than the
# CELL_PADDING that parts the cells of a column.
CELL_LEADING = 0.4
# Lines of a block flush on one edge or centred, one under the other (a
# title, its authors, a date; a heading over its line or two a paragraph gap
# under it), lie at most this many body heights of whitespace apart: a line
# or so set between them, more than a cell's or an address's CELL_LEADING
# (leaves._flush_stack).
TITLE_LEADING = 1.5
# Cells of stacked lines are looked for in leaves of at most this many lines
# (leaves.stacked_cells: a bound on its pairwise work, not a layout limit).
MAX_CELL_LEAF = 1500
# Two runs side by side sharing this many rows are a table's columns.
GRID_ROWS = 4
# Two runs of a stream reading down a leaf whose lines change run this many
# times down the page take turns (a line of each between two of the other).
TURNS = 3
# Two groups beside one another of which at most this share of the smaller
# one's lines lie on a baseline of the other are columns set on their own
# (cut.own_rows); lines on unrelated leadings meet a baseline of the other
# by chance about 2 x SAME_BASELINE / leading of the time, a third or so.
# regions.staggered puts the same share to the blocks' first lines, then to
# their last lines (a table's cells of a row start on it or end on it).
ALIGNED = 0.6
# Lines of one row no more than this many body heights apart along it are
# the row's pieces (a display equation's sides, a matrix's entries), which a
# stream that reads the leaf paints in turn; one that paints two such lines
# apart this many times or more (and for more than 1 - COHERENT of the
# leaf's rows) is no witness of the leaf's order (leaves._rows_in_pieces).
ROW_PIECE_GAP = 1.0
ROW_RETURNS = 3
# Two lines whose baselines lie this many body heights apart or less share a row.
SAME_BASELINE = 0.25
# A line whose baseline lies this many body heights or more under another's
# is on a line below it (half a line: less is the same line's raised or
# lowered marks, more the next line at any leading).
NEXT_LINE = 0.5
# Deeper cuts than this keep stream order (a guard, not a layout limit).
MAX_DEPTH = 24
# A unit whose direction makes more than about two degrees with the page's
# (cosine below this) is skewed: laid flat at its mean baseline in the frame
# (units._flattened).
SKEWED = 0.9994
# A unit written across the page's direction lying this many of its own
# heights or more beside every placed line is in a side margin (its box,
# whichever way it is turned, stays clear of the text): an arXiv stamp, a
# spine title; it reads before or after the page (units.margin_text).
MARGIN_CLEAR = 1.0
# Share of a glyph's height below the baseline (Latin fonts: about 0.2).
DESCENT = 0.22
# Sample of glyphs on which a column's share of letters is estimated.
LETTER_SAMPLE = 100
# No code point below this one is right-to-left (U+0590, the Hebrew block).
FIRST_RTL = 0x0590
# Sample of glyphs used to decide whether the page reads right to left.
RTL_SAMPLE = 100
# First-line indent: the line starts this many heights right of the line
# before it, while the line after it is flush with the line before.
INDENT_MIN, INDENT_MAX, FLUSH = 0.8, 6.0, 0.3
# A heading's glyphs are at least this much larger than the body text ...
HEADING_SIZE = 1.2
# ... on most of its glyphs, and it spans at most this many lines.
HEADING_SHARE = 0.75
HEADING_LINES = 4
# ... and glyphs of its size make up at most this share of the page.
HEADING_PAGE_SHARE = 0.2
MAX_HEADING_LEVEL = 6
