"""A slot: ``ID``, its member fields (``Name``, ``Position``…), ``Components`` and
``Children`` (identity of what it hands out: :mod:`brson.model.overlay`)."""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from brson.collector import deferred_full_collections
from brson.document import raw
from brson.errors import PATH_LIMIT, ModelError
from brson.model import transform
from brson.model.component import Component
from brson.model.member import Member, holds_documents
from brson.model.node import _MISSING, _NO_VALS, Node

if TYPE_CHECKING:
    from brson.model.documents import SlotDoc
    from brson.model.edit import Removal
    from brson.model.spans import SlotTable
    from brson.model.tree import DataTree


#: Slot keys that hold a Member (``{ID, Data}``), with the Python attribute that exposes them.
SLOT_MEMBERS = {
    "Name": "name",
    "Tag": "tag",
    "Active": "active",
    "Position": "position",
    "Rotation": "rotation",
    "Scale": "scale",
    "OrderOffset": "order_offset",
}


def _member_accessors(key: str) -> tuple[Callable[[Slot], Any], Callable[[Slot, Any], None]]:
    """What :func:`_member_property` makes a property of (the name's reads the table first)."""

    def fget(self: Slot) -> Any:
        if key not in self._vals and self._keys is None:
            # Unedited: the member's Data read where the engine's layout puts it, as
            # Member.value reads it (a scalar, or an array of numbers: float3, floatQ), without
            # making the Member view and its index: export-godot asks five a slot.
            elem = self._element(key)
            if elem is None:
                return None
            if elem[0] == raw.DOCUMENT:
                buf = self._buf
                data = raw.member_data(buf, elem[2], elem[3])
                if data is not None:
                    if data[0] != raw.ARRAY:
                        return raw.scalar(buf, data)
                    if not holds_documents(buf, data):
                        return raw.value(buf, data)
        member = self.member(key)
        return member.value if member is not None else None

    def fset(self: Slot, value: Any) -> None:
        member = self.member(key)
        if member is None:
            raise ModelError(f"slot has no {key} member", path=self.path)
        if isinstance(value, tuple | list) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value
        ):
            # float3/floatQ are doubles in the file: ``[1, 2, 3]`` would otherwise be written
            # as int32s, which the engine does not read as a vector.
            value = [float(v) for v in value]
        member.value = value

    return fget, fset


def _member_property(key: str, doc: str) -> property:
    return property(*_member_accessors(key), doc=doc)


_read_name, _write_name = _member_accessors("Name")


def _name(self: Slot) -> Any:
    """The slot's name (Name member)."""
    row = self._row
    if row >= 0 and self._vals is _NO_VALS:
        # Unedited, in its tree's table: the name the compiled walk decoded, where it did.
        tree = self._tree
        table = tree.slot_table if tree is not None else None
        if table is not None:
            name = table.names[row]
            if name is not None:
                return name
    return _read_name(self)


#: What a transform member's numbers are in every real file (:meth:`Slot._vector`).
_FLOATS = frozenset((float,))

#: Paths longer than this are not memoized (memory would grow with depth squared).
PATH_MEMO_LIMIT = 4096


class _Shape:
    """A slot key layout (:data:`raw.Layout`) with where each key sits in it."""

    __slots__ = ("layout", "where")

    def __init__(self, layout: raw.Layout) -> None:
        self.layout = layout
        #: key -> (position, element type, header size)
        self.where = {key: (i, etype, len(head)) for i, (head, key, etype) in enumerate(layout)}


#: Size of an empty BSON array's document (length and terminator).
_EMPTY_ARRAY = 5

#: The heads of a slot's first three elements in the engine's layout (:meth:`Slot._name_at`).
_ID_HEAD = b"\x02ID\x00"
_COMPONENTS_HEAD = b"\x03Components\x00"
_NAME_HEAD = b"\x03Name\x00"

#: Native unsigned 64-bit offsets, as ``array("Q")`` writes them (``Slot._ends``).
_ONE_END = struct.Struct("=Q")
_TWO_ENDS = struct.Struct("=2Q")
#: A BSON length (:meth:`Slot._name_at` reads three in a row).
_INT32 = struct.Struct("<i")
#: A node's allocation without its constructor (:meth:`Slot.walked_child`).
_new_node = object.__new__


class Slot(Node):
    """A slot: ``ID``, member fields, ``Components`` (a member holding a list) and ``Children``."""

    __slots__ = (
        "_comps",
        "_ends",
        "_kids",
        "_listing",
        "_row",
        "_shape",
        "parent",
        "path_memo",
    )

    #: The key layout of the last slot indexed; engine-written slots all share one.
    _last_shape: ClassVar[_Shape] = _Shape(())

    def __init__(self, buf: bytes, start: int, end: int, owner: Node | None = None) -> None:
        Node.__init__(self, buf, start, end, owner)  # (see Component.__init__)
        self.parent: Slot | None = None
        #: (tree generation, path) as last computed: paths are asked for per reference, and
        #: each costs the depth; a memo valid until the next edit makes that once per slot.
        self.path_memo: tuple[int, str] | None = None
        #: A slot in a shared layout keeps its elements' end offsets (one tuple of ints) and
        #: the layout, not an index dict: the dict's tuples, one per key, were counted by the
        #: collector as new objects and doubled its collections over a walk (see _element).
        self._shape: _Shape | None = None
        self._ends: bytes | None = None
        #: The ``Children`` list and ``Components`` member once handed out, kept here while
        #: the slot has no overlay (see :meth:`Node._keep`): an overlay dict per slot is one
        #: more object per slot for the collector on every walk.
        self._kids: list[Any] | None = None
        self._listing: Member | None = None
        #: The components of an unedited slot read straight from its bytes, owned by the
        #: slot until something asks for the ``Components`` member (:meth:`materialize_components`):
        #: a kept member and its list per slot are two more objects per slot for the
        #: collector on every loop over the tree.
        self._comps: list[Component] | None = None
        #: The slot's row in its tree's :class:`SlotTable` (-1: none): its children and
        #: components are made from there while it is unedited, and its document was checked
        #: by the compiled walk.
        self._row = -1

    @classmethod
    def walked_child(
        cls, buf: bytes, start: int, end: int, parent: Slot, tree: DataTree | None, row: int
    ) -> Slot:
        """The child ``buf[start:end]`` of ``parent`` as a walk makes it from its tree's table
        (row ``row``): what ``Slot(buf, start, end, parent)`` makes, linked to its parent and
        tree as :meth:`children_list` links it.  Each attribute is set here, not through the
        constructors (whose shared attribute stores the interpreter cannot specialize): a walk
        makes one node per slot (tests/model/test_walk_table.py checks nothing is unset)."""
        self = _new_node(cls)
        self._buf = buf
        self._start = start
        self._end = end
        self._idx = None
        self._vals = _NO_VALS
        self._keys = None
        self._owner = parent
        self._dirty = False
        self._tree = tree
        self._key = None
        self.parent = parent
        self.path_memo = None
        self._shape = None
        self._ends = None
        self._kids = None
        self._listing = None
        self._comps = None
        self._row = row
        return self

    @property
    def overlay(self) -> Mapping[str, Any]:
        self.materialize_components()
        kids, listing = self._kids, self._listing
        if kids is None and listing is None:
            return self._vals  # the overlay, or the shared empty one
        out: dict[str, Any] = {}
        if kids is not None:
            out["Children"] = kids
        if listing is not None:
            out["Components"] = listing
        return out

    def _kept(self, key: str) -> Any:
        if key == "Children":
            kids = self._kids
            return _MISSING if kids is None else kids
        if key == "Components":
            self.materialize_components()
            listing = self._listing
            return _MISSING if listing is None else listing
        return _MISSING

    def _keep(self, key: str, value: Any) -> None:
        if self._vals is _NO_VALS:
            if key == "Children":
                self._kids = value
                return
            if key == "Components":
                self._listing = value
                return
        self._own_vals()[key] = value

    def _settle(self) -> None:
        if self._kids is not None or self._listing is not None or self._comps is not None:
            self._own_vals()

    def materialize_components(self) -> None:
        """Make the ``Components`` member of components read straight from the bytes
        (:attr:`components`): it holds their list and owns them from now on, as when the
        member was asked for first."""
        comps = self._comps
        if comps is None:
            return
        self._comps = None
        member = Node.child_view(self, "Components", Member)
        assert member is not None  # _scan_components found the same element
        member._key = None  # noqa: SLF001  (held here, below)
        member._tree = self._tree  # noqa: SLF001
        member._items = comps  # noqa: SLF001
        for component in comps:
            component._owner = member  # noqa: SLF001
            component._key = None  # noqa: SLF001
        self._listing = member

    def _scan_components(self) -> list[Component] | None:
        """The components of an unedited slot in the engine layout, owned by the slot
        (:attr:`_comps`); None for anything else (the member path decides)."""
        elem = self._element("Components")
        if elem is None or elem[0] != raw.DOCUMENT:
            return None
        buf = self._buf
        data = raw.member_data(buf, elem[2], elem[3])
        if data is None or data[0] != raw.ARRAY:
            return None
        items: list[Component] = []
        for item in raw.array_items(buf, data[2], data[3]):
            if item[0] != raw.DOCUMENT:
                return None
            component = Component(buf, item[2], item[3], self)
            component._key = "Components"  # noqa: SLF001  (see Component._attach)
            items.append(component)
        self._comps = items
        return items

    def _table_components(self, table: SlotTable, row: int) -> list[Component]:
        """:attr:`components` from the table (``row``: this slot's): the nodes
        :meth:`_scan_components` makes, owned the same way (a new list, as :attr:`components`
        gives)."""
        first = table.comp_first[row]
        if first < 0:
            return []
        buf, starts, ends, types = self._buf, table.comp_starts, table.comp_ends, table.comp_types
        make, tree = Component.on_walked_slot, self._tree
        assert tree is not None  # a slot with a row has the tree of that table
        items = [
            make(buf, starts[at], ends[at], self, tree, types[at])
            for at in range(first, table.comp_stop[row])
        ]
        self._comps = items
        return list(items)

    def _walked_kids(self, table: SlotTable | None) -> list[Slot]:
        """:attr:`children` for :meth:`walk` (not to be changed), from ``table`` (the tree's)
        while this slot has a row there and its children were neither handed out nor
        edited: the same nodes :attr:`children` makes, kept the same way (none kept for a
        leaf, as :attr:`children` keeps none)."""
        row = self._row
        if row >= 0 and table is not None and self._kids is None and self._vals is _NO_VALS:
            row = table.first_kid[row]
            if row < 0:
                return []
            buf, tree, following = self._buf, self._tree, table.next_sibling
            starts, ends = table.slot_starts, table.slot_ends
            items: list[Slot] = []
            make = Slot.walked_child
            while row >= 0:
                items.append(make(buf, starts[row], ends[row], self, tree, row))
                row = following[row]
            self._kids = items
            return items
        kids = self.children
        if (
            table is not None
            and self._row >= 0
            and self._kids is not None
            and self._vals is _NO_VALS
        ):
            # Handed out before the walk, unedited: their rows carry the walk on below them.
            for kid, row in zip(kids, table.kids(self._row), strict=False):
                kid.enter_table(table, row)
        return kids

    def _own_vals(self) -> dict[str, Any]:
        vals = self._vals
        if vals is _NO_VALS:
            self.materialize_components()
            vals = self._vals = {}
            if self._kids is not None:
                vals["Children"] = self._kids
                self._kids = None
            if self._listing is not None:
                vals["Components"] = self._listing
                self._listing = None
        return vals

    def _locate(self, keep: bool = False) -> bytes | None:
        """Find the elements: their ends when the slot has the last layout seen (kept
        compact, as bytes: a tuple was one more object per slot for the collector to count),
        else None with a full index kept in ``_idx``; with ``keep`` (an index is wanted), the
        index found kept in ``_idx`` either way, and None."""
        shape = Slot._last_shape
        idx, layout = raw.index_like(self._buf, self._start, self._end, shape.layout)
        if keep or layout is not shape.layout:
            self._idx = idx
            if layout is not shape.layout:
                Slot._last_shape = _Shape(layout)
            return None
        self._shape = shape
        ends = self._ends = array("Q", [elem[3] for elem in idx.values()]).tobytes()
        return ends

    def _element(self, key: str) -> raw.Element | None:
        if self._idx is None:
            ends = self._ends
            if ends is None:
                if key == "Name" and self._row >= 0:
                    found = self._name_at()
                    if found is not None:
                        return found
                ends = self._locate()
            if ends is not None:
                shape = self._shape
                assert shape is not None
                at = shape.where.get(key)
                if at is None:
                    return None
                i, etype, size = at
                if i:
                    pos, end = _TWO_ENDS.unpack_from(ends, 8 * i - 8)
                else:
                    pos, end = self._start + 4, _ONE_END.unpack_from(ends)[0]
                return (etype, pos, pos + size, end)
        return super()._element(key)

    def _name_at(self) -> raw.Element | None:
        """The ``Name`` element where the engine puts it (after ``ID`` and ``Components``),
        read from three lengths; None elsewhere.  Only for a slot of a :class:`SlotTable`:
        the compiled walk checked its document (lengths, unique keys), so what this finds is
        what an index would, without indexing every slot a walk names."""
        buf, pos = self._buf, self._start + 4
        if buf.startswith(_ID_HEAD, pos):
            pos += 8 + _INT32.unpack_from(buf, pos + 4)[0]
            if buf.startswith(_COMPONENTS_HEAD, pos):
                pos += 12 + _INT32.unpack_from(buf, pos + 12)[0]
                if buf.startswith(_NAME_HEAD, pos):
                    end = pos + 6 + _INT32.unpack_from(buf, pos + 6)[0]
                    return (raw.DOCUMENT, pos, pos + 6, end)
        return None

    def enter_table(self, table: SlotTable, row: int) -> None:
        """Give this slot its row in ``table`` (the tree's, made from the same bytes)."""
        tree = self._tree
        if (
            tree is not None
            and self._buf is tree.buffer
            and table.slot_span(row) == (self._start, self._end)
        ):
            self._row = row

    def _index(self) -> dict[str, raw.Element]:
        idx = self._idx
        if idx is None:
            ends = self._ends
            if ends is None:  # not located: the index the search builds is kept
                self._locate(keep=True)
                return super()._index()
            shape = self._shape
            assert shape is not None
            # Located: rebuilt from the ends (pure Python, 1.3x faster than indexing again).
            idx = {}
            for _, key, _ in shape.layout:
                elem = self._element(key)
                assert elem is not None
                idx[key] = elem
            self._idx = idx
        return idx

    name = property(_name, _write_name, doc="The slot's name (Name member).")
    tag = _member_property("Tag", "The slot's tag, or None.")
    active = _member_property("Active", "Whether the slot is active.")
    position = _member_property("Position", "Local position [x, y, z].")
    rotation = _member_property("Rotation", "Local rotation quaternion [x, y, z, w].")
    scale = _member_property("Scale", "Local scale [x, y, z].")
    order_offset = _member_property("OrderOffset", "Sort key among siblings (int64).")

    @property
    def id(self) -> str | None:
        value = self.get("ID")
        return value if type(value) is str else None  # not JavaScript code (see is_guid)

    @property
    def persistent_id(self) -> str | None:
        value = self.get("Persistent-ID")
        return value if isinstance(value, str) else None

    @property
    def parent_reference(self) -> str | None:
        value = self.get("ParentReference")
        return value if isinstance(value, str) else None

    def member(self, key: str) -> Member | None:
        """The slot member at ``key`` (``Name``, ``Position``, ``Components``…) as a
        :class:`Member` bound to this tree, or ``None`` when the key is absent or holds no
        document.  The properties (``name``, ``position``…) read its value; the Member itself
        gives its ``id`` and lets an edit keep the value's width."""
        if self.etype(key) not in (None, 0x03):
            return None
        # Components is kept, the rest are views (the identity contract: brson.model.overlay).
        if key == "Components":
            member = self.child_node(key, Member)
        else:
            member = self.child_view(key, Member)
        if member is not None:
            member.tree = self._tree
        return member

    @property
    def children(self) -> list[Slot]:
        if self._kids is None and self._vals is _NO_VALS and self._keys is None:
            # An unedited empty Children (a leaf: a third of a big world's slots) keeps no
            # list: this returns a new list anyway, and a kept empty list per leaf is one more
            # object per leaf for the collector on every walk.  The raw list
            # (children_list, child_nodes) is still kept once asked for.
            elem = self._element("Children")
            if elem is not None and elem[0] == raw.ARRAY and elem[3] - elem[2] == _EMPTY_ARRAY:
                return []
        items = self.children_list()
        return [item for item in items if isinstance(item, Slot)]

    def children_list(self) -> list[Any]:
        """The raw Children list (kept by identity; edits go through ops)."""
        items = self.child_nodes("Children", Slot)
        if items is None:
            return []
        tree = self._tree
        for item in items:  # the attributes, not their properties: a walk does this per slot
            if isinstance(item, Slot):
                item._tree = tree  # noqa: SLF001
                item.parent = self
        return items

    @property
    def components_member(self) -> Member | None:
        return self.member("Components")

    @property
    def components(self) -> list[Component]:
        items: list[Any] | None = self._comps
        if items is None and self._listing is None and self._vals is _NO_VALS:
            row = self._row
            if row >= 0:  # in its tree's table (and unedited: its components are the table's)
                tree = self._tree
                table = tree.slot_table if tree is not None else None
                if table is not None:
                    return self._table_components(table, row)
            items = self._scan_components()
        if items is None:
            member = self.components_member
            if member is None:
                return []
            items = member.child_nodes("Data", Component)
            if items is None:
                return []
        tree = self._tree
        out = []
        for item in items:  # the attributes, not their properties: 40k components per walk
            if isinstance(item, Component):
                item._tree = tree  # noqa: SLF001
                item.slot = self
                out.append(item)
        return out

    @property
    def path(self) -> str:
        tree = self._tree
        generation = tree.generation if tree is not None else None
        chain: list[Slot] = []
        prefix: str | None = None
        node: Slot | None = self
        while node is not None:
            memo = node.path_memo
            if memo is not None and memo[0] == generation:
                prefix = memo[1]
                break
            chain.append(node)
            node = node.parent
        base = prefix  # the nearest memoized ancestor's path, or None
        names = [n if isinstance(n := slot.name, str) else "" for slot in reversed(chain)]
        if generation is not None:  # memoize the short prefixes (all of any real tree)
            text = base
            for slot, name in zip(reversed(chain), names, strict=True):
                text = name if text is None else f"{text}/{name}"
                if len(text) > PATH_MEMO_LIMIT:
                    break
                slot.path_memo = (generation, text)
        # Joined once: growing a long path name by name was quadratic in its depth.
        return "/".join(names if base is None else [base, *names])

    def display_path(self, limit: int = PATH_LIMIT) -> str:
        """The path for messages: exact while it is short, else ``…/`` and its last ``limit``
        characters: paths grow with depth times name length, so this costs O(depth + limit)
        and keeps each line of a report bounded.  A short path is the memoized :attr:`path`
        (a report describes thousands of values on the same slots)."""
        tree = self._tree
        if tree is not None:
            generation = tree.generation
            memo = self.path_memo  # the usual case, what the loop below ends with
            if memo is not None and memo[0] == generation and len(memo[1]) <= limit:
                return memo[1]
            size = 0
            node: Slot | None = self
            while node is not None and size <= limit:
                memo = node.path_memo
                if memo is not None and memo[0] == generation:
                    size += len(memo[1])
                    break
                name = node.name
                size += len(name) + 1 if isinstance(name, str) else 1
                node = node.parent
            if size <= limit:
                return self.path
        parts: list[str] = []
        size = 0
        node = self
        while node is not None:
            name = node.name
            name = name if isinstance(name, str) else ""
            parts.append(name)
            size += len(name) + 1
            if size > limit and node.parent is not None:
                text = "/".join(reversed(parts))
                return "…/" + text[-limit:]
            node = node.parent
        return "/".join(reversed(parts))

    @property
    def depth(self) -> int:
        depth, node = 0, self.parent
        while node is not None:
            depth, node = depth + 1, node.parent
        return depth

    def local_matrix(self) -> transform.Matrix:
        return transform.compose(
            self._vector("Position", self.position, (0.0, 0.0, 0.0)),
            self._vector("Rotation", self.rotation, (0.0, 0.0, 0.0, 1.0)),
            self._vector("Scale", self.scale, (1.0, 1.0, 1.0)),
        )

    def _vector(self, key: str, value: Any, default: tuple[float, ...]) -> Any:
        """A transform member's numbers, or a ModelError naming the slot (found by fuzzing:
        a hostile file can hold any value there)."""
        if value is None:
            return default
        if (
            type(value) is list
            and len(value) == len(default)
            and _FLOATS.issuperset(map(type, value))
        ):
            return value  # doubles, as every writer stores them: one pass in C
        if not (
            isinstance(value, list)
            and len(value) == len(default)
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        ):
            raise ModelError(f"{key} is {value!r}, not {len(default)} numbers", path=self.path)
        return value

    def global_matrix(self) -> transform.Matrix:
        """This slot's transform in the root's space: the local matrices (position,
        rotation, scale) of the root down to this slot multiplied, parents first.  Missing
        transform members count as identity; a malformed one raises ModelError naming the
        slot."""
        chain: list[Slot] = []
        node: Slot | None = self
        while node is not None:
            chain.append(node)
            node = node.parent
        matrix = transform.identity()
        for slot in reversed(chain):
            matrix = transform.multiply(matrix, slot.local_matrix())
        return matrix

    def walk(self) -> Iterator[Slot]:
        """This slot and its descendants, depth-first, parents before children."""
        stack: list[Slot] = [self]
        tree = self._tree
        table = tree.slot_table if tree is not None else None  # made once, by a tree's walk
        with deferred_full_collections():  # every slot handed out is kept (brson.collector)
            while stack:
                slot = stack.pop()
                yield slot
                # After the yield: the loop may have edited the slot.
                stack.extend(reversed(slot._walked_kids(table)))  # noqa: SLF001  (Slot's own)

    def find_component(self, type_name: str) -> Component | None:
        """The first component on this slot (not its children) whose type ``type_name`` names
        in any spelling :meth:`TypeName.spellings` allows, or ``None`` (a lookup, like
        :meth:`DataTree.find`; :func:`brson.ops.selectors.component_on` raises with the types the
        slot has instead)."""
        for component in self.components:
            if component.is_type(type_name):
                return component
        return None

    def model(self) -> SlotDoc:
        from brson.model.documents import SlotDoc, validated

        return validated(SlotDoc, self.decoded(), self.path)

    # Shortcuts to brson.model.edit, imported when first used: it builds on this module, and
    # reading a tree never pays for it.
    def add_child(self, name: str, **options: Any) -> Slot:
        """A new empty child slot (see :func:`brson.model.edit.add_slot`)."""
        from brson.model import edit

        return edit.add_slot(self, name, **options)

    def add_component(
        self, type_name: str, fields: dict[str, Any] | None = None, **options: Any
    ) -> Component:
        """A new component on this slot (see :func:`brson.model.edit.add_component`)."""
        from brson.model import edit

        return edit.add_component(self, type_name, fields, **options)

    def move(self, parent: Slot | None = None, index: int | None = None) -> None:
        """Re-parent or reorder this slot (see :func:`brson.model.edit.move`)."""
        from brson.model import edit

        edit.move(self, parent, index)

    def remove(self, references: str = "null") -> Removal:
        """Delete this slot and its subtree (see :func:`brson.model.edit.delete`)."""
        from brson.model import edit

        return edit.delete(self, references)

    def __repr__(self) -> str:
        return f"Slot(id={self.id!r}, name={self.name!r})"


def memoize_path(slot: Slot, name: object) -> None:
    """Record the path :attr:`Slot.path` would memoize for ``slot``, given its name (the
    ``Name`` member's value, which the caller already decoded) and its parent's memo: a walk
    that reports on most slots (validate of a world whose every rotation is off) then builds
    each path with one join instead of reading the name through the model again.  Nothing
    is recorded when the parent has no current memo or the path is too long to keep."""
    tree = slot.tree
    if tree is None:
        return
    generation = tree.generation
    text = name if isinstance(name, str) else ""
    parent = slot.parent
    if parent is not None:
        memo = parent.path_memo
        if memo is None or memo[0] != generation:
            return
        text = f"{memo[1]}/{text}"
    if len(text) <= PATH_MEMO_LIMIT:
        slot.path_memo = (generation, text)
