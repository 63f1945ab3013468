"""Slot members read straight from the bytes (export._unedited_value) equal the slot's own
readers, and edited slots go through those readers.

Differential: on every slot of every real sample and fixture, each fast read either declines
(``_SLOW``) or gives what ``Slot.name``/``tag``/``active``/``position``... give, and the local
matrix built from it is ``Slot.local_matrix()`` bit for bit.
"""

from __future__ import annotations

from typing import Any

import bson
import pytest

from brson.api import dumps, loads
from brson.errors import ModelError
from brson.godot.export import _SLOW, _local_matrix_from_bytes, _unedited_value, export_scene
from brson.model.tree import SLOT_MEMBERS

from .test_tscnc import TREES

#: The slot members export reads from the bytes, with the property the model reads them by.
PROPERTIES = {
    key: SLOT_MEMBERS[key] for key in ("Name", "Tag", "Active", "Position", "Rotation", "Scale")
}


def _same(a: Any, b: Any) -> bool:
    """Equal as BSON bytes: floats bit for bit (NaN too), types kept (1 is not 1.0)."""
    return bool(bson.encode({"v": a}) == bson.encode({"v": b}))


@pytest.mark.parametrize("name", sorted(TREES))
def test_fast_reads_equal_the_slot_readers(name: str) -> None:
    tree = TREES[name]
    fast = 0
    for slot in tree.root.walk():
        for key, prop in PROPERTIES.items():
            value = _unedited_value(slot, key)
            if value is _SLOW:
                continue
            fast += 1
            assert _same(value, getattr(slot, prop)), (slot.path, key)
        matrix = _local_matrix_from_bytes(slot)
        if matrix is not None:
            assert _same(matrix, slot.local_matrix()), slot.path
    assert fast or len(list(tree.root.walk())) <= 1 or name.endswith(".json")


def test_edited_slot_takes_the_slot_readers() -> None:
    shared = next(t for t in TREES.values() if len(t.root.children) > 0)
    tree = loads(dumps(shared))  # a copy: the shared trees stay unedited
    slot = tree.root.children[0]
    slot.position = [1.5, 2.5, 3.5]
    slot.name = "edited"
    assert _unedited_value(slot, "Position") is _SLOW
    assert _local_matrix_from_bytes(slot) is None
    scene = export_scene(tree, 4)
    node = next(n for n, s in scene.nodes if s is slot)
    assert node.name == "edited"
    origin = node.properties["transform"].origin
    assert (origin.x, origin.y, origin.z) == (1.5, 2.5, 3.5)


def test_malformed_member_keeps_its_error() -> None:
    """A transform member that is not doubles is left to the slot's reader, and its error."""
    shared = next(t for t in TREES.values() if len(t.root.children) > 0)
    tree = loads(dumps(shared))
    tree.root.children[0].scale = ["x", 1.0, 1.0]
    tree = loads(dumps(tree))  # unedited again: the bad value is in the bytes
    slot = tree.root.children[0]
    assert _unedited_value(slot, "Scale") is _SLOW
    assert _local_matrix_from_bytes(slot) is None
    with pytest.raises(ModelError):
        export_scene(tree, 4)
