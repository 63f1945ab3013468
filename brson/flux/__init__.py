"""ProtoFlux, Resonite's visual programming, as a graph over the data tree.

:func:`build` reads a tree's node components and their connections into a :class:`Flux`
(nodes, edges, graphs); :func:`text_lines` gives the stable line-oriented text form that
``brson flux`` prints and ``git diff`` can show.  The storage rules, with their evidence from
the real samples, are in docs/protoflux.md.
"""

from __future__ import annotations

from brson.flux.catalog import DRIVE, IMPULSE, KINDS, READ, VALUE, WRITE
from brson.flux.model import (
    Edge,
    Flux,
    FluxNode,
    Graph,
    Issue,
    build,
    build_from,
)
from brson.flux.render import text_lines as _render_lines
from brson.flux.render import to_dot, to_json, to_svg
from brson.model import DataTree, Slot


def text_lines(tree: DataTree | Flux, slot: Slot | None = None) -> list[str]:
    """The text form of a tree's ProtoFlux (or of the nodes under ``slot``): a line per
    graph, per node and per connection, stable across runs and free of counts."""
    flux = tree if isinstance(tree, Flux) else build(tree)
    return _render_lines(flux, slot)


__all__ = [
    "DRIVE",
    "IMPULSE",
    "KINDS",
    "READ",
    "VALUE",
    "WRITE",
    "Edge",
    "Flux",
    "FluxNode",
    "Graph",
    "Issue",
    "build",
    "build_from",
    "text_lines",
    "to_dot",
    "to_json",
    "to_svg",
]
