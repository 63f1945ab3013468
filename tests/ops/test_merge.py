"""Three-way merge by element ID on real samples: edits to different elements combine, each
kind of real conflict is found, and (property) a clean merge of random non-overlapping edits
made with brson's own edit API is ``apply(apply(base, patch(base, a)), patch(base, b))`` byte
for byte, with both sides' edits in it."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brson
from brson.model import edit
from brson.model.numbering import FreshIds
from brson.model.tree import DataTree, Slot
from brson.ops.applier import apply_bytes
from brson.ops.merge import merge_assets, merge_documents
from brson.ops.patch import make_patch

PROJECT_ROOT = Path(__file__).resolve().parents[2]
STANDIN = PROJECT_ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"
#: Real trees of every writer: Resonite (int32 types), other settings (int64), NeosVR (names).
SAMPLES = (
    "orange3134_loading_standin.brson",
    "mar_AimConstraint.pg.brson",
    "redx_5ce7cdf5.7zbson",
)
Edit = Callable[[DataTree], None]


def _side(base: bytes, change: Edit) -> bytes:
    tree = brson.loads(base)
    change(tree)
    return tree.to_bson()


def _composed(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    first = apply_bytes(base, make_patch(base, ours)).bson
    assert first == ours
    second = apply_bytes(first, make_patch(base, theirs)).bson
    assert second is not None
    return second


def _slot(tree: DataTree, index: int) -> Slot:
    return list(tree.walk())[index]


def _first_float(tree: DataTree, index: int) -> tuple[str, float]:
    """A float member of the index-th slot's components (or its Position's first axis)."""
    slot = _slot(tree, index)
    for component in slot.components:
        for member in component.fields.values():
            if type(member.value) is float:
                return f"{member.id}", member.value
    raise AssertionError("no float member")


def _set_member(slot_index: int, value: float) -> Edit:
    def change(tree: DataTree) -> None:
        slot = _slot(tree, slot_index)
        for component in slot.components:
            for member in component.fields.values():
                if type(member.value) is float:
                    edit.set_value(member, value)
                    return
        edit.rename(slot, f"no float {value}")

    return change


@pytest.fixture(params=SAMPLES)
def base(request: pytest.FixtureRequest, samples_dir: Path) -> bytes:
    return brson.load(samples_dir / request.param).to_bson()


def test_edits_to_different_elements_combine(base: bytes) -> None:
    ours = _side(base, lambda t: edit.rename(_slot(t, 1), "Ours"))
    theirs = _side(base, lambda t: edit.rename(_slot(t, 2), "Theirs"))
    merged = merge_documents(base, ours, theirs)
    assert merged.ok and merged.bson is not None
    assert merged.bson == _composed(base, ours, theirs)
    tree = brson.loads(merged.bson)
    assert (_slot(tree, 1).name, _slot(tree, 2).name) == ("Ours", "Theirs")


def test_the_same_change_on_both_sides_is_no_conflict(base: bytes) -> None:
    change = _set_member(3, 0.25)
    ours, theirs = _side(base, change), _side(base, change)
    assert merge_documents(base, ours, theirs).bson == ours
    both = _side(base, lambda t: (change(t), edit.rename(_slot(t, 1), "Both")))
    merged = merge_documents(base, ours, both)
    assert merged.ok and merged.bson == both


def test_one_side_unchanged_gives_the_other_exactly(base: bytes) -> None:
    ours = _side(base, lambda t: edit.rename(_slot(t, 1), "Ours"))
    assert merge_documents(base, ours, base).bson == ours
    assert merge_documents(base, base, ours).bson == ours


def test_the_same_member_changed_both_ways_conflicts(base: bytes) -> None:
    ours = _side(base, lambda t: edit.rename(_slot(t, 2), "Ours"))
    theirs = _side(base, lambda t: edit.rename(_slot(t, 2), "Theirs"))
    merged = merge_documents(base, ours, theirs)
    assert merged.bson is None
    slot_id = _slot(brson.loads(base), 2).id
    assert [(c.kind, c.id, c.key) for c in merged.conflicts] == [("slot", slot_id, "Name.Data")]
    text = str(merged.conflicts[0])
    assert '"Ours"' in text and '"Theirs"' in text and "theirs sets" in text


def test_deleted_on_one_side_and_edited_on_the_other_conflicts(base: bytes) -> None:
    tree = brson.loads(base)
    victim = next(s for s in tree.walk() if s.parent is not None and s.parent.parent is not None)
    index = list(tree.walk()).index(victim)
    deleted = _side(base, lambda t: edit.delete(_slot(t, index), references="report"))
    renamed = _side(base, lambda t: edit.rename(_slot(t, index), "Edited"))
    for ours, theirs in ((deleted, renamed), (renamed, deleted)):
        merged = merge_documents(base, ours, theirs)
        assert merged.bson is None
        assert [c.id for c in merged.conflicts] == [victim.id]


def test_a_reference_to_an_element_the_other_side_removed_conflicts(samples_dir: Path) -> None:
    base = brson.load(samples_dir / "orange3134_loading_standin.brson").to_bson()
    tree = brson.loads(base)
    victim = _slot(tree, 5)
    holder = _slot(tree, 1)
    deleted = _side(base, lambda t: edit.delete(_slot(t, 5), references="report"))

    def refer(t: DataTree) -> None:
        slot = _slot(t, 1)
        target = _slot(t, 5)
        edit.add_component(
            slot,
            "[FrooxEngine]FrooxEngine.ReferenceField<[FrooxEngine]FrooxEngine.Slot>",
            {"Reference": target},
        )

    referring = _side(base, refer)
    merged = merge_documents(base, deleted, referring)
    assert merged.bson is None
    assert [(c.kind, victim.id in c.message) for c in merged.conflicts] == [("component", True)]
    assert "theirs refers to" in merged.conflicts[0].message
    assert holder.path in merged.conflicts[0].path
    swapped = merge_documents(base, referring, deleted)
    assert swapped.bson is None and "ours refers to" in swapped.conflicts[0].message


def test_the_same_new_id_added_twice_differently_conflicts(base: bytes) -> None:
    def add(name: str) -> Edit:
        def change(tree: DataTree) -> None:
            # Both sides draw from the file's own counter: the same new IDs.
            edit.add_slot(_slot(tree, 1), name, ids=FreshIds.for_tree(tree, rng=random.Random(1)))

        return change

    ours, theirs = _side(base, add("A")), _side(base, add("B"))
    merged = merge_documents(base, ours, theirs)
    assert merged.bson is None
    assert any("added by theirs but already in ours" in c.message for c in merged.conflicts)
    same = _side(base, add("A"))
    assert merge_documents(base, ours, same).bson == ours  # the same addition: taken once


def test_assets_merge_as_a_union_and_differing_bytes_conflict() -> None:
    merged, conflicts = merge_assets({"a": b"1", "b": b"2"}, {"b": b"2", "c": b"3"})
    assert merged == {"a": b"1", "b": b"2", "c": b"3"} and conflicts == []
    _, conflicts = merge_assets({"a": b"1"}, {"a": b"9"})
    assert [(c.kind, c.path) for c in conflicts] == [("asset", "a")]


def test_an_undecomposable_document_changed_on_both_sides_conflicts() -> None:
    base = brson.dumps({"Object": {"Name": 1}, "X": 1}, codec="none")
    base_bson = brson.loads(base).to_bson()
    ours = brson.loads(brson.dumps({"Object": {"Name": 1}, "X": 2}, codec="none")).to_bson()
    theirs = brson.loads(brson.dumps({"Object": {"Name": 1}, "X": 3}, codec="none")).to_bson()
    merged = merge_documents(base_bson, ours, theirs)
    assert merged.bson is None and merged.conflicts[0].kind == "document"
    assert merge_documents(base_bson, ours, base_bson).bson == ours


# -- the property --------------------------------------------------------------------------------
KINDS = ("rename", "set", "add_slot", "delete", "add_component")
EDITS = st.tuples(st.sampled_from(KINDS), st.integers(0, 10_000), st.integers(0, 10_000))


def _big_subtrees(tree: DataTree) -> list[str]:
    """IDs of the root's children with children of their own: disjoint subtrees to edit."""
    return [c.id for c in tree.root.children if c.children and c.id is not None]


def _random_edit(tree: DataTree, spec: tuple[str, int, int], top: str, ids: FreshIds) -> None:
    kind, pick, value = spec
    where = list(next(c for c in tree.root.children if c.id == top).walk())
    slot = where[pick % len(where)]
    if kind == "rename":
        edit.rename(slot, f"renamed {value}")
    elif kind == "set":
        for component in slot.components:
            for member in component.fields.values():
                if type(member.value) is float:
                    edit.set_value(member, value / 7)
                    return
        slot.position = (value / 3, 0.0, 1.0)
    elif kind == "add_slot":
        edit.add_slot(slot, f"added {value}", ids=ids)
    elif kind == "delete" and slot.parent is not None and slot.parent is not tree.root:
        edit.delete(slot, references="report")
    elif kind == "add_component":
        edit.add_component(
            slot, "[FrooxEngine]FrooxEngine.ValueField<float>", {"Value": value / 5}, ids=ids
        )
    else:
        edit.rename(slot, f"kept {value}")


@settings(max_examples=25)
@given(st.lists(EDITS, min_size=1, max_size=3), st.lists(EDITS, min_size=1, max_size=3))
def test_property_merge_of_non_overlapping_edits_is_both_patches_applied(
    ours_edits: list[tuple[str, int, int]], theirs_edits: list[tuple[str, int, int]]
) -> None:
    base = brson.load(STANDIN).to_bson()
    ours_top, theirs_top = _big_subtrees(brson.loads(base))[:2]

    def side(specs: list[tuple[str, int, int]], top: str, offset: int) -> bytes:
        tree = brson.loads(base)
        ids = FreshIds.for_tree(tree, rng=random.Random(offset))
        ids.next += offset  # the two sides' new IDs never meet
        for spec in specs:
            _random_edit(tree, spec, top, ids)
        return tree.to_bson()

    ours = side(ours_edits, ours_top, 0)
    theirs = side(theirs_edits, theirs_top, 1 << 20)
    merged = merge_documents(base, ours, theirs)
    assert merged.ok, [str(c) for c in merged.conflicts]
    assert merged.bson == _composed(base, ours, theirs)
    # Both sides' edits are in it: merged the other way round, the same bytes (a merge that
    # dropped one side's edits would keep the other's only, in each order).
    assert merge_documents(base, theirs, ours).bson == merged.bson
    assert merged.bson not in (ours, theirs)
