"""The reference graph: who points at what, in both directions, inside the file and out.

The format has no reference type: a value references an element because it is a GUID-shaped
string, *internal* when that string is an ID defined in the same file, *external* otherwise
(kept and listed, never dropped).  The ID index (:attr:`DataTree.ids
<brson.model.tree.DataTree.ids>`) knows every definition and ID-shaped value; this module
turns the values into :class:`Reference` records and indexes them by target.

Worlds reach a million references, so building the graph is one pass over the index's values,
and where a reference sits and which element its target is are found only when first asked,
then for every reference at once (:mod:`brson.model.ids.locate`), never one descent per
reference.  The graph is a snapshot: :attr:`ReferenceGraph.stale` says when the tree has
changed since.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from functools import partial
from typing import Any, Generic, NamedTuple, TypeVar

from brson.collector import paused_gc
from brson.model import Component, DataTree, IdRef, Member, Slot, elements
from brson.model.ids.index import IdIndex
from brson.model.ids.kinds import source_kind, target_kind
from brson.model.ids.locate import (
    Location,
    Path,
    element_at,
    locate_many,
    path_text,
    runs,
)
from brson.model.ids.scan import ReferenceScan, definition_offsets, scan_references
from brson.model.node import Node
from brson.model.spans import SOURCE_KINDS, TARGET_KINDS, ComponentSpans
from brson.model.tree import Element

#: Lookups answered one at a time before the graph locates all sources (or all targets) in
#: one pass: a single lookup costs a descent from the root (sources) or a search of the buffer
#: (targets), the batch about as much as walking the tree once.
BATCH_AFTER = 32

#: The keys of :meth:`Reference.to_dict`, in its order (:meth:`ReferenceListing.records`).
RECORD_KEYS = ("from", "source_kind", "member_id", "target_id", "kind", "target", "target_kind")
#: :meth:`Reference.to_dict`'s values.
Record = tuple[str, str | None, str | None, str, str, str | None, str | None]
#: A :data:`Record` with its ``from`` and ``target`` texts each in two parts, the anchor's
#: description and the path's (the text is their concatenation; a target's first part None
#: for none): each part is one string shared by every record of its anchor or path, so a
#: listing held whole costs a tuple per reference, not its text.
RecordParts = tuple[str, str, str | None, str | None, str, str, str | None, str, str | None]

#: What a reference's source or target is, as reported by :meth:`Reference.to_dict`.
KINDS: dict[type, str] = {Slot: "slot", Component: "component", Member: "member", IdRef: "id"}


class Reference:
    """One ID-shaped value in the tree: where it is and which ID it names."""

    __slots__ = ("_graph", "_location", "internal", "target_id")

    def __init__(
        self, graph: ReferenceGraph, location: Location, target_id: str, internal: bool
    ) -> None:
        self._graph = graph
        self._location = location
        #: The GUID the value holds.
        self.target_id = target_id
        #: True when an element of this file has that ID.
        self.internal = internal

    @property
    def external(self) -> bool:
        return not self.internal

    @property
    def location(self) -> Location:
        """Where the value is: its slot or component (anchor) and the key path inside it."""
        self._graph.looking_up_source()
        return self._location

    def place(self, location: Location) -> None:
        """Set by the graph when it locates every reference's source in one walk."""
        self._location = location

    def describe(self) -> str:
        """Human location of the value, e.g. ``Root/Body:MeshRenderer.Materials[0]``."""
        return self.location.describe()

    @property
    def key(self) -> str | int | None:
        """The key holding the value: ``Data`` for a member, ``ParentReference``, ``Target``…"""
        path = self.location.path
        return path[-1] if path else None

    @property
    def source(self) -> Slot | Component | Member | None:
        """The innermost element holding the value: the referencing member (a list element
        for a SyncList entry), or the slot/component itself for a value stored on it directly
        (a parent's ID written as ``ParentReference``)."""
        return source_of(self.location)

    @property
    def member_id(self) -> str | None:
        """The ID of the referencing member, or None when the value is not inside a member."""
        source = self.source
        return source.id if isinstance(source, Member) else None

    @property
    def slot(self) -> Slot | None:
        """The slot the value belongs to (None for a root ``Assets`` component)."""
        return self.location.slot

    @property
    def target(self) -> Element | None:
        """The element named by the value; None for an external reference."""
        return self._graph.element(self.target_id) if self.internal else None

    @property
    def target_location(self) -> Location | None:
        return self._graph.where(self.target_id) if self.internal else None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON output."""
        source, target = self.source, self.target
        target_at = self.target_location
        return {
            "from": self.describe(),
            "source_kind": KINDS.get(type(source)) if source is not None else None,
            "member_id": self.member_id,
            "target_id": self.target_id,
            "kind": "internal" if self.internal else "external",
            "target": target_at.describe() if target_at is not None else None,
            "target_kind": KINDS.get(type(target)) if target is not None else None,
        }

    def __repr__(self) -> str:
        kind = "internal" if self.internal else "external"
        return f"Reference({self.describe()!r} -> {self.target_id}, {kind})"


class ReferenceGraph:
    """Every reference of a tree, by position in the file and by target ID."""

    def __init__(self, tree: DataTree, ids: IdIndex, references: list[Reference]) -> None:
        self.tree = tree
        self.ids = ids
        #: In file order (byte order for an unmodified tree, walk order for an edited one).
        self.references = references
        self._by_target: dict[str, list[Reference]] | None = None
        self._sources_located = tree.modified
        self._elements: dict[str, Element | None] = {}
        self._locations: dict[str, Location] = {}
        self._targets_located = False
        #: Lookups answered one by one so far (see BATCH_AFTER).
        self._source_lookups = self._target_lookups = 0
        #: Byte offsets of the values (unmodified trees), aligned with ``references``.
        self._offsets: list[int] | None = None

    @classmethod
    def build(cls, tree: DataTree) -> ReferenceGraph:
        """The graph of ``tree`` as it is now (its ID index is built if needed)."""
        ids = tree.ids
        defined = ids.defined
        graph = cls(tree, ids, [])
        values = ids.values
        if not tree.modified:
            values = sorted(values, key=lambda item: _offset(item[0]))
            graph._offsets = [_offset(location) for location, _ in values]
        with paused_gc():
            graph.references = [
                Reference(graph, location, value, value in defined) for location, value in values
            ]
        return graph

    # -- the whole graph ------------------------------------------------------------------
    def __iter__(self) -> Iterator[Reference]:
        return iter(self.references)

    def __len__(self) -> int:
        return len(self.references)

    @property
    def stale(self) -> bool:
        """True once the tree has been edited after this graph was built."""
        return self.tree.ids_if_built is not self.ids

    @property
    def internal(self) -> list[Reference]:
        return [ref for ref in self.references if ref.internal]

    @property
    def external(self) -> list[Reference]:
        """Values shaped like IDs that name nothing in this file (kept, never dropped)."""
        return [ref for ref in self.references if not ref.internal]

    @property
    def external_ids(self) -> list[str]:
        return sorted({ref.target_id for ref in self.references if not ref.internal})

    @property
    def referenced_ids(self) -> set[str]:
        """IDs of this file's elements that at least one value names."""
        return {ref.target_id for ref in self.references if ref.internal}

    def counts(self) -> dict[str, int]:
        internal = sum(1 for ref in self.references if ref.internal)
        return {
            "ids": len(self.ids.defined),
            "duplicate_ids": len(self.ids.duplicates),
            "references": len(self.references),
            "internal": internal,
            "external": len(self.references) - internal,
            "referenced_ids": len(self.referenced_ids),
            "external_ids": len(self.external_ids),
        }

    # -- by target ------------------------------------------------------------------------
    def references_to(self, target: str | Element) -> list[Reference]:
        """Every reference naming this ID (or this element's ID), in file order."""
        target_id = target if isinstance(target, str) else target.id
        if target_id is None:
            return []
        by_target = self._by_target
        if by_target is None:
            by_target = self._by_target = {}
            for ref in self.references:
                by_target.setdefault(ref.target_id, []).append(ref)
        return list(by_target.get(target_id, ()))

    def referenced(self, target: str | Element) -> bool:
        return bool(self.references_to(target))

    def element(self, element_id: str) -> Element | None:
        """The element with this ID (as :meth:`DataTree.resolve`; many are found in one pass)."""
        if element_id not in self.ids.defined:
            return None
        if element_id not in self._elements:
            location = self.where(element_id)
            self._elements[element_id] = element_at(location) if location else None
        return self._elements[element_id]

    def where(self, element_id: str) -> Location | None:
        """Where the element with this ID is defined."""
        if element_id not in self.ids.defined:
            return None
        location = self._locations.get(element_id)
        if location is None and not self._targets_located:
            self._target_lookups += 1
            if self._target_lookups > BATCH_AFTER:
                self.locate_targets()
                location = self._locations.get(element_id)
        if location is None:
            location = self.ids.where(element_id)
            if location is not None:
                self._locations[element_id] = location
        return location

    # -- by source ------------------------------------------------------------------------
    def references_from(
        self, element: Slot | Component | Member | DataTree, *, deep: bool = False
    ) -> list[Reference]:
        """References whose value lies inside ``element``: a member's value (and its list
        elements), a component's members, a slot's own members and components; with ``deep``
        a slot's whole subtree as well.  The tree itself gives every reference."""
        if isinstance(element, DataTree):
            return list(self.references)
        offsets = self._offsets
        if offsets is not None and element.buffer is self.tree.buffer and not element.modified:
            start, end = element.span
            lo = bisect_left(offsets, start)
            hi = bisect_left(offsets, end)
            kids = element.element_index().get("Children") if isinstance(element, Slot) else None
            if kids is None or deep:
                return self.references[lo:hi]
            skip_lo, skip_hi = bisect_left(offsets, kids[1]), bisect_left(offsets, kids[3])
            return self.references[lo:skip_lo] + self.references[skip_hi:hi]
        return [ref for ref in self.references if _inside(ref, element, deep)]

    def references_leaving(self, slot: Slot) -> list[Reference]:
        """Internal references from ``slot``'s subtree to elements outside it: what an
        extraction of that subtree would cut (a parent link of the subtree's root included)."""
        out = []
        for ref in self.references_from(slot, deep=True):
            if not ref.internal:
                continue
            target = ref.target
            node = target.owner if isinstance(target, IdRef) else target
            if not (isinstance(node, Node) and _within(node, slot)):
                out.append(ref)
        return out

    # -- batched location -----------------------------------------------------------------
    def looking_up_source(self) -> None:
        """A reference's source is about to be read: past :data:`BATCH_AFTER` single
        lookups, locate them all in one walk."""
        if not self._sources_located:
            self._source_lookups += 1
            if self._source_lookups > BATCH_AFTER:
                self._locate_sources()

    def _locate_sources(self) -> None:
        """Give every reference its anchor and path in one walk (unmodified trees)."""
        if self._sources_located:
            return
        offsets = self._offsets or []
        found = locate_many(self.tree, offsets)
        missing = Location(None, ())
        for ref, offset in zip(self.references, offsets, strict=True):
            ref.place(found.get(offset, missing))
        self._sources_located = True

    def locate_all(self) -> None:
        """Locate every reference and every target now, in bulk (before reading ``source``,
        ``target`` or ``describe()`` of many references; otherwise done on first use)."""
        self._locate_sources()
        self.locate_targets()
        with paused_gc():
            for ref in self.references:
                if ref.internal:
                    self.element(ref.target_id)

    def locate_targets(self) -> None:
        """Find where every referenced ID is defined now, in one pass over the bytes, without
        locating the sources (:meth:`where` and :meth:`element` otherwise do it on first use,
        after ``BATCH_AFTER`` lookups): for a reader that resolves links first (the viewer)."""
        if self._targets_located:
            return
        self._targets_located = True
        if self.tree.modified:
            return  # the ID index holds node locations already
        wanted = self.referenced_ids
        if not wanted:
            return
        tree = self.tree
        first = definition_offsets(tree, wanted)
        found = locate_many(tree, first.values())
        for element_id, offset in first.items():
            location = found.get(offset)
            if location is not None:
                self._locations[element_id] = location


def _offset(location: Location) -> int:
    """Byte offset of a value the ID index found in the bytes of an unmodified tree."""
    offset = location.offset
    return offset if offset is not None else -1


def source_of(location: Location) -> Slot | Component | Member | None:
    """The innermost slot, component or member holding the value at ``location``.

    Follows the key path the way the engine nests elements: a component's ``Data`` document,
    a member's ``Data`` value, a list element by position.  A value inside a document-valued
    member (``{"Target": id, "Method": name}``) belongs to that member.
    """
    anchor = location.anchor
    if anchor is None:
        return None
    best: Slot | Component | Member = anchor
    member: Member | None = None  # the member whose Data the path has entered
    fields = False  # the path has entered a component's Data document
    for part in location.path[:-1]:
        if member is not None:
            items = member.elements
            if items is None or not isinstance(part, int) or not 0 <= part < len(items):
                break
            best = items[part]
            member = None
        elif isinstance(best, Member) and part == "Data":
            member = best
        elif isinstance(best, Component) and part == "Data" and not fields:
            fields = True
        elif isinstance(part, str) and isinstance(best, Slot):
            found = best.member(part)
            if found is None or found.id is None:
                break
            best = found
        elif isinstance(part, str) and isinstance(best, Component) and fields:
            try:
                best = best[part]
            except KeyError:
                break
        else:
            break
    return best


def _within(node: Node, ancestor: Node) -> bool:
    """Whether ``ancestor`` holds ``node`` (the chain of owners that hand out nodes)."""
    current: Node | None = node
    while current is not None:
        if current is ancestor:
            return True
        current = current.owner
    return False


def _inside(ref: Reference, element: Slot | Component | Member, deep: bool) -> bool:
    source = ref.source
    if source is None:
        return False
    if isinstance(element, Slot) and not deep:
        return ref.slot is element
    return _within(source, element)


#: One line of a reference listing: where the value is, the ID it holds, where that ID is
#: defined (None for an external reference).
Row = tuple[str, str, str | None]


class ReferenceListing:
    """Every reference described, in file order: ``(describe(), target_id,
    target_location.describe() or None)`` and :meth:`ReferenceGraph.counts`, the text the
    graph gives, for a reader that prints them all once (``brson refs``).

    An unmodified tree takes one scan (:func:`~brson.model.ids.scan.scan_references`) and one
    walk describing sources and targets together (:func:`~brson.model.ids.locate.runs`): no
    Reference or Location per value.  An edited tree, an ID defined twice or a value whose
    place does not resolve go through the graph.
    """

    def __init__(self, tree: DataTree) -> None:
        """Find the references (the first step; :meth:`rows` locates them)."""
        self.tree = tree
        self._scan = None if tree.modified else scan_references(tree)
        self._graph = ReferenceGraph.build(tree) if self._scan is None else None
        self._counts: dict[str, int] | None = None
        #: The external IDs, when the scan's listing found them (else the graph knows).
        self._external: set[str] | None = None

    def __len__(self) -> int:
        if self._scan is not None:
            return len(self._scan.references)
        assert self._graph is not None
        return len(self._graph)

    def _listing(self, kinds: bool) -> list[Any] | ReferenceGraph:
        """The scan's listing (:func:`_scan_listing`: ``kinds`` for :data:`RecordParts`), or
        the graph, located and counted, where the scan cannot answer."""
        scan = self._scan
        if scan is not None:
            listed = _scan_listing(self.tree, scan, kinds=kinds)
            if listed is not None:
                self._listed(scan, listed)
                return listed.items
            self._graph = ReferenceGraph.build(self.tree)
        graph = self._graph
        assert graph is not None
        graph.locate_all()
        self._counts = graph.counts()
        return graph

    def rows(self) -> list[Row]:
        """Each reference described (sources and targets located in one walk)."""
        graph = self._listing(kinds=False)
        if not isinstance(graph, ReferenceGraph):
            return graph
        out: list[Row] = []
        for ref in graph:
            location = ref.target_location
            out.append((ref.describe(), ref.target_id, location.describe() if location else None))
        return out

    def records(self) -> Iterator[Record]:
        """Each reference as :meth:`Reference.to_dict` gives it (its values, in
        :data:`RECORD_KEYS` order), in file order: :meth:`table` with its texts joined."""
        for head, tail, kind, member_id, value, internal, at, at_tail, at_kind in self.table():
            target = None if at is None else at + at_tail
            yield head + tail, kind, member_id, value, internal, target, at_kind

    def table(self) -> list[RecordParts]:
        """Every reference's :data:`RecordParts`, in file order: all of a listing that can
        fail, computed before any of it is written (``brson refs --json`` then encodes it
        straight to its output, never holding its text).  An unmodified tree's references
        and targets come from the scan and are located in one walk
        (:func:`~brson.model.ids.locate.runs`, the tree's spans), with no ID index, no second
        pass over the definitions and no :class:`Reference`; the graph answers where the
        scan does not (see :meth:`rows`)."""
        graph = self._listing(kinds=True)
        if not isinstance(graph, ReferenceGraph):
            return graph
        out: list[RecordParts] = []
        for ref in graph:
            entry = ref.to_dict()
            out.append(
                (
                    entry["from"],
                    "",
                    entry["source_kind"],
                    entry["member_id"],
                    entry["target_id"],
                    entry["kind"],
                    entry["target"],
                    "",
                    entry["target_kind"],
                )
            )
        return out

    def entries(self) -> list[dict[str, Any]]:
        """:meth:`records` as :meth:`Reference.to_dict` gives them."""
        return [dict(zip(RECORD_KEYS, record, strict=True)) for record in self.records()]

    def external_ids(self) -> list[str]:
        """:attr:`ReferenceGraph.external_ids`: the external IDs, sorted."""
        if self._external is not None:  # the scan's listing met them
            return sorted(self._external)
        scan = self._scan
        if self._graph is None and scan is not None:
            definitions = scan.definitions
            return sorted({value for _, value in scan.references if value not in definitions})
        assert self._graph is not None
        return self._graph.external_ids

    def _listed(self, scan: ReferenceScan, listed: _Listed[Any]) -> None:
        """Keep what the scan's listing counted on the way."""
        self._external = listed.external
        self._counts = _scan_counts(scan, listed.external, listed.externals)

    def counts(self) -> dict[str, int]:
        """:meth:`ReferenceGraph.counts` (after :meth:`rows`)."""
        if self._counts is None:
            self.rows()
        assert self._counts is not None
        return self._counts


def _scan_counts(scan: ReferenceScan, external: set[str], externals: int) -> dict[str, int]:
    """:meth:`ReferenceGraph.counts` from a scan whose references all resolved, ``externals``
    of them naming the ``external`` IDs (counted by the listing's one pass)."""
    listed = len(scan.references)
    return {
        "ids": scan.defined,
        "duplicate_ids": 0,
        "references": listed,
        "internal": listed - externals,
        "external": externals,
        "referenced_ids": len(scan.definitions),
        "external_ids": len(external),
    }


class _Tails(dict[Path, str]):
    """``path_text`` of each path, made once (a type's few fields for many references):
    a subscript, no call, for a path met before."""

    def __missing__(self, path: Path) -> str:
        text = self[path] = path_text(path)
        return text


def _anchor(spans: ComponentSpans, number: int, slot: int) -> Slot | Component:
    """A run's anchor as a node (:func:`~brson.model.ids.locate.runs`), for the rules only
    navigation answers."""
    if number >= 0:
        return spans.component(number)
    return spans.slot(slot)


#: :func:`_targets`' answer per definition: its description in two parts (the anchor's, the
#: path's), the kind of element it names (None without ``kinds``).
Target = tuple[str, str, str | None]


def _targets(spans: ComponentSpans, scan: ReferenceScan, kinds: bool) -> dict[int, Target] | None:
    """Each referenced definition's offset -> its :data:`Target` (without ``kinds``, the
    description whole in the first part: rows hold it once per definition); None when one
    does not resolve."""
    wanted = sorted(set(scan.definitions.values()))
    buf = spans.tree.buffer
    arrays: dict[int, bool] = {}
    tails = _Tails()
    out: dict[int, Target] = {}
    if not kinds:
        for head, _, _, found in runs(spans, wanted):
            for offset, path, _ in found:
                out[offset] = (head + tails[path], "", None)
        return out if len(out) == len(wanted) else None
    read = partial(target_kind, buf, arrays)
    for head, number, slot, found in runs(spans, wanted, kinds=(TARGET_KINDS, read)):
        for offset, path, sure in found:
            if sure is None:
                element = element_at(Location(_anchor(spans, number, slot), path))
                kind = KINDS.get(type(element)) if element is not None else None
            else:
                kind = sure[0]
            out[offset] = (head, tails[path], kind)
    return out if len(out) == len(wanted) else None


_Item = TypeVar("_Item")

#: A value that leads to no element: the graph describes it ``<unknown>``, with no kind.
_UNKNOWN = ("<unknown>", "", (None, None))


class _Listed(NamedTuple, Generic[_Item]):
    """A listing's items in byte order and the external IDs met on the way, with how many
    items named one (:func:`_scan_counts` needs no second pass over the references)."""

    items: list[_Item]
    external: set[str]
    externals: int


class _Lister:
    """:func:`_scan_listing`'s state: each reference's item made from its place, as a
    :data:`Row` (without ``kinds``) or as :data:`RecordParts`."""

    __slots__ = ("at", "external", "externals", "find", "kinds", "out", "references", "targets")

    def __init__(self, scan: ReferenceScan, targets: dict[int, Target], kinds: bool) -> None:
        self.references = scan.references
        self.find = scan.definitions.get
        self.targets = targets
        self.kinds = kinds
        self.out: list[Any] = []
        self.external: set[str] = set()
        self.at = self.externals = 0

    def unknown(self, before: int | None) -> None:
        """The items of the values from :attr:`at` up to offset ``before`` (None: all), which
        lead to no element."""
        references = self.references
        head, tail, sure = _UNKNOWN
        while self.at < len(references) and (before is None or references[self.at][0] < before):
            self.add(head, tail, sure, references[self.at][1])

    def add(self, head: str, tail: str, sure: tuple[str | None, str | None], value: str) -> None:
        """The next value's item (what :func:`_scan_listing`'s loop does inline)."""
        self.at += 1
        target = self.find(value)
        if target is None:
            self.external.add(value)
            self.externals += 1
        if not self.kinds:
            self.out.append(
                (head + tail, value, None if target is None else self.targets[target][0])
            )
        elif target is None:
            self.out.append((head, tail, *sure, value, "external", None, "", None))
        else:
            self.out.append((head, tail, *sure, value, "internal", *self.targets[target]))


def _scan_listing(tree: DataTree, scan: ReferenceScan, kinds: bool) -> _Listed[Any] | None:
    """Every reference of ``scan`` in byte order as a :data:`Row` (without ``kinds``) or as
    :data:`RecordParts`, in one pass over the runs of their anchors
    (:func:`~brson.model.ids.locate.runs`): a value that leads to no element is
    ``<unknown>``, as the graph describes it; None when a definition does not resolve."""
    spans = ComponentSpans(tree)  # slots' names from its walk, decoded when asked
    targets = _targets(spans, scan, kinds)
    if targets is None:
        return None
    lister = _Lister(scan, targets, kinds)
    find, append = lister.find, lister.out.append  # the loop below is lister.add inline
    references = scan.references
    offsets = [offset for offset, _ in references]
    tails = _Tails()
    lists: dict[int, list[elements.Element]] = {}
    read = partial(source_kind, tree.buffer, lists)
    with paused_gc():  # a tuple per reference: nothing for the collector to free
        for head, number, slot, found in runs(
            spans, offsets, kinds=(SOURCE_KINDS, read) if kinds else None
        ):
            for offset, path, sure in found:
                if offsets[lister.at] < offset:
                    lister.unknown(offset)
                tail = tails[path]
                value = references[lister.at][1]
                lister.at += 1
                target = find(value)
                if target is None:
                    lister.external.add(value)
                    lister.externals += 1
                if not kinds:
                    append((head + tail, value, None if target is None else targets[target][0]))
                    continue
                if sure is None:
                    sure = _source_answer(spans, number, slot, path)
                if target is None:
                    append((head, tail, *sure, value, "external", None, "", None))
                else:
                    append((head, tail, *sure, value, "internal", *targets[target]))
        lister.unknown(None)
    return _Listed(lister.out, lister.external, lister.externals)


def _source_answer(
    spans: ComponentSpans, number: int, slot: int, path: Path
) -> tuple[str | None, str | None]:
    """:func:`~brson.model.ids.kinds.source_kind`'s answer from the nodes, where the bytes
    were unsure: the kind of the element holding the value and its member's ID."""
    source = source_of(Location(_anchor(spans, number, slot), path))
    return (
        KINDS.get(type(source)) if source is not None else None,
        source.id if isinstance(source, Member) else None,
    )
