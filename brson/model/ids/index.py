"""Every element that has an ID, and every ID-shaped value that may point at one.

Which keys define an ID is :mod:`brson.model.ids.forms`' rule (``ID``, ``…-ID``,
``ParentReference``); every other GUID-shaped string is a value that may reference an element.

Two ways to build the same index: an unmodified tree is indexed straight from its BSON bytes
(one pattern pass finds every GUID-shaped string element; where each lives is worked out only
when asked), an edited tree is scanned structurally, since its bytes are not assembled yet.

Caveat of the byte scan: a string *value* that itself contains the bytes of a BSON string
element holding a GUID would be counted; its location then does not resolve and it is dropped
(``resolve`` returns None).  Engine-written files never contain such strings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from brson.collector import paused_gc
from brson.model import Component, DataTree, Slot
from brson.model.ids.forms import DEFINITION, PARENT_REFERENCE, REFERENCE, defines_id, is_guid
from brson.model.ids.locate import Location, Path, element_at
from brson.model.ids.scan import DefinitionTable, id_spans, repeated_links
from brson.model.tree import Element


class _LazyDefinitions(dict[str, Location]):
    """ID -> Location for a byte-scanned tree, making each Location only when looked up.

    A big world defines millions of IDs; most uses only test membership or resolve a few.
    """

    #: Lookups answered by one ``bytes.find`` each before indexing every definition's offset
    #: in one pass (a find scans the whole buffer: extracting from a big world looks up
    #: hundreds of thousands of IDs).
    FINDS = 8

    def __init__(self, tree: DataTree, keys: dict[str, str]) -> None:
        super().__init__()
        self._tree = tree
        self._keys = keys
        self._table: DefinitionTable | None = None
        self._finds = 0

    def __contains__(self, element_id: object) -> bool:
        return element_id in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def keys(self) -> Any:
        return self._keys.keys()

    def get(self, element_id: str, default: Any = None) -> Any:
        key = self._keys.get(element_id)
        if key is None:
            return default
        location = super().get(element_id)
        if location is None:
            location = Location(tree=self._tree, offset=self._offset(element_id, key))
            super().__setitem__(element_id, location)
        return location

    def _offset(self, element_id: str, key: str) -> int:
        if self._table is None and self._finds < self.FINDS:
            self._finds += 1
            pattern = f"\x02{key}\x00\x25\x00\x00\x00{element_id}\x00".encode("latin-1")
            return self._tree.buffer.find(pattern)
        if self._table is None:
            self._table = DefinitionTable(self._tree)
        offset = self._table.offset(element_id)
        return -1 if offset is None else offset

    def __getitem__(self, element_id: str) -> Location:
        location = self.get(element_id)
        if location is None:
            raise KeyError(element_id)
        return location  # type: ignore[no-any-return]

    def items(self) -> Any:
        return ((element_id, self[element_id]) for element_id in self._keys)

    def values(self) -> Any:
        return (self[element_id] for element_id in self._keys)


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
        """Index a tree: from its bytes when unmodified, else from its nodes."""
        index = cls(tree)
        if tree.modified:
            links: list[tuple[Location, str]] = []
            for slot in tree.walk():
                index._scan_slot(slot, links)
            for component in tree.assets:
                index._scan(component, ("Data",), component.data.decoded())
            own = set()
            for location, value in links:  # the parent's ID written as ParentReference
                if value in index.defined and value not in own:
                    index.values.append((location, value))
                else:
                    own.add(value)
                    index._define(value, location)
        else:
            index._scan_bytes()
        return index

    # -- building from bytes ---------------------------------------------------------------
    def _scan_bytes(self) -> None:
        tree = self.tree
        text = tree.buffer.decode("latin-1")
        spans = id_spans(tree)
        found: list[tuple[str, str]] = []
        values = self.values
        with paused_gc():  # millions of small tuples: the collector would only slow this down
            for lo, hi in spans:
                found += DEFINITION.findall(text, lo, hi)
                for match in REFERENCE.finditer(text, lo, hi):
                    values.append((Location(tree=tree, offset=match.start()), match.group(2)))
            keys = {element_id: key for key, element_id in found}
        if len(keys) != len(found):
            found = self._parent_links_from_bytes(text, spans, found)
            keys = {element_id: key for key, element_id in found}
        self.defined = _LazyDefinitions(tree, keys)
        if len(keys) != len(found):
            counts = Counter(eid for _, eid in found)
            # One pass for every duplicated ID: a search of the whole buffer per ID was
            # quadratic in a file made of copies.
            where: dict[str, list[int]] = {eid: [] for eid, n in counts.items() if n > 1}
            for lo, hi in spans:
                for match in DEFINITION.finditer(text, lo, hi):
                    key, element_id = match.groups()
                    offsets = where.get(element_id)
                    if offsets is not None and keys[element_id] == key:
                        offsets.append(match.start())
            for element_id, offsets in where.items():
                self.duplicates[element_id] = Duplicate(
                    element_id, [Location(tree=tree, offset=o) for o in offsets]
                )

    def _parent_links_from_bytes(
        self, text: str, spans: list[tuple[int, int]], found: list[tuple[str, str]]
    ) -> list[tuple[str, str]]:
        """The parent's ID written as ``ParentReference`` (:func:`repeated_links`) becomes a
        value; this only runs when some ID is defined twice."""
        links = repeated_links(found)
        if not links:
            return found
        for lo, hi in spans:
            for match in PARENT_REFERENCE.finditer(text, lo, hi):
                if match.group(1) in links:
                    location = Location(tree=self.tree, offset=match.start())
                    self.values.append((location, match.group(1)))
        self.values.sort(key=lambda item: item[0].offset or 0)
        return [(k, eid) for k, eid in found if k != "ParentReference" or eid not in links]

    # -- building from nodes ---------------------------------------------------------------
    def _define(self, element_id: str, location: Location) -> None:
        previous = self.defined.get(element_id)
        if previous is None:
            self.defined[element_id] = location
            return
        dup = self.duplicates.get(element_id)
        if dup is None:
            dup = self.duplicates[element_id] = Duplicate(element_id, [previous])
        dup.locations.append(location)

    def _scan_slot(self, slot: Slot, links: list[tuple[Location, str]]) -> None:
        for key in slot:
            if key == "Children":
                continue
            if key == "Components":
                member = slot.components_member
                if member is not None and is_guid(member.id):
                    self._define(str(member.id), Location(slot, ("Components",)))
                for component in slot.components:
                    self._scan(component, ("Data",), component.data.decoded())
                continue
            value = slot.get(key)
            if isinstance(value, str):
                if is_guid(value):
                    if key == "ParentReference":
                        links.append((Location(slot, (key,)), value))
                    elif defines_id(key):
                        self._define(value, Location(slot, () if key == "ID" else (key,)))
                    else:
                        self.values.append((Location(slot, (key,)), value))
            elif isinstance(value, dict | list):
                self._scan(slot, (key,), value)

    def _scan(self, anchor: Slot | Component, base: Path, value: Any) -> None:
        stack: list[tuple[Path, Any]] = [(base, value)]
        define = self._define
        values = self.values
        while stack:
            path, obj = stack.pop()
            items = obj.items() if isinstance(obj, dict) else enumerate(obj)
            for key, item in items:
                if isinstance(item, str):
                    if len(item) == 36 and is_guid(item):
                        if isinstance(key, str) and defines_id(key):
                            where = path if key == "ID" else (*path, key)
                            define(item, Location(anchor, where))
                        else:
                            values.append((Location(anchor, (*path, key)), item))
                elif isinstance(item, dict | list):
                    stack.append(((*path, key), item))

    # -- lookups --------------------------------------------------------------------------
    def __contains__(self, element_id: object) -> bool:
        return element_id in self.defined

    def __len__(self) -> int:
        return len(self.defined)

    def __iter__(self) -> Iterator[str]:
        return iter(self.defined)

    def resolve(self, element_id: str) -> Element | None:
        location = self.defined.get(element_id)
        return None if location is None else element_at(location)

    def where(self, element_id: str) -> Location | None:
        return self.defined.get(element_id)
