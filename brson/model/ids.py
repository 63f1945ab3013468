"""Every element that has an ID, and every ID-shaped value that may point at one.

What counts as a definition: a GUID-shaped string under the key ``ID`` (it names the document
holding it: a slot, component, member or list element), under a key ending in ``-ID``
(``Persistent-ID``, ``persistent-ID``, ``_shader-ID``…) or under ``ParentReference`` (in
engine-written files an ID of its own, the slot's parent link, not the parent's ID).  Every
other GUID-shaped string is a value that may reference an element (the format has no type tag
for references).

Two ways to build the same index:

* an unmodified tree is indexed straight from its BSON bytes: one regular-expression pass finds
  every GUID-shaped string element (C speed), and where each one lives (slot, component, key
  path) is worked out only when asked, by descending the document from the root;
* an edited tree is scanned structurally (slot keys through the lazy index, component ``Data``
  through pymongo's decoder), since its bytes are not assembled yet.

Caveat of the byte scan: a string *value* that itself contains the bytes of a BSON string
element holding a GUID would be counted; its location then does not resolve and it is dropped
(``resolve`` returns None).  Engine-written files never contain such strings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass, field
from typing import Any

from brson.collector import paused_gc
from brson.document import raw
from brson.errors import ModelError
from brson.model import idscan
from brson.model.idforms import (
    DEFINITION,
    DEFINITION_BYTES,
    PARENT_REFERENCE,
    REFERENCE,
    defines_id,
)
from brson.model.idscan import definition_lookups, scan_ids
from brson.model.node import Node
from brson.model.tree import Component, DataTree, Element, IdRef, Member, Slot, is_guid

#: A path inside an anchor: keys (str) and list positions (int).
Path = tuple[str | int, ...]


def definition_offsets(tree: DataTree, wanted: Container[str] | None = None) -> dict[str, int]:
    """ID -> offset of its (first) definition in an unmodified tree, in one regex pass
    (only the ``wanted`` IDs when given): locating definitions one search at a time scans the
    whole buffer each."""
    buf = tree.buffer
    offsets: dict[str, int] = {}
    with paused_gc():
        for lo, hi in id_spans(tree):
            for match in DEFINITION_BYTES.finditer(buf, lo, hi):
                element_id = match.group(2).decode("latin-1")
                if wanted is None or element_id in wanted:
                    offsets.setdefault(element_id, match.start())
    return offsets


class DefinitionTable:
    """ID -> offset of its first definition in an unmodified tree, for many lookups.

    Why not :attr:`DataTree.ids`: the full index keeps a Python string and a location per ID
    and per ID-shaped value (about 3.5x the BSON of a generated world in memory), and
    :func:`definition_offsets` a dict entry per ID.  Lookups of many IDs (extract's closure,
    the index's own definitions once a few were searched for) need only "where is this ID
    defined": the compiled scan's hash table answers them, and without it one sorted array of
    (hash, offset), 8 bytes an ID, searched by bisection (IDs sharing the hash are told apart
    by reading the definition at each candidate offset).
    """

    def __init__(self, tree: DataTree) -> None:
        #: With the compiled scan, its hash table answers (packing the offsets takes a Python
        #: step per definition, several times as long); without it the packed array.
        self._scan = definition_lookups(tree.buffer, id_spans(tree))

    def offset(self, element_id: str) -> int | None:
        """Where ``element_id`` is first defined (the offset of its string element)."""
        return self._scan.offset(element_id)


def ids_in_bytes(data: bytes) -> tuple[set[str], list[str]]:
    """``(IDs defined, other ID-shaped values)`` in a BSON fragment (a component's bytes), by
    the rules :class:`IdIndex` applies to an unmodified tree, without building a tree for it:
    extracting copies tens of thousands of components, and a tree per copy cost most of it."""
    elements = idscan.id_elements(data)
    return ids_in_bytes_py(data) if elements is None else ids_from_elements(*elements)


def ids_from_elements(
    others: list[str], parents: list[str], values: list[str]
) -> tuple[set[str], list[str]]:
    """:func:`ids_in_bytes` from the compiled scan's definitions (not under / under
    ``ParentReference``) and other values, each in byte order."""
    if not parents:
        return set(others), values
    named = set(others)
    # a ParentReference repeating another key's definition is a link (_repeated_links)
    values += [eid for eid in parents if eid in named]
    named.update(parents)
    return named, values


def ids_in_bytes_py(data: bytes) -> tuple[set[str], list[str]]:
    """:func:`ids_in_bytes` by the idforms patterns (the reference the C path is tested
    against)."""
    text = data.decode("latin-1")
    found: list[tuple[str, str]] = DEFINITION.findall(text)
    values = [match.group(2) for match in REFERENCE.finditer(text)]
    links = _repeated_links(found)
    values += [eid for key, eid in found if key == "ParentReference" and eid in links]
    defined = {eid for key, eid in found if key != "ParentReference" or eid not in links}
    return defined, values


def _repeated_links(found: list[tuple[str, str]]) -> set[str]:
    """IDs a ``ParentReference`` repeats from another key's definition, in ``(key, ID)``
    definitions: third-party generators write the parent's ID there, which is a reference to
    the parent, not a second definition (engine files never repeat an ID)."""
    others = {element_id for key, element_id in found if key != "ParentReference"}
    return {eid for key, eid in found if key == "ParentReference" and eid in others}


class Location:
    """Where an element or value lives: a slot or component (the anchor) and a key path.

    Built either with both known (structural scan) or from a byte offset in an unmodified
    tree, in which case anchor and path are found on first use.
    """

    __slots__ = ("_anchor", "_offset", "_path", "_tree")

    def __init__(
        self,
        anchor: Slot | Component | None = None,
        path: Path | None = None,
        *,
        tree: DataTree | None = None,
        offset: int | None = None,
    ) -> None:
        self._anchor = anchor
        self._path = path
        self._tree = tree
        self._offset = offset

    def _locate(self) -> None:
        if self._path is None:
            assert self._tree is not None and self._offset is not None
            found = locate(self._tree, self._offset) if self._offset >= 0 else None
            self._anchor, self._path = found if found else (None, ())

    @property
    def anchor(self) -> Slot | Component | None:
        self._locate()
        return self._anchor

    @property
    def offset(self) -> int | None:
        """The byte offset this location was made from (None when built with a known anchor
        and path): callers that locate many offsets at once read it instead of locating each
        one, and byte checks next to the value need no descent."""
        return self._offset

    @property
    def is_located(self) -> bool:
        """Whether anchor and path are known (else they are found on first use)."""
        return self._path is not None

    def may_be_key(self, key: str) -> bool:
        """False when this is surely not an element named ``key``; cheap, for filtering many
        locations before locating the rest (an offset location reads its element header in
        the bytes instead of descending the tree; the full path decides afterwards)."""
        if self._path is None and self._tree is not None and self._offset is not None:
            header = b"\x02" + key.encode() + b"\x00"
            return self._offset >= 0 and self._tree.buffer.startswith(header, self._offset)
        return bool(self.path) and self.path[-1] == key

    @property
    def path(self) -> Path:
        self._locate()
        assert self._path is not None
        return self._path

    @property
    def slot(self) -> Slot | None:
        """The slot this location belongs to (a component's slot for component anchors)."""
        anchor = self.anchor
        return anchor if isinstance(anchor, Slot) else anchor.slot if anchor else None

    def set_value(self, value: Any) -> None:
        """Replace the value here, materializing nodes on the way as navigation does (a
        component's ``Data`` as its node, member documents as Members), so the edit is the
        one the model shows; ModelError when nothing is there."""
        anchor, path = self.anchor, self.path
        if anchor is None or not path:
            raise ModelError("no value at an unknown location")
        node: Node = anchor
        n = 0
        while n < len(path) - 1:
            part, nxt = path[n], path[n + 1]
            if isinstance(nxt, int):
                items: list[Any] | None = node.child_nodes(str(part), Member)
                if items is None or nxt >= len(items):
                    raise ModelError(f"no value at {path!r}")
                if n + 1 == len(path) - 1:  # a bare value inside an array
                    items[nxt] = value
                    node.touch()
                    return
                item = items[nxt]
                if not isinstance(item, Node):
                    raise ModelError(f"no value at {path!r}")
                node = item
                n += 2
                continue
            if isinstance(node, Component) and part == "Data":
                node = node.data
            else:
                child = node.child_node(str(part), Member)
                if child is None:
                    raise ModelError(f"no value at {path!r}")
                node = child
            n += 1
        node.set(str(path[-1]), value)

    def describe(self) -> str:
        """Human path: ``Root/Body:MeshRenderer.Materials[0]``.  The slot part is the
        bounded display path (exact unless over a thousand characters): a report describing
        every reference of a deep tree by full paths grew with depth squared."""
        anchor = self.anchor
        if anchor is None:
            return "<unknown>"
        return anchor_text(anchor) + path_text(self.path)

    def __repr__(self) -> str:
        return f"Location({self.describe()!r})"


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
        """The parent's ID written as ``ParentReference`` (:func:`_repeated_links`) becomes a
        value; this only runs when some ID is defined twice."""
        links = _repeated_links(found)
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


def _containing(idx: dict[str, raw.Element], offset: int) -> tuple[str, raw.Element] | None:
    for key, elem in idx.items():
        if elem[1] <= offset < elem[3]:
            return key, elem
    return None


def _child_at(kids: list[Any], offset: int) -> Slot | None:
    """The child slot spanning ``offset``: bisected (children are in byte order), so locating
    many values in a wide tree costs the depth, not the number of siblings."""
    lo, hi = 0, len(kids)
    while lo < hi:
        mid = (lo + hi) // 2
        kid = kids[mid]
        if not isinstance(kid, Slot):  # not a slot list after all: look at each
            return next(
                (k for k in kids if isinstance(k, Slot) and k.span[0] <= offset < k.span[1]), None
            )
        start, end = kid.span
        if offset < start:
            hi = mid
        elif offset >= end:
            lo = mid + 1
        else:
            return kid
    return None


def locate(tree: DataTree, offset: int) -> tuple[Slot | Component, Path] | None:
    """Anchor and path of the string element starting at ``offset`` in an unmodified tree."""
    found = _containing(tree.element_index(), offset)
    if found is None:
        return None
    if found[0] == "Object":
        slot: Slot = tree.root
        while True:
            found = _containing(slot.element_index(), offset)
            if found is None:
                return None
            key = found[0]
            if key == "Children":
                kid = _child_at(slot.child_nodes("Children", Slot) or [], offset)
                if kid is None:
                    return None
                kid.tree, kid.parent = slot.tree, slot  # as Slot.children would
                slot = kid
                continue
            if key == "Components":
                for component in slot.components:
                    start, end = component.span
                    if start <= offset < end:
                        return _descend(component, offset, start, end)
            return _descend(slot, offset, *slot.span)
    if found[0] == "Assets":
        for component in tree.assets:
            start, end = component.span
            if start <= offset < end:
                return _descend(component, offset, start, end)
    return None


def _descend(
    anchor: Slot | Component, offset: int, start: int, end: int
) -> tuple[Slot | Component, Path] | None:
    """Follow the documents containing ``offset`` down to the element that starts there."""
    buf = anchor.buffer
    path: list[str | int] = []
    is_array = False
    while True:
        found = _containing(raw.index(buf, start, end), offset)
        if found is None:
            return None
        key, elem = found
        part: str | int = int(key) if is_array else key
        if elem[1] == offset:
            if key == "ID":
                return anchor, tuple(path)
            return anchor, (*path, part)
        if elem[0] not in (raw.DOCUMENT, raw.ARRAY):
            return None
        path.append(part)
        is_array = elem[0] == raw.ARRAY
        start, end = elem[2], elem[3]


def element_at(location: Location) -> Element | None:
    """Materialize the element a location names (slot, component, member or ID key)."""
    anchor, path = location.anchor, location.path
    if anchor is None:
        return None
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
        elif (etype := node.etype(part)) == raw.STRING or (
            etype is None and isinstance(node.get(part), str)  # decode only edited values
        ):
            return IdRef(node, part) if last else None
        else:
            child = node.child_node(part, Member)
            if child is None:
                return None
            node = child
        if isinstance(node, Member):
            node.tree = anchor.tree
    return node if isinstance(node, Slot | Component | Member) else None


# -- describing locations: one rule for Location.describe and the bulk describers ----------
def anchor_text(anchor: Slot | Component) -> str:
    """The head of a description: a slot's bounded display path; for a component its slot's
    (:func:`slot_text`) and ``:`` its short type name (:func:`component_text`)."""
    if isinstance(anchor, Slot):
        return anchor.display_path()
    return component_text(slot_text(anchor.slot), type_text(anchor))


def slot_text(slot: Slot | None) -> str:
    """The slot part of a description: its bounded display path; ``<Assets>`` for a root
    asset, which has no slot."""
    return slot.display_path() if slot is not None else "<Assets>"


def component_text(slot_part: str, type_name: str) -> str:
    """A component's head: ``Root/Body:MeshRenderer``."""
    return f"{slot_part}:{type_name}"


def type_text(component: Component) -> str:
    """A component's short type name in a description; ``?`` for a ``Type`` that names no
    type (validate reports it).  A function of ``type_index`` within a tree."""
    try:
        return component.type.name
    except Exception:  # an invalid Type index is reported elsewhere
        return "?"


class TypeLabels:
    """``label(component)`` made once per ``Type`` value of one tree: a component's type
    name is a function of its ``type_index`` within a tree, and a closure or a reference
    listing names thousands of components of a few dozen types."""

    __slots__ = ("_known", "_label")

    def __init__(self, label: Callable[[Component], str] = type_text) -> None:
        self._label = label
        self._known: dict[tuple[type, Any], str] = {}

    def of(self, component: Component) -> str:
        type_index = component.type_index
        if type(type_index) not in (int, str):  # hostile files hold any value (bson Code)
            return self._label(component)
        key = (type(type_index), type_index)
        name = self._known.get(key)
        if name is None:
            name = self._known[key] = self._label(component)
        return name


def path_text(path: Path) -> str:
    """The tail of a description: ``.Materials[0]`` for ``("Data", "Materials", "Data", 0)``
    (the engine's ``Data`` and ``ID`` levels are implied)."""
    tail = ""
    for part in path:
        if isinstance(part, int):
            tail += f"[{part}]"
        elif part not in ("Data", "ID"):
            tail += f".{part}"
    return tail


# -- every reference from the bytes, for listing them all ----------------------------------
@dataclass
class ReferenceScan:
    """What listing every reference of an unmodified tree needs, from its bytes alone."""

    #: How many IDs the tree defines (``len(IdIndex.defined)``).
    defined: int
    #: ``(offset of the value's string element, ID)`` of every reference, in byte order
    #: (``IdIndex.values``).
    references: list[tuple[int, str]]
    #: Each ID that a reference names and the tree defines -> offset of its definition.
    definitions: dict[str, int]


def scan_references(tree: DataTree) -> ReferenceScan | None:
    """The references of an unmodified tree and where their targets are defined, from one
    :func:`~brson.model.idscan.scan_ids` pass over the bytes.

    What :class:`IdIndex` and :func:`definition_offsets` give together (the same patterns and
    spans), for a reader that lists every reference once: the index keeps a string and a
    key per definition (~65 a slot) and the offsets took a second scan decoding
    each.  None when an ID is defined twice: parent links and duplicates follow the index's
    rules (``IdIndex.build``), so such a file goes through it.
    """
    found = scan_ids(tree.buffer, id_spans(tree))
    if found.repeated:
        return None
    return ReferenceScan(found.count, found.references, found.targets())


@dataclass
class IdCensus:
    """What checking a tree's references needs of its IDs, from its bytes, without an index.

    :class:`IdIndex` keeps a string per ID and a :class:`Location` per ID-shaped value (a
    world has ~65 IDs a slot: about 3.5x the BSON in memory and most of ``validate``'s time).
    A check of references needs less: whether every definition is distinct, the values
    with their offsets, which of them some definition names, and the first definitions (the
    numbering style).  The IDs live as bytes for the scan only (no dict, no location);
    when one repeats, :meth:`scan` gives None and the caller needs the full index (the
    duplicates, and the parent links some of them may be, are worked out there).  Unmodified
    trees only: the bytes are the tree.
    """

    #: ``(offset, ID)`` of every ID-shaped string element that defines no ID, in byte order
    #: (:attr:`IdIndex.values` of the same tree, as offsets).
    values: list[tuple[int, str]]
    #: The values that some element defines.
    defined_values: set[str]
    #: The first definitions in byte order (at most the ``sample`` asked for).
    first: list[str]
    #: How many IDs the tree defines.
    count: int

    @classmethod
    def scan(cls, tree: DataTree, sample: int = 0) -> IdCensus | None:
        """Count an unmodified tree's IDs; None when some definition repeats."""
        found = scan_ids(tree.buffer, id_spans(tree), sample)
        if found.repeated:
            return None
        return cls(
            values=found.references,
            defined_values=found.referenced(),
            first=found.first,
            count=found.count,
        )


def id_spans(tree: DataTree) -> list[tuple[int, int]]:
    """The spans of the root's ``Object`` and ``Assets``: where IDs are defined and used."""
    root = tree.element_index()
    return [(e[1], e[3]) for key, e in root.items() if key in ("Object", "Assets")]
