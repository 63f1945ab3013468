"""``brson.ops.patch``: the patch ``diff --json`` carries turns A into B byte for byte, for every
edit kind on every real sample; on a third file each change applies where the file still holds
A's value, and anything else is a conflict naming the element's ID, its path and the key."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import brson
from brson.model.slot import Slot
from brson.model.tree import DataTree
from brson.ops.patch import FORMAT, PatchError, apply_patch, make_patch, merge_ids, read_patch

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
FIXTURES = PROJECT_ROOT / "fixtures"

#: Every real archive: the shared samples (packages: their main tree) and the project's copy.
REAL = sorted(
    [p for p in SAMPLES.glob("*") if p.suffix != ".md"] + list((FIXTURES / "real").glob("*")),
    # the project's files first wherever the checkout is: a name in both gets the same ID suffix
    key=lambda p: (p.is_relative_to(SAMPLES), str(p)),
)
#: A type no sample has, so adding it changes the ``Types`` table.
NEW_TYPE = "[FrooxEngine]FrooxEngine.ValueField<int>"
LEGACY_NEW_TYPE = "FrooxEngine.ValueField`1[System.Int32]"


def _named(tree: DataTree) -> list[Slot]:
    """Slots below the root, parents before children."""
    return [s for s in tree.walk() if s.parent is not None]


def _leaf(tree: DataTree) -> Slot:
    return next(s for s in reversed(_named(tree)) if not s.children)


def rename(tree: DataTree) -> None:
    slot = _named(tree)[0]
    slot.name = f"{slot.name} (renamed)"


def move(tree: DataTree) -> None:
    leaf = _leaf(tree)
    target = tree.root if leaf.parent is not tree.root else _named(tree)[0]
    leaf.move(target)


def reorder(tree: DataTree) -> None:
    parent = next(s for s in tree.walk() if len(s.children) >= 2)
    parent.children[-1].move(parent, 0)


def add_slot(tree: DataTree) -> None:
    child = _named(tree)[0].add_child("Added")
    child.add_child("Grandchild")


def remove_slot(tree: DataTree) -> None:
    _leaf(tree).remove()


def add_component(tree: DataTree) -> None:
    slot = _named(tree)[0]
    slot.add_component(LEGACY_NEW_TYPE if tree.legacy else NEW_TYPE)


def remove_component(tree: DataTree) -> None:
    component = next(c for s in tree.walk() for c in s.components)
    component.remove()


def set_values(tree: DataTree) -> None:
    slot = _named(tree)[0]
    slot.position = [1.5, -0.0, 2.0]
    slot.active = not slot.active
    for component in (c for s in tree.walk() for c in s.components):
        for member in component.fields.values():
            if isinstance(member.value, bool):
                member.value = not member.value
                return


def prune_types(tree: DataTree) -> None:
    """Remove a component and the type only it used: the ``Types`` table shrinks (and the
    later types' indices shift in every component using them)."""
    counts: dict[object, int] = {}
    for component in tree.components():
        counts[component.type_index] = counts.get(component.type_index, 0) + 1
    lone = next(c for c in tree.components() if counts[c.type_index] == 1)
    kind = lone.type_index
    lone.remove()
    tree.drop_unused_types({kind} if isinstance(kind, int) else set())


def reorder_types(tree: DataTree) -> None:
    """The same types in reverse order: every component's index changes, no name does."""
    if tree.legacy:
        return
    names = [str(t) for t in tree.types]
    components = list(tree.components())
    indices = [c.type_index for c in components]
    tree.set("Types", names[::-1])
    for component, index in zip(components, indices, strict=True):
        assert isinstance(index, int)
        component.set_type_index(len(names) - 1 - index)


def everything(tree: DataTree) -> None:
    for edit in (rename, add_slot, add_component, set_values, reorder, move, remove_component):
        edit(tree)


EDITS: dict[str, Callable[[DataTree], None]] = {
    "rename": rename,
    "move": move,
    "reorder": reorder,
    "add_slot": add_slot,
    "remove_slot": remove_slot,
    "add_component": add_component,
    "remove_component": remove_component,
    "set_values": set_values,
    "prune_types": prune_types,
    "reorder_types": reorder_types,
    "everything": everything,
}


def edited(path: Path, edit: Callable[[DataTree], None]) -> DataTree:
    """A edited, written by the real writer and read back: B as a file holds it."""
    tree = brson.load(path)
    edit(tree)
    return brson.loads(brson.dumps(tree, "none"), name="b.bson")


def through_json(patch: dict[str, object]) -> dict[str, object]:
    """What ``brson apply`` reads: the diff's JSON text."""
    loaded = json.loads(json.dumps({"patch": patch}, allow_nan=False))
    assert isinstance(loaded, dict)
    return loaded


@pytest.mark.slow
@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_apply_gives_b_byte_identical(path: Path, edit: str) -> None:
    if not path.exists():
        pytest.skip("real samples not present")
    a = brson.load(path)
    b = edited(path, EDITS[edit])
    patch = make_patch(a, b)
    assert "replace" not in patch  # element by element, not the fallback
    result = apply_patch(brson.load(path), through_json(patch))
    assert result.ok, result.conflicts
    assert result.bson == b.to_bson()
    assert result.matches_result
    assert brson.load(path).to_bson() == a.to_bson()  # the input is not touched


def test_equal_trees_give_an_empty_patch() -> None:
    path = FIXTURES / "real" / "orange3134_loading_standin.brson"
    patch = make_patch(brson.load(path), brson.load(path))
    assert set(patch) == {"format", "base", "result"}
    result = apply_patch(brson.load(path), patch)
    assert result.bson == brson.load(path).to_bson() and result.matches_result


STANDIN = FIXTURES / "real" / "orange3134_loading_standin.brson"


def third(edit: Callable[[DataTree], None]) -> DataTree:
    tree = brson.load(STANDIN)
    edit(tree)
    return brson.loads(brson.dumps(tree, "none"), name="c.bson")


def patch_of(edit: Callable[[DataTree], None]) -> dict[str, object]:
    return through_json(make_patch(brson.load(STANDIN), edited(STANDIN, edit)))


def test_changes_to_other_elements_merge() -> None:
    """C renamed another slot and added a component of a new type; the patch sets values
    and adds a slot: both sides' changes are in the result."""

    def other(tree: DataTree) -> None:
        _named(tree)[-1].name = "Changed in C"
        _named(tree)[-1].add_component(NEW_TYPE)

    def patch_side(tree: DataTree) -> None:
        set_values(tree)
        _named(tree)[1].add_child("From the patch")
        _named(tree)[1].add_component("[FrooxEngine]FrooxEngine.ValueField<float>")

    result = apply_patch(third(other), patch_of(patch_side))
    assert result.ok, result.conflicts
    assert result.bson is not None and not result.matches_result
    merged = brson.loads(result.bson, name="m.bson")
    names = [s.name for s in merged.walk()]
    assert "Changed in C" in names and "From the patch" in names
    types = [str(t) for t in merged.types]
    assert NEW_TYPE in types and "[FrooxEngine]FrooxEngine.ValueField<float>" in types
    for component in merged.components():  # every index still names the type it did
        assert str(component.type) in types


def test_same_member_changed_on_both_sides_is_a_conflict() -> None:
    def c_side(tree: DataTree) -> None:
        _named(tree)[0].name = "C's name"

    result = apply_patch(third(c_side), patch_of(rename))
    assert result.bson is None
    [conflict] = result.conflicts
    slot = _named(brson.load(STANDIN))[0]
    assert (conflict.kind, conflict.id, conflict.key) == ("slot", slot.id, "Name.Data")
    assert conflict.path.endswith("C's name")
    assert '"Visual"' not in conflict.message or "expected" in conflict.message
    assert 'found "C\'s name"' in conflict.message


def test_removed_in_target_and_changed_by_patch() -> None:
    result = apply_patch(third(remove_component), patch_of(set_values))
    removed = next(c for s in brson.load(STANDIN).walk() for c in s.components)
    # set_values flips the first bool member it finds, on the first component
    ids = {c.id for c in result.conflicts}
    if removed.id in ids:
        conflict = next(c for c in result.conflicts if c.id == removed.id)
        assert conflict.kind == "component" and "not in the target" in conflict.message
    else:  # the flipped member was on another component: the patch applies
        assert result.ok


def test_removal_of_an_element_edited_in_target_is_a_conflict() -> None:
    def c_side(tree: DataTree) -> None:
        _leaf(tree).name = "edited in C"

    result = apply_patch(third(c_side), patch_of(remove_slot))
    leaf = _leaf(brson.load(STANDIN))
    conflict = next(c for c in result.conflicts if c.id == leaf.id)
    assert "removed by the patch but changed in the target (Name)" in conflict.message
    assert conflict.path.endswith("edited in C")
    assert result.bson is None


def test_same_new_id_on_both_sides_is_a_conflict() -> None:
    """Both sides added a slot and were handed the same next sequential ID."""

    def c_side(tree: DataTree) -> None:
        _named(tree)[0].add_child("C's child")

    result = apply_patch(third(c_side), patch_of(add_slot))
    assert result.bson is None
    conflict = next(c for c in result.conflicts if c.kind == "slot")
    assert conflict.path.endswith("/Added")
    assert conflict.message.startswith("added by the patch but already in the target at ")
    assert conflict.message.endswith("/C's child")


def test_children_changed_on_both_sides_merge() -> None:
    """C moved a slot under the parent the patch adds a child to: both end up there."""

    def c_side(tree: DataTree) -> None:
        _leaf(tree).move(_named(tree)[0])

    result = apply_patch(third(c_side), patch_of(add_slot))
    assert result.ok, result.conflicts
    assert result.bson is not None
    merged = brson.loads(result.bson, name="m.bson")
    parent = _named(merged)[0]
    names = [c.name for c in parent.children]
    leaf = _leaf(brson.load(STANDIN))
    assert names[-2:] == [leaf.name, "Added"] or names[-2:] == ["Added", leaf.name]
    assert "Grandchild" in [s.name for s in merged.walk()]


def test_children_reordered_on_both_sides_is_a_conflict() -> None:
    def reverse_first(tree: DataTree) -> None:
        parent = next(s for s in tree.walk() if len(s.children) >= 3)
        parent.children[-1].move(parent, 0)

    def swap_other(tree: DataTree) -> None:
        parent = next(s for s in tree.walk() if len(s.children) >= 3)
        parent.children[0].move(parent, 1)

    result = apply_patch(third(swap_other), patch_of(reverse_first))
    assert result.bson is None
    [conflict] = result.conflicts
    parent = next(s for s in brson.load(STANDIN).walk() if len(s.children) >= 3)
    assert (conflict.kind, conflict.id, conflict.key) == ("slot", parent.id, "children")
    assert conflict.message.startswith("children reordered both by the patch and in the target")


@pytest.mark.parametrize(
    ("old", "current", "new", "merged"),
    [
        ("abc", "abc", "acb", "acb"),  # only the patch changed
        ("abc", "acb", "abc", "acb"),  # only the target changed: kept
        ("abc", "abcd", "abce", "abced"),  # both appended: the patch's first
        ("abc", "xabc", "abc", "xabc"),
        ("abc", "ac", "abcy", "acy"),  # removed in the target, added by the patch
        ("abc", "abcd", "cb", "cdb"),  # the patch reordered, removed; the target added after c
        ("abc", "bac", "acb", None),  # both reordered
    ],
)
def test_merge_ids(old: str, current: str, new: str, merged: str | None) -> None:
    result = merge_ids(list(old), list(current), list(new))
    assert (None if result is None else "".join(result)) == merged


def test_adding_what_exists_and_already_applied() -> None:
    patch = patch_of(add_slot)
    b = edited(STANDIN, add_slot)
    again = apply_patch(b, patch)  # B itself: nothing to do, B comes back
    assert again.ok and again.bson == b.to_bson()


def test_not_a_patch() -> None:
    with pytest.raises(PatchError, match="not a patch"):
        read_patch({"equal": True})
    with pytest.raises(PatchError, match="unsupported patch format"):
        read_patch({"format": "other/9"})
    assert read_patch({"patch": {"format": FORMAT}}) == {"format": FORMAT}


def test_replace_fallback_for_duplicate_ids() -> None:
    """A file with a duplicated slot ID cannot be cut into elements by ID: the patch replaces
    the whole document and applies to that exact file only."""
    a = brson.load(STANDIN)
    kids = _named(a)
    kids[1].set("ID", kids[0].id)
    a = brson.loads(brson.dumps(a, "none"), name="a.bson")
    b = brson.loads(a.to_bson(), name="b.bson")
    _named(b)[0].name = "x"
    patch = make_patch(a, b)
    assert "replace" in patch
    assert apply_patch(a, patch).bson == b.to_bson()
    other = apply_patch(brson.load(STANDIN), patch)
    assert other.bson is None and "exact file" in other.conflicts[0].message


def _leaves(node: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _leaves(value, (*path, index))
    return out


@pytest.mark.slow
def test_hostile_patches_fail_cleanly() -> None:
    """Every part of a real patch replaced by a value of another shape: the apply either
    works, reports conflicts, or raises PatchError, never another exception."""
    import contextlib
    import random

    from brson.errors import BrsonError

    base = through_json(make_patch(brson.load(STANDIN), edited(STANDIN, everything)))
    rng = random.Random(18)
    odd: list[object] = [None, 3, -1, "x", [], {}, [3], {"a": 1}, "brson-patch/1", 1.5, True]
    paths = _leaves(base)
    for _ in range(400):
        patch = json.loads(json.dumps(base))
        path = rng.choice(paths[1:])
        holder = patch
        for part in path[:-1]:
            holder = holder[part]
        holder[path[-1]] = rng.choice(odd)
        with contextlib.suppress(BrsonError):
            apply_patch(brson.load(STANDIN), patch)
