"""The identity contract and the tree's record of its edits (brson.model.overlay).

Each promise of the contract's list is asserted here on a real sample, after each kind of
edit: a second read gives the same kept object, views compare equal, an edit registers its
view, a moved slot stays one object, a removed element (and an object read before
``discard_edits``) refuses edits instead of losing them, and ``tree.edits`` lists exactly the
nodes whose keys changed.
"""

from __future__ import annotations

import pytest

import brson
from brson.errors import ModelError
from brson.model import DataTree, Member, Slot
from brson.model.edit import new_slot
from brson.model.numbering import FreshIds
from brson.model.overlay import REMOVED, Edit
from tests.regressions.test_issue12_scaling import _linear, _lines

from .support import LEGACY, STANDIN, sample, standin_visual

_standin = standin_visual


def _assert_identity(tree: DataTree) -> None:
    """Every kept object of the contract read twice is one object, and links back."""
    root = tree.root
    assert root is tree.root
    for slot in tree.walk():
        kids, comps = slot.children, slot.components
        assert kids is not slot.children  # a new list each call ...
        assert all(a is b for a, b in zip(kids, slot.children, strict=True))  # ... of kept slots
        assert all(kid.parent is slot and kid.tree is tree for kid in kids)
        assert all(a is b for a, b in zip(comps, slot.components, strict=True))
        for component in comps:
            assert component.slot is slot and component.tree is tree
            assert component.data is component.data
        members = slot.member("Components")
        assert members is None or members is slot.member("Components")
    for edit in tree.edits:
        assert edit.node.modified  # an edited node is written re-assembled
    assert tree.modified == bool(tree.edits)


def _edited(tree: DataTree) -> list[tuple[type, tuple[str, ...]]]:
    return [(type(edit.node), edit.keys) for edit in tree.edits]


def test_a_fresh_tree_has_no_edits_and_keeps_what_it_hands_out() -> None:
    tree, visual, renderer = _standin()
    assert not tree.edits and len(tree.edits) == 0 and not tree.modified
    assert tree.root.children[0] is tree.root.children[0]
    first, second = visual.member("Name"), visual.member("Name")
    assert first is not None and first is not second and first == second
    assert hash(first) == hash(second)
    assert renderer["Mesh"] is not renderer["Mesh"] and renderer["Mesh"] == renderer["Mesh"]
    _assert_identity(tree)
    assert not tree.edits and not tree.modified  # reading is no edit


def test_an_edit_registers_its_view_and_is_listed_with_its_key() -> None:
    tree, visual, renderer = _standin()
    before = visual.member("Name")
    edited = visual.member("Name")
    assert before is not None and edited is not None
    edited.value = "renamed"
    assert visual.member("Name") is edited  # every later read gives the edited object
    assert before.value == "renamed"  # a member read before forwards to it
    assert list(tree.edits) == [Edit(edited, ("Data",))]
    assert edited in tree.edits and before not in tree.edits  # by identity
    assert visual not in tree.edits and visual.modified  # above an edit, not edited itself
    assert tree.edits.keys(edited) == ("Data",) and tree.edits.keys(visual) == ()
    assert next(iter(tree.edits)).changes == {"Data": "renamed"}
    renderer["Mesh"].value = None
    edited.value = "again"  # a key edited twice is listed once
    assert _edited(tree) == [(Member, ("Data",)), (Member, ("Data",))]
    _assert_identity(tree)


def test_a_removed_key_is_listed_as_removed() -> None:
    tree, visual, _ = _standin()
    visual.delete_key("Tag")
    (edit,) = tree.edits
    assert edit.node is visual and edit.changes == {"Tag": REMOVED}


def test_add_and_move_keep_one_object_per_slot() -> None:
    tree, visual, _ = _standin()
    parent = visual.parent
    assert parent is not None
    added = parent.add_child("Added")
    assert parent.children[-1] is added and added.parent is parent
    assert _edited(tree) == [(Slot, ("Children",))]
    components = visual.components
    visual.move(added)
    assert added.children == [visual] and added.children[0] is visual
    assert visual.parent is added
    assert all(a is b for a, b in zip(components, visual.components, strict=True))
    assert [edit.node for edit in tree.edits] == [parent, added]
    _assert_identity(tree)
    again = brson.loads(brson.dumps(tree)).find("Added")
    assert isinstance(again, Slot) and [kid.id for kid in again.children] == [visual.id]


def test_a_removed_slot_reads_but_refuses_edits() -> None:
    tree, visual, renderer = _standin()
    mesh = renderer["Mesh"]
    mesh.value = None  # an edit below the slot, then the slot goes
    name, parent = visual.name, visual.parent
    assert parent is not None
    removal = visual.remove()  # references to the subtree nulled: edits of their own
    assert visual not in parent.children
    nulled = [edit.node for edit in tree.edits if edit.node is not parent]
    assert mesh not in tree.edits and parent in tree.edits
    assert len(nulled) == len(removal.references) > 0
    assert all(isinstance(node, Member) and tree.edits.keys(node) == ("Data",) for node in nulled)
    written = tree.to_bson()
    assert visual.name == name and renderer.type_label == "MeshRenderer"  # reads as it was
    with pytest.raises(ModelError, match="removed from its tree"):
        visual.name = "lost"
    with pytest.raises(ModelError, match="removed from its tree"):
        renderer["Mesh"].value = renderer.id
    with pytest.raises(ModelError, match="removed from its tree"):
        renderer.remove()  # refused before it nulls any reference in the tree
    assert tree.to_bson() == written and len(tree.edits) == len(nulled) + 1
    _assert_identity(tree)
    visual.move(parent)  # back in: attached again, with the edit below it
    assert parent.children[-1] is visual and mesh in tree.edits
    visual.name = "back"
    again = brson.loads(brson.dumps(tree)).find("back")
    assert isinstance(again, Slot) and again.id == visual.id
    _assert_identity(tree)


def test_a_removed_component_refuses_edits() -> None:
    tree, visual, renderer = _standin()
    renderer.remove()
    assert all(c is not renderer for c in visual.components)
    written = tree.to_bson()
    with pytest.raises(ModelError, match="removed from its tree"):
        renderer["Mesh"].value = None
    assert tree.to_bson() == written
    _assert_identity(tree)


def test_a_removed_root_asset_refuses_edits() -> None:
    tree = brson.load(sample(LEGACY))
    asset = tree.assets[0]
    asset.remove()
    assert all(a is not asset for a in tree.assets)
    with pytest.raises(ModelError, match="removed from its tree"):
        asset.data.set("ID", "x")


def test_discard_edits_restores_the_original_bytes_and_detaches() -> None:
    tree, visual, renderer = _standin()
    original, root = tree.to_bson(), tree.root
    kept = visual.children[0] if visual.children else visual
    tree.discard_edits()  # unmodified: nothing happens
    assert tree.root is root and not tree.modified
    visual.name = "renamed"
    visual.add_child("New")
    renderer.remove()
    tree.type_index("[FrooxEngine]FrooxEngine.Added")
    assert len(tree.edits) == 4 and tree.to_bson() != original
    tree.discard_edits()
    assert not tree.modified and not tree.edits and tree.to_bson() == original
    assert tree.root is not root and "Added" not in str(tree.types)
    with pytest.raises(ModelError, match="discarded"):
        kept.name = "lost"
    assert tree.to_bson() == original and not tree.edits
    fresh = tree.find("Visual")
    assert isinstance(fresh, Slot) and fresh is not visual and fresh.tree is tree
    fresh.name = "renamed"  # a read after the discard edits as usual
    _assert_identity(tree)
    again = brson.loads(brson.dumps(tree)).find("renamed")
    assert isinstance(again, Slot) and again.id == visual.id


def test_the_same_edit_after_a_discard_writes_the_same_bytes() -> None:
    tree, visual, _ = _standin()
    visual.position = (1, 2, 3)
    first = tree.to_bson()
    tree.discard_edits()
    fresh = tree.find("Visual")
    assert isinstance(fresh, Slot)
    fresh.position = (1, 2, 3)
    assert tree.to_bson() == first


def test_two_loads_share_nothing() -> None:
    a, b = brson.load(sample(STANDIN)), brson.load(sample(STANDIN))
    assert a.root is not b.root and a.root.children[0] is not b.root.children[0]
    first, second = a.root.member("Name"), b.root.member("Name")
    assert first is not None and first != second  # the same field of another tree
    assert a.find("Visual").tree is a  # type: ignore[union-attr]


def _edits_listing_work(n: int) -> int:
    """Lines run listing the edits of ``n`` sibling slots, each renamed (each edited Name
    member's chain passes the same ``Children`` list of ``n``)."""
    tree, visual, _ = _standin()
    ids = FreshIds.for_tree(tree)
    kids = [new_slot(visual, f"kid {i}", ids=ids) for i in range(n)]
    visual.set("Children", [*visual.children_list(), *kids])
    visual.children_list()
    for kid in kids:
        kid.name = "renamed"
    assert len(tree.edits) == n + 1
    return _lines(lambda: (list(tree.edits), kids[-1].member("Name") in tree.edits))


@pytest.mark.slow
def test_listing_edits_is_linear_in_the_edits() -> None:
    _linear(_edits_listing_work, 100, "listing tree.edits")
