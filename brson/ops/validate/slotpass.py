"""The slot rules' verdict on every slot of an unmodified tree, read from its bytes.

Almost every slot of a real file is one on which no slot or component rule finds anything,
and decoding each slot for the rules' hooks was most of ``validate``; so one compiled pass
over the slot table (``brson/_speedups/_fieldsc.c``: ``slots``) says which: CLEAN (nothing to
report), TRANSFORM (only the transform rule runs, on its three decoded members) or UNSURE
(decoded, every rule runs).  The pass answers UNSURE for anything it does not read exactly as
pymongo and the rules would, so the rules stay the one source of every finding; for the other
slots it hands back what the families keep for their whole-tree checks (type indices used,
ProtoFlux components, slot IDs and parent links some reference names).

:func:`verdicts_py` is its Python reference (``tests/ops/test_fieldsc.py`` holds the compiled
pass to it).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brson._speedups import load
from brson.flux.model import NodeRead
from brson.model.ids.forms import DEFINING_KEY_SUFFIX, ID_KEY
from brson.model.slot import SLOT_MEMBERS, Slot
from brson.model.spans import slot_walk
from brson.model.transform import TRANSFORM_FIELDS
from brson.model.tree import DataTree
from brson.ops.validate.context import GUID_FORM

if TYPE_CHECKING:
    from brson._speedups import _fieldsc
else:
    _fieldsc = load("_fieldsc")

#: What a slot member's ``Data`` must be for the pass to call it clean (``_fieldsc.c``'s
#: MEMBER_*): the slot rules' own demands (document.py's ``_SLOT_VALUE``, transforms.py), with
#: ``OrderOffset`` at Resonite's int64 width (generations.py).
ANY, TEXT, BOOL, INT64, VECTOR, SCALE, QUATERNION = range(7)
_KINDS = {"Name": TEXT, "Tag": TEXT, "Active": BOOL, "OrderOffset": INT64}
_TRANSFORMS = {"Position": VECTOR, "Rotation": QUATERNION, "Scale": SCALE}
assert {key for key, _ in TRANSFORM_FIELDS} == set(_TRANSFORMS)
#: ``Name`` first: the pass counts a slot without it as UNSURE (a finding).
MEMBERS = tuple(
    (key.encode("ascii"), _KINDS.get(key, _TRANSFORMS.get(key, ANY)))
    for key in sorted(SLOT_MEMBERS, key=lambda key: key != "Name")
)
#: The other keys the rules read (the order ``_fieldsc.c`` expects).
NAMES = tuple(
    name.encode("ascii")
    for name in (
        ID_KEY,
        "ParentReference",
        "Persistent-ID",
        "Components",
        "Children",
        "Data",
        "Type",
        "UpdateOrder",
        DEFINING_KEY_SUFFIX,
    )
)

#: The keys ``_fieldsc.nodes`` reads of a component (the order it expects).
NODE_NAMES = (ID_KEY.encode("ascii"), b"Data", b"Type")

CLEAN, TRANSFORM, UNSURE = 0, 1, 2


@dataclass
class SlotVerdicts:
    """One pass's answers over the slots of a tree's ``Object``."""

    #: (start, end, parent row) triples of the slot walk, row 0 the root.
    slots: array[int]
    #: A verdict per row.
    verdicts: bytes
    #: A byte per type index: whether a slot not UNSURE has a component of it.
    used: bytes
    #: (start, end, row) of the ProtoFlux components of slots not UNSURE, in row order.
    flux: array[int]
    #: (row, slot ID or None, ParentReference or None) where some reference names either.
    refs: list[tuple[int, str | None, str | None]]
    #: (row, how many) of the slots not UNSURE with int64 component Types or UpdateOrders.
    widths: list[tuple[int, int]]
    #: (start, end, row) of the transform members' and the ``Name`` member's elements of the
    #: TRANSFORM slots, in each slot's order.
    transforms: array[int]


def verdicts(
    tree: DataTree, ntypes: int, flux: set[int], referenced: set[str]
) -> SlotVerdicts | None:
    """The compiled pass over ``tree``'s slots, or None without it (or where the slot walk is
    unsure): the walk then reads every slot as before."""
    if _fieldsc is None:
        return None
    obj = tree.element_index().get("Object")
    walked = slot_walk(tree.buffer, obj) if obj is not None else None
    if walked is None:
        return None
    slots = walked[1]
    mask = bytes(1 if index in flux else 0 for index in range(ntypes))
    found = _fieldsc.slots(
        tree.buffer,
        slots.tobytes(),
        *GUID_FORM,
        MEMBERS,
        NAMES,
        ntypes,
        mask,
        referenced,
    )
    listed, moved = array("q"), array("q")
    listed.frombytes(found[2])
    moved.frombytes(found[5])
    return SlotVerdicts(slots, found[0], found[1], listed, found[3], found[4], moved)


#: How many ProtoFlux components are read from their bytes at a time: what is read and not
#: yet handed on stays this many, not the tree's.
RUN = 256


def node_reads(
    tree: DataTree, spans: array[int], ats: list[int], mask: bytes, referenced: set[str]
) -> list[NodeRead | None]:
    """What the ProtoFlux rules keep of each component at the offsets ``ats`` of ``spans``
    (the pass's ``flux`` list) when it is a node (``mask``: a byte per Types index), read
    from its bytes (:func:`brson.flux.model.connectable` of its ``Data``), or None: it is
    decoded (every one without C)."""
    if _fieldsc is None:
        return [None] * len(ats)
    listed = array("q")
    for at in ats:
        listed.extend(spans[at : at + 3])
    return _fieldsc.nodes(tree.buffer, listed.tobytes(), *GUID_FORM, NODE_NAMES, mask, referenced)


class SlotRows:
    """Slot nodes for the rows of a slot walk, made when asked for, each once (the families
    compare slots by identity: a parent is the same node as its child's ``parent``)."""

    def __init__(self, tree: DataTree, slots: array[int]) -> None:
        self._tree = tree
        self._slots = slots
        self._made: dict[int, Slot] = {0: tree.root}

    def slot(self, row: int) -> Slot:
        made = self._made
        node = made.get(row)
        if node is not None:
            return node
        chain = []
        while node is None:
            chain.append(row)
            row = self._slots[3 * row + 2]
            node = made.get(row)
        tree, buf, slots = self._tree, self._tree.buffer, self._slots
        for number in reversed(chain):
            # as Slot(buf, start, end, node) with its tree and parent set (no table row)
            made[number] = node = Slot.walked_child(
                buf, slots[3 * number], slots[3 * number + 1], node, tree, -1
            )
        return node
