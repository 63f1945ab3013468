"""Random edits applied to the model and, the same way, to the decoded dict: the model must
write exactly what pymongo writes for the dict, read back identically, and its reference graph
(built from the edited nodes) must equal the one built from the written bytes."""

from __future__ import annotations

from typing import Any

import bson
import pytest
from bson.int64 import Int64
from hypothesis import given, settings
from hypothesis import strategies as st

import brson
from brson.graph import ReferenceGraph
from brson.model import DataTree

from .support import STANDIN, raw_slots, sample, stored_bson

INT32 = st.integers(-(2**31), 2**31 - 1)
GUIDS = st.sampled_from(
    [
        "00000038-0000-0000-0000-000000000000",  # a component in the file
        "0000001c-0000-0000-0000-000000000000",  # a slot
        "00000035-0000-0000-0000-000000000000",  # a member
        "0badc0de-1111-2222-3333-444455556666",  # nothing: an external reference
    ]
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    INT32,
    st.integers(-(2**63), 2**63 - 1).map(Int64),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    GUIDS,
    st.lists(st.floats(allow_nan=False, width=32), min_size=3, max_size=4),
)
KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,9}", fullmatch=True)
INDEX = st.integers(0, 10_000)

OPS = st.one_of(
    st.tuples(st.just("name"), INDEX, st.text(max_size=30)),
    st.tuples(
        st.just("position"),
        INDEX,
        st.tuples(*[st.floats(allow_nan=False, allow_infinity=False)] * 3),
    ),
    st.tuples(st.just("order"), INDEX, st.integers(-(2**40), 2**40)),
    st.tuples(st.just("value"), INDEX, INDEX, INDEX, VALUES),
    st.tuples(st.just("add"), INDEX, INDEX, KEYS, VALUES),
    st.tuples(st.just("delete"), INDEX, INDEX, INDEX),
)


@pytest.fixture(scope="module")
def standin() -> bytes:
    return stored_bson(sample(STANDIN))


def _apply(tree: DataTree, doc: dict[str, Any], op: tuple[Any, ...]) -> None:
    slots = list(tree.walk())
    raws = [r for r, _ in raw_slots(doc)]
    kind, at = op[0], op[1] % len(slots)
    slot, raw = slots[at], raws[at]
    if kind == "name":
        slot.name = op[2]
        raw["Name"]["Data"] = op[2]
    elif kind == "position":
        slot.position = op[2]
        raw["Position"]["Data"] = [float(v) for v in op[2]]
    elif kind == "order":
        slot.order_offset = op[2]
        raw["OrderOffset"]["Data"] = Int64(op[2])
    else:
        if not slot.components:
            return
        which = op[2] % len(slot.components)
        component, data = slot.components[which], raw["Components"]["Data"][which]["Data"]
        if kind == "add":
            component.data.set(op[3], op[4])
            data[op[3]] = op[4]
            return
        fields = list(component.fields)
        if not fields:
            return
        key = fields[op[3] % len(fields)]
        if kind == "delete":
            component.data.delete_key(key)
            del data[key]
            return
        value = op[4]
        component[key].value = value
        old = data[key]["Data"]
        widen = isinstance(old, Int64) and isinstance(value, int) and not isinstance(value, bool)
        data[key]["Data"] = Int64(value) if widen else value


@settings(max_examples=40)
@given(st.lists(OPS, min_size=1, max_size=8))
def test_random_edits_write_what_pymongo_writes(standin: bytes, ops: list[tuple[Any, ...]]) -> None:
    tree = brson.loads(standin, name="standin.bson")
    doc = bson.decode(standin)
    for op in ops:
        _apply(tree, doc, op)
    written = tree.to_bson()
    assert written == bson.encode(doc)
    again = brson.loads(brson.dumps(tree))
    assert again.to_bson() == written
    assert [s.name for s in again.walk()] == [r["Name"]["Data"] for r, _ in raw_slots(doc)]

    def key(graph: ReferenceGraph) -> list[tuple[str, str, str | None, bool]]:
        return sorted((r.describe(), r.target_id, r.member_id, r.internal) for r in graph)

    assert key(ReferenceGraph.build(tree)) == key(ReferenceGraph.build(again))
