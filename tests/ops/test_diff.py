"""Diff: a tree against itself is empty in every codec; an edit shows as exactly that edit."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from bson.int64 import Int64

import brson
from brson.document import bsondoc
from brson.model.component import Component
from brson.model.slot import Slot
from brson.model.tree import DataTree
from brson.ops.diff import ComponentChange, Diff, SlotChange, ValueChange, diff

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
ARCHIVES = [
    "orange3134_AvatarRootIdentification.brson",
    "orange3134_loading_standin.brson",
    "redx_5ce7cdf5.7zbson",
]
CODECS = ("brotli", "lzma", "lz4", "none")


def sample(name: str) -> DataTree:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"real sample {name} not present")
    return brson.load(path)


def changes(result: Diff) -> dict[str, list[Any]]:
    """The non-empty categories of a diff."""
    return {
        name: getattr(result, name) for name in result.__dataclass_fields__ if getattr(result, name)
    }


def reload(tree: DataTree) -> DataTree:
    return brson.loads(brson.dumps(tree))


@pytest.mark.parametrize("name", ARCHIVES)
def test_sample_equals_itself_in_every_codec(name: str) -> None:
    tree = sample(name)
    for codec in CODECS:
        other = brson.loads(brson.dumps(tree, codec=codec))
        result = diff(tree, other)
        assert result.equal and not result, list(result.lines())
        assert list(result.lines()) == []
        assert diff(other, tree).equal
    legacy = brson.loads(brson.dumps(tree, codec="lzma", legacy=True), name="x.7zbson")
    assert diff(tree, legacy).equal


def test_package_equals_its_main_tree() -> None:
    tree = sample("orange3134_loading_standin.brson")
    package = brson.load(SAMPLES / "orange3134_loading_standin.resonitepackage")
    assert diff(tree, package).equal


@pytest.mark.parametrize("name", ARCHIVES)
def test_rename_is_exactly_a_rename(name: str) -> None:
    before = sample(name)
    after = sample(name)
    slot = list(after.walk())[2]
    old_name = slot.name
    slot.name = "Renamed"
    for other in (after, reload(after)):
        result = diff(before, other)
        assert changes(result) == {
            "slots_renamed": [SlotChange(slot.id, slot.path, old_name, "Renamed")]
        }
        assert list(result.lines()) == [
            f'~ slot {slot.path}: renamed from "{old_name}" to "Renamed"'
        ]


@pytest.mark.parametrize("name", ARCHIVES)
def test_member_change_is_exactly_that_member(name: str) -> None:
    before = sample(name)
    after = sample(name)
    component = [c for c in after.components() if "Enabled" in c][3]
    member = component["Enabled"]
    old = member.value
    member.value = not old
    result = diff(before, reload(after))
    slot = component.slot
    assert slot is not None
    path = f"{slot.path}:{component.type.name}.Enabled"
    assert changes(result) == {"values": [ValueChange(path, member.id, old, not old)]}


@pytest.mark.parametrize("name", ARCHIVES)
def test_removed_component_is_exactly_that_component(name: str) -> None:
    before = sample(name)
    after = sample(name)
    slot = next(s for s in after.walk() if len(s.components) > 1)
    member = slot.components_member
    assert member is not None
    items = member.child_nodes("Data", Component)
    assert items is not None
    victim = items[0]
    assert isinstance(victim, Component)
    member.set("Data", [c for c in items if c is not victim])  # Node-level edit
    type_name = str(victim.type)
    result = diff(before, reload(after))
    assert changes(result) == {
        "components_removed": [
            ComponentChange(victim.id, type_name, f"{slot.path}:{victim.type.name}")
        ]
    }


def test_added_moved_and_removed_slots() -> None:
    before = sample("orange3134_loading_standin.brson")
    after = sample("orange3134_loading_standin.brson")
    root = after.root
    kids = root.children_list()
    moved: Slot = kids[0].children[0]
    old_parent = kids[0]
    # move: out of its parent's Children, onto the end of the root's
    old_parent.set("Children", [k for k in old_parent.children_list() if k is not moved])
    root.set("Children", [*root.children_list(), moved])
    # remove another slot with its subtree
    gone = kids[1]
    gone_paths = [s.path for s in gone.walk()]
    root.set("Children", [k for k in root.children_list() if k is not gone])
    result = diff(before, reload(after))
    assert [c.id for c in result.slots_moved] == [moved.id]
    assert result.slots_moved[0].old == old_parent.path
    assert result.slots_moved[0].new == root.path
    assert sorted(c.path for c in result.slots_removed) == sorted(gone_paths)
    assert result.components_removed  # the removed subtree's components
    assert not result.slots_added and not result.slots_renamed and not result.values


def test_reordered_types_table_is_one_change() -> None:
    """Components are compared by type name: permuting Types (indices rewritten) changes no
    component; the table's new order is the one change (the file's bytes differ, and the
    patch carries it)."""
    tree = sample("orange3134_loading_standin.brson")
    doc = bsondoc.decode(tree.to_bson())
    order = list(reversed(range(len(doc["Types"]))))
    new_index = {old: new for new, old in enumerate(order)}
    doc["Types"] = [doc["Types"][i] for i in order]
    stack = [doc["Object"]]
    while stack:
        slot = stack.pop()
        for component in slot["Components"]["Data"]:
            component["Type"] = new_index[component["Type"]]
        stack.extend(slot["Children"])
    shuffled = brson.loads(brson.dumps(doc))
    assert shuffled.to_bson() != tree.to_bson()
    result = diff(tree, shuffled)
    assert changes(result) == {"types_reordered": True}
    assert list(result.lines()) == ["~ type table reordered"]


def test_type_table_changes_by_name() -> None:
    tree = sample("orange3134_AvatarRootIdentification.brson")
    doc = bsondoc.decode(tree.to_bson())
    doc["Types"].append("[FrooxEngine]FrooxEngine.Nothing")
    unused = "[FrooxEngine]FrooxEngine.SlotGizmo"
    index = doc["Types"].index(unused)
    doc["Types"][index] = "[FrooxEngine]FrooxEngine.Renamed"
    result = diff(tree, brson.loads(brson.dumps(doc)))
    assert changes(result) == {
        "types_added": ["[FrooxEngine]FrooxEngine.Nothing", "[FrooxEngine]FrooxEngine.Renamed"],
        "types_removed": [unused],
    }


def test_integer_width_and_float_bits_are_changes() -> None:
    tree = sample("orange3134_AvatarRootIdentification.brson")
    doc = bsondoc.decode(tree.to_bson())
    first = doc["Object"]["Components"]["Data"][0]["Data"]
    first["UpdateOrder"]["Data"] = Int64(first["UpdateOrder"]["Data"])
    doc["Object"]["Position"]["Data"] = [-0.0, 0.0, 0.0]
    result = diff(tree, brson.loads(brson.dumps(doc)))
    assert [(v.path, v.old, v.new) for v in result.values] == [
        ("Avatar Root Identification.Position", [0.0, 0.0, 0.0], [-0.0, 0.0, 0.0]),
        ("Avatar Root Identification:DynamicValueVariable.UpdateOrder", 0, Int64(0)),
    ]
    assert type(result.values[1].new) is Int64
    assert result.to_dict()["values"][1]["new"] == {"$numberLong": "0"}


def test_synclist_elements_are_matched_by_id() -> None:
    """A list of members (SyncList) is keyed by element ID: inserting one element is one
    addition, not a change of every later position."""
    tree = sample("redx_5ce7cdf5.7zbson")
    doc = bsondoc.decode(tree.to_bson())
    owner = None
    for component in _all_components(doc):
        for key, field in component["Data"].items():
            items = field.get("Data") if isinstance(field, dict) else None
            if (
                isinstance(items, list)
                and items
                and all(isinstance(i, dict) and "ID" in i for i in items)
            ):
                owner = (component, key)
                break
        if owner:
            break
    assert owner is not None, "the redx sample has SyncLists"
    component, key = owner
    items = component["Data"][key]["Data"]
    extra = copy.deepcopy(items[0])
    extra["ID"] = "00000000-1111-2222-3333-444444444444"
    items.insert(0, extra)
    result = diff(tree, brson.loads(brson.dumps(doc)))
    assert [(v.kind, v.id) for v in result.values] == [("added", extra["ID"])]
    assert result.values[0].path.endswith(f".{key}[0]")


def _all_components(doc: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = [doc["Object"]]
    while stack:
        slot = stack.pop()
        out += slot["Components"]["Data"]
        stack.extend(slot["Children"])
    return out + list(doc.get("Assets", []))


def test_root_keys_are_compared() -> None:
    tree = sample("orange3134_AvatarRootIdentification.brson")
    doc = bsondoc.decode(tree.to_bson())
    doc["VersionNumber"] = "2099.1.1.1"
    doc["FeatureFlags"]["NewFlag"] = 1
    result = diff(tree, brson.loads(brson.dumps(doc)))
    assert [(v.path, v.kind) for v in result.values] == [
        ("<root>.VersionNumber", "changed"),
        ("<root>.FeatureFlags.NewFlag", "added"),
    ]


def test_json_form_of_a_diff() -> None:
    before = sample("orange3134_AvatarRootIdentification.brson")
    after = sample("orange3134_AvatarRootIdentification.brson")
    after.root.name = "X"
    data = diff(before, after).to_dict()
    assert data["equal"] is False
    assert data["slots_renamed"] == [
        {"id": after.root.id, "path": "X", "old": "Avatar Root Identification", "new": "X"}
    ]
    assert diff(before, before).to_dict()["equal"] is True


def test_reordered_keys_are_a_change() -> None:
    """Key order is part of the file: a slot whose members were reordered, or a component's
    ``Data`` whose members were, is not equal (the patch carries the order; diff said equal)."""
    tree = sample("orange3134_AvatarRootIdentification.brson")
    doc = bsondoc.decode(tree.to_bson())
    root = doc["Object"]
    keys = list(root)
    swapped = [keys[1], keys[0], *keys[2:]]
    doc["Object"] = {k: root[k] for k in swapped}
    data = doc["Object"]["Components"]["Data"][0]["Data"]
    members = list(data)
    doc["Object"]["Components"]["Data"][0]["Data"] = {k: data[k] for k in reversed(members)}
    result = diff(tree, brson.loads(brson.dumps(doc)))
    component = tree.root.components[0]
    assert changes(result) == {
        "keys_reordered": [tree.root.path, f"{tree.root.path}:{component.type.name}"]
    }
    assert list(result.lines()) == [
        f"~ {tree.root.path}: keys reordered",
        f"~ {tree.root.path}:{component.type.name}: keys reordered",
    ]


def _set(tmp_path: Path, name: str, target: str, value: str) -> DataTree:
    """``brson set`` on a real sample (the public edit a user makes), the result loaded."""
    from brson.cli.app import main

    out = tmp_path / f"edited-{len(list(tmp_path.iterdir()))}.brson"
    assert main(["set", str(SAMPLES / name), target, value, "-o", str(out)]) == 0
    return brson.load(out)


def test_a_protoflux_input_changed_reads_as_connections(tmp_path: Path) -> None:
    """Disconnecting an input and connecting it elsewhere are connection lines, not a changed
    reference ID (and the member's value change is not listed as well)."""
    name = "orange3134_AvatarRootIdentification.brson"
    base = sample(name)
    slot = next(s for s in base.walk() if s.name == "ObjectEquals`1")
    other = next(s for s in base.walk() if s.name == "RefObjectInput`1").components[0].id
    edited = _set(tmp_path, name, f"{slot.id}:ObjectEquals<User>.A", other)
    result = diff(base, edited)
    assert [(c.change, c.kind) for c in result.connections] == [
        ("disconnected", "value"),
        ("connected", "value"),
    ]
    equals = slot.components[0].id
    lines = list(result.lines())
    assert lines[0].startswith("- disconnected value GetActiveUserSelf("), lines
    assert lines[0].endswith(f"ObjectEquals<User>({equals}).A"), lines
    assert lines[1].startswith("+ connected value RefObjectInput<User>("), lines
    assert lines[1].endswith(f"ObjectEquals<User>({equals}).A"), lines
    assert not result.values, result.values
    back = diff(edited, base)
    swap = {"connected": "disconnected", "disconnected": "connected"}
    assert {(c.change, c.flow) for c in back.connections} == {
        (swap[c.change], c.flow) for c in result.connections
    }
    # only a disconnection: one line
    cut = _set(tmp_path, name, f"{slot.id}:ObjectEquals<User>.A", "null")
    assert [line.split(" ")[:3] for line in diff(base, cut).lines()] == [
        ["-", "disconnected", "value"]
    ]


def test_a_value_change_outside_protoflux_stays_a_value_change(tmp_path: Path) -> None:
    name = "orange3134_AvatarRootIdentification.brson"
    base = sample(name)
    edited = _set(tmp_path, name, "Avatar Root Identification:ValueCopy<bool>.WriteBack", "true")
    result = diff(base, edited)
    assert not result.connections and result.values
