"""Patches: what ``brson diff A B --json`` carries so ``brson apply`` can turn A into B.

A data tree is cut into *elements* keyed by ID: the root document, every slot and every
component.  A slot's element is its own document with ``Children`` and the ``Components``
list reduced to the IDs they hold (the element of a slot does not contain its descendants);
a component's element is its whole document, its ``Type`` index read as the type's *name* (so
a patch still means the same thing in a file whose ``Types`` table is ordered differently).

The patch lists, per element, what changed from A to B, each change with the value it had in A
(``old``) and the value it has in B (``new``), in the lossless JSON form (int64 as
``$numberLong``, exact doubles: :mod:`brson.document.jsonform`):

* an added element carries its whole document (``doc``); a removed one too, so applying to
  another file can tell a removal of the same thing from a removal of something edited since;
* a changed element carries the keys that changed (components down to each member of
  ``Data``, the root down to each entry of ``FeatureFlags``/``TypeVersions``) and, when it
  moved, the key order of B;
* children and component lists are carried as ID lists (old and new), which says everything
  about adds, removals, moves and reordering;
* the ``Types`` table is carried whole (old and new).

Applying works like ``git apply``: a change applies when the target still holds the ``old``
value (or already holds the ``new`` one); anything else is a :class:`Conflict` naming the
element's ID, its path and what was expected and found.  Two merges: ID lists (children,
components) take both sides' additions and removals (:func:`merge_ids`; both sides re-ordering
is a conflict), and a ``Types`` table that is not A's gets the names B added appended
(components refer to types by name, so their indices are recomputed), which is why adding a
component of a new type applies to a file that gained other types meanwhile.

Exactness: the decoded document is re-encoded, and pymongo gives back the identical bytes for
every real sample (key order, int32/int64, float bits).  :func:`make_patch` checks it: it
applies the patch to A and compares with B byte for byte; when that fails (a document that
cannot be cut into elements: missing or duplicate IDs, a ``Type`` index out of range...) the
patch instead *replaces* the document, applying only to a file whose BSON is A's exactly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bson.int64 import Int64

from brson.document import bsondoc, jsonform
from brson.errors import BrsonError
from brson.model.tree import DataTree
from brson.model.typename import TypeName

#: Written in every patch; :func:`apply_patch` refuses other formats.
FORMAT = "brson-patch/1"
#: The component list of the root ``Assets`` (NeosVR asset providers), as an owner key.
ASSETS = "<Assets>"

#: A key inside an element: one key, or ``Data`` and a member key for components.
KeyPath = tuple[str, ...]


class PatchError(BrsonError):
    """A patch that cannot be read (not JSON written by ``brson diff --json``)."""

    layer = "patch"


@dataclass(frozen=True)
class TypeRef:
    """A component's ``Type`` as a name, with the width its index is stored in."""

    name: str
    wide: bool


@dataclass(frozen=True)
class Conflict:
    """A change that does not apply to the target: which element, where, and why."""

    kind: str  # slot, component, root, document
    id: str | None
    path: str
    message: str
    key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.id,
            "path": self.path,
            "key": self.key,
            "message": self.message,
        }

    def __str__(self) -> str:
        ident = f" {self.id}" if self.id else ""
        key = f" {self.key}" if self.key else ""
        return f"{self.kind}{ident} ({self.path}){key}: {self.message}"


@dataclass
class ApplyResult:
    """What :func:`apply_patch` did: the new document's BSON (``None`` when there were
    conflicts), the conflicts, and how many element changes were applied."""

    bson: bytes | None
    conflicts: list[Conflict] = field(default_factory=list)
    applied: int = 0
    #: Whether the output is byte for byte the B the patch was made from (sha256 compared).
    matches_result: bool = False

    @property
    def ok(self) -> bool:
        return not self.conflicts


class _Undecomposable(Exception):
    """The document cannot be cut into elements by ID (the patch replaces it whole)."""


# -- cutting a document into elements ----------------------------------------------------------
@dataclass
class _Parts:
    root: dict[str, Any]
    root_slot: str | None
    assets: list[str] | None
    types: list[str] | None
    slots: dict[str, dict[str, Any]] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    slot_components: dict[str, list[str]] = field(default_factory=dict)
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    parent: dict[str, str | None] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)

    def slot_path(self, slot_id: str | None) -> str:
        if slot_id is None:
            return "?"
        if slot_id == ASSETS:
            return ASSETS
        names: list[str] = []
        node: str | None = slot_id
        seen: set[str] = set()
        while node is not None and node in self.slots and node not in seen:
            seen.add(node)
            names.append(_name(self.slots[node]))
            node = self.parent.get(node)
        return "/".join(reversed(names))

    def component_path(self, component_id: str) -> str:
        view = self.components.get(component_id)
        where = self.slot_path(self.owner.get(component_id))
        return f"{where}:{_short(view.get('Type') if view else None)}"


def _name(view: dict[str, Any]) -> str:
    member = view.get("Name")
    name = member.get("Data") if isinstance(member, dict) else None
    return name if isinstance(name, str) else ""


def _short(type_value: Any) -> str:
    name = type_value.name if isinstance(type_value, TypeRef) else type_value
    if not isinstance(name, str):
        return repr(name)
    return TypeName.parse(name).name or name


def _component_id(doc: Any) -> str:
    data = doc.get("Data") if isinstance(doc, dict) else None
    element_id = data.get("ID") if isinstance(data, dict) else None
    if not isinstance(element_id, str):
        raise _Undecomposable("a component without an ID")
    return element_id


def _decompose(doc: dict[str, Any]) -> _Parts:
    """The elements of a decoded document (raises :class:`_Undecomposable`)."""
    types: list[str] | None = None
    if "Types" in doc:
        table = doc["Types"]
        if not isinstance(table, list) or not all(isinstance(t, str) for t in table):
            raise _Undecomposable("Types is not a list of names")
        if len(set(table)) != len(table):
            raise _Undecomposable("Types names a type twice")
        types = list(table)
    root = {k: (dict(v) if type(v) is dict else v) for k, v in doc.items()}
    if types is not None:
        root["Types"] = None
    obj = doc.get("Object")
    if not isinstance(obj, dict):
        raise _Undecomposable("no Object slot")
    root["Object"] = None
    parts = _Parts(root=root, root_slot=None, assets=None, types=types)
    assets = doc.get("Assets")
    if isinstance(assets, list) and all(isinstance(a, dict) for a in assets):
        root["Assets"] = None
        parts.assets = [_add_component(parts, a, ASSETS) for a in assets]
    stack: list[tuple[dict[str, Any], str | None]] = [(obj, None)]
    while stack:
        slot, parent = stack.pop()
        slot_id = slot.get("ID")
        if not isinstance(slot_id, str) or slot_id in parts.slots:
            raise _Undecomposable("a slot without a unique ID")
        if parent is None:
            parts.root_slot = slot_id
        view = dict(slot)
        parts.parent[slot_id] = parent
        kids: list[str] = []
        if "Children" in slot:
            items = slot["Children"]
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                raise _Undecomposable("Children is not a list of slots")
            view["Children"] = None
            kids = [i.get("ID") for i in items]  # checked when each is popped
            stack.extend((item, slot_id) for item in reversed(items))
        parts.children[slot_id] = kids
        owned: list[str] = []
        if "Components" in slot:
            member = slot["Components"]
            items = member.get("Data") if isinstance(member, dict) else None
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                raise _Undecomposable("Components is not a member holding components")
            shell = dict(member)
            shell["Data"] = None
            view["Components"] = shell
            owned = [_add_component(parts, item, slot_id) for item in items]
        parts.slot_components[slot_id] = owned
        parts.slots[slot_id] = view
    return parts


def _add_component(parts: _Parts, doc: dict[str, Any], owner: str) -> str:
    component_id = _component_id(doc)
    if component_id in parts.components:
        raise _Undecomposable("a component ID defined twice")
    view = dict(doc)
    view["Data"] = dict(doc["Data"])
    raw_type = doc.get("Type")
    if parts.types is not None and isinstance(raw_type, int) and not isinstance(raw_type, bool):
        if not 0 <= raw_type < len(parts.types):
            raise _Undecomposable("a Type index out of range")
        view["Type"] = TypeRef(parts.types[raw_type], isinstance(raw_type, Int64))
    parts.components[component_id] = view
    parts.owner[component_id] = owner
    return component_id


def _compose(parts: _Parts) -> dict[str, Any]:
    """The document the elements make (the inverse of :func:`_decompose`)."""
    table = parts.types
    where = {name: i for i, name in enumerate(table)} if table is not None else {}
    comps: dict[str, dict[str, Any]] = {}
    for component_id, view in parts.components.items():
        doc = dict(view)
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


# -- values -----------------------------------------------------------------------------------
def _same(a: Any, b: Any) -> bool:
    """Equal with the same BSON types, key order and float bits (compared as BSON)."""
    if isinstance(a, TypeRef) or isinstance(b, TypeRef):
        return bool(a == b)
    if type(a) is not type(b):
        return False
    return bsondoc.encode({"": a}) == bsondoc.encode({"": b})


def _fingerprint(view: dict[str, Any]) -> bytes:
    """An element's view as BSON (a ``TypeRef`` as its name and width): equal bytes, equal
    elements, keys, types and float bits included."""
    ref = view.get("Type")
    if isinstance(ref, TypeRef):
        view = {**view, "Type": [ref.name, ref.wide]}
    return bsondoc.encode(view)


def _to_json(value: Any, table: list[str] | None) -> Any:
    """A value in the JSON form; a ``TypeRef`` as the index it has in ``table`` (the side's
    own ``Types``), i.e. exactly what that file holds."""
    if isinstance(value, TypeRef):
        return jsonform.to_jsonable(_to_index(value, table))
    return jsonform.to_jsonable(value)


def _from_json(value: Any) -> Any:
    try:
        return jsonform.from_jsonable(value)
    except BrsonError as exc:
        raise PatchError(f"a value in the patch is not in the JSON form ({exc.message})") from None


def _doc_to_json(view: dict[str, Any], table: list[str] | None) -> Any:
    """An element's document in the JSON form, its ``Type`` as the side's own index."""
    plain = {
        key: (_to_index(value, table) if isinstance(value, TypeRef) else value)
        for key, value in view.items()
    }
    return jsonform.to_jsonable(plain)


def _to_index(ref: TypeRef, table: list[str] | None) -> int:
    index = (table or []).index(ref.name)
    return Int64(index) if ref.wide else index


def _doc_from_json(value: Any, type_name: str | None) -> dict[str, Any]:
    doc = _from_json(value)
    if not isinstance(doc, dict):
        raise PatchError("an element's doc in the patch is not an object")
    return _with_type(doc, type_name)


def _with_type(doc: dict[str, Any], type_name: str | None) -> dict[str, Any]:
    raw_type = doc.get("Type")
    if type_name is not None and isinstance(raw_type, int) and not isinstance(raw_type, bool):
        doc["Type"] = TypeRef(type_name, isinstance(raw_type, Int64))
    if "Data" in doc and type(doc["Data"]) is dict:
        doc["Data"] = dict(doc["Data"])
    return doc


# -- deltas between two elements ---------------------------------------------------------------
@dataclass
class _Change:
    key: KeyPath
    old: Any
    new: Any
    has_old: bool
    has_new: bool


def _delta(
    old: dict[str, Any], new: dict[str, Any], depth: int
) -> tuple[list[_Change], list[tuple[KeyPath, list[str]]]]:
    """The key changes from ``old`` to ``new`` (into dicts down to ``depth`` levels) and the
    key orders of B where the changes alone would not give them."""
    changes: list[_Change] = []
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
                elif not _same(va, vb):
                    changes.append(_Change((*prefix, key), va, vb, True, True))
            else:
                changes.append(_Change((*prefix, key), va, vb, in_a, in_b))
        expected = [k for k in a if k in b] + [k for k in b if k not in a]
        if expected != list(b):
            orders.append((prefix, list(b)))
    return changes, orders


def _changes_to_json(
    changes: list[_Change], old_table: list[str] | None, new_table: list[str] | None
) -> list[dict[str, Any]]:
    out = []
    for change in changes:
        item: dict[str, Any] = {"key": list(change.key)}
        if change.has_old:
            item["old"] = _to_json(change.old, old_table)
        if change.has_new:
            item["new"] = _to_json(change.new, new_table)
        if isinstance(change.old, TypeRef) or isinstance(change.new, TypeRef):
            item["type"] = {
                "old": change.old.name if isinstance(change.old, TypeRef) else None,
                "new": change.new.name if isinstance(change.new, TypeRef) else None,
            }
        out.append(item)
    return out


def _changes_from_json(items: Any) -> list[_Change]:
    out = []
    for item in _list(items, "changes"):
        if not isinstance(item, dict) or not isinstance(item.get("key"), list):
            raise PatchError("a change in the patch has no key")
        key = tuple(str(k) for k in item["key"])
        names: dict[str, Any] = item["type"] if isinstance(item.get("type"), dict) else {}
        old = _from_json(item.get("old"))
        new = _from_json(item.get("new"))
        old = _typed(old, names.get("old"))
        new = _typed(new, names.get("new"))
        out.append(_Change(key, old, new, "old" in item, "new" in item))
    return out


def _typed(value: Any, name: Any) -> Any:
    if isinstance(name, str) and isinstance(value, int) and not isinstance(value, bool):
        return TypeRef(name, isinstance(value, Int64))
    return value


def _list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise PatchError(f"{what} in the patch is not a list")
    return value


# -- making a patch ----------------------------------------------------------------------------
def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_patch(a: DataTree, b: DataTree) -> dict[str, Any]:
    """The patch that turns ``a`` into ``b`` (JSON-able; see the module docstring).  Checked
    before it is returned: applied to ``a`` it gives ``b``'s BSON byte for byte, else the
    patch replaces the whole document."""
    bytes_a, bytes_b = a.to_bson(), b.to_bson()
    base = {"format": FORMAT, "base": sha256(bytes_a), "result": sha256(bytes_b)}
    if bytes_a == bytes_b:
        return base
    doc_a = bsondoc.decode(bytes_a)
    doc_b = bsondoc.decode(bytes_b)
    try:
        patch = {**base, **_structural(_decompose(doc_a), _decompose(doc_b))}
    except _Undecomposable:
        patch = None
    if patch is not None:
        try:
            result = apply_patch(DataTree(bytes_a), patch)
        except BrsonError:  # a value the JSON form cannot carry: fall back
            result = ApplyResult(None)
        if result.bson == bytes_b:
            return patch
    return {**base, "replace": jsonform.to_jsonable(doc_b)}


def _structural(pa: _Parts, pb: _Parts) -> dict[str, Any]:
    out: dict[str, Any] = {}
    ta, tb = pa.types, pb.types
    root_changes, root_orders = _delta(pa.root, pb.root, 2)
    root: dict[str, Any] = {}
    if root_changes:
        root["changes"] = _changes_to_json(root_changes, ta, tb)
    if root_orders:
        root["order"] = [{"key": list(k), "keys": keys} for k, keys in root_orders]
    if pa.root_slot != pb.root_slot:
        root["object"] = {"old": pa.root_slot, "new": pb.root_slot}
    if pa.assets != pb.assets:
        root["assets"] = {"old": pa.assets, "new": pb.assets}
    if root:
        out["root"] = root
    if ta != tb:
        out["types"] = {"old": ta, "new": tb}
    slots: list[dict[str, Any]] = []
    for slot_id, view in pa.slots.items():
        if slot_id not in pb.slots:
            slots.append(
                {
                    "op": "remove",
                    "id": slot_id,
                    "path": pa.slot_path(slot_id),
                    "doc": _doc_to_json(view, ta),
                    "children": pa.children[slot_id],
                    "components": pa.slot_components[slot_id],
                }
            )
    for slot_id, view in pb.slots.items():
        if slot_id not in pa.slots:
            slots.append(
                {
                    "op": "add",
                    "id": slot_id,
                    "path": pb.slot_path(slot_id),
                    "doc": _doc_to_json(view, tb),
                    "children": pb.children[slot_id],
                    "components": pb.slot_components[slot_id],
                }
            )
            continue
        record = _element_change(pa.slots[slot_id], view, 2, ta, tb)
        for name, lists in (("children", "children"), ("components", "slot_components")):
            before, after = getattr(pa, lists)[slot_id], getattr(pb, lists)[slot_id]
            if before != after:
                record[name] = {"old": before, "new": after}
        if record:
            slots.append({"op": "change", "id": slot_id, "path": pb.slot_path(slot_id), **record})
    components: list[dict[str, Any]] = []
    for component_id, view in pa.components.items():
        if component_id not in pb.components:
            components.append(
                {
                    "op": "remove",
                    "id": component_id,
                    "path": pa.component_path(component_id),
                    "doc": _doc_to_json(view, ta),
                    **_type_of(view),
                }
            )
    for component_id, view in pb.components.items():
        if component_id not in pa.components:
            components.append(
                {
                    "op": "add",
                    "id": component_id,
                    "path": pb.component_path(component_id),
                    "doc": _doc_to_json(view, tb),
                    **_type_of(view),
                }
            )
            continue
        record = _element_change(pa.components[component_id], view, 3, ta, tb)
        if record:
            components.append(
                {
                    "op": "change",
                    "id": component_id,
                    "path": pb.component_path(component_id),
                    **record,
                }
            )
    if slots:
        out["slots"] = slots
    if components:
        out["components"] = components
    return out


def _type_of(view: dict[str, Any]) -> dict[str, str]:
    ref = view.get("Type")
    return {"type": ref.name} if isinstance(ref, TypeRef) else {}


def _element_change(
    old: dict[str, Any],
    new: dict[str, Any],
    depth: int,
    ta: list[str] | None,
    tb: list[str] | None,
) -> dict[str, Any]:
    if _fingerprint(old) == _fingerprint(new):
        return {}  # the common case, told in one encode per side instead of one per key
    changes, orders = _delta(old, new, depth)
    record: dict[str, Any] = {}
    if changes:
        record["changes"] = _changes_to_json(changes, ta, tb)
    if orders:
        record["order"] = [{"key": list(k), "keys": keys} for k, keys in orders]
    return record


# -- applying a patch --------------------------------------------------------------------------
def read_patch(data: Any) -> dict[str, Any]:
    """The patch in parsed JSON: ``brson diff --json`` output (its ``patch`` key) or a patch."""
    if isinstance(data, dict) and "patch" in data and "format" not in data:
        data = data["patch"]
    if not isinstance(data, dict) or "format" not in data:
        raise PatchError(
            "not a patch: expected the output of 'brson diff A B --json' (it has a 'patch' key)"
        )
    if data["format"] != FORMAT:
        raise PatchError(f"unsupported patch format {data['format']!r} (this brson reads {FORMAT})")
    return data


class _Applier:
    def __init__(self, parts: _Parts) -> None:
        self.parts = parts
        self.conflicts: list[Conflict] = []
        self.applied = 0

    def conflict(
        self, kind: str, element_id: str | None, path: str, message: str, key: KeyPath = ()
    ) -> None:
        self.conflicts.append(
            Conflict(kind, element_id, path, message, ".".join(key) if key else None)
        )

    # each element change: check every key first, then apply them all (or none)
    def change(
        self,
        kind: str,
        element_id: str | None,
        path: str,
        view: dict[str, Any],
        changes: list[_Change],
        orders: list[tuple[KeyPath, list[str]]],
    ) -> bool:
        todo: list[_Change] = []
        ok = True
        for change in changes:
            holder = _holder(view, change.key[:-1])
            key = change.key[-1]
            if holder is None:
                self.conflict(kind, element_id, path, "not a document in the target", change.key)
                ok = False
                continue
            present, current = key in holder, holder.get(key)
            if _matches(present, current, change.has_old, change.old):
                todo.append(change)
            elif not _matches(present, current, change.has_new, change.new):
                self.conflict(
                    kind,
                    element_id,
                    path,
                    f"expected {_describe(change.has_old, change.old)}, "
                    f"found {_describe(present, current)} "
                    f"(the patch sets {_describe(change.has_new, change.new)})",
                    change.key,
                )
                ok = False
        if not ok:
            return False
        for change in todo:
            holder = _holder(view, change.key[:-1])
            assert holder is not None
            key = change.key[-1]
            if change.has_new:
                holder[key] = change.new
            else:
                holder.pop(key, None)
        for prefix, keys in orders:
            holder = _holder(view, prefix)
            if holder is not None:
                _reorder(holder, keys)
        return True

    def lists(
        self,
        kind: str,
        element_id: str,
        path: str,
        table: dict[str, list[str]],
        record: dict[str, Any],
        name: str,
    ) -> None:
        item = record.get(name)
        if item is None:
            return
        if not isinstance(item, dict):
            raise PatchError(f"{name} of {element_id} in the patch is not an object")
        old, new = _ids(item.get("old")), _ids(item.get("new"))
        current = table.get(element_id, [])
        merged = merge_ids(old, current, new)
        if merged is None:
            self.conflict(
                kind,
                element_id,
                path,
                f"{name} reordered both by the patch and in the target: expected the order "
                f"{_show_ids(old)}, found {_show_ids(current)}",
                (name,),
            )
        else:
            table[element_id] = merged


def merge_ids(old: list[str], current: list[str], new: list[str]) -> list[str] | None:
    """A three-way merge of an ID list (a slot's children or components): the patch's
    changes from ``old`` to ``new`` made to ``current``.  Additions on either side go after
    the nearest element that preceded them on their side (the patch's first), removals on
    either side are kept; ``None`` when both sides re-ordered the elements they share."""
    if current in (old, new):
        return new
    old_set, cur_set, new_set = set(old), set(current), set(new)
    shared_old = [x for x in old if x in cur_set and x in new_set]
    shared_cur = [x for x in current if x in old_set and x in new_set]
    shared_new = [x for x in new if x in old_set and x in cur_set]
    if shared_cur == shared_old:
        result = shared_new
    elif shared_new == shared_old:
        result = shared_cur
    else:
        return None
    result = list(result)
    placed = set(result)
    from_patch: set[str] = set()
    for side in (new, current):
        for i, element in enumerate(side):
            if element in old_set or element in placed:
                continue
            before = next((side[j] for j in range(i - 1, -1, -1) if side[j] in placed), None)
            at = result.index(before) + 1 if before is not None else 0
            while side is current and at < len(result) and result[at] in from_patch:
                at += 1  # the patch's additions at the same place come first
            result.insert(at, element)
            placed.add(element)
            if side is new:
                from_patch.add(element)
    return result


def _ids(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PatchError("an ID list in the patch is not a list of strings")
    return list(value)


def _show_ids(ids: list[str], limit: int = 6) -> str:
    shown = ", ".join(ids[:limit])
    more = f", … {len(ids) - limit} more" if len(ids) > limit else ""
    return f"[{shown}{more}]"


def _holder(view: dict[str, Any], prefix: KeyPath) -> dict[str, Any] | None:
    node: Any = view
    for key in prefix:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def _matches(present: bool, value: Any, has: bool, expected: Any) -> bool:
    return present == has and (not has or _same(value, expected))


def _describe(present: bool, value: Any) -> str:
    if not present:
        return "no value"
    if isinstance(value, TypeRef):
        return f"type {value.name}"
    text = jsonform.dumps({"": value}, indent=None)[5:-1]
    return text if len(text) <= 80 else text[:79] + "…"


def _reorder(holder: dict[str, Any], keys: list[str]) -> None:
    order = [k for k in keys if k in holder] + [k for k in holder if k not in keys]
    items = [(k, holder[k]) for k in order]
    holder.clear()
    holder.update(items)


def apply_patch(tree: DataTree, patch: dict[str, Any]) -> ApplyResult:
    """Apply a patch (see :func:`read_patch`) to ``tree``.  Nothing is changed in ``tree``: the
    result's ``bson`` is the new document, or ``None`` with the conflicts when any change
    does not apply.  A malformed patch raises :class:`PatchError`, never anything else."""
    patch = read_patch(patch)
    try:
        return _apply(tree, patch)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # The patch is input like any file: a shape the checks above did not foresee is
        # still one error naming it, not a traceback.
        raise PatchError(f"malformed patch ({type(exc).__name__}: {exc})") from None


def _apply(tree: DataTree, patch: dict[str, Any]) -> ApplyResult:
    data = tree.to_bson()
    result_sha = patch.get("result")
    if sha256(data) == result_sha:
        return ApplyResult(data, [], 0, True)
    if "replace" in patch:
        return _apply_replace(data, patch)
    try:
        parts = _decompose(bsondoc.decode(data))
    except _Undecomposable as exc:
        return ApplyResult(
            None,
            [Conflict("document", None, "<root>", f"the target cannot be patched by ID ({exc})")],
        )
    applier = _Applier(parts)
    _apply_root(applier, patch.get("root"))
    _apply_types(applier, patch.get("types"))
    for record in _list(patch.get("slots"), "slots"):
        _apply_slot(applier, _record(record))
    for record in _list(patch.get("components"), "components"):
        _apply_component(applier, _record(record))
    if applier.conflicts:
        return ApplyResult(None, applier.conflicts, applier.applied)
    _check_structure(applier)
    if applier.conflicts:
        return ApplyResult(None, applier.conflicts, applier.applied)
    _prune_types(parts, patch.get("types"))
    out = bsondoc.encode(_compose(parts))
    return ApplyResult(out, [], applier.applied, sha256(out) == result_sha)


def _record(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        raise PatchError("an element in the patch has no id")
    if value.get("op") not in ("add", "remove", "change"):
        raise PatchError(
            f"element {value['id']} in the patch has an unknown op {value.get('op')!r}"
        )
    return value


def _apply_replace(data: bytes, patch: dict[str, Any]) -> ApplyResult:
    if sha256(data) != patch.get("base"):
        return ApplyResult(
            None,
            [
                Conflict(
                    "document",
                    None,
                    "<root>",
                    "the patch replaces the whole document (its elements could not be matched "
                    "by ID) and applies only to the exact file it was made from",
                )
            ],
        )
    replacement = _from_json(patch["replace"])
    if not isinstance(replacement, dict):
        raise PatchError("the patch's replacement document is not an object")
    out = bsondoc.encode(replacement)
    return ApplyResult(out, [], 1, sha256(out) == patch.get("result"))


def _orders(record: dict[str, Any]) -> list[tuple[KeyPath, list[str]]]:
    out = []
    for item in _list(record.get("order"), "order"):
        if not isinstance(item, dict):
            raise PatchError("an order in the patch is not an object")
        key, keys = item.get("key", []), item.get("keys")
        if not isinstance(key, list) or not isinstance(keys, list):
            raise PatchError("an order in the patch needs a key and keys lists")
        out.append((tuple(str(k) for k in key), [str(k) for k in keys]))
    return out


def _apply_root(applier: _Applier, record: Any) -> None:
    if record is None:
        return
    if not isinstance(record, dict):
        raise PatchError("root in the patch is not an object")
    parts = applier.parts
    changes = _changes_from_json(record.get("changes"))
    if applier.change("root", None, "<root>", parts.root, changes, _orders(record)):
        applier.applied += bool(changes)
    obj = record.get("object")
    if isinstance(obj, dict):
        if parts.root_slot == obj.get("old"):
            parts.root_slot = obj.get("new")
        elif parts.root_slot != obj.get("new"):
            applier.conflict("root", None, "<root>", "the root slot is another one", ("Object",))
    assets = record.get("assets")
    if isinstance(assets, dict):
        old, new = assets.get("old"), assets.get("new")
        if parts.assets == old:
            parts.assets = None if new is None else _ids(new)
        elif parts.assets != new:
            applier.conflict(
                "root",
                None,
                ASSETS,
                f"Assets expected {_show_ids(old or [])}, found {_show_ids(parts.assets or [])}",
                ("Assets",),
            )


def _apply_types(applier: _Applier, record: Any) -> None:
    """An exact table when the target's is A's; else the names B added are appended (types
    B dropped are dropped at the end when nothing uses them: :func:`_prune_types`)."""
    if record is None:
        return
    if not isinstance(record, dict):
        raise PatchError("types in the patch is not an object")
    parts = applier.parts
    old, new = record.get("old"), record.get("new")
    for table in (old, new):
        if table is not None and not (
            isinstance(table, list) and all(isinstance(n, str) for n in table)
        ):
            raise PatchError("a Types table in the patch is not a list of names")
    if parts.types is None or new is None:
        if parts.types != old and parts.types != new:
            applier.conflict("root", None, "<root>", "the Types table is missing", ("Types",))
        elif parts.types == old:
            parts.types = new
        return
    if parts.types == old:
        parts.types = list(new)
        return
    parts.types += [name for name in new if name not in parts.types]


def _prune_types(parts: _Parts, record: Any) -> None:
    if not isinstance(record, dict) or parts.types is None:
        return
    old, new = record.get("old") or [], record.get("new") or []
    dropped = set(old) - set(new)
    if not dropped:
        return
    used = {v.name for v in _refs(parts)}
    parts.types = [n for n in parts.types if n not in dropped or n in used]


def _refs(parts: _Parts) -> Iterator[TypeRef]:
    for view in parts.components.values():
        ref = view.get("Type")
        if isinstance(ref, TypeRef):
            yield ref


def _apply_slot(applier: _Applier, record: dict[str, Any]) -> None:
    parts = applier.parts
    slot_id, op = record["id"], record["op"]
    path = str(record.get("path", ""))
    exists = slot_id in parts.slots
    if op == "add":
        doc = _doc_from_json(record.get("doc"), None)
        kids, owned = _ids(record.get("children", [])), _ids(record.get("components", []))
        if exists:
            if not _same_view(parts.slots[slot_id], doc) or parts.children[slot_id] != kids:
                applier.conflict(
                    "slot",
                    slot_id,
                    path,
                    f"added by the patch but already in the target at {parts.slot_path(slot_id)}",
                )
            return
        parts.slots[slot_id] = doc
        parts.children[slot_id] = kids
        parts.slot_components[slot_id] = owned
        applier.applied += 1
        return
    if not exists:
        applier.conflict("slot", slot_id, path, f"{_verb(op)} by the patch but not in the target")
        return
    if op == "remove":
        doc = _doc_from_json(record.get("doc"), None)
        view = parts.slots[slot_id]
        where = parts.slot_path(slot_id)
        if not _same_view(view, doc):
            keys = [k for k in [*view, *doc] if not _same(view.get(k), doc.get(k))]
            applier.conflict(
                "slot",
                slot_id,
                where,
                "removed by the patch but changed in the target "
                f"({', '.join(dict.fromkeys(keys))})",
            )
            return
        for name, table in (("children", parts.children), ("components", parts.slot_components)):
            if table[slot_id] != _ids(record.get(name, [])):
                applier.conflict(
                    "slot",
                    slot_id,
                    where,
                    f"removed by the patch but its {name} differ in the target: expected "
                    f"{_show_ids(_ids(record.get(name, [])))}, found {_show_ids(table[slot_id])}",
                )
                return
        del parts.slots[slot_id]
        applier.applied += 1
        return
    view = parts.slots[slot_id]
    path = parts.slot_path(slot_id)  # where it is in the target, for the report
    before = len(applier.conflicts)
    if applier.change(
        "slot", slot_id, path, view, _changes_from_json(record.get("changes")), _orders(record)
    ):
        applier.lists("slot", slot_id, path, parts.children, record, "children")
        applier.lists("slot", slot_id, path, parts.slot_components, record, "components")
    if len(applier.conflicts) == before:
        applier.applied += 1


def _verb(op: str) -> str:
    return {"remove": "removed", "change": "changed"}.get(op, op)


def _same_view(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)


def _apply_component(applier: _Applier, record: dict[str, Any]) -> None:
    parts = applier.parts
    component_id, op = record["id"], record["op"]
    path = str(record.get("path", ""))
    type_name = record.get("type") if isinstance(record.get("type"), str) else None
    exists = component_id in parts.components
    if op == "add":
        doc = _doc_from_json(record.get("doc"), type_name)
        if exists:
            if not _same_view(parts.components[component_id], doc):
                applier.conflict(
                    "component",
                    component_id,
                    path,
                    "added by the patch but already in the target at "
                    f"{parts.component_path(component_id)}",
                )
            return
        parts.components[component_id] = doc
        applier.applied += 1
        return
    if not exists:
        applier.conflict(
            "component", component_id, path, f"{_verb(op)} by the patch but not in the target"
        )
        return
    view = parts.components[component_id]
    if op == "remove":
        doc = _doc_from_json(record.get("doc"), type_name)
        if not _same_view(view, doc):
            applier.conflict(
                "component",
                component_id,
                parts.component_path(component_id),
                "removed by the patch but changed in the target "
                f"({', '.join(_differing(view, doc))})",
            )
            return
        del parts.components[component_id]
        applier.applied += 1
        return
    changes = _changes_from_json(record.get("changes"))
    path = parts.component_path(component_id)
    if applier.change("component", component_id, path, view, changes, _orders(record)):
        applier.applied += 1


def _differing(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in dict.fromkeys([*a, *b]):
        va, vb = a.get(key), b.get(key)
        if type(va) is dict and type(vb) is dict:
            out += [f"{key}.{k}" for k in _differing(va, vb)]
        elif (key in a) != (key in b) or not _same(va, vb):
            out.append(key)
    return out or ["key order"]


def _check_structure(applier: _Applier) -> None:
    """Every slot and component placed exactly once, every ID a list names present."""
    parts = applier.parts
    reached: set[str] = set()
    placed: set[str] = set()
    if parts.root_slot is None or parts.root_slot not in parts.slots:
        applier.conflict("root", parts.root_slot, "<root>", "the root slot is not in the result")
        return
    stack = [parts.root_slot]
    reached.add(parts.root_slot)
    while stack:
        slot_id = stack.pop()
        for child in parts.children.get(slot_id, []):
            if child not in parts.slots:
                applier.conflict(
                    "slot",
                    child,
                    f"{parts.slot_path(slot_id)}/?",
                    f"a child of {slot_id} in the result, but neither in the target nor added",
                )
            elif child in reached:
                applier.conflict(
                    "slot", child, parts.slot_path(child), "would have two parents in the result"
                )
            else:
                reached.add(child)
                parts.parent[child] = slot_id
                stack.append(child)
        _place(applier, parts.slot_components.get(slot_id, []), slot_id, placed)
    _place(applier, parts.assets or [], ASSETS, placed)
    for slot_id in parts.slots:
        if slot_id not in reached:
            applier.conflict(
                "slot",
                slot_id,
                parts.slot_path(slot_id),
                "left without a parent (the patch removed or rewrote its parent's children)",
            )
    for component_id in parts.components:
        if component_id not in placed:
            applier.conflict(
                "component",
                component_id,
                parts.component_path(component_id),
                "left without a slot (the patch removed or rewrote its slot's components)",
            )
    if parts.types is not None:
        missing = sorted({r.name for r in _refs(parts)} - set(parts.types))
        for name in missing:
            applier.conflict("root", None, "<root>", f"type {name} is used but not in Types")


def _place(applier: _Applier, ids: list[str], owner: str, placed: set[str]) -> None:
    parts = applier.parts
    for component_id in ids:
        if component_id not in parts.components:
            applier.conflict(
                "component",
                component_id,
                parts.slot_path(owner),
                "listed in the result, but neither in the target nor added",
            )
        elif component_id in placed:
            applier.conflict(
                "component",
                component_id,
                parts.component_path(component_id),
                "would be on two slots in the result",
            )
        else:
            placed.add(component_id)
            parts.owner[component_id] = owner


__all__ = [
    "ASSETS",
    "FORMAT",
    "ApplyResult",
    "Conflict",
    "PatchError",
    "TypeRef",
    "apply_patch",
    "make_patch",
    "merge_ids",
    "read_patch",
    "sha256",
]
