"""The elements a few references name, without the tree's whole ID index.

Exporters resolve a handful of references (a renderer's mesh and materials, a skin's bones)
in a tree of millions of IDs, where :attr:`DataTree.ids` would cost most of an export's time
and several times the BSON in memory.  An unmodified tree needs only "where is this ID first
defined": the definitions-only scan answers that, and :func:`element_at` finds the element
from the offset as the index does, so the answer is the index's.  An ID defined twice still
answers by its first definition when that is an ``ID`` element (as the index does); any other,
an edited tree, or one whose index exists already asks the index.
"""

from __future__ import annotations

from brson.model.ids.forms import is_guid
from brson.model.ids.locate import Location, element_at
from brson.model.ids.scan import IdScan, id_spans, scan_ids
from brson.model.member import Member
from brson.model.tree import DataTree, Element

#: The head of a string element named ``ID``.
_ID_KEY = b"\x02ID\x00"


class Targets:
    """:meth:`DataTree.resolve` and :attr:`Member.target` for one tree, for few lookups."""

    __slots__ = ("_scan", "_tree")

    def __init__(self, tree: DataTree) -> None:
        self._tree = tree
        self._scan: IdScan | None = None

    def resolve(self, element_id: str) -> Element | None:
        """The element with this ID, or None (what ``tree.resolve`` answers)."""
        tree = self._tree
        if tree.modified or tree.ids_if_built is not None:
            return tree.resolve(element_id)
        scan = self._scan
        if scan is None:
            scan = self._scan = scan_ids(tree.buffer, id_spans(tree), references=False)
        offset = scan.offset(element_id)
        if scan.repeated and (offset is None or not tree.buffer.startswith(_ID_KEY, offset)):
            return tree.resolve(element_id)
        return None if offset is None else element_at(Location(tree=tree, offset=offset))

    def target(self, member: Member | None) -> Element | None:
        """``member.target``: the element its value names, when the value is an ID."""
        if member is None:
            return None
        value = member.get("Data")
        tree = member.tree
        if tree is None or not is_guid(value):
            return None
        return self.resolve(value) if tree is self._tree else tree.resolve(value)
