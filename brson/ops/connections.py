"""The ProtoFlux of two versions of a tree, built for the nodes whose connections a diff can
have changed: no walk of either tree, whatever its size.

A node's connections (:mod:`brson.flux`) are read from its own ``Data`` and from what its
members name: a node, a node's output, a helper (a global's reference), and the helpers
naming it on its slot; a write goes on through the globals its ``Variable``'s node reads.  So
when only some components differ between the versions (``touched``), the nodes whose edges can
differ are: the touched ones, the nodes a touched helper names, the nodes naming a touched
component or one of its members, and the nodes naming those (their writes).  Those are the
*focus*; each side's graph is built from the focus and what its connections look up, found
in each tree's reference scan (:mod:`brson.model.ids.scan`) and component spans
(:mod:`brson.model.spans`), and only the focus nodes' edges are compared.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass

from brson.collector import paused_gc
from brson.flux import Flux, build_from
from brson.flux.render import Labels
from brson.model import DataTree, Slot
from brson.model.ids.locate import Location
from brson.model.ids.scan import IdScan, id_spans, scan_ids
from brson.model.spans import ASSETS, ComponentSpans


class _Side:
    """One unmodified tree's references and component spans, and the components they
    connect, by component number (byte order)."""

    def __init__(self, tree: DataTree) -> None:
        self.tree = tree
        self.scan: IdScan = scan_ids(tree.buffer, id_spans(tree))
        self.refs = sorted(self.scan.references)
        self.offsets = [offset for offset, _ in self.refs]
        self.spans = ComponentSpans(tree)
        self._defining: dict[str, int | None] = {}
        self._ids: dict[int, str | None] = {}
        self._slots: dict[int, Slot | None] = {}

    def where(self, element_id: str) -> Location | None:
        """Where ``element_id`` is defined (its first definition: what the tree's ID index
        answers), for the labels of world elements."""
        offset = self.scan.offset(element_id)
        return None if offset is None else Location(tree=self.tree, offset=offset)

    def defining(self, element_id: str) -> int | None:
        """The component holding ``element_id``'s first definition (its own ID or a member's)."""
        if element_id not in self._defining:
            offset = self.scan.offset(element_id)
            self._defining[element_id] = None if offset is None else self.spans.at(offset)
        return self._defining[element_id]

    def component_id(self, number: int) -> str | None:
        if number not in self._ids:
            self._ids[number] = self.spans.component(number).id
        return self._ids[number]

    def numbers(self, ids: Iterable[str]) -> set[int]:
        """The components these IDs are the IDs of (members' IDs are not)."""
        out = set()
        for element_id in ids:
            number = self.defining(element_id)
            if number is not None and self.component_id(number) == element_id:
                out.add(number)
        return out

    def referrers(self, ids: set[str]) -> set[int]:
        """The components holding a reference to one of ``ids``."""
        at = self.spans.at
        found = {at(offset) for offset, value in self.refs if value in ids}
        found.discard(None)
        return {number for number in found if number is not None}

    def referents(self, numbers: Iterable[int]) -> set[int]:
        """The components defining what ``numbers`` reference."""
        out = set()
        for number in numbers:
            start, end = self.spans.span(number)
            lo, hi = bisect_left(self.offsets, start), bisect_left(self.offsets, end)
            for _, value in self.refs[lo:hi]:
                target = self.defining(value)
                if target is not None:
                    out.add(target)
        return out

    def ids(self, numbers: Iterable[int]) -> set[str]:
        return {i for i in map(self.component_id, numbers) if i is not None}

    def slot(self, number: int) -> Slot | None:
        """The slot holding component ``number`` (one node per slot, its ancestors made)."""
        slot_number = self.spans.slot_of(number)
        if slot_number == ASSETS:
            return None
        if slot_number not in self._slots:
            self._slots[slot_number] = self.spans.slot(slot_number)
        return self._slots[slot_number]

    def graph(self, focus: set[str]) -> Flux:
        """The ProtoFlux of the focus nodes, with what their connections look up."""
        numbers = self.numbers(focus)
        ahead = self.referents(numbers)
        wanted = numbers | ahead | self.referents(ahead) | self.referrers(focus)
        spans = self.spans

        def order(number: int) -> tuple[bool, int, int]:
            # The flux model's own order: slots in document order (a parent starts before its
            # children, siblings in order), the root's Assets last.
            slot = spans.slot_of(number)
            return slot == ASSETS, spans.slot_start(slot) if slot != ASSETS else 0, number

        pairs = [
            (self.slot(number), spans.component(number).decoded())
            for number in sorted(wanted, key=order)
        ]
        return build_from(self.tree, pairs, focus)


@dataclass(frozen=True)
class Focused:
    """Both trees' ProtoFlux for the focus nodes, and the labels of their world elements."""

    before: Flux
    after: Flux
    #: The IDs of the nodes whose edges can differ (the only ones to compare).
    focus: set[str]
    labels_before: Labels
    labels_after: Labels


def focused_graphs(a: DataTree, b: DataTree, touched: set[str]) -> Focused:
    """Both trees' ProtoFlux for the nodes whose edges can differ when only the components
    ``touched`` differ (IDs).  The trees must be unmodified."""
    with paused_gc():
        side_a, side_b = _Side(a), _Side(b)
        focus: set[str] = set()
        for side in (side_a, side_b):
            own = side.numbers(touched)
            named = set(touched)
            for number in own:
                named |= _member_ids(side, number)
            first = side.referrers(named)
            focus |= side.ids(own | side.referents(own) | first | side.referrers(side.ids(first)))
        focus |= touched
        before, after = side_a.graph(focus), side_b.graph(focus)
        return Focused(
            before, after, focus, Labels(before, side_a.where), Labels(after, side_b.where)
        )


def _member_ids(side: _Side, number: int) -> set[str]:
    """The IDs of a component's members (what a node output is named by)."""
    data = side.spans.component(number).decoded().get("Data")
    if type(data) is not dict:
        return set()
    return {
        value["ID"]
        for value in data.values()
        if type(value) is dict and isinstance(value.get("ID"), str)
    }


__all__ = ["Focused", "focused_graphs"]
