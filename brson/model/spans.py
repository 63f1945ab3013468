"""Where every component and slot of an unmodified tree lies in its bytes, without nodes.

Extract, refs and validate ask which component or slot holds an offset, for many offsets; the
model would make a node per slot and component on the way.  One walk of the bytes gives the
same answers: components never nest, so their spans are disjoint and a bisection finds the one
holding an offset; each remembers its slot, and each slot its parent, so names and paths are
read for the few slots asked about.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from brson._speedups import load
from brson.collector import paused_gc
from brson.errors import PATH_LIMIT
from brson.model import Component, DataTree, Slot, elements
from brson.model.component import leading_type
from brson.model.slot import PATH_MEMO_LIMIT

#: The slot number of a component in the root ``Assets`` (NeosVR asset providers).
ASSETS = -1

# The walk in C (brson/_speedups/_spansc.c) when it was built and BRSON_PURE_PYTHON is not
# set; C answers None for anything it is not sure of and the Python walk decides, so errors
# have one source (tests/graph/test_spansc.py holds C to it).
if TYPE_CHECKING:
    from brson._speedups import _spansc
else:
    _spansc = load("_spansc")
ACCELERATED: bool = _spansc is not None


#: What :meth:`ComponentSpans.runs` gives in each row after its key path: nothing (an empty
#: tuple), the chain of elements on the way (:data:`anchor_paths`' with ``chains``), or
#: :mod:`brson.model.ids.kinds`' answer for the value (``source_kind``'s) or the definition
#: (``target_kind``'s), None where C is unsure of it (the nodes answer).
PATHS, CHAINS, SOURCE_KINDS, TARGET_KINDS = 0, 1, 2, 3
#: Offsets a compiled call of :meth:`ComponentSpans.runs` reads: ~100 KiB of rows at a time.
RUN_BATCH = 512

#: :meth:`ComponentSpans.runs`' answer per run: its component's number (-1: a slot's own
#: elements), its slot's, the component's leading ``Type`` index (None: none read in place),
#: where its offsets start and stop in the list, and their ``(offset, key path, chain)`` rows
#: (:func:`anchor_paths`; None: the caller finds them).
AnchorRun = tuple[
    int, int, int | None, int, int, list[tuple[int, tuple[str | int, ...], tuple[Any, ...]]] | None
]


class ComponentSpans:
    """Every component's byte span in an unmodified tree, with the slot holding it.

    Components are numbered in byte order; slots in the order the walk met them (the root
    is slot 0).  ``at(offset)`` answers "which component's bytes hold this offset" by
    bisection; :meth:`component` and :meth:`slot` make a detached node over the same bytes
    for the few that are asked about.
    """

    def __init__(self, tree: DataTree) -> None:
        self._tree = tree
        buf = self._buf = tree.buffer
        root = tree.element_index()
        top = root.get("Object")
        assets = root.get("Assets")
        held = (
            document_spans(buf, assets)
            if assets is not None and assets[0] == elements.ARRAY
            else []
        )
        walked = named_slot_walk(buf, top) if top is not None else None
        self._layout: elements.Layout = ()
        #: Each slot's name as (start, size, 0) in ``buf`` where the compiled walk read one.
        self._name_spans: array[int] | None = None
        if walked is not None and top is not None:
            # The compiled walk (the Python one below was ~6 us a slot: the largest piece
            # of extract after the ID scan); the root's assets lie wholly before or after
            # the Object, so joining the two keeps byte order.
            components, slots, self._name_spans = walked
            starts = array("q", [start for start, _ in held])
            ends = array("q", [end for _, end in held])
            on = array("q", [ASSETS]) * len(held)
            before = assets is not None and assets[1] < top[1]
            self._starts = starts + components[0::3] if before else components[0::3] + starts
            self._ends = ends + components[1::3] if before else components[1::3] + ends
            self._slot_of = on + components[2::3] if before else components[2::3] + on
            self._slot_starts = slots[0::3]
            self._slot_ends = slots[1::3]
            self._parents = slots[2::3]
        else:
            self._walk(buf, top, held)
        self._names: dict[int, str] = {}
        self._paths: dict[int, str] = {}
        #: Slot numbers by start, and those starts (see :meth:`slot_at`; made on first use).
        self._by_start: array[int] | None = None
        self._sorted_starts: array[int] = array("q")

    def _walk(
        self, buf: bytes, top: elements.Element | None, assets: list[tuple[int, int]]
    ) -> None:
        """The reference walk, for a tree C is not sure of (or without C)."""
        with paused_gc():
            found, slots, self._layout = (
                walk_py(buf, top[2], top[3])
                if top is not None and top[0] == elements.DOCUMENT
                else ([], [], ())
            )
            found += [(start, end, ASSETS) for start, end in assets]
            found.sort()
            self._starts = array("q", [start for start, _, _ in found])
            self._ends = array("q", [end for _, end, _ in found])
            self._slot_of = array("q", [slot for _, _, slot in found])
            del found
            self._slot_starts = array("q", [start for start, _, _ in slots])
            self._slot_ends = array("q", [end for _, end, _ in slots])
            self._parents = array("q", [parent for _, _, parent in slots])

    def __len__(self) -> int:
        return len(self._starts)

    def at(self, offset: int) -> int | None:
        """The number of the component whose bytes hold ``offset``, or None."""
        at = bisect_right(self._starts, offset) - 1
        if at < 0 or offset >= self._ends[at]:
            return None
        return at

    def numbers_at(self, offsets: Iterable[int | None]) -> list[int | None]:
        """:meth:`at` of each offset (None for None), in one call to C when it was built, else
        in one loop (:meth:`numbers_at_py`)."""
        listed = list(offsets)
        found = _spansc.numbers_at(self._starts, self._ends, listed) if ACCELERATED else None
        return self.numbers_at_py(listed) if found is None else found

    def numbers_at_py(self, offsets: Iterable[int | None]) -> list[int | None]:
        """The reference of the compiled :meth:`numbers_at`."""
        starts, ends = self._starts, self._ends
        out: list[int | None] = []
        for offset in offsets:
            if offset is None:
                out.append(None)
                continue
            at = bisect_right(starts, offset) - 1
            out.append(at if at >= 0 and offset < ends[at] else None)
        return out

    def placed(self, numbers: Iterable[int]) -> tuple[list[int], list[int]]:
        """Components ``numbers`` where a copy of them goes: those on slots by their slot's
        start, then number (a slot's components in its order, slots in walk order); the
        root's assets by number."""
        slot_of, slot_starts = self._slot_of, self._slot_starts
        ordered = sorted(numbers)
        assets = [number for number in ordered if slot_of[number] == ASSETS]
        on_slots = [number for number in ordered if slot_of[number] != ASSETS]
        # A stable sort of the numbers in order by one key list (a key call per number was
        # most of the sort's time on a big closure).
        keys = [slot_starts[slot_of[number]] for number in on_slots]
        by_slot = sorted(range(len(on_slots)), key=keys.__getitem__)
        return [on_slots[at] for at in by_slot], assets

    def span(self, number: int) -> tuple[int, int]:
        return self._starts[number], self._ends[number]

    def spans(self, numbers: Iterable[int]) -> list[tuple[int, int]]:
        """:meth:`span` of each number, in one pass (a call per number was a tenth of a
        big closure's rounds)."""
        listed = numbers if isinstance(numbers, list) else list(numbers)
        starts, ends = self._starts.__getitem__, self._ends.__getitem__
        return list(zip(map(starts, listed), map(ends, listed), strict=True))

    def slot_of(self, number: int) -> int:
        """The number of the slot holding component ``number`` (:data:`ASSETS` for a root
        asset)."""
        return self._slot_of[number]

    def slots_of(self, numbers: Iterable[int]) -> Iterator[int]:
        """:meth:`slot_of` of each number (one call for a closure's hundred thousand)."""
        return map(self._slot_of.__getitem__, numbers)

    def component(self, number: int) -> Component:
        """Component ``number`` as a node over the tree's bytes, detached (no owner, no slot:
        adopting it elsewhere re-parents nothing) but reading types from the tree."""
        start, end = self.span(number)
        node = Component(self._buf, start, end)
        node.tree = self._tree
        return node

    @property
    def tree(self) -> DataTree:
        return self._tree

    def slot_at(self, offset: int) -> int | None:
        """The number of the innermost slot whose bytes hold ``offset``, or None.

        Slots nest or are disjoint, so the last one starting at or before ``offset`` either
        holds it or lies inside the one that does: its ancestors are tried up to that one."""
        order = self._slot_order()
        at = bisect_right(self._sorted_starts, offset) - 1
        slot = order[at] if at >= 0 else ASSETS
        ends, parents = self._slot_ends, self._parents
        while slot != ASSETS and offset >= ends[slot]:
            slot = parents[slot]
        return None if slot == ASSETS else slot

    def in_slots(self, offset: int) -> bool:
        """Whether some slot's bytes hold ``offset`` (:meth:`slot_at` is not None): the root
        slot's do, since every other slot lies inside it (no search of the slots)."""
        starts = self._slot_starts
        return bool(starts) and starts[0] <= offset < self._slot_ends[0]

    def counts_within(self, start: int, end: int) -> tuple[int, int]:
        """How many slots and components start in ``[start, end)``: for a slot's span, the
        slots of its subtree (slots nest or are disjoint) and their components (a component
        lies in its slot's bytes, outside its children's), as a walk of its nodes counts
        them."""
        components = bisect_left(self._starts, end) - bisect_left(self._starts, start)
        slots = sum(start <= at < end for at in self._slot_starts)
        return slots, components

    def _slot_order(self) -> array[int]:
        """Slot numbers by start (and ``_sorted_starts``, those starts), made on first use."""
        order = self._by_start
        if order is None:
            starts = self._slot_starts
            order = self._by_start = array("q", sorted(range(len(starts)), key=starts.__getitem__))
            self._sorted_starts = array("q", [starts[number] for number in order])
        return order

    def runs(self, offsets: list[int], mode: int) -> Iterator[AnchorRun]:
        """The sorted ``offsets`` cut into runs of one anchor, each with the key paths of its
        offsets where C is sure of them (:data:`AnchorRun`, each row's third item as
        ``mode`` asks: :data:`PATHS`...), a batch of :data:`RUN_BATCH` offsets a compiled
        call (a listing's rows are never all held), :meth:`runs_py` without C or where C is
        unsure (its rows are then left to the caller).  A run is never longer than a batch:
        an anchor's offsets may come in several runs, one after another."""
        compiled = ACCELERATED and type(self._buf) is bytes
        columns = self.columns() if compiled else ()
        for first in range(0, len(offsets), RUN_BATCH):
            stop = min(first + RUN_BATCH, len(offsets))
            found = (
                _spansc.runs(self._buf, columns, offsets, mode, first, stop) if compiled else None
            )
            yield from found if found is not None else self.runs_py(offsets, first, stop)

    def columns(self) -> tuple[array[int], ...]:
        """The int64 columns the compiled :meth:`runs` reads: component starts, ends and
        slots (by start), slot starts, ends and parents (walk order), slot numbers by start
        and those starts."""
        order = self._slot_order()
        return (
            self._starts,
            self._ends,
            self._slot_of,
            self._slot_starts,
            self._slot_ends,
            self._parents,
            order,
            self._sorted_starts,
        )

    def runs_py(self, offsets: list[int], first: int, stop: int) -> list[AnchorRun]:
        """The reference of the compiled :meth:`runs` for ``offsets[first:stop]``, rows left
        out (None): a component's offsets make one run; a slot's own make one until an offset
        lies in a component or in another slot (a slot's own elements may come in two runs,
        around its components); an offset in no anchor is in no run."""
        out: list[AnchorRun] = []
        count = stop
        at = first
        while at < count:
            offset = offsets[at]
            number = self.at(offset)
            if number is not None:
                start, end = self.span(number)
                upto = bisect_left(offsets, end, at, count)
                slot = self.slot_of(number)
                kind = leading_type(self._buf, start, end)
            else:
                found = self.slot_at(offset)
                if found is None:
                    at += 1
                    continue
                slot, number, upto, kind = found, -1, at + 1, None
                while upto < count and self.at(offsets[upto]) is None:
                    if self.slot_at(offsets[upto]) != slot:
                        break
                    upto += 1
            out.append((number, slot, kind, at, upto, None))
            at = upto
        return out

    def slot_span(self, slot: int) -> tuple[int, int]:
        return self._slot_starts[slot], self._slot_ends[slot]

    def slot(self, slot: int) -> Slot:
        """Slot ``slot`` as a node over the tree's bytes, its ancestors made as its parents
        (what :meth:`Slot.display_path` reads) and not as their parents' children."""
        chain: list[int] = []
        while slot != ASSETS:
            chain.append(slot)
            slot = self._parents[slot]
        node: Slot | None = None
        for number in reversed(chain):
            kid = Slot(self._buf, self._slot_starts[number], self._slot_ends[number], node)
            kid.tree = self._tree
            kid.parent = node
            node = kid
        assert node is not None
        return node

    def slot_display_path(self, slot: int) -> str:
        """The slot's :meth:`Slot.display_path` (of a node made by :meth:`slot`): its
        :meth:`slot_path` while that is short, else ``…/`` and the path's last
        ``PATH_LIMIT`` characters, read from at most that many ancestors (a listing asks it of
        every slot of a deep chain)."""
        known = self._paths.get(slot)
        if known is not None and len(known) < PATH_LIMIT:  # asked before (a slot's runs)
            return known
        parent = self._parents[slot]
        base = self._paths.get(parent) if parent != ASSETS else None
        if base is not None:  # its parent's path known (a listing meets parents first)
            text = f"{base}/{self.slot_name(slot)}"
            if len(text) < PATH_LIMIT:  # also short enough to memoize (slot_path's rule)
                self._paths[slot] = text
                return text
        size, node = 0, slot  # the path's length, until it is known to be long
        while node != ASSETS:
            known = self._paths.get(node)
            if known is not None:
                size += len(known)
                break
            size += len(self.slot_name(node)) + 1
            if size > PATH_LIMIT:  # and more to come: long
                break
            node = self._parents[node]
        else:
            size -= 1  # no "/" before the root's name
        if size < PATH_LIMIT:
            return self.slot_path(slot)
        parts: list[str] = []
        size, node = 0, slot
        while node != ASSETS:
            name = self.slot_name(node)
            parts.append(name)
            size += len(name) + 1
            parent = self._parents[node]
            if size > PATH_LIMIT and parent != ASSETS:
                return "…/" + "/".join(reversed(parts))[-PATH_LIMIT:]
            node = parent
        return "/".join(reversed(parts))

    def slot_start(self, slot: int) -> int:
        """Where slot ``slot`` starts (slots in walk order compare by it: parents first)."""
        return self._slot_starts[slot]

    def slot_name(self, slot: int) -> str:
        """The slot's name as :attr:`Slot.path` uses it (a name that is not a string: "")."""
        name = self._names.get(slot)
        if name is None and self._name_spans is not None:
            name = self._walked_name(slot)
            if name is not None:
                self._names[slot] = name
        if name is None:
            buf, start, end = self._buf, self._slot_starts[slot], self._slot_ends[slot]
            # The engine's layout (a Name member holding a string) read from the bytes, as
            # ``Slot.name`` reads it, without a node per slot (a big closure asks thousands);
            # anything else through the node.
            index, self._layout = elements.index_like(buf, start, end, self._layout)
            elem = index.get("Name")
            data = (
                elements.member_data(buf, elem[2], elem[3])
                if elem and elem[0] == elements.DOCUMENT
                else None
            )
            if data is not None and data[0] == elements.STRING:
                value = elements.scalar(buf, data)
            else:
                value = Slot(buf, start, end).name
            name = self._names[slot] = value if isinstance(value, str) else ""
        return name

    def slot_names(self, slots: list[int]) -> list[str]:
        """:meth:`slot_name` of each slot."""
        return list(map(self.slot_name, slots))

    def _walked_name(self, slot: int) -> str | None:
        """The name the compiled walk found for the slot (None: none, or not UTF-8)."""
        assert self._name_spans is not None
        at = self._name_spans[3 * slot]
        if at < 0:
            return None
        try:
            return self._buf[at : at + self._name_spans[3 * slot + 1]].decode()
        except UnicodeDecodeError:
            return None

    def slot_path(self, slot: int) -> str:
        """The slot's :attr:`Slot.path` (names from the root down, joined by "/"); short
        prefixes are memoized as the model memoizes them (long ones would cost memory in
        depth squared)."""
        memo = self._paths.get(slot)
        if memo is not None:
            return memo
        chain: list[int] = []
        node = slot
        base: str | None = None
        while node != ASSETS:
            known = self._paths.get(node)
            if known is not None:
                base = known
                break
            chain.append(node)
            node = self._parents[node]
        chain.reverse()
        names = [self.slot_name(number) for number in chain]
        text = base
        for number, name in zip(chain, names, strict=True):
            text = name if text is None else f"{text}/{name}"
            if len(text) > PATH_MEMO_LIMIT:
                break
            self._paths[number] = text
        memo = self._paths.get(slot)  # the same text, shared by whoever asks again
        return memo if memo is not None else "/".join(names if base is None else [base, *names])


Triples = list[tuple[int, int, int]]


def walk_py(buf: bytes, start: int, end: int) -> tuple[Triples, Triples, elements.Layout]:
    """The walk of the slot tree whose root is the document ``buf[start:end]`` in Python (the
    reference of the compiled walk, which answers only where it is sure): components as
    ``(start, end, slot number)`` in walk order, slots as ``(start, end, parent number)`` in
    walk order (the root first, parent :data:`ASSETS`), and the last key layout met."""
    found: Triples = []
    slots: Triples = []
    pending: Triples = [(start, end, ASSETS)]
    layout: elements.Layout = ()
    index_like, member_index, array_items = (
        elements.index_like,
        elements.member_index,
        elements.array_items,
    )
    document, listing = elements.DOCUMENT, elements.ARRAY
    # Per slot: one index call and one per array, the spans taken straight from the array
    # items (every slot of a world walks here; helpers per slot were a third).
    while pending:
        start, end, parent = pending.pop()
        number = len(slots)
        slots.append((start, end, parent))
        index, layout = index_like(buf, start, end, layout)
        held = index.get("Components")
        if held is not None and held[0] == document:
            data = member_index(buf, held[2], held[3]).get("Data")
            if data is not None and data[0] == listing:
                found += [
                    (item[2], item[3], number)
                    for item in array_items(buf, data[2], data[3])
                    if item[0] == document
                ]
        kids = index.get("Children")
        if kids is not None and kids[0] == listing:
            pending += [
                (item[2], item[3], number)
                for item in array_items(buf, kids[2], kids[3])
                if item[0] == document
            ]
    return found, slots, layout


def slot_walk(buf: bytes, obj: elements.Element) -> tuple[array[int], array[int]] | None:
    """The compiled walk of the slot tree whose root is the ``Object`` element ``obj``:
    components as ``(start, end, slot number)`` triples by start, slots as ``(start, end,
    parent number)`` triples in walk order (the root first, parent -1), value spans; None
    without C or where it is unsure (an array holding anything but documents...).  For a
    reader of bytes that is not a tree (a diff of two documents' BSON)."""
    walked = _walked(buf, obj, False)
    return None if walked is None else (walked[0], walked[1])


def named_slot_walk(
    buf: bytes, obj: elements.Element
) -> tuple[array[int], array[int], array[int]] | None:
    """:func:`slot_walk` with each slot's name where :func:`table_columns` reads one, as
    ``(start, size, 0)`` triples of its UTF-8 bytes (start -1: the model reads it)."""
    walked = _walked(buf, obj, True)
    return None if walked is None else (walked[0], walked[1], walked[2])


def _walked(buf: bytes, obj: elements.Element, names: bool) -> list[array[int]] | None:
    if not ACCELERATED or type(buf) is not bytes or obj[0] != elements.DOCUMENT:
        return None
    walked = _spansc.walk(buf, obj[2], obj[3], names)
    if walked is None:
        return None
    columns = []
    for part in walked:
        column = array("q")
        column.frombytes(part)
        columns.append(column)
    return columns


#: :func:`anchor_paths`' rows: (offset, key path, the elements on the way or ()).
PathRows = list[tuple[int, tuple[str | int, ...], tuple[elements.Element, ...]]]


def anchor_paths(
    buf: bytes, span: tuple[int, int], offsets: list[int], chains: bool, slot: bool
) -> PathRows | None:
    """The key paths of the sorted ``offsets`` inside one anchor (a component, or with
    ``slot`` a slot's own elements) by the compiled descent: what
    :func:`brson.model.ids.locate.runs` finds in Python, which answers without C or where C
    is unsure (None)."""
    if not ACCELERATED or type(buf) is not bytes:
        return None
    return _spansc.paths(buf, span[0], span[1], offsets, chains, slot)


def document_spans(buf: bytes, elem: elements.Element) -> list[tuple[int, int]]:
    """Spans of the documents in an array element (what the model makes a node of)."""
    return [
        (item[2], item[3])
        for item in elements.array_items(buf, elem[2], elem[3])
        if item[0] == elements.DOCUMENT
    ]


class RowEntry:
    """A slot row on a walk's stack that makes its slot view only when asked: through its
    parent entry's view and its place among the parent's children, so a walk over the table
    holds no view for the rows it writes from their bytes alone."""

    __slots__ = ("index", "parent", "slot")

    def __init__(self, parent: RowEntry | None, index: int) -> None:
        self.parent, self.index = parent, index
        self.slot: Slot | None = None

    def view(self) -> Slot:
        """The row's slot as the tree's own node (made through its parents' children)."""
        slot = self.slot
        if slot is None:
            assert self.parent is not None  # the top entry is made with its slot
            slot = self.slot = self.parent.view().children[self.index]
        return slot


class SlotTable:
    """Every slot of an unmodified tree's ``Object`` and its components, from one compiled
    walk (``_spansc.table``), for :meth:`DataTree.walk`: each slot's children, components and
    name, and each component's type index, are read from here, not from an index of the
    slot's keys.  Rows are the compiled walk's slot numbers; row 0 is the root.  Only for
    trees C is sure of: every slot's document was checked there (lengths, unique ASCII keys),
    which is what lets a slot read its ``Name`` at the engine's place without indexing
    (:meth:`Slot.element`)."""

    __slots__ = (
        "comp_ends",
        "comp_first",
        "comp_starts",
        "comp_stop",
        "comp_types",
        "first_kid",
        "names",
        "next_sibling",
        "slot_ends",
        "slot_starts",
    )

    def __init__(self, per_slot: bytes, per_component: bytes, names: list[str | None]) -> None:
        """From :func:`table_columns`' answer: int64 columns, one after the other (read in
        place: a copy of each would be a transient 0.1x of the BSON on a real world)."""
        slots, components = memoryview(per_slot).cast("q"), memoryview(per_component).cast("q")
        count, held = len(names), len(components) // 3
        self.slot_starts = slots[:count]
        self.slot_ends = slots[count : 2 * count]
        #: Each slot's first child (in Children order) and each slot's next sibling, -1 for
        #: none.
        self.first_kid = slots[2 * count : 3 * count]
        self.next_sibling = slots[3 * count : 4 * count]
        #: Each slot's components are one run of the components by start: where the run
        #: starts (-1 for none) and stops.
        self.comp_first = slots[4 * count : 5 * count]
        self.comp_stop = slots[5 * count :]
        self.comp_starts = components[:held]
        self.comp_ends = components[held : 2 * held]
        #: Each component's ``Type`` index where it leads its document (-1: the component
        #: reads it).
        self.comp_types = components[2 * held :]
        #: Each slot's name where its ``Name`` member holds a string in the engine's layout
        #: (None: the slot reads it).
        self.names = names

    @classmethod
    def build(cls, tree: DataTree) -> SlotTable | None:
        """The table of ``tree``'s original bytes, or None without C or where it is unsure."""
        obj = tree.element_index().get("Object")
        columns = table_columns(tree.buffer, obj) if obj is not None else None
        return cls(*columns) if columns is not None else None

    def slot_span(self, row: int) -> tuple[int, int]:
        return self.slot_starts[row], self.slot_ends[row]

    def row_of(self, slot: Slot) -> int:
        """The row of an unedited slot of the tree the table was built from (found by where
        its bytes start), or -1."""
        if slot.modified or slot.tree is None or slot.buffer is not slot.tree.buffer:
            return -1
        try:
            return self.slot_starts.tolist().index(slot.span[0])
        except ValueError:
            return -1

    def kids(self, row: int) -> list[int]:
        """The rows of slot ``row``'s children, in Children order."""
        out = []
        kid, following = self.first_kid[row], self.next_sibling
        while kid >= 0:
            out.append(kid)
            kid = following[kid]
        return out


Columns = tuple[bytes, bytes, list[str | None]]


def table_columns(buf: bytes, obj: elements.Element) -> Columns | None:
    """:class:`SlotTable`'s columns for the slot tree whose root is the ``Object`` element
    ``obj``, from the compiled walk; None without C or where it is unsure."""
    if not ACCELERATED or type(buf) is not bytes or obj[0] != elements.DOCUMENT:
        return None
    return _spansc.table(buf, obj[2], obj[3])


def table_columns_py(buf: bytes, start: int, end: int) -> Columns:
    """The reference of the compiled ``table``: :class:`SlotTable`'s columns from
    :func:`walk_py` (raises where that raises).  Per slot, in walk order: start, end, first
    child and next sibling (children linked in ascending row order: the walk numbers a slot's
    children last first, so that gives array order), first component and component stop;
    per component, by start: start, end, leading ``Type`` index (-1: none or negative);
    names as :func:`name_of` reads them."""
    found, slots, _ = walk_py(buf, start, end)
    found.sort()
    count = len(slots)
    first_kid, next_sibling = [-1] * count, [-1] * count
    for row in range(1, count):
        parent = slots[row][2]
        next_sibling[row] = first_kid[parent]
        first_kid[parent] = row
    comp_first, comp_stop = [-1] * count, [-1] * count
    for at, (_, _, owner) in enumerate(found):
        if comp_first[owner] < 0:
            comp_first[owner] = at
        comp_stop[owner] = at + 1
    types = [leading_type(buf, start, end) for start, end, _ in found]
    per_slot = array("q", [start for start, _, _ in slots])
    per_slot += array("q", [end for _, end, _ in slots])
    for column in (first_kid, next_sibling, comp_first, comp_stop):
        per_slot += array("q", column)
    per_component = array("q", [start for start, _, _ in found])
    per_component += array("q", [end for _, end, _ in found])
    per_component += array("q", [-1 if at is None or at < 0 else at for at in types])
    names = [name_of(buf, start, end) for start, end, _ in slots]
    return per_slot.tobytes(), per_component.tobytes(), names


def name_of(buf: bytes, start: int, end: int) -> str | None:
    """The slot ``buf[start:end]``'s name where its ``Name`` member holds a non-empty-framed
    string in the engine's layout (what ``Slot.name`` decodes there), else None (another
    layout or type, or bytes that are not UTF-8: the slot reads it, and raises)."""
    elem = elements.index_like(buf, start, end, ())[0].get("Name")
    if elem is None or elem[0] != elements.DOCUMENT:
        return None
    data = elements.member_data(buf, elem[2], elem[3])
    if data is None or data[0] != elements.STRING or data[3] - data[2] < 5:
        return None
    if buf[data[3] - 1] != 0:
        return None
    try:
        return buf[data[2] + 4 : data[3] - 1].decode()
    except UnicodeDecodeError:
        return None
