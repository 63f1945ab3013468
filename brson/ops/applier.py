"""Applying a patch (:mod:`brson.ops.patchform`) to a data tree, element by element.

Applying works like ``git apply``: a change applies when the target still holds the ``old``
value (or already holds the ``new`` one); anything else is a :class:`Conflict` naming the
element's ID, its path and what was expected and found.  Two merges: ID lists (children,
components) take both sides' additions and removals (:func:`merge_ids`; both sides re-ordering
is a conflict), and a ``Types`` table that is not A's gets the names B added appended
(components refer to types by name, so their indices are recomputed), which is why adding a
component of a new type applies to a file that gained other types meanwhile.

Nothing of the target is decoded but the elements a change touches; the result is encoded
from the elements again, which gives back the identical bytes for what was not changed (key
order, int32/int64, float bits are kept by the views).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from brson.collector import paused_gc
from brson.document import bsondoc, jsonform
from brson.ops.engine import (
    ASSETS,
    Change,
    KeyPath,
    Parts,
    TypeRef,
    Undecomposable,
    encode,
    same,
)
from brson.ops.patchform import (
    PatchError,
    as_list,
    changes_from_json,
    doc_from_json,
    from_json,
    ids,
    orders_from_json,
    read_patch,
    sha256,
)


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


def apply_patch(tree: Any, patch: dict[str, Any]) -> ApplyResult:
    """Apply a patch (see :func:`read_patch`) to ``tree``.  Nothing is changed in ``tree``: the
    result's ``bson`` is the new document, or ``None`` with the conflicts when any change
    does not apply.  A malformed patch raises :class:`PatchError`, never anything else."""
    return apply_bytes(tree.to_bson(), patch)


def apply_bytes(data: bytes, patch: dict[str, Any]) -> ApplyResult:
    """:func:`apply_patch` to a document's BSON."""
    patch = read_patch(patch)
    try:
        with paused_gc():  # many small long-lived objects, no cycles: collections only cost
            return _apply(data, patch)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # The patch is input like any file: a shape the checks above did not foresee is
        # still one error naming it, not a traceback.
        raise PatchError(f"malformed patch ({type(exc).__name__}: {exc})") from None


def _apply(data: bytes, patch: dict[str, Any]) -> ApplyResult:
    result_sha = patch.get("result")
    if sha256(data) == result_sha:
        return ApplyResult(data, [], 0, True)
    if "replace" in patch:
        return _apply_replace(data, patch)
    try:
        parts = Parts(data)
        if not parts.exact:
            raise Undecomposable("missing or duplicate IDs, or a Type index out of range")
    except Undecomposable as exc:
        return ApplyResult(
            None,
            [Conflict("document", None, "<root>", f"the target cannot be patched by ID ({exc})")],
        )
    applier = _Applier(parts)
    _apply_root(applier, patch.get("root"))
    _apply_types(applier, patch.get("types"))
    for record in as_list(patch.get("slots"), "slots"):
        _apply_slot(applier, _record(record))
    for record in as_list(patch.get("components"), "components"):
        _apply_component(applier, _record(record))
    if applier.conflicts:
        return ApplyResult(None, applier.conflicts, applier.applied)
    _check_structure(applier)
    if applier.conflicts:
        return ApplyResult(None, applier.conflicts, applier.applied)
    _prune_types(parts, patch.get("types"))
    out = encode(parts)
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
    replacement = from_json(patch["replace"])
    if not isinstance(replacement, dict):
        raise PatchError("the patch's replacement document is not an object")
    out = bsondoc.encode(replacement)
    return ApplyResult(out, [], 1, sha256(out) == patch.get("result"))


def _apply_root(applier: _Applier, record: Any) -> None:
    if record is None:
        return
    if not isinstance(record, dict):
        raise PatchError("root in the patch is not an object")
    parts = applier.parts
    changes = changes_from_json(record.get("changes"))
    if applier.change("root", None, "<root>", parts.root, changes, orders_from_json(record)):
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
            parts.assets = None if new is None else ids(new)
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


def _prune_types(parts: Parts, record: Any) -> None:
    if not isinstance(record, dict) or parts.types is None:
        return
    old, new = record.get("old") or [], record.get("new") or []
    dropped = set(old) - set(new)
    if not dropped:
        return
    used = {v.name for v in parts.refs()}
    parts.types = [n for n in parts.types if n not in dropped or n in used]


def _apply_slot(applier: _Applier, record: dict[str, Any]) -> None:
    parts = applier.parts
    slot_id, op = record["id"], record["op"]
    path = str(record.get("path", ""))
    exists = slot_id in parts.slots
    if op == "add":
        doc = doc_from_json(record.get("doc"), None)
        kids, owned = ids(record.get("children", [])), ids(record.get("components", []))
        if exists:
            if not same(parts.slots[slot_id], doc) or parts.children[slot_id] != kids:
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
        doc = doc_from_json(record.get("doc"), None)
        view = parts.slots[slot_id]
        where = parts.slot_path(slot_id)
        if not same(view, doc):
            keys = [k for k in [*view, *doc] if not same(view.get(k), doc.get(k))]
            applier.conflict(
                "slot",
                slot_id,
                where,
                "removed by the patch but changed in the target "
                f"({', '.join(dict.fromkeys(keys))})",
            )
            return
        for name, table in (("children", parts.children), ("components", parts.slot_components)):
            if table[slot_id] != ids(record.get(name, [])):
                applier.conflict(
                    "slot",
                    slot_id,
                    where,
                    f"removed by the patch but its {name} differ in the target: expected "
                    f"{_show_ids(ids(record.get(name, [])))}, found {_show_ids(table[slot_id])}",
                )
                return
        del parts.slots[slot_id]
        applier.applied += 1
        return
    view = parts.slots[slot_id]
    path = parts.slot_path(slot_id)  # where it is in the target, for the report
    before = len(applier.conflicts)
    if applier.change(
        "slot",
        slot_id,
        path,
        view,
        changes_from_json(record.get("changes")),
        orders_from_json(record),
    ):
        applier.lists("slot", slot_id, path, parts.children, record, "children")
        applier.lists("slot", slot_id, path, parts.slot_components, record, "components")
    if len(applier.conflicts) == before:
        applier.applied += 1


def _verb(op: str) -> str:
    return {"remove": "removed", "change": "changed"}.get(op, op)


def _apply_component(applier: _Applier, record: dict[str, Any]) -> None:
    parts = applier.parts
    component_id, op = record["id"], record["op"]
    path = str(record.get("path", ""))
    type_name = record.get("type") if isinstance(record.get("type"), str) else None
    exists = component_id in parts.components
    if op == "add":
        doc = doc_from_json(record.get("doc"), type_name)
        if exists:
            if not same(parts.components[component_id], doc):
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
        doc = doc_from_json(record.get("doc"), type_name)
        if not same(view, doc):
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
    changes = changes_from_json(record.get("changes"))
    path = parts.component_path(component_id)
    if applier.change("component", component_id, path, view, changes, orders_from_json(record)):
        applier.applied += 1


def _differing(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in dict.fromkeys([*a, *b]):
        va, vb = a.get(key), b.get(key)
        if type(va) is dict and type(vb) is dict:
            out += [f"{key}.{k}" for k in _differing(va, vb)]
        elif (key in a) != (key in b) or not same(va, vb):
            out.append(key)
    return out or ["key order"]


def _check_structure(applier: _Applier) -> None:
    """Every slot and component placed exactly once, every ID a list names present."""
    parts = applier.parts
    parts.forget_paths()  # the patch may have renamed or moved slots
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
    for kind, elements, done, where, owner, listing in (
        ("slot", parts.slots, reached, parts.slot_path, "parent", "parent's children"),
        ("component", parts.components, placed, parts.component_path, "slot", "slot's components"),
    ):
        for element_id in elements:
            if element_id not in done:
                why = f"left without a {owner} (the patch removed or rewrote its {listing})"
                applier.conflict(kind, element_id, where(element_id), why)
    if parts.types is not None:
        missing = sorted({r.name for r in parts.refs()} - set(parts.types))
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


class _Applier:
    def __init__(self, parts: Parts) -> None:
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
        changes: list[Change],
        orders: list[tuple[KeyPath, list[str]]],
    ) -> bool:
        todo: list[Change] = []
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
        old, new = ids(item.get("old")), ids(item.get("new"))
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
    # Each addition goes after its anchor: the nearest element before it on its side that is
    # already placed.  Collected per anchor, then written out in one pass (inserting into the
    # list one at a time was quadratic in the additions).
    placed = set(result)
    followers: dict[str | None, list[str]] = {}
    for side in (new, current):
        anchor: str | None = None
        for element in side:
            if element in placed:
                anchor = element
                continue
            if element in old_set:
                continue
            followers.setdefault(anchor, []).append(element)
            placed.add(element)
            anchor = element
    out: list[str] = []
    stack = [*reversed(result), *reversed(followers.get(None, []))]
    while stack:
        element = stack.pop()
        out.append(element)
        stack.extend(reversed(followers.get(element, [])))
    return out


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
    return present == has and (not has or same(value, expected))


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
