"""A slot's member properties (``name``, ``position``...) read an unedited slot's bytes
directly; they must answer what the member node answers and what the decoded document holds.

Differential, on every slot of every real sample and fixture (hostile ones included), on slots
built with each integer width and unusual layouts, on hypothesis-generated members, and on
edited slots: each property (``Slot.name``, ``tag``, ``active``, ``position``, ``rotation``,
``scale``, ``order_offset``) equals ``slot.member(key).value`` (or raises the same error), the
Data pymongo decodes from the slot's bytes, and ``local_matrix()`` is the matrix composed from
the member nodes' values.  export-godot reads its nodes
through these properties.
"""

from __future__ import annotations

from typing import Any

import bson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brson
from brson.model import DataTree, Slot, transform
from brson.model.slot import SLOT_MEMBERS
from tests.differential import loadable_trees
from tests.tiers import examples

TRS = {"Position": (0.0, 0.0, 0.0), "Rotation": (0.0, 0.0, 0.0, 1.0), "Scale": (1.0, 1.0, 1.0)}


TREES = loadable_trees()


def _same(a: Any, b: Any) -> bool:
    """Equal as BSON bytes: floats bit for bit (NaN too), widths kept (1 is not Int64(1) or
    1.0)."""
    return bool(bson.encode({"v": a}) == bson.encode({"v": b}))


def _answer(read: Any) -> tuple[str, Any]:
    try:
        return "value", read()
    except Exception as exc:
        return "error", (type(exc), str(exc))


def _decoded_data(slot: Slot, key: str) -> tuple[bool, Any]:
    """The member's Data as pymongo decodes the slot's own bytes, when that is the value the
    model reads (a member document with an ID, Data not a list of members)."""
    start, end = slot.span
    try:
        doc = bson.decode(slot.buffer[start:end])
    except Exception:
        return False, None
    member = doc.get(key)
    if type(member) is not dict or "ID" not in member or "Data" not in member:
        return False, None
    data = member["Data"]
    if type(data) is list and data and type(data[0]) is dict:
        return False, None
    return True, data


def _check_slot(slot: Slot, decoded: bool = True) -> int:
    """Every property against the member node (and the decoded bytes); how many answered."""
    answered = 0
    for key, prop in SLOT_MEMBERS.items():
        got = _answer(lambda: getattr(slot, prop))  # noqa: B023 - called at once
        member = slot.member(key)
        want = _answer(lambda: member.value if member is not None else None)  # noqa: B023
        assert got[0] == want[0], (slot.path, key, got, want)
        if got[0] == "error":
            assert got[1] == want[1], (slot.path, key)
            continue
        assert _same(got[1], want[1]), (slot.path, key, got[1], want[1])
        answered += 1
        if decoded and member is not None:
            ok, data = _decoded_data(slot, key)
            if ok:
                assert _same(got[1], data), (slot.path, key, got[1], data)
    matrix = _answer(slot.local_matrix)
    values = [slot.member(key) for key in TRS]
    if matrix[0] == "value":
        want_matrix = transform.compose(
            *(
                m.value if m is not None and m.value is not None else default
                for m, default in zip(values, TRS.values(), strict=True)
            )
        )
        assert _same(matrix[1], want_matrix), slot.path
    return answered


@pytest.mark.parametrize("name", sorted(TREES))
def test_properties_equal_the_member_nodes(name: str) -> None:
    tree = TREES[name]
    slots = list(tree.root.walk())
    answered = sum(_check_slot(slot) for slot in slots)
    assert answered or len(slots) <= 1 or name.endswith(".json")
    assert not tree.modified  # reading through the properties kept nothing


def _slot_doc(members: dict[str, Any], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    slot: dict[str, Any] = {"ID": "00000001-0000-0000-0000-000000000000"}
    for i, (key, data) in enumerate(members.items()):
        slot[key] = {"ID": f"00000002-0000-0000-0000-{i:012d}", "Data": data}
    slot.update(extra or {})
    slot["Components"] = {"ID": "00000003-0000-0000-0000-000000000000", "Data": []}
    slot["Children"] = []
    return {"Object": slot}


def _built(doc: dict[str, Any]) -> DataTree:
    return brson.loads(bson.encode(doc), name="built.bson")


WIDTHS = [
    {"OrderOffset": bson.Int64(5), "Active": True},
    {"OrderOffset": 5, "Active": 1},  # int32 where the engine writes int64 and a bool
    {"OrderOffset": bson.Int64(-(2**62)), "Name": 7, "Tag": bson.Int64(3)},
    {"Position": [1, 2, 3], "Rotation": [0, 0, 0, 1], "Scale": [1.0, 2, bson.Int64(3)]},
    {"Position": [1.5, 2.5, 3.5], "Rotation": [0.0, 0.0, 0.0, 1.0], "Scale": [2.0] * 3},
    {"Position": [1.0, 2.0], "Scale": [], "Rotation": [0.0, 0.0, 0.0, 1.0, 0.0]},
    {"Position": ["x", 1.0, 2.0], "Scale": [True, 1.0, 1.0], "Rotation": None},
    {"Position": [[1.0], 2.0, 3.0], "Scale": {"a": 1.0}, "Name": b"\x00bytes"},
    {"Position": [{"ID": "00000009-0000-0000-0000-000000000000", "Data": 1.0}]},  # a SyncList
    {"Name": None, "Tag": "", "Active": False, "Position": [float("nan"), -0.0, 1e308]},
]


@pytest.mark.parametrize("members", WIDTHS, ids=range(len(WIDTHS)))
def test_built_slots_both_widths(members: dict[str, Any]) -> None:
    tree = _built(_slot_doc(members))
    assert _check_slot(tree.root)


def test_unusual_member_layouts_take_the_member_node() -> None:
    """Data before ID, no ID, a member that is not a document: the property still answers
    what the member node answers (the byte path declines)."""
    doc = _slot_doc({"Name": "n"})
    slot = doc["Object"]
    slot["Position"] = {"Data": [1.0, 2.0, 3.0], "ID": "00000004-0000-0000-0000-000000000000"}
    slot["Rotation"] = {"Data": [0.0, 0.0, 0.0, 1.0]}
    slot["Scale"] = [1.0, 1.0, 1.0]
    slot["Tag"] = {"ID": "00000005-0000-0000-0000-000000000000", "Data": "t", "More": 1}
    tree = _built(doc)
    _check_slot(tree.root)
    assert tree.root.position == [1.0, 2.0, 3.0]


member_data = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**63), 2**63 - 1).map(bson.Int64),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.lists(st.floats(allow_nan=True), max_size=11),
    st.lists(st.one_of(st.integers(-(2**31), 2**31 - 1), st.floats(), st.text()), max_size=5),
)


@pytest.mark.slow
@settings(max_examples=examples(200))
@given(st.dictionaries(st.sampled_from(sorted(SLOT_MEMBERS)), member_data))
def test_generated_members(members: dict[str, Any]) -> None:
    tree = _built(_slot_doc(members))
    _check_slot(tree.root)


def _edited_copy() -> DataTree:
    shared = next(t for t in TREES.values() if len(t.root.children) > 0)
    return brson.loads(brson.dumps(shared))  # a copy: the shared trees stay unedited


def test_edited_slots() -> None:
    tree = _edited_copy()
    slot = tree.root.children[0]
    slot.position = [1, 2.5, 3.5]
    slot.name = "edited"
    slot.member("Scale").value = [2.0, 2.0, 2.0]  # type: ignore[union-attr]
    assert slot.position == [1.0, 2.5, 3.5] and slot.name == "edited"
    assert slot.scale == [2.0, 2.0, 2.0]
    _check_slot(slot, decoded=False)  # the bytes are the old ones: only the members compare
    other = tree.root.children[-1]
    other.set("Extra", 1)  # the slot's keys edited, its members not
    _check_slot(other, decoded=False)
    again = brson.loads(brson.dumps(tree))
    assert again.root.children[0].position == [1.0, 2.5, 3.5]
    for slot in again.root.walk():
        _check_slot(slot)
