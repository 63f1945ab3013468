"""The edit API on real samples: an edit script's result loads, every reference in it resolves
(or is reported), and everything it did not touch is byte-identical to the original."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bson.int64 import Int64

import brson
from brson.document import raw
from brson.errors import GraphError, ModelError, SelectorError
from brson.model import edit
from brson.model.component import Component
from brson.model.member import Member
from brson.model.numbering import FreshIds, defined_ids, sequential_number
from brson.model.slot import Slot
from brson.model.tree import DataTree
from brson.ops.diff import diff
from brson.ops.selectors import component_on, field_at
from brson.ops.textvalues import parse_text
from brson.ops.validate import Severity, validate

STANDIN = "orange3134_loading_standin.brson"
AVATAR_ROOT = "orange3134_AvatarRootIdentification.brson"
REDX = "redx_5ce7cdf5.7zbson"
SLOT_REF_FIELD = "[FrooxEngine]FrooxEngine.ReferenceField<[FrooxEngine]FrooxEngine.Slot>"


def load(samples: Path, name: str) -> DataTree:
    return brson.load(samples / name)


def reload(tree: DataTree, name: str = "edited.brson") -> DataTree:
    """Write with the real writer and read back with the real reader."""
    return brson.loads(brson.dumps(tree), name=name)


def dangling(tree: DataTree) -> list[tuple[str, str]]:
    index = tree.ids
    return sorted(
        (loc.describe(), value) for loc, value in index.values if value not in index.defined
    )


def elements(tree: DataTree) -> Iterator[tuple[str, Slot | Component | Member]]:
    """Every slot, component and member with its ID (slot members, component fields)."""
    for slot in tree.walk():
        if slot.id:
            yield slot.id, slot
        for key in slot:
            member = slot.member(key) if key != "Children" else None
            if member is not None and member.id:
                yield member.id, member
        for component in slot.components:
            if component.id:
                yield component.id, component
            for member in component.fields.values():
                if member.id:
                    yield member.id, member
    for component in tree.assets:
        if component.id:
            yield component.id, component


def bson_bytes(tree: DataTree) -> dict[str, tuple[str, bytes]]:
    return {eid: (type(e).__name__, e.to_bson()) for eid, e in elements(tree)}


def changed_ids(before: DataTree, after: DataTree) -> set[str]:
    old, new = bson_bytes(before), bson_bytes(after)
    return {eid for eid in old.keys() & new.keys() if old[eid] != new[eid]}


def chain(slot: Slot | None) -> set[str]:
    """The slot's ID and its ancestors' (what re-assembles when something in it changes)."""
    out = set()
    while slot is not None:
        assert slot.id is not None
        out.add(slot.id)
        slot = slot.parent
    return out


def tree_ids(tree: DataTree, selector: str) -> str | None:
    slot = tree.find(selector)
    return slot.id if slot is not None else None


def int_widths(tree: DataTree) -> dict[str, set[int]]:
    """BSON integer element types seen under each key, over the whole document."""
    out: dict[str, set[int]] = {}

    def visit(buf: bytes, start: int, end: int) -> None:
        for key, elem in raw.index(buf, start, end).items():
            if elem[0] in (0x10, 0x12):
                out.setdefault(key if not key.isdigit() else "[i]", set()).add(elem[0])
            elif elem[0] in (raw.DOCUMENT, raw.ARRAY):
                visit(buf, elem[2], elem[3])

    data = tree.to_bson()
    visit(data, 0, len(data))
    return out


# -- the edit script ---------------------------------------------------------------------------
def edit_script(tree: DataTree, references: str) -> dict[str, Any]:
    """Rename the root, add a slot, move a slot into it, delete a slot others reference, add a
    component referencing a slot.  Returns what a checker needs to know."""
    ids = FreshIds.for_tree(tree)
    root = tree.root
    visual = tree.find("Visual")
    mat = tree.find("UserIconMat")
    assert visual is not None and mat is not None
    edit.rename(root, "Standin")
    parts = edit.add_slot(root, "Parts", index=0, ids=ids)
    edit.move(mat, parts)
    removal = edit.delete(visual, references=references)
    holder = edit.add_component(parts, SLOT_REF_FIELD, {"Reference": mat}, ids=ids)
    return {"parts": parts, "mat": mat, "removal": removal, "component": holder, "ids": ids}


@pytest.mark.parametrize("references", ["null", "report"])
def test_edit_script_loads_resolves_and_keeps_untouched_bytes(
    samples_dir: Path, references: str
) -> None:
    original = load(samples_dir, STANDIN)
    tree = load(samples_dir, STANDIN)
    visual, mat = tree.find("Visual"), tree.find("UserIconMat")
    assert visual is not None and mat is not None
    # What goes with Visual: its subtree without UserIconMat, which moves out first.
    visual_ids = set(defined_ids(visual.to_bson())) - set(defined_ids(mat.to_bson()))
    done = edit_script(tree, references)
    removal: edit.Removal = done["removal"]
    out = reload(tree)

    # Loads, renamed, the new slot first under the root holding the moved one and the new
    # component, which names the moved slot.
    assert out.root.name == "Standin"
    parts = out.root.children[0]
    assert parts.name == "Parts" and [k.name for k in parts.children] == ["UserIconMat"]
    assert out.find("Visual") is None
    (component,) = parts.components
    assert str(component.type) == SLOT_REF_FIELD
    assert component["Reference"].target is parts.children[0]
    assert SLOT_REF_FIELD in [str(t) for t in out.types]
    assert len(out.types) == len(original.types) + 1

    # The removal: every value that named something in Visual was found (7 in this file:
    # drivers, a global reference, the material's texture) and nulled or kept.
    assert removal.path == "Standin/Visual"
    assert len(removal.references) == 7
    assert removal.ids == len(visual_ids)
    assert {r.target for r in removal.references} <= visual_ids
    if references == "null":
        assert {r.action for r in removal.references} == {"nulled"}
        assert dangling(out) == []
    else:
        assert {r.action for r in removal.references} == {"kept"}
        assert dangling(out) == sorted((r.where, r.target) for r in removal.references)
    assert not out.ids.duplicates
    assert len(out.ids) == len(original.ids) - len(visual_ids) + len(done["ids"].issued)

    # Byte identity: exactly the elements an edit reached differ.
    holders = {r.holder for r in removal.references} if references == "null" else set()
    orig_root = original.root
    expected = {orig_root.id, orig_root.member("Name").id}  # type: ignore[union-attr]
    for ref_holder in holders:
        element = out.resolve(ref_holder or "")  # where it is now (UserIconMat moved)
        assert isinstance(element, Component) and element.slot is not None
        expected |= chain(element.slot)
        expected.add(element.slot.components_member.id or "")  # type: ignore[union-attr]
        expected.add(ref_holder or "")
        before = original.resolve(ref_holder or "")
        assert isinstance(before, Component)
        expected |= {
            m.id or ""
            for m in before.fields.values()
            if isinstance(m.value, str) and m.value in visual_ids
        }
    changed = changed_ids(original, out)
    assert changed == expected - {""} - set(done["ids"].issued)
    # Validate: clean when nulled; exactly the kept references flagged as dangling when not.
    findings = validate(out)
    if references == "null":
        assert not [f for f in findings if f.severity != Severity.INFO]
    else:
        assert sorted((f.path or "") for f in findings if f.severity != Severity.INFO) == sorted(
            r.where for r in removal.references
        )
        assert {f.code for f in findings if f.severity != Severity.INFO} == {"BR402"}
    # Diff: exactly the edit.
    changes = diff(original, out)
    assert [c.id for c in changes.slots_added] == [done["parts"].id]
    assert {c.id for c in changes.slots_removed} == {visual.id, tree_ids(original, "UserIconTex")}
    assert [c.id for c in changes.slots_moved] == [done["mat"].id]
    assert [(c.old, c.new) for c in changes.slots_renamed] == [
        ("LoadingStandin - Thumbnail v1.3.1", "Standin")
    ]
    assert [c.id for c in changes.components_added] == [done["component"].id]
    assert {c.id for c in changes.components_removed} == {
        c.id
        for slot in original.find("Visual").walk()
        for c in slot.components  # type: ignore[union-attr]
        if slot.name != "UserIconMat"
    }
    assert changes.types_added == [SLOT_REF_FIELD] and not changes.types_removed
    assert not changes.children_reordered and not changes.components_moved
    expected_values = (
        [(r.where, r.target) for r in removal.references] if (references == "null") else []
    )
    assert sorted((v.path, v.old) for v in changes.values) == sorted(expected_values)
    assert all(v.new is None for v in changes.values)
    # The moved slot's subtree itself is untouched unless a nulled value lives in it.
    mat = out.find("UserIconMat")
    assert mat is not None
    orig_mat = original.find("UserIconMat")
    assert orig_mat is not None
    assert (mat.to_bson() == orig_mat.to_bson()) == (references == "report")


def test_edit_script_keeps_integer_widths(samples_dir: Path) -> None:
    original = load(samples_dir, STANDIN)
    tree = load(samples_dir, STANDIN)
    edit_script(tree, "null")
    out = reload(tree)
    assert int_widths(out) == int_widths(original)
    assert int_widths(out)["Data"] == {0x10, 0x12}  # int32 UpdateOrder, Int64 OrderOffset
    for slot in out.walk():
        offset = slot.member("OrderOffset")
        assert offset is not None and offset.etype("Data") == 0x12


def test_new_ids_continue_the_sequence(samples_dir: Path) -> None:
    tree = load(samples_dir, STANDIN)
    highest = max(n for i in tree.ids for n in [sequential_number(i)] if n is not None)
    done = edit_script(tree, "null")
    issued = done["ids"].issued
    assert [sequential_number(i) for i in issued] == list(
        range(highest + 1, highest + 1 + len(issued))
    )
    # The new slot: its ID, 7 members, Components, Persistent-ID, ParentReference = 11.
    parts: Slot = done["parts"]
    assert len([i for i in issued if i in parts.to_bson().decode("latin-1")]) >= 11


def test_unedited_tree_writes_the_same_file(samples_dir: Path) -> None:
    data = (samples_dir / STANDIN).read_bytes()
    tree = brson.loads(data, name=STANDIN)
    tree.find("Visual")
    list(tree.components())
    assert brson.dumps(tree) == data


def test_dump_writes_an_edited_archive(samples_dir: Path, tmp_path: Path) -> None:
    tree = load(samples_dir, AVATAR_ROOT)
    edit.rename(tree.root, "Renamed")
    path = tmp_path / "out.brson"
    brson.dump(tree, path)
    again = brson.load(path)
    assert again.root.name == "Renamed"
    assert again.container is not None and again.container.codec == tree.container.codec  # type: ignore[union-attr]


# -- delete ------------------------------------------------------------------------------------
def test_delete_fail_refuses_and_changes_nothing(samples_dir: Path) -> None:
    tree = load(samples_dir, STANDIN)
    before = tree.to_bson()
    visual = tree.find("Visual")
    assert visual is not None
    with pytest.raises(GraphError, match="6 reference"):
        edit.delete(visual, references="fail")
    assert tree.to_bson() == before


def test_delete_unreferenced_slot_reports_nothing(samples_dir: Path) -> None:
    tree = load(samples_dir, REDX)
    slot = tree.find("ContentTarget")
    assert slot is not None
    removal = edit.delete(slot, references="fail")
    # Its ID, 7 members, Components, Persistent-ID, ParentReference; no components.
    assert removal.references == [] and removal.ids == 11
    out = reload(tree, "x.7zbson")
    assert out.find("ContentTarget") is None and dangling(out) == []


def test_delete_refuses_root_and_bad_policy(samples_dir: Path) -> None:
    tree = load(samples_dir, REDX)
    with pytest.raises(ModelError, match="root slot cannot be deleted"):
        edit.delete(tree.root)
    slot = tree.find("ContentTarget")
    assert slot is not None
    with pytest.raises(ValueError, match="references must be one of"):
        edit.delete(slot, references="ignore")


def test_remove_component_nulls_references_to_it(samples_dir: Path) -> None:
    tree = load(samples_dir, REDX)
    texture = tree.assets[0]
    referrers = [(loc.describe(), v) for loc, v in tree.ids.values if v == texture.id]
    removal = edit.remove_component(texture, references="null")
    assert removal.path == "<Assets>:StaticTexture2D"
    assert [(r.where, r.target) for r in removal.references] == referrers
    assert {r.target_path for r in removal.references} == {"<Assets>:StaticTexture2D"}
    out = reload(tree, "x.7zbson")
    assert len(out.assets) == 26 and dangling(out) == []


def test_remove_component_from_a_slot(samples_dir: Path) -> None:
    original = load(samples_dir, AVATAR_ROOT)
    tree = load(samples_dir, AVATAR_ROOT)
    slot = tree.root
    victim = slot.components[1]
    removal = edit.remove_component(victim, references="report")
    out = reload(tree)
    assert [c.id for c in out.root.components] == [
        c.id for c in original.root.components if c.id != victim.id
    ]
    assert dangling(out) == sorted((r.where, r.target) for r in removal.references)
    assert removal.references and all(
        r.target_path.startswith("Avatar Root Identification:ValueField")
        for r in removal.references
    )
    components = original.root.components_member
    assert components is not None
    assert changed_ids(original, out) == {original.root.id, components.id}


# -- move --------------------------------------------------------------------------------------
def test_move_reorders_among_siblings(samples_dir: Path) -> None:
    original = load(samples_dir, STANDIN)
    tree = load(samples_dir, STANDIN)
    names = [k.name for k in tree.root.children]
    last = tree.root.children[-1]
    edit.move(last, index=0)
    out = reload(tree)
    assert [k.name for k in out.root.children] == [names[-1], *names[:-1]]
    assert changed_ids(original, out) == {original.root.id}
    edit.move(tree.root.children[0], index=-1)
    assert reload(tree).to_bson() == original.to_bson()


def test_move_refuses_cycles_and_the_root(samples_dir: Path) -> None:
    tree = load(samples_dir, STANDIN)
    visual = tree.find("Visual")
    tex = tree.find("UserIconTex")
    assert visual is not None and tex is not None
    with pytest.raises(ModelError, match="under itself"):
        edit.move(visual, tex)
    with pytest.raises(ModelError, match="root slot cannot be moved"):
        edit.move(tree.root, visual)
    other = load(samples_dir, STANDIN)
    with pytest.raises(ModelError, match="another tree"):
        edit.move(visual, other.root)


def test_move_follows_a_third_party_parent_link(samples_dir: Path) -> None:
    tree = load(samples_dir, AVATAR_ROOT)
    group = tree.root.children[0]
    kids = group.children
    for kid in kids:  # rewrite as some generators do: ParentReference = the parent's ID
        kid.set("ParentReference", group.id)
    moved = kids[0]
    edit.move(moved, tree.root)
    assert moved.parent_reference == tree.root.id
    added = edit.add_slot(group, "New")
    assert added.parent_reference == group.id


# -- add ---------------------------------------------------------------------------------------
def test_add_slot_copies_the_layout(samples_dir: Path) -> None:
    tree = load(samples_dir, AVATAR_ROOT)
    parent = tree.root.children[0]
    slot = edit.add_slot(parent, "Fresh", position=(1, 2, 3), index=1)
    assert slot.keys() == parent.keys()
    assert parent.children[1] is slot and slot.parent is parent
    assert slot.path == f"{parent.path}/Fresh"
    out = reload(tree)
    new = out.find("Fresh")
    assert new is not None
    assert new.position == [1.0, 2.0, 3.0] and new.rotation == [0.0, 0.0, 0.0, 1.0]
    assert new.active is True and new.tag is None and new.children == []
    assert new.components == [] and new.components_member is not None
    assert new.parent_reference not in (None, parent.id, new.id)
    assert not out.ids.duplicates and dangling(out) == []


def test_add_in_a_neosvr_file_uses_random_guids_and_int64(samples_dir: Path) -> None:
    tree = load(samples_dir, REDX)
    ids = FreshIds.for_tree(tree, random.Random(7))
    assert not ids.sequential
    slot = edit.add_slot(tree.root, "N", ids=ids)
    component = edit.add_component(slot, "FrooxEngine.ValueField<int>", {"Value": 3}, ids=ids)
    assert component.type_index == "FrooxEngine.ValueField<int>"
    out = reload(tree, "x.7zbson")
    new = out.find("N")
    assert new is not None
    assert all(uuid.UUID(i).version == 4 for i in ids.issued)
    assert new.member("OrderOffset").etype("Data") == 0x12  # type: ignore[union-attr]
    (added,) = new.components
    assert added["Value"].etype("Data") == 0x12
    assert added["UpdateOrder"].etype("Data") == 0x12
    assert not out.ids.duplicates
    with pytest.raises(ModelError, match="without an assembly"):
        edit.add_component(slot, "[FrooxEngine]FrooxEngine.ValueField<int>")


def test_add_component_layout_and_types(samples_dir: Path) -> None:
    tree = load(samples_dir, AVATAR_ROOT)
    types_before = [str(t) for t in tree.types]
    slot = tree.root
    known = edit.add_component(slot, "ValueField<bool>", {"Value": True})
    assert known.type_index == types_before.index("[FrooxEngine]FrooxEngine.ValueField<bool>")
    assert [str(t) for t in tree.types] == types_before
    fresh = edit.add_component(
        slot,
        "[FrooxEngine]FrooxEngine.ValueField<float3>",
        {"Value": (1, 2, 3)},
        index=0,
        enabled=False,
    )
    assert fresh.type_index == len(types_before)
    assert slot.components[0] is fresh and fresh.slot is slot
    out = reload(tree)
    first = out.root.components[0]
    assert first.data.keys() == ["ID", "persistent-ID", "UpdateOrder", "Enabled", "Value"]
    assert first["Value"].value == [1.0, 2.0, 3.0] and first["Enabled"].value is False
    assert first["UpdateOrder"].etype("Data") == 0x10
    assert [str(t) for t in out.types][-1] == "[FrooxEngine]FrooxEngine.ValueField<float3>"
    with pytest.raises(ModelError, match="several types"):
        edit.add_component(slot, "DynamicValueVariable")
    with pytest.raises(ModelError, match="needs its assembly"):
        edit.add_component(slot, "FrooxEngine.MeshRenderer")
    with pytest.raises(ModelError, match="set by add_component"):
        edit.add_component(slot, "ValueField<bool>", {"Enabled": False})


def test_add_component_with_a_list_of_references(samples_dir: Path) -> None:
    tree = load(samples_dir, AVATAR_ROOT)
    kids = tree.root.children
    component = edit.add_component(
        tree.root,
        "[FrooxEngine]FrooxEngine.ReferenceMultiplexer<[FrooxEngine]FrooxEngine.Slot>",
        {"References": edit.SyncList(kids)},
    )
    out = reload(tree)
    added = out.resolve(component.id or "")
    assert isinstance(added, Component)
    elements = added["References"].elements
    assert elements is not None
    assert [e.target for e in elements] == out.root.children
    assert dangling(out) == [] and not out.ids.duplicates


# -- values ------------------------------------------------------------------------------------
def test_set_value_keeps_widths_and_kinds(samples_dir: Path) -> None:
    tree = load(samples_dir, STANDIN)
    root = tree.root
    offset = root.member("OrderOffset")
    position = root.member("Position")
    assert offset is not None and position is not None
    edit.set_value(offset, 5)
    edit.set_value(offset, 6)  # a second edit keeps the width too
    edit.set_value(position, (1, 2, 3))
    component = tree.root.components[0]
    update = component["UpdateOrder"]
    edit.set_value(update, 9)
    out = reload(tree)
    assert out.root.member("OrderOffset").etype("Data") == 0x12  # type: ignore[union-attr]
    assert out.root.order_offset == 6
    assert out.root.position == [1.0, 2.0, 3.0]
    assert all(isinstance(v, float) for v in out.root.position)
    assert out.root.components[0]["UpdateOrder"].etype("Data") == 0x10
    with pytest.raises(ModelError, match="whole number"):
        edit.set_value(offset, 1.5)


def test_set_value_stores_ids_of_elements(samples_dir: Path) -> None:
    tree = load(samples_dir, STANDIN)
    ref = next(
        m for c in tree.components() for m in c.fields.values() if isinstance(m.target, Slot)
    )
    target = tree.find("UserIconTex")
    assert target is not None
    edit.set_value(ref, target)
    assert ref.value == target.id and ref.target is target
    other = load(samples_dir, STANDIN)
    with pytest.raises(ModelError, match="another tree"):
        edit.set_value(ref, other.root)


def test_set_value_on_a_list_keeps_element_ids(samples_dir: Path) -> None:
    tree = load(samples_dir, STANDIN)
    renderer = tree.find("Visual")
    assert renderer is not None
    materials = component_on(renderer, "MeshRenderer")["Materials"]
    before = materials.elements
    assert before is not None and len(before) == 1
    first_id = before[0].id
    mat = tree.find("UserIconMat")
    assert mat is not None
    material = mat.components[0]
    edit.set_value(materials, [material, material])
    out = reload(tree)
    again = component_on(out.find("Visual"), "MeshRenderer")["Materials"]  # type: ignore[arg-type]
    items = again.elements
    assert items is not None and [e.value for e in items] == [material.id, material.id]
    assert items[0].id == first_id and items[1].id not in (None, first_id)
    assert not out.ids.duplicates


# -- naming fields in text ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("Visual.Name", "Visual"),
        ("LoadingStandin - Thumbnail v1.3.1.Active", True),  # a slot name with dots
        ("Visual:MeshRenderer.ShadowCastMode", "On"),
        ("Visual.QuadMesh.Size", [1.0, 1.0]),
        (
            "LoadingStandin - Thumbnail v1.3.1/Visual:[FrooxEngine]FrooxEngine.QuadMesh.Size",
            [1.0, 1.0],
        ),
        ("Visual:MeshRenderer.Materials[0]", "00000038-0000-0000-0000-000000000000"),
    ],
)
def test_field_at(samples_dir: Path, target: str, expected: Any) -> None:
    tree = load(samples_dir, STANDIN)
    assert field_at(tree, target).value == expected


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("Visual.Nope", "no member 'Nope'"),
        ("Visual:MeshRenderer.Nope", "has no field 'Nope'"),
        ("Visual:Nothing.Size", "no 'Nothing' component"),
        ("Visual:MeshRenderer.Materials[3]", "the list has 1 element"),
        ("Nowhere.Name", "no slot matches"),
        ("Relay.Name", "'Relay' matches 4 slots"),
    ],
)
def test_field_at_errors(samples_dir: Path, target: str, message: str) -> None:
    tree = load(samples_dir, STANDIN)
    with pytest.raises(SelectorError, match=message.replace("[", r"\[")):
        field_at(tree, target)


# -- values from text --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "current", "hint", "expected"),
    [
        ("true", False, None, True),
        ("No", True, "bool", False),
        ("42", 0, None, 42),
        ("42", Int64(0), None, Int64(42)),
        ("0x10", None, "long", Int64(16)),
        ("-7", None, "int", -7),
        ("2.5", 0.0, None, 2.5),
        ("3", None, "float", 3.0),
        ("1,2,3", [0.0, 0.0, 0.0], None, [1.0, 2.0, 3.0]),
        ("1, 2", None, "float2", [1.0, 2.0]),
        ("0,0,0,1", None, "floatQ", [0.0, 0.0, 0.0, 1.0]),
        ("1,2,3", None, "int3", [1, 2, 3]),
        ("1,0,0", [0.0, 0.0, 0.0, 1.0, "Linear"], None, [1.0, 0.0, 0.0, 1.0, "Linear"]),
        ("1,0,0,0.5,sRGB", None, "colorX", [1.0, 0.0, 0.0, 0.5, "sRGB"]),
        ("#ff000080", None, "colorX", [1.0, 0.0, 0.0, 128 / 255, "sRGB"]),
        ("0,1,0,1", None, "color", [0.0, 1.0, 0.0, 1.0]),
        ("hello", "x", None, "hello"),
        ("null", "x", None, None),
        ("Center", "Left", None, "Center"),
        ("resdb:///abc", None, "Uri", "@resdb:///abc"),
        ("@resdb:///abc", "@resdb:///old", None, "@resdb:///abc"),
        ("null", None, "float3?", None),
    ],
)
def test_parse_text(text: str, current: Any, hint: str | None, expected: Any) -> None:
    value = parse_text(text, current, hint)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    ("text", "current", "hint", "message"),
    [
        ("maybe", True, None, "not a bool"),
        ("1.5", 0, None, "not an integer"),
        ("3000000000", 0, None, "does not fit the field's 32-bit"),
        ("x", 0.0, None, "not a number"),
        ("1,2", [0.0, 0.0, 0.0], None, "3 comma-separated numbers"),
        ("red", None, "colorX", "a color"),
        ("1,2,3", {"Min": [0, 0, 0]}, "BoundingBox", "cannot set a value of this kind"),
        ("1", None, None, "cannot set a value of this kind"),
        ("abc", "00000001-0000-0000-0000-000000000000", None, "an element ID"),
    ],
)
def test_parse_text_errors(text: str, current: Any, hint: str | None, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        parse_text(text, current, hint)


def test_parse_text_references_must_exist(samples_dir: Path) -> None:
    tree = load(samples_dir, STANDIN)
    existing = "00000006-0000-0000-0000-000000000000"
    assert parse_text(existing, None, None, tree=tree, reference=True) == existing
    assert parse_text("null", existing, None, tree=tree) is None
    with pytest.raises(ModelError, match="no element has the ID"):
        parse_text("0000ffff-0000-0000-0000-000000000000", existing, None, tree=tree)


# -- the README example, and the shortcuts on the model objects -------------------------------
def test_readme_script(samples_dir: Path, tmp_path: Path) -> None:
    tree = brson.load(samples_dir / AVATAR_ROOT)
    avatar = tree.find("Avatar Root Identification")  # a name, a path or an ID
    assert avatar is not None
    avatar.name = "Mika"
    assigner = avatar.find_component("AvatarUserReferenceAssigner")
    assert assigner is not None
    removal = assigner.remove()  # references to it are nulled and reported
    brson.dump(tree, tmp_path / "mika.brson")

    out = brson.load(tmp_path / "mika.brson")
    assert out.root.name == "Mika"
    assert out.root.find_component("AvatarUserReferenceAssigner") is None
    assert removal.references == []  # nothing pointed at it
    assert all(f.severity == Severity.INFO for f in validate(out))
    changes = diff(brson.load(samples_dir / AVATAR_ROOT), out)
    assert [c.type for c in changes.components_removed] == [
        "[FrooxEngine]FrooxEngine.CommonAvatar.AvatarUserReferenceAssigner"
    ]
    assert len(changes.slots_renamed) == 1 and not changes.values


def test_model_shortcuts(samples_dir: Path) -> None:
    tree = load(samples_dir, STANDIN)
    parts = tree.root.add_child("Parts", index=0)
    field = parts.add_component(SLOT_REF_FIELD, {"Reference": parts})
    mat = tree.find("UserIconMat")
    assert mat is not None
    mat.move(parts)
    assert mat.parent is parts and tree.root.children[0] is parts
    removal = tree.find("Visual").remove()  # type: ignore[union-attr]
    assert len(removal.references) == 7 and removal.references[0].action == "nulled"
    assert field.remove().references == []
    renumbered = reload(tree).renumber()
    assert renumbered.to_bson() == reload(tree).renumber().to_bson()
    assert dangling(renumbered) == [] and renumbered.root.children[0].name == "Parts"


def _readme_block(heading: str) -> str:
    """The first ```python block after ``heading`` in the README, as a user would copy it."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    after = text[text.index(heading) :]
    start = after.index("```python\n") + len("```python\n")
    return after[start : after.index("```", start)]


def test_readme_blocks_run_on_samples(
    samples_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The README's extract, edit and validate/diff examples run as written, with only the
    file and slot names swapped for a sample's (the README cannot ship an avatar)."""
    monkeypatch.chdir(tmp_path)
    standin_pkg = samples_dir / "orange3134_loading_standin.resonitepackage"
    blocks = [
        (
            _readme_block("### Extract an avatar"),
            {
                '"world.brson"': repr(str(samples_dir / STANDIN)),
                '"World/Avatars/Mika"': '"LoadingStandin - Thumbnail v1.3.1/Visual/UserIconMat"',
                '"world.resonitepackage"': repr(str(standin_pkg)),
                '"Mika"': '"Visual"',
            },
        ),
        (
            _readme_block("### Edit and re-pack"),
            {
                '"avatar.brson"': repr(str(samples_dir / STANDIN)),
                '"Avatar"': '"Visual"',
                'avatar.find_component("VRIK")': 'tree.find("UserIconTex").find_component('
                '"StaticTexture2D")',
            },
        ),
    ]
    for code, swaps in blocks:
        for old, new in swaps.items():
            assert old in code, old  # the README changed: update the swaps
            code = code.replace(old, new)
        exec(compile(code, "README.md", "exec"), {})  # the README's own code
    out = capsys.readouterr().out
    assert "copied LoadingStandin - Thumbnail v1.3.1/Visual/UserIconTex:StaticTexture2D" in out
    assert out.count("nulled ") == 2  # the texture's users: the material and a driver
    mika = brson.load(tmp_path / "mika.brson")
    assert mika.find("Mika") is not None and mika.find("UserIconTex") is not None
    assert not [f for f in validate(mika) if f.severity != Severity.INFO]
    package = brson.load(tmp_path / "mika.resonitepackage")
    assert package.root.name == "Visual"
    # The validate/diff example, on the file the edit example wrote.
    code = _readme_block("`brson diff A B` compares")
    for old, new in {
        '"avatar.brson"': '"mika.brson"',
        '"before.brson"': repr(str(samples_dir / STANDIN)),
        '"after.7zbson"': '"mika.brson"',
    }.items():
        assert old in code, old
        code = code.replace(old, new)
    exec(compile(code, "README.md", "exec"), {"brson": brson})
    out = capsys.readouterr().out
    assert "BR303" in out and 'renamed from "Visual" to "Mika"' in out
