"""A slot's own members read in one compiled call, for exporters that visit every slot.

Why: an exporter asks each slot for its ID, name, tag, active flag and transform (seven
property reads, each locating its member in the slot's bytes) and for its components' types
(a Component object each); over a world those were the largest cost of building a scene.
``_tscnc.head`` (brson/_speedups/_tscnc.c, beside the TSCN writer whose BSON element reader it
shares) reads them from the slot's bytes as the properties do, and answers None for anything
it is not sure of; the properties are its reference and what runs without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brson._speedups import load
from brson.model.slot import Slot

if TYPE_CHECKING:
    from brson._speedups import _tscnc
else:
    _tscnc = load("_tscnc")

#: Whether the compiled reader is there (without it every head is None).
ACCELERATED: bool = _tscnc is not None

#: ``(slot.id, slot.name, slot.tag, slot.active, slot.position, slot.rotation, slot.scale,
#: the components' type_index)``; the last None when the components are not in the engine's
#: layout (read them).
SlotHead = tuple[Any, Any, Any, Any, Any, Any, Any, tuple[int, ...] | None]

#: What ``Slot.local_matrix`` takes for a missing Position, Rotation, Scale.
IDENTITY = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), (1.0, 1.0, 1.0))


def slot_head(slot: Slot) -> SlotHead | None:
    """The slot's :data:`SlotHead`, or None (edited, no compiled reader, or a layout it is not
    sure of: read the properties)."""
    buf = slot.buffer
    if _tscnc is None or slot.modified or not buf:
        return None
    start, end = slot.span
    return _tscnc.head(buf, start, end)


def head_at(buf: bytes, start: int, end: int) -> SlotHead | None:
    """The :data:`SlotHead` of the unedited slot document at ``[start, end)`` of ``buf``, or
    None (no compiled reader, or a layout it is not sure of: read the slot's properties)."""
    return _tscnc.head(buf, start, end) if _tscnc is not None else None


def head_vectors(head: SlotHead) -> tuple[Any, Any, Any] | None:
    """Position, rotation and scale as ``Slot.local_matrix`` takes them (a missing one the
    identity's), or None when one is not a list of the right length (local_matrix then says
    what is wrong).  The head's lists hold floats only."""
    vectors = []
    for value, default in zip(head[4:7], IDENTITY, strict=True):
        if value is None:
            value = default
        elif len(value) != len(default):
            return None
        vectors.append(value)
    return vectors[0], vectors[1], vectors[2]
