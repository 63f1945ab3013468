"""Where many elements of an unmodified tree live, found in one walk.

A :class:`~brson.model.ids.Location` made from a byte offset finds its slot or component by
descending from the root and scanning each level's keys and children: right for the odd
lookup, but O(depth x siblings) each, so locating every reference of a 100k-slot world one by
one takes minutes (measured: ~80 us a reference on a 10k-slot world).  This walks the tree once
and enters only the slots, components and documents whose byte spans hold a wanted offset
(bisect over the sorted offsets); it gives the same anchors and paths as ``Location`` and uses
the tree's own nodes, so what it returns stays identical to what navigation hands out.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from brson.collector import paused_gc
from brson.document import raw
from brson.model.ids import Location, Path
from brson.model.tree import Component, DataTree, Slot

#: Element items to visit: (key or list position, indexed element).
_Items = list[tuple[str | int, raw.Element]]


def locate_many(tree: DataTree, offsets: Iterable[int]) -> dict[int, Location]:
    """Anchor and key path of the element starting at each offset (unresolvable ones absent).

    Offsets are byte offsets of elements in ``tree``'s buffer, so the tree must be unmodified.
    """
    wanted = sorted(set(offsets))
    out: dict[int, Location] = {}
    if not wanted:
        return out
    with paused_gc():
        _locate(tree, wanted, out)
    return out


def located(tree: DataTree, locations: Iterable[Location | None]) -> dict[int, Location]:
    """``id(location)`` -> the location with its anchor and path known.  Locations found by
    byte offset in an unmodified tree are located together in one walk, never by one
    root-to-leaf descent each (extracting from a 100k-slot world looks up tens of thousands);
    one that leads nowhere comes back as an unknown location (``describe()`` "<unknown>")."""
    given = [loc for loc in locations if loc is not None]
    pending = [
        (loc, offset) for loc in given if not loc.is_located and (offset := loc.offset) is not None
    ]
    found = locate_many(tree, [offset for _, offset in pending]) if pending else {}
    unknown = Location(None, ())
    out = {id(loc): loc for loc in given}
    for loc, offset in pending:
        out[id(loc)] = found.get(offset, unknown)
    return out


def _locate(tree: DataTree, wanted: list[int], out: dict[int, Location]) -> None:
    for key, elem in tree.element_index().items():
        inside = _between(wanted, elem[1], elem[3])
        if not inside:
            continue
        if key == "Object" and elem[0] == raw.DOCUMENT:
            _slots(tree.root, inside, out)
        elif key == "Assets" and elem[0] == raw.ARRAY:
            for component in tree.assets:
                here = _between(inside, *component.span)
                if here:
                    _component(component, here, out)


def _between(offsets: list[int], start: int, end: int) -> list[int]:
    return offsets[bisect_left(offsets, start) : bisect_left(offsets, end)]


def _slots(root: Slot, offsets: list[int], out: dict[int, Location]) -> None:
    buf = root.buffer
    stack: list[tuple[Slot, list[int]]] = [(root, offsets)]
    while stack:
        slot, inside = stack.pop()
        own: _Items = []
        own_offsets: list[int] = []  # only these: ``inside`` holds the whole subtree's
        for key, elem in slot.element_index().items():
            here = _between(inside, elem[1], elem[3])
            if not here:
                continue
            if key == "Children" and elem[0] == raw.ARRAY:
                for child in slot.children:
                    mine = _between(here, *child.span)
                    if mine:
                        stack.append((child, mine))
                continue
            if key == "Components" and elem[0] == raw.DOCUMENT:
                rest = set(here)
                for component in slot.components:
                    mine = _between(here, *component.span)
                    if mine:
                        rest.difference_update(mine)
                        _component(component, mine, out)
                if rest:  # the Components member's own ID (and anything odd beside components)
                    _descend(slot, buf, [(key, elem)], (), sorted(rest), out)
                continue
            own.append((key, elem))
            own_offsets.extend(here)
        if own:
            _descend(slot, buf, own, (), sorted(own_offsets), out)


def _component(component: Component, offsets: list[int], out: dict[int, Location]) -> None:
    """Locate inside a component, indexing its ``Data`` through the component's own node (the
    index is kept there and reused when the member is then fetched)."""
    items: _Items = list(component.element_index().items())
    levels: dict[int, tuple[_Items, list[int]]] = {}
    data = component.element_index().get("Data")
    if data is not None and data[0] == raw.DOCUMENT:
        fields: _Items = list(component.data.element_index().items())
        levels[data[2]] = (fields, [elem[1] for _, elem in fields])
    _descend(component, component.buffer, items, (), offsets, out, levels)


def _descend(
    anchor: Slot | Component,
    buf: bytes,
    items: _Items,
    path: Path,
    offsets: list[int],
    out: dict[int, Location],
    levels: dict[int, tuple[_Items, list[int]]] | None = None,
) -> None:
    """Follow the documents holding each offset down to the element that starts there.

    A level is indexed once per anchor however many offsets pass through it (a component's
    ``Data`` holds many fields and few references); members take the O(1) member index.
    """
    levels = {} if levels is None else levels
    top = (items, [elem[1] for _, elem in items])
    for offset in offsets:
        items, starts = top
        where = path
        while True:
            at = bisect_right(starts, offset) - 1
            if at < 0:
                break
            part, (etype, pos, vstart, vend) = items[at]
            if offset >= vend:
                break  # inside no element (a document's own length prefix)
            if offset == pos:
                # Same rule as Location: an ``ID`` names the document holding it.
                out[offset] = Location(anchor, where if part == "ID" else (*where, part))
                break
            where = (*where, part)
            level = levels.get(vstart)
            if level is None:
                if etype == raw.DOCUMENT:
                    inner: _Items = list(raw.member_index(buf, vstart, vend).items())
                elif etype == raw.ARRAY:
                    inner = list(enumerate(raw.array_items(buf, vstart, vend)))
                else:
                    break
                level = levels[vstart] = (inner, [elem[1] for _, elem in inner])
            items, starts = level
