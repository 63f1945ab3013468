"""The ProtoFlux model as text lines, JSON, Graphviz DOT and SVG.

The text form is for people and for ``git diff``: stable (document order, no counts that
shift other lines), one line per node and one per connection, each connection written in the
direction data and impulses flow (``Source(ID).Output → Target(ID).Input``).  Names from the
file are printed with control and line-separator characters escaped, so a line is always one
line.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

from brson.errors import FluxError
from brson.flux.catalog import DRIVE, IMPULSE, READ, VALUE, WRITE
from brson.flux.model import Edge, Flux, FluxNode, Graph
from brson.graph import ReferenceGraph
from brson.model import Slot
from brson.model.ids.locate import Location

#: Characters that would end or bend a line: C0/C1 controls, the line and paragraph separators.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: The longest name shown in a label (a hostile 1 MB slot name stays one readable line).
NAME_LIMIT = 200

#: Colours of the edge kinds in DOT (and the viewer).
COLOURS = {
    VALUE: "#2f6fb0",
    IMPULSE: "#d08a1e",
    READ: "#3a8f3a",
    WRITE: "#b03a8f",
    DRIVE: "#7a3ab0",
}


def clean(text: object) -> str:
    """One printable line: controls escaped (``\\n``, ``\\x00``), bounded in length."""
    value = str(text)
    if len(value) > NAME_LIMIT:
        value = value[: NAME_LIMIT // 2] + "…" + value[-NAME_LIMIT // 2 :]
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), value)


def node_label(node: FluxNode) -> str:
    return f"{node.type}({node.id})"


def _number(value: float) -> str:
    return format(value, ".6g")


def _position(node: FluxNode) -> str:
    if node.position is None:
        return "no position"
    return "at (" + ", ".join(_number(v) for v in node.position) + ")"


class Labels:
    """Descriptions of world elements (``path:Component.field``), looked up in one graph
    built only when a connection leaves the ProtoFlux components, or by ``where`` (an ID's
    definition found some cheaper way: a diff labels a few elements of a big tree)."""

    def __init__(self, flux: Flux, where: Callable[[str], Location | None] | None = None) -> None:
        self.flux = flux
        self._graph: ReferenceGraph | None = None
        self._where = where

    def world(self, element_id: str) -> str:
        if self._where is not None:
            location = self._where(element_id)
        else:
            if self._graph is None:
                self._graph = ReferenceGraph.build(self.flux.tree)
            location = self._graph.where(element_id)
        where = location.describe() if location is not None else "not in this file"
        return f"{clean(where)} ({element_id})"


def _slot_text(node: FluxNode, graph: Graph) -> str:
    slot = node.slot
    if slot is None:
        return "on no slot"
    if graph.container is not None and slot.parent is graph.container:
        return f"slot {clean(slot.name)}"
    return f"slot {clean(slot.display_path())}"


def flow(flux: Flux, edge: Edge, labels: Labels) -> str:
    """The connection as ``from → to`` in the direction it works."""
    node = flux.by_id[edge.node]
    here = f"{node_label(node)}.{clean(edge.member)}"
    if edge.kind in (VALUE, IMPULSE):
        assert edge.target_node is not None
        other = node_label(flux.by_id[edge.target_node])
        if edge.output is not None:
            other += f".{clean(edge.output)}"
        return f"{other} → {here}" if edge.kind == VALUE else f"{here} → {other}"
    world = labels.world(edge.target)
    if edge.kind == READ:
        return f"{world} → {here}"
    return f"{here} → {world}"


def text_lines(flux: Flux, slot: Slot | None = None) -> list[str]:
    """The text form: per graph a heading line, its nodes, then its connections."""
    labels = Labels(flux)
    selected = _selected(flux, slot)
    lines: list[str] = []
    for graph in flux.graphs:
        nodes = [node for node in graph.nodes if node.id in selected]
        if not nodes:
            continue
        where = (
            f" in {clean(graph.container.display_path())}" if graph.container is not None else ""
        )
        lines.append(f"graph {graph.number}{where}")
        for node in nodes:
            lines.append(f"  node {node_label(node)} {_slot_text(node, graph)} {_position(node)}")
        for edge in flux.edges_from(nodes):
            lines.append(f"  {edge.kind} {flow(flux, edge, labels)}")
    return lines


def _selected(flux: Flux, slot: Slot | None) -> set[str]:
    if slot is None:
        return set(flux.by_id)
    inside = {id(s) for s in slot.walk()}
    return {node.id for node in flux.nodes if node.slot is not None and id(node.slot) in inside}


def to_json(flux: Flux, slot: Slot | None = None) -> dict[str, Any]:
    """Nodes, edges (as stored: the node's member holds the target) and graphs."""
    labels = Labels(flux)
    selected = _selected(flux, slot)
    nodes = [node for node in flux.nodes if node.id in selected]
    edges = flux.edges_from(nodes)
    counts = {"nodes": len(nodes), "edges": len(edges)}
    graphs = [g for g in flux.graphs if any(n.id in selected for n in g.nodes)]
    counts["graphs"] = len(graphs)
    for kind in COLOURS:
        counts[kind] = sum(1 for edge in edges if edge.kind == kind)
    return {
        "counts": counts,
        "graphs": [
            {
                "number": graph.number,
                "container": graph.container.path if graph.container is not None else None,
                "nodes": [n.id for n in graph.nodes if n.id in selected],
            }
            for graph in graphs
        ],
        "nodes": [
            {
                "id": node.id,
                "type": node.type,
                "full_type": node.full_type,
                "slot": node.slot.id if node.slot is not None else None,
                "slot_name": node.slot.name if node.slot is not None else None,
                "position": list(node.position) if node.position is not None else None,
                "graph": flux.graph_of[node.id].number,
            }
            for node in nodes
        ],
        "edges": [
            {
                "kind": edge.kind,
                "node": edge.node,
                "member": edge.member,
                "target": edge.target,
                "target_node": edge.target_node,
                "output": edge.output,
                "via": edge.via,
                "world": labels.world(edge.target) if edge.target_node is None else None,
            }
            for edge in edges
        ],
    }


def _quoted(text: str) -> str:
    """A DOT string: quotes and backslashes escaped (a backslash starts DOT's escapes)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(flux: Flux, slot: Slot | None = None) -> str:
    """Graphviz DOT: a cluster per graph, world elements as notes, edges coloured by kind."""
    labels = Labels(flux)
    selected = _selected(flux, slot)
    out = [
        "digraph protoflux {",
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=10];',
        '  node [shape=box, style="rounded", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=8];',
    ]
    for graph in flux.graphs:
        nodes = [node for node in graph.nodes if node.id in selected]
        if not nodes:
            continue
        title = f"graph {graph.number}"
        if graph.container is not None:
            title += f": {clean(graph.container.name)}"
        out.append(f"  subgraph cluster_{graph.number} {{")
        out.append(f"    label={_quoted(title)};")
        for node in nodes:
            label = f"{clean(node.type)}\n{node.id}"
            out.append(f"    {_quoted(node.id)} [label={_quoted(label)}];")
        out.append("  }")
    world: dict[str, str] = {}
    for edge in flux.edges_from(n for n in flux.nodes if n.id in selected):
        colour = COLOURS[edge.kind]
        member = clean(edge.member)
        if edge.kind in (VALUE, IMPULSE):
            assert edge.target_node is not None
            if edge.target_node not in selected:
                continue  # outside --slot: named by the text and JSON forms
            tail = edge.target_node if edge.kind == VALUE else edge.node
            head = edge.node if edge.kind == VALUE else edge.target_node
            text = member if edge.output is None else f"{clean(edge.output)} → {member}"
            style = "solid" if edge.kind == VALUE else "bold"
        else:
            key = f"world:{edge.target}"
            if key not in world:
                world[key] = labels.world(edge.target)
            tail, head = (key, edge.node) if edge.kind == READ else (edge.node, key)
            text = f"{edge.kind} {member}"
            style = "dashed"
        out.append(
            f"  {_quoted(tail)} -> {_quoted(head)} "
            f"[label={_quoted(text)}, color={_quoted(colour)}, style={style}];"
        )
    for key, label in world.items():
        out.append(f"  {_quoted(key)} [shape=note, style=solid, label={_quoted(label)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def to_svg(dot_text: str) -> bytes:
    """SVG drawn by Graphviz (``dot -Tsvg``); FluxError when ``dot`` is missing or fails."""
    program = shutil.which("dot")
    if program is None:
        raise FluxError(
            "--format svg needs Graphviz's dot on PATH (Debian: apt-get install graphviz)"
        )
    try:
        done = subprocess.run(
            [program, "-Tsvg"], input=dot_text.encode("utf-8"), capture_output=True, check=False
        )
    except OSError as exc:
        raise FluxError(f"cannot run {program}: {exc.strerror}") from None
    if done.returncode != 0:
        first = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise FluxError(f"dot failed: {first[0] if first else f'exit {done.returncode}'}")
    return done.stdout
