"""The reference graph against references found independently in the decoded document, on
the samples, on documents edited to hold odd cases, and on synthetic worlds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bson
import pytest

# The samples and their independent decoding are shared with the model tests (pytest puts
# tests/ on sys.path, since tests/ itself is not a package).
from model.support import (
    LEGACY,
    STANDIN,
    archive_files,
    ids_of,
    is_guid,
    raw_document,
    raw_slots,
    sample,
    sample_files,
)

import brson
from brson.errors import PATH_LIMIT
from brson.graph import ReferenceGraph
from brson.graph.refs import BATCH_AFTER, KINDS, ReferenceListing
from brson.model import Component, DataTree, IdRef, Member, Slot
from brson.model.ids.locate import described, locate_many
from brson.model.ids.scan import definition_offsets, scan_references

from . import synth

SAMPLES = sample_files()
ARCHIVES = archive_files()


@dataclass
class RawRef:
    value: str
    key: str | int
    member_id: str | None
    describe: str


def _short(type_text: str) -> str:
    """MeshRenderer from ``[FrooxEngine]FrooxEngine.MeshRenderer``; Proxy from ``A<B>+Proxy``."""
    text = re.sub(r"^\[[^\]]*\]", "", type_text)
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"<[^<>]*>", "", text)
        text = re.sub(r"\[\[[^\[\]]*(\],\[[^\[\]]*)*\]\]", "", text)
    return text.rpartition("+")[2].rpartition(".")[2]


def raw_definitions(doc: dict[str, Any]) -> dict[str, str]:
    """Every ID defined in the document and what defines it: slot, component, member (any
    other document with an ``ID``: fields, list elements) or id (an ``…-ID`` key, or an
    engine-style ``ParentReference``)."""
    out: dict[str, str] = {}
    slots = {s["ID"] for s, _ in raw_slots(doc)}
    components = {c["Data"]["ID"] for s, _ in raw_slots(doc) for c in s["Components"]["Data"]}
    components |= {c["Data"]["ID"] for c in doc.get("Assets", [])}

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if is_guid(item) and key == "ID":
                    out.setdefault(
                        item,
                        "slot"
                        if item in slots
                        else "component"
                        if item in components
                        else "member",
                    )
                elif is_guid(item) and key.endswith("-ID"):
                    out.setdefault(item, "id")
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    visit(doc["Object"])
    visit(doc.get("Assets", []))
    for slot, _ in raw_slots(doc):  # ParentReference defines an ID unless it names another
        link = slot.get("ParentReference")
        if isinstance(link, str) and is_guid(link) and link not in out:
            out[link] = "id"
    return out


def raw_references(doc: dict[str, Any]) -> list[RawRef]:
    """Every ID-shaped value that does not define an ID, in document order, with the member
    that holds it and the human location the graph should print."""
    defined_keys = {"ID"}
    links = {s["ID"] for s, _ in raw_slots(doc)}  # a ParentReference naming a slot is a reference
    types = doc.get("Types", [])
    refs: list[RawRef] = []

    def visit(value: Any, key: str | int, member: str | None, where: str, path: str) -> None:
        if isinstance(value, str):
            if not is_guid(value):
                return
            if isinstance(key, str) and (key in defined_keys or key.endswith("-ID")):
                return
            if key == "ParentReference" and value not in links:
                return
            refs.append(RawRef(value, key, member, where + path))
        elif isinstance(value, dict):
            inner = value.get("ID") if "Data" in value else None
            if inner is not None:
                member, path = inner, path
            for k, item in value.items():
                step = "" if k == "Data" else f".{k}"
                visit(item, k, member, where, path + step)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                visit(item, i, member, where, f"{path}[{i}]")

    def visit_component(component: dict[str, Any], where: str) -> None:
        type_value = component["Type"]
        name = _short(types[type_value] if isinstance(type_value, int) else type_value)
        for k, item in component["Data"].items():
            if isinstance(item, dict):
                visit(item, k, None, f"{where}:{name}", f".{k}")
            else:
                visit(item, k, None, f"{where}:{name}", f".{k}")

    def visit_slot(slot: dict[str, Any], path: str) -> None:
        for key, item in slot.items():
            if key == "Children":
                for child in item:
                    visit_slot(child, f"{path}/{child['Name']['Data']}")
            elif key == "Components":
                for component in item["Data"]:
                    visit_component(component, path)
            else:
                visit(item, key, None, path, "" if key == "ID" else f".{key}")

    for key, item in doc.items():
        if key == "Object":
            visit_slot(item, item["Name"]["Data"])
        elif key == "Assets":
            for component in item:
                visit_component(component, "<Assets>")
    return refs


@pytest.fixture(params=SAMPLES, ids=ids_of(SAMPLES))
def path(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


def _same(a: object, b: object) -> bool:
    """Identity, except that ID keys (IdRef) are fresh handles onto the same key."""
    if isinstance(a, IdRef) and isinstance(b, IdRef):
        return a.owner is b.owner and a.key == b.key
    return a is b


def _check_graph(tree: DataTree, doc: dict[str, Any]) -> ReferenceGraph:
    graph = ReferenceGraph.build(tree)
    expected = raw_references(doc)
    defined = raw_definitions(doc)
    assert len(tree.ids.defined) == len(defined)
    assert set(tree.ids.defined) == set(defined)
    assert [r.target_id for r in graph] == [r.value for r in expected]
    assert [r.internal for r in graph] == [r.value in defined for r in expected]
    assert [r.key for r in graph] == [r.key for r in expected]
    assert [r.member_id for r in graph] == [r.member_id for r in expected]
    assert [r.describe() for r in graph] == [r.describe for r in expected]
    assert [KINDS[type(r.target)] for r in graph.internal] == [
        defined[r.value] for r in expected if r.value in defined
    ]
    for ref in graph:
        target = ref.target
        if ref.internal:
            assert target is not None and _same(target, tree.resolve(ref.target_id))
            assert target.id == ref.target_id
        else:
            assert target is None and ref.target_location is None
    counts = graph.counts()
    assert counts["references"] == len(expected)
    assert counts["internal"] + counts["external"] == len(expected)
    assert counts["external_ids"] == len({r.value for r in expected} - set(defined))
    _check_listing(tree, graph)
    return graph


def _check_listing(tree: DataTree, graph: ReferenceGraph) -> None:
    """``brson refs``'s listing (its own scan and walk on an unmodified tree) says what the
    graph says, line for line and count for count."""
    listing = ReferenceListing(tree)
    assert len(listing) == len(graph)
    rows = listing.rows()
    expected = []
    for ref in graph:
        target = ref.target_location
        expected.append((ref.describe(), ref.target_id, target.describe() if target else None))
    assert rows == expected
    assert listing.counts() == graph.counts()
    # --json: the records the graph gives, from the scan and one walk
    listing = ReferenceListing(tree)
    assert listing.entries() == [ref.to_dict() for ref in graph]
    assert listing.counts() == graph.counts()
    assert listing.external_ids() == graph.external_ids


def test_parent_links_are_references_of_the_scan() -> None:
    """A ParentReference holding the parent's ID (third-party files: the AimConstraint
    sample) is a reference, as the ID index reads it: the scan lists it and needs no index,
    and the listing says what the graph says."""
    tree = brson.load(sample("mar_AimConstraint.pg.brson"))
    scan = scan_references(tree)
    assert scan is not None
    buf = tree.buffer
    links = [at for at, _ in scan.references if buf.startswith(b"\x02ParentReference\x00", at)]
    assert len(links) == 43
    graph = ReferenceGraph.build(tree)
    assert [value for _, value in scan.references] == [ref.target_id for ref in graph]
    assert scan.defined == len(graph.ids.defined)
    _check_listing(tree, graph)


def test_samples_match_independent_references(path: Path) -> None:
    doc = raw_document(path)
    tree = brson.load(path)
    graph = _check_graph(tree, doc)
    assert len(graph) > 20
    assert not graph.external  # the engine nulls references leaving an export
    assert not tree.modified


def test_sample_reference_figures() -> None:
    """The figures docs/data-tree.md quotes."""
    figures = {}
    for name in ("orange3134_AvatarRootIdentification.brson", STANDIN, LEGACY):
        tree = brson.load(sample(name))
        graph = ReferenceGraph.build(tree)
        kinds: dict[str, int] = {}
        for ref in graph:
            kind = type(ref.target).__name__
            kinds[kind] = kinds.get(kind, 0) + 1
        figures[name] = (graph.counts()["ids"], len(graph), len(graph.referenced_ids), kinds)
    assert figures == {
        "orange3134_AvatarRootIdentification.brson": (
            324,
            23,
            16,
            {"Member": 7, "Slot": 1, "Component": 15},
        ),
        STANDIN: (822, 53, 47, {"Member": 12, "Component": 39, "IdRef": 1, "Slot": 1}),
        LEGACY: (1362, 67, 51, {"Slot": 2, "Component": 57, "Member": 8}),
    }


def test_standin_chain_through_the_graph() -> None:
    tree = brson.load(sample(STANDIN))
    graph = ReferenceGraph.build(tree)
    renderer = tree.root.find_component("MeshRenderer") or next(
        c for c in tree.components() if c.type.name == "MeshRenderer"
    )
    outgoing = {r.describe().rpartition(":")[2]: r for r in graph.references_from(renderer)}
    assert set(outgoing) == {"MeshRenderer.Mesh", "MeshRenderer.Materials[0]"}
    quad = outgoing["MeshRenderer.Mesh"].target
    material = outgoing["MeshRenderer.Materials[0]"].target
    assert isinstance(quad, Component) and quad.type.name == "QuadMesh"
    assert isinstance(material, Component) and material.type.name == "UnlitMaterial"
    assert outgoing["MeshRenderer.Mesh"].source == renderer["Mesh"]
    assert outgoing["MeshRenderer.Materials[0]"].source == (renderer["Materials"].elements or [])[0]
    assert [r.source for r in graph.references_to(quad)] == [renderer["Mesh"]]
    texture = graph.references_from(material["Texture"])[0].target
    assert isinstance(texture, Component) and texture.type.name == "StaticTexture2D"
    assert graph.referenced(texture) and not graph.referenced(renderer)


def test_bulk_location_equals_one_by_one(path: Path) -> None:
    tree = brson.load(path)
    one_by_one = [(loc.anchor, loc.path) for loc, _ in tree.ids.values]
    graph = ReferenceGraph.build(tree)
    bulk = [(r.location.anchor, r.location.path) for r in graph]
    assert len(bulk) == len(one_by_one)
    for (a1, p1), (a2, p2) in zip(bulk, one_by_one, strict=True):
        assert a1 is a2 and p1 == p2
    definitions = [tree.ids.where(i) for i in tree.ids]
    offsets = [d.offset for d in definitions if d is not None and d.offset]
    found = locate_many(tree, offsets)
    described = _descriptions(tree, offsets + [loc.offset or -1 for loc, _ in tree.ids.values])
    for location in definitions:
        assert location is not None
        mine = found[location.offset]  # type: ignore[index]
        assert mine.anchor is location.anchor and mine.path == location.path
        assert described[location.offset] == location.describe()  # type: ignore[index]
    for location, _ in tree.ids.values:
        assert described[location.offset] == location.describe()  # type: ignore[index]


def test_both_directions_agree(path: Path) -> None:
    tree = brson.load(path)
    graph = ReferenceGraph.build(tree)
    for ref in graph:
        assert ref in graph.references_to(ref.target_id)
        source = ref.source
        assert source is not None and ref in graph.references_from(source)
        slot = ref.slot
        if slot is not None:
            assert ref in graph.references_from(slot)
            node: Slot | None = slot
            while node is not None:
                assert ref in graph.references_from(node, deep=True)
                if node is not slot:
                    assert ref not in graph.references_from(node)
                node = node.parent
    assert graph.references_from(tree) == graph.references
    total = sum(len(graph.references_from(s)) for s in tree.walk())
    total += sum(len(graph.references_from(c)) for c in tree.assets)
    assert total == len(graph)
    assert sum(len(graph.references_to(i)) for i in graph.referenced_ids) == len(graph.internal)


@pytest.mark.slow
def test_edited_tree_graph_equals_untouched(path: Path) -> None:
    """From nodes (after an edit) the graph finds the same references and answers alike."""
    clean = ReferenceGraph.build(brson.load(path))
    tree = brson.load(path)
    tree.set("Unrelated", 1)
    edited = ReferenceGraph.build(tree)
    _check_listing(tree, edited)
    key = lambda r: (r.describe(), r.target_id, r.member_id, r.internal)  # noqa: E731
    assert sorted(map(key, edited)) == sorted(map(key, clean))
    for slot in tree.walk():
        for deep in (False, True):
            assert sorted(map(key, edited.references_from(slot, deep=deep))) == sorted(
                map(
                    key,
                    clean.references_from(
                        clean.tree.find(str(slot.id)) or clean.tree.root, deep=deep
                    ),
                )
            )


def test_external_references_are_listed_and_kept() -> None:
    doc = raw_document(sample(STANDIN))
    renderer = next(
        c for s, _ in raw_slots(doc) for c in s["Components"]["Data"] if "Materials" in c["Data"]
    )
    outside = "0badc0de-1111-2222-3333-444455556666"
    renderer["Data"]["Mesh"]["Data"] = outside
    renderer["Data"]["Materials"]["Data"].append(
        {"ID": "abcdef01-0000-0000-0000-000000000001", "Data": outside}
    )
    tree = brson.loads(bson.encode(doc), name="x.bson")
    graph = _check_graph(tree, doc)
    assert [r.describe().rpartition(":")[2] for r in graph.external] == [
        "MeshRenderer.Mesh",
        "MeshRenderer.Materials[1]",
    ]
    assert graph.external_ids == [outside]
    assert graph.references_to(outside) == graph.external
    ref = graph.external[1]
    assert ref.to_dict() == {
        "from": ref.describe(),
        "source_kind": "member",
        "member_id": "abcdef01-0000-0000-0000-000000000001",
        "target_id": outside,
        "kind": "external",
        "target": None,
        "target_kind": None,
    }
    assert tree.to_bson() == bson.encode(doc)


def test_parent_id_style_links_are_references_to_the_parent() -> None:
    doc = raw_document(sample(STANDIN))
    for slot, parent in raw_slots(doc):
        slot["ParentReference"] = parent["ID"] if parent else None
    tree = brson.loads(bson.encode(doc), name="x.bson")
    graph = _check_graph(tree, doc)
    links = [r for r in graph if r.key == "ParentReference"]
    assert len(links) == len(list(tree.walk())) - 1
    for ref in links:
        assert isinstance(ref.source, Slot) and ref.member_id is None
        assert ref.target is ref.source.parent
        assert ref.to_dict()["source_kind"] == "slot" and ref.to_dict()["target_kind"] == "slot"


def test_references_leaving_a_subtree() -> None:
    doc = raw_document(sample(STANDIN))
    tree = brson.load(sample(STANDIN))
    graph = ReferenceGraph.build(tree)
    for slot, raw in zip(tree.walk(), (r for r, _ in raw_slots(doc)), strict=True):
        inside = raw_definitions({"Object": raw})
        subtree = graph.references_from(slot, deep=True)
        expected = [r for r in subtree if r.internal and r.target_id not in inside]
        assert graph.references_leaving(slot) == expected
    assert not graph.references_leaving(tree.root)  # nothing leaves the whole export
    leaving = [r for s in tree.walk() for r in graph.references_leaving(s)]
    assert len(leaving) > 10 and all(r.target is not None for r in leaving)


def test_target_kinds_include_ids_of_keys() -> None:
    tree = brson.load(sample(STANDIN))
    graph = ReferenceGraph.build(tree)
    to_key = [r for r in graph if isinstance(r.target, IdRef)]
    assert [r.target.key for r in to_key] == ["IconURL-ID"]  # type: ignore[union-attr]
    assert _same(graph.element(to_key[0].target_id), to_key[0].target)
    assert graph.element("00000000-0000-0000-0000-00000000beef") is None
    assert graph.where("00000000-0000-0000-0000-00000000beef") is None


def test_graph_is_a_snapshot() -> None:
    tree = brson.load(sample(STANDIN))
    graph = ReferenceGraph.build(tree)
    assert not graph.stale
    first = graph.references[0]
    source = first.source
    assert isinstance(source, Member)
    source.value = None
    assert graph.stale
    fresh = ReferenceGraph.build(tree)
    assert len(fresh) == len(graph) - 1 and not fresh.stale


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_synthetic_worlds(seed: int) -> None:
    doc = synth.world(300, seed=seed, fanout=3 + seed, external=10)
    data = bson.encode(doc)
    tree = brson.loads(data, name="world.bson")
    graph = _check_graph(tree, doc)
    assert len(graph) > 400 and graph.external and len(graph.internal) > 300
    assert {type(r.target) for r in graph.internal} == {Slot, Component, Member}
    assert any(r.key == "Target" for r in graph)  # document-valued members
    graph.locate_all()
    assert not tree.modified and tree.to_bson() == data
    for ref in graph.internal:
        assert ref.target_location is not None
        assert ref.target_location.describe() != "<unknown>"


def test_few_lookups_one_by_one_many_in_one_pass() -> None:
    """A few questions are answered singly; past BATCH_AFTER everything is located at once,
    with the same answers."""
    doc = synth.world(200, seed=4)
    tree = brson.loads(bson.encode(doc), name="world.bson")
    graph = ReferenceGraph.build(tree)
    singles = [
        (r.describe(), _same(r.target, tree.resolve(r.target_id)))
        for r in graph.references[:BATCH_AFTER]
    ]
    assert not graph._sources_located and not graph._targets_located
    assert all(same for _, same in singles)
    everything = [(r.describe(), r.target) for r in graph]
    assert graph._sources_located and graph._targets_located
    assert [d for d, _ in everything[:BATCH_AFTER]] == [d for d, _ in singles]
    assert all(
        _same(t, tree.resolve(r.target_id)) for r, (_, t) in zip(graph, everything, strict=True)
    )


def test_listing_falls_back_where_a_value_does_not_resolve() -> None:
    """A string holding the bytes of an ID element is matched by the byte scan but is no
    element: the listing then says what the graph says (``<unknown>``)."""
    doc = raw_document(sample(STANDIN))
    guid = "00000008-0000-0000-0000-000000000000"
    doc["Object"]["Name"]["Data"] = f"x\x02Odd\x00\x25\x00\x00\x00{guid}\x00y"
    tree = brson.loads(bson.encode(doc), name="x.bson")
    graph = ReferenceGraph.build(tree)
    assert any(r.describe() == "<unknown>" for r in graph)
    _check_listing(tree, graph)


def _descriptions(tree: DataTree, offsets: list[int]) -> dict[int, str]:
    from brson.model.spans import ComponentSpans

    return {o: text for o, text, _ in described(ComponentSpans(tree), offsets)}


@pytest.mark.parametrize("fanout", [2, 40])
def test_described_walk_equals_located_on_wide_slots(fanout: int) -> None:
    """The descriptions by the spans (bisected, no walk) are the locating walk's (the slots'
    own children): same answers for any offsets, element starts or not (a length prefix,
    the bytes between children), in any subset."""
    # 50 slots: a slot of 40 children at the wide end (200 reached no line more)
    data = bson.encode(synth.world(50, seed=fanout, fanout=fanout, external=5))
    tree = brson.loads(data, name="world.bson")
    starts = [loc.offset or -1 for loc, _ in tree.ids.values]
    for offsets in (starts, starts[::5], list(range(0, len(data), 3)), [len(data) + 9, -4]):
        fresh = brson.loads(data, name="world.bson")
        expected = {o: loc.describe() for o, loc in locate_many(fresh, offsets).items()}
        assert _descriptions(tree, offsets) == expected


def test_spans_slot_names_and_paths_are_the_model_s(path: Path) -> None:
    """ComponentSpans reads names from the bytes: the same text as ``Slot.name`` / ``path``."""
    from brson.model.spans import ComponentSpans

    tree = brson.load(path)
    spans = ComponentSpans(tree)
    by_start = {slot.span[0]: slot for slot in tree.walk()}
    numbers = range(len(spans._slot_starts))
    names = ComponentSpans(tree).slot_names(list(numbers)[::-1])[::-1]
    for number in numbers:
        slot = by_start[spans.slot_start(number)]
        name = slot.name
        assert spans.slot_name(number) == names[number] == (name if isinstance(name, str) else "")
        assert spans.slot_path(number) == slot.path


def _described_by_locating(data: bytes, offsets: list[int]) -> dict[int, tuple[str, bool]]:
    """What ``described`` must answer: each located offset's description and whether a
    component anchors it, by the model's nodes."""
    fresh = brson.loads(data, name="x.bson")
    return {
        o: (loc.describe(), isinstance(loc.anchor, Component))
        for o, loc in locate_many(fresh, offsets).items()
    }


def _described_by_spans(data: bytes, offsets: list[int]) -> dict[int, tuple[str, bool]]:
    from brson.model.spans import ComponentSpans

    spans = ComponentSpans(brson.loads(data, name="x.bson"))
    return {o: (text, held) for o, text, held in described(spans, offsets)}


@pytest.mark.slow
@pytest.mark.parametrize("fanout", [2, 40])
def test_described_by_spans_equals_located(fanout: int) -> None:
    """``described`` finds each offset's component or innermost slot by bisection over the
    spans, without a walk: the same answers as locating, for any offsets (element starts or
    not: length prefixes, the bytes between children, past the end)."""
    # 50 slots: a slot of 40 children at the wide end (200 reached no line more)
    data = bson.encode(synth.world(50, seed=fanout, fanout=fanout, external=5))
    tree = brson.loads(data, name="world.bson")
    starts = [loc.offset or -1 for loc, _ in tree.ids.values]
    defined = list(definition_offsets(tree).values())
    for offsets in (
        starts,
        defined,
        starts[::5],
        list(range(0, len(data), 3)),
        [len(data) + 9, -4],
    ):
        assert _described_by_spans(data, offsets) == _described_by_locating(data, offsets)


def test_described_by_spans_on_samples(path: Path) -> None:
    data = brson.load(path).to_bson()
    tree = brson.loads(data, name="x.bson")
    offsets = [loc.offset or -1 for loc, _ in tree.ids.values]
    offsets += list(definition_offsets(tree).values())
    offsets += list(range(0, len(data), 7))
    assert _described_by_spans(data, offsets) == _described_by_locating(data, offsets)


def test_described_by_spans_on_long_paths() -> None:
    """Past the model's display limit a slot's path is cut (``…/`` and its tail): the spans'
    text is the model's there too, on either side of the limit."""
    doc = synth.world(60, seed=3, fanout=1, external=5)
    pending = [doc["Object"]]
    while pending:
        slot = pending.pop()
        slot["Name"]["Data"] = f"{len(pending):03d}" + "n" * (100 + len(pending) * 37 % 200)
        pending += slot["Children"]
    data = bson.encode(doc)
    tree = brson.loads(data, name="x.bson")
    lengths = [len(s.path) for s in tree.walk()]
    assert min(lengths) < PATH_LIMIT < max(lengths)
    offsets = [loc.offset or -1 for loc, _ in tree.ids.values]
    offsets += list(definition_offsets(tree).values())
    assert _described_by_spans(data, offsets) == _described_by_locating(data, offsets)
