"""Each slot's glTF node, as its compact JSON text, read from the slot's bytes where it can be.

Why: a slot's node is its name, its transform in glTF's frame and its extras (its ID and its
components' type labels).  Read through a slot view each (a node per slot with its key index,
its children made to reach the next) and built as a dict each, those were most of an export
of a world of many small slots.  Here an unedited tree's slots are the rows of the compiled
slot walk (:class:`~brson.model.spans.SlotTable`), each read in one compiled call
(:func:`~brson.model.slothead.head_at`), and each node is written as its text at once
(:func:`~brson.gltf.nodes.node_text`).  A slot view is made only for a row those readers are
not sure of and for the slots a renderer may draw; an edited tree, or no compiled code, walks
the slot views themselves, through the same code.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from json.encoder import encode_basestring_ascii
from struct import Struct
from typing import Any

from brson.errors import BrsonError, ModelError
from brson.gltf import frame
from brson.gltf.nodes import compact, floats_text, node_text, value_text
from brson.model import DataTree
from brson.model.slothead import SlotHead, head_vectors
from brson.model.spans import RowEntry

_ENGINE = "FrooxEngine."
RENDERERS = {"MeshRenderer", "SkinnedMeshRenderer"}
_ORIGIN = [0.0, 0.0, 0.0]
_UNIT = [1.0, 1.0, 1.0]


class Entry(RowEntry):
    """A slot on the walk's stack: its row of the slot table (-1: none; its slot is given),
    how to make its slot view when one is needed (its parent's entry and its place among the
    parent's children) and the number of the node its node is a child of (-1: a root)."""

    __slots__ = ("parent_node", "row")
    parent: Entry | None

    def __init__(self, row: int, parent: Entry | None, index: int, parent_node: int) -> None:
        RowEntry.__init__(self, parent, index)
        self.row, self.parent_node = row, parent_node


class TypeTable:
    """Per ``Types`` index of the tree: the short name (``Component.type_label``) and whether
    it is a renderer, so that slots read from their bytes need no Component objects."""

    def __init__(self, tree: DataTree) -> None:
        self._tree = tree
        self._types: list[Any] | None = None
        self._labels: tuple[str, ...] = ()
        #: Each label's JSON text.
        self._texts: tuple[str, ...] = ()
        self._renderers: frozenset[int] = frozenset()
        #: :meth:`read`'s answers by the components' type indices: a world repeats a few
        #: sets of components over its slots (at most :data:`MEMO_LIMIT` kept).
        self._seen: dict[tuple[int, ...], tuple[str | None, bool]] = {}

    def _load(self) -> bool:
        try:
            types = self._tree.types
        except BrsonError:
            return False  # the components' own reads say what is wrong
        if types is not self._types or len(types) != len(self._labels):
            self._labels = tuple(t.name for t in types)
            self._texts = tuple(map(encode_basestring_ascii, self._labels))
            self._renderers = frozenset(
                i for i, t in enumerate(types) if t.full_name.removeprefix(_ENGINE) in RENDERERS
            )
            self._types = types
            self._seen = {}
        return True

    def read(self, indices: tuple[int, ...] | None) -> tuple[str | None, bool]:
        """The JSON text of the components' ``type_label``s (None when an index is not in the
        table: read them) and whether one may be a renderer (False only when every type is
        known and none is)."""
        if indices is None or not self._load():
            return None, indices != ()  # a slot without components renders nothing
        found = self._seen.get(indices)
        if found is not None:
            return found
        count = len(self._labels)
        if not all(0 <= i < count for i in indices):
            return None, True
        texts, renderers = self._texts, self._renderers
        found = (
            "[" + ",".join([texts[i] for i in indices]) + "]",
            any(i in renderers for i in indices),
        )
        if len(self._seen) < MEMO_LIMIT:
            self._seen[indices] = found
        return found


def _finite(values: Sequence[float], what: str, entry: Entry) -> None:
    if not all(map(math.isfinite, values)):
        raise ModelError(f"{what} {list(values)} is not finite", path=entry.view().path)


def _or(value: Sequence[float] | None, default: Sequence[float]) -> Sequence[float]:
    return default if value is None else value


def _translation(position: Sequence[float]) -> str:
    t = frame.translation(position)
    return "" if t == _ORIGIN else ',"translation":' + floats_text(t)


def _rotation(rotation: Sequence[float]) -> str:
    r = frame.rotation(rotation)
    if r == [0.0, 0.0, 0.0, 1.0]:  # -0.0 == 0.0: the reflected identity too
        return ""
    return ',"rotation":' + floats_text(r)


def _scale(scale: Sequence[float]) -> str:
    s = list(scale)
    return "" if s == _UNIT else ',"scale":' + floats_text(s)


#: Entries each memo of :class:`NodeWriter` keeps at most (~150 bytes each).
MEMO_LIMIT = 4096
_PACK3, _PACK4 = Struct("<3d").pack, Struct("<4d").pack


def _member(
    memo: dict[bytes, str],
    pack: Callable[..., bytes],
    values: Sequence[float],
    what: str,
    make: Callable[[Sequence[float]], str],
    entry: Entry,
) -> str:
    """One transform member's text, from ``memo`` by its numbers' bits (``pack``), else made
    (``make``) after its numbers are checked finite, and kept while the memo has room."""
    key = pack(*values)
    text = memo.get(key)
    if text is None:
        _finite(values, what, entry)
        text = make(values)
        if len(memo) < MEMO_LIMIT:
            memo[key] = text
    return text


class NodeWriter:
    """Each slot's node text (:func:`node_text`), its transform members' text remembered by
    the exact bits of the numbers they come from (slots repeat positions, rotations and
    scales: copies of one object, objects on a grid, the identity; formatting a float, and
    the rotation's normalising, cost more than looking its bits up)."""

    __slots__ = ("_rotations", "_scales", "_translations")

    def __init__(self) -> None:
        self._translations: dict[bytes, str] = {}
        self._rotations: dict[bytes, str] = {}
        self._scales: dict[bytes, str] = {}

    def _transform(
        self,
        entry: Entry,
        position: Sequence[float],
        rotation: Sequence[float],
        scale: Sequence[float],
    ) -> str:
        """The transform members' text; a ModelError naming the slot for a number that is not
        finite (Position's first, as they are read)."""
        member = _member
        return (
            member(self._translations, _PACK3, position, "Position", _translation, entry)
            + member(self._rotations, _PACK4, rotation, "Rotation", _rotation, entry)
            + member(self._scales, _PACK3, scale, "Scale", _scale, entry)
        )

    def node(
        self,
        entry: Entry,
        head: SlotHead | None,
        labels: str | None,
        hidden: bool,
        placed: bool,
    ) -> tuple[bytes, str]:
        """The entry's node text and name: ``head`` what the compiled reader read of its slot
        (None: read the slot view), ``labels`` its components' labels' JSON text when known,
        ``placed`` False to leave its transform out (a host places it)."""
        vectors = head_vectors(head) if head is not None else None
        if vectors is None:
            slot = entry.view()
            slot.local_matrix()  # raises a ModelError naming the slot for malformed transforms
            position = [float(v) for v in _or(slot.position, _ORIGIN)]
            rotation = [float(v) for v in _or(slot.rotation, (0.0, 0.0, 0.0, 1.0))]
            scale = [float(v) for v in _or(slot.scale, _UNIT)]
        else:
            position, rotation, scale = vectors  # a head's lists hold floats only
        name = head[1] if head is not None else entry.view().name
        if not isinstance(name, str):
            name = ""
        members = self._transform(entry, position, rotation, scale)
        element_id = head[0] if head is not None else entry.view().id
        if labels is None:
            labels = compact([c.type_label for c in entry.view().components]).decode("ascii")
        extras = '{"resonite_id":' + value_text(element_id)
        extras += ',"resonite_components":' + labels + "}"
        return node_text(name, members if placed else "", extras, hidden), name
