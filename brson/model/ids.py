"""Every element that has an ID, and every ID-shaped value that may point at one.

One pass over the tree: slot-level keys through the lazy index (so ``Children`` is never
decoded twice), each component's ``Data`` through pymongo's C decoder, then a flat, iterative
scan of the decoded values.  Elements are recorded by location (anchor + key path) and turned
into :class:`Member` nodes only when resolved, so indexing a large world allocates little.

What counts as a definition: a document's ``ID`` string (slots, components, members, list
elements), and string values under keys ending in ``-ID`` (``Persistent-ID``,
``persistent-ID``, ``_shader-ID``…) plus ``ParentReference``, which in engine-written files is
an ID of its own (the slot's parent link), not the parent's ID.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from brson.model.node import Node
from brson.model.tree import Component, DataTree, Element, IdRef, Member, Slot, is_guid

#: A path inside an anchor: keys (str) and list positions (int).
Path = tuple[str | int, ...]


def defines_id(key: str) -> bool:
    return key == "ID" or key.endswith("-ID") or key == "ParentReference"


@dataclass(frozen=True)
class Location:
    """Where an element or a value lives: a slot or component and a key path inside it."""

    anchor: Slot | Component
    path: Path

    def describe(self) -> str:
        """Human path: ``Root/Body:MeshRenderer.Materials[0]``."""
        if isinstance(self.anchor, Slot):
            head = self.anchor.path
        else:
            slot = self.anchor.slot
            try:
                type_name = self.anchor.type.name
            except Exception:  # an invalid Type index is reported elsewhere
                type_name = "?"
            head = f"{slot.path if slot else '<Assets>'}:{type_name}"
        tail = ""
        for part in self.path:
            if isinstance(part, int):
                tail += f"[{part}]"
            elif part not in ("Data", "ID"):
                tail += f".{part}"
        return head + tail


@dataclass
class Duplicate:
    element_id: str
    locations: list[Location]


@dataclass
class IdIndex:
    """IDs defined in the tree and the ID-shaped values found in it."""

    tree: DataTree
    defined: dict[str, Location] = field(default_factory=dict)
    #: ``(location of the value, value)`` for every ID-shaped string not defining an ID.
    values: list[tuple[Location, str]] = field(default_factory=list)
    duplicates: dict[str, Duplicate] = field(default_factory=dict)

    @classmethod
    def build(cls, tree: DataTree) -> IdIndex:
        index = cls(tree)
        for slot in tree.walk():
            index._scan_slot(slot)
        for component in tree.assets:
            index._scan(component, ("Data",), component.data.decoded())
        return index

    # -- building -------------------------------------------------------------------------
    def _define(self, element_id: str, location: Location) -> None:
        previous = self.defined.get(element_id)
        if previous is None:
            self.defined[element_id] = location
            return
        dup = self.duplicates.get(element_id)
        if dup is None:
            dup = self.duplicates[element_id] = Duplicate(element_id, [previous])
        dup.locations.append(location)

    def _scan_slot(self, slot: Slot) -> None:
        for key in slot:
            if key == "Children":
                continue
            if key == "Components":
                member = slot.components_member
                if member is not None and member.id is not None:
                    self._define(member.id, Location(slot, ("Components",)))
                for component in slot.components:
                    self._scan(component, ("Data",), component.data.decoded())
                continue
            value = slot.get(key)
            if isinstance(value, str):
                if defines_id(key):
                    self._define(value, Location(slot, (key,)))
                elif is_guid(value):
                    self.values.append((Location(slot, (key,)), value))
            elif isinstance(value, dict | list):
                self._scan(slot, (key,), value)

    def _scan(self, anchor: Slot | Component, base: Path, value: Any) -> None:
        stack: list[tuple[Path, Any]] = [(base, value)]
        define = self._define
        values = self.values
        while stack:
            path, obj = stack.pop()
            if isinstance(obj, dict):
                for key, item in obj.items():
                    if isinstance(item, str):
                        if len(item) != 36:
                            continue
                        if defines_id(key):
                            define(item, Location(anchor, path if key == "ID" else (*path, key)))
                        elif is_guid(item):
                            values.append((Location(anchor, (*path, key)), item))
                    elif isinstance(item, dict | list):
                        stack.append(((*path, key), item))
            elif isinstance(obj, list):
                for pos, item in enumerate(obj):
                    if isinstance(item, str):
                        if len(item) == 36 and is_guid(item):
                            values.append((Location(anchor, (*path, pos)), item))
                    elif isinstance(item, dict | list):
                        stack.append(((*path, pos), item))

    # -- lookups --------------------------------------------------------------------------
    def __contains__(self, element_id: object) -> bool:
        return element_id in self.defined

    def __len__(self) -> int:
        return len(self.defined)

    def resolve(self, element_id: str) -> Element | None:
        location = self.defined.get(element_id)
        return None if location is None else element_at(location)

    def where(self, element_id: str) -> Location | None:
        return self.defined.get(element_id)


def element_at(location: Location) -> Element | None:
    """Materialize the element a location names (slot, component, member or ID key)."""
    anchor, path = location.anchor, location.path
    if not path:
        return anchor
    if isinstance(anchor, Component) and path == ("Data",):
        return anchor
    node: Node = anchor
    for i, part in enumerate(path):
        last = i == len(path) - 1
        if isinstance(part, int):
            items = node.child_nodes("Data", Member) if isinstance(node, Member) else None
            if items is None or part >= len(items) or not isinstance(items[part], Node):
                return None
            node = items[part]
        elif part == "Data" and isinstance(node, Component):
            node = node.data
        elif part == "Data" and isinstance(node, Member):
            continue
        elif node.etype(part) == 0x02 or isinstance(node.get(part), str):
            return IdRef(node, part) if last else None
        else:
            child = node.child_node(part, Member)
            if child is None:
                return None
            node = child
        if isinstance(node, Member):
            node._tree = anchor._tree
    return node if isinstance(node, Slot | Component | Member) else None
