"""The Slot tree API against values decoded independently: slots, transforms, find, resolve;
and the documents that must load or be reported (odd ParentReference styles, bad type
indices, duplicate IDs)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bson
import pytest
from bson.int64 import Int64

import brson
from brson.errors import ModelError, SelectorError
from brson.model import Component, DataTree, DataTreeDoc, IdRef, Member, Slot
from brson.model.ids.scan import DefinitionTable

from .support import (
    LEGACY,
    PROJECT_ROOT,
    STANDIN,
    ids_of,
    raw_document,
    raw_slots,
    sample,
    sample_files,
)

SAMPLES = sample_files()


@pytest.fixture(params=SAMPLES, ids=ids_of(SAMPLES))
def path(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


def _data(raw: dict[str, Any], key: str) -> Any:
    member = raw.get(key)
    return member["Data"] if isinstance(member, dict) else None


def test_slot_properties_match_the_raw_document(path: Path) -> None:
    doc = raw_document(path)
    tree = brson.load(path)
    names: dict[str, str] = {}
    depths: dict[str, int] = {}
    for slot, (raw, parent) in zip(tree.walk(), raw_slots(doc), strict=True):
        assert slot.id == raw["ID"]
        assert slot.name == _data(raw, "Name")
        assert slot.tag == _data(raw, "Tag")
        assert slot.active == _data(raw, "Active")
        assert slot.position == _data(raw, "Position")
        assert slot.rotation == _data(raw, "Rotation")
        assert slot.scale == _data(raw, "Scale")
        assert slot.order_offset == _data(raw, "OrderOffset")
        assert type(slot.order_offset) is type(_data(raw, "OrderOffset"))
        assert slot.persistent_id == raw.get("Persistent-ID")
        assert slot.parent_reference == raw.get("ParentReference")
        assert (slot.parent.id if slot.parent else None) == (parent["ID"] if parent else None)
        assert [c.id for c in slot.children] == [c["ID"] for c in raw["Children"]]
        assert [c.id for c in slot.components] == [
            c["Data"]["ID"] for c in raw["Components"]["Data"]
        ]
        assert all(c.slot is slot for c in slot.components)
        names[raw["ID"]] = (names[parent["ID"]] + "/" if parent else "") + raw["Name"]["Data"]
        assert slot.path == names[raw["ID"]]
        depths[raw["ID"]] = depths[parent["ID"]] + 1 if parent else 0
        assert slot.depth == depths[raw["ID"]]


# -- transforms, computed another way (q v q* with Hamilton products) -----------------------
def _qmul(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float, float]:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def _rotate(q: Sequence[float], v: Sequence[float]) -> list[float]:
    norm = sum(c * c for c in q) ** 0.5
    if norm == 0.0:  # mar_AimConstraint.pg.brson stores [0, 0, 0, 0]: read as no rotation
        return list(v)
    q = [c / norm for c in q]
    conj = (-q[0], -q[1], -q[2], q[3])
    x, y, z, _ = _qmul(_qmul(q, (v[0], v[1], v[2], 0.0)), conj)
    return [x, y, z]


def _apply_local(slot: Slot, p: Sequence[float]) -> list[float]:
    scale = slot.scale or [1.0, 1.0, 1.0]
    rotated = _rotate(slot.rotation or [0.0, 0.0, 0.0, 1.0], [p[i] * scale[i] for i in range(3)])
    position = slot.position or [0.0, 0.0, 0.0]
    return [rotated[i] + position[i] for i in range(3)]


def _apply_matrix(m: list[list[float]], p: Sequence[float]) -> list[float]:
    return [sum(m[r][c] * (p[c] if c < 3 else 1.0) for c in range(4)) for r in range(3)]


def test_matrices_match_quaternion_rotation(path: Path) -> None:
    tree = brson.load(path)
    probe = [0.3, -1.7, 2.9]
    for slot in tree.walk():
        local = slot.local_matrix()
        assert local[3] == [0.0, 0.0, 0.0, 1.0]
        assert _apply_matrix(local, probe) == pytest.approx(_apply_local(slot, probe), abs=1e-9)
        expected = list(probe)
        node: Slot | None = slot
        while node is not None:  # innermost transform first
            expected = _apply_local(node, expected)
            node = node.parent
        assert _apply_matrix(slot.global_matrix(), probe) == pytest.approx(expected, abs=1e-6)


def test_matrices_are_not_trivial_in_the_samples() -> None:
    """The checks above must see real rotations and scales, not only identities."""
    tree = brson.load(sample(LEGACY))
    assert any(s.rotation and s.rotation[:3] != [0.0, 0.0, 0.0] for s in tree.walk())
    assert any(s.depth >= 3 and s.global_matrix() != s.local_matrix() for s in tree.walk())


# -- find and resolve ---------------------------------------------------------------------
def test_find_by_name_id_and_path() -> None:
    tree = brson.load(sample(STANDIN))
    visual = next(s for s in tree.walk() if s.name == "Visual")
    assert tree.find("Visual") is visual
    assert tree.find(visual.path) is visual
    assert tree.find(str(visual.id)) is visual
    assert tree.find("no such slot") is None
    assert tree.find("00000000-0000-0000-0000-00000000beef") is None
    component_id = visual.components[0].id
    assert tree.find(str(component_id)) is None  # an ID, but not a slot's


def test_select_raises_where_find_returns_none() -> None:
    """One rule (issue 18): lookups return None, ``select`` (what the CLI and ``extract`` use)
    raises SelectorError with the names that come close (tests/ops/test_extract.py checks
    that extract refuses with the same message)."""
    tree = brson.load(sample(STANDIN))
    visual = tree.select("Visual")
    assert visual is tree.find("Visual") and visual is tree.select(str(visual.id))
    with pytest.raises(SelectorError, match=r"no slot matches 'Visul'; did you mean .*Visual"):
        tree.select("Visul")
    assert tree.find("Visul") is None
    assert visual.find_component("NoSuchComponent") is None
    assert visual.member("NoSuchKey") is None


def test_delete_key_is_not_remove() -> None:
    """``delete_key`` drops one raw key; ``remove`` deletes the element from the tree."""
    tree = brson.load(sample(STANDIN))
    slot = tree.select("Visual")
    assert not hasattr(slot, "delete")
    slot.delete_key("Tag")
    assert "Tag" not in slot and slot in tree.walk()
    slot.remove()
    assert tree.find("Visual") is None
    for method in (Slot.member, Slot.global_matrix, Slot.find_component, Slot.set):
        assert method.__doc__, method
    assert Slot.delete_key.__doc__ and "remove" in Slot.delete_key.__doc__


def test_ambiguous_name_is_a_selector_error() -> None:
    tree = brson.load(sample("orange3134_AvatarRootIdentification.brson"))
    counts: dict[str, int] = {}
    for slot in tree.walk():
        counts[str(slot.name)] = counts.get(str(slot.name), 0) + 1
    name = next(n for n, c in counts.items() if c > 1)
    with pytest.raises(SelectorError, match="matches"):
        tree.find(name)
    assert len(tree.find_all(name)) == counts[name]
    for slot in tree.find_all(name):  # paths disambiguate, unless they repeat too
        if len(tree.find_all(slot.path)) == 1:
            assert tree.find(slot.path) is slot


def test_resolve_every_kind_of_element() -> None:
    tree = brson.load(sample(STANDIN))
    visual = tree.find("Visual")
    assert isinstance(visual, Slot)
    assert tree.resolve(str(visual.id)) is visual
    renderer = visual.find_component("MeshRenderer")
    assert isinstance(renderer, Component)
    assert tree.resolve(str(renderer.id)) is renderer
    mesh = renderer["Mesh"]
    # Members are views: the same field, not necessarily the same object (Member's docstring).
    assert tree.resolve(str(mesh.id)) == mesh
    element = (renderer["Materials"].elements or [])[0]
    assert isinstance(tree.resolve(str(element.id)), Member)
    assert tree.resolve(str(element.id)) == element
    link = tree.resolve(str(visual.parent_reference))
    assert isinstance(link, IdRef) and link.key == "ParentReference" and link.owner is visual
    persistent = tree.resolve(str(visual.persistent_id))
    assert isinstance(persistent, IdRef) and persistent.key == "Persistent-ID"
    assert tree.resolve("00000000-0000-0000-0000-00000000beef") is None
    name = tree.resolve(str(visual.member("Name").id))  # type: ignore[union-attr]
    assert isinstance(name, Member) and name.value == "Visual"


def test_engine_parent_reference_is_an_id_of_its_own(path: Path) -> None:
    """ParentReference is either an ID of its own (unique, defined once, named by nothing: the
    engine's exports) or the parent's ID (mar_AimConstraint.pg.brson, another writer, mixes the
    two forms in one file)."""
    tree = brson.load(path)
    slots = list(tree.walk())
    slot_ids = {s.id for s in slots}
    own = [
        s.parent_reference for s in slots if s.parent is None or s.parent_reference != s.parent.id
    ]
    assert all(s.parent_reference for s in slots)
    assert len(set(own)) == len(own)
    assert not slot_ids & set(own)
    assert not {v for _, v in tree.ids.values} & set(own)
    assert not tree.ids.duplicates


# -- documents built by editing a sample's decoded dict ------------------------------------
def _load_doc(doc: dict[str, Any]) -> DataTree:
    return brson.loads(bson.encode(doc), name="built.bson")


def _parent_id_style(doc: dict[str, Any]) -> dict[str, Any]:
    for slot, parent in raw_slots(doc):
        slot["ParentReference"] = parent["ID"] if parent else None
    return doc


@pytest.mark.parametrize("edited", [False, True], ids=["from bytes", "from nodes"])
def test_parent_id_style_parent_reference_loads(edited: bool) -> None:
    doc = _parent_id_style(raw_document(sample(STANDIN)))
    tree = _load_doc(doc)
    if edited:
        tree.set("Extra", 1)  # the ID index is then built from the nodes
    slots = list(tree.walk())
    assert [s.id for s in slots] == [r["ID"] for r, _ in raw_slots(doc)]
    assert not tree.ids.duplicates
    for slot in slots[1:]:
        assert slot.parent is not None and slot.parent_reference == slot.parent.id
        assert tree.resolve(str(slot.parent_reference)) is slot.parent
    links = [value for loc, value in tree.ids.values if loc.path == ("ParentReference",)]
    assert len(links) == len(slots) - 1  # each is a reference to the parent
    assert tree.to_bson() == bson.encode({**doc, **({"Extra": 1} if edited else {})})


def test_out_of_range_type_index_names_the_slot() -> None:
    doc = raw_document(sample(STANDIN))
    visual = next(r for r, _ in raw_slots(doc) if r["Name"]["Data"] == "Visual")
    visual["Components"]["Data"][1]["Type"] = len(doc["Types"]) + 5
    tree = _load_doc(doc)  # loading is lazy: the error comes on access
    slot = tree.find("Visual")
    assert slot is not None
    component = slot.components[1]
    with pytest.raises(ModelError, match="out of range") as caught:
        _ = component.type
    assert caught.value.path == slot.path
    assert slot.path in str(caught.value)
    assert component.type_index == len(doc["Types"]) + 5
    # Everything else still works and round-trips.
    assert repr(component).startswith("Component(")  # repr never raises
    assert tree.to_bson() == bson.encode(doc)
    negative = raw_document(sample(STANDIN))
    negative["Object"]["Components"]["Data"][0]["Type"] = -1
    with pytest.raises(ModelError, match="out of range"):
        _ = _load_doc(negative).root.components[0].type


@pytest.mark.parametrize("bad", [1.5, True, None], ids=["double", "bool", "null"])
def test_non_index_type_is_a_model_error(bad: object) -> None:
    """A bool is no index (Python's True == 1 once picked Types[1] silently)."""
    doc = raw_document(sample(STANDIN))
    doc["Object"]["Components"]["Data"][0]["Type"] = bad
    with pytest.raises(ModelError, match="not an index or a name"):
        _ = _load_doc(doc).root.components[0].type


@pytest.mark.parametrize("edited", [False, True], ids=["from bytes", "from nodes"])
def test_duplicate_ids_are_reported(edited: bool) -> None:
    doc = raw_document(sample(STANDIN))
    slots = [r for r, _ in raw_slots(doc)]
    twice = slots[1]["ID"]
    slots[2]["ID"] = twice
    component = slots[3]["Components"]["Data"][0]["Data"]
    member_id = component["Enabled"]["ID"]
    component["UpdateOrder"]["ID"] = member_id
    tree = _load_doc(doc)
    if edited:
        tree.set("Extra", 1)
    duplicates = tree.ids.duplicates
    assert set(duplicates) == {twice, member_id}
    assert len(duplicates[twice].locations) == 2
    walked = list(tree.walk())  # paths checked against the raw document elsewhere
    assert sorted(loc.describe() for loc in duplicates[twice].locations) == sorted(
        [walked[1].path, walked[2].path]
    )
    assert sorted(loc.describe() for loc in duplicates[member_id].locations) == [
        f"{walked[3].path}:{walked[3].components[0].type.name}.{key}"
        for key in ("Enabled", "UpdateOrder")
    ]
    assert len(list(tree.walk())) == len(slots)  # the tree itself still loads and walks
    # Finding by the duplicated ID is ambiguous, never a silent pick of the first slot.
    assert [s.path for s in tree.find_all(twice)] == [walked[1].path, walked[2].path]
    with pytest.raises(SelectorError, match=r"matches 2 slots.*defined more than once"):
        tree.find(twice)
    assert tree.find(walked[1].path) is walked[1]  # a path still tells them apart
    # A definition table shows the repeat: still ambiguous, not the table's first.
    table = DefinitionTable(tree) if not edited else None
    assert [s.path for s in tree.find_all(twice, definitions=table)] == [
        walked[1].path,
        walked[2].path,
    ]


def test_definition_table_finds_what_the_bytes_do(path: Path) -> None:
    """Every slot's ID (and a component's, and one defined nowhere) found through a
    definition table names what a search of the bytes names, on every sample."""
    tree = brson.load(path)
    table = DefinitionTable(tree)
    slots = list(tree.walk())
    asked = [s.id for s in slots if s.id is not None]
    asked += [c.id for s in slots[:50] for c in s.components if c.id is not None]
    asked.append("00000000-dead-beef-0000-000000000000")
    for element_id in asked:
        plain = [s.span for s in tree.find_all(element_id)]
        assert [s.span for s in tree.find_all(element_id, definitions=table)] == plain


def test_assets_components_resolve_and_are_counted() -> None:
    tree = brson.load(sample(LEGACY))
    doc = raw_document(sample(LEGACY))
    assert [c.id for c in tree.assets] == [c["Data"]["ID"] for c in doc["Assets"]]
    for component in tree.assets:
        assert component.slot is None
        assert tree.resolve(str(component.id)) is component
        assert str(component.type) == next(
            c["Type"] for c in doc["Assets"] if c["Data"]["ID"] == component.id
        )


def test_member_value_of_lists_and_widths() -> None:
    tree = brson.load(sample(LEGACY))
    assert all(isinstance(s.order_offset, Int64) for s in tree.walk())
    lists = [m for c in tree.components() for m in c.fields.values() if m.elements is not None]
    assert lists
    for member in lists:
        raw = member.get("Data")
        assert member.value == [item["Data"] for item in raw]
        assert [e.id for e in member.elements or []] == [item["ID"] for item in raw]


def test_root_document_model(path: Path) -> None:
    """``tree.model()`` validates the root document: the pydantic view of the whole file."""
    doc = raw_document(path)
    model = brson.load(path).model()
    assert isinstance(model, DataTreeDoc)
    assert model.VersionNumber == doc.get("VersionNumber")
    assert model.Types == doc.get("Types")
    assert model.TypeVersions == doc.get("TypeVersions")
    assert len(model.Assets or []) == len(doc.get("Assets", []))
    assert doc["Object"]["ID"] == model.Object.ID
    assert model.Object.Name.Data == doc["Object"]["Name"]["Data"]
    assert [c.ID for c in model.Object.Children] == [c["ID"] for c in doc["Object"]["Children"]]
    broken = raw_document(path)
    broken["Object"]["Components"] = "not a member"
    with pytest.raises(ModelError, match="not a valid datatree"):
        _load_doc(broken).model()


#: The public contract of issue 4 ("Slot tree API"): each name must exist and be documented.
CONTRACT: dict[type, tuple[str, ...]] = {
    DataTree: ("root", "walk()", "types", "resolve(id)", "find(selector)"),
    Slot: (
        "id",
        "name",
        "tag",
        "active",
        "position",
        "rotation",
        "scale",
        "order_offset",
        "parent",
        "children",
        "components",
        "path",
        "local_matrix()",
        "global_matrix()",
    ),
    Component: ("id", "type", "slot", "fields", 'component["FieldName"]'),
    Member: ("id", "value", "target"),
}


def test_contract_names_exist_and_are_in_the_readme() -> None:
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Slot tree API", 1)[1].split("```", 1)[0]
    rows = {
        line.split("|")[1].strip(" `"): line
        for line in section.splitlines()
        if line.startswith("| `")
    }
    for cls, names in CONTRACT.items():
        for name in names:
            assert f"`{name}`" in rows[cls.__name__], f"README lacks {cls.__name__}.{name}"
            attr = "__getitem__" if name.startswith("component[") else name.split("(")[0]
            assert hasattr(cls, attr), f"{cls.__name__} has no {attr}"
