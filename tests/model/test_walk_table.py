"""``DataTree.walk`` over the compiled slot table (``spans.SlotTable``) gives what the walk that
indexes every slot gives: the same slots, names, paths, components and types, the same node
identities, and edits that still land; and it reads no slot's keys to do it.

The reference is the same walk with the compiled walk switched off (``spans.ACCELERATED``),
which is the path every tree takes under ``BRSON_PURE_PYTHON=1``.
"""

from __future__ import annotations

from typing import Any

import bson
import pytest

import brson
from brson.document import raw
from brson.errors import BrsonError, ModelError
from brson.model import spans as spans_module
from brson.model.component import Component
from brson.model.slot import Slot
from brson.model.tree import DataTree
from tests.differential import part_trees_bson
from tests.graph.synth import world

needs_c = pytest.mark.skipif(not spans_module.ACCELERATED, reason="the C walk is not built")


def _listing(tree: DataTree) -> list[Any]:
    out: list[Any] = []
    for slot in tree.walk():
        out.append((slot.span, slot.name, slot.path, slot.id, len(slot.children)))
        for component in slot.components:
            try:
                kind: Any = str(component.type)
            except ModelError as error:
                kind = str(error)
            out.append((component.span, kind, component.type_index, component.id))
    return out


def _reference(data: bytes, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    with monkeypatch.context() as patch:
        patch.setattr(spans_module, "ACCELERATED", False)
        tree = brson.loads(data, name="reference.bson")
        listing = _listing(tree)
        assert tree.slot_table is None
    return listing


@pytest.mark.parametrize("name", sorted(part_trees_bson()))
def test_walk_gives_what_the_indexing_walk_gives(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = part_trees_bson()[name]
    assert _listing(brson.loads(data, name=name)) == _reference(data, monkeypatch)


def test_walk_of_a_synthetic_world_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    data = bson.encode(world(300, seed=7))
    tree = brson.loads(data, name="world.bson")
    assert _listing(tree) == _reference(data, monkeypatch)
    assert (tree.slot_table is not None) is spans_module.ACCELERATED


def test_int64_type_reads_as_the_index_reads_it() -> None:
    doc = world(20, seed=3)
    for component in doc["Object"]["Components"]["Data"]:
        component["Type"] = bson.Int64(component["Type"])
    tree = brson.loads(bson.encode(doc), name="wide.bson")
    component = tree.root.components[0]
    assert component.etype("Type") == raw.INT64
    index = component.type_index
    assert type(index) is int
    assert component.type is tree.types[index]


def _counted_indexing(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    original = raw.index_like

    def counted(*args: Any) -> Any:
        calls[0] += 1
        return original(*args)

    monkeypatch.setattr(raw, "index_like", counted)
    return calls


@needs_c
def test_a_walk_of_names_and_types_indexes_no_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work a user's walk does per slot: no index of the slot's keys (a dict of a dozen
    tuples per slot was most of the walk)."""
    tree = brson.loads(bson.encode(world(200, seed=5)), name="world.bson")
    calls = _counted_indexing(monkeypatch)
    slots = 0
    for slot in tree.walk():
        assert isinstance(slot.name, str)
        for component in slot.components:
            component.type  # noqa: B018
        slots += 1
    assert slots == 200
    assert calls[0] == 0


def test_walked_nodes_are_the_nodes_later_reads_give() -> None:
    tree = brson.loads(bson.encode(world(120, seed=11)), name="world.bson")
    walked = list(tree.walk())
    assert walked[0] is tree.root
    by_id = {id(slot) for slot in walked}
    for slot in walked:
        kids = slot.children
        assert all(id(kid) in by_id and kid.parent is slot for kid in kids)
        assert [id(k) for k in kids] == [id(k) for k in slot.children]
        components = slot.components
        assert [id(c) for c in components] == [id(c) for c in slot.components]
        member = slot.components_member
        if components:
            assert member is not None
            held = member.child_nodes("Data", type(components[0]))
            assert held is not None
            assert [id(c) for c in held] == [id(c) for c in components]
            assert all(c.owner is member and c.slot is slot for c in components)
    assert list(tree.walk()) == walked
    assert all(a is b for a, b in zip(tree.walk(), walked, strict=True))


def test_edits_on_walked_nodes_are_written() -> None:
    tree = brson.loads(bson.encode(world(80, seed=13)), name="world.bson")
    renamed = added = disabled = 0
    for slot in tree.walk():
        if slot.depth == 2 and not renamed:
            slot.name = "renamed by the walk"
            renamed += 1
        if slot.depth == 1 and not added:
            slot.add_child("added during the walk")
            added += 1
        for component in slot.components:
            if component.slot is not None and component.slot.depth == 3:
                component.fields["Enabled"].value = False
                disabled += 1
    assert renamed == added == 1
    assert disabled > 0
    again = brson.loads(tree.to_bson(), name="edited.bson")
    names = [slot.name for slot in again.walk()]
    assert "renamed by the walk" in names
    assert "added during the walk" in names
    # The child added to a walked slot was walked too (the walk reads children after the yield).
    assert [slot.name for slot in tree.walk()] == names
    enabled = [
        c.fields["Enabled"].value for s in again.walk() if s.depth == 3 for c in s.components
    ]
    assert enabled and not any(enabled)


def _odd_world() -> bytes:
    """A world whose names and types take every path the table does not answer for: names
    that are no string, empty, in another member layout, not UTF-8; types that are int64,
    negative, out of range, a name, or not the first key."""
    doc = world(40, seed=17)
    slots: list[dict[str, Any]] = []
    pending = [doc["Object"]]
    while pending:
        slot = pending.pop()
        slots.append(slot)
        pending += slot["Children"]
    names: list[Any] = ["", None, 5, "Ä ✓ <b>x</b>", "\x00inside", "NOT-UTF8"]
    for slot, name in zip(slots[1:], names, strict=False):
        slot["Name"]["Data"] = name
    swapped = slots[len(names) + 1]["Name"]
    slots[len(names) + 1]["Name"] = {"Data": "swapped", "ID": swapped["ID"]}
    components = [c for slot in slots for c in slot["Components"]["Data"]]
    types: list[Any] = [bson.Int64(2), -1, 999, "[FrooxEngine]FrooxEngine.Comp3", bson.Int64(-5)]
    for component, kind in zip(components, types, strict=False):
        component["Type"] = kind
    late = components[len(types)]
    data_first = {"Data": late["Data"], "Type": 1}
    late.clear()
    late.update(data_first)
    data = bson.encode(doc)
    # "NOT-UTF8" becomes bytes no UTF-8 decoder takes (same length, so framing holds).
    assert data.count(b"NOT-UTF8") == 1
    return data.replace(b"NOT-UTF8", b"\xff\xfe\xfdUTF8\xc3")


def _outcome(read: Any) -> Any:
    try:
        return read()
    except BrsonError as error:  # the model's errors, the same either way
        return type(error).__name__, str(error)


def _odd_listing(tree: DataTree) -> list[Any]:
    out: list[Any] = []
    for slot in tree.walk():
        out.append((slot.span, _outcome(lambda s=slot: s.name)))
        for component in slot.components:
            out.append((component.span, _outcome(lambda c=component: c.type)))
            out.append(_outcome(lambda c=component: c.type_index))
    return out


def test_odd_names_and_types_read_as_without_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _odd_world()
    tree = brson.loads(data, name="odd.bson")
    listing = _odd_listing(tree)
    assert (tree.slot_table is not None) is spans_module.ACCELERATED
    with monkeypatch.context() as patch:
        patch.setattr(spans_module, "ACCELERATED", False)
        reference = brson.loads(data, name="reference.bson")
        assert _odd_listing(reference) == listing
        assert reference.slot_table is None
    flat = [entry[1] for entry in listing if isinstance(entry, tuple) and len(entry) == 2]
    assert "" in flat and None in flat and 5 in flat and "Ä ✓ <b>x</b>" in flat
    assert any(isinstance(x, tuple) and x[0] == "DocumentError" for x in flat)


@needs_c
def test_the_table_holds_what_the_model_reads() -> None:
    """The table's names and type indices are the model's where it answers, None / -1 where
    it leaves them to the model (a name that is not a string, bytes that are not UTF-8, a
    ``Type`` not first or negative)."""
    tree = brson.loads(_odd_world(), name="odd.bson")
    slots = list(tree.walk())
    table = tree.slot_table
    assert table is not None
    rows = {table.slot_span(row): row for row in range(len(table.names))}
    answered = 0
    for slot in slots:
        name = table.names[rows[slot.span]]
        if name is not None:
            assert name == _outcome(lambda s=slot: s.member("Name").value)  # type: ignore[union-attr]
            answered += 1
    assert answered < len(slots)
    starts = list(table.comp_starts)
    left = 0
    for slot in slots:
        for component in slot.components:
            at = table.comp_types[starts.index(component.span[0])]
            raw_type = component.type_index
            if at >= 0:
                assert at == raw_type
                continue
            left += 1
            leads = component.keys()[0] == "Type"
            assert not leads or not isinstance(raw_type, int) or raw_type < 0
    assert left == 4  # -1, the name, Int64(-5), the one whose Data comes first


def _slot_names(cls: type) -> set[str]:
    return {name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())}


@needs_c
def test_walked_nodes_have_every_attribute_their_constructor_sets() -> None:
    """Walked slots and their components are made without their constructors
    (``Slot.walked_child``, ``Component.on_walked_slot``): each must have every attribute
    set, to what the constructor and the links the walk makes would give."""
    tree = brson.loads(bson.encode(world(60, seed=19)), name="world.bson")
    for slot in tree.walk():
        components = slot.components
        if slot.parent is None:
            continue
        made = Slot(slot.buffer, *slot.span, slot.parent)
        made.tree, made.parent = slot.tree, slot.parent
        for name in _slot_names(Slot):
            if name not in ("_row", "_kids", "_comps"):  # what the walk gave it since
                assert getattr(slot, name) == getattr(made, name), name
        for component in components:
            plain = Component(component.buffer, *component.span, slot)
            plain.tree, plain.slot = slot.tree, slot
            for name in _slot_names(Component):
                value = getattr(component, name)  # set, or AttributeError
                if name == "_key":
                    assert value == "Components"
                elif name != "_type_at":
                    assert value == getattr(plain, name), name
