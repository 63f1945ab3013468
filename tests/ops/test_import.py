"""Importing a subtree from another real archive: IDs stay unique, every reference resolves,
types merge, assets come along, and the target's own content keeps its bytes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import brson
from brson.errors import ModelError
from brson.model.component import Component
from brson.model.numbering import FreshIds, defined_ids, sequential_number
from brson.model.tree import DataTree
from brson.ops.extract import extract
from brson.ops.importing import import_slot
from brson.ops.validate import Severity, validate

AVATAR_ROOT = "orange3134_AvatarRootIdentification.brson"
STANDIN = "orange3134_loading_standin.brson"
REDX = "redx_5ce7cdf5.7zbson"


def reload(tree: DataTree, name: str = "out.brson") -> DataTree:
    return brson.loads(brson.dumps(tree), name=name)


def problems(tree: DataTree) -> list[str]:
    """Validate findings above info level (info: unused type-table entries and the like)."""
    return [
        f"{f.code} {f.path}: {f.message}" for f in validate(tree) if f.severity != Severity.INFO
    ]


def dangling(tree: DataTree) -> list[tuple[str, str]]:
    index = tree.ids
    return [(loc.describe(), v) for loc, v in index.values if v not in index.defined]


def component_types(tree: DataTree) -> list[str]:
    return [str(c.type) for c in tree.components()]


@pytest.mark.slow
@pytest.mark.parametrize("n", range(36))  # every slot of the standin sample
def test_import_every_slot_of_a_sample_into_another(samples_dir: Path, n: int) -> None:
    slot_id = list(brson.load(samples_dir / STANDIN).walk())[n].id
    assert slot_id is not None
    source = brson.load(samples_dir / STANDIN)
    target = brson.load(samples_dir / AVATAR_ROOT)
    original = brson.load(samples_dir / AVATAR_ROOT)
    highest = len(target.ids) - 1
    result = import_slot(target, source, slot_id, target.root.children[0])
    report = result.report
    out = reload(target)

    assert dangling(out) == [] and not out.ids.duplicates
    assert len(out.ids) == len(original.ids) + report.ids
    assert problems(out) == []
    # New IDs continue the target's sequence, in document order of the imported content.
    new_ids = [i for i in defined_ids(out.to_bson()) if i not in original.ids]
    assert sorted(sequential_number(i) or 0 for i in new_ids) == list(
        range(highest + 1, highest + 1 + report.ids)
    )
    # The imported slot is where it was asked for, with its name and its component types
    # (indices rewritten into the target's table: the names are what must survive).
    imported = out.root.children[0].children[-1]
    assert imported.path == report.target
    source_slot = source.resolve(slot_id)
    assert imported.name == source_slot.name  # type: ignore[union-attr]
    extracted = extract(source, slot_id, external="null").tree
    assert component_types(reload(_subtree(out, imported))) == component_types(extracted)
    # The target's own content: every original component keeps its bytes.
    before = {c.id: c.to_bson() for c in original.components()}
    after = {c.id: c.to_bson() for c in out.components() if c.id in before}
    assert after == before
    assert out.types[: len(original.types)] == original.types


def _subtree(tree: DataTree, slot: object) -> DataTree:
    return extract(tree, slot).tree  # type: ignore[arg-type]


def test_import_whole_sample_merges_types_and_versions(samples_dir: Path) -> None:
    source = brson.load(samples_dir / STANDIN)
    target = brson.load(samples_dir / AVATAR_ROOT)
    report = import_slot(target, source, source.root).report
    out = reload(target)
    source_types = {str(t) for t in source.types}
    target_types = {str(t) for t in brson.load(samples_dir / AVATAR_ROOT).types}
    assert sorted(report.types_added) == sorted(source_types - target_types)
    assert {str(t) for t in out.types} == source_types | target_types
    # In the order of the source's type table.
    assert report.type_versions_added == [
        "[FrooxEngine]FrooxEngine.QuadMesh",
        "[ProtoFluxBindings]FrooxEngine.ProtoFlux.Runtimes.Execution.Nodes.ValueDisplay<float3>",
    ]
    assert out.type_versions == source.type_versions
    assert report.feature_flags_missing == ["NetCore", "RESONITE_LINK"]
    assert report.slots == 36 and report.components == 58 and report.ids == 822
    assert dangling(out) == [] and not out.ids.duplicates
    assert problems(out) == []


def test_import_the_other_way(samples_dir: Path) -> None:
    source = brson.load(samples_dir / AVATAR_ROOT)
    target = brson.load(samples_dir / STANDIN)
    report = import_slot(target, source, source.root, index=0).report
    out = reload(target)
    assert out.root.children[0].name == "Avatar Root Identification"
    assert report.feature_flags_missing == []
    assert dangling(out) == [] and not out.ids.duplicates
    assert problems(out) == []


def test_import_is_deterministic(samples_dir: Path) -> None:
    def once() -> bytes:
        target = brson.load(samples_dir / AVATAR_ROOT)
        import_slot(target, brson.load(samples_dir / STANDIN), "Visual")
        return brson.dumps(target)

    assert once() == once()


def test_import_neosvr_takes_its_assets_along(samples_dir: Path) -> None:
    target = brson.load(samples_dir / REDX)
    source = brson.load(samples_dir / REDX)
    button = source.find("Submit Button")
    assert button is not None
    result = import_slot(target, source, button, ids=FreshIds.for_tree(target, random.Random(1)))
    report = result.report
    out = reload(target, "out.7zbson")
    assert report.assets == 7 and len(out.assets) == 27 + 7
    assert dangling(out) == [] and not out.ids.duplicates
    assert problems(out) == []
    # The copies are new elements: their IDs appear nowhere in the source.
    new_ids = set(defined_ids(out.to_bson())) - set(source.ids)
    assert len(new_ids) == report.ids
    assert all(isinstance(c.type_index, str) for c in out.components())


def test_import_from_the_same_tree_duplicates_with_new_ids(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / REDX)
    button = tree.find("Submit Button")
    assert button is not None
    inside = set(defined_ids(button.to_bson()))
    leaving = {
        v
        for loc, v in tree.ids.values
        if loc.slot is not None and loc.slot.path.startswith(button.path) and v not in inside
    }
    assert leaving  # the button names things outside it (the shared texture asset…)
    result = import_slot(tree, tree, button, tree.root)
    report = result.report
    out = reload(tree, "out.7zbson")
    assert report.assets == 0 and report.copied == [] and len(out.assets) == 27
    assert dangling(out) == [] and not out.ids.duplicates
    assert problems(out) == []
    assert not set(defined_ids(result.slot.to_bson())) & inside
    # The copy's references to the rest of the file still name the same elements.
    copy = out.root.children[-1]
    assert copy.path == "Holder/Submit Button"
    copy_values = {
        v
        for loc, v in out.ids.values
        if loc.slot is not None and loc.slot.path.startswith(copy.path)
    }
    assert leaving <= copy_values


def test_mixing_generations_is_refused(samples_dir: Path) -> None:
    legacy = brson.load(samples_dir / REDX)
    modern = brson.load(samples_dir / AVATAR_ROOT)
    before = legacy.to_bson(), modern.to_bson()
    with pytest.raises(ModelError, match="from a Resonite file into a NeosVR"):
        import_slot(legacy, modern, modern.root)
    with pytest.raises(ModelError, match=r"from a NeosVR \(legacy\) file into a Resonite"):
        import_slot(modern, legacy, legacy.root)
    assert (legacy.to_bson(), modern.to_bson()) == before


def test_type_version_conflict_is_refused(samples_dir: Path) -> None:
    target = brson.load(samples_dir / AVATAR_ROOT)
    target.set("TypeVersions", {"[FrooxEngine]FrooxEngine.DynamicValueVariable<bool>": 3})
    before = target.to_bson()
    source = brson.load(samples_dir / STANDIN)
    group = source.root.children[1]  # holds DynamicValueVariable<bool>
    assert any(
        str(c.type) == "[FrooxEngine]FrooxEngine.DynamicValueVariable<bool>"
        for s in group.walk()
        for c in s.components
    )
    with pytest.raises(ModelError, match=r"DynamicValueVariable<bool> \(here 3, imported 0\)"):
        import_slot(target, source, group)
    assert target.to_bson() == before


def test_external_references_fail_on_request(samples_dir: Path) -> None:
    from brson.errors import GraphError

    target = brson.load(samples_dir / AVATAR_ROOT)
    source = brson.load(samples_dir / STANDIN)
    with pytest.raises(GraphError, match="leave the extracted subtree"):
        import_slot(target, source, "ElementSource`1", external="fail")
    with pytest.raises(ValueError, match="external must be one of"):
        import_slot(target, source, "Visual", external="keep")
    result = import_slot(target, source, "ElementSource`1")
    assert [e.action for e in result.report.external] == ["nulled"]
    out = reload(target)
    assert dangling(out) == []
    ref = next(
        c
        for c in out.components()
        if c.id and c.slot is not None and c.slot.name == "ElementSource`1" and "Reference" in c
    )
    assert isinstance(ref, Component) and ref["Reference"].value is None


def third_party(samples: Path, name: str) -> DataTree:
    """A sample rewritten as some generators write: ParentReference = the parent's ID."""
    tree = brson.load(samples / name)
    for slot in tree.walk():
        for kid in slot.children:
            kid.set("ParentReference", slot.id)
    return reload(tree)


def test_third_party_parent_links(samples_dir: Path) -> None:
    from brson.model import edit

    source = third_party(samples_dir, AVATAR_ROOT)
    group = source.root.children[0]
    child = group.children[0]
    edit.add_component(
        child,
        "[FrooxEngine]FrooxEngine.ReferenceField<[FrooxEngine]FrooxEngine.Slot>",
        {"Reference": group},
    )
    source = reload(source)
    child = source.root.children[0].children[0]

    # Into an engine-written file: the link becomes an ID of its own, the reference to the
    # parent (left behind) is nulled.
    target = brson.load(samples_dir / STANDIN)
    result = import_slot(target, source, child)
    assert [e.action for e in result.report.external] == ["nulled"]
    out = reload(target)
    assert problems(out) == [] and dangling(out) == []
    copy = out.root.children[-1]
    assert copy.parent_reference not in (None, out.root.id)

    # A duplicate in the same file: the link names the new parent, the reference still names
    # the original parent slot.
    result = import_slot(source, source, child, source.root)
    out = reload(source)
    copy = out.root.children[-1]
    assert copy.parent_reference == out.root.id
    field = next(c for c in copy.components if c.type.name == "ReferenceField")
    assert field["Reference"].value == group.id
    assert dangling(out) == [] and not out.ids.duplicates
