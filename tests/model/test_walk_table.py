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
from brson.errors import ModelError
from brson.model import spans as spans_module
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
