"""rows.frozen_rows: whole tables of frozen dataclass rows (the compiled core
builds them where it runs; frozen_instance per row is the reference)."""

from __future__ import annotations

import dataclasses
import gc
import pickle
import weakref

import pytest

from ragprep.extract.blocks import Block, TextLine
from ragprep.extract.rows import frozen_instance, frozen_replace, frozen_rows


def test_rows_are_the_instances_the_dataclass_gives():
    rows = frozen_rows(TextLine, {"char_start": [0, 5], "char_end": [4, 9], "bbox": [(0.0, 1.0, 2.0, 3.0), (1.0, 1.0, 2.0, 2.0)]})
    assert rows == (TextLine(0, 4, (0.0, 1.0, 2.0, 3.0)), TextLine(5, 9, (1.0, 1.0, 2.0, 2.0)))
    assert rows[0] == frozen_instance(TextLine, {"char_start": 0, "char_end": 4, "bbox": (0.0, 1.0, 2.0, 3.0)})
    assert hash(rows[1]) == hash(TextLine(5, 9, (1.0, 1.0, 2.0, 2.0)))
    assert dataclasses.asdict(rows[0]) == {"char_start": 0, "char_end": 4, "bbox": (0.0, 1.0, 2.0, 3.0)}
    assert pickle.loads(pickle.dumps(rows)) == rows
    assert dataclasses.replace(rows[0], char_end=3) == TextLine(0, 3, (0.0, 1.0, 2.0, 3.0))
    assert frozen_rows(TextLine, {"char_start": [], "char_end": [], "bbox": []}) == ()


@dataclasses.dataclass(frozen=True)
class _Keyed:
    """A frozen dataclass with a __dict__ (no slots): its fields are set by name."""

    name: str
    size: int = 0


def test_rows_of_a_class_with_or_without_slots_are_its_own_instances():
    # Block keeps its fields in slots (stored there directly), _Keyed in its __dict__.
    values = {f.name: [f"v{k}" for k in range(3)] for f in dataclasses.fields(Block)}
    blocks = frozen_rows(Block, values)
    assert blocks == tuple(Block(**{name: column[k] for name, column in values.items()}) for k in range(3))
    assert [block.alt for block in blocks] == ["v0", "v1", "v2"]
    keyed = frozen_rows(_Keyed, {"name": ["a", "b"], "size": [1, 2]})
    assert keyed == (_Keyed("a", 1), _Keyed("b", 2))
    assert vars(keyed[1]) == {"name": "b", "size": 2}
    assert pickle.loads(pickle.dumps(blocks)) == blocks


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


def test_frozen_replace_is_dataclasses_replace():
    keyed = _Keyed("a", 1)
    replaced = frozen_replace(keyed, size=5)
    assert replaced == dataclasses.replace(keyed, size=5) == _Keyed("a", 5)
    assert repr(replaced) == "_Keyed(name='a', size=5)" and keyed == _Keyed("a", 1)
    assert hash(replaced) == hash(_Keyed("a", 5)) and pickle.loads(pickle.dumps(replaced)) == replaced
    with pytest.raises(TypeError, match="colour"):
        frozen_replace(keyed, colour="red")
