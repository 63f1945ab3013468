"""Extract one slot's subtree into a new, self-contained data tree (an avatar out of a world).

The slot's bytes are copied as they are (every member byte-identical, every ID kept); the
components outside it that it references come along under ``Extracted Dependencies``; what
cannot move follows ``external`` (keep, null, fail); ``Types`` and ``TypeVersions`` keep
what is in use.  docs/extract.md states what the result holds and why.  Extracting the
result's root again gives identical BSON.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from itertools import compress
from typing import Any, Literal

from brson.collector import drop_cycles, paused_gc
from brson.errors import GraphError, ModelError
from brson.model import Component, DataTree, Slot
from brson.model.ids.forms import DEFINITION_BYTES, is_guid
from brson.model.ids.locate import Location, locate_many
from brson.model.ids.scan import DefinitionTable, id_spans, ids_in_bytes, references_to
from brson.model.node import Node
from brson.model.numbering import (
    FragmentsValues,
    FreshIds,
    fragments_values,
    numbered_ids_in_bytes,
)
from brson.model.spans import ComponentSpans
from brson.ops.extractbytes import SlotLayout, TypePlan, copy_component
from brson.ops.extractcopies import (
    HOLDER_NAME,
    CopiedComponent,
    CopyRecords,
    ExternalPlaces,
    ExternalReference,
    Referrers,
    target_kinds,
)

External = Literal["keep", "null", "fail"]
EXTERNAL_POLICIES: tuple[str, ...] = ("keep", "null", "fail")


@dataclass
class ExtractReport:
    slot: str
    slot_id: str | None
    slots: int = 0
    components: int = 0
    types: int = 0
    types_dropped: list[str] = field(default_factory=list)
    type_versions_dropped: list[str] = field(default_factory=list)
    copied: list[CopiedComponent] = field(default_factory=list)
    external: list[ExternalReference] = field(default_factory=list)
    #: IDs created for the holder slots.
    new_ids: list[str] = field(default_factory=list)
    #: The chosen subtree alone (``slots`` / ``components`` count the result, closure
    #: included): how much the closure added is the difference.
    subtree_slots: int = 0
    subtree_components: int = 0

    @property
    def closure_warning(self) -> str | None:
        """Set when the closure is much larger than the subtree (more components copied
        along than the subtree has, and at least :data:`CLOSURE_WARNING_MIN`): extracting a
        small slot that references a big system drags the system along, which is rarely what
        was meant (``copy_dependencies=False`` / ``--no-dependencies`` leaves it out)."""
        copied = len(self.copied)
        if copied < CLOSURE_WARNING_MIN or copied <= self.subtree_components:
            return None
        return (
            f"the closure is much larger than the subtree: {copied} component(s) copied along "
            f"for a subtree of {self.subtree_slots} slot(s) and "
            f"{self.subtree_components} component(s)"
        )

    def external_by_kind(self) -> dict[str, int]:
        """How many references leave the result, per target kind (slot, component, missing)."""
        counts: dict[str, int] = {}
        for ref in self.external:
            counts[ref.kind] = counts.get(ref.kind, 0) + 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        return {
            **out,
            "types_dropped": list(self.types_dropped),
            "type_versions_dropped": list(self.type_versions_dropped),
            "copied": [c.to_dict() for c in self.copied],
            "external": [e.to_dict() for e in self.external],
            "new_ids": list(self.new_ids),
            "external_by_kind": self.external_by_kind(),
            "closure_warning": self.closure_warning,
        }


#: Fewer components copied along than this never warrant a warning, whatever the ratio.
CLOSURE_WARNING_MIN = 10


@dataclass
class ExtractResult:
    tree: DataTree
    report: ExtractReport


#: The stages of an extraction, as reported to ``progress``.
PHASES = (
    "finding the slot",
    "indexing the subtree",
    "copying dependencies",
    "checking references",
    "writing the new tree",
)


@paused_gc()  # a bulk pass over the subtree and its dependencies (brson.collector)
def extract(
    tree: DataTree,
    slot_or_selector: Slot | str,
    external: External | str = "keep",
    copy_dependencies: bool = True,
    *,
    progress: Callable[[str], None] | None = None,
) -> ExtractResult:
    """A new tree whose ``Object`` is the chosen slot (by Slot, name, ID or path).

    ``progress`` is called with the name of each stage as it starts (see :data:`PHASES`).
    Raises :class:`SelectorError` when the selector matches no slot or several, and
    :class:`GraphError` when ``external="fail"`` and references leave the subtree.
    """
    if external not in EXTERNAL_POLICIES:
        raise ValueError(f"external must be one of {', '.join(EXTERNAL_POLICIES)}")
    phase = progress or (lambda _: None)
    phase(PHASES[0])
    # An ID is found in the closure's definition table, which it builds anyway (a search of
    # the bytes for it was a whole pass more).
    table = (
        DefinitionTable(tree)
        if copy_dependencies
        and not tree.modified
        and isinstance(slot_or_selector, str)
        and is_guid(slot_or_selector)
        else None
    )
    slot = tree.select(slot_or_selector, definitions=table)
    if tree.modified:  # the closure reads the bytes: extract from what the edits amount to
        tree, slot = _as_written(tree, slot)
    report = ExtractReport(slot=slot.path, slot_id=slot.id)
    # The subtree is read where it lies in the source (a copy of a tenth of a big world
    # was held until the result was assembled).
    sub_start, sub_end = slot.span
    sub_bytes = memoryview(tree.buffer)[sub_start:sub_end]
    # Through the model's table, which refuses entries that are not type-name strings.
    type_names = [str(t) for t in tree.types] if "Types" in tree else None

    # The result is assembled with the source's type table and indexed from its bytes; what
    # it references but does not define decides what else comes along.
    phase(PHASES[1])
    deps = _Closure(tree, copy_dependencies, table)
    # What the subtree defines and references, by the index's rules, from its bytes (an
    # index of a staged tree kept a location per value: a tenth of the run's peak memory).
    deps.add_subtree(numbered_ids_in_bytes(bytes(sub_bytes)))
    phase(PHASES[2])
    deps.run()
    report.subtree_slots, report.subtree_components = _subtree_counts(slot, deps.spans)
    # Some generators write the parent's ID as ParentReference; kept, it would name a slot
    # left behind (and make references to that slot look resolved), so it gets its own.
    relink = slot.parent is not None and slot.parent_reference == slot.parent.id
    # The relinked ParentReference no longer defines the parent's ID in the result.
    if relink:
        old = (slot.parent_reference or "").encode()
        if sum(1 for m in DEFINITION_BYTES.finditer(sub_bytes) if m[2] == old) == 1:
            deps.undefine(old.decode())
    types = TypePlan(tree, deps.spans_of((sub_start, sub_end)), type_names, report.slot)
    report.types, report.types_dropped = types.types, types.types_dropped
    report.type_versions_dropped = types.type_versions_dropped
    # The IDs that references leave the result for, and where the source defines each, are
    # known from the pieces: the lookup structures go before the result is assembled.
    leaving = deps.leaving()
    deps.done_looking_up()
    holder = None
    holder_slots = 0
    parent_reference = None
    if deps.on_slots or deps.on_assets or relink:
        ids = deps.fresh_ids(sub_bytes, default=not tree.legacy)
        if deps.on_slots:
            holder, holder_slots = _holder(Slot(tree.buffer, sub_start, sub_end), deps, ids, types)
        parent_reference = next(ids) if relink else None
        report.new_ids = ids.issued
        del ids
    assets = [types.component(deps.component(n)) for n in deps.on_assets]
    # What the result holds is what went into it (a scan of the result for components and
    # slots read every byte of it again).
    report.components = report.subtree_components + len(deps.on_slots) + len(deps.on_assets)
    report.slots = report.subtree_slots + holder_slots
    patched = types.apply(sub_bytes)
    root = (
        Slot(tree.buffer, sub_start, sub_end)
        if patched is sub_bytes
        else Slot(bytes(patched), 0, len(patched))
    )
    del patched
    staged = _stage(tree, root, holder, assets, parent_reference, types.changes)
    del root, holder, assets, sub_bytes
    drop_cycles()  # the nodes the result was assembled from
    root_name = staged.root.name or ""

    phase(PHASES[3])
    outside = _undefined_values(staged, leaving)
    offsets = [offset for offset, _ in outside]
    values = [value for _, value in outside]
    del outside  # a pair per reference (the collections below would traverse each)
    targets = [leaving[value] for value in values]
    del leaving
    # Kinds from the spans; the texts of where each value is and where its target lies
    # are described only when read (the summary counts them).
    spans = deps.spans
    if spans is None and any(target is not None for target in targets):
        spans = ComponentSpans(tree)
    places = ExternalPlaces(spans, targets, offsets, staged)
    action = "nulled" if external == "null" else "kept"
    kinds = target_kinds(spans, targets)
    report.external = ExternalReference.described_later(values, kinds, action, places)
    del spans, targets, kinds, values
    if external == "fail" and report.external:
        listing = "; ".join(
            f"{e.where} -> {e.target_path or e.target}" for e in report.external[:20]
        )
        more = f" and {len(report.external) - 20} more" if len(report.external) > 20 else ""
        raise GraphError(
            f"{len(report.external)} reference(s) leave the extracted subtree: {listing}{more} "
            "(external keep or null writes it anyway)",
            path=report.slot,
        )
    referrers = Referrers(len(deps.on_slots), len(deps.on_assets))
    if deps.spans is not None:
        numbers = deps.on_slots + deps.on_assets  # their order in the result
        copies = CopyRecords(deps.spans, deps.tree.buffer, numbers, root_name, referrers)
        report.copied = copies.records
    drop_cycles()

    phase(PHASES[4])
    if external == "null":
        places.read()  # before the nulls move the result's bytes
        nulls = locate_many(staged, offsets)
        for location in nulls.values():
            _null_at(location)
        del nulls
    drop_cycles()
    # Every node over the staged bytes is dropped (a node over them, the root's name,
    # would keep them alive): on a big closure the result is hundreds of MB.
    data = staged.to_bson()
    del staged, offsets, deps
    drop_cycles()
    result = DataTree(data, source=tree.source)
    referrers.result = result
    if places.result is not None:  # the same bytes as the staged tree
        places.result = result
    return ExtractResult(result, report)


def _subtree_counts(slot: Slot, spans: ComponentSpans | None) -> tuple[int, int]:
    """How many slots and components the subtree holds: from the closure's spans of the
    tree when it made them (a walk made a node per slot and component of the subtree), else
    by a walk."""
    if spans is not None:
        return spans.counts_within(*slot.span)
    slots = components = 0
    for sub in slot.walk():
        slots += 1
        components += len(sub.components)
    return slots, components


def _undefined_values(staged: DataTree, leaving: Iterable[str]) -> list[tuple[int, str]]:
    """``(offset, value)`` of every ID-shaped value in the staged tree that is ``leaving``
    (defined nowhere in it), in byte order: the values :attr:`DataTree.ids` lists
    (references; a ``ParentReference`` repeating a definition names what is defined, so it
    never counts), found by one scan of the bytes without indexing the rest."""
    return references_to(staged.buffer, id_spans(staged), leaving)


def _stage(
    tree: DataTree,
    root: Slot,
    holder: Slot | None,
    assets: list[Component],
    parent_reference: str | None,
    changes: dict[str, Any],
) -> DataTree:
    """The result's root document: the source's root keys (those in ``changes`` with their
    new values), ``Object`` the subtree (plus the holder as its last child), ``Assets`` the
    given ones."""
    if parent_reference is not None:
        root.set("ParentReference", parent_reference)
    if holder is not None:
        kids = root.child_nodes("Children", Slot)
        if kids is None:
            root.set("Children", [holder])
        else:
            kids.append(holder)
            root.touch("Children")
    values: dict[str, Any] = {}
    for key in tree:
        if key == "Object":
            values[key] = root
        elif key == "Assets":
            values[key] = [copy_component(c) for c in assets]
        elif key in changes:
            values[key] = changes[key]
        else:
            values[key] = tree.get(key)
    return DataTree(Node.new(values).to_bson())


def _as_written(tree: DataTree, slot: Slot) -> tuple[DataTree, Slot]:
    """An edited tree read back from its bytes, and the same slot in it (found by its
    position among its parent's children, level by level: IDs may be missing or repeated)."""
    positions: list[int] = []
    node = slot
    while node.parent is not None:
        positions.append(next(n for n, kid in enumerate(node.parent.children) if kid is node))
        node = node.parent
    written = DataTree(tree.to_bson(), source=tree.source)
    found = written.root
    for position in reversed(positions):
        found = found.children[position]
    return written, found


# -- dependencies ---------------------------------------------------------------------------
class _Closure:
    """Which components outside the subtree come along: referenced ones, transitively.

    Rounds work on bytes, not the model's full ID index: each wanted ID's definition is found
    in a :class:`DefinitionTable`, its component by bisection over :class:`ComponentSpans`, the
    component's own IDs by a scan of its bytes; copied components stay numbers in the spans
    until the result is assembled.  Only the subtree's definitions are kept as a set (a big
    closure has millions), with the ID-shaped values :meth:`leaving` needs (:attr:`values`).
    """

    def __init__(self, tree: DataTree, enabled: bool, table: DefinitionTable | None = None) -> None:
        self.tree = tree
        self.enabled = enabled
        #: What the subtree defines.
        self.sub_defined: set[str] = set()
        #: Values not seen before the last fragments were read: what the next round looks up.
        self.pending: set[str] = set()
        #: Every ID-shaped value of the subtree and the copies, for :meth:`leaving`.
        self.values: set[str] = set()
        #: Copied components (numbers in :attr:`spans`).
        self.taken: set[int] = set()
        #: The same, in the source's order, by where they go: slots in walk order,
        #: components in their slot's order; root assets.
        self.on_slots: list[int] = []
        self.on_assets: list[int] = []
        self.spans: ComponentSpans | None = None
        self._table = table
        #: What :meth:`run` looked up and found defined outside every copy (on a slot, or
        #: not in the file: None), with the offset of its definition; None when it looked
        #: nothing up (dependencies off).
        self._outside: dict[str, int | None] | None = None
        #: Definitions of the subtree dropped after :meth:`run` (:meth:`undefine`).
        self._undefined: list[str] = []
        #: The result's ID style so far (every definition sequential; any seen) and its
        #: highest sequential number: what fresh IDs need, without a set of every ID.
        self._sequential = True
        self._seen = False
        self._highest = -1

    @property
    def table(self) -> DefinitionTable:
        """Where the source defines each ID (built on first use)."""
        if self._table is None:
            self._table = DefinitionTable(self.tree)
        return self._table

    def add_subtree(self, found: tuple[set[str], list[str], bool, int]) -> None:
        defined, values, sequential, highest = found
        self.sub_defined = defined
        self._add((bool(defined), values, sequential, highest))

    def _add(self, found: FragmentsValues) -> None:
        """Fragments' :func:`fragments_values`: their values are looked up next."""
        defined, values, sequential, highest = found
        # Each value is looked up once, the first time it is met (a value many copies name
        # was looked up again in every round that met it).
        fresh = set(values)
        fresh -= self.values
        self.values |= fresh
        self.pending |= fresh
        if defined:
            self._seen = True
            self._sequential = self._sequential and sequential
        if highest > self._highest:
            self._highest = highest

    def undefine(self, element_id: str) -> None:
        """The result does not define ``element_id`` after all (a relinked
        ``ParentReference``): values naming it leave the result."""
        self.sub_defined.discard(element_id)
        self._undefined.append(element_id)

    def leaving(self) -> dict[str, int | None]:
        """Each ID-shaped value of the result's pieces that the result does not define (the
        subtree, or a copied component where the source first defines it): what
        :func:`_undefined_values` will find in it, with the offset of its definition in the
        source (None: not in the file).

        The pieces' values are the ones the closure collected (no rescan); a
        ``ParentReference`` repeating a definition is among them too, which
        :func:`_undefined_values` never asks about."""
        if self._outside is not None:
            # Every value outside the subtree's definitions was looked up by the rounds (the
            # set only shrank since): their answers stand, and only what was undefined
            # after them is looked up here.
            out = dict(self._outside)
            values = {v for v in self._undefined if v in self.values}
        else:
            out = {}
            values = self.values.difference(self.sub_defined)
        table = self.table
        spans = self.spans
        taken = self.taken
        for value in values:
            offset = table.offset(value)
            if offset is not None and spans is not None:
                number = spans.at(offset)
                if number is not None and number in taken:
                    continue  # a copy defines it (where the source first does)
            out[value] = offset
        return out

    def done_looking_up(self) -> None:
        """Drop the subtree's IDs and the definition table once every lookup is made (a
        tenth of the peak on a big closure, still alive while the report is written)."""
        self.sub_defined = set()
        self.values = set()
        self._table = None

    def component(self, number: int) -> Component:
        assert self.spans is not None
        return self.spans.component(number)

    def run(self) -> None:
        buf = self.tree.buffer
        taken = self.taken
        while self.pending:
            # In any order: the closure, the copies' order (sorted at the end) and every answer
            # are the same whatever order a round looks its values up in.
            wanted = list(self.pending.difference(self.sub_defined))
            self.pending = set()
            if not wanted or not self.enabled:
                continue
            table = self.table
            spans = self.spans = self.spans or ComponentSpans(self.tree)
            outside = self._outside = {} if self._outside is None else self._outside
            offsets = table.offsets(wanted)
            numbers = spans.numbers_at(offsets)
            # Not defined in the file (None: the world, users), or on a slot: not copied.
            missing = [number is None for number in numbers]
            outside.update(compress(zip(wanted, offsets, strict=True), missing))
            fresh = {number for number in numbers if number is not None}
            fresh -= taken
            taken |= fresh
            # The round's copies read in one pass (a call per copy was most of its cost), in
            # byte order.
            if fresh:
                self._add(fragments_values(buf, spans.spans(sorted(fresh))))
        if taken and self.spans is not None:
            # Component numbers are byte order, which in an unmodified tree is the source's.
            self.on_slots, self.on_assets = self.spans.placed(taken)

    def spans_of(self, sub_span: tuple[int, int]) -> list[tuple[int, int]]:
        """Where the result's pieces lie in the source: the subtree at ``sub_span``, then
        each copied component."""
        if self.spans is None:
            return [sub_span]
        return [sub_span, *self.spans.spans(sorted(self.taken))]

    def pieces(self, sub_bytes: memoryview) -> Iterator[memoryview]:
        """The bytes the result is made of: the subtree, then each copied component."""
        yield sub_bytes
        if self.spans is not None:
            buf = memoryview(self.tree.buffer)
            for number in sorted(self.taken):
                start, end = self.spans.span(number)
                yield buf[start:end]

    def fresh_ids(self, sub_bytes: memoryview, default: bool) -> FreshIds:
        """IDs for the holder slots in the result's style: sequential ones above every
        number in it (nothing can collide), else random ones avoiding every ID in it, drawn
        from a generator seeded by the subtree (same input, same bytes; a hash of the subtree
        only where they are drawn)."""
        if self._sequential and (self._seen or default):
            fresh = FreshIds((), True)
            fresh.next = self._highest + 1
            return fresh
        rng = random.Random(hashlib.sha256(sub_bytes).digest())
        taken: set[str] = set()
        for piece in self.pieces(sub_bytes):
            defined, values = ids_in_bytes(bytes(piece))
            taken |= defined
            taken.update(values)
        return FreshIds(taken, False, rng)


# -- new slots ------------------------------------------------------------------------------
def _holder(template: Slot, deps: _Closure, ids: FreshIds, types: TypePlan) -> tuple[Slot, int]:
    """``Extracted Dependencies`` with one child per source slot, in the source's order, and
    how many slots it is (itself and its children).

    Written as bytes (each copied component's bytes as they lie in the source), not nodes: it
    is a document nothing edits afterwards."""
    spans = deps.spans
    assert spans is not None
    # The copies come grouped by slot (see _Closure.run), each slot's in one run: counted in
    # order of first appearance, which is the runs' order.
    per_slot = Counter(spans.slots_of(deps.on_slots))
    slots = list(per_slot)
    counts = list(per_slot.values())
    layout = SlotLayout(template)
    # Every slot's IDs in one go, in the order one draw per slot gives them.
    count = layout.id_count
    drawn = ids.take(count * (1 + len(slots)))
    view = memoryview(deps.tree.buffer)
    # Each copy's Type index rewritten in its own bytes (a copy of the others' is never made).
    spanned = spans.spans(deps.on_slots)
    pieces: list[bytes | memoryview] = (
        [types.apply(view[start:end]) for start, end in spanned]
        if types.remap
        else [view[start:end] for start, end in spanned]
    )
    names = spans.slot_names(slots)
    # The holder written whole, its children in place: a node per child (tens of thousands
    # on a big closure) was most of what assembling the result cost.
    data = layout.holder(HOLDER_NAME, drawn, names, counts, pieces)
    if data is None:
        named = []
        first = 0
        for slot_name, held in zip(names, counts, strict=True):
            named.append((slot_name, pieces[first : first + held]))
            first += held
        kids = layout.slots(named, drawn[count:])
        if "Children" in layout.keys:
            data = layout.slot(HOLDER_NAME, drawn[:count], [], kids)
        else:
            data = layout.slot(HOLDER_NAME, drawn[:count], [])
            holder = Slot(data, 0, len(data))
            holder.set("Children", [Slot(kid, 0, len(kid)) for kid in kids])
            return holder, 1 + len(slots)
    return Slot(data, 0, len(data)), 1 + len(slots)


# -- edits on the staged tree ---------------------------------------------------------------
def _null_at(location: Location) -> None:
    """Set the value at a location to null, leaving everything around it untouched (a value
    that is not there any more needs nothing)."""
    with contextlib.suppress(ModelError):
        location.set_value(None)


__all__ = [
    "EXTERNAL_POLICIES",
    "HOLDER_NAME",
    "PHASES",
    "CopiedComponent",
    "ExternalReference",
    "ExtractReport",
    "ExtractResult",
    "extract",
]
