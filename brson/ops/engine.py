"""The diff engine: a document cut into elements keyed by ID, and the one rule for when two
values are the same.  ``diff``, ``diff --json``, ``apply`` and ``merge`` all stand on it.

A data tree's *elements* are the root document, every slot (its ``Children`` and its
``Components`` member's ``Data`` reduced to placeholders: :attr:`Parts.children` and
:attr:`Parts.slot_components` hold the ID lists) and every component (its ``Type`` index read
as a :class:`TypeRef`, name and stored width, so an element means the same in a file whose
``Types`` table is ordered differently).

Equality (:func:`same`) is the file's: the same BSON type (int32 is not int64, a bool is not
an int), floats by their bits, keys in the same order.  A changed width or key order is a
change of the file, never "equal".

Cutting decodes only what differs: elements are told equal by their bytes
(:meth:`Parts.fingerprint`), and :func:`cut_pair` leaves out, from the two slot tables, every
slot whose bytes (subtree and all) and parent are the same on both sides, so a diff of two big,
mostly equal trees costs the walk of their spans.  A document that cannot be cut by ID still
gets keys, from positions; :attr:`Parts.exact` is False then, and a patch replaces it whole.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from bson.int64 import Int64
from bson.raw_bson import RawBSONDocument

from brson.document import bsondoc
from brson.model import elements, spans
from brson.model.typename import TypeName

#: The component list of the root ``Assets`` (NeosVR asset providers), as an owner key.
ASSETS = "<Assets>"
#: Root keys that hold the tree, not values (each carried by the parts as such).
TREE_KEYS = ("Object", "Types", "Assets")
_DOUBLE = struct.Struct("<d")

#: A key inside an element: one key, or ``Data`` and a member key for components.
KeyPath = tuple[str, ...]


@dataclass(frozen=True)
class TypeRef:
    """A component's ``Type`` as a name, with the width its index is stored in."""

    name: str
    wide: bool


class Undecomposable(Exception):
    """The document's structure is not a slot tree (the patch replaces it whole)."""


# -- the equality rule ---------------------------------------------------------------------------
def same(a: Any, b: Any) -> bool:
    """Equal values of the same BSON type, keys in the same order; floats by their bits.
    Iterative: values nest as deep as BSON allows."""
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


# -- views decoded on first use -----------------------------------------------------------------
class Views:
    """Element views by key, in document order, each decoded from the bytes on first use."""

    def __init__(self, decode: Callable[[Any], dict[str, Any]]) -> None:
        self._decode = decode
        #: What each element was cut from (None for a view set by an edit), in order; the
        #: hot loops test membership here, without a method call.
        self.raws: dict[str, Any] = {}
        self._views: dict[str, dict[str, Any]] = {}

    def __contains__(self, key: object) -> bool:
        return key in self.raws

    def untouched(self, key: str) -> Any:
        """What the element was cut from, while no view of it was handed out (None after)."""
        return None if key in self._views else self.raws[key]

    def __getitem__(self, key: str) -> dict[str, Any]:
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = self._decode(self.raws[key])
        return view

    def __setitem__(self, key: str, view: dict[str, Any]) -> None:
        self.raws[key] = None
        self._views[key] = view

    def __delitem__(self, key: str) -> None:
        del self.raws[key]
        self._views.pop(key, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.raws)

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for key in list(self.raws):
            yield key, self[key]


# -- one document's elements ---------------------------------------------------------------------
class Parts:
    """One document's elements: the root's own values, and every slot and component by key
    (its ID; a made-up ``@...`` key when it has none or shares it, then :attr:`exact` is
    False)."""

    def __init__(self, buf: bytes, whole: bool = True) -> None:
        """``whole``: every slot and component (else the root's own values and its assets;
        :func:`cut_pair` adds the slots that can differ)."""
        self.buf = buf
        self.exact = True
        self.root: dict[str, Any] = {}
        self.root_slot: str | None = None
        self.assets: list[str] | None = None
        self.types: list[str] | None = None
        self.slots = Views(self._slot_view)
        self.components = Views(self._component_view)
        self.children: dict[str, list[str]] = {}
        self.slot_components: dict[str, list[str]] = {}
        self.parent: dict[str, str | None] = {}
        self.owner: dict[str, str] = {}
        #: The element's ID where its key is not it (none, or shared with another element).
        self.real_ids: dict[str, str | None] = {}
        self._suffixes: dict[str, int] = {}
        self._paths: dict[str, str] = {}
        #: The ``Object`` slot's element (the root's own values are cut first).
        self.object = self._cut_root()
        if whole:
            self._cut_slots(self.object)

    # -- cutting -------------------------------------------------------------------------------
    def _cut_root(self) -> elements.Element:
        buf = self.buf
        top = elements.index(buf, 0, len(buf))
        table = top.get("Types")
        if table is not None:
            names = elements.scalar(buf, table)
            if isinstance(names, list) and all(isinstance(t, str) for t in names):
                self.types = names
                self.exact = self.exact and len(set(names)) == len(names)
            else:
                self.exact = False
        obj = top.get("Object")
        assets = top.get("Assets")
        if obj is None or obj[0] != elements.DOCUMENT:
            raise Undecomposable("no Object slot")
        for key, elem in top.items():
            whole = key == "Types" and self.types is None
            self.root[key] = None if key in TREE_KEYS and not whole else elements.scalar(buf, elem)
        if assets is not None:
            items = _documents(buf, assets)
            if items is None:
                self.root["Assets"] = elements.scalar(buf, assets)
            else:
                self.assets = [self._add_component(item, ASSETS, i) for i, item in enumerate(items)]
        return obj

    def _cut_slots(self, obj: elements.Element) -> None:
        stack: list[tuple[int, int, str | None, int]] = [(obj[2], obj[3], None, 0)]
        layout: elements.Layout = ()
        while stack:
            start, end, parent, position = stack.pop()
            key, items, layout = self.add_slot(start, end, parent, position, layout)
            if parent is not None:
                self.children[parent].append(key)
            self.children[key] = []
            stack.extend((e[2], e[3], key, i) for i, e in reversed(list(enumerate(items))))

    def add_slot(
        self, start: int, end: int, parent: str | None, position: int, layout: elements.Layout
    ) -> tuple[str, list[elements.Element], elements.Layout]:
        """Cut the slot ``buf[start:end]`` and its components (not its children, whose
        documents it returns); its key."""
        buf = self.buf
        idx, layout = elements.index_like(buf, start, end, layout)
        key = self._key(self.slots, _string(buf, idx.get("ID")), f"{parent}/{position}")
        if parent is None:
            self.root_slot = key
        self.parent[key] = parent
        owned: list[str] = []
        member = idx.get("Components")
        if member is not None:
            items = _member_documents(buf, member)
            if items is None:
                raise Undecomposable("Components is not a member holding components")
            owned = [self._add_component(item, key, i) for i, item in enumerate(items)]
        self.slot_components[key] = owned
        self.slots.raws[key] = (start, end, idx)
        kids = idx.get("Children")
        if kids is None:
            return key, [], layout
        children = _documents(buf, kids)
        if children is None:
            raise Undecomposable("Children is not a list of slots")
        return key, children, layout

    def _key(self, table: Views, element_id: str | None, fallback: str) -> str:
        key = element_id if element_id is not None else f"@{fallback}"
        if key in table.raws:
            # Counting on from the last suffix this key was given: probing #2, #3, ... from
            # the start for each duplicate is quadratic.
            n = self._suffixes.get(key, 1) + 1
            while f"{key}#{n}" in table.raws:
                n += 1
            self._suffixes[key] = n
            key = f"{key}#{n}"
        if key != element_id:
            self.exact = False
            self.real_ids[key] = element_id
        return key

    def _add_component(self, elem: elements.Element, owner: str, position: int) -> str:
        buf = self.buf
        start, end = elem[2], elem[3]
        idx = elements.component_index(buf, start, end)
        data = idx.get("Data")
        element_id = None
        if data is not None and data[0] == elements.DOCUMENT:
            element_id = _string(buf, _id_element(buf, data))
        if element_id is None or element_id in self.components.raws:
            key = self._key(self.components, element_id, f"{owner}:{position}")
        else:
            key = element_id
        ref: TypeRef | None = None
        raw_type = idx.get("Type")
        table = self.types
        if table is not None and raw_type is not None and raw_type[0] in _INTEGERS:
            wide = raw_type[0] == elements.INT64
            index = _index_value(buf, raw_type)
            if 0 <= index < len(table):
                ref = TypeRef(table[index], wide)
            else:
                self.exact = False
        # Only the Type element is kept: an index per component would be most of the memory.
        self.components.raws[key] = (start, end, raw_type, ref)
        self.owner[key] = owner
        return key

    # -- views ---------------------------------------------------------------------------------
    def _slot_view(self, raw: tuple[int, int, dict[str, elements.Element]]) -> dict[str, Any]:
        """The slot's own document in one decode: its bytes with ``Children`` and the
        ``Components`` member's ``Data`` as nulls in their places."""
        buf = self.buf
        pieces: list[bytes] = []
        for key, elem in raw[2].items():
            if key == "Children":
                pieces.append(_NULL + buf[elem[1] + 1 : elem[2]])
            elif key == "Components" and elem[0] == elements.DOCUMENT:
                shell = elements.member_index(buf, elem[2], elem[3])
                inner = [
                    _NULL + buf[e[1] + 1 : e[2]] if k == "Data" else buf[e[1] : e[3]]
                    for k, e in shell.items()
                ]
                pieces.append(buf[elem[1] : elem[2]] + elements.assemble(inner))
            else:
                pieces.append(buf[elem[1] : elem[3]])
        doc = elements.assemble(pieces)
        return elements.decode_doc(doc, 0, len(doc))

    def _component_view(self, raw: tuple[int, int, Any, TypeRef | None]) -> dict[str, Any]:
        start, end, _, ref = raw
        view = elements.decode_doc(self.buf, start, end)
        if ref is not None:
            view["Type"] = ref
        return view

    def fingerprint(self, table: Views, key: str) -> Any:
        """What tells two unedited elements apart without decoding them: their bytes, less
        what is not part of the element (a slot's children and components; a component's
        ``Type`` index, given as its name and width instead).  None for an element set by an
        edit."""
        raw = table.raws[key]
        if raw is None:
            return None
        buf = self.buf
        start, end, idx = raw[0], raw[1], raw[2]
        cuts: list[tuple[int, int]] = []
        if len(raw) == 4:  # a component
            ref = raw[3]
            if ref is None:
                return (None, buf[start:end])
            elem = raw[2]
            return (ref.name, ref.wide, buf[start : elem[2]], buf[elem[3] : end])
        kids = idx.get("Children")
        if kids is not None:
            cuts.append((kids[2], kids[3]))
        member = idx.get("Components")
        if member is not None:
            data = elements.member_index(buf, member[2], member[3]).get("Data")
            if data is not None:
                cuts.append((data[2], data[3]))
        cuts.sort()
        pieces: list[bytes] = []
        at = start
        for cut_start, cut_end in cuts:
            pieces.append(buf[at:cut_start])
            at = cut_end
        pieces.append(buf[at:end])
        return pieces

    # -- naming --------------------------------------------------------------------------------
    def element_id(self, key: str) -> str | None:
        return self.real_ids.get(key, key)

    def slot_path(self, key: str | None) -> str:
        if key is None:
            return "?"
        if key == ASSETS:
            return ASSETS
        known = self._paths.get(key)
        if known is not None:
            return known
        chain: list[str] = []
        node: str | None = key
        seen: set[str] = set()
        prefix: str | None = None
        while node is not None and node in self.slots and node not in seen:
            if node in self._paths:
                prefix = self._paths[node]
                break
            seen.add(node)
            chain.append(node)
            node = self.parent.get(node)
        text = prefix
        for slot in reversed(chain):
            name = self._slot_name(slot)
            text = name if text is None else f"{text}/{name}"
            self._paths[slot] = text
        return text if text is not None else "?"

    def _slot_name(self, key: str) -> str:
        """The slot's name, read from its bytes alone while its view is not needed."""
        raw = self.slots.raws[key]
        if raw is None:
            return _name(self.slots[key])
        elem = raw[2].get("Name")
        if elem is None or elem[0] != elements.DOCUMENT:
            return ""
        data = elements.member_index(self.buf, elem[2], elem[3]).get("Data")
        return _string(self.buf, data) or ""

    def forget_paths(self) -> None:
        """Paths change when an edit renames or moves slots."""
        self._paths.clear()

    def type_name(self, key: str) -> str:
        view_type = self.components[key].get("Type")
        return view_type.name if isinstance(view_type, TypeRef) else type_label(view_type)

    def component_path(self, key: str) -> str:
        where = self.slot_path(self.owner.get(key))
        view_type = self.components[key].get("Type") if key in self.components else None
        return f"{where}:{short_type(view_type)}"

    def refs(self) -> Iterator[TypeRef]:
        """Every component's type (without decoding the components not looked at)."""
        views = self.components
        for key in views:
            raw = views.untouched(key)
            ref = raw[3] if raw is not None else views[key].get("Type")
            if isinstance(ref, TypeRef):
                yield ref


_INTEGERS = (0x10, elements.INT64)
#: A null element's type byte: a placeholder keeps its key's place in the view.
_NULL = b"\x0a"


def _index_value(buf: bytes, elem: elements.Element) -> int:
    """The value of an int32 or int64 element (a ``Type`` index), read in place."""
    return int.from_bytes(buf[elem[2] : elem[3]], "little", signed=True)


def _string(buf: bytes, elem: elements.Element | None) -> str | None:
    if elem is None or elem[0] != elements.STRING:
        return None
    try:
        return buf[elem[2] + 4 : elem[3] - 1].decode()
    except UnicodeDecodeError:
        return None


def _id_element(buf: bytes, data: elements.Element) -> elements.Element | None:
    """A ``Data`` document's ``ID`` element: its first, where the engine writes it."""
    start = data[2]
    if buf[start + 4] == elements.STRING and buf[start + 5 : start + 8] == b"ID\x00":
        length = int.from_bytes(buf[start + 8 : start + 12], "little", signed=True)
        end = start + 12 + length
        if length > 0 and end <= data[3]:
            return (elements.STRING, start + 4, start + 8, end)
    return elements.index(buf, data[2], data[3]).get("ID")


def _documents(buf: bytes, elem: elements.Element) -> list[elements.Element] | None:
    if elem[0] != elements.ARRAY:
        return None
    items = elements.array_items(buf, elem[2], elem[3])
    for item in items:
        if item[0] != elements.DOCUMENT:
            return None
    return items


def _member_documents(buf: bytes, elem: elements.Element) -> list[elements.Element] | None:
    if elem[0] != elements.DOCUMENT:
        return None
    data = elements.member_index(buf, elem[2], elem[3]).get("Data")
    return None if data is None else _documents(buf, data)


def _name(view: dict[str, Any]) -> str:
    member = view.get("Name")
    name = member.get("Data") if isinstance(member, dict) else None
    return name if isinstance(name, str) else ""


def type_label(value: Any) -> str:
    """A ``Type`` that is not an index into ``Types``: a NeosVR name, or shown as ``#value``."""
    return value if isinstance(value, str) else f"#{value}"


def short_type(type_value: Any) -> str:
    """``MeshRenderer`` for ``[FrooxEngine]FrooxEngine.MeshRenderer``."""
    name = type_value.name if isinstance(type_value, TypeRef) else type_value
    if not isinstance(name, str):
        return f"#{name}" if isinstance(name, int) else repr(name)
    return TypeName.parse(name).name or name


class _Table:
    """Every slot of one document, flat: value spans, parent rows (-1 for the root), IDs."""

    def __init__(self, slots: array[int], slot_ids: list[str]) -> None:
        self.starts, self.ends, self.parents = slots[0::3], slots[1::3], slots[2::3]
        self.ids = slot_ids
        self.row = {start: number for number, start in enumerate(self.starts)}

    def preorder(self) -> list[int]:
        """Rows in document order: a parent starts before its children, siblings in order."""
        return sorted(range(len(self.starts)), key=self.starts.__getitem__)


def _table(parts: Parts) -> _Table | None:
    """The document's slot table when every slot and component has an ID of its own and
    every ``Type`` index is in the table (the document cuts exactly by ID), else None.
    One compiled walk, then a key index per slot and component (no values decoded)."""
    if not parts.exact:
        return None
    buf, types = parts.buf, parts.types
    walked = spans.slot_walk(buf, parts.object)
    if walked is None:
        return None
    components, slots = walked
    slot_ids: list[str] = []
    layout: elements.Layout = ()
    index_like, member_data = elements.index_like, elements.member_data
    for at in range(0, len(slots), 3):
        idx, layout = index_like(buf, slots[at], slots[at + 1], layout)
        slot_id = _string(buf, idx.get("ID"))
        if slot_id is None:
            return None
        member = idx.get("Components")
        if member is not None and (
            member[0] != elements.DOCUMENT
            or (data := member_data(buf, member[2], member[3])) is None
            or data[0] != elements.ARRAY
        ):
            return None  # the full cut says why (or finds an odd layout fine)
        kids = idx.get("Children")
        if kids is not None and kids[0] != elements.ARRAY:
            return None
        slot_ids.append(slot_id)
    component_ids: list[str] = []
    count = len(types) if types is not None else 0
    for at in range(0, len(components), 3):
        idx = elements.component_index(buf, components[at], components[at + 1])
        data = idx.get("Data")
        component_id = None
        if data is not None and data[0] == elements.DOCUMENT:
            component_id = _string(buf, _id_element(buf, data))
        if component_id is None:
            return None
        raw_type = idx.get("Type")
        if types is not None and raw_type is not None and raw_type[0] in _INTEGERS:
            index = _index_value(buf, raw_type)
            if not 0 <= index < count:
                return None
        component_ids.append(component_id)
    owned = set(component_ids)
    if len(owned) != len(component_ids) or len(set(slot_ids)) != len(slot_ids):
        return None
    if parts.assets is not None and any(key in owned for key in parts.assets):
        return None
    return _Table(slots, slot_ids)


#: How many times its BSON a pair cut compares bytes of equal-length subtrees before it
#: stops trying (each edited slot's ancestors have equal lengths when a value kept its
#: width; comparing each ancestor whole on a deep chain would be quadratic).
_COMPARE_BUDGET = 4


def cut_pair(data_a: bytes, data_b: bytes) -> tuple[Parts, Parts]:
    """Both documents' elements for comparing them (raises :class:`Undecomposable`).

    A slot whose bytes (subtree and all) and parent are the same on both sides holds no
    change: it is left out with everything under it, never indexed nor decoded, so a diff
    of two mostly equal trees costs a walk of their spans and a key index per element.
    Only when both documents cut exactly by ID (unique IDs: a slot in one tree is where
    the other tree's equal subtree has it); else both are cut whole."""
    pa, pb = Parts(data_a, whole=False), Parts(data_b, whole=False)
    ta, tb = _table(pa), _table(pb)
    if ta is None or tb is None or pa.types != pb.types:
        return Parts(data_a), Parts(data_b)
    rows_a = {slot_id: row for row, slot_id in enumerate(ta.ids)}
    same_a, same_b = bytearray(len(ta.ids)), bytearray(len(tb.ids))
    budget = _COMPARE_BUDGET * (len(data_a) + len(data_b))
    order_b = tb.preorder()
    for row in order_b:
        parent = tb.parents[row]
        if parent >= 0 and same_b[parent]:
            same_b[row] = 1
            continue
        other = rows_a.get(tb.ids[row])
        if other is None:
            continue
        up = ta.parents[other]
        if (ta.ids[up] if up >= 0 else None) != (tb.ids[parent] if parent >= 0 else None):
            continue
        start, end = ta.starts[other], ta.ends[other]
        size = end - start
        if size != tb.ends[row] - tb.starts[row] or size > budget:
            continue
        budget -= size
        if same_bytes(data_a, start, data_b, tb.starts[row], size):
            same_a[other] = same_b[row] = 1
    order_a = ta.preorder()
    for row in order_a:
        parent = ta.parents[row]
        if parent >= 0 and same_a[parent]:
            same_a[row] = 1
    _add_slots(pa, ta, order_a, same_a)
    _add_slots(pb, tb, order_b, same_b)
    return pa, pb


def same_bytes(data_a: bytes, start_a: int, data_b: bytes, start_b: int, size: int) -> bool:
    """Whether ``size`` bytes from ``start_a`` in ``data_a`` equal those from ``start_b`` in
    ``data_b``."""
    return data_a[start_a : start_a + size] == data_b[start_b : start_b + size]


def _add_slots(parts: Parts, table: _Table, order: list[int], same: bytearray) -> None:
    """Cut the slots not marked the same, in document order, each with its children's IDs."""
    layout: elements.Layout = ()
    ids, parents, row = table.ids, table.parents, table.row
    for number in order:
        if same[number]:
            continue
        parent = parents[number]
        key, items, layout = parts.add_slot(
            table.starts[number],
            table.ends[number],
            ids[parent] if parent >= 0 else None,
            0,
            layout,
        )
        parts.children[key] = [ids[row[item[2]]] for item in items]


def compose(parts: Parts) -> dict[str, Any]:
    """The document the elements make (the inverse of :func:`cut`)."""
    table = parts.types
    where = {name: i for i, name in enumerate(table)} if table is not None else {}
    comps: dict[str, Any] = {}
    for component_id in parts.components:
        raw = parts.components.untouched(component_id)
        if raw is not None and _same_index(parts.buf, raw, where):
            # Never looked at: its own bytes, copied by the encoder (no decode, no encode).
            comps[component_id] = RawBSONDocument(parts.buf[raw[0] : raw[1]])
            continue
        doc = dict(parts.components[component_id])
        ref = doc.get("Type")
        if isinstance(ref, TypeRef):
            index = where[ref.name]
            doc["Type"] = Int64(index) if ref.wide else index
        comps[component_id] = doc
    slots = {slot_id: dict(view) for slot_id, view in parts.slots.items()}
    for slot_id, doc in slots.items():
        if "Children" in doc:
            doc["Children"] = [slots[c] for c in parts.children[slot_id]]
        if "Components" in doc:
            shell = dict(doc["Components"])
            shell["Data"] = [comps[c] for c in parts.slot_components[slot_id]]
            doc["Components"] = shell
    out = dict(parts.root)
    if parts.root_slot is not None:
        out["Object"] = slots[parts.root_slot]
    if parts.assets is not None:
        out["Assets"] = [comps[c] for c in parts.assets]
    if table is not None:
        out["Types"] = list(table)
    return out


def _same_index(
    buf: bytes, raw: tuple[int, int, Any, TypeRef | None], where: dict[str, int]
) -> bool:
    """Whether a component's stored ``Type`` index is still its type's index."""
    ref = raw[3]
    if ref is None:
        return True
    elem = raw[2]
    return where.get(ref.name) == _index_value(buf, elem)


def encode(parts: Parts) -> bytes:
    return bsondoc.encode(compose(parts))


# -- what changed in one element -----------------------------------------------------------------
@dataclass
class Change:
    """One key of an element that changed: its value before and after (``has_*`` False where
    the key is absent)."""

    key: KeyPath
    old: Any
    new: Any
    has_old: bool
    has_new: bool


#: How deep each element's keys are compared one by one: the root down to each entry of
#: ``FeatureFlags``, a slot down to its members, a component down to each member of ``Data``.
ROOT_DEPTH, SLOT_DEPTH, COMPONENT_DEPTH = 2, 2, 3


def delta(
    old: dict[str, Any], new: dict[str, Any], depth: int
) -> tuple[list[Change], list[tuple[KeyPath, list[str]]]]:
    """The key changes from ``old`` to ``new`` (into dicts down to ``depth`` levels) and the
    key orders of ``new`` where the changes alone would not give them."""
    changes: list[Change] = []
    orders: list[tuple[KeyPath, list[str]]] = []
    stack: list[tuple[dict[str, Any], dict[str, Any], KeyPath]] = [(old, new, ())]
    while stack:
        a, b, prefix = stack.pop()
        for key in [*a, *(k for k in b if k not in a)]:
            in_a, in_b = key in a, key in b
            va, vb = a.get(key), b.get(key)
            if in_a and in_b:
                if len(prefix) + 1 < depth and type(va) is dict and type(vb) is dict:
                    stack.append((va, vb, (*prefix, key)))
                elif not same(va, vb):
                    changes.append(Change((*prefix, key), va, vb, True, True))
            else:
                changes.append(Change((*prefix, key), va, vb, in_a, in_b))
        expected = [k for k in a if k in b] + [k for k in b if k not in a]
        if expected != list(b):
            orders.append((prefix, list(b)))
    return changes, orders


def unchanged(pa: Parts, pb: Parts, table: str, key: str) -> bool:
    """Whether an element present on both sides is the same, told by its bytes where both
    are unedited (the common case: nothing decoded)."""
    views_a: Views = getattr(pa, table)
    views_b: Views = getattr(pb, table)
    fa, fb = pa.fingerprint(views_a, key), pb.fingerprint(views_b, key)
    if fa is not None and fa == fb:
        return True
    return same(views_a[key], views_b[key])
