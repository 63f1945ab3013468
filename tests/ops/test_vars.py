"""Dynamic variables on the real samples: listing, setting from text, round trips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bson.int64 import Int64

import brson
from brson.errors import ModelError, SelectorError
from brson.model import edit
from brson.model.component import Component
from brson.model.tree import DataTree
from brson.ops.validate import Severity, validate
from brson.ops.variables import Variable, find, set_text, variables

AVATAR_ROOT = "orange3134_AvatarRootIdentification.brson"
STANDIN = "orange3134_loading_standin.brson"
GROUP = "Avatar Root Identification/<color=#FF0000>Check Avatar Worn</color> - (11 Nodes)"


def reload(tree: DataTree) -> DataTree:
    return brson.loads(brson.dumps(tree), name="out.brson")


def listing(tree: DataTree) -> list[tuple[str, str, str, Any]]:
    return [(v.name, v.kind, v.type, v.value) for v in variables(tree)]


def test_lists_the_avatar_root_variables(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / AVATAR_ROOT)
    found = variables(tree)
    assert listing(tree) == [
        ("modular_avatar/AvatarWorn", "value", "bool", False),
        ("modular_avatar/AvatarWornLocal", "value", "bool", False),
        ("RedprintPack/Color", "value", "colorX", [1.0, 0.0, 0.0, 1.0, "sRGB"]),
        ("RedprintPack/ParentRedprint", "value", "bool", True),
        ("RedprintPack/Name", "value", "string", "Check Avatar Worn"),
        (
            "RedprintPack/PackTitle",
            "field",
            "string",
            "<color=#FF0000>Check Avatar Worn</color> - (11 Nodes)",
        ),
        ("Title", "value", "string", "Set by AvatarUserReferenceAssigner"),
        ("Description", "value", "string", None),
        (
            "Bounds",
            "value",
            "BoundingBox",
            {
                "Min": [0.41999998688697815, 0.2849999964237213, -0.009999999776482582],
                "Max": [0.41999998688697815, 0.2849999964237213, -0.009999999776482582],
            },
        ),
    ]
    assert found[0].slot == "Avatar Root Identification"
    assert found[2].slot == GROUP
    # The field variable's value is the field it publishes: here the group slot's name.
    assert found[5].member is tree.find(GROUP).member("Name")  # type: ignore[union-attr]
    data = found[5].to_dict()
    assert data["member_id"] == found[5].member.id  # type: ignore[union-attr]
    assert data["component_id"] == found[5].component.id


def test_lists_the_standin_variables_not_the_drivers(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / STANDIN)
    names = [v.name for v in variables(tree)]
    assert (
        names
        == [
            "RedprintPack/Color",
            "RedprintPack/ParentRedprint",
            "RedprintPack/Name",
            "RedprintPack/PackTitle",
        ]
        * 2
    )
    # DynamicReferenceVariableDriver and ProtoFlux nodes carry a VariableName but define
    # nothing.
    assert "modular_avatar/HumanBone.head" not in names


def test_neosvr_sample_has_none(samples_dir: Path) -> None:
    assert variables(brson.load(samples_dir / "redx_5ce7cdf5.7zbson")) == []


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("modular_avatar/AvatarWorn", "true", True),
        ("RedprintPack/Color", "0,1,0", [0.0, 1.0, 0.0, 1.0, "sRGB"]),
        ("RedprintPack/Color", "#0000ff80", [0.0, 0.0, 1.0, 128 / 255, "sRGB"]),
        ("RedprintPack/Color", "1,1,1,1,Linear", [1.0, 1.0, 1.0, 1.0, "Linear"]),
        ("RedprintPack/Name", "New name", "New name"),
        ("Description", "Now described", "Now described"),
        ("Title", "null", None),
        ("RedprintPack/PackTitle", "Renamed group", "Renamed group"),
    ],
)
def test_set_round_trip(samples_dir: Path, name: str, text: str, expected: Any) -> None:
    original = brson.load(samples_dir / AVATAR_ROOT)
    tree = brson.load(samples_dir / AVATAR_ROOT)
    (changed,) = set_text(tree, name, text)
    out = reload(tree)
    (again,) = find(out, name)
    assert again.value == expected and type(again.value) is type(expected)
    # Everything else keeps its bytes: every other component, and every other variable.
    target = changed.member
    assert target is not None
    mark = target.id or "-"
    owner = next(c for c in tree.components() if mark in c.to_bson().decode("latin-1"))
    before = {c.id: c.to_bson() for c in original.components() if c.id != owner.id}
    after = {c.id: c.to_bson() for c in out.components() if c.id != owner.id}
    assert after == before
    others = [v for v in listing(out) if v[0] != name]
    assert others == [v for v in listing(original) if v[0] != name]
    assert all(f.severity == Severity.INFO for f in validate(out))


def test_field_variable_sets_the_published_field(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / AVATAR_ROOT)
    set_text(tree, "RedprintPack/PackTitle", "Renamed group")
    out = reload(tree)
    assert out.root.children[0].name == "Renamed group"


def add_variable(tree: DataTree, type_name: str, name: str, value: Any) -> Component:
    key = "Reference" if "Reference" in type_name else "Value"
    return edit.add_component(tree.root, type_name, {"VariableName": name, key: value})


def test_int_widths_follow_the_variable_type(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / AVATAR_ROOT)
    add_variable(tree, "[FrooxEngine]FrooxEngine.DynamicValueVariable<int>", "count", 1)
    add_variable(tree, "[FrooxEngine]FrooxEngine.DynamicValueVariable<long>", "big", Int64(1))
    add_variable(
        tree, "[FrooxEngine]FrooxEngine.DynamicValueVariable<float3>", "where", [0.0, 0.0, 0.0]
    )
    tree = reload(tree)
    set_text(tree, "count", "42")
    set_text(tree, "big", "5000000000")
    set_text(tree, "where", "1,2,3")
    out = reload(tree)
    count, big, where = (find(out, n)[0] for n in ("count", "big", "where"))
    assert count.member is not None and count.member.etype("Data") == 0x10
    assert big.member is not None and big.member.etype("Data") == 0x12
    assert (count.value, big.value, where.value) == (42, 5000000000, [1.0, 2.0, 3.0])
    with pytest.raises(ModelError, match="does not fit the field's 32-bit"):
        set_text(out, "count", "5000000000")


def test_reference_variable(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / AVATAR_ROOT)
    slot_type = "[FrooxEngine]FrooxEngine.DynamicReferenceVariable<[FrooxEngine]FrooxEngine.Slot>"
    add_variable(tree, slot_type, "target", tree.root)
    tree = reload(tree)
    (variable,) = find(tree, "target")
    assert variable.kind == "reference" and variable.reference
    assert variable.value == tree.root.id
    group = tree.root.children[0]
    set_text(tree, "target", group.id or "")
    out = reload(tree)
    assert find(out, "target")[0].member.target is out.root.children[0]  # type: ignore[union-attr]
    with pytest.raises(ModelError, match="no element has the ID"):
        set_text(out, "target", "0000ffff-0000-0000-0000-000000000000")
    set_text(out, "target", "null")
    assert find(out, "target")[0].value is None


def test_ambiguous_and_unknown_names(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / STANDIN)
    with pytest.raises(SelectorError, match="2 variables are named 'RedprintPack/Color'"):
        set_text(tree, "RedprintPack/Color", "1,0,0")
    with pytest.raises(SelectorError, match="did you mean 'RedprintPack/Color'"):
        set_text(tree, "RedprintPack/Colour", "1,0,0")
    group = tree.root.children[2].path
    (one,) = set_text(tree, "RedprintPack/Color", "1,0,0", slot=group)
    assert one.slot == group
    both = set_text(tree, "RedprintPack/Name", "Same", every=True)
    assert len(both) == 2
    out = reload(tree)
    assert [v.value for v in find(out, "RedprintPack/Name")] == ["Same", "Same"]
    assert [v.value for v in find(out, "RedprintPack/Color")] == [
        [0.4074693024158478, 0.0, 1.0, 1.0, "sRGB"],
        [1.0, 0.0, 0.0, 1.0, "sRGB"],
    ]


def test_values_that_do_not_parse_change_nothing(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / STANDIN)
    before = tree.to_bson()
    with pytest.raises(ModelError, match="not a bool"):
        set_text(tree, "RedprintPack/ParentRedprint", "perhaps", every=True)
    with pytest.raises(ModelError, match="a color"):
        set_text(tree, "RedprintPack/Color", "red", every=True)
    assert tree.to_bson() == before
    avatar = brson.load(samples_dir / AVATAR_ROOT)
    with pytest.raises(ModelError, match="cannot set a value of this kind"):
        set_text(avatar, "Bounds", "1,2,3")


def test_variable_without_a_target_cannot_be_set(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / AVATAR_ROOT)
    (field,) = find(tree, "RedprintPack/PackTitle")
    edit.set_value(field.component["TargetField"], None)
    (field,) = find(tree, "RedprintPack/PackTitle")
    assert isinstance(field, Variable) and field.member is None and field.value is None
    with pytest.raises(ModelError, match="has no value to set"):
        set_text(tree, "RedprintPack/PackTitle", "x")
