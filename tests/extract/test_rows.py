"""rows.frozen_rows: whole tables of frozen dataclass rows (the compiled core
builds them where it runs; frozen_instance per row is the reference)."""

from __future__ import annotations

import dataclasses
import gc
import pickle
import weakref

import pytest

from ragprep.extract.blocks import Block, TextLine
from ragprep.extract.document import PageResult
from ragprep.extract.rows import frozen_instance, frozen_replace, frozen_rows
from ragprep.extract.tables import Table


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


@pytest.mark.parametrize("cls", [PageResult, Table])
def test_the_classes_frozen_replace_copies_keep_what_it_assumes(cls) -> None:  # type: ignore[no-untyped-def]
    """frozen_replace copies an instance's __dict__ as it is: it is
    dataclasses.replace only for a class whose instances hold every field in
    their __dict__ (no slots), set by __init__ (no field left out of it), with
    no __post_init__ to run again and no default factory to call (replace
    calls neither for a field it copies, but __init__ would make a fresh value
    for one left out). The pages and tables document.py and tables.py copy:
    this fails when one of them gains what the shortcut does not do."""
    assert not hasattr(cls, "__post_init__")
    assert "__slots__" not in vars(cls)
    for f in dataclasses.fields(cls):
        assert f.init, f.name
        assert f.default_factory is dataclasses.MISSING, f.name
    sample = cls(**{f.name: None for f in dataclasses.fields(cls)})
    assert vars(sample).keys() == {f.name for f in dataclasses.fields(cls)}
    changed = dataclasses.fields(cls)[-1].name
    assert frozen_replace(sample, **{changed: 1}) == dataclasses.replace(sample, **{changed: 1})


def test_rows_of_plain_columns_leave_the_collector_alone_and_a_mutable_value_keeps_its_row_tracked(interpreter_path) -> None:  # type: ignore[no-untyped-def]
    """The compiled core checks the columns once (all plain: every row and
    tuple untracked, no check per row), else row by row: a row holding a list
    stays tracked, the others of plain values are untracked as before."""
    fields = {f.name: ["t", "u", "v"] for f in dataclasses.fields(Block)}
    boxes = [(0.0, 0.0, 1.0, 1.0), (1.0, 1.0, 2.0, 2.0), (2.0, 2.0, 3.0, 3.0)]
    plain = frozen_rows(Block, {**fields, "bbox": boxes, "mcids": [(1,), (2, 3), ()]})
    assert plain == tuple(Block(**{name: column[k] for name, column in {**fields, "bbox": boxes, "mcids": [(1,), (2, 3), ()]}.items()}) for k in range(3))
    compiled = interpreter_path == "compiled"
    if compiled:
        assert not any(gc.is_tracked(row) or gc.is_tracked(row.bbox) for row in plain)
    mixed = frozen_rows(Block, {**fields, "bbox": boxes, "mcids": [(1,), [2], ()]})
    assert [row.mcids for row in mixed] == [(1,), [2], ()]
    if compiled:
        assert [gc.is_tracked(row) for row in mixed] == [False, True, False]
