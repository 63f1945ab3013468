"""The graph pane's answer: every ProtoFlux node of the file with its slot's key and canvas
position, and the value and impulse connections between nodes.  The page keeps the one answer
and shows the nodes under whichever slot is selected (a key's prefix), so it is asked once."""

from __future__ import annotations

from typing import Any

from brson.flux import IMPULSE, VALUE, build
from brson.model import DataTree, Slot


def flux_answer(tree: DataTree) -> dict[str, Any]:
    model = build(tree)
    keys = _Keys(tree.root)
    nodes = []
    for node in model.nodes:
        key = keys.of(node.slot) if node.slot is not None else None
        if key is None:
            continue  # a node on no slot (BR703): nowhere to select
        x, y, _ = node.position if node.position is not None else (0.0, 0.0, 0.0)
        nodes.append(
            {
                "id": node.id,
                "type": node.type,
                "key": key,
                "x": x,
                "y": y,
                "graph": model.graph_of[node.id].number,
            }
        )
    edges = []
    for edge in model.edges:
        if edge.target_node is None or edge.kind not in (VALUE, IMPULSE):
            continue
        label = edge.member if edge.output is None else f"{edge.output} → {edge.member}"
        source, target = (
            (edge.target_node, edge.node) if edge.kind == VALUE else (edge.node, edge.target_node)
        )
        edges.append({"from": source, "to": target, "kind": edge.kind, "label": label})
    return {"nodes": nodes, "edges": edges}


class _Keys:
    """Slot keys (child indexes from the root) of the node slots, found by climbing from each:
    a parent's children are indexed once, and every key on the way is kept for the next."""

    def __init__(self, root: Slot) -> None:
        self.root = root
        self.known: dict[int, str | None] = {id(root): "0"}
        self.positions: dict[int, dict[int, int]] = {}

    def of(self, slot: Slot) -> str | None:
        path: list[Slot] = []
        current: Slot | None = slot
        while current is not None and id(current) not in self.known:
            path.append(current)
            current = current.parent
        key = self.known.get(id(current)) if current is not None else None
        for step in reversed(path):
            parent = step.parent
            if key is None or parent is None:
                key = None
            else:
                index = self.positions.get(id(parent))
                if index is None:
                    index = self.positions[id(parent)] = {
                        id(kid): i for i, kid in enumerate(parent.children)
                    }
                at = index.get(id(step))
                key = None if at is None else f"{key}.{at}"
            self.known[id(step)] = key
        return key
