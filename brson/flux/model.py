"""The ProtoFlux graphs of a tree: nodes, their connections, and the graphs they form.

Built in one pass over the components (only ProtoFlux ones are decoded) and one over what was
collected, with dictionaries keyed by ID: linear in the size of the tree.  What a stored ID
means follows :mod:`brson.flux.catalog`; connections the engine could not make (an impulse to
something that is no node, an input reading a component that is no node output, a helper whose
node is not on its slot, a node outside the slot tree) are kept as :class:`Issue` records
instead of edges, for ``brson validate`` to report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from bson.int64 import Int64

from brson.errors import ModelError
from brson.flux import catalog
from brson.flux.catalog import IMPULSE, KINDS, READ, VALUE, WRITE
from brson.model import Component, DataTree, Slot
from brson.model.ids.forms import is_guid
from brson.model.typename import TypeName

#: Issue kinds (``brson validate`` turns each into its rule).
INPUT_NOT_OUTPUT = "input-not-output"
IMPULSE_NOT_NODE = "impulse-not-node"
NODE_WITHOUT_SLOT = "node-without-slot"
HELPER_WITHOUT_NODE = "helper-without-node"


@dataclass(frozen=True, slots=True)
class FluxNode:
    """A node: a component of the node assembly, on its own slot."""

    id: str
    #: Short type name with arguments (``ValueWrite<FrooxEngineContext, bool>``).
    type: str
    #: The type name as stored.
    full_type: str
    slot: Slot | None
    #: The slot's local ``Position`` (the node's place on its canvas), when it is 3 numbers.
    position: tuple[float, float, float] | None
    #: Document order among the nodes (what every listing sorts by).
    order: int


@dataclass(frozen=True, slots=True)
class Edge:
    """One connection, as it is stored: ``node``'s ``member`` holds ``target``.

    ``value``: the node reads ``target_node`` (its one output, or the output member
    ``output``); ``impulse``: ``node`` continues to or calls ``target_node``; ``read``,
    ``write``, ``drive``: the node reads, writes or drives the world element ``target``,
    through the helper ``via`` when there is one (a global, a drive proxy, a source node)."""

    kind: str
    node: str
    member: str
    target: str
    target_node: str | None = None
    output: str | None = None
    via: str | None = None


@dataclass(frozen=True, slots=True)
class Issue:
    """A connection the engine could not make, or a node it could not place."""

    kind: str
    #: The component the issue is about (a node, or a helper), and its type's short name.
    component: str
    label: str
    slot: Slot | None
    member: str | None
    target: str | None
    detail: str


@dataclass(slots=True)
class Graph:
    """Nodes joined by value and impulse connections (the engine's node groups)."""

    number: int
    nodes: list[FluxNode] = field(default_factory=list)
    #: The slot holding every node's slot, when they share one (the group slot).
    container: Slot | None = None


#: Where a component is, as a :class:`Builder` is handed it: its slot, the row of that slot in
#: the caller's slot table (made a :class:`~brson.model.Slot` by the builder's ``slot_of``
#: only where a node or an issue needs it), or None (the root ``Assets``).
SlotKey = Slot | int | None


@dataclass(slots=True)
class _Helper:
    id: str
    name: TypeName
    slot: SlotKey
    data: dict[str, Any]


class Flux:
    """The ProtoFlux of a tree: :attr:`nodes` in document order, :attr:`edges` grouped by
    node in that order, :attr:`graphs`, and :attr:`issues`."""

    def __init__(self, tree: DataTree) -> None:
        self.tree = tree
        self.nodes: list[FluxNode] = []
        self.by_id: dict[str, FluxNode] = {}
        self.edges: list[Edge] = []
        #: Node ID -> its edges, in :attr:`edges` order.
        self.edges_of: dict[str, list[Edge]] = {}
        self.issues: list[Issue] = []
        self.graphs: list[Graph] = []
        #: Node ID -> the graph it is in.
        self.graph_of: dict[str, Graph] = {}

    def edges_from(self, nodes: Iterable[FluxNode]) -> list[Edge]:
        """The edges of these nodes, node by node in the order given."""
        return [edge for node in nodes for edge in self.edges_of.get(node.id, ())]

    def counts(self) -> dict[str, int]:
        out = {"nodes": len(self.nodes), "edges": len(self.edges), "graphs": len(self.graphs)}
        for kind in KINDS:
            out[kind] = 0
        for edge in self.edges:
            out[edge.kind] += 1
        return out


def build(tree: DataTree) -> Flux:
    """The ProtoFlux model of ``tree`` (every slot, and the root ``Assets``)."""
    return build_from(tree, _components(tree))


def build_from(
    tree: DataTree,
    components: Iterable[tuple[Slot | None, dict[str, Any]]],
    focus: Collection[str] | None = None,
) -> Flux:
    """The model from ``(slot, decoded component)`` pairs already at hand (validate's walk):
    only components whose type names a ProtoFlux assembly are looked at further.

    With ``focus`` (node IDs), only those nodes' edges are made, and no issues are looked for
    (an issue's text resolves IDs in the whole tree): what a diff needs of a part of a big
    tree.  Their edges are the whole tree's when ``components`` hold every node, helper and
    node output their connections name, and every helper that names them."""
    builder = Builder(tree)
    for slot, doc in components:
        builder.add(slot, doc)
    return builder.finish(focus)


def _components(tree: DataTree) -> Iterator[tuple[Slot | None, dict[str, Any]]]:
    """Every ProtoFlux component, decoded, with its slot (None for the root Assets)."""
    if "Object" in tree:
        for slot in tree.walk():
            for component in slot.components:
                if _protoflux(component):
                    yield slot, component.decoded()
    for component in tree.assets:
        if _protoflux(component):
            yield None, component.decoded()


def _protoflux(component: Component) -> bool:
    try:
        name = component.type
    except ModelError:
        return False  # validate reports the type (BR301, BR302); nothing to draw
    return catalog.is_node(name) or catalog.is_helper(name)


#: What a node member holds that can connect: an ID, or a list's items' IDs (None for an item
#: that holds none).
Held = str | list[str | None]
#: A node's members as :func:`connectable` lists them: (key, its ID or None, what it holds).
Members = list[tuple[str, str | None, Held | None]]
#: A node component read down to what the model keeps of it (``_fieldsc.nodes`` reads it
#: from its bytes): (its ``Type``, its ID, :func:`connectable` of its ``Data``).
NodeRead = tuple[int, str, Members]


def connectable(data: dict[str, Any], referenced: Container[str] | None = None) -> Members:
    """The members of a node's ``Data`` that can take part in a connection: (key, the member's
    ID when a connection can name it, what it holds when that is an ID or a list), each
    member with either.  A member's ID can be named when it is an ID (``referenced``: when it
    is among those IDs, the ones some reference names).  ``_fieldsc.nodes`` reads the same
    from a component's bytes (validate)."""
    out: Members = []
    for key, value in data.items():
        if type(value) is not dict:
            continue
        member_id = value.get("ID")
        if not (
            type(member_id) is str
            and (is_guid(member_id) if referenced is None else member_id in referenced)
        ):
            member_id = None
        held = value.get("Data")
        if type(held) is list:
            held = [_guid(item.get("Data")) if type(item) is dict else None for item in held]
        elif type(held) is not str or not is_guid(held):
            held = None
        if member_id is not None or held is not None:
            out.append((key, member_id, held))
    return out


@dataclass(frozen=True, slots=True)
class _Type:
    """What the model reads of a component's type, worked out once per type in the tree."""

    name: TypeName
    short: str
    full: str
    node_class: str
    node: bool
    helper: bool


#: What a :class:`Builder` keeps of a node until :meth:`~Builder.finish`: its type, where it
#: is, and its members that hold an ID or a list, as (key, what they hold).
_NodeData = tuple[_Type, SlotKey, list[tuple[str, Held]]]


class Builder:
    """The model built from components handed one at a time (:meth:`add`, :meth:`add_nodes`,
    then :meth:`finish`): what :func:`build_from` does, for a caller that visits the
    components itself and should not hold them all (validate's walk).  A node keeps only its
    members that can hold a connection, not its decoded ``Data``.

    ``issues_only``: what :attr:`Flux.issues` needs and nothing more (no nodes listed, no
    positions, no graphs, no write edges through globals): validate's ProtoFlux rules, for
    which a node object per node cost as much as reading the node.  ``referenced``: the only
    IDs a connection can name (those some reference in the tree names and some element
    defines, :class:`~brson.model.ids.scan.IdCensus`), so no other member ID is kept.
    ``slot_of``: the slot of a row of the caller's slot table, for components handed with
    their slot's row (:data:`SlotKey`): a walk over the table then makes a slot only where a
    node of the model or an issue needs it."""

    def __init__(
        self,
        tree: DataTree,
        issues_only: bool = False,
        referenced: Container[str] | None = None,
        slot_of: Callable[[int], Slot] | None = None,
    ) -> None:
        self.flux = Flux(tree)
        self.tree = tree
        self.issues_only = issues_only
        self.referenced = referenced
        self.slot_of = slot_of
        names = self.tree.get("Types")
        self.types: list[Any] = names if isinstance(names, list) else []
        self._known: dict[object, _Type | None] = {}
        #: Node ID -> what is kept of it, in the order the nodes came (the first of an ID).
        self.node_data: dict[str, _NodeData] = {}
        #: Member ID of a node -> (node ID, member name): outputs, and operations of nodes
        #: with several.
        self.members: dict[str, tuple[str, str]] = {}
        self.helpers: dict[str, _Helper] = {}
        self.helper_order: list[_Helper] = []
        #: Whether issues are looked for (not in a focused build).
        self.issues = True

    def _name(self, raw: object) -> TypeName | None:
        if isinstance(raw, int) and not isinstance(raw, bool):
            if 0 <= raw < len(self.types) and type(self.types[raw]) is str:
                return TypeName.parse(self.types[raw])
            return None
        return TypeName.parse(raw) if type(raw) is str else None

    def _type(self, raw: object) -> _Type | None:
        """The component type ``raw`` (a Types index or an inline name) names, cached by the
        exact value (``True`` and ``1`` hash alike but name different things; an int64 index
        names what the int32 one does)."""
        cacheable = type(raw) is int or type(raw) is str or type(raw) is Int64
        if cacheable and raw in self._known:
            return self._known[raw]
        name = self._name(raw)
        found = None
        if name is not None:
            found = _Type(
                name,
                name.short,
                str(name),
                catalog.class_name(name),
                catalog.is_node(name),
                catalog.is_helper(name),
            )
        if cacheable:
            self._known[raw] = found
        return found

    def _slot(self, key: SlotKey) -> Slot | None:
        """The slot ``key`` stands for (a row is made a slot by ``slot_of``)."""
        if isinstance(key, int):
            if self.slot_of is None:
                raise ValueError(f"slot row {key} handed to a builder without slot_of")
            return self.slot_of(key)
        return key

    def add(self, slot: SlotKey, doc: dict[str, Any]) -> None:
        """Take one component (decoded), on ``slot`` (None: the root ``Assets``)."""
        kind = self._type(doc.get("Type"))
        data = doc.get("Data")
        if kind is None or type(data) is not dict:
            return
        component_id = _guid(data.get("ID"))
        if component_id is None:
            return
        if kind.node:
            self._add_node(component_id, kind, slot, connectable(data, self.referenced))
        elif kind.helper:
            helper = _Helper(component_id, kind.name, slot, data)
            self.helpers[component_id] = helper
            self.helper_order.append(helper)

    def is_node(self, raw: object) -> bool:
        """Whether a component whose ``Type`` is ``raw`` (a Types index or a name) is a node."""
        kind = self._type(raw)
        return kind is not None and kind.node

    def add_nodes(
        self,
        slots: Sequence[SlotKey],
        reads: Sequence[NodeRead | None],
        decoded: Callable[[int], dict[str, Any]],
    ) -> None:
        """Take components in order, the ``i``-th on ``slots[i]``: a node read down to what
        :func:`connectable` keeps of its ``Data`` (``reads[i]``, a :data:`NodeRead` whose
        ``Type`` names a node (:meth:`is_node`) and whose ID is an ID), or, where ``reads[i]``
        is None, the component ``decoded(i)`` as :meth:`add` takes it.  What :meth:`add` does
        with each decoded, in one call for a run of them."""
        known = self._known
        for number, read in enumerate(reads):
            if read is None:
                self.add(slots[number], decoded(number))
                continue
            raw, node_id, members = read
            kind = known.get(raw) or self._type(raw)
            if kind is None or not kind.node:
                raise ValueError(f"add_nodes: {raw!r} names no node")
            self._add_node(node_id, kind, slots[number], members)

    def _add_node(self, node_id: str, kind: _Type, slot: SlotKey, members: Members) -> None:
        node_data = self.node_data
        if node_id in node_data:
            return  # a duplicate ID: BR401 reports it; the first definition stands
        links: list[tuple[str, Held]] = []
        outputs = self.members
        for key, member_id, held in members:
            if member_id is not None:
                outputs.setdefault(member_id, (node_id, key))
            if held is not None and not (key == "ID" or catalog.is_internal(key)):
                links.append((key, held))
        node_data[node_id] = (kind, slot, links)
        if slot is None:
            self.flux.issues.append(
                Issue(
                    NODE_WITHOUT_SLOT,
                    node_id,
                    kind.name.name,
                    None,
                    None,
                    None,
                    f"node {kind.short} is in the root Assets, on no slot",
                )
            )

    # -- the second pass: every ID is known now ------------------------------------------
    def finish(self, focus: Collection[str] | None = None) -> Flux:
        """The model (see :func:`build_from` for ``focus``)."""
        flux = self.flux
        node_data = self.node_data
        if not self.issues_only:
            for node_id, (kind, key, _) in node_data.items():
                slot = self._slot(key)
                node = FluxNode(
                    id=node_id,
                    type=kind.short,
                    full_type=kind.full,
                    slot=slot,
                    position=_position(slot),
                    order=len(flux.nodes),
                )
                flux.nodes.append(node)
                flux.by_id[node_id] = node
        per_node: dict[str, list[Edge]] = {node_id: [] for node_id in node_data}
        globals_read: dict[str, list[Edge]] = {}  # node ID -> its read edges through globals
        if focus is None:
            for node_id in node_data:
                self._connect(node_id, per_node, globals_read)
        else:
            self.issues = False
            chosen = [node_id for node_id in node_data if node_id in focus]
            for node_id in chosen:
                self._connect(node_id, per_node, globals_read)
            # A focus node's writes go through the globals its Variable's node reads.
            read = {source for node_id in chosen for _, source in _variables(per_node[node_id])}
            for node_id in node_data:
                if node_id in read and node_id not in focus:
                    self._connect(node_id, per_node, globals_read)
        self._helpers(per_node)
        if self.issues_only:
            return flux
        self._writes(per_node, globals_read)
        for node in flux.nodes:
            flux.edges.extend(per_node[node.id])
        flux.edges_of = per_node
        self._group()
        return flux

    def _connect(
        self, node_id: str, per_node: dict[str, list[Edge]], globals_read: dict[str, list[Edge]]
    ) -> None:
        nodes, outputs = self.node_data, self.members
        kind, _, links = nodes[node_id]
        node_class = kind.node_class
        # What an issues-only build does with a connection to a node or a node's output:
        # nothing (it keeps no edges), so those are not looked at further.
        quiet = self.issues_only
        for key, held in links:
            if type(held) is str:
                if not (quiet and (held in nodes or held in outputs)):
                    self._connection(node_id, node_class, key, held, per_node, globals_read)
            else:
                for index, target in enumerate(held):
                    if target is None or (quiet and (target in nodes or target in outputs)):
                        continue
                    self._connection(
                        node_id,
                        node_class,
                        f"{key}[{index}]",
                        target,
                        per_node,
                        globals_read,
                        impulse_key=key,
                    )

    def _connection(
        self,
        node_id: str,
        node_class: str,
        member: str,
        target: str,
        per_node: dict[str, list[Edge]],
        globals_read: dict[str, list[Edge]],
        impulse_key: str | None = None,
    ) -> None:
        edges = per_node[node_id]
        impulse = catalog.is_impulse(node_class, impulse_key or member)
        kind = IMPULSE if impulse else VALUE
        if target in self.node_data:
            if not self.issues_only:  # an issue-free connection: only the full model keeps it
                edges.append(Edge(kind, node_id, member, target, target_node=target))
            return
        owner = self.members.get(target)
        if owner is not None:
            if not self.issues_only:
                edges.append(
                    Edge(kind, node_id, member, target, target_node=owner[0], output=owner[1])
                )
            return
        helper = self.helpers.get(target)
        if helper is not None and catalog.is_global(helper.name) and not impulse:
            reference = _guid(_member_value(helper.data, catalog.REFERENCE_MEMBER))
            if reference is not None:
                edge = Edge(READ, node_id, member, reference, via=helper.id)
                edges.append(edge)
                globals_read.setdefault(node_id, []).append(edge)
            return  # a GlobalValue (a constant) or an unset GlobalReference: no edge
        if catalog.holds_world(node_class, impulse_key or member) and not impulse:
            edges.append(Edge(READ, node_id, member, target))
            return
        self._bad(node_id, member, target, impulse)

    def _bad(self, node_id: str, member: str, target: str, impulse: bool) -> None:
        if not self.issues:
            return
        found = self.tree.resolve(target)
        what = "names no element of this file" if found is None else f"names {_kind(found)}"
        node_type, key, _ = self.node_data[node_id]
        if impulse:
            kind = IMPULSE_NOT_NODE
            detail = f"impulse {member} of {node_type.short} {what}, not a node"
        elif found is None:
            return  # a dangling reference: BR402 reports it, no ProtoFlux rule needed
        else:
            kind = INPUT_NOT_OUTPUT
            detail = f"input {member} of {node_type.short} {what}, not a node or a node's output"
        label = TypeName.parse(node_type.full).name
        self.flux.issues.append(
            Issue(kind, node_id, label, self._slot(key), member, target, detail)
        )

    def _same_slot(self, a: SlotKey, b: SlotKey) -> bool:
        """Whether two components are on one slot (one row of a slot table is one slot)."""
        if a is b or (isinstance(a, int) and a == b):
            return True
        return _same_slot(self._slot(a), self._slot(b))

    def _helpers(self, per_node: dict[str, list[Edge]]) -> None:
        """Drive, store and proxy helpers: the node they serve is on their slot."""
        node_data = self.node_data
        for helper in self.helper_order:
            named = _member_value(helper.data, catalog.NODE_MEMBER)
            if named is None and catalog.NODE_MEMBER not in helper.data:
                continue  # a global: reached from the nodes' inputs
            node = node_data.get(named) if is_guid(named) else None
            if node is None or not self._same_slot(node[1], helper.slot):
                if not self.issues:
                    continue
                what = "no node" if node is None else f"a node on another slot ({node[0].short})"
                self.flux.issues.append(
                    Issue(
                        HELPER_WITHOUT_NODE,
                        helper.id,
                        helper.name.name,
                        self._slot(helper.slot),
                        catalog.NODE_MEMBER,
                        named if is_guid(named) else None,
                        f"{helper.name.short} names {what} in Node",
                    )
                )
                continue
            kinds = catalog.helper_references(helper.name)
            for key, value in helper.data.items():
                kind = kinds.get(key)
                if kind is None or type(value) is not dict:
                    continue
                held = _guid(value.get("Data"))
                if held is not None:
                    per_node[named].append(Edge(kind, named, key, held, via=helper.id))

    def _writes(self, per_node: dict[str, list[Edge]], globals_read: dict[str, list[Edge]]) -> None:
        """A write node whose Variable reads a source bound to the world writes that world."""
        for node in self.flux.nodes:
            for edge, source in _variables(list(per_node[node.id])):
                for read in globals_read.get(source, ()):
                    per_node[node.id].append(
                        Edge(WRITE, node.id, edge.member, read.target, via=source)
                    )

    def _group(self) -> None:
        """Connected components over value and impulse edges (union-find, path halving)."""
        flux = self.flux
        parent = {node.id: node.id for node in flux.nodes}

        def root(item: str) -> str:
            while parent[item] != item:
                parent[item] = parent[parent[item]]
                item = parent[item]
            return item

        for edge in flux.edges:
            if edge.target_node is not None:
                a, b = root(edge.node), root(edge.target_node)
                if a != b:
                    parent[max(a, b, key=_order(flux))] = min(a, b, key=_order(flux))
        by_root: dict[str, Graph] = {}
        for node in flux.nodes:
            top = root(node.id)
            graph = by_root.get(top)
            if graph is None:
                graph = by_root[top] = Graph(len(flux.graphs) + 1)
                flux.graphs.append(graph)
            graph.nodes.append(node)
            flux.graph_of[node.id] = graph
        for graph in flux.graphs:
            graph.container = _shared_parent(graph.nodes)


def _variables(edges: list[Edge]) -> Iterator[tuple[Edge, str]]:
    """The value edges by which a node's Variable input reads a whole node (a write's
    source), with that node."""
    for edge in edges:
        if (
            edge.kind == VALUE
            and edge.member == catalog.VARIABLE_MEMBER
            and edge.output is None
            and edge.target_node is not None
        ):
            yield edge, edge.target_node


def _order(flux: Flux) -> Any:
    return lambda node_id: flux.by_id[node_id].order


def _shared_parent(nodes: list[FluxNode]) -> Slot | None:
    first = nodes[0].slot
    parent = first.parent if first is not None else None
    if parent is None:
        return None
    for node in nodes[1:]:
        if node.slot is None or node.slot.parent is not parent:
            return None
    return parent


def _guid(value: object) -> str | None:
    """``value`` when it is an ID (the model's one rule for the shape), else None."""
    return value if isinstance(value, str) and is_guid(value) else None


def _same_slot(a: Slot | None, b: Slot | None) -> bool:
    if a is b:
        return True
    return a is not None and b is not None and a.id is not None and a.id == b.id


def _member_value(data: dict[str, Any], key: str) -> Any:
    value = data.get(key)
    return value.get("Data") if type(value) is dict else None


def _position(slot: Slot | None) -> tuple[float, float, float] | None:
    if slot is None:
        return None
    try:
        value = slot.position
    except ModelError:
        return None
    if type(value) is not list or len(value) != 3:
        return None
    if not all(isinstance(v, float | int) and not isinstance(v, bool) for v in value):
        return None
    x, y, z = (float(v) for v in value)
    if not all(map(math.isfinite, (x, y, z))):
        return None
    return x, y, z


def _kind(element: object) -> str:
    if isinstance(element, Slot):
        return f"the slot {element.name!r}"
    if isinstance(element, Component):
        return f"a {element.type_label} component"
    return "a field of another component"
