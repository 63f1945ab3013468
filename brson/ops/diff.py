"""Semantic diff of two data trees, keyed by element IDs.

What it compares and why:

* Slots and components are matched by their ``ID``, not their position, so a slot that moved
  to another parent is one *moved* slot, not a removal plus an addition.  (Elements without an
  ID, which the engine never writes, fall back to their position.)
* Components are compared by type *name*, so two files whose ``Types`` tables list the same
  types in another order are equal; the type table itself is compared as a set of names.
* Member values are compared with their BSON type (int32 vs int64, exact float bits): a change
  of width is a change of the file.  A SyncList (a list of members) is matched by element ID.
* Unchanged components are recognised by their ``Data`` bytes without decoding them, so
  diffing two big, mostly equal trees costs little more than walking them.

Codec and framing are not part of the tree: a ``.brson`` and a ``.7zbson`` holding the same
tree are equal.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from bson.int64 import Int64

from brson.document import jsonform
from brson.errors import BrsonError, ModelError
from brson.model import Component, DataTree, Slot, elements
from brson.model.node import Node
from brson.model.typename import TypeName

#: Slot keys that are structure, compared as such rather than as values.
_STRUCTURE = ("ID", "Children", "Components", "Name")
#: Root keys compared as values (the rest of the root is the slot tree and the type table).
_ROOT_TREE_KEYS = ("Object", "Types", "Assets")
_DOUBLE = struct.Struct("<d")
#: A GUID-holding string element keyed ``ID`` (type, key, length 37), as the engine writes it.

#: A path inside an element: keys and list positions.
Path = tuple[str | int, ...]


@dataclass(frozen=True)
class SlotChange:
    """A slot added, removed, moved (new parent), renamed, or whose children were reordered."""

    id: str | None
    path: str
    #: For ``moved``: the old and new parent paths; ``renamed``: the old and new names.
    old: Any = None
    new: Any = None


@dataclass(frozen=True)
class ComponentChange:
    """A component added, removed or moved to another slot."""

    id: str | None
    type: str
    path: str
    #: For ``moved``: the slot it was on.
    old_path: str | None = None


@dataclass(frozen=True)
class ValueChange:
    """A member (or any value) that changed, appeared or disappeared."""

    path: str
    #: The element whose value this is (a member's or list element's ID) when it has one.
    id: str | None
    old: Any
    new: Any
    #: ``changed``, ``added`` or ``removed``.
    kind: str = "changed"


@dataclass
class Diff:
    """Everything that differs from ``a`` to ``b``; empty (falsy) when the trees are equal."""

    slots_added: list[SlotChange] = field(default_factory=list)
    slots_removed: list[SlotChange] = field(default_factory=list)
    slots_moved: list[SlotChange] = field(default_factory=list)
    slots_renamed: list[SlotChange] = field(default_factory=list)
    children_reordered: list[SlotChange] = field(default_factory=list)
    components_added: list[ComponentChange] = field(default_factory=list)
    components_removed: list[ComponentChange] = field(default_factory=list)
    components_moved: list[ComponentChange] = field(default_factory=list)
    values: list[ValueChange] = field(default_factory=list)
    types_added: list[str] = field(default_factory=list)
    types_removed: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not any(getattr(self, name) for name in self.__dataclass_fields__)

    def __bool__(self) -> bool:
        return not self.equal

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (values in the lossless JSON form: int64 as $numberLong)."""
        out: dict[str, Any] = {"equal": self.equal}
        for name in self.__dataclass_fields__:
            items = getattr(self, name)
            out[name] = [
                _jsonable(asdict(item)) if not isinstance(item, str) else item for item in items
            ]
        return out

    def lines(self) -> Iterator[str]:
        """The diff as text, one change a line (``+`` added, ``-`` removed, ``~`` changed,
        ``>`` moved)."""
        for s in self.slots_added:
            yield f"+ slot {s.path} ({s.id})"
        for s in self.slots_removed:
            yield f"- slot {s.path} ({s.id})"
        for s in self.slots_moved:
            yield f"> slot {s.path}: moved from {s.old} to {s.new}"
        for s in self.slots_renamed:
            yield f"~ slot {s.path}: renamed from {_show(s.old)} to {_show(s.new)}"
        for s in self.children_reordered:
            yield f"~ slot {s.path}: children reordered"
        for c in self.components_added:
            yield f"+ component {c.path} ({c.id}) {c.type}"
        for c in self.components_removed:
            yield f"- component {c.path} ({c.id}) {c.type}"
        for c in self.components_moved:
            yield f"> component {c.path} ({c.id}): moved from {c.old_path}"
        for v in self.values:
            if v.kind == "added":
                yield f"+ {v.path} = {_show(v.new)}"
            elif v.kind == "removed":
                yield f"- {v.path} = {_show(v.old)}"
            else:
                yield f"~ {v.path}: {_show(v.old)} -> {_show(v.new)}"
        for name in self.types_added:
            yield f"+ type {name}"
        for name in self.types_removed:
            yield f"- type {name}"


class _Side:
    """One tree's slots and components by key (ID, or position when there is none)."""

    def __init__(self, tree: DataTree) -> None:
        self.tree = tree
        self.slots: dict[str, Slot] = {}
        self.parents: dict[str, str | None] = {}
        self.children: dict[str, list[str]] = {}
        self.components: dict[str, tuple[Component, str]] = {}
        #: Per table (slots, components): the last ``#n`` suffix handed to each duplicated key.
        self._suffixes: dict[int, dict[str, int]] = {}
        self.type_names = [str(t) for t in tree.types] if not tree.legacy else []
        stack: list[tuple[Slot, str | None, int]] = [(tree.root, None, 0)]
        while stack:
            slot, parent, index = stack.pop()
            key = self._key(self.slots, slot.id, f"{parent}/{index}")
            self.slots[key] = slot
            self.parents[key] = parent
            kids = slot.children
            self.children[key] = []
            for position, component in enumerate(slot.components):
                self._add_component(component, key, position)
            stack.extend((kid, key, i) for i, kid in reversed(list(enumerate(kids))))
            if parent is not None:
                self.children[parent].append(key)
        for position, component in enumerate(tree.assets):
            self._add_component(component, "<Assets>", position)

    def _key(self, seen: dict[str, Any], element_id: str | None, fallback: str) -> str:
        key = element_id if element_id is not None else f"@{fallback}"
        if key in seen:  # a duplicate ID (validate reports those); keep both apart
            # Counting on from the last suffix given to this key: probing #2, #3, ... from the
            # start for each duplicate was quadratic (10,000 duplicates took 15 s).
            counters = self._suffixes.setdefault(id(seen), {})
            n = counters.get(key, 1) + 1
            while f"{key}#{n}" in seen:
                n += 1
            counters[key] = n
            key = f"{key}#{n}"
        return key

    def _add_component(self, component: Component, slot_key: str, position: int) -> None:
        key = self._key(self.components, _component_id(component), f"{slot_key}:{position}")
        self.components[key] = (component, slot_key)

    def type_name(self, component: Component) -> str:
        raw_type = component.type_index
        if isinstance(raw_type, int) and not isinstance(raw_type, bool):
            names = self.type_names
            return names[raw_type] if 0 <= raw_type < len(names) else f"#{raw_type}"
        return str(raw_type)

    def slot_path(self, key: str) -> str:
        if key == "<Assets>":
            return "<Assets>"
        return self.slots[key].path

    def component_path(self, key: str) -> str:
        component, slot_key = self.components[key]
        return f"{self.slot_path(slot_key)}:{_short(self.type_name(component))}"

    def table(self) -> set[str]:
        """The type table as a set of names (NeosVR files have none: their components name
        their types, and an added or removed component already says so)."""
        return set(self.type_names)


def _component_id(component: Component) -> str | None:
    """The component's ID (:attr:`Component.id`: read from the bytes where the engine writes
    it, without keeping a ``Data`` node); None without a ``Data`` document (keyed by
    position then)."""
    try:
        return component.id
    except ModelError:
        return None


def _short(type_name: str) -> str:
    return TypeName.parse(type_name).name or type_name


def diff(a: DataTree, b: DataTree) -> Diff:
    """What changed from ``a`` to ``b``."""
    out = Diff()
    left, right = _Side(a), _Side(b)
    _diff_root(a, b, out)
    _diff_slots(left, right, out)
    _diff_components(left, right, out)
    types_a, types_b = left.table(), right.table()
    out.types_added = sorted(types_b - types_a)
    out.types_removed = sorted(types_a - types_b)
    return out


def _diff_root(a: DataTree, b: DataTree, out: Diff) -> None:
    keys = [k for k in a if k not in _ROOT_TREE_KEYS]
    keys += [k for k in b if k not in _ROOT_TREE_KEYS and k not in keys]
    for key in keys:
        _compare(a.get(key), b.get(key), "<root>", (key,), out, key in a, key in b)


def _diff_slots(left: _Side, right: _Side, out: Diff) -> None:
    for key in left.slots:
        if key not in right.slots:
            out.slots_removed.append(SlotChange(left.slots[key].id, left.slot_path(key)))
    for key, slot in right.slots.items():
        if key not in left.slots:
            out.slots_added.append(SlotChange(slot.id, right.slot_path(key)))
            continue
        old = left.slots[key]
        old_parent, new_parent = left.parents[key], right.parents[key]
        if old_parent != new_parent:
            out.slots_moved.append(
                SlotChange(
                    slot.id,
                    slot.path,
                    left.slot_path(old_parent) if old_parent else None,
                    right.slot_path(new_parent) if new_parent else None,
                )
            )
        old_name, new_name = old.name, slot.name
        if not _same(old_name, new_name):
            out.slots_renamed.append(SlotChange(slot.id, slot.path, old_name, new_name))
        in_right = set(right.children[key])
        before = [k for k in left.children[key] if k in in_right]
        in_both = set(before)
        after = [k for k in right.children[key] if k in in_both]
        if before != after:
            out.children_reordered.append(SlotChange(slot.id, slot.path))
        _diff_slot_fields(old, slot, out)


def _diff_slot_fields(old: Slot, new: Slot, out: Diff) -> None:
    keys = [k for k in old if k not in _STRUCTURE]
    keys += [k for k in new if k not in _STRUCTURE and k not in keys]
    path: str | None = None
    for key in keys:
        if key in old and key in new and _same_bytes(old, new, key):
            continue  # the common case: an unchanged member, told apart without decoding it
        a, b = old.get(key), new.get(key)
        if key in old and key in new and _same(a, b):
            continue
        path = path or new.path
        _compare(a, b, path, (key,), out, key in old, key in new)
    name_a, name_b = old.member("Name"), new.member("Name")
    if name_a is not None and name_b is not None and name_a.id != name_b.id:
        _compare(name_a.id, name_b.id, path or new.path, ("Name", "ID"), out)


def _same_bytes(old: Slot, new: Slot, key: str) -> bool:
    """Whether a document-valued key has identical BSON on both sides."""
    a, b = old.child_node(key, Node), new.child_node(key, Node)
    return a is not None and b is not None and a.to_bson() == b.to_bson()


def _diff_components(left: _Side, right: _Side, out: Diff) -> None:
    for key, (component, _) in left.components.items():
        if key not in right.components:
            out.components_removed.append(
                ComponentChange(
                    _component_id(component), left.type_name(component), left.component_path(key)
                )
            )
    for key, (component, slot_key) in right.components.items():
        if key not in left.components:
            out.components_added.append(
                ComponentChange(
                    _component_id(component),
                    right.type_name(component),
                    right.component_path(key),
                )
            )
            continue
        old, old_slot = left.components[key]
        if old_slot != slot_key:
            out.components_moved.append(
                ComponentChange(
                    _component_id(component),
                    right.type_name(component),
                    right.component_path(key),
                    left.component_path(key),
                )
            )
        old_type, new_type = left.type_name(old), right.type_name(component)
        if old_type != new_type:
            out.values.append(
                ValueChange(
                    right.component_path(key) + " (Type)",
                    _component_id(component),
                    old_type,
                    new_type,
                )
            )
        elif _wide_type(old) != _wide_type(component):
            # The same type, but its index stored in another width (int32 <-> int64): a
            # change of the file like any other width change.
            out.values.append(
                ValueChange(
                    right.component_path(key) + " (Type)",
                    _component_id(component),
                    old.get("Type"),
                    component.get("Type"),
                )
            )
        if _same_data_bytes(old, component):
            continue  # the common case, told apart without a Data node on either side
        data_a, data_b = _data(old), _data(component)
        if data_a is None or data_b is None or data_a.to_bson() != data_b.to_bson():
            _compare(
                data_a.decoded() if data_a else old.get("Data"),
                data_b.decoded() if data_b else component.get("Data"),
                right.component_path(key),
                (),
                out,
            )


def _wide(value: Any) -> bool:
    """Whether an integer is stored as int64 (pymongo decodes those as ``Int64``; a plain
    ``int`` set by an edit is written as int32 when it fits)."""
    return isinstance(value, Int64)


def _elements(component: Component) -> dict[str, elements.Element] | None:
    """An unedited component's ``Type`` and ``Data`` elements, indexed for this look only
    (None when it was edited: its bytes are not its value then).

    Why not ``component.data`` / ``component.get``: those keep an index and a ``Data`` node
    on every component of both trees, ~0.9 KB each, which made a diff's peak 3.07x both
    files' BSON.  Malformed bytes raise here what the node's own index raises."""
    if component.modified:
        return None
    start, end = component.span
    return elements.component_index(component.buffer, start, end)


def _wide_type(component: Component) -> bool:
    """Whether the component's ``Type`` index is stored as int64 (see :func:`_wide`)."""
    index = _elements(component)
    if index is None:
        return _wide(component.get("Type"))
    elem = index.get("Type")
    return elem is not None and elem[0] == elements.INT64


def _same_data_bytes(a: Component, b: Component) -> bool:
    """Whether both components are unedited and their ``Data`` documents are the same bytes."""
    elements_a, elements_b = _elements(a), _elements(b)
    if elements_a is None or elements_b is None:
        return False
    data_a, data_b = elements_a.get("Data"), elements_b.get("Data")
    if (
        data_a is None
        or data_b is None
        or data_a[0] != elements.DOCUMENT
        or data_b[0] != elements.DOCUMENT
    ):
        return False
    return a.buffer[data_a[2] : data_a[3]] == b.buffer[data_b[2] : data_b[3]]


def _data(component: Component) -> Node | None:
    try:
        return component.data
    except BrsonError:  # Data is not a document
        return None


def _compare(
    a: Any,
    b: Any,
    head: str,
    path: Path,
    out: Diff,
    in_a: bool = True,
    in_b: bool = True,
) -> None:
    """Record the differences between two decoded values (iteratively: no depth limit)."""
    stack: list[tuple[Any, Any, Path, bool, bool, str | None]] = [(a, b, path, in_a, in_b, None)]
    while stack:
        a, b, path, in_a, in_b, element_id = stack.pop()
        if not in_a or not in_b:
            present = b if in_b else a
            if isinstance(present, dict) and isinstance(present.get("ID"), str):
                element_id = present["ID"]  # a whole member or list element came or went
            out.values.append(
                ValueChange(
                    _render(head, path),
                    element_id,
                    a if in_a else None,
                    b if in_b else None,
                    "added" if in_b else "removed",
                )
            )
            continue
        if type(a) is dict and type(b) is dict:
            if isinstance(a.get("ID"), str) and a.get("ID") == b.get("ID"):
                element_id = a["ID"]
            keys = list(a)
            keys += [k for k in b if k not in a]
            for key in reversed(keys):
                stack.append((a.get(key), b.get(key), (*path, key), key in a, key in b, element_id))
        elif type(a) is list and type(b) is list and _nested(a, b):
            for item in reversed(_pair_items(a, b)):
                index, item_a, item_b, has_a, has_b = item
                stack.append((item_a, item_b, (*path, index), has_a, has_b, element_id))
        elif not _same(a, b):
            out.values.append(ValueChange(_render(head, path), element_id, a, b))


def _nested(a: list[Any], b: list[Any]) -> bool:
    """Lists of documents or lists are compared item by item; lists of plain values (a
    float3, a color) are one value."""
    return any(isinstance(x, dict | list) for x in a) or any(isinstance(x, dict | list) for x in b)


def _pair_items(a: list[Any], b: list[Any]) -> list[tuple[int, Any, Any, bool, bool]]:
    """Pair list items: by element ID when both are lists of members (a SyncList), else by
    position.  Each pair: (index to show, item in a, item in b, present in a, in b)."""
    ids_a = [x.get("ID") if isinstance(x, dict) else None for x in a]
    ids_b = [x.get("ID") if isinstance(x, dict) else None for x in b]
    keyed = all(isinstance(i, str) for i in ids_a + ids_b) and (
        len(set(ids_a)) == len(ids_a) and len(set(ids_b)) == len(ids_b)
    )
    pairs: list[tuple[int, Any, Any, bool, bool]] = []
    if keyed:
        where_b = {element_id: i for i, element_id in enumerate(ids_b)}
        for i, item in enumerate(a):
            j = where_b.get(ids_a[i])
            if j is None:
                pairs.append((i, item, None, True, False))
            else:
                pairs.append((j, item, b[j], True, True))
        seen = set(ids_a)
        pairs += [(j, None, item, False, True) for j, item in enumerate(b) if ids_b[j] not in seen]
        return pairs
    for i in range(max(len(a), len(b))):
        pairs.append(
            (i, a[i] if i < len(a) else None, b[i] if i < len(b) else None, i < len(a), i < len(b))
        )
    return pairs


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same BSON type, keys in the same order; floats by their bits (a
    NaN equals its own bits, -0.0 is not 0.0).  Iterative: values nest as deep as BSON allows."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is float:
            if _DOUBLE.pack(x) != _DOUBLE.pack(y):
                return False
        elif type(x) is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif type(x) is dict:
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif x != y:
            return False
    return True


def _render(head: str, path: Path) -> str:
    """``Root/Body:MeshRenderer.Materials[0]``: members' ``Data`` keys are left out."""
    text = head
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part != "Data":
            text += f".{part}"
    return text


def _jsonable(value: Any) -> Any:
    return jsonform.to_jsonable(value)


def _show(value: Any, limit: int = 120) -> str:
    text = json.dumps(_jsonable(value), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["ComponentChange", "Diff", "SlotChange", "ValueChange", "diff"]
