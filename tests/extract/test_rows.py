"""rows.frozen_rows: whole tables of frozen dataclass rows (the compiled core
builds them where it runs; frozen_instance per row is the reference)."""

from __future__ import annotations

import dataclasses
import gc
import pickle
import weakref

from ragprep.extract.blocks import Block, TextLine
from ragprep.extract.rows import frozen_instance, frozen_rows


def test_rows_are_the_instances_the_dataclass_gives():
    rows = frozen_rows(TextLine, {"char_start": [0, 5], "char_end": [4, 9], "bbox": [(0.0, 1.0, 2.0, 3.0), (1.0, 1.0, 2.0, 2.0)]})
    assert rows == (TextLine(0, 4, (0.0, 1.0, 2.0, 3.0)), TextLine(5, 9, (1.0, 1.0, 2.0, 2.0)))
    assert rows[0] == frozen_instance(TextLine, {"char_start": 0, "char_end": 4, "bbox": (0.0, 1.0, 2.0, 3.0)})
    assert hash(rows[1]) == hash(TextLine(5, 9, (1.0, 1.0, 2.0, 2.0)))
    assert vars(rows[0]) == {"char_start": 0, "char_end": 4, "bbox": (0.0, 1.0, 2.0, 3.0)}
    assert pickle.loads(pickle.dumps(rows)) == rows
    assert dataclasses.replace(rows[0], char_end=3) == TextLine(0, 3, (0.0, 1.0, 2.0, 3.0))
    assert frozen_rows(TextLine, {"char_start": [], "char_end": [], "bbox": []}) == ()


def test_a_row_holding_a_mutable_value_is_still_collected_in_a_cycle():
    # Rows of plain values leave the cyclic collector alone (the compiled
    # core untracks them); a row that holds a list must stay visible to it.
    mcids: list[object] = []
    fields = {f.name: [None] for f in dataclasses.fields(Block)}
    (row,) = frozen_rows(Block, {**fields, "mcids": [mcids]})
    mcids.append(row)
    gone = weakref.ref(row)
    del row, mcids
    gc.collect()
    assert gone() is None
