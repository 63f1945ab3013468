"""Members are views: not kept by their component or slot until edited (issue 14).

Reading every member's value kept one object per member in its owner's overlay, most of the
memory of that loop. Now ``fields``, ``component[key]`` and ``slot.member(key)`` hand out
views; the first edit registers the edited object with its owner. These tests pin what must
hold anyway: edits stick (for later reads and for ``dumps``), two objects for one field see
one value, and untouched content is written byte-identical.
"""

from __future__ import annotations

from typing import Any

import bson
import pytest

import brson
from brson.errors import DocumentError, ModelError
from brson.model import Component, DataTree, Member, Slot

from .support import STANDIN, sample, standin_visual, walk_nodes

_standin = standin_visual


def _reloaded(tree: DataTree) -> tuple[DataTree, Slot, Component]:
    again = brson.loads(brson.dumps(tree), name="again.brson")
    visual = again.find("Visual")
    assert isinstance(visual, Slot)
    renderer = visual.find_component("MeshRenderer")
    assert isinstance(renderer, Component)
    return again, visual, renderer


def test_reading_keeps_nothing_and_writes_the_original_bytes() -> None:
    tree, _, renderer = _standin()
    original = tree.buffer
    first, second = renderer.fields, renderer.fields
    assert first.keys() == second.keys() and "Mesh" in first
    for key, member in first.items():
        twin = second[key]
        assert member is not twin  # views
        assert member == twin and hash(member) == hash(twin)
        assert member.value == twin.value and member.id == twin.id
        assert member.tree is tree and not member.modified
    assert {first["Mesh"]: 1}[renderer["Mesh"]] == 1  # usable as a key across views
    assert not renderer.data.overlay  # the component's Data holds no member
    assert not tree.modified
    assert tree.to_bson() == original


def test_two_objects_for_one_field_one_edited() -> None:
    tree, _, renderer = _standin()
    a, b = renderer["Mesh"], renderer.fields["Mesh"]
    target = renderer.id
    a.value = target
    assert a.modified and tree.modified
    assert b.value == target and b.modified  # the older view forwards to the edited one
    assert renderer["Mesh"] is a and renderer.fields["Mesh"] is a  # now held: one object
    b.value = None  # an edit through the older view lands on the held member
    assert a.value is None and renderer["Mesh"].value is None
    _, _, again = _reloaded(tree)
    assert again["Mesh"].value is None


def test_edit_through_a_fresh_member_sticks() -> None:
    tree, _, renderer = _standin()
    before = {key: member.value for key, member in renderer.fields.items()}
    renderer.fields["Mesh"].value = renderer.id  # the view is dropped at once
    assert renderer["Mesh"].value == renderer.id
    assert renderer.fields["Mesh"].value == renderer.id
    _, _, reloaded = _reloaded(tree)
    values = {key: member.value for key, member in reloaded.fields.items()}
    assert values == {**before, "Mesh": renderer.id}
    # Untouched members are written from their original bytes.
    for key, member in renderer.fields.items():
        if key != "Mesh":
            assert reloaded[key].to_bson() == bytes(member.original_bytes())


def test_width_is_kept_through_a_view() -> None:
    doc: dict[str, Any] = {
        "Object": {
            "ID": "00000001-0000-0000-0000-000000000000",
            "Name": {"ID": "00000002-0000-0000-0000-000000000000", "Data": "root"},
            "OrderOffset": {
                "ID": "00000003-0000-0000-0000-000000000000",
                "Data": bson.Int64(5),
            },
            "Components": {"ID": "00000004-0000-0000-0000-000000000000", "Data": []},
            "Children": [],
        }
    }
    tree = brson.loads(bson.encode(doc), name="w.bson")
    tree.root.order_offset = 7
    again = brson.loads(brson.dumps(tree, "brotli"), name="w.brson")
    member = again.root.member("OrderOffset")
    assert member is not None and member.etype("Data") == 0x12 and member.value == 7


def test_sync_list_elements_through_views() -> None:
    tree, _, renderer = _standin()
    materials = renderer["Materials"]
    elements = materials.elements
    assert elements
    first = elements[0]
    old = first.value
    first.value = renderer.id  # an element of a view: the view registers itself
    assert renderer["Materials"] is materials
    assert renderer.fields["Materials"].value[0] == renderer.id
    other = renderer["Materials"].elements
    assert other is not None and other[0] is first
    _, _, again = _reloaded(tree)
    assert again["Materials"].value[0] == renderer.id != old


def test_stale_list_element_edit_is_refused() -> None:
    _, _, renderer = _standin()
    a, b = renderer["Materials"], renderer["Materials"]
    kept = a.elements
    assert kept
    b.value = []  # b is held from now on; a's own element list is stale
    with pytest.raises(ModelError, match="read it again"):
        kept[0].value = None
    assert renderer["Materials"].value == [] and a.value == []


def test_slot_members_are_views_until_edited() -> None:
    tree, visual, _ = _standin()
    name = visual.name
    first, second = visual.member("Name"), visual.member("Name")
    assert first is not None and second is not None
    assert first is not second and first == second
    second.value = "renamed"
    assert first.value == "renamed" and visual.name == "renamed"
    assert visual.member("Name") is second
    visual.position = (1, 2, 3)
    assert visual.position == [1.0, 2.0, 3.0]
    components = visual.member("Components")
    assert components is visual.member("Components")  # kept: it lists the kept components
    again = brson.loads(brson.dumps(tree), name="again.brson").find("renamed")
    assert isinstance(again, Slot) and again.id == visual.id and name != "renamed"
    assert again.position == [1.0, 2.0, 3.0]


def test_an_edit_is_in_the_id_index_and_walks() -> None:
    tree, _, renderer = _standin()
    mesh_id = renderer["Mesh"].id
    renderer.fields["Mesh"].value = None
    found = tree.resolve(str(mesh_id))
    assert isinstance(found, Member) and found.value is None
    assert found is renderer["Mesh"]
    assert any(node is found for node in walk_nodes(tree))


def _one_component(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "Types": ["[FrooxEngine]FrooxEngine.ValueField<int>"],
        "Object": {
            "ID": "00000001-0000-0000-0000-000000000000",
            "Name": {"ID": "00000002-0000-0000-0000-000000000000", "Data": "root"},
            "Components": {
                "ID": "00000003-0000-0000-0000-000000000000",
                "Data": [{"Type": 0, "Data": data}],
            },
            "Children": [],
        },
    }


def test_members_in_other_layouts_are_still_members() -> None:
    data = {
        "ID": "00000004-0000-0000-0000-000000000000",
        "Value": {"Data": 3, "ID": "00000005-0000-0000-0000-000000000000"},  # Data first
        "Plain": {"NotAMember": 1},
        "Flag": True,
    }
    tree = brson.loads(bson.encode(_one_component(data)), name="layouts.bson")
    (component,) = tree.root.components
    fields = component.fields
    assert list(fields) == ["Value"] and fields["Value"].value == 3
    assert "Plain" not in component and "Flag" not in component
    fields["Value"].value = 4
    assert component["Value"].value == 4


def test_a_malformed_data_document_is_one_error() -> None:
    data = {"ID": "00000004-0000-0000-0000-000000000000", "Value": {"ID": "x", "Data": 1}}
    buf = bytearray(bson.encode(_one_component(data)))
    at = buf.find(b"\x03Value\x00")
    buf[at + 7 : at + 11] = (10_000).to_bytes(4, "little")  # a length past the document
    tree = brson.loads(bytes(buf), name="bad.bson")
    (component,) = tree.root.components
    with pytest.raises(DocumentError):
        component.fields  # noqa: B018


def test_two_fields_dicts_taken_before_edits() -> None:
    tree, _, renderer = _standin()
    assert renderer.data is renderer.data  # one Data node per component
    first, second = renderer.fields, renderer.fields
    first["Mesh"].value = None
    assert second["Mesh"].value is None  # both dicts' members share the one Data node
    materials = second["Materials"]
    materials.value = []  # an edit through the other dict lands in the same Data node
    assert first["Materials"].value == [] and renderer["Mesh"].value is None
    _, _, again = _reloaded(tree)
    assert again["Mesh"].value is None and again["Materials"].value == []


def test_an_edited_data_key_is_what_data_gives() -> None:
    _, _, renderer = _standin()
    before = renderer.data
    renderer.set("Data", 5)  # low level: Data is no longer a document
    with pytest.raises(ModelError, match="no Data document"):
        renderer.data  # noqa: B018
    renderer.set("Data", before)
    assert renderer.data is before and "Mesh" in renderer


def test_walked_lists_kept_outside_the_overlay_follow_edits() -> None:
    """A walked slot keeps its Children list and Components member in attributes of its own
    (no overlay dict per slot); they are still what the slot holds, walks reach them, and the
    first edit below moves them into the overlay, so reads and writes of the edited slot see
    the edit."""
    tree, visual, renderer = _standin()
    parent = visual.parent
    assert isinstance(parent, Slot)
    for slot in tree.walk():
        slot.name  # noqa: B018
        slot.components  # noqa: B018
    assert parent.children_list() is parent.children_list()
    assert visual.components_member is visual.components_member
    assert set(parent.overlay) == {"Children", "Components"}
    held = visual.components_member
    assert held is not None and held.overlay.keys() == {"Data"}
    assert renderer in set(walk_nodes(tree)) and visual in set(walk_nodes(tree))
    assert not tree.modified and tree.to_bson() == tree.buffer

    visual.name = "Renamed"
    renderer.data.set("Enabled", False)
    assert parent.modified and visual.modified
    names = [kid["Name"]["Data"] for kid in parent.get("Children")]
    assert "Renamed" in names
    comps = visual.get("Components")["Data"]
    assert any(c["Data"]["Enabled"] is False for c in comps)
    again = brson.loads(brson.dumps(tree), name="again.brson")
    renamed = again.find("Renamed")
    assert isinstance(renamed, Slot)
    found = renamed.find_component("MeshRenderer")
    assert found is not None and found.data.get("Enabled") is False


def test_field_views_made_before_the_data_node_reach_it_on_their_first_edit() -> None:
    """``fields`` of a component nobody asked ``data`` of keeps no Data node; its views find
    the component's Data node (made then, or the one ``data`` gave before) on their first
    edit, so every order of ``fields``, ``data`` and edits gives one held member per field."""
    tree, _, renderer = _standin()
    first = renderer.fields
    assert renderer.data_held() is None  # nothing kept by reading
    assert all(m.value == renderer.fields[k].value for k, m in first.items())
    data = renderer.data  # taken after the views, before their edit
    mesh, twin = first["Mesh"], renderer.fields["Mesh"]
    mesh.value = renderer.id
    assert mesh.owner is data and renderer.data is data and renderer.data_held() is data
    assert data.overlay["Mesh"] is mesh and renderer["Mesh"] is mesh
    assert twin.value == renderer.id  # the older view of the key forwards
    assert first["Enabled"].value == renderer.fields["Enabled"].value
    enabled = data.child_view("Enabled", Member)
    assert enabled is not None
    enabled.value = False  # an edit through the earlier ``data`` still works
    twin.value = None  # and through the older view, landing on the held member
    assert mesh.value is None and renderer.fields["Enabled"].value is False
    assert first["Enabled"].value is False  # a view from before forwards too

    _, _, other = _reloaded(tree)
    assert other["Mesh"].value is None and other["Enabled"].value is False
    views = other.fields  # no Data node yet; the first edit makes it
    views["Mesh"].value = other.id
    assert other.data_held() is not None and other["Mesh"] is views["Mesh"]
    assert other.fields["Mesh"].value == other.id
    stale = other.fields["Enabled"]
    other.fields["Enabled"].value = True
    assert stale.value is True  # forwards to the held one
    again = brson.loads(brson.dumps(other.tree), name="again.brson")  # type: ignore[arg-type]
    found = again.find("Visual")
    assert isinstance(found, Slot)
    renderer2 = found.find_component("MeshRenderer")
    assert renderer2 is not None and renderer2["Mesh"].value == other.id
    assert renderer2["Enabled"].value is True


def test_components_read_before_their_member_keep_identity_and_edits() -> None:
    """A slot's components read through ``slot.components`` are owned by the slot until the
    ``Components`` member is asked for or an edit below them needs it (no member and list
    kept per slot on a walk); they stay the same objects afterwards, their owner is that
    member, and an edit through one made before the member existed is written."""
    tree = brson.load(sample(STANDIN))
    visual = tree.find("Visual")
    assert isinstance(visual, Slot)
    first = visual.components
    renderer = next(c for c in first if c.is_type("MeshRenderer"))
    assert visual.components[0] is first[0]
    renderer.data.set("Enabled", False)  # the member is made by this edit
    member = visual.components_member
    assert member is not None and renderer.owner is member
    assert visual.components == first and all(
        a is b for a, b in zip(visual.components, first, strict=True)
    )
    assert tree.modified and visual.modified and member.modified
    _, again_visual, again_renderer = _reloaded(tree)
    assert again_renderer.data.get("Enabled") is False
    assert [c.id for c in again_visual.components] == [c.id for c in first]

    other = brson.load(sample(STANDIN))
    slot = other.find("Visual")
    assert isinstance(slot, Slot)
    comps = slot.components
    assert comps[0].owner is slot.components_member  # asking makes it, and it owns them
    assert set(slot.overlay) >= {"Components"} and not other.modified
    assert other.to_bson() == other.buffer
