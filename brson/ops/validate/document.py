"""BR2xx: the document's shape: root keys, slots, components and members.

Also the structural helpers the walk uses to find a slot's children and components, since
finding them is where a malformed ``Children`` or ``Components`` shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from brson.model.component import Component
from brson.model.slot import SLOT_MEMBERS, Slot
from brson.model.typename import is_type_name
from brson.ops.validate.context import (
    ComponentInfo,
    Context,
    Family,
    SlotInfo,
    is_int,
    kind_of,
)
from brson.ops.validate.findings import ERROR, INFO, WARNING, Rule, rule

NO_OBJECT = rule(
    "BR201",
    ERROR,
    "no root slot",
    "The root document has no `Object` document, the slot tree every archive holds.",
    "format notes §3; the engine reads `Object` unconditionally",
)
ROOT_KEY_TYPE = rule(
    "BR202",
    ERROR,
    "root key of the wrong type",
    "`VersionNumber` must be a string, `FeatureFlags` and `TypeVersions` documents of "
    "integers, `Types` an array of strings, `Assets` an array of component documents.",
    "format notes §3; every real sample",
)
UNKNOWN_ROOT_KEY = rule(
    "BR203",
    INFO,
    "unknown root key",
    "A root key neither generation writes; brson keeps it, the engine ignores it.",
    "format notes §3 (the six known keys)",
)
NO_VERSION = rule(
    "BR204",
    WARNING,
    "no VersionNumber in a Resonite file",
    "A file with a `Types` table is Resonite generation, which always records the engine "
    "version; without it the engine treats the data as old and may run migrations on it.",
    "both Resonite samples carry it",
)
SLOT_SHAPE = rule(
    "BR205",
    ERROR,
    "slot malformed",
    "A slot needs an `ID`, a `Name` member and a `Components` member holding an "
    "array of components; `Children`, when present, is an array of slot documents.",
    "format notes §3 (Slot); `brson.model.documents.SlotDoc`",
)
COMPONENT_SHAPE = rule(
    "BR206",
    ERROR,
    "component malformed",
    "A component is a document with `Type` and a `Data` document that holds its `ID`.",
    "format notes §3 (Component); `brson.model.documents.ComponentDoc`",
)
NOT_MEMBER = rule(
    "BR207",
    WARNING,
    "field is not a member",
    "Slot fields and component fields are members `{ID, Data}` (keys ending in `-ID` "
    "excepted); anything else is not something the engine wrote and may not load.",
    "format notes §3 (Member); every field of every real sample",
)
MEMBER_VALUE = rule(
    "BR208",
    ERROR,
    "slot field of the wrong type",
    "`Name` and `Tag` hold a string or null, `Active` a bool, `OrderOffset` an integer: the "
    "engine cannot read the slot otherwise.",
    "format notes §3; every real sample",
)
NOT_MODELLED = rule(
    "BR209",
    ERROR,
    "tree cannot be modelled",
    "The document is BSON but its shape stops the tree from being read at all; the "
    "message says what the model layer refused.",
    "`brson.errors.ModelError`",
    unreadable=True,
)

#: Root keys and the BSON shape each must have.
ROOT_KEYS = ("VersionNumber", "FeatureFlags", "Types", "TypeVersions", "Object", "Assets")


def _int_map(value: object) -> bool:
    return isinstance(value, dict) and all(is_int(v) for v in value.values())


def _str_list(value: object) -> bool:
    return isinstance(value, list) and all(is_type_name(v) for v in value)


def _is_str(value: object) -> bool:
    return isinstance(value, str)


_ROOT_SHAPES: dict[str, tuple[str, Callable[[object], bool]]] = {
    "VersionNumber": ("a string", _is_str),
    "FeatureFlags": ("a document of integers", _int_map),
    "TypeVersions": ("a document of integers", _int_map),
    "Types": ("an array of type-name strings", _str_list),
}


_Node = TypeVar("_Node", Slot, Component)


def _counted(
    ctx: Context, slot: Slot, items: list[Any], nodes: list[_Node], odd: Rule, what: str
) -> list[_Node]:
    """``nodes``, the ones ``items`` (an array's entries) made; the entries that made none
    reported as ``odd``, ``what`` they are."""
    if len(nodes) != len(items):
        ctx.add(odd, f"{len(items) - len(nodes)} entries of {what}", path=slot.path)
    return nodes


def children_of(ctx: Context, slot: Slot) -> list[Slot]:
    """The slot's children, reporting a malformed ``Children``."""
    if "Children" not in slot:
        return []
    items = slot.child_nodes("Children", Slot)
    if items is None:
        ctx.add(SLOT_SHAPE, "Children is not an array", path=slot.path)
        return []
    return _counted(ctx, slot, items, slot.children, SLOT_SHAPE, "Children are not slot documents")


def components_of(ctx: Context, slot: Slot) -> list[Component]:
    """The slot's components, reporting a malformed ``Components``."""
    if "Components" not in slot:
        ctx.add(SLOT_SHAPE, "slot has no Components", path=slot.path)
        return []
    member = slot.member("Components")
    if member is None or "ID" not in member:
        ctx.add(SLOT_SHAPE, "Components is not a member document {ID, Data}", path=slot.path)
        return []
    items = member.child_nodes("Data", Component)
    if items is None:
        ctx.add(SLOT_SHAPE, "Components.Data is not an array", path=slot.path)
        return []
    return _counted(
        ctx, slot, items, slot.components, COMPONENT_SHAPE, "Components are not documents"
    )


def assets_of(ctx: Context) -> list[Component]:
    """The root ``Assets`` components (NeosVR asset providers)."""
    tree = ctx.tree
    if "Assets" not in tree:
        return []
    items = tree.child_nodes("Assets", Component)
    if items is None:
        ctx.add(ROOT_KEY_TYPE, "Assets is not an array of component documents")
        return []
    odd = sum(1 for item in items if not isinstance(item, Component))
    if odd:
        ctx.add(ROOT_KEY_TYPE, f"{odd} entries of Assets are not component documents")
    return tree.assets


class DocumentRules(Family):
    def root(self, ctx: Context) -> None:
        tree = ctx.tree
        if "Object" not in tree:
            ctx.add(NO_OBJECT, "the document has no Object (the root slot)")
        elif tree.child_node("Object", Slot) is None:
            ctx.add(NO_OBJECT, "Object is not a document")
        for key, (shape, fits) in _ROOT_SHAPES.items():
            if key in tree and not fits(tree.get(key)):
                ctx.add(ROOT_KEY_TYPE, f"{key} is not {shape}")
        for key in tree:
            if key not in ROOT_KEYS:
                ctx.add(UNKNOWN_ROOT_KEY, f"unknown root key {key!r} (kept, not interpreted)")
        if not ctx.legacy and "VersionNumber" not in tree:
            ctx.add(NO_VERSION, "the file has a Types table (Resonite) but no VersionNumber")

    def slot(self, ctx: Context, info: SlotInfo) -> None:
        fields = info.fields
        if fields.get("ID") is None:
            ctx.add(SLOT_SHAPE, "slot has no ID", path=info.path)
        if "Name" not in fields:
            ctx.add(SLOT_SHAPE, "slot has no Name", path=info.path)
        for key in SLOT_MEMBERS:
            member = fields.get(key, fields)  # the fields themselves: absent
            if member is fields:
                continue
            if not (isinstance(member, dict) and "ID" in member):  # member_data, inlined
                ctx.add(
                    NOT_MEMBER,
                    f"{key} is {kind_of(member)}, not a member {{ID, Data}}",
                    path=info.path,
                )
                continue
            value = member.get("Data")
            expected = _SLOT_VALUE.get(key)
            if expected is not None and not expected[1](value):
                ctx.add(
                    MEMBER_VALUE, f"{key} is {kind_of(value)}, not {expected[0]}", path=info.path
                )

    def component(self, ctx: Context, info: ComponentInfo) -> None:
        doc = info.doc
        if "Type" not in doc:
            ctx.add(COMPONENT_SHAPE, "component has no Type", path=info.path)
        data = doc.get("Data")
        if not isinstance(data, dict):
            if "Data" not in doc:
                ctx.add(COMPONENT_SHAPE, "component has no Data", path=info.path)
            else:
                ctx.add(
                    COMPONENT_SHAPE,
                    f"component Data is {kind_of(data)}, not a document",
                    path=info.path,
                )
            return
        if data.get("ID") is None:
            ctx.add(COMPONENT_SHAPE, "component Data has no ID", path=info.path)
        odd = info.scan_fields()[0]
        if odd:
            listing = ", ".join(repr(k) for k in odd[:5]) + (" …" if len(odd) > 5 else "")
            ctx.add(
                NOT_MEMBER,
                f"{len(odd)} field(s) are not members {{ID, Data}}: {listing}",
                path=info.path,
                element=info.id,
            )


_SLOT_VALUE: dict[str, tuple[str, Any]] = {
    "Name": ("a string or null", lambda v: v is None or isinstance(v, str)),
    "Tag": ("a string or null", lambda v: v is None or isinstance(v, str)),
    "Active": ("a bool", lambda v: isinstance(v, bool)),
    "OrderOffset": ("an integer", is_int),
}
