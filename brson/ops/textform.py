"""The text form of a tree (``brson show``): one line per slot, component and field, made to be
read and to be diffed by line tools (git's ``textconv``, ``diff``, ``blame``).

Stable (the same bytes give the same text, and no element IDs: the engine numbers them in save
order, so one inserted slot would change every later line; a reference is the path of what it
names), ordered as the engine wrote it except where order means nothing (the type table,
feature flags, type versions: sorted), a header line per slot at column 0 (git's hunk header
names the slot), names escaped so none can split or forge a line.  The README ("git") shows
it.  Linear: one pass to name what references point at, one to write; a slot's path is
bounded (head and tail), so a deep tree of long names costs its size, not its depth squared.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from brson.collector import deferred_full_collections
from brson.document import jsonform
from brson.errors import PATH_LIMIT, BrsonError, ModelError, bounded
from brson.flux import build as build_flux
from brson.flux import catalog as flux_kinds
from brson.model import Component, DataTree, Slot
from brson.model.ids.forms import defines_id
from brson.model.ids.locate import TypeLabels, path_text

#: Slot keys that are its structure, shown by the layout instead of as fields.  Keys that
#: define an ID (``ID``, ``ParentReference``, ``persistent-ID``, ``_shader-ID``…; the one rule
#: is :func:`~brson.model.ids.forms.defines_id`) are identity, allocated at save time: never shown.
_SLOT_STRUCTURE = frozenset({"Components", "Children"})
#: Root keys shown elsewhere: the slot tree, the root assets and the type table.
_ROOT_STRUCTURE = ("Object", "Assets", "Types")
#: Rendered values longer than this are shown by length and hash: still changed when they
#: change, without pasting megabytes of a baked string into every diff.
VALUE_LIMIT = 2000
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

#: A field's place inside its component or slot: keys and list positions.
FieldPath = tuple[str | int, ...]


def escaped(text: str) -> str:
    """``text`` with control characters as ``\\xNN``: a newline in a slot name must not end
    the line it is on."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def value_text(value: Any) -> str:
    """A value in the lossless JSON form on one line (int64 as ``$numberLong``, exact float
    bits), or its length and sha256 when longer than :data:`VALUE_LIMIT`."""
    return hashed_if_long(json.dumps(jsonform.to_jsonable(value), ensure_ascii=False))


def hashed_if_long(text: str) -> str:
    """``text``, or its length and sha256 when longer than :data:`VALUE_LIMIT`."""
    if len(text) <= VALUE_LIMIT:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"<{len(text)} characters, sha256 {digest}>"


def component_head(component: Component) -> str:
    """A component's short type name (``ValueField<bool>``), or its raw ``Type``."""
    try:
        return escaped(component.type.short)
    except BrsonError:  # a Type index naming no type: shown as stored, validate reports it
        return "Type " + value_text(component.type_index)


def leaves(value: Any, base: FieldPath = ()) -> Iterator[tuple[FieldPath, Any]]:
    """The values inside a member or sync object, in element order, by path.

    A member (``{ID, Data}``) is its ``Data`` at the same path; any other document's keys are
    sub-fields (a sync object's members, a delegate's ``Target`` and ``Method``, a bounding
    box's ``Min`` and ``Max``), except the keys that define IDs; a list holding documents (a
    SyncList) is one entry per element.  Anything else is one value (numbers, strings,
    vectors, colours, an empty document)."""
    stack: list[tuple[FieldPath, Any]] = [(base, value)]
    while stack:
        path, item = stack.pop()
        if type(item) is dict and item:
            stack.extend(
                (path if key == "Data" and "ID" in item else (*path, key), item[key])
                for key in reversed(item)
                if not defines_id(key)
            )
        elif type(item) is list and any(type(x) is dict for x in item):
            stack.extend(((*path, i), x) for i, x in reversed(list(enumerate(item))))
        else:
            yield path, item


def field_name(path: FieldPath) -> str:
    """``Materials[0]``, ``Target.Value``: the dotted form without its leading dot."""
    return escaped(path_text(path).removeprefix("."))


def slot_paths(tree: DataTree) -> Iterator[tuple[Slot, str]]:
    """Every slot, depth first, with its path as ``show`` prints it: names joined by ``/``,
    control characters escaped, and ``[k]`` after a name that siblings share (the k-th of
    that name, from 0), so each path names one slot: ProtoFlux packs dozens of nodes named
    ``ValueInput`1`` under one parent.  Bounded to :data:`~brson.errors.PATH_LIMIT`
    characters (head and tail), so a deep tree of long names costs its size."""
    root = tree.root
    stack: list[tuple[Slot, str]] = [(root, _name(root))]
    with deferred_full_collections():  # every slot handed out is kept, as Slot.walk says
        while stack:
            slot, text = stack.pop()
            yield slot, text
            kids = slot.children
            labels = distinct([_name(kid) for kid in kids])
            stack.extend(
                (kid, bounded(f"{text}/{label}", PATH_LIMIT))
                for kid, label in zip(reversed(kids), reversed(labels), strict=True)
            )


def distinct(names: list[str]) -> list[str]:
    """``names`` with ``[k]`` after each one that occurs more than once (the k-th, from 0)."""
    shared = {name for name, n in Counter(names).items() if n > 1}
    if not shared:
        return names
    seen: Counter[str] = Counter()
    out = []
    for name in names:
        if name in shared:
            out.append(f"{name}[{seen[name]}]")
            seen[name] += 1
        else:
            out.append(name)
    return out


def components_labelled(slot: Slot, heads: TypeLabels) -> list[tuple[Component, str]]:
    """A slot's components and their short type names (``heads``: :func:`component_head`
    made once per type of the tree), made distinct with :func:`distinct` (a slot may hold two
    ``DynamicValueVariable<bool>``)."""
    components = slot.components
    labels = distinct([heads.of(component) for component in components])
    return list(zip(components, labels, strict=True))


def _name(slot: Slot) -> str:
    name = slot.name
    return escaped(name) if type(name) is str else ""


class Names:
    """What each element ID of a tree names, as a reference shows it (``Root/Body``,
    ``Root/Body:MeshRenderer``, ``Root/Body:MeshRenderer.Materials[0]``).

    Built in one pass before anything is written, since a reference may point forward.  Each
    ID keeps its head (one string shared by every element of a slot or component) and its path
    inside, joined only when a reference shows it: a text per member would hold the slot's
    path once per member."""

    def __init__(self, tree: DataTree) -> None:
        self._names: dict[str, tuple[str, FieldPath]] = {}
        #: Each component's :func:`component_head`, made once per type.
        self.heads = TypeLabels(component_head)
        for slot, head in slot_paths(tree):
            self._define(slot.id, head, ())
            for key in slot:
                if key not in _SLOT_STRUCTURE and not defines_id(key):
                    self._members(head, (key,), slot.get(key))
            for component, label in components_labelled(slot, self.heads):
                self._component(component, f"{head}:{label}")
        for index, component in enumerate(tree.assets):
            self._component(component, f"<Assets>[{index}]:{component_head(component)}")

    def _define(self, element_id: object, head: str, path: FieldPath) -> None:
        if type(element_id) is str:
            self._names.setdefault(element_id, (head, path))

    def _component(self, component: Component, head: str) -> None:
        data = component.data.decoded()
        for key, value in data.items():
            if defines_id(key):
                self._define(value, head, ())
            else:
                self._members(head, (key,), value)

    def _members(self, head: str, base: FieldPath, value: Any) -> None:
        stack: list[tuple[FieldPath, Any]] = [(base, value)]
        while stack:
            path, item = stack.pop()
            if type(item) is dict:
                for key, sub in item.items():
                    if defines_id(key):
                        self._define(sub, head, path)
                    elif type(sub) in (dict, list):
                        inner = path if key == "Data" and "ID" in item else (*path, key)
                        stack.append((inner, sub))
            elif type(item) is list:
                stack.extend(((*path, i), x) for i, x in enumerate(item) if type(x) in (dict, list))

    def show(self, value: Any) -> str:
        """A leaf value's text: ``-> PATH`` when it is the ID of an element of this tree."""
        if type(value) is str:
            label = self.label(value)
            if label is not None:
                return "-> " + label
        return value_text(value)

    def label(self, element_id: str) -> str | None:
        """The path of the element ``element_id`` names, or None when it names none here."""
        target = self._names.get(element_id)
        if target is None:
            return None
        return target[0] + escaped(path_text(target[1]))


def tree_lines(tree: DataTree) -> Iterator[str]:
    """The whole tree as lines (without newlines): the root's settings and sorted type table,
    then every slot depth first with its fields and components, then the root assets."""
    try:
        tree.types  # noqa: B018 -- a malformed table is reported before any line is written
        names = Names(tree)
    except RecursionError:
        raise ModelError("the tree is nested too deeply to show") from None
    yield from _root_lines(tree)
    for slot, path in slot_paths(tree):
        yield from _slot_lines(slot, path, names)
    for index, component in enumerate(tree.assets):
        yield f"asset {index} {component_head(component)}"
        yield from _component_fields(component, names, "  ")
    yield from _flux_lines(tree, names)


def _flux_lines(tree: DataTree, names: Names) -> Iterator[str]:
    """The ProtoFlux connections, one a line in the direction they work, each end named by
    its path as references are, below the slot holding its graph (``value Add:ValueAdd<int>
    → Mul:ValueMul<int>.A``): connecting or disconnecting two nodes is one added or removed
    line, where the tree section only shows an input's reference changing.  Graphs in
    document order under a ``protoflux PATH`` header, each graph's connections in the order
    its nodes hold them."""
    flux = build_flux(tree)
    for graph in flux.graphs:
        edges = flux.edges_from(graph.nodes)
        if not edges:
            continue
        held = graph.container.id if graph.container is not None else None
        where = names.label(held) if type(held) is str else None
        yield f"protoflux {where}" if where is not None else "protoflux"
        inside = f"{where}/" if where is not None else ""
        for edge in edges:
            here = f"{_end(names, edge.node, inside)}.{escaped(edge.member)}"
            if edge.target_node is not None:
                other = _end(names, edge.target_node, inside)
                if edge.output is not None:
                    other += f".{escaped(edge.output)}"
            else:
                other = _end(names, edge.target, inside)
            if edge.kind in (flux_kinds.VALUE, flux_kinds.READ):
                here, other = other, here
            yield f"  {edge.kind} {here} → {other}"


def _end(names: Names, element_id: str, inside: str) -> str:
    """An element's path below ``inside`` (its graph's slot), in full when outside it."""
    label = names.label(element_id)
    if label is None:
        return value_text(element_id)
    return label.removeprefix(inside) if inside else label


def _root_lines(tree: DataTree) -> Iterator[str]:
    for key in tree:
        if key in _ROOT_STRUCTURE:
            continue
        value = tree.get(key)
        if type(value) is dict:  # FeatureFlags, TypeVersions: sets of settings, sorted
            for sub in sorted(value):
                yield f"{escaped(key)}.{escaped(sub)} = {value_text(value[sub])}"
        else:
            yield f"{escaped(key)} = {value_text(value)}"
    table = tree.get("Types")
    if type(table) is list:
        yield from sorted(
            "type " + (escaped(name) if type(name) is str else value_text(name)) for name in table
        )
    elif table is not None:
        yield f"Types = {value_text(table)}"


def _slot_lines(slot: Slot, path: str, names: Names) -> Iterator[str]:
    yield f"slot {path}"
    for key in slot:
        if key in _SLOT_STRUCTURE or defines_id(key):
            continue
        value = slot.get(key)
        if key == "Name" and type(value) is dict and type(value.get("Data")) is str:
            continue  # the last part of the header's path
        for where, leaf in leaves(value, (key,)):
            yield f"  {field_name(where)} = {names.show(leaf)}"
    for component, label in components_labelled(slot, names.heads):
        yield f"  component {label}"
        yield from _component_fields(component, names, "    ")


def _component_fields(component: Component, names: Names, indent: str) -> Iterator[str]:
    data = component.data.decoded()
    for key, value in data.items():
        if defines_id(key):
            continue
        for path, leaf in leaves(value, (key,)):
            yield f"{indent}{field_name(path)} = {names.show(leaf)}"


__all__ = ["Names", "escaped", "hashed_if_long", "leaves", "tree_lines", "value_text"]
