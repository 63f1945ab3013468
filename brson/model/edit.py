"""Edit a data tree in place: slots, components and member values; ``brson.dump`` writes it.

Every edit goes through the model's overlay (``Node.set``), so untouched slots, components
and members come out byte-identical.  New elements get IDs from a
:class:`~brson.model.numbering.FreshIds` in the file's style; building one scans the tree's
bytes, so pass the same ``ids`` to a series of edits on a big tree.  Removing an element
leaves values that named its IDs dangling: ``references`` chooses ``"null"`` (as the engine
does), ``"report"`` or ``"fail"`` (docs/editing.md, "Deleting and the references it leaves").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from bson.int64 import Int64

from brson.document import raw
from brson.errors import GraphError, ModelError
from brson.model import Component, DataTree, Member, Slot
from brson.model.ids.forms import defines_id
from brson.model.ids.locate import Location
from brson.model.node import Node
from brson.model.numbering import FreshIds, id_elements
from brson.model.overlay import detach, refuse_detached
from brson.model.typename import TypeName

References = Literal["report", "null", "fail"]
REFERENCE_POLICIES: tuple[str, ...] = ("report", "null", "fail")

#: Why a removed element refuses edits (:func:`brson.model.overlay.detach`).
REMOVED = "removed from its tree"

#: Keys every component's Data starts with, in the engine's order (a file's own order wins).
COMPONENT_HEAD = ("ID", "persistent-ID", "UpdateOrder", "Enabled")


@dataclass(frozen=True)
class DanglingReference:
    """A value that named a removed element."""

    #: Path of the value (``Root/Body:MeshRenderer.Materials[0]``).
    where: str
    #: The ID it holds, and what that ID named before the removal.
    target: str
    target_path: str
    #: ``kept`` or ``nulled``.
    action: str
    #: ID of the slot or component holding the value.
    holder: str | None = None


@dataclass
class Removal:
    """What a delete or component removal took away and what it left pointing at nothing."""

    path: str
    #: How many IDs went with it (its own, its members', its descendants').
    ids: int
    references: list[DanglingReference] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SyncList:
    """A list field's new contents: each item becomes a member ``{ID, Data}`` of its own.

    Plain lists are values (``[x, y, z]`` is a float3); wrap a list in this to fill a list
    field (a SyncList: materials, bones).  A list field that already has elements is
    recognised without it.
    """

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = list(items)

    def __repr__(self) -> str:
        return f"SyncList({self.items!r})"


# -- access ----------------------------------------------------------------------------------
def tree_of(element: Slot | Component | Member) -> DataTree:
    """The tree an element belongs to (elements made by hand belong to none)."""
    tree = element.tree
    if tree is None:
        raise ModelError(f"{element!r} is not part of a data tree")
    return tree


def _fresh(tree: DataTree, ids: FreshIds | None) -> FreshIds:
    return ids if ids is not None else FreshIds.for_tree(tree)


def insert_position(items: list[Any], index: int | None, kind: type[Node]) -> int:
    """Raw list position at which a new item of ``kind`` ends up ``index``-th among the
    items of that kind (None or past the end: last; negative counts from the end, -1 last)."""
    positions = [n for n, item in enumerate(items) if isinstance(item, kind)]
    count = len(positions)
    if index is None:
        return len(items)
    if index < 0:
        index += count + 1
    index = max(0, index)
    return positions[index] if index < count else len(items)


# -- slots -----------------------------------------------------------------------------------
def rename(slot: Slot, name: str) -> None:
    """Set a slot's name (its ``Name`` member keeps its ID)."""
    if not isinstance(name, str):
        raise ModelError(f"a slot name is a string, not {type(name).__name__}", path=slot.path)
    slot.name = name


def move(slot: Slot, parent: Slot | None = None, index: int | None = None) -> None:
    """Re-parent ``slot`` under ``parent`` (default: where it is) before its ``index``-th
    child slot (default: last).  The slot and its subtree keep their bytes; only the two
    parents' ``Children`` change.  A ``ParentReference`` holding the old parent's ID (written
    so by some third-party tools; the engine gives it an ID of its own) follows the move."""
    old = slot.parent
    if old is None:
        raise ModelError("the root slot cannot be moved", path=slot.path)
    new = parent if parent is not None else old
    if new.tree is not slot.tree:
        raise ModelError(
            "that parent belongs to another tree (use import to copy a subtree between files)",
            path=slot.path,
        )
    node: Slot | None = new
    while node is not None:
        if node is slot:
            raise ModelError(
                f"cannot move a slot under itself or its descendant {new.path!r}", path=slot.path
            )
        node = node.parent
    old_items = [item for item in old.children_list() if item is not slot]
    items = old_items if new is old else list(new.children_list())
    items.insert(insert_position(items, index, Slot), slot)
    if new is not old:
        old.set("Children", old_items)
        if slot.parent_reference is not None and slot.parent_reference == old.id:
            slot.set("ParentReference", new.id)
    new.set("Children", items)
    new.children_list()  # re-links parent and tree of the moved slot


def add_slot(parent: Slot, name: str, *, index: int | None = None, **options: Any) -> Slot:
    """A new empty slot under ``parent`` before its ``index``-th child slot (default: last),
    laid out like ``parent`` (same keys, same order), with a fresh ID for itself, each
    member, its ``Components`` member, ``Persistent-ID`` and ``ParentReference``; the
    ``options`` (transform, ``active``, ``tag``, ``ids``) are :func:`new_slot`'s."""
    slot = new_slot(parent, name, **options)
    items = list(parent.children_list())
    items.insert(insert_position(items, index, Slot), slot)
    parent.set("Children", items)
    parent.children_list()
    return slot


def new_slot(
    parent: Slot,
    name: str,
    *,
    position: Sequence[float] = (0.0, 0.0, 0.0),
    rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0),
    scale: Sequence[float] = (1.0, 1.0, 1.0),
    active: bool = True,
    tag: str | None = None,
    ids: FreshIds | None = None,
) -> Slot:
    """The slot :func:`add_slot` makes, not yet placed: it belongs to ``parent``'s tree
    (components can be added to it) but no ``Children`` holds it.  Adding a child costs
    the parent's child count and the new slot's depth (every ancestor is marked for
    re-assembly); a builder of a whole subtree makes its slots with this and sets each
    one's ``Children`` once, deepest first, which is linear in the slots."""
    tree = tree_of(parent)
    fresh = _fresh(tree, ids)
    defaults: dict[str, Any] = {
        "Name": name,
        "Tag": tag,
        "Active": bool(active),
        "Position": [float(v) for v in position],
        "Rotation": [float(v) for v in rotation],
        "Scale": [float(v) for v in scale],
    }
    parent_link = parent_links(parent)
    values: dict[str, Any] = {}
    for key in parent:
        if key == "Children":
            values[key] = []
        elif key == "Components":
            values[key] = Member.new({"ID": fresh(), "Data": []})
        elif key == "ParentReference" and parent_link:
            values[key] = parent.id
        elif defines_id(key):
            values[key] = fresh()
        elif key in defaults:
            values[key] = Member.new({"ID": fresh(), "Data": defaults[key]})
        elif key == "OrderOffset":
            old = parent.get(key)
            wide = isinstance(old, dict) and isinstance(old.get("Data"), Int64)
            values[key] = Member.new({"ID": fresh(), "Data": Int64(0) if wide else 0})
        else:  # not understood: keep the parent's value; a member gets an ID of its own
            value = parent.get(key)
            if isinstance(value, dict) and "ID" in value:
                value = Member.new({**value, "ID": fresh()})
            values[key] = value
    slot = Slot.new(values)
    slot.tree = tree
    return slot


def parent_links(parent: Slot) -> bool:
    """Whether this file writes the parent's ID as ``ParentReference`` (third-party style)."""
    kids = parent.children
    if kids:
        return kids[0].parent_reference is not None and kids[0].parent_reference == parent.id
    grand = parent.parent
    return grand is not None and parent.parent_reference == grand.id


def delete(slot: Slot, references: References | str = "null") -> Removal:
    """Remove a slot and its subtree (see the module docstring for ``references``)."""
    parent = slot.parent
    if parent is None:
        raise ModelError("the root slot cannot be deleted", path=slot.path)
    own_link = parent.id if slot.parent_reference == parent.id else None
    removal = _remove(slot, references, own_link)
    parent.set("Children", [item for item in parent.children_list() if item is not slot])
    parent.children_list()
    detach(slot, REMOVED)
    return removal


# -- components ------------------------------------------------------------------------------
def add_component(
    slot: Slot,
    type_name: str | TypeName,
    fields: dict[str, Any] | None = None,
    *,
    index: int | None = None,
    enabled: bool = True,
    ids: FreshIds | None = None,
) -> Component:
    """A new component on ``slot``.  ``type_name``: a Resonite name with its assembly
    (``[FrooxEngine]FrooxEngine.MeshRenderer``; a name already in ``Types`` may be given
    without it, or by its short name when that is unique), or a NeosVR name
    (``FrooxEngine.MeshRenderer``).  ``fields`` become members ``{ID, Data}`` in the given
    order; a slot, component or member as a value stores its ID, :class:`SyncList` makes a
    list field.  ``Types`` grows when the type is new."""
    tree = tree_of(slot)
    fresh = _fresh(tree, ids)
    type_value = _type_value(tree, type_name, slot)
    template = _component_template(tree)
    legacy = tree.legacy
    data: dict[str, Any] = {}
    for key in template:
        if key in ("ID", "persistent-ID"):
            data[key] = fresh()
        elif key == "UpdateOrder":
            data[key] = Member.new({"ID": fresh(), "Data": Int64(0) if legacy else 0})
        elif key == "Enabled":
            data[key] = Member.new({"ID": fresh(), "Data": bool(enabled)})
    for key, value in (fields or {}).items():
        if key in data or key in COMPONENT_HEAD:
            raise ModelError(f"{key!r} is set by add_component itself", path=slot.path)
        data[key] = Member.new({"ID": fresh(), "Data": _data_of(value, tree, fresh)})
    component = Component.new({"Type": type_value, "Data": Node.new(data)})
    member = slot.components_member
    if member is None:
        raise ModelError("slot has no Components member", path=slot.path)
    items = list(member.child_nodes("Data", Component) or [])
    items.insert(insert_position(items, index, Component), component)
    member.set("Data", items)
    slot.components  # noqa: B018 -- links the new component to its slot and tree
    return component


def remove_component(component: Component, references: References | str = "null") -> Removal:
    """Remove a component (see the module docstring for ``references``)."""
    slot = component.slot
    tree = tree_of(component)
    removal = _remove(component, references, None)
    if slot is None:  # a NeosVR root asset
        tree.set(
            "Assets",
            [item for item in tree.child_nodes("Assets", Component) or [] if item is not component],
        )
        detach(component, REMOVED)
        return removal
    member = slot.components_member
    assert member is not None
    member.set(
        "Data",
        [item for item in member.child_nodes("Data", Component) or [] if item is not component],
    )
    detach(component, REMOVED)
    return removal


def _component_template(tree: DataTree) -> list[str]:
    """The leading Data keys of the file's first component (the engine's order)."""
    for component in tree.components():
        keys = [key for key in component.data if key in COMPONENT_HEAD]
        if "ID" in keys:
            return keys
    return list(COMPONENT_HEAD)


def _type_value(tree: DataTree, type_name: str | TypeName, slot: Slot) -> int | str:
    text = str(type_name)
    if tree.legacy:
        parsed = TypeName.parse(text)
        if parsed.assembly is not None:
            raise ModelError(
                f"NeosVR files name types without an assembly: {text!r} should "
                f"be {text[text.index(']') + 1 :]!r}",
                path=slot.path,
            )
        return text
    names = [str(t) for t in tree.types]
    if text in names:
        return names.index(text)
    parsed = TypeName.parse(text)
    if parsed.assembly is None:
        found = [i for i, t in enumerate(tree.types) if t.matches(text)]
        if len(found) == 1:
            return found[0]
        if found:
            listing = ", ".join(names[i] for i in found)
            raise ModelError(
                f"{text!r} names several types in Types ({listing}); give the full name",
                path=slot.path,
            )
        raise ModelError(
            f"{text!r} is not in Types; a new Resonite type needs its assembly: "
            f"'[FrooxEngine]{text}'",
            path=slot.path,
        )
    return tree.type_index(text)


# -- member values ---------------------------------------------------------------------------
def set_value(member: Member, value: Any, ids: FreshIds | None = None) -> None:
    """Set a member's value, keeping the field's kind: an int stays int32 or Int64 as the
    field was, an int given for a float field becomes a float, a slot, component or member
    stores its ID.  A list given to a list field (a SyncList; wrap in :class:`SyncList` when
    it is empty) keeps the IDs of the elements it still has and gives new ones fresh IDs."""
    tree = tree_of(member)
    elements = member.elements
    if isinstance(value, SyncList) or (elements is not None and isinstance(value, list | tuple)):
        items = value.items if isinstance(value, SyncList) else list(value)
        old = elements or []
        fresh: FreshIds | None = ids
        new_items: list[Any] = []
        for n, item in enumerate(items):
            if n < len(old):
                element = old[n]
                new = _coerce(item, element.get("Data"), tree)
                if not _same(new, element.get("Data")):
                    element.set("Data", new)
                new_items.append(element)
            else:
                fresh = _fresh(tree, fresh)
                new_items.append(Member.new({"ID": fresh(), "Data": _coerce(item, None, tree)}))
        same = (
            len(new_items) == len(old)
            and isinstance(member.get("Data"), list)
            and all(a is b for a, b in zip(new_items, old, strict=True))
        )
        if not same:
            member.set("Data", new_items)
        return
    member.set("Data", _coerce(value, member.get("Data"), tree))


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _data_of(value: Any, tree: DataTree, fresh: FreshIds) -> Any:
    if isinstance(value, SyncList):
        return [
            Member.new({"ID": fresh(), "Data": _coerce(item, None, tree)}) for item in value.items
        ]
    return _coerce(value, None, tree)


def _coerce(value: Any, current: Any, tree: DataTree) -> Any:
    """``value`` in the shape of ``current`` (the field's value now; None when unknown)."""
    if isinstance(value, Slot | Component | Member):
        if value.tree is not tree:
            raise ModelError(f"{value!r} belongs to another tree; its ID means nothing here")
        return value.id
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        if isinstance(current, float):
            return float(value)
        if isinstance(current, Int64):
            return Int64(value)
        if isinstance(current, int) and not isinstance(current, bool):
            return int(value)  # an int32 field stays int32
        # Width unknown from the field: NeosVR files write every integer as int64.
        return Int64(value) if isinstance(value, Int64) or tree.legacy else int(value)
    if isinstance(value, float):
        if isinstance(current, int) and not isinstance(current, bool):
            if not value.is_integer():
                raise ModelError(f"{value!r} is not a whole number; the field holds integers")
            return Int64(int(value)) if isinstance(current, Int64) else int(value)
        return value
    if isinstance(value, list | tuple):
        if isinstance(current, list) and len(current) == len(value):
            return [_coerce(v, c, tree) for v, c in zip(value, current, strict=True)]
        return [_coerce(v, None, tree) for v in value]
    if isinstance(value, dict):
        base = current if isinstance(current, dict) else {}
        return {k: _coerce(v, base.get(k), tree) for k, v in value.items()}
    return value


# -- removal and the references it leaves -----------------------------------------------------
def _remove(element: Slot | Component, references: str, parent_link: str | None) -> Removal:
    refuse_detached(element)
    if references not in REFERENCE_POLICIES:
        raise ValueError(f"references must be one of {', '.join(REFERENCE_POLICIES)}")
    tree = tree_of(element)
    where = _describe(element)
    # A snapshot of the tree as it is now, indexed from its bytes (fast even after edits);
    # positions map its nodes back to the live ones.
    snapshot = DataTree(tree.to_bson())
    snap = _follow(snapshot, _position(element))
    pairs = id_elements(snap.to_bson())
    removed = {value for key, value in pairs if defines_id(key)}
    removed.discard(parent_link or "")
    # Most values naming removed IDs sit inside what is removed; locating each one (a walk
    # from the root) would dominate on big trees.  Counting finds the IDs also named from
    # outside, and only their values are located.
    inside = Counter(value for key, value in pairs if not defines_id(key))
    index = snapshot.ids
    named = Counter(value for _, value in index.values if value in removed)
    outside = {value for value, count in named.items() if count > inside[value]}
    found: list[tuple[Location, str]] = []
    for location, value in index.values:
        if value in outside and not _inside(location, snap):
            found.append((location, value))
    kept = "nulled" if references == "null" else "kept"
    report = Removal(where, len(removed))
    targets = _target_paths(snapshot, snap, {value for _, value in found})
    for location, value in found:
        anchor = location.anchor
        report.references.append(
            DanglingReference(
                location.describe(),
                value,
                targets.get(value, "<unknown>"),
                kept,
                anchor.id if anchor is not None else None,
            )
        )
    if references == "fail" and found:
        listing = "; ".join(f"{r.where} -> {r.target_path}" for r in report.references[:20])
        more = f" and {len(found) - 20} more" if len(found) > 20 else ""
        raise GraphError(
            f"{len(found)} reference(s) point into what would be removed: "
            f"{listing}{more} (references='null' clears them, 'report' keeps "
            "them)",
            path=where,
        )
    if references == "null":
        for location, _ in found:
            anchor = location.anchor
            assert anchor is not None
            live = _follow(tree, _position(anchor))
            Location(live, location.path).set_value(None)
    return report


def _target_paths(snapshot: DataTree, snap: Slot | Component, wanted: set[str]) -> dict[str, str]:
    """Paths of the removed elements that values name, found in a small tree of just the
    removed part (looking IDs up in the whole tree scans all of its bytes for each)."""
    if not wanted:
        return {}
    parts = []
    types = snapshot.get("Types")
    if isinstance(types, list):
        parts.append(raw.encode_element("Types", types))
    body = snap.to_bson()
    if isinstance(snap, Slot):  # described from its own name: put its parent's path first
        parts.append(raw.element_header(raw.DOCUMENT, "Object") + body)
        parent = snap.parent
        head, prefix = "", f"{parent.path}/" if parent is not None else ""
    else:  # described as a root asset: put its slot's path instead
        item = raw.element_header(raw.DOCUMENT, "0") + body
        parts.append(raw.element_header(raw.ARRAY, "Assets") + raw.assemble([item]))
        head = "<Assets>"
        prefix = snap.slot.path if snap.slot is not None else head
    small = DataTree(raw.assemble(parts))
    out = {}
    for value in wanted:
        location = small.ids.where(value)
        if location is not None:
            out[value] = prefix + location.describe().removeprefix(head)
    return out


def _describe(element: Slot | Component) -> str:
    if isinstance(element, Slot):
        return element.path
    slot = element.slot
    return f"{slot.path if slot is not None else '<Assets>'}:{element.type_label}"


#: Where a slot or component sits: slot child indices from the root, then a component index
#: (-1 for the slot itself); an ``Assets`` entry is ``((), index)`` with ``assets`` set.
_Position = tuple[tuple[int, ...], int, bool]


def _position(element: Slot | Component) -> _Position:
    if isinstance(element, Component):
        slot = element.slot
        if slot is None:
            tree = tree_of(element)
            return (), _index_of(tree.assets, element), True
        return _slot_position(slot), _index_of(slot.components, element), False
    return _slot_position(element), -1, False


def _slot_position(slot: Slot) -> tuple[int, ...]:
    out: list[int] = []
    node = slot
    while node.parent is not None:
        out.append(_index_of(node.parent.children_list(), node))
        node = node.parent
    return tuple(reversed(out))


def _index_of(items: Sequence[Any], element: object) -> int:
    for n, item in enumerate(items):
        if item is element:
            return n
    raise ModelError(f"{element!r} is no longer in the tree")


def _follow(tree: DataTree, position: _Position) -> Slot | Component:
    path, component, assets = position
    if assets:
        return tree.assets[component]
    slot = tree.root
    for n in path:
        item = slot.children_list()[n]
        assert isinstance(item, Slot)
        slot = item
    return slot if component < 0 else slot.components[component]


def _inside(location: Location, element: Slot | Component) -> bool:
    anchor = location.anchor
    if isinstance(element, Component):
        return anchor is element
    slot = location.slot
    while slot is not None:
        if slot is element:
            return True
        slot = slot.parent
    return False
