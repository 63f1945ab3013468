"""Every real sample through the model: counts, types, the standin's reference chain, and
byte-identical round trips (untouched, fully read, edited, edited and undone).

Expected values come from decoding the stored BSON with pymongo (``support.raw_document``),
never from the model itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bson
import pytest
from bson.int64 import Int64

import brson
from brson.model import Component, DataTree, Member, Slot
from brson.model.component import leading_data_id
from brson.model.node import Node

from .support import (
    STANDIN,
    archive_files,
    ids_of,
    raw_components,
    raw_document,
    raw_slots,
    sample,
    sample_files,
    stored_bson,
    walk_nodes,
)

SAMPLES = sample_files()
ARCHIVES = archive_files()


@pytest.fixture(params=SAMPLES, ids=ids_of(SAMPLES))
def path(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


def test_samples_exist() -> None:
    """The parametrized tests below must not pass by having nothing to run on."""
    names = {p.name for p in SAMPLES}
    assert {STANDIN, "redx_5ce7cdf5.7zbson", "orange3134_AvatarRootIdentification.brson"} <= names
    assert sum(p.suffix == ".resonitepackage" for p in SAMPLES) >= 3  # mar_coresys too


def test_counts_match_the_raw_document(path: Path) -> None:
    doc = raw_document(path)
    tree = brson.load(path)
    slots = list(tree.walk())
    raw = list(raw_slots(doc))
    assert [s.id for s in slots] == [r["ID"] for r, _ in raw]
    components = list(tree.components())
    assert [c.id for c in components] == [c["Data"]["ID"] for c in raw_components(doc)]
    assert len(tree.assets) == len(doc.get("Assets", []))
    assert tree.legacy == ("Types" not in doc)


def test_leading_data_id_reads_the_component_id(path: Path) -> None:
    """A component's ID read from its bytes without a node (what extract's report reads for
    every copy) is the decoded ``Data.ID`` wherever it answers, and it answers for every
    component in the engine's layout."""
    doc = raw_document(path)
    tree = brson.load(path)
    expected = [c["Data"]["ID"] for c in raw_components(doc)] + [
        a["Data"]["ID"] for a in doc.get("Assets", [])
    ]
    components = [*tree.components(), *tree.assets]
    read = [leading_data_id(c.buffer, *c.span) for c in components]
    assert read == expected and len(read) >= 29


def test_every_component_type_resolves(path: Path) -> None:
    doc = raw_document(path)
    tree = brson.load(path)
    types: list[str] = doc.get("Types", [])
    expected = [
        types[c["Type"]] if isinstance(c["Type"], int) else c["Type"] for c in raw_components(doc)
    ]
    assert [str(c.type) for c in tree.components()] == expected
    assert [c.type_index for c in tree.components()] == [c["Type"] for c in raw_components(doc)]
    assert [str(t) for t in tree.types] == types


def test_manifest_figures() -> None:
    """The counts MANIFEST.md states, measured through the model."""
    expected = {
        "orange3134_AvatarRootIdentification.brson": (20, 13, 29, 0),
        STANDIN: (49, 36, 58, 0),
        "redx_5ce7cdf5.7zbson": (0, 19, 44, 27),
        "mar_coresys.resonitepackage": (87, 189, 227, 1),  # one root Assets entry
    }
    for name, (types, slots, components, assets) in expected.items():
        tree = brson.load(sample(name))
        on_slots = sum(len(s.components) for s in tree.walk())
        assert (len(tree.types), len(list(tree.walk())), on_slots, len(tree.assets)) == (
            types,
            slots,
            components,
            assets,
        )


def _component(tree: DataTree, type_name: str) -> Component:
    found = [c for c in tree.components() if c.type.name == type_name]
    assert len(found) == 1, f"{type_name}: {len(found)} components"
    return found[0]


def test_standin_reference_chain() -> None:
    tree = brson.load(sample(STANDIN))
    renderer = _component(tree, "MeshRenderer")
    quad = _component(tree, "QuadMesh")
    material = _component(tree, "UnlitMaterial")
    texture = _component(tree, "StaticTexture2D")
    assert renderer["Mesh"].target is quad
    materials = renderer["Materials"]
    elements = materials.elements
    assert elements is not None and len(elements) == 1
    assert elements[0].target is material
    assert materials.value == [material.id]
    assert material["Texture"].target is texture
    # The targets are the very nodes navigation hands out (identity, not equal copies).
    assert quad.slot is not None and quad in quad.slot.components
    # And a reference to a member resolves to that member.
    value_refs = [
        m for c in tree.components() for m in c.fields.values() if isinstance(m.target, Member)
    ]
    assert value_refs and all(m.target.id == m.value for m in value_refs)  # type: ignore[union-attr]


# -- round trips --------------------------------------------------------------------------
def _file_bytes_again(path: Path, tree: DataTree) -> bytes:
    legacy = tree.container is not None and tree.container.legacy
    return brson.dumps(tree, legacy=legacy)


def test_untouched_round_trip(path: Path) -> None:
    tree = brson.load(path)
    original = stored_bson(path)
    assert brson.api.to_bson(tree) == original
    assert brson.loads(brson.dumps(tree)).to_bson() == original
    if path.suffix != ".resonitepackage":
        assert _file_bytes_again(path, tree) == path.read_bytes()


def test_full_reassembly_round_trip(path: Path) -> None:
    """Through the model for real: every node a walk hands out marked dirty, so the writer
    re-assembles slots, components, members and lists from their elements instead of returning
    the stored buffer.  Key order, int32/int64 widths and float bits must all come back."""
    tree = brson.load(path)
    original = stored_bson(path)
    members: list[Member] = []
    for slot in tree.walk():
        members.extend(m for m in map(slot.member, slot) if m is not None)
        for component in slot.components:
            for member in component.fields.values():
                members.append(member)
                members.extend(member.elements or ())
    tree.assets  # noqa: B018
    for member in members:  # every plain value decoded and encoded again: widths, float bits
        value = member.get("Data")
        if not isinstance(value, dict) and not (
            isinstance(value, list) and any(isinstance(v, dict) for v in value)
        ):
            member.set("Data", value)  # documents stay nodes (touched below)
    nodes = list(walk_nodes(tree))
    kinds = {type(node).__name__ for node in nodes}
    assert {"DataTree", "Slot", "Component", "Member"} <= kinds
    for node in nodes:
        node.touch()
    assert tree.modified and all(node.modified for node in nodes)
    assert tree.to_bson() == original
    assert brson.loads(brson.dumps(tree, codec="none")).to_bson() == original


def read_everything(tree: DataTree) -> int:
    """Touch every public property of every element; returns how many values were read."""
    count = 0
    for name in (
        "legacy",
        "version_number",
        "feature_flags",
        "type_versions",
        "types",
        "assets",
        "ids",
    ):
        getattr(tree, name)
        count += 1
    for slot in tree.walk():
        for name in (
            "id",
            "name",
            "tag",
            "active",
            "position",
            "rotation",
            "scale",
            "order_offset",
            "persistent_id",
            "parent_reference",
            "parent",
            "children",
            "components",
            "path",
            "depth",
        ):
            getattr(slot, name)
            count += 1
        slot.local_matrix()
        slot.global_matrix()
        slot.model()
        slot.decoded()
        for key in slot:
            slot.get(key)
            member = slot.member(key)
            if member is not None:
                count += _read_member(member)
    for component in tree.components():
        component.id, component.type, component.type_index, component.slot  # noqa: B018
        component.model()
        for member in component.fields.values():
            count += _read_member(member)
    for element_id in tree.ids:
        tree.resolve(element_id)
    return count


def _read_member(member: Member) -> int:
    member.id, member.value, member.target  # noqa: B018
    member.model()
    count = 1
    for item in member.elements or ():
        count += _read_member(item)
    return count


@pytest.mark.slow
def test_reading_everything_changes_nothing(path: Path) -> None:
    tree = brson.load(path)
    original = stored_bson(path)
    assert read_everything(tree) > 100
    assert not tree.modified
    assert not any(node.modified for node in walk_nodes(tree))
    assert tree.to_bson() == original
    if path.suffix != ".resonitepackage":
        assert _file_bytes_again(path, tree) == path.read_bytes()


def _first_slot_with_children(tree: DataTree) -> Slot:
    return next(s for s in tree.walk() if s.children and s.components)


def _to_end(node: Node, key: str) -> None:
    """Re-append a key (restores key order after a deleted key is set again)."""
    value = node.get(key)
    node.delete_key(key)
    node.set(key, value)


Edit = tuple[str, Callable[[], None], Callable[[], None], Callable[[], None]]


def _edits(tree: DataTree, doc: dict[str, Any]) -> list[Edit]:
    """(what, edit the model, edit the raw dict alike, undo on the model) for a spread of edits."""
    slot = _first_slot_with_children(tree)
    raw = next(r for r, _ in raw_slots(doc) if r["ID"] == slot.id)
    component = slot.components[0]
    raw_component = raw["Components"]["Data"][0]
    field = next(k for k, m in component.fields.items() if m.get("Data") is not None)
    member = component[field]
    old_name, old_position, old_order = slot.name, slot.position, slot.order_offset
    old_value, old_tag, keys = member.get("Data"), slot.get("Tag"), list(slot)

    def undo_delete() -> None:
        slot.set("Tag", old_tag)
        for key in keys[keys.index("Tag") + 1 :]:
            _to_end(slot, key)

    return [
        (
            "rename",
            lambda: setattr(slot, "name", "Renamed ✓"),
            lambda: raw["Name"].__setitem__("Data", "Renamed ✓"),
            lambda: setattr(slot, "name", old_name),
        ),
        (
            "move",
            lambda: setattr(slot, "position", (1.5, -2.0, 0.25)),
            lambda: raw["Position"].__setitem__("Data", [1.5, -2.0, 0.25]),
            lambda: setattr(slot, "position", old_position),
        ),
        (
            "order",
            lambda: setattr(slot, "order_offset", 7),
            lambda: raw["OrderOffset"].__setitem__("Data", Int64(7)),
            lambda: setattr(slot, "order_offset", int(old_order)),
        ),
        (
            "field",
            lambda: setattr(member, "value", None),
            lambda: raw_component["Data"][field].__setitem__("Data", None),
            lambda: member.set("Data", old_value),
        ),
        (
            "add key",
            lambda: component.data.set("Extra", {"ID": "x", "Data": 1}),
            lambda: raw_component["Data"].__setitem__("Extra", {"ID": "x", "Data": 1}),
            lambda: component.data.delete_key("Extra"),
        ),
        ("delete key", lambda: slot.delete_key("Tag"), lambda: raw.pop("Tag"), undo_delete),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("edit", range(6))
def test_edit_changes_only_that_and_undo_restores_bytes(path: Path, edit: int) -> None:
    """Each edit on a tree read whole first (reading must not matter) or on one read only as
    far as the edit goes, in turn: every edit meets both states on half the samples, and
    every sample both on half the edits.  (Reading whole is most of the cost, and
    :func:`test_reading_everything_changes_nothing` reads every sample whole.)"""
    tree = brson.load(path)
    original = stored_bson(path)
    expected = raw_document(path)
    what, apply, apply_raw, undo = _edits(tree, expected)[edit]
    if (SAMPLES.index(path) + edit) % 2 == 0:
        read_everything(tree)
    apply()
    apply_raw()
    assert tree.modified
    edited = tree.to_bson()
    assert edited != original
    assert bson.decode(edited) == expected, what
    assert bson.encode(expected) == edited, what  # widths and key order too
    # LZ4: the edit is in the BSON, whatever the codec (each codec's own writes of the whole
    # tree are the round-trip tests' and the conformance matrix's).
    again = brson.loads(brson.dumps(tree, codec="lz4"))
    assert again.to_bson() == edited
    undo()
    assert tree.to_bson() == original, what


@pytest.mark.parametrize(
    "given", [[1, 2, 3], (1, 2, 3), [1, 2.5, 3]], ids=["list", "tuple", "mixed"]
)
def test_transform_setters_write_doubles(given: Any) -> None:
    """Integers given for a vector are written as doubles, as the engine's float3 is."""
    tree = brson.load(sample(STANDIN))
    slot = tree.root
    slot.position = given
    slot.scale = given
    slot.rotation = [0, 0, 0, 1]
    raw = bson.decode(tree.to_bson())["Object"]
    for key, expected in (("Position", given), ("Scale", given), ("Rotation", [0, 0, 0, 1])):
        assert raw[key]["Data"] == [float(v) for v in expected]
        assert all(type(v) is float for v in raw[key]["Data"]), key


def test_set_int_keeps_int64_width() -> None:
    tree = brson.load(sample(STANDIN))
    slot = tree.root
    assert isinstance(slot.order_offset, Int64)
    slot.order_offset = 5
    assert isinstance(slot.order_offset, Int64) and slot.order_offset == 5
    slot.order_offset = 6  # set again: the width comes from the edited value now
    assert isinstance(slot.order_offset, Int64) and slot.order_offset == 6
    component = slot.components[0]
    update_order = component["UpdateOrder"]
    assert type(update_order.value) is int
    update_order.value = 3  # int32 field stays int32
    doc = bson.decode(tree.to_bson(), codec_options=bson.CodecOptions(document_class=dict))
    raw = doc["Object"]
    assert isinstance(raw["OrderOffset"]["Data"], Int64)
    assert type(raw["Components"]["Data"][0]["Data"]["UpdateOrder"]["Data"]) is int
    # The element type bytes themselves: 0x12 for int64, 0x10 for int32.
    data = tree.to_bson()
    member = slot.member("OrderOffset")
    assert member is not None and member.id is not None
    at = data.index(member.id.encode())
    assert data[data.index(b"Data\x00", at) - 1] == 0x12


def test_legacy_ints_stay_int64_after_edits() -> None:
    tree = brson.load(sample("redx_5ce7cdf5.7zbson"))
    component = next(c for c in tree.components() if "MaxDepth" in c)
    member = component["MaxDepth"]
    assert isinstance(member.value, Int64)
    member.value = 9
    assert isinstance(member.value, Int64)
    again = brson.loads(brson.dumps(tree))
    found = next(c for c in again.components() if c.id == component.id)
    assert isinstance(found["MaxDepth"].value, Int64) and found["MaxDepth"].value == 9


def test_float_bits_survive() -> None:
    """Doubles are never re-encoded unless edited: odd bits (NaN payloads) stay."""
    doc = raw_document(sample(STANDIN))
    odd = bson.decode(bson.encode({"x": float("nan")}))["x"]
    doc["Object"]["Position"]["Data"] = [odd, -0.0, math.inf]
    data = bson.encode(doc)
    payload = bytearray(data)
    at = payload.index(b"\x00\x00\x00\x00\x00\x00\xf8\x7f")
    payload[at] = 0x01  # a NaN with a payload pymongo would not produce
    tree = brson.loads(bytes(payload), name="x.bson")
    tree.root.name = "changed"
    assert tree.root.position is not None and math.isnan(tree.root.position[0])
    assert bytes(payload[at : at + 8]) in tree.to_bson()


@pytest.mark.parametrize("name", ["orange3134_loading_standin.brson", "redx_5ce7cdf5.7zbson"])
def test_component_model_makes_every_member_a_model(samples_dir: Path, name: str) -> None:
    """``Component.model()`` is full materialization: each field is a MemberDoc with its value."""
    from brson.model.documents import MemberDoc

    tree = brson.load(samples_dir / name)
    checked = 0
    for component in tree.components():
        data = component.model().Data
        extra = data.__pydantic_extra__ or {}
        for key, member in component.fields.items():
            model = getattr(data, key) if key in ("UpdateOrder", "Enabled") else extra[key]
            assert isinstance(model, MemberDoc), (component, key)
            assert member.id == model.ID
            checked += 1
    assert checked > 100
