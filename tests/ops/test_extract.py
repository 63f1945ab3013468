"""Extract: every slot of every real sample gives a sound, self-consistent archive."""

from __future__ import annotations

import random
import re
import uuid
from functools import cache
from pathlib import Path
from typing import Any

import bson
import pytest

import brson
from brson import api
from brson.errors import DocumentError, GraphError, ModelError, SelectorError
from brson.model import elements
from brson.model.component import Component
from brson.model.slot import Slot
from brson.model.tree import DataTree
from brson.ops.extract import HOLDER_NAME, PHASES, ExtractResult, extract
from brson.ops.extractbytes import name_element

#: The real samples (as in tests/conftest.py; needed at collection time to list the slots).
SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples"
ARCHIVES = [
    "orange3134_AvatarRootIdentification.brson",
    "orange3134_loading_standin.brson",
    "redx_5ce7cdf5.7zbson",
]
SEQUENTIAL = re.compile(r"[0-9a-f]{8}-0000-0000-0000-000000000000\Z")


@cache
def source(name: str) -> DataTree:
    """A sample, loaded once (extract never modifies its input)."""
    return brson.load(SAMPLES / name)


def every_slot() -> list[Any]:
    if not SAMPLES.is_dir():
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="no real samples"))]
    return [
        pytest.param(name, slot.id, id=f"{name}:{n}")
        for name in ARCHIVES
        for n, slot in enumerate(source(name).walk())
    ]


def type_name(component: Component) -> str:
    raw_type = component.type_index
    if isinstance(raw_type, str):
        return raw_type
    tree = component.tree
    assert tree is not None and isinstance(raw_type, int)
    names = tree.get("Types")
    assert 0 <= raw_type < len(names)
    return str(names[raw_type])


def by_id(tree: DataTree) -> dict[str, Component]:
    return {c.id: c for c in tree.components() if c.id is not None}


def named(slot: dict[str, Any], types: list[str]) -> dict[str, Any]:
    """A decoded slot with each component's Type index replaced by its name."""
    out = dict(slot)
    out["Components"] = {
        **slot["Components"],
        "Data": [{**c, "Type": types[c["Type"]]} for c in slot["Components"]["Data"]],
    }
    out["Children"] = [named(child, types) for child in slot["Children"]]
    return out


def subtree_ids(slot: Slot) -> set[str]:
    return {c.id for s in slot.walk() for c in s.components if c.id is not None}


def check(src: DataTree, slot: Slot, result: ExtractResult, external: str = "keep") -> DataTree:
    """Everything an extraction promises, checked against the source."""
    tree, report = result.tree, result.report
    data = api.dumps(tree)
    out = api.loads(data, name="out.brson")  # it loads, and as the same BSON
    assert out.to_bson() == tree.to_bson()

    # The root is the slot itself, with its own IDs (ParentReference included).
    root = out.root
    assert (root.id, root.name, root.parent_reference) == (
        slot.id,
        slot.name,
        slot.parent_reference,
    )
    assert report.slot == slot.path and report.slot_id == slot.id
    source_slots = {s.id: s for s in slot.walk()}
    out_slots = {s.id: s for s in out.walk()}
    for slot_id, original in source_slots.items():
        copy = out_slots[slot_id]
        assert copy.parent_reference == original.parent_reference
        assert [k.id for k in copy.children if k.name != HOLDER_NAME] == [
            k.id for k in original.children
        ]
    assert report.slots == len(out_slots)

    # Components: same type names, Data bytes untouched unless a reference was nulled.
    src_components, out_components = by_id(src), by_id(out)
    assert report.components == len(out_components)
    nulled = {ref.where for ref in report.external if ref.action == "nulled"}
    for component_id, component in out_components.items():
        before = src_components[component_id]
        assert type_name(component) == type_name(before), component_id
        if not nulled:
            assert component.data.to_bson() == before.data.to_bson()
    inside = subtree_ids(slot)
    copied = {c.id for c in report.copied}
    assert set(out_components) == inside | copied
    assert not inside & copied

    # Types: only used ones, in the source's relative order; TypeVersions trimmed alike.
    if not src.legacy:
        names, src_names = out.get("Types"), src.get("Types")
        used = {type_name(c) for c in out.components()}
        assert set(names) == used and len(names) == len(used)
        positions = [src_names.index(n) for n in names]
        assert positions == sorted(positions)
        assert report.types_dropped == [n for n in src_names if n not in used]
    versions, src_versions = out.type_versions, src.type_versions
    assert all(
        src_versions[k] == v and type(src_versions[k]) is type(v) for k, v in versions.items()
    )
    used_names = {type_name(c) for c in out.components()}
    assert set(report.type_versions_dropped) == set(src_versions) - set(versions)
    assert not set(report.type_versions_dropped) & used_names
    # Root keys: the same ones in the same order; the untouched ones identical.
    assert out.keys() == src.keys()
    for key in out:
        if key not in ("Object", "Types", "TypeVersions", "Assets"):
            assert out.get(key) == src.get(key)

    # IDs unique; every ID-shaped value resolves inside or is reported.
    index = out.ids
    assert not index.duplicates
    dangling = [
        (loc.describe(), value) for loc, value in index.values if value not in index.defined
    ]
    if external == "null":
        assert dangling == []
    else:
        assert sorted(dangling) == sorted((r.where, r.target) for r in report.external)
    for ref in report.external:
        assert ref.target not in index.defined
        assert ref.action == ("nulled" if external == "null" else "kept")
        located = src.ids.where(ref.target)
        assert (ref.target_path is None) == (located is None)
        assert ref.kind in ("slot", "component", "missing")

    # Copied components hang under the holder (NeosVR root assets stay in Assets), and the
    # new slots' IDs follow the file's style.
    holder = [k for k in root.children if k.name == HOLDER_NAME and k.id not in source_slots]
    on_slots = [c for c in report.copied if not c.source.startswith("<Assets>")]
    assert len(holder) == (1 if on_slots else 0)
    if holder:
        assert root.children[-1] is holder[0]
        held = {c.id for s in holder[0].walk() for c in s.components}
        assert held == {c.id for c in on_slots}
        new_slots = list(holder[0].walk())
        fresh = set(report.new_ids)
        for new in new_slots:
            assert {new.id, new.parent_reference, new.persistent_id} <= fresh
        sequential = all(SEQUENTIAL.match(i) for i in src.ids.defined)
        for new_id in fresh:
            if sequential:
                assert SEQUENTIAL.match(new_id)
            else:
                assert uuid.UUID(new_id).version == 4
    else:
        assert report.new_ids == []
    if "Assets" in src:
        src_assets = [c.id for c in src.assets]
        kept = [c.id for c in out.assets]
        assert kept == [i for i in src_assets if i in kept]
        assert set(kept) == {c.id for c in report.copied if c.source.startswith("<Assets>")}
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("name", "slot_id"), every_slot())
def test_every_slot_of_every_sample(name: str, slot_id: str) -> None:
    src = source(name)
    slot = src.resolve(slot_id)
    assert isinstance(slot, Slot)
    before = src.to_bson()
    result = extract(src, slot)
    out = check(src, slot, result)
    assert src.to_bson() == before and not src.modified  # the input is never modified
    # Re-extracting the new root gives the same bytes.
    again = extract(out, out.root)
    assert again.tree.to_bson() == result.tree.to_bson()
    assert again.report.new_ids == []
    assert [c for c in again.report.copied if not c.source.startswith("<Assets>")] == []
    # Nulling leaves nothing dangling; refusing lists exactly what keep reported.
    nulled = extract(src, slot, external="null")
    check(src, slot, nulled, external="null")
    assert len(nulled.report.external) == len(result.report.external)
    if result.report.external:
        with pytest.raises(GraphError, match=f"{len(result.report.external)} reference"):
            extract(src, slot, external="fail")
    else:
        assert extract(src, slot, external="fail").tree.to_bson() == result.tree.to_bson()
    # Deterministic: the same input writes the same bytes (random-looking IDs included).
    assert extract(src, slot_id).tree.to_bson() == result.tree.to_bson()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "slot_id"), every_slot())
def test_every_extraction_validates_clean(name: str, slot_id: str) -> None:
    """No error or warning, except (with ``keep``) one dangling-reference warning for each
    reference the report lists; infos only where the source has them too."""
    validate = pytest.importorskip("brson.ops.validate").validate
    src = source(name)
    slot = src.resolve(slot_id)
    assert isinstance(slot, Slot)
    source_infos = {f.code for f in validate(src) if f.severity == "info"}
    for external in ("keep", "null"):
        result = extract(src, slot, external=external)
        findings = validate(api.dumps(result.tree), name="extracted.brson")
        loud = sorted((f.code, f.path or "") for f in findings if f.severity != "info")
        kept = sorted(("BR402", r.where) for r in result.report.external if r.action == "kept")
        assert loud == kept, external
        assert {f.code for f in findings if f.severity == "info"} <= source_infos


@pytest.mark.parametrize("name", ARCHIVES)
def test_extracting_the_root_reproduces_the_tree(samples_dir: Path, name: str) -> None:
    src = brson.load(samples_dir / name)
    result = extract(src, src.root)
    check(src, src.root, result)
    assert result.report.external == [] and result.report.new_ids == []
    if name == "orange3134_AvatarRootIdentification.brson":
        # Its type table names one type no component uses: the only difference.
        assert result.report.types_dropped == ["[FrooxEngine]FrooxEngine.SlotGizmo"]
        expected = src.decoded()
        gizmo = expected["Types"].index("[FrooxEngine]FrooxEngine.SlotGizmo")
        del expected["Types"][gizmo]
        got = result.tree.decoded()
        assert [k for k in got if k != "Object"] == [k for k in expected if k != "Object"]
        assert {k: v for k, v in got.items() if k != "Object"} == {
            k: v for k, v in expected.items() if k != "Object"
        }
        # The slot tree is the same once type indices are read as names.
        assert named(got["Object"], got["Types"]) == named(src.get("Object"), src.get("Types"))
        assert gizmo < len(got["Types"])  # indices after it were rewritten
    else:
        assert result.tree.to_bson() == src.to_bson()


def test_material_brings_its_texture(samples_dir: Path) -> None:
    src = brson.load(samples_dir / "orange3134_loading_standin.brson")
    result = extract(src, "UserIconMat")
    out = result.tree
    assert [c.source for c in result.report.copied] == [
        "LoadingStandin - Thumbnail v1.3.1/Visual/UserIconTex:StaticTexture2D"
    ]
    copied = result.report.copied[0]
    assert copied.target == f"UserIconMat/{HOLDER_NAME}/UserIconTex:StaticTexture2D"
    assert copied.referenced_by == ["UserIconMat:UnlitMaterial.Texture"]
    material = out.root.components[0]
    texture = material["Texture"].target
    assert isinstance(texture, Component) and texture.slot is not None
    assert texture.slot.path == f"UserIconMat/{HOLDER_NAME}/UserIconTex"
    assert texture["URL"].value.startswith("@packdb:///30a0bc21")
    # Source order kept: the texture's type came first there (index 6, the material's 7).
    assert out.get("Types") == [
        "[FrooxEngine]FrooxEngine.StaticTexture2D",
        "[FrooxEngine]FrooxEngine.UnlitMaterial",
    ]
    assert [c.type_index for c in out.components()] == [1, 0]
    # Fresh IDs continue the file's sequence above every ID-shaped value in the result.
    highest = max(int(i[:8], 16) for i in src.ids.defined)
    numbers = sorted(int(i[:8], 16) for i in result.report.new_ids)
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    assert numbers[0] <= highest + 1  # not above the source's max: only the result's
    assert all(
        i not in src.ids.defined or i not in out.ids.defined or i in result.report.new_ids
        for i in result.report.new_ids
    )
    holder = out.root.children[-1]
    assert holder.name == HOLDER_NAME and holder.active is True
    assert holder.keys() == out.root.keys()  # laid out like an engine slot
    assert holder.order_offset == 0 and type(holder.get("OrderOffset")["Data"]).__name__ == "Int64"


def test_external_references_are_reported_with_paths(samples_dir: Path) -> None:
    src = brson.load(samples_dir / "orange3134_loading_standin.brson")
    selector = "00000186-0000-0000-0000-000000000000"  # the AutoSetScale ProtoFlux group
    result = extract(src, selector)
    refs = [(r.where, r.target_path, r.kind) for r in result.report.external]
    group = "<color=#6700FF>AutoSetScale</color> - (21 Nodes)"
    assert refs == [
        (
            f"{group}/ElementSource`1:GlobalReference.Reference",
            "LoadingStandin - Thumbnail v1.3.1/Visual",
            "slot",
        ),
        (
            f"{group}/ValueFieldDrive`1:Proxy.Drive",
            "LoadingStandin - Thumbnail v1.3.1/Visual.Scale",
            "slot",
        ),
    ]
    nulled = extract(src, selector, external="null").tree
    for where in ("ElementSource`1", "ValueFieldDrive`1"):
        found = nulled.find(f"{group}/{where}")
        assert found is not None
        field = "Reference" if where.startswith("Element") else "Drive"
        assert found.components[-1][field].value is None
    with pytest.raises(GraphError) as info:
        extract(src, selector, external="fail")
    assert "Visual.Scale" in str(info.value) and info.value.path == result.report.slot


def test_without_dependencies_components_are_external(samples_dir: Path) -> None:
    src = brson.load(samples_dir / "orange3134_loading_standin.brson")
    result = extract(src, "UserIconMat", copy_dependencies=False)
    assert result.report.copied == []
    assert [(r.where, r.kind) for r in result.report.external] == [
        ("UserIconMat:UnlitMaterial.Texture", "component")
    ]
    check(src, src.find("UserIconMat"), result)  # type: ignore[arg-type]


def test_neosvr_assets_and_random_ids(samples_dir: Path) -> None:
    src = brson.load(samples_dir / "redx_5ce7cdf5.7zbson")
    result = extract(src, "Holder/World Publisher/Submitter/Submit Button")
    out = result.tree
    kept = {type_name(c) for c in out.assets}
    assert kept == {
        "FrooxEngine.FontChain",
        "FrooxEngine.StaticFont",
        "FrooxEngine.TextUnlitMaterial",
    }
    assert len(out.assets) < len(src.assets)
    assert "Types" not in out
    # The WorldSubmitter the button drives came along; its own _visual slot could not.
    assert [(r.where, r.target_path) for r in result.report.external] == [
        (
            f"Submit Button/{HOLDER_NAME}/World Publisher/Submitter:WorldSubmitter._visual",
            "Holder/World Publisher/Submitter/Visual",
        )
    ]
    assert all(uuid.UUID(i).version == 4 for i in result.report.new_ids)
    assert out.type_versions == {"FrooxEngine.TextRenderer": 5, "FrooxEngine.BoxCollider": 1}
    # Written in the source's own form, it reads back as a NeosVR file.
    data = api.dumps(out, "lzma", legacy=True)
    assert api.loads(data, name="x.7zbson").to_bson() == out.to_bson()


def test_type_indices_are_rewritten(samples_dir: Path) -> None:
    src = brson.load(samples_dir / "orange3134_loading_standin.brson")
    slot = src.find(
        "LoadingStandin - Thumbnail v1.3.1/<color=#6700FF>AutoSetScale</color> - (21 Nodes)"
    )
    assert slot is not None
    out = extract(src, slot).tree
    src_indices = sorted({int(str(c.type_index)) for s in slot.walk() for c in s.components})
    assert src_indices[0] > 0  # the group's types sit after others in the source table
    out_indices = sorted({int(str(c.type_index)) for c in out.components()})
    assert out_indices == list(range(len(out.types)))
    originals = by_id(src)
    for component in out.components():
        assert str(component.type) == str(originals[component.id].type)  # type: ignore[index]


def test_selectors(samples_dir: Path) -> None:
    src = brson.load(samples_dir / "redx_5ce7cdf5.7zbson")
    with pytest.raises(SelectorError) as info:
        extract(src, "Outline")
    message = str(info.value)
    assert "matches 3 slots" in message and "Holder/World Publisher/Submitter/Outline" in message
    with pytest.raises(SelectorError, match=r"no slot matches 'Tabel'.*Table"):
        extract(src, "Tabel")
    by_path = extract(src, "Holder/World Publisher/Submitter/Outline").tree
    by_id = extract(src, "b3b1da82-9351-4dca-8741-b50def2e53b2").tree
    assert by_path.to_bson() == by_id.to_bson()
    other = brson.load(samples_dir / "redx_5ce7cdf5.7zbson")
    with pytest.raises(ModelError, match="another tree"):
        extract(src, other.root)
    with pytest.raises(ValueError, match="external"):
        extract(src, src.root, external="drop")


def test_extract_progress(samples_dir: Path) -> None:
    src = brson.load(samples_dir / "orange3134_loading_standin.brson")
    phases: list[str] = []
    result = extract(src, src.root, progress=phases.append)
    assert phases == list(PHASES)
    assert result.report.slots == 36 and result.report.components == 58
    visual = src.find("Visual")
    assert visual is not None
    assert extract(src, visual).tree.to_bson() == extract(src, "Visual").tree.to_bson()
    assert extract(src, "Visual", external="null").tree.root.name == "Visual"


def test_edited_source_is_extracted_as_edited(samples_dir: Path) -> None:
    src = brson.load(samples_dir / "orange3134_loading_standin.brson")
    visual = src.find("Visual")
    assert visual is not None
    visual.name = "Renamed"
    out = extract(src, visual).tree
    assert out.root.name == "Renamed"
    assert api.loads(api.dumps(out)).root.name == "Renamed"


# -- the holder's byte template against the per-key encoding --------------------------------
def _layout_cases() -> list[Any]:
    made = []
    base = {
        "ID": "a",
        "Name": {"ID": "b", "Data": "x"},
        "Components": {"ID": "c", "Data": []},
        "Children": [],
    }
    made.append(base)
    made.append({**base, "Odd": {"ID": "d", "Data": 1}, "Plain": 7, "Other-ID": "e"})
    # A stand-in's run inside a kept value: the template gives way to the per-key encoding.
    made.append({**base, "Odd": "\x01" * 36, "Also": {"ID": "f", "Data": "\x01" * 40}})
    out = [pytest.param(bson.encode(d), id=f"made{n}") for n, d in enumerate(made)]
    if SAMPLES.is_dir():
        for name in ARCHIVES:
            tree = source(name)
            start, end = tree.root.span
            out.append(pytest.param(bytes(tree.buffer[start:end]), id=name))
    return out


@pytest.mark.parametrize("data", _layout_cases())
@pytest.mark.parametrize("style", ["sequential", "random", "wide"])
def test_slot_template_matches_elements(data: bytes, style: str) -> None:
    import random

    from brson.document import raw
    from brson.model.numbering import FreshIds
    from brson.ops.extractbytes import SlotLayout as _SlotLayout

    layout = _SlotLayout(Slot(data, 0, len(data)))
    component = bson.encode({"Type": 0, "Data": {"ID": "z"}})

    def fresh() -> FreshIds:
        ids = FreshIds((), style != "random", random.Random(5))
        ids.next = 1 << 40 if style == "wide" else 7
        return ids

    a, b = fresh(), fresh()
    for name, comps in [("", []), ("Kid é", [component]), ("x" * 300, [component] * 3)]:
        drawn = a.take(layout.id_count)
        assert layout.slot(name, drawn, list(comps)) == raw.assemble(
            layout.elements(name, b, comps)
        )
    assert a.issued == b.issued


def test_holder_slot_names_written_as_pymongo_writes_them() -> None:
    """The holder's slots write their ``Name`` member directly: byte for byte what pymongo
    writes for every kind of name (non-ASCII, astral, NUL, empty, long), and the same refusal
    for one it cannot encode (a lone surrogate)."""
    rng = random.Random(29)
    names = ["", "Slot", "ü日本", "a\x00b", "x" * 300, "\U0001f600", "tab\t\n"]
    names += [
        "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x2FFFF)])) for _ in range(9))
        for _ in range(500)
    ]
    element_id = "00000017-0000-0000-0000-000000000000"
    for name in names:
        try:
            expected: bytes | None = elements.encode_element(
                "Name", {"ID": element_id, "Data": name}
            )
        except DocumentError:
            expected = None
        if expected is None:
            with pytest.raises(DocumentError):
                name_element(element_id.encode(), name)
        else:
            assert name_element(element_id.encode(), name) == expected, repr(name)


@pytest.mark.parametrize(
    "name",
    ["mar_AimConstraint.pg.brson", "redx_5ce7cdf5.7zbson", "orange3134_loading_standin.brson"],
)
def test_type_plan_scans_pieces_where_they_lie_as_each_alone(name: str) -> None:
    """The type plan scans each of a closure's components where it lies in the source: its
    type indices and names are the ones it has alone (int32 and int64 indices, NeosVR type
    names), whatever bytes lie around it (here: a piece ending in a type's first bytes, one
    whose type element starts right before it, each next to the other)."""
    from brson.model.spans import ComponentSpans

    tree = brson.load(SAMPLES / name)
    spans = ComponentSpans(tree)
    view = memoryview(tree.buffer)
    pieces: list[bytes | memoryview] = [view[slice(*spans.span(n))] for n in range(len(spans))]
    pieces += [b"\x00\x10Type\x00", b"\x01\x00\x00\x00\x03Data\x00\x00", b"\x02Type\x00ab"]
    pieces += [b"\x00\x02", b"Type\x00\x05\x00\x00\x00abcd\x00\x03Data\x00\x00", b"\x10"]
    pieces += [b"Type\x00\x01\x00\x00\x00\x03Data\x00"]
    data = b"".join(pieces)
    places, at = [], 0
    for piece in pieces:
        places.append((at, at + len(piece)))
        at += len(piece)
    indices, names = elements.component_types(data, places)
    alone = [m for piece in pieces for m in elements.COMPONENT_TYPE_INDEX.findall(piece)]
    named = [m for piece in pieces for m in elements.COMPONENT_TYPE_NAME.findall(piece)]
    assert indices == elements.type_index_values(alone)
    assert names == set(named)
    assert len(alone) + len(named) >= len(spans) > 0
    # Scanned whole, the last pieces' neighbours make matches the pieces do not have.
    whole = elements.component_types(data, [(0, len(data))])
    assert whole != (indices, names)
