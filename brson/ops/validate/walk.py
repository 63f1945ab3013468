"""The one walk over a tree that feeds every rule family.

Each slot's own keys and each component are decoded once (pymongo: which also proves the BSON
well-formed), and every family sees the same decoded values.  Nothing here is recursive, so a
tree thousands of slots deep walks like a flat one.  An unmodified slot in the engine's layout
is decoded in one pymongo call, without ``Children`` (:func:`_decoded_slot`); anything
irregular takes the model's path (:func:`_slot_by_nodes`), so the findings and their messages
are the model's in every case.
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import Any

from bson.errors import BSONError

from brson.collector import paused_gc
from brson.document.bsondoc import decode_bytes, holds_dbref_mark
from brson.errors import BrsonError
from brson.model import elements
from brson.model.slot import Slot, memoize_path
from brson.model.tree import DataTree
from brson.ops.validate import slotpass
from brson.ops.validate.container import report_error
from brson.ops.validate.context import ComponentInfo, Context, Family, SlotInfo
from brson.ops.validate.document import DocumentRules, assets_of, children_of, components_of
from brson.ops.validate.findings import Findings
from brson.ops.validate.generations import GenerationRules
from brson.ops.validate.protoflux import ProtoFluxRules
from brson.ops.validate.references import ReferenceRules
from brson.ops.validate.transforms import TransformRules
from brson.ops.validate.typetable import TypeRules

FAMILIES: tuple[type[Family], ...] = (
    DocumentRules,
    TypeRules,
    ReferenceRules,
    TransformRules,
    GenerationRules,
    ProtoFluxRules,
)

#: Slot keys the walk descends into rather than decoding as values.
_STRUCTURE = ("Children", "Components")
#: A BSON document's length prefix.
_LENGTH = struct.Struct("<i")
#: The slot's name member (the first the slot pass reads) and its element's head.
_NAME = slotpass.MEMBERS[0][0].decode("ascii")
_NAME_HEAD = b"\x03" + slotpass.MEMBERS[0][0] + b"\x00"

Hooks = list[Callable[..., None]]


def _hooks(families: list[Family], name: str) -> Hooks:
    """The bound hooks the families actually override (no calls to no-ops per element)."""
    base = getattr(Family, name)
    return [getattr(f, name) for f in families if getattr(type(f), name) is not base]


def check_tree(tree: DataTree, findings: Findings) -> None:
    """Run every rule on a tree, adding to ``findings``.  A part of the document that turns
    out unreadable while walking (malformed BSON deep inside) ends the walk with its finding."""
    # Many short-lived decoded values, no cycles: the collector only costs here.  What the
    # families kept is let go inside (by reference counts) too: the collection that follows
    # would otherwise go over all of it once, as young objects (a tenth of validate's time).
    with paused_gc():
        _check_tree(tree, findings)


def _check_tree(tree: DataTree, findings: Findings) -> None:
    families = [cls() for cls in FAMILIES]
    try:
        ctx = Context(tree, findings)
        for hook in _hooks(families, "root"):
            hook(ctx)
        slot_hooks = _hooks(families, "slot")
        component_hooks = _hooks(families, "component")
        if tree.child_node("Object", Slot) is not None and not _walk_rows(ctx, families):
            _walk(ctx, tree.root, slot_hooks, component_hooks)
        for component in assets_of(ctx):
            info = ComponentInfo(ctx, component.decoded(), None)
            for hook in component_hooks:
                hook(ctx, info)
        for hook in _hooks(families, "finish"):
            hook(ctx)
    except BrsonError as exc:
        report_error(findings, exc)


def _walk(ctx: Context, root: Slot, slot_hooks: Hooks, component_hooks: Hooks) -> None:
    fast = not ctx.tree.modified
    # Keys are whole in a slot's elements: none is $ref when the tree's bytes hold no mark.
    unmarked = fast and not holds_dbref_mark(ctx.tree.buffer)
    stack = [root]
    while stack:
        slot = stack.pop()
        decoded = _decoded_slot(slot, unmarked) if fast else None
        if decoded is None:
            _slot_by_nodes(ctx, slot, slot_hooks, component_hooks)
        else:
            _slot_hooks(ctx, slot, decoded, slot_hooks, component_hooks)
        stack.extend(reversed(children_of(ctx, slot)))


def _slot_hooks(
    ctx: Context,
    slot: Slot,
    decoded: tuple[dict[str, Any], list[dict[str, Any]]],
    slot_hooks: Hooks,
    component_hooks: Hooks,
) -> None:
    """Every family on a slot decoded in one call, then on its components."""
    fields, components = decoded
    info = SlotInfo(slot, fields)
    for hook in slot_hooks:
        hook(ctx, info)
    infos = [ComponentInfo(ctx, doc, slot) for doc in components]
    ComponentInfo.scan_all(infos)
    for component_info in infos:
        for hook in component_hooks:
            hook(ctx, component_info)


def _walk_rows(ctx: Context, families: list[Family]) -> bool:
    """The walk over the compiled slot pass's verdicts (:mod:`~brson.ops.validate.slotpass`):
    only the slots it is unsure of are decoded and handed to every family; the others give
    the families what they keep (types used, ProtoFlux components, referenced slot IDs and
    links, integer widths) and, where a transform needs it, their transform members to the
    transform rule.  False when the pass does not apply (the walk reads every slot then):
    an edited or NeosVR tree, a malformed Types table, IDs that repeat, a ``$ref`` key.

    Python runs per slot only where a slot rule has something to do; the ProtoFlux
    components (most of a real world's slots are nodes) go to the graph model in runs, each
    in the order the walk meets its slot, with its slot's row: a slot is made only for a
    finding."""
    tree = ctx.tree
    census = ctx.census
    if tree.modified or ctx.legacy or not ctx.types_ok or census is None:
        return False
    if holds_dbref_mark(tree.buffer):
        return False
    by_type = {type(f): f for f in families}
    flux = by_type[ProtoFluxRules]
    assert isinstance(flux, ProtoFluxRules)
    found = slotpass.verdicts(tree, len(ctx.type_names), flux.indices, census.defined_values)
    if found is None:
        return False
    types, references, generations, transforms = (
        by_type[TypeRules],
        by_type[ReferenceRules],
        by_type[GenerationRules],
        by_type[TransformRules],
    )
    assert isinstance(types, TypeRules) and isinstance(references, ReferenceRules)
    assert isinstance(generations, GenerationRules) and isinstance(transforms, TransformRules)
    types.used_indices.update(i for i, used in enumerate(found.used) if used)
    slot_hooks = _hooks(families, "slot")
    component_hooks = _hooks(families, "component")
    rows = slotpass.SlotRows(tree, found.slots)
    verdicts = found.verdicts
    refs = {row: (slot_id, link) for row, slot_id, link in found.refs}
    widths = dict(found.widths)
    moved = found.transforms
    members_of: dict[int, list[int]] = {}
    for at in range(0, len(moved), 3):
        members_of.setdefault(moved[at + 2], []).append(at)
    starts = found.slots[0::3]
    handed = _FluxRuns(tree, found.flux, starts)
    if found.flux:
        handed.add = flux.rows_adder(ctx, rows.slot)
        handed.mask = flux.node_mask(ctx)
        handed.referenced = census.defined_values
    special = {row for row, verdict in enumerate(verdicts) if verdict}
    special.update(refs, widths)
    buf = tree.buffer
    for row in sorted(special, key=starts.__getitem__):
        verdict = verdicts[row]
        count = widths.get(row)
        if count is not None and not generations.counted(count):
            verdict = slotpass.UNSURE  # the first place of its width finding: read in full
        if verdict == slotpass.UNSURE:
            # The components before it go first; its own the families take from it decoded.
            handed.skip(starts[row])
            slot = rows.slot(row)
            decoded = _decoded_slot(slot, True)
            if decoded is None:
                _slot_by_nodes(ctx, slot, slot_hooks, component_hooks)
            else:
                _slot_hooks(ctx, slot, decoded, slot_hooks, component_hooks)
            children_of(ctx, slot)  # its findings only: the pass walked the children
            continue
        if verdict == slotpass.TRANSFORM:
            listed = [(moved[at], moved[at + 1]) for at in members_of.get(row, ())]
            slot = rows.slot(row)
            fields = transform_members(buf, listed)
            _memoize_name(slot, buf, listed, fields)
            transforms.slot(ctx, SlotInfo(slot, fields))
        held = refs.get(row)
        if held is not None:
            references.keep(rows.slot(row), *held)
    handed.until(None)
    return True


class _FluxRuns:
    """The ProtoFlux components the slot pass lists (``spans``: (start, end, row) triples),
    handed to the graph model's builder (``add``: :meth:`~brson.flux.model.Builder.add_nodes`)
    in the order of their slots' starts (``starts``, by row), a run at a time: each node read
    from its bytes (:func:`~brson.ops.validate.slotpass.node_reads`), the others decoded.
    ``add``, ``mask`` and ``referenced`` are set when there are any."""

    def __init__(self, tree: DataTree, spans: array[int], starts: array[int]) -> None:
        self.tree = tree
        self.spans = spans
        self.add: Callable[[list[int], list[Any], Callable[[int], dict[str, Any]]], None]
        #: A byte per Types index: whether its components are nodes; the IDs referenced.
        self.mask = b""
        self.referenced: set[str] = set()
        # Stable: a slot's components stay in the order the pass lists them.
        firsts = [starts[spans[at + 2]] for at in range(0, len(spans), 3)]
        order = sorted(range(len(firsts)), key=firsts.__getitem__)
        #: Offsets in ``spans`` in the order handed; their slots' starts (int64s: a tree can
        #: hold a million of them).
        self.ats = array("q", [3 * number for number in order])
        self.firsts = array("q", [firsts[number] for number in order])
        self.done = 0

    def until(self, start: int | None) -> None:
        """Hand on every component whose slot starts before ``start`` (None: all)."""
        stop = len(self.ats) if start is None else bisect_left(self.firsts, start, self.done)
        spans, buf = self.spans, self.tree.buffer
        for first in range(self.done, stop, slotpass.RUN):
            ats = self.ats[first : min(first + slotpass.RUN, stop)].tolist()
            reads = slotpass.node_reads(self.tree, spans, ats, self.mask, self.referenced)

            def decoded(number: int, ats: list[int] = ats) -> dict[str, Any]:
                at = ats[number]
                return decode_bytes(buf[spans[at] : spans[at + 1]], unmarked=True)

            self.add([spans[at + 2] for at in ats], reads, decoded)
        self.done = stop

    def skip(self, start: int) -> None:
        """Hand on those before the slot starting at ``start``, then pass over its own."""
        self.until(start)
        self.done = bisect_right(self.firsts, start, self.done)


def transform_members(buf: bytes, listed: list[tuple[int, int]]) -> dict[str, Any]:
    """A slot's transform members and its ``Name``, decoded (what the transform rule and the
    path of its findings read of a slot), from their elements' spans as the slot pass lists
    them (documents it checked whole, keys ASCII and distinct): one document of them all."""
    body = b"".join([buf[start:end] for start, end in listed])
    return decode_bytes(_LENGTH.pack(len(body) + 5) + body + b"\x00")


def _memoize_name(
    slot: Slot, buf: bytes, listed: list[tuple[int, int]], fields: dict[str, Any]
) -> None:
    """The slot's path memoized from its ``Name`` among ``listed`` (decoded in ``fields``),
    where the model reads the name as decoded (:func:`_decoded_slot` does the same)."""
    for start, end in listed:
        if buf.startswith(_NAME_HEAD, start):
            if elements.member_data(buf, start + len(_NAME_HEAD), end) is not None:
                memoize_path(slot, fields[_NAME]["Data"])
            return


def _slot_by_nodes(ctx: Context, slot: Slot, slot_hooks: Hooks, component_hooks: Hooks) -> None:
    """A slot read through the model: each key, then each component as a node."""
    fields: dict[str, Any] = {key: slot.get(key) for key in slot if key not in _STRUCTURE}
    info = SlotInfo(slot, fields)
    for hook in slot_hooks:
        hook(ctx, info)
    for component in components_of(ctx, slot):
        component_info = ComponentInfo(ctx, component.decoded(), slot)
        for hook in component_hooks:
            hook(ctx, component_info)


def _decoded_slot(
    slot: Slot, unmarked: bool = False
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """``(the slot's own keys decoded, its components decoded)`` in one pymongo call, or None
    when the slot is not in the shape whose reading through the model cannot differ: an
    unmodified slot whose ``Components`` is a member in the engine's layout holding an array
    of documents, and whose bytes (``Children`` left out) pymongo decodes."""
    buf = slot.buffer
    members = slot.element("Components")  # the model's own checks of the slot, as before
    if members is None or members[0] != elements.DOCUMENT:
        return None
    if elements.member_data(buf, members[2], members[3]) is None:
        return None  # the model indexes such a member (and refuses duplicate keys): its path
    data = elements.without_children(slot)
    try:
        fields = decode_bytes(data, unmarked=unmarked)
    except (BSONError, ValueError, OverflowError, RecursionError):
        return None  # the model's path reports it, with its message
    components = fields.pop("Components")["Data"]
    if type(components) is not list or not all(type(c) is dict for c in components):
        return None
    name = slot.element("Name")
    if name is None or name[0] != elements.DOCUMENT:
        memoize_path(slot, None)  # the model reads no name there either
    elif elements.member_data(buf, name[2], name[3]) is not None:  # read as the model reads it
        memoize_path(slot, fields["Name"]["Data"])
    return fields, components
