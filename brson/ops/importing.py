"""Import a subtree from another archive: the way tools build worlds and avatars from parts.

The subtree is taken with :func:`brson.ops.extract.extract` (self-contained, references that
cannot follow nulled: an ID from another file names nothing here, or something else), then
renumbered in the target's style, its type indices mapped into the target's ``Types``.
Mixing generations and a type both files use at different ``TypeVersions`` are refused before
anything changes.  docs/editing.md ("Import") states the rules and why.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from brson.errors import ModelError
from brson.model import Component, DataTree, Slot
from brson.model.edit import insert_position, parent_links, tree_of
from brson.model.numbering import FreshIds, defined_ids, rewrite
from brson.ops.extract import CopiedComponent, ExternalReference, extract

IMPORT_EXTERNAL: tuple[str, ...] = ("null", "fail")


@dataclass
class ImportReport:
    source: str
    #: Path of the imported slot in the target.
    target: str
    slots: int = 0
    components: int = 0
    #: IDs given fresh values.
    ids: int = 0
    types_added: list[str] = field(default_factory=list)
    type_versions_added: list[str] = field(default_factory=list)
    assets: int = 0
    copied: list[CopiedComponent] = field(default_factory=list)
    #: References that could not come along, nulled (paths in the source).
    external: list[ExternalReference] = field(default_factory=list)
    #: Feature flags of the target that the source file lacks.
    feature_flags_missing: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        # Copies and references describe themselves (worked out on first use).
        lazy = ("copied", "external")
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in lazy}
        out = asdict(type(self)(**out, copied=[], external=[]))  # the same key order
        out["copied"] = [c.to_dict() for c in self.copied]
        out["external"] = [e.to_dict() for e in self.external]
        return out


@dataclass
class ImportResult:
    slot: Slot
    report: ImportReport


def import_slot(
    tree: DataTree,
    source: DataTree,
    slot: Slot | str,
    parent: Slot | None = None,
    *,
    index: int | None = None,
    external: str = "null",
    ids: FreshIds | None = None,
) -> ImportResult:
    """Copy ``slot`` (a Slot of ``source`` or a selector) under ``parent`` (default: the
    root) of ``tree``, before its ``index``-th child (default: last).  ``external``: ``null``
    references that leave the subtree, or ``fail`` (GraphError) when there are any.
    ``source`` may be ``tree`` itself: a duplicate with new IDs whose references to the
    rest of the file are kept (nothing is copied along)."""
    if external not in IMPORT_EXTERNAL:
        raise ValueError(f"external must be one of {', '.join(IMPORT_EXTERNAL)}")
    parent = parent if parent is not None else tree.root
    if tree_of(parent) is not tree:
        raise ModelError("the parent slot belongs to another tree")
    if source.legacy != tree.legacy:
        kinds = ("NeosVR (legacy)", "Resonite")
        raise ModelError(
            f"cannot import from a {kinds[not source.legacy]} file into a "
            f"{kinds[not tree.legacy]} one: component data and type names differ between "
            "the generations (convert the file in the engine first)",
            path=parent.path,
        )

    if source is tree:  # a duplicate: references to the rest of the file stay valid
        extracted = extract(source, slot, "keep", copy_dependencies=False)
    else:
        extracted = extract(source, slot, external)
    staged = extracted.tree
    report = ImportReport(
        extracted.report.slot,
        "",
        copied=extracted.report.copied,
        external=extracted.report.external,
    )
    new_versions = _check_versions(tree, staged, extracted.report.slot)

    # Fresh IDs for every definition, in document order; references follow.
    fresh = ids if ids is not None else FreshIds.for_tree(tree)
    data = staged.to_bson()
    mapping = {old: fresh() for old in dict.fromkeys(defined_ids(data))}
    staged = DataTree(rewrite(data, mapping))
    report.ids = len(mapping)

    components = [c for s in staged.walk() for c in s.components] + staged.assets
    report.slots = sum(1 for _ in staged.walk())
    report.components = len(components)
    if not tree.legacy:
        before = len(tree.types)
        remap: dict[str, int] = {}
        for component in components:
            old = component.type_index
            name = str(component.type)  # ModelError for an index out of range or no type
            new = remap.get(name)
            if new is None:
                new = remap[name] = tree.type_index(name)
            if type(old) is not int:
                component.set("Type", new)  # a name (or worse) where this file keeps indices
            elif new != old:
                component.set_type_index(new)
        report.types_added = [str(t) for t in tree.types[before:]]
    if new_versions:
        versions = tree.get("TypeVersions")
        merged = dict(versions) if isinstance(versions, dict) else {}
        merged.update(new_versions)
        tree.set("TypeVersions", merged)
        report.type_versions_added = list(new_versions)
    flags = source.feature_flags
    report.feature_flags_missing = [f for f in tree.feature_flags if f not in flags]

    assets = staged.assets
    if assets:
        kept = list(tree.child_nodes("Assets", Component) or [])
        tree.set("Assets", kept + [_detached(c) for c in assets])
        report.assets = len(assets)

    root_bytes = staged.root.to_bson()
    grafted = Slot(root_bytes, 0, len(root_bytes))
    if parent_links(parent):
        # The link replaces the root's own ParentReference: that fresh ID is not in the file.
        if grafted.parent_reference in mapping.values():
            report.ids -= 1
        grafted.set("ParentReference", parent.id)
    items = list(parent.children_list())
    items.insert(insert_position(items, index, Slot), grafted)
    parent.set("Children", items)
    parent.children_list()
    report.target = grafted.path
    return ImportResult(grafted, report)


def _detached(component: Component) -> Component:
    data = component.to_bson()
    return Component(data, 0, len(data))


def _check_versions(tree: DataTree, staged: DataTree, where: str) -> dict[str, Any]:
    """TypeVersions entries to add for the subtree's types; a conflict is refused."""
    used = _type_names(staged)
    present = _type_names(tree)
    theirs, ours = staged.type_versions, tree.type_versions
    added: dict[str, Any] = {}
    conflicts = []
    for name in used:
        version = theirs.get(name, 0)
        if name in present or name in ours:
            if int(ours.get(name, 0)) != int(version):
                conflicts.append(f"{name} (here {ours.get(name, 0)}, imported {version})")
        elif name in theirs:
            added[name] = theirs[name]
    if conflicts:
        raise ModelError(
            "the two files store these types at different versions: " + "; ".join(conflicts),
            path=where,
        )
    return added


def _type_names(tree: DataTree) -> dict[str, None]:
    """The types a tree uses, in table (or first use) order: reports stay deterministic."""
    if not tree.legacy:
        return dict.fromkeys(str(t) for t in tree.types)
    return dict.fromkeys(t for c in tree.components() if isinstance(t := c.type_index, str))


__all__ = ["IMPORT_EXTERNAL", "ImportReport", "ImportResult", "import_slot"]
