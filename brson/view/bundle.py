"""The ``--html`` export's data: every answer the page would ask the server for, computed
once for the whole file (:func:`static_bundle`), bounded in slots and in key characters."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

from brson.errors import BrsonError
from brson.model.component import Component
from brson.model.ids.locate import locate_many
from brson.model.ids.scan import definition_offsets
from brson.view.data import ViewData, ViewError, walk_keys

#: Slots the ``--html`` export takes at most (the 10k-slot benchmark world: 157 MiB, 2 min).
STATIC_LIMIT = 10_000
#: Characters of slot keys the ``--html`` export holds at most: a key is as long as its
#: slot's depth, so a deep chain would make the file grow with the square of its depth.
STATIC_KEY_CHARS = 2_000_000


def static_bundle(data: ViewData) -> dict[str, Any]:
    """Every answer the page needs, for the ``--html`` export (the page reads it instead of
    asking a server): children and details of every slot, the search index, the findings,
    the image assets as data URLs and the GLB of the whole tree."""
    slots = key_chars = 0
    for key, _slot in walk_keys(data.tree.root):
        slots += 1
        key_chars += len(key)
        if key_chars > STATIC_KEY_CHARS:
            break
    if key_chars > STATIC_KEY_CHARS:
        raise ViewError(
            f"the tree is too deep for one HTML file (its slot keys pass {STATIC_KEY_CHARS} "
            "characters: a key holds every level above its slot); serve it with brson view, "
            "or extract a subtree first (brson extract)"
        )
    if slots > STATIC_LIMIT:
        raise ViewError(
            f"{slots} slots is too many for one HTML file (at most {STATIC_LIMIT}: it holds "
            "every slot's inspector, about 16 KB a slot); serve it with brson view, or extract "
            "a subtree first (brson extract)"
        )
    data.build_now()
    index = data.index
    children: dict[str, Any] = {}
    details: dict[str, Any] = {}
    assets: dict[str, str] = {}
    with data.lock:
        info = data.info()
        flux = data.flux()
        for key, slot in walk_keys(data.tree.root):
            children[key] = data.children_of(slot, key, limit=1 << 30)
            detail = data.detail_of(slot, key)
            with index.lock:
                detail["incoming"] = index.incoming(key)
            details[key] = detail
            for name in _asset_names(detail):
                if name not in assets:
                    try:
                        blob, mime = data.asset(name)
                    except BrsonError:
                        continue
                    assets[name] = f"data:{mime};base64,{base64.b64encode(blob).decode()}"
        try:
            glb: str | None = base64.b64encode(data.glb("0")).decode()
        except BrsonError:
            glb = None
    return {
        "info": info,
        "children": children,
        "details": details,
        "index": [[e.key, e.name, e.id, e.types] for e in index.entries],
        "ids": _all_targets(data),
        "findings": data.findings(),
        "assets": assets,
        "glb": glb,
        "flux": flux,
    }


def _all_targets(data: ViewData) -> dict[str, str]:
    """Element ID -> slot key for every ID the file defines (static search by whole ID).

    Located in bulk, in one walk (:func:`brson.model.ids.locate.locate_many`): one lookup at a
    time descends from the root for each ID, depth times the IDs in a deep chain."""
    index = data.index
    out: dict[str, str] = {}
    tree, graph = index.tree, index.graph
    if tree is None or graph is None:
        return out
    with index.lock:
        if tree.modified:  # never for the viewer's copy; offsets need the original bytes
            return out
        first = definition_offsets(tree, graph.ids.defined)
        found = locate_many(tree, first.values())
        for element_id, offset in first.items():
            location = found.get(offset)
            anchor = location.anchor if location is not None else None
            slot = anchor.slot if isinstance(anchor, Component) else anchor
            key = index.keys.get(id(slot)) if slot is not None else None
            if key is not None:
                out[element_id] = key
    return out


def _asset_names(value: Any) -> Iterator[str]:
    """Every asset hash a detail's typed values name."""
    if isinstance(value, dict):
        if value.get("t") == "uri" and "asset" in value:
            yield value["asset"]
        for item in value.values():
            yield from _asset_names(item)
    elif isinstance(value, list):
        for item in value:
            yield from _asset_names(item)
