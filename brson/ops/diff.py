"""Semantic diff of two data trees, keyed by element IDs: the patch, read as text.

The diff is the patch (:mod:`brson.ops.patchform`) that :mod:`brson.ops.engine` makes of the
two trees, rendered one change a line, so ``brson diff``, ``brson diff --json`` and ``brson
apply`` agree on what changed by construction.  Slots and components are matched by ``ID`` (a
slot that changed parent is one *moved* slot), components compared with their type as a name
(a reordered ``Types`` table changes no component), values by the engine's one equality rule.
Codec and framing are not part of the tree: two trees are equal exactly when their BSON is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from brson import flux
from brson.collector import paused_gc
from brson.document import bsondoc, jsonform
from brson.flux.catalog import is_helper, is_node
from brson.flux.render import Labels, flow
from brson.model import DataTree
from brson.model.typename import TypeName
from brson.ops.connections import focused_graphs
from brson.ops.engine import ASSETS, Parts, TypeRef, Undecomposable, cut_pair, same, type_label
from brson.ops.patchform import as_list, from_json, structural

#: A path inside an element: keys and list positions.
Path = tuple[str | int, ...]


class HasBson(Protocol):
    def to_bson(self) -> bytes: ...


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


@dataclass(frozen=True)
class ConnectionChange:
    """A ProtoFlux connection made or broken (:mod:`brson.flux`): ``connected`` or
    ``disconnected``, the edge's kind (``value``, ``impulse``, ``read``, ``write``, ``drive``)
    and the connection as ``A.Output → B.Input`` in the direction it works."""

    change: str
    kind: str
    flow: str


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
    #: The ``Types`` table lists the same names in another order.
    types_reordered: bool = False
    #: Paths of documents whose keys are in another order (a change of the file's bytes).
    keys_reordered: list[str] = field(default_factory=list)
    #: ProtoFlux connections made and broken; the reference members that hold them are not
    #: also listed in :attr:`values` (see :func:`add_connections`).
    connections: list[ConnectionChange] = field(default_factory=list)

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
            if isinstance(items, bool):
                out[name] = items
                continue
            out[name] = [
                jsonform.to_jsonable(asdict(item)) if not isinstance(item, str) else item
                for item in items
            ]
        return out

    def lines(self) -> Iterator[str]:
        """The diff as text, one change a line (``+`` added, ``-`` removed, ``~`` changed,
        ``>`` moved)."""
        for mark, slots in (("+", self.slots_added), ("-", self.slots_removed)):
            for s in slots:
                yield f"{mark} slot {s.path} ({s.id})"
        for s in self.slots_moved:
            yield f"> slot {s.path}: moved from {s.old} to {s.new}"
        for s in self.slots_renamed:
            yield f"~ slot {s.path}: renamed from {_show(s.old)} to {_show(s.new)}"
        for s in self.children_reordered:
            yield f"~ slot {s.path}: children reordered"
        for mark, components in (("+", self.components_added), ("-", self.components_removed)):
            for c in components:
                yield f"{mark} component {c.path} ({c.id}) {c.type}"
        for c in self.components_moved:
            yield f"> component {c.path} ({c.id}): moved from {c.old_path}"
        for link in self.connections:
            mark = "+" if link.change == "connected" else "-"
            yield f"{mark} {link.change} {link.kind} {link.flow}"
        for v in self.values:
            if v.kind == "added":
                yield f"+ {v.path} = {_show(v.new)}"
            elif v.kind == "removed":
                yield f"- {v.path} = {_show(v.old)}"
            else:
                yield f"~ {v.path}: {_show(v.old)} -> {_show(v.new)}"
        for mark, names in (("+", self.types_added), ("-", self.types_removed)):
            for name in names:
                yield f"{mark} type {name}"
        if self.types_reordered:
            yield "~ type table reordered"
        for path in self.keys_reordered:
            yield f"~ {path}: keys reordered"


def diff(a: HasBson, b: HasBson) -> Diff:
    """What changed from ``a`` to ``b`` (with ProtoFlux connections when both are trees)."""
    out, _, touched = compared(a.to_bson(), b.to_bson())
    if isinstance(a, DataTree) and isinstance(b, DataTree):
        add_connections(out, a, b, touched)
    return out


def add_connections(out: Diff, a: DataTree, b: DataTree, touched: set[str] | None = None) -> None:
    """The ProtoFlux connections made and broken from ``a`` to ``b``, into ``out``: a changed
    input reads as ``connected X.Out → Y.In`` instead of a reference ID that changed, so the
    value changes of the members holding them are dropped.  Only when values changed (a
    connection is a member's value).  ``touched``: the IDs of the ProtoFlux components that
    differ (:func:`compared`), when known: only the nodes they can reach are built
    (:mod:`brson.ops.connections`); else one linear pass over each tree's ProtoFlux.
    Broken connections come in ``a``'s order, then the made ones in ``b``'s."""
    if not out.values:
        return
    focus: set[str] | None = None
    if touched is not None and not (a.modified or b.modified):
        if not touched:
            return  # no node or helper differs: no connection can have
        found = focused_graphs(a, b, touched)
        before, after, focus = found.before, found.after, found.focus
        labels_before, labels_after = found.labels_before, found.labels_after
    else:
        before, after = flux.build(a), flux.build(b)
        # One label table per tree: it builds the tree's reference graph on its first world
        # edge.
        labels_before, labels_after = Labels(before), Labels(after)
    old, new = _keyed(before, focus), _keyed(after, focus)
    holders: set[str] = set()
    for change, graph, edges, other, labels in (
        ("disconnected", before, old, new, labels_before),
        ("connected", after, new, old, labels_after),
    ):
        for key, edge in edges.items():
            if key not in other:
                text = flow(graph, edge, labels)
                out.connections.append(ConnectionChange(change, edge.kind, text))
                holders.update(_holder_ids(graph, edge))
    if holders:
        out.values = [v for v in out.values if v.id not in holders]


def _keyed(graph: flux.Flux, focus: set[str] | None) -> dict[tuple[str, str, str, str], flux.Edge]:
    """The edges (of the focus nodes) by what they connect, in the graph's order."""
    edges = (
        graph.edges
        if focus is None
        else graph.edges_from(node for node in graph.nodes if node.id in focus)
    )
    return {(e.kind, e.node, e.member, e.target): e for e in edges}


def _holder_ids(graph: flux.Flux, edge: flux.Edge) -> Iterator[str]:
    """The ID of the member that holds ``edge`` on its node (where a value change shows it)."""
    node = graph.by_id.get(edge.node)
    if node is None or node.slot is None:
        return
    for component in node.slot.components:
        if component.id == edge.node:
            data = component.decoded().get("Data")
            member = data.get(edge.member) if type(data) is dict else None
            if type(member) is dict and type(member.get("ID")) is str:
                yield member["ID"]


def compare(bytes_a: bytes, bytes_b: bytes) -> tuple[Diff, dict[str, Any] | None]:
    """The diff of two documents' BSON, with the patch body it was rendered from (None when
    the documents are equal, or cannot be cut exactly by ID: a slot tree without IDs is
    compared by position, anything else value by value)."""
    out, body, _ = compared(bytes_a, bytes_b)
    return out, body


def compared(bytes_a: bytes, bytes_b: bytes) -> tuple[Diff, dict[str, Any] | None, set[str] | None]:
    """:func:`compare`, with the IDs of the ProtoFlux components that differ (nodes and
    helpers added, removed, changed or moved: what :func:`add_connections` builds from);
    None when the documents cannot be cut exactly by ID."""
    out = Diff()
    if bytes_a == bytes_b:
        return out, None, set()
    with paused_gc():  # many small long-lived objects, no cycles: collections only cost
        return _compared(bytes_a, bytes_b, out)


def _compared(
    bytes_a: bytes, bytes_b: bytes, out: Diff
) -> tuple[Diff, dict[str, Any] | None, set[str] | None]:
    try:
        pa, pb = cut_pair(bytes_a, bytes_b)
    except Undecomposable:
        _compare(bsondoc.decode(bytes_a), bsondoc.decode(bytes_b), "<root>", (), out)
        return out, None, None
    body = structural(pa, pb)
    render(body, pa, pb, out)
    if not (pa.exact and pb.exact):
        return out, None, None
    return out, body, _touched_flux(body, pa, pb)


def _touched_flux(body: dict[str, Any], pa: Parts, pb: Parts) -> set[str]:
    """The ProtoFlux components (on either side) that the body adds, removes, changes or
    moves to another list."""
    touched = {record["id"] for record in body.get("components") or ()}
    for record in body.get("slots") or ():
        lists = record.get("components")
        if isinstance(lists, dict):
            touched |= set(lists["old"]) ^ set(lists["new"])
        elif isinstance(lists, list):
            touched |= set(lists)
    assets = (body.get("root") or {}).get("assets")
    if isinstance(assets, dict):
        touched |= set(assets.get("old") or []) ^ set(assets.get("new") or [])
    return {key for key in touched if _is_flux(pa, key) or _is_flux(pb, key)}


def _is_flux(parts: Parts, key: str) -> bool:
    if key not in parts.components:
        return False
    value = parts.components[key].get("Type")
    name = value.name if isinstance(value, TypeRef) else value
    if not isinstance(name, str):
        return False
    parsed = TypeName.parse(name)
    return is_node(parsed) or is_helper(parsed)


def render(body: dict[str, Any], pa: Parts, pb: Parts, out: Diff) -> None:
    """Fill ``out`` from a patch body made of ``pa`` and ``pb`` (which name the paths)."""
    root = body.get("root") or {}
    for change in as_list(root.get("changes"), "changes"):
        key = tuple(change["key"])
        old, new = from_json(change.get("old")), from_json(change.get("new"))
        _compare(old, new, "<root>", key, out, "old" in change, "new" in change)
    _orders(root, "<root>", out)
    types = body.get("types")
    if types is not None:
        old_types, new_types = types.get("old") or [], types.get("new") or []
        out.types_added = sorted(set(new_types) - set(old_types))
        out.types_removed = sorted(set(old_types) - set(new_types))
        shared = set(old_types) & set(new_types)
        out.types_reordered = [n for n in old_types if n in shared] != [
            n for n in new_types if n in shared
        ]
    slots = as_list(body.get("slots"), "slots")
    components = as_list(body.get("components"), "components")
    _render_slots(slots, pa, pb, out)
    _moves(slots, root, pa, pb, out)
    _render_components(components, pa, pb, out)


def _render_slots(records: list[dict[str, Any]], pa: Parts, pb: Parts, out: Diff) -> None:
    for record in records:
        key, op, path = record["id"], record["op"], record["path"]
        if op == "remove":
            out.slots_removed.append(SlotChange(pa.element_id(key), path))
            continue
        element_id = pb.element_id(key)
        if op == "add":
            out.slots_added.append(SlotChange(element_id, path))
            continue
        for change in as_list(record.get("changes"), "changes"):
            old, new = from_json(change.get("old")), from_json(change.get("new"))
            has_old, has_new = "old" in change, "new" in change
            if change["key"] == ["Name", "Data"] and has_old and has_new:
                out.slots_renamed.append(SlotChange(element_id, path, old, new))
                continue
            keys = tuple(change["key"])
            owner = _holder_id(pb.slots[key], keys, None)
            _compare(old, new, path, keys, out, has_old, has_new, owner)
        _orders(record, path, out)
        children = record.get("children")
        if children is not None:
            before, after = children["old"], children["new"]
            kept_after = set(after)
            kept = [k for k in before if k in kept_after]
            shared = set(kept)
            if kept != [k for k in after if k in shared]:
                out.children_reordered.append(SlotChange(element_id, path))


def _moves(
    slots: list[dict[str, Any]], root: dict[str, Any], pa: Parts, pb: Parts, out: Diff
) -> None:
    """Slots and components that left one list and joined another: moved."""
    for name in ("children", "components"):
        left: dict[str, str] = {}
        joined: dict[str, str] = {}
        for record in slots:
            lists = record.get(name)
            before, after = _lists(record, lists, name)
            _gone_and_come(before, after, record["id"], left, joined)
        if name == "components" and isinstance(root.get("assets"), dict):
            assets = root["assets"]
            _gone_and_come(assets.get("old") or [], assets.get("new") or [], ASSETS, left, joined)
        for key, new_owner in joined.items():
            old_owner = left.get(key)
            if old_owner is None:
                continue
            if name == "children":
                change = SlotChange(
                    pb.element_id(key),
                    pb.slot_path(key),
                    pa.slot_path(old_owner),
                    pb.slot_path(new_owner),
                )
                out.slots_moved.append(change)
            else:
                out.components_moved.append(
                    ComponentChange(
                        pb.element_id(key),
                        pb.type_name(key),
                        pb.component_path(key),
                        pa.component_path(key),
                    )
                )


def _lists(record: dict[str, Any], lists: Any, name: str) -> tuple[list[str], list[str]]:
    if record["op"] == "change":
        return (lists["old"], lists["new"]) if isinstance(lists, dict) else ([], [])
    items = list(record.get(name) or [])
    return (items, []) if record["op"] == "remove" else ([], items)


def _gone_and_come(
    before: list[str], after: list[str], owner: str, left: dict[str, str], joined: dict[str, str]
) -> None:
    if before == after:
        return
    now, then = set(after), set(before)
    for key in before:
        if key not in now:
            left[key] = owner
    for key in after:
        if key not in then:
            joined[key] = owner


def _render_components(records: list[dict[str, Any]], pa: Parts, pb: Parts, out: Diff) -> None:
    for record in records:
        key, op, path = record["id"], record["op"], record["path"]
        if op in ("add", "remove"):
            doc = record.get("doc") or {}
            name = record.get("type") or type_label(from_json(doc.get("Type")))
            change = ComponentChange(_real_id(pa, key, doc), name, path)
            (out.components_added if op == "add" else out.components_removed).append(change)
            continue
        for item in as_list(record.get("changes"), "changes"):
            old, new = from_json(item.get("old")), from_json(item.get("new"))
            if item["key"] == ["Type"]:
                names = item.get("type") or {}
                if names.get("old") is not None and names.get("old") != names.get("new"):
                    old, new = names["old"], names["new"]
                out.values.append(ValueChange(f"{path} (Type)", key, old, new))
                continue
            keys = tuple(item["key"])
            owner = _holder_id(pb.components[key], keys, pb.element_id(key))
            _compare(old, new, path, keys, out, "old" in item, "new" in item, owner)
        _orders(record, path, out)


def _holder_id(view: dict[str, Any], keys: tuple[str, ...], default: str | None) -> str | None:
    """The ID of the innermost element (member) holding the value at ``keys``."""
    node: Any = view
    found = default
    for key in keys[:-1]:
        node = node.get(key) if type(node) is dict else None
        if type(node) is dict and isinstance(node.get("ID"), str):
            found = node["ID"]
    return found


def _real_id(parts: Parts, key: str, doc: dict[str, Any]) -> str | None:
    data = doc.get("Data")
    element_id = data.get("ID") if isinstance(data, dict) else None
    return element_id if isinstance(element_id, str) else parts.real_ids.get(key, key)


def _orders(record: dict[str, Any], head: str, out: Diff) -> None:
    for item in as_list(record.get("order"), "order"):
        out.keys_reordered.append(_render(head, tuple(item["key"])))


def _compare(
    a: Any,
    b: Any,
    head: str,
    path: Path,
    out: Diff,
    in_a: bool = True,
    in_b: bool = True,
    owner_id: str | None = None,
) -> None:
    """Record the differences between two decoded values (iteratively: no depth limit)."""
    stack: list[tuple[Any, Any, Path, bool, bool, str | None]] = [
        (a, b, path, in_a, in_b, owner_id)
    ]
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
            if [k for k in a if k in b] != [k for k in b if k in a]:
                out.keys_reordered.append(_render(head, path))
            keys = list(a)
            keys += [k for k in b if k not in a]
            for key in reversed(keys):
                stack.append((a.get(key), b.get(key), (*path, key), key in a, key in b, element_id))
        elif type(a) is list and type(b) is list and _nested(a, b):
            for item in reversed(_pair_items(a, b)):
                index, item_a, item_b, has_a, has_b = item
                stack.append((item_a, item_b, (*path, index), has_a, has_b, element_id))
        elif not same(a, b):
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


def _render(head: str, path: Path) -> str:
    """``Root/Body:MeshRenderer.Materials[0]``: members' ``Data`` keys are left out."""
    text = head
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part != "Data":
            text += f".{part}"
    return text


def _show(value: Any, limit: int = 120) -> str:
    text = json.dumps(jsonform.to_jsonable(value), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["ComponentChange", "Diff", "SlotChange", "ValueChange", "compare", "compared", "diff"]
