"""The patch's JSON form: what ``brson diff A B --json`` carries so ``brson apply`` can turn A
into B, made from the engine's elements (:mod:`brson.ops.engine`).

Per element, what changed from A to B, each change with its ``old`` and ``new`` value in the
lossless JSON form; added and removed elements carry their whole document (so applying to
another file can tell a removal of the same thing from a removal of something edited since);
children and component lists as ID lists; the ``Types`` table whole.  docs/editing.md ("Apply
a diff") lists the fields.  A document that cannot be cut by ID gets a patch that *replaces*
it, applying only to a file whose BSON is A's exactly.
"""

from __future__ import annotations

import hashlib
from typing import Any

from bson.int64 import Int64

from brson.document import jsonform
from brson.errors import BrsonError
from brson.ops.engine import (
    COMPONENT_DEPTH,
    ROOT_DEPTH,
    SLOT_DEPTH,
    Change,
    KeyPath,
    Parts,
    TypeRef,
    delta,
    unchanged,
)

#: Written in every patch; :func:`read_patch` refuses other formats.
FORMAT = "brson-patch/1"


class PatchError(BrsonError):
    """A patch that cannot be read (not JSON written by ``brson diff --json``)."""

    layer = "patch"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- values in the JSON form ---------------------------------------------------------------------
def to_json(value: Any, table: list[str] | None) -> Any:
    """A value in the JSON form; a ``TypeRef`` as the index it has in ``table`` (the side's
    own ``Types``), i.e. exactly what that file holds."""
    if isinstance(value, TypeRef):
        return jsonform.to_jsonable(_to_index(value, table))
    return jsonform.to_jsonable(value)


def from_json(value: Any) -> Any:
    try:
        return jsonform.from_jsonable(value)
    except BrsonError as exc:
        raise PatchError(f"a value in the patch is not in the JSON form ({exc.message})") from None


def doc_to_json(view: dict[str, Any], table: list[str] | None) -> Any:
    """An element's document in the JSON form, its ``Type`` as the side's own index."""
    plain = {
        key: (_to_index(value, table) if isinstance(value, TypeRef) else value)
        for key, value in view.items()
    }
    return jsonform.to_jsonable(plain)


def _to_index(ref: TypeRef, table: list[str] | None) -> int:
    index = (table or []).index(ref.name)
    return Int64(index) if ref.wide else index


def doc_from_json(value: Any, type_name: str | None) -> dict[str, Any]:
    doc = from_json(value)
    if not isinstance(doc, dict):
        raise PatchError("an element's doc in the patch is not an object")
    raw_type = doc.get("Type")
    if type_name is not None and isinstance(raw_type, int) and not isinstance(raw_type, bool):
        doc["Type"] = TypeRef(type_name, isinstance(raw_type, Int64))
    if "Data" in doc and type(doc["Data"]) is dict:
        doc["Data"] = dict(doc["Data"])
    return doc


def changes_to_json(
    changes: list[Change], old_table: list[str] | None, new_table: list[str] | None
) -> list[dict[str, Any]]:
    out = []
    for change in changes:
        item: dict[str, Any] = {"key": list(change.key)}
        if change.has_old:
            item["old"] = to_json(change.old, old_table)
        if change.has_new:
            item["new"] = to_json(change.new, new_table)
        if isinstance(change.old, TypeRef) or isinstance(change.new, TypeRef):
            item["type"] = {
                "old": change.old.name if isinstance(change.old, TypeRef) else None,
                "new": change.new.name if isinstance(change.new, TypeRef) else None,
            }
        out.append(item)
    return out


def changes_from_json(items: Any) -> list[Change]:
    out = []
    for item in as_list(items, "changes"):
        if not isinstance(item, dict) or not isinstance(item.get("key"), list):
            raise PatchError("a change in the patch has no key")
        key = tuple(str(k) for k in item["key"])
        names: dict[str, Any] = item["type"] if isinstance(item.get("type"), dict) else {}
        old = _typed(from_json(item.get("old")), names.get("old"))
        new = _typed(from_json(item.get("new")), names.get("new"))
        out.append(Change(key, old, new, "old" in item, "new" in item))
    return out


def _typed(value: Any, name: Any) -> Any:
    if isinstance(name, str) and isinstance(value, int) and not isinstance(value, bool):
        return TypeRef(name, isinstance(value, Int64))
    return value


def orders_from_json(record: dict[str, Any]) -> list[tuple[KeyPath, list[str]]]:
    out = []
    for item in as_list(record.get("order"), "order"):
        if not isinstance(item, dict):
            raise PatchError("an order in the patch is not an object")
        key, keys = item.get("key", []), item.get("keys")
        if not isinstance(key, list) or not isinstance(keys, list):
            raise PatchError("an order in the patch needs a key and keys lists")
        out.append((tuple(str(k) for k in key), [str(k) for k in keys]))
    return out


def as_list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise PatchError(f"{what} in the patch is not a list")
    return value


def ids(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PatchError("an ID list in the patch is not a list of strings")
    return list(value)


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


# -- the element changes ------------------------------------------------------------------------
def structural(pa: Parts, pb: Parts) -> dict[str, Any]:
    """The element changes from ``pa`` to ``pb`` (the patch without its header)."""
    out: dict[str, Any] = {}
    ta, tb = pa.types, pb.types
    root_changes, root_orders = delta(pa.root, pb.root, ROOT_DEPTH)
    root: dict[str, Any] = {}
    if root_changes:
        root["changes"] = changes_to_json(root_changes, ta, tb)
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
    slots = [_whole(pa, key, "slots", "remove") for key in pa.slots if key not in pb.slots.raws]
    for slot_id in pb.slots:
        if slot_id not in pa.slots.raws:
            slots.append(_whole(pb, slot_id, "slots", "add"))
            continue
        record = _element_change(pa, pb, "slots", slot_id, SLOT_DEPTH)
        for name, lists in (("children", pa.children), ("components", pa.slot_components)):
            after = (pb.children if name == "children" else pb.slot_components)[slot_id]
            if lists[slot_id] != after:
                record[name] = {"old": lists[slot_id], "new": after}
        if record:
            slots.append({"op": "change", "id": slot_id, "path": pb.slot_path(slot_id), **record})
    components = [
        _whole(pa, key, "components", "remove")
        for key in pa.components
        if key not in pb.components.raws
    ]
    for component_id in pb.components:
        if component_id not in pa.components.raws:
            components.append(_whole(pb, component_id, "components", "add"))
            continue
        record = _element_change(pa, pb, "components", component_id, COMPONENT_DEPTH)
        if record:
            path = pb.component_path(component_id)
            components.append({"op": "change", "id": component_id, "path": path, **record})
    if slots:
        out["slots"] = slots
    if components:
        out["components"] = components
    return out


def _whole(side: Parts, key: str, table: str, op: str) -> dict[str, Any]:
    """An element added or removed: its whole document (and ID lists for a slot)."""
    record: dict[str, Any] = {"op": op, "id": key}
    if table == "slots":
        view = side.slots[key]
        record["path"] = side.slot_path(key)
        record["doc"] = doc_to_json(view, side.types)
        record["children"] = side.children[key]
        record["components"] = side.slot_components[key]
        return record
    view = side.components[key]
    record["path"] = side.component_path(key)
    record["doc"] = doc_to_json(view, side.types)
    ref = view.get("Type")
    if isinstance(ref, TypeRef):
        record["type"] = ref.name
    return record


def _element_change(pa: Parts, pb: Parts, table: str, key: str, depth: int) -> dict[str, Any]:
    if unchanged(pa, pb, table, key):
        return {}
    views_a = pa.slots if table == "slots" else pa.components
    views_b = pb.slots if table == "slots" else pb.components
    changes, orders = delta(views_a[key], views_b[key], depth)
    record: dict[str, Any] = {}
    if changes:
        record["changes"] = changes_to_json(changes, pa.types, pb.types)
    if orders:
        record["order"] = [{"key": list(k), "keys": keys} for k, keys in orders]
    return record


__all__ = [
    "FORMAT",
    "Change",
    "PatchError",
    "read_patch",
    "sha256",
    "structural",
]
