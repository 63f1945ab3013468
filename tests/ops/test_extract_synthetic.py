"""Extract on a small hand-built world: the layouts real samples do not show.

A material and its texture on shared slots outside the avatar (copied along, transitively), a
reference to an ID the file does not define (the world, a user), bare IDs inside an array,
and a dangling ID numbered above everything else (fresh IDs must not reuse it).
"""

from __future__ import annotations

from itertools import count
from typing import Any

import pytest
from bson.int64 import Int64

from brson import api
from brson.document import bsondoc
from brson.errors import GraphError, ModelError
from brson.model.component import Component
from brson.model.tree import DataTree
from brson.ops.extract import HOLDER_NAME, extract

TYPES = [
    "[FrooxEngine]FrooxEngine.StaticTexture2D",
    "[FrooxEngine]FrooxEngine.Unused",
    "[FrooxEngine]FrooxEngine.PBS_Metallic",
    "[FrooxEngine]FrooxEngine.MeshRenderer",
    "[FrooxEngine]FrooxEngine.ReferenceMultiplexer<[FrooxEngine]FrooxEngine.Slot>",
]
MISSING = "7c0ffee0-1234-4abc-8def-0123456789ab"  # a user, say: not in the file
DANGLING_HIGH = "00000fff-0000-0000-0000-000000000000"


def guid(n: int) -> str:
    return f"{n:08x}-0000-0000-0000-000000000000"


class World:
    """Builds documents with Resonite's sequential IDs."""

    def __init__(self) -> None:
        self.ids = count()
        self.by_name: dict[str, str] = {}

    def next(self) -> str:
        return guid(next(self.ids))

    def member(self, value: Any) -> dict[str, Any]:
        return {"ID": self.next(), "Data": value}

    def component(self, type_index: int, name: str, **fields: Any) -> dict[str, Any]:
        component_id = self.next()
        self.by_name[name] = component_id
        data: dict[str, Any] = {
            "ID": component_id,
            "persistent-ID": self.next(),
            "UpdateOrder": self.member(0),
            "Enabled": self.member(True),
        }
        for key, value in fields.items():
            data[key] = value(self) if callable(value) else self.member(value)
        return {"Type": type_index, "Data": data}

    def slot(
        self, name: str, components: list[dict[str, Any]], children: list[dict[str, Any]]
    ) -> dict[str, Any]:
        slot_id = self.next()
        self.by_name[name] = slot_id
        return {
            "ID": slot_id,
            "Components": {"ID": self.next(), "Data": components},
            "Name": self.member(name),
            "Tag": self.member(None),
            "Active": self.member(True),
            "Persistent-ID": self.next(),
            "Position": self.member([0.0, 0.0, 0.0]),
            "Rotation": self.member([0.0, 0.0, 0.0, 1.0]),
            "Scale": self.member([1.0, 1.0, 1.0]),
            "OrderOffset": self.member(Int64(0)),
            "ParentReference": self.next(),
            "Children": children,
        }


def build() -> tuple[DataTree, World]:
    w = World()
    root_id = guid(9999)  # placeholder, fixed below
    textures = w.slot("Textures", [w.component(0, "texture", URL="@packdb:///abc")], [])
    materials = w.slot(
        "Materials",
        [w.component(2, "material", AlbedoTexture=lambda w: w.member(w.by_name["texture"]))],
        [],
    )
    avatar = w.slot(
        "Avatar",
        [
            w.component(
                3,
                "renderer",
                Materials=lambda w: w.member([w.member(w.by_name["material"])]),
                Mesh=MISSING,
            ),
            w.component(4, "multiplexer", Targets=lambda w: w.member([root_id, DANGLING_HIGH])),
        ],
        [w.slot("Body", [], [])],
    )
    root = w.slot("World", [], [textures, materials, avatar])
    # The multiplexer lists the world root by ID, in a bare array.
    targets = avatar["Components"]["Data"][1]["Data"]["Targets"]["Data"]
    targets[0] = root["ID"]
    doc = {
        "VersionNumber": "2026.1.1.1",
        "FeatureFlags": {"ResetGUID": 0},
        "Types": TYPES,
        "TypeVersions": {TYPES[1]: 2, TYPES[3]: 1, "[FrooxEngine]FrooxEngine.Other": 7},
        "Object": root,
        "Extra": {"kept": Int64(1)},
    }
    return api.loads(api.dumps(bsondoc.encode(doc))), w


def test_dependencies_come_along_transitively() -> None:
    tree, w = build()
    result = extract(tree, "Avatar")
    out, report = result.tree, result.report
    assert [(c.source, c.target) for c in report.copied] == [
        ("World/Textures:StaticTexture2D", f"Avatar/{HOLDER_NAME}/Textures:StaticTexture2D"),
        ("World/Materials:PBS_Metallic", f"Avatar/{HOLDER_NAME}/Materials:PBS_Metallic"),
    ]
    assert report.copied[0].referenced_by == [
        f"Avatar/{HOLDER_NAME}/Materials:PBS_Metallic.AlbedoTexture"
    ]
    assert report.copied[1].referenced_by == ["Avatar:MeshRenderer.Materials[0]"]
    renderer = out.root.components[0]
    material = renderer["Materials"].elements[0].target  # type: ignore[index]
    assert isinstance(material, Component)
    texture = material["AlbedoTexture"].target
    assert isinstance(texture, Component) and texture.id == w.by_name["texture"]
    assert texture.slot is not None and texture.slot.path == f"Avatar/{HOLDER_NAME}/Textures"
    # Types: used ones in source order; the unused one and its TypeVersions entry dropped, an
    # entry naming no type of the file kept (not understood), other root keys as they were.
    assert out.get("Types") == [TYPES[0], TYPES[2], TYPES[3], TYPES[4]]
    assert report.types_dropped == [TYPES[1]]
    assert out.get("TypeVersions") == {TYPES[3]: 1, "[FrooxEngine]FrooxEngine.Other": 7}
    assert out.get("Extra") == {"kept": Int64(1)} and list(out) == list(tree)
    assert [str(c.type) for c in out.components()] == [TYPES[3], TYPES[4], TYPES[0], TYPES[2]]


def test_fresh_ids_skip_every_id_shaped_value() -> None:
    tree, _ = build()
    result = extract(tree, "Avatar")
    numbers = sorted(int(i[:8], 16) for i in result.report.new_ids)
    assert numbers[0] == 0x1000  # above the dangling 00000fff, not just above definitions
    assert numbers == list(range(0x1000, 0x1000 + len(numbers)))
    holder = result.tree.root.children[-1]
    assert [k.name for k in holder.children] == ["Textures", "Materials"]
    assert holder.id in result.report.new_ids


def test_what_cannot_move_is_reported_kept_or_nulled() -> None:
    tree, w = build()
    kept = extract(tree, "Avatar")
    refs = [(r.where, r.target, r.target_path, r.kind) for r in kept.report.external]
    assert refs == [
        ("Avatar:MeshRenderer.Mesh", MISSING, None, "missing"),
        ("Avatar:ReferenceMultiplexer.Targets[0]", w.by_name["World"], "World", "slot"),
        ("Avatar:ReferenceMultiplexer.Targets[1]", DANGLING_HIGH, None, "missing"),
    ]
    nulled = extract(tree, "Avatar", external="null").tree
    renderer, multiplexer = nulled.root.components
    assert renderer["Mesh"].value is None
    assert multiplexer["Targets"].value == [None, None]  # bare IDs in an array, nulled in place
    assert not [v for _, v in nulled.ids.values if v not in nulled.ids.defined]
    # Only the nulled values changed: everything else in those components is byte-identical.
    before = kept.tree.root.components[0].data.decoded()
    after = renderer.data.decoded()
    assert {k: v for k, v in before.items() if k != "Mesh"} == {
        k: v for k, v in after.items() if k != "Mesh"
    }
    with pytest.raises(GraphError, match="3 reference"):
        extract(tree, "Avatar", external="fail")


def test_no_dependencies_leaves_components_outside() -> None:
    tree, _ = build()
    result = extract(tree, "Avatar", copy_dependencies=False)
    assert result.report.copied == [] and result.report.new_ids == []
    assert ("Avatar:MeshRenderer.Materials[0]", "component") in [
        (r.where, r.kind) for r in result.report.external
    ]
    assert [k.name for k in result.tree.root.children] == ["Body"]


def test_idempotent_and_root_identity() -> None:
    tree, _ = build()
    once = extract(tree, "Avatar").tree
    assert extract(once, once.root).tree.to_bson() == once.to_bson()
    whole = extract(tree, tree.root)
    assert whole.report.types_dropped == [TYPES[1]]
    assert whole.report.external[0].target == MISSING


def variant(change: Any) -> DataTree:
    """The hand-built world with one change applied to its decoded document."""
    tree, _ = build()
    doc = tree.decoded()
    change(doc)
    return api.loads(bsondoc.encode(doc))


def avatar_of(doc: dict[str, Any]) -> dict[str, Any]:
    avatar: dict[str, Any] = doc["Object"]["Children"][2]
    return avatar


def test_type_index_out_of_range_is_a_clear_error() -> None:
    def change(doc: dict[str, Any]) -> None:
        avatar_of(doc)["Components"]["Data"][0]["Type"] = 99

    with pytest.raises(ModelError, match="type index 99 is out of range") as info:
        extract(variant(change), "Avatar")
    assert info.value.path == "World/Avatar"


def test_root_without_children_gets_the_holder() -> None:
    tree = variant(lambda doc: avatar_of(doc).pop("Children"))
    out = extract(tree, "Avatar").tree
    assert [k.name for k in out.root.children] == [HOLDER_NAME]
    assert list(out.root)[-1] == "Children"
    assert extract(out, out.root).tree.to_bson() == out.to_bson()


def test_type_names_inline_in_a_resonite_file_are_kept() -> None:
    def change(doc: dict[str, Any]) -> None:
        avatar_of(doc)["Components"]["Data"][1]["Type"] = "Some.Custom<int>"

    result = extract(variant(change), "Avatar")
    assert result.tree.get("Types") == [TYPES[0], TYPES[2], TYPES[3]]
    assert [c.type_index for c in result.tree.components()] == [2, "Some.Custom<int>", 0, 1]
    assert result.report.components == 4


def test_parent_id_as_parent_reference_is_not_kept() -> None:
    """Third-party files write the parent's ID as ParentReference: the extracted root gets
    its own, so a reference to the parent is reported instead of looking resolved."""

    def change(doc: dict[str, Any]) -> None:
        def link(slot: dict[str, Any]) -> None:
            for child in slot["Children"]:
                child["ParentReference"] = slot["ID"]
                link(child)

        link(doc["Object"])

    tree = variant(change)
    result = extract(tree, "Avatar")
    root = result.tree.root
    world = tree.root.id
    assert root.parent_reference in result.report.new_ids and root.parent_reference != world
    assert root.children[0].parent_reference == root.id  # inside the subtree: as written
    assert ("Avatar:ReferenceMultiplexer.Targets[0]", world, "slot") in [
        (r.where, r.target, r.kind) for r in result.report.external
    ]
