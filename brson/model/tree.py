"""The data tree: root document, Slots, Components and Members over lazily indexed BSON.

Why not one pydantic object per element: a big world has millions of members, and
building (or validating) a model for each costs 2-4x a plain decode and ~10x the BSON size in
memory.  These classes index the bytes instead and decode on access; the pydantic models in
:mod:`brson.model.documents` describe the same shapes for validation and JSON Schema, and
:meth:`Component.model` / :meth:`Slot.model` materialize them on demand.
"""

from __future__ import annotations

import difflib
import struct
from array import array
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from bson.int64 import Int64

from brson.collector import deferred_full_collections
from brson.container import Container
from brson.document import raw
from brson.errors import PATH_LIMIT, ModelError, SelectorError
from brson.model import slotmatch, transform
from brson.model.ids.forms import GUID, ID_HEAD, leading_id
from brson.model.node import _MISSING, _NO_VALS, Node
from brson.model.typename import TypeName, is_type_name

if TYPE_CHECKING:
    from pydantic import BaseModel

    from brson.model.documents import ComponentDoc, DataTreeDoc, MemberDoc, SlotDoc
    from brson.model.edit import Removal
    from brson.model.ids.index import IdIndex


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


def is_guid(value: object) -> bool:
    """ID-shaped: how references are recognised (there is no type tag in the format).  Only a
    BSON string is: JavaScript code (0x0D) decodes to a ``str`` subclass that spells the same
    text but is no ID to the engine (and cannot key a dict)."""
    return type(value) is str and len(value) == 36 and GUID.match(value) is not None


def _documents(buf: bytes, elem: raw.Element) -> bool:
    """Whether an array element holds documents (a SyncList), judged by its first item."""
    return elem[3] - elem[2] > 5 and buf[elem[2] + 4] == raw.DOCUMENT


M = TypeVar("M", bound="BaseModel")
NT = TypeVar("NT", bound=Node)


def _validated(model: type[M], data: dict[str, Any], where: str | None) -> M:
    """A pydantic model of hostile data fails as a ModelError naming the slot, like the rest."""
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        what = f"{'.'.join(str(p) for p in errors[0]['loc'])} {errors[0]['msg']}" if errors else exc
        raise ModelError(
            f"not a valid {model.__name__.removesuffix('Doc').lower()}: {what}", path=where
        ) from None


#: Element header of an int32 `Type` (the first key of an engine-written component).
_TYPE_INT32 = b"\x10Type\x00"


class Member(Node):
    """A field: ``{"ID": ..., "Data": ...}``.  ``value`` is Data; lists hold Members.

    Members are views (:meth:`Node.child_view`): reading ``component.fields`` or
    ``slot.member("Name")`` twice gives two objects over the same bytes until one is edited.
    The first edit registers the edited one with its owner: every later read of that field
    returns it, ``dumps`` writes it, and an older view of the same field forwards to it (its
    reads and edits are the registered member's).  Compare members by ``id``, not identity.
    """

    __slots__ = ("_data", "_items")

    def __init__(self, buf: bytes, start: int, end: int, owner: Node | None = None) -> None:
        Node.__init__(self, buf, start, end, owner)  # not super(): measured slower
        #: The ``Data`` element, when found at the engine layout's place (never changes: the
        #: bytes do not; an edit shows in the overlay, which reads check first).
        self._data: raw.Element | None = None
        #: The list ``Data`` holds (a slot's components, a SyncList's members) once handed
        #: out, kept here while the member has no overlay (see :meth:`Node._keep`).
        self._items: list[Any] | None = None

    @classmethod
    def views(
        cls, owner: Node, found: list[raw.FieldElement], tree: DataTree | None
    ) -> dict[str, Member]:
        """The members at the spans of ``owner``'s buffer that one scan found
        (:func:`brson.document.raw.component_fields`), by key: the member ``owner`` holds for
        a key when it holds one, else a view, made without ``Member.__init__`` (one call
        less per member, and ``_data`` comes from the scan instead of None).  ``owner`` is the
        component's Data node, or the component itself while it has none (the views then
        reach Data on their first edit, see :meth:`_attach`)."""
        buf = owner.buffer
        held = owner.overlay
        new, init = object.__new__, Node.__init__
        out: dict[str, Member] = {}
        for key, start, end, data in found:
            if held and isinstance(kept := held.get(key), Member):
                kept.tree = tree
                out[key] = kept
                continue
            member: Member = new(cls)
            init(member, buf, start, end, owner)
            member._tree = tree
            member._key = key
            member._data = data
            member._items = None
            if data is None and "ID" not in member:
                continue  # a sub-document that is not a member
            out[key] = member
        return out

    def _index(self) -> dict[str, raw.Element]:
        idx = self._idx
        if idx is None:
            idx = self._idx = raw.member_index(self._buf, self._start, self._end)
        return idx

    def _engine_data(self) -> raw.Element | None:
        """The original Data element at the engine layout's place (``{"ID", "Data"}``), kept;
        None for another layout or once an index is kept (ask the index then).  A slot's kept
        Components member asks only this, and an index dict of two tuples per slot was three
        more objects per slot for the collector to scan on every walk."""
        data = self._data
        if data is None and self._idx is None:
            data = self._data = raw.member_data(self._buf, self._start, self._end)
        return data

    def _element(self, key: str) -> raw.Element | None:
        if key == "Data" and self._idx is None and (data := self._engine_data()) is not None:
            return data
        return self._index().get(key)

    def holder(self) -> Node | None:
        owner = self._owner
        if isinstance(owner, Component):  # a field view made before its Data node was
            return self._holder_in(owner.data_held())
        return self._holder_in(owner)

    def _attach(self, owner: Node) -> None:
        """As :meth:`Node._attach`; a field view of a component that kept no Data node
        (:attr:`Component.fields`) belongs to the component's Data, made or found now: the
        one ``component.data`` gives, before the edit or after it."""
        if isinstance(owner, Component):
            owner = self._owner = owner.data
        super()._attach(owner)

    def _live(self) -> Member:
        """This member, or the one its owner holds for its key (this view is stale)."""
        if self._key is not None:
            held = self.holder()
            if isinstance(held, Member):
                return held
        return self

    def __eq__(self, other: object) -> bool:
        """The same field of the same tree (two views of it, or a view and the member an
        edit registered), since members are not one object per field (see the class)."""
        if not isinstance(other, Member):
            return NotImplemented
        a, b = self._live(), other._live()
        if a is b:
            return True
        return bool(a._buf) and a._buf is b._buf and a._tree is b._tree and a.span == b.span

    def __hash__(self) -> int:
        live = self._live()
        return hash((id(live.buffer), live.span)) if live.buffer else id(live)

    @property
    def id(self) -> str | None:
        value = self.get("ID")
        return value if type(value) is str else None  # not JavaScript code (see is_guid)

    def __contains__(self, key: object) -> bool:
        live = self._live()
        if live is not self:
            return key in live
        # ``"ID" in member`` is asked of every member a component hands out: answered from
        # the engine layout's fixed places, without indexing the document.
        if (
            self._idx is None
            and self._keys is None
            and (key == "ID" or key == "Data")
            and (self._data or self._engine_data())
        ):
            return True
        return super().__contains__(key)

    @property
    def value(self) -> Any:
        """The Data value; for a list of members (SyncList) the list of their values."""
        owner = self._owner
        # An owner holds nothing in its overlay dict (empty or none) unless this view can be
        # stale: its owner, or its component's Data, holds another member for its key.
        if self._key is not None and owner is not None and owner._vals:  # noqa: SLF001
            live = self._live()
            if live is not self:
                return live.value
        if not self._dirty:  # unedited: Data is in the bytes (or a kept list of its items)
            buf = self._buf
            elem = self._data or self._engine_data()  # the scan's, else found (one call less)
            if elem is None:
                elem = self._index().get("Data")
            if elem is not None:  # the common case
                if elem[0] != raw.ARRAY:
                    return raw.scalar(buf, elem)
                if not _documents(buf, elem):
                    return raw.value(buf, elem)  # numbers: float3, colors...
        items = self.elements
        if items is not None:
            return [item.value if isinstance(item, Member) else item for item in items]
        return self.get("Data")

    @value.setter
    def value(self, new: Any) -> None:
        live = self._live()
        if live is not self:
            live.value = new
            return
        if isinstance(new, Slot | Component | Member):
            new = new.id
        # Keep the field's width (NeosVR and OrderOffset are int64), also when set before.
        wide = self.etype("Data") == 0x12 or isinstance(self._vals.get("Data"), Int64)
        if isinstance(new, int) and not isinstance(new, bool) and wide:
            new = Int64(new)
        self.set("Data", new)

    # -- a stale view forwards to the member its owner holds -------------------------------
    def keys(self) -> list[str]:
        return Node.keys(self._live())

    def etype(self, key: str) -> int | None:
        return Node.etype(self._live(), key)

    def get(self, key: str, default: Any = None) -> Any:
        return Node.get(self._live(), key, default)

    def child_node(self, key: str, cls: type[NT]) -> NT | None:
        return Node.child_node(self._live(), key, cls)

    def child_view(self, key: str, cls: type[NT]) -> NT | None:
        return Node.child_view(self._live(), key, cls)

    def child_nodes(self, key: str, cls: type[NT]) -> list[NT] | None:
        return Node.child_nodes(self._live(), key, cls)

    def decoded(self) -> dict[str, Any]:
        return Node.decoded(self._live())

    def set(self, key: str, value: Any) -> None:
        Node.set(self._live(), key, value)

    def delete_key(self, key: str) -> None:
        Node.delete_key(self._live(), key)

    def touch(self) -> None:
        Node.touch(self._live())

    @property
    def modified(self) -> bool:
        live = self._live()
        return self._dirty if live is self else live.modified

    @property
    def overlay(self) -> Mapping[str, Any]:
        live = self._live()
        if live is not self:
            return live.overlay
        items = self._items
        return self._vals if items is None else {"Data": items}

    def _kept(self, key: str) -> Any:
        items = self._items
        return items if items is not None and key == "Data" else _MISSING

    def _keep(self, key: str, value: Any) -> None:
        if key == "Data" and self._vals is _NO_VALS:
            self._items = value
        else:
            self._own_vals()[key] = value

    def _settle(self) -> None:
        if self._items is not None:
            self._own_vals()

    def _own_vals(self) -> dict[str, Any]:
        vals = self._vals
        if vals is _NO_VALS:
            vals = self._vals = {}
            if self._items is not None:
                vals["Data"] = self._items
                self._items = None
        return vals

    def element_index(self) -> dict[str, raw.Element]:
        return Node.element_index(self._live())

    def to_bson(self) -> bytes:
        return Node.to_bson(self._live())

    @property
    def elements(self) -> list[Member] | None:
        """For a SyncList (Data is an array of members): the element members."""
        etype = self.etype("Data")
        if "Data" not in self or etype not in (None, raw.ARRAY):
            return None
        elem = self._element("Data")
        if etype == raw.ARRAY and elem is not None and not _documents(self._buf, elem):
            return None  # numbers (float3, colors): no per-item nodes
        items = self.child_nodes("Data", Member)
        if not items or not all(isinstance(i, Member) and "ID" in i for i in items):
            return None
        for item in items:
            item.tree = self._tree
        return items

    @property
    def target(self) -> Slot | Component | Member | IdRef | None:
        """The element this member references, when its value is the ID of one in the file."""
        value = self.get("Data")
        if self._tree is None or not is_guid(value):
            return None
        return self._tree.resolve(value)

    def model(self) -> MemberDoc:
        from brson.model.documents import MemberDoc

        return _validated(MemberDoc, self.decoded(), None)

    def __repr__(self) -> str:
        return f"Member(id={self.id!r}, value={self.get('Data')!r})"


class Component(Node):
    """``{"Type": index or name, "Data": {"ID", "persistent-ID", "UpdateOrder", "Enabled", …}}``."""

    __slots__ = ("_data_node", "_slot")

    def __init__(self, buf: bytes, start: int, end: int, owner: Node | None = None) -> None:
        Node.__init__(self, buf, start, end, owner)  # not super(): a walk makes 40k of these
        self._slot: Slot | None = None
        #: The Data node, kept here rather than in the overlay until it is edited: an
        #: overlay dict per component is one more object per component for the collector.
        self._data_node: Node | None = None

    def _index(self) -> dict[str, raw.Element]:
        idx = self._idx
        if idx is None:
            idx = self._idx = raw.component_index(self._buf, self._start, self._end)
        return idx

    def _attach(self, owner: Node) -> None:
        """A component its slot read straight from the bytes (:meth:`Slot._scan_components`)
        is owned by the slot until the first edit below it: the slot then makes its
        ``Components`` member, which owns the component and writes the edit."""
        if self._key is _IN_SLOT and isinstance(owner, Slot):
            owner._materialize()  # noqa: SLF001  (sets this component's owner and key)
            return
        super()._attach(owner)

    @property
    def owner(self) -> Node | None:
        """The ``Components`` member holding this component (made now for one its slot read
        straight from the bytes)."""
        owner = self._owner
        if self._key is _IN_SLOT and isinstance(owner, Slot):
            owner._materialize()  # noqa: SLF001
            return self._owner
        return owner

    @owner.setter
    def owner(self, node: Node | None) -> None:
        self._owner = node
        self._key = None

    @property
    def data(self) -> Node:
        """The ``Data`` document's node: one per component (``c.data is c.data``).  Made as a
        view (:meth:`Node.child_view`) and kept in a slot of its own, so an unedited component
        allocates no overlay; its first edit registers it in the overlay, which writes it."""
        vals = self._vals
        if "Data" in vals:  # edited, or built by an edit
            held = vals["Data"]
            if isinstance(held, Node):
                return held
        elif self._keys is None or "Data" in self._keys:
            node = self._data_node
            if node is None or node.owner is not self:
                node = self._data_node = self.child_view("Data", Node)
            if node is not None:
                return node
        raise ModelError("component has no Data document", path=self._where())

    @property
    def id(self) -> str | None:
        if self._keys is None and "Data" not in self._vals:
            # Unedited Data: its bytes say, without an index or a Data node kept on every
            # component asked (extract and diff ask hundreds of thousands).
            elem = self._data_element()
            if elem is not None:
                found = leading_id(self._buf, elem[2], elem[3])
                if found is not None:
                    return found
        value = self.data.get("ID")
        return value if type(value) is str else None  # not JavaScript code (see is_guid)

    def _data_element(self) -> raw.Element | None:
        """The original ``Data`` element when it is a document, read from the bytes without
        keeping an index (:attr:`id` and :attr:`fields` ask it of every component)."""
        idx = self._idx
        if idx is None:
            idx = raw.component_index(self._buf, self._start, self._end)
        elem = idx.get("Data")
        return elem if elem is not None and elem[0] == raw.DOCUMENT else None

    @property
    def type_index(self) -> int | str | None:
        """The raw ``Type`` value: an index into ``Types`` (Resonite) or a name (NeosVR)."""
        buf, start = self._buf, self._start
        if self._idx is None and self._end - start > 25 and buf.startswith(_TYPE_INT32, start + 4):
            return raw.int32_at(buf, start + 10)  # engine layout, not indexed yet (walks)
        elem = self._index().get("Type")
        if elem is not None and elem[0] == raw.INT32 and "Type" not in self._vals:
            return raw.int32_at(self._buf, elem[2])
        value = self.get("Type")
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else value

    def set_type_index(self, index: int) -> None:
        """Point ``Type`` at another ``Types`` entry in the width it was written with: the
        engine writes int32, other writers int64 (mar_AimConstraint.pg.brson)."""
        wide = self.etype("Type") == raw.INT64 or isinstance(self._vals.get("Type"), Int64)
        self.set("Type", Int64(index) if wide else index)

    @property
    def type(self) -> TypeName:
        buf, start, tree = self._buf, self._start, self._tree
        if (
            tree is not None
            and self._idx is None
            and self._end - start > 25
            and buf.startswith(_TYPE_INT32, start + 4)
        ):  # type_index's engine-layout read, inlined: a walk asks every component
            types = tree.types
            at = raw.int32_at(buf, start + 10)
            if 0 <= at < len(types):
                return types[at]
        raw_type = self.type_index
        if is_type_name(raw_type):
            assert isinstance(raw_type, str)
            return TypeName.parse(raw_type)
        if isinstance(raw_type, int) and not isinstance(raw_type, bool) and self._tree is not None:
            types = self._tree.types
            if 0 <= raw_type < len(types):
                return types[raw_type]
            raise ModelError(
                f"component type index {raw_type} is out of range (Types has {len(types)})",
                path=self._where(),
            )
        raise ModelError(
            f"component Type is {raw_type!r}, not an index or a name", path=self._where()
        )

    @property
    def type_label(self) -> str:
        """The short type name (``type.name``) for messages; ``repr`` of the raw ``Type`` when
        it names no type (out of range, or neither an index nor a name)."""
        try:
            return self.type.name
        except ModelError:
            return repr(self.type_index)

    def is_type(self, spelling: str) -> bool:
        """Whether ``spelling`` names this component's type, by :meth:`TypeName.matches` (the
        one rule shared by ``Slot.find_component``, the edit selectors and the CLI). A
        component whose ``Type`` names no type matches nothing."""
        try:
            return self.type.matches(spelling)
        except ModelError:
            return False

    @property
    def slot(self) -> Slot | None:
        """The slot whose Components hold this one (None for root Assets and new ones)."""
        return self._slot

    @slot.setter
    def slot(self, slot: Slot | None) -> None:
        self._slot = slot

    def data_held(self) -> Node | None:
        """The Data node this component holds or keeps (:attr:`data`), None before one was
        made."""
        vals = self._vals
        if vals:
            held = vals.get("Data")
            if isinstance(held, Node):
                return held
        node = self._data_node
        return node if node is not None and node.owner is self else None

    @property
    def fields(self) -> dict[str, Member]:
        """Every member-shaped entry of Data by field name (``ID`` etc. are not members).

        A new dict of member views each call (see :class:`Member`): an edited member is the
        one its component holds, the others are made from one scan of ``Data``'s bytes."""
        if self._vals is _NO_VALS and self._data_node is None and self._keys is None:
            # Unedited and no Data node yet: the views are the component's until their first
            # edit (Member._attach), so reading every value keeps no Data node per component
            # (one object per component for the collector).
            elem = self._data_element()
            if elem is not None:
                found = raw.component_fields(self._buf, elem[2], elem[3])
                if found is not None:
                    return Member.views(self, found, self._tree)
        data = self.data
        tree = self._tree
        found = None
        if not data.modified and data.buffer:
            start, end = data.span
            found = raw.component_fields(data.buffer, start, end)
        if found is None:  # edited, built by an edit, or unusual bytes: key by key
            out: dict[str, Member] = {}
            for key in data:
                member = self._member(key, data)
                if member is not None:
                    out[key] = member
            return out
        return Member.views(data, found, tree)

    def _member(self, key: str, data: Node | None = None) -> Member | None:
        if data is None:
            data = self.data
        if data.etype(key) not in (None, 0x03):
            return None
        member = data.child_view(key, Member)
        if member is None or "ID" not in member:
            return None
        member.tree = self._tree
        return member

    def __getitem__(self, key: str) -> Member:
        member = self._member(key)
        if member is None:
            raise KeyError(key)
        return member

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._member(key) is not None

    def _where(self) -> str | None:
        return self._slot.path if self._slot is not None else None

    def model(self) -> ComponentDoc:
        from brson.model.documents import ComponentDoc

        return _validated(ComponentDoc, self.decoded(), self._where())

    def remove(self, references: str = "null") -> Removal:
        """Remove this component (see :func:`brson.model.edit.remove_component`)."""
        from brson.model import edit

        return edit.remove_component(self, references)

    def __repr__(self) -> str:
        try:
            name = str(self.type)
        except ModelError:
            name = repr(self.type_index)
        return f"Component(id={self.id!r}, type={name!r})"


def _member_property(key: str, doc: str) -> property:
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
                    if not _documents(buf, data):
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

    return property(fget, fset, doc=doc)


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


#: A component's ``_key`` while its slot owns it in place of the ``Components`` member
#: (:meth:`Slot._scan_components`): no real key (keys hold no NUL).
_IN_SLOT = "\x00Components"

#: Size of an empty BSON array's document (length and terminator).
_EMPTY_ARRAY = 5

#: Native unsigned 64-bit offsets, as ``array("Q")`` writes them (``Slot._ends``).
_ONE_END = struct.Struct("=Q")
_TWO_ENDS = struct.Struct("=2Q")


class Slot(Node):
    """A slot: ``ID``, member fields, ``Components`` (a member holding a list) and ``Children``."""

    __slots__ = ("_comps", "_ends", "_kids", "_listing", "_parent", "_path_memo", "_shape")

    #: The key layout of the last slot indexed; engine-written slots all share one.
    _last_shape: ClassVar[_Shape] = _Shape(())

    def __init__(self, buf: bytes, start: int, end: int, owner: Node | None = None) -> None:
        Node.__init__(self, buf, start, end, owner)  # not super() (see Component.__init__)
        self._parent: Slot | None = None
        #: (tree generation, path): paths are asked for per reference, and each costs the
        #: depth; a memo valid until the next edit makes that once per slot.
        self._path_memo: tuple[int, str] | None = None
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
        #: slot until something asks for the ``Components`` member (:meth:`_materialize`):
        #: a kept member and its list per slot are two more objects per slot for the
        #: collector on every loop over the tree.
        self._comps: list[Component] | None = None

    @property
    def overlay(self) -> Mapping[str, Any]:
        self._materialize()
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
            self._materialize()
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

    def _materialize(self) -> None:
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
            component._key = _IN_SLOT  # noqa: SLF001
            items.append(component)
        self._comps = items
        return items

    def _own_vals(self) -> dict[str, Any]:
        vals = self._vals
        if vals is _NO_VALS:
            self._materialize()
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

    name = _member_property("Name", "The slot's name (Name member).")
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
        # Components is kept: the components it lists are kept nodes (their identity is
        # what references, the ID index and edits hold on to).  The rest are views.
        if key == "Components":
            member = self.child_node(key, Member)
        else:
            member = self.child_view(key, Member)
        if member is not None:
            member.tree = self._tree
        return member

    @property
    def parent(self) -> Slot | None:
        return self._parent

    @parent.setter
    def parent(self, slot: Slot | None) -> None:
        self._parent = slot

    @property
    def path_memo(self) -> tuple[int, str] | None:
        """``(tree generation, path)`` as last computed (see :attr:`path`)."""
        return self._path_memo

    @path_memo.setter
    def path_memo(self, memo: tuple[int, str] | None) -> None:
        self._path_memo = memo

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
                item._parent = self  # noqa: SLF001
        return items

    @property
    def components_member(self) -> Member | None:
        return self.member("Components")

    @property
    def components(self) -> list[Component]:
        items: list[Any] | None = self._comps
        if (
            items is None
            and self._listing is None
            and self._vals is _NO_VALS
            and self._keys is None
        ):
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
                item._slot = self  # noqa: SLF001
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
        characters. Paths grow with depth times name length, so a report that printed every
        full path of a 2,000-deep tree of 1,000-character names wrote gigabytes; this costs
        O(depth + limit) and keeps each line bounded.  A short path
        is the memoized :attr:`path` (a report describes thousands of values on the same
        slots: reading every ancestor's name again for each was a third of ``validate``)."""
        tree = self._tree
        if tree is not None:
            generation = tree.generation
            memo = self._path_memo  # the usual case, what the loop below ends with
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
        depth, node = 0, self._parent
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
        with deferred_full_collections():  # every slot handed out is kept (brson.collector)
            while stack:
                slot = stack.pop()
                yield slot
                kids = slot.children
                stack.extend(reversed(kids))

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
        from brson.model.documents import SlotDoc

        return _validated(SlotDoc, self.decoded(), self.path)

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


class IdRef:
    """An ID defined by a plain string key (``ParentReference``, ``Persistent-ID``, ``_x-ID``)."""

    __slots__ = ("key", "owner")

    def __init__(self, owner: Slot | Component | Member | Node, key: str) -> None:
        self.owner = owner
        self.key = key

    @property
    def id(self) -> str | None:
        value = self.owner.get(self.key)
        return value if isinstance(value, str) else None

    def __repr__(self) -> str:
        return f"IdRef(key={self.key!r}, id={self.id!r})"


Element = Slot | Component | Member | IdRef


class DataTree(Node):
    """The root document; what :func:`brson.load` returns."""

    __slots__ = ("_generation", "_ids", "_stored", "_types", "container", "source")

    def __init__(
        self,
        buf: bytes,
        container: Container | None = None,
        source: str | None = None,
        *,
        stored: memoryview | None = None,
    ) -> None:
        super().__init__(buf, 0, len(buf), None)
        self.container = container
        self.source = source
        self._types: list[TypeName] | None = None
        self._ids: IdIndex | None = None
        #: Counts edits anywhere in the tree (caches derived from content check it).
        self._generation = 0
        self._stored = stored

    @property
    def ids_if_built(self) -> IdIndex | None:
        """The ID index if it was built since the last edit (an index built before an edit
        is stale: a reference graph compares with this)."""
        return self._ids

    @property
    def generation(self) -> int:
        """How many edits this tree has seen: caches derived from its content check it."""
        return self._generation

    @property
    def stored_payload(self) -> memoryview | None:
        """The compressed payload this tree was read from (after the container header), for
        an unmodified write with the same codec to reuse; None for a tree built in memory."""
        return self._stored

    def drop_stored_payload(self) -> None:
        """Forget the compressed payload (a later unmodified write compresses again): for a
        caller that reads this tree into another and never writes it back (``extract``
        keeps a big world's result beside it, and the payload is a seventh of its BSON)."""
        self._stored = None

    # -- root keys ------------------------------------------------------------------------
    @property
    def legacy(self) -> bool:
        """NeosVR generation: no ``Types`` table, type names inline."""
        return "Types" not in self

    @property
    def version_number(self) -> str | None:
        value = self.get("VersionNumber")
        return value if isinstance(value, str) else None

    @property
    def feature_flags(self) -> dict[str, int]:
        value = self.get("FeatureFlags")
        return dict(value) if isinstance(value, dict) else {}

    @property
    def type_versions(self) -> dict[str, int]:
        value = self.get("TypeVersions")
        return dict(value) if isinstance(value, dict) else {}

    @property
    def types(self) -> list[TypeName]:
        """The type table (Resonite); empty for NeosVR files, whose components name types."""
        if self._types is None:
            names = self.get("Types")
            if names is None:
                self._types = []
            elif not isinstance(names, list) or not all(is_type_name(n) for n in names):
                raise ModelError("Types is not an array of type-name strings")
            else:
                self._types = [TypeName.parse(n) for n in names]
        return self._types

    def type_index(self, name: str | TypeName, add: bool = True) -> int:
        """Index of a type in ``Types``, appended when missing (``add``)."""
        text = str(name)
        names = [str(t) for t in self.types]
        if text in names:
            return names.index(text)
        if not add:
            raise KeyError(text)
        names.append(text)
        self.set("Types", names)
        self._types = None
        return len(names) - 1

    def drop_unused_types(self, candidates: set[int] | None = None) -> list[str]:
        """Remove ``Types`` entries no component uses (only those among ``candidates`` when
        given) and their ``TypeVersions``; returns the names removed.

        Edits do not call this by themselves: removing an entry shifts the index of every
        later type, so every component using one would be re-written, and untouched content
        would no longer come out byte-identical. An unused entry is what the engine writes
        too (``SlotGizmo`` in orange3134_AvatarRootIdentification), so validate reports it as
        information (BR303), not a problem. Call this (or ``brson delete --prune-types``) when
        a trimmed table matters more than a minimal diff; extract always trims."""
        if self.legacy:
            return []
        components = list(self.components())
        used = {i for c in components if type(i := c.type_index) is int}
        names = [str(t) for t in self.types]
        if candidates is None:
            candidates = set(range(len(names)))
        drop = sorted(i for i in candidates if i not in used and 0 <= i < len(names))
        if not drop:
            return []
        gone = set(drop)
        remap: dict[int, int] = {}
        kept: list[str] = []
        for index, name in enumerate(names):
            if index not in gone:
                remap[index] = len(kept)
                kept.append(name)
        for component in components:
            old = component.type_index
            if isinstance(old, int) and old in remap and remap[old] != old:
                component.set_type_index(remap[old])
        self.set("Types", kept)
        self._types = None
        dropped = [names[i] for i in drop]
        versions = self.get("TypeVersions")
        if isinstance(versions, dict) and any(n in versions for n in dropped if n not in kept):
            self.set(
                "TypeVersions",
                {k: v for k, v in versions.items() if k in kept or k not in dropped},
            )
        return dropped

    @property
    def root(self) -> Slot:
        slot = self.child_node("Object", Slot)
        if slot is None:
            raise ModelError("the document has no Object slot")
        slot.tree = self
        return slot

    @property
    def assets(self) -> list[Component]:
        """Components in the root ``Assets`` array (NeosVR asset providers)."""
        items = self.child_nodes("Assets", Component)
        out = []
        for item in items or []:
            if isinstance(item, Component):
                item.tree = self
                out.append(item)
        return out

    # -- navigation -----------------------------------------------------------------------
    def walk(self) -> Iterator[Slot]:
        """Every slot, depth-first, root first."""
        return self.root.walk()

    def components(self) -> Iterator[Component]:
        """Every component on every slot, then the root Assets."""
        for slot in self.walk():
            yield from slot.components
        yield from self.assets

    def find_all(self, selector: str) -> list[Slot]:
        """Slots matching a selector: an ID, a path (``Root/Body/Head``) or a name, exactly;
        else loosely (rich-text tags removed, a path below the root, the start of an ID).  The
        first tier that matches decides: :mod:`brson.model.slotmatch` has the order.

        An ID defined more than once (a broken file) matches every slot holding it, so
        :meth:`find` reports it as ambiguous instead of silently picking the first."""
        if is_guid(selector):
            if not self.modified:
                found = self._slot_with_id(selector)
                if found is not None:
                    return found
            if selector in self.ids.duplicates:
                return [s for s in self.walk() if s.id == selector]
            element = self.resolve(selector)
            return [element] if isinstance(element, Slot) else []
        root = self.root
        return (
            slotmatch.along_path([root], selector)
            or [s for s in root.walk() if s.name == selector]
            or slotmatch.loose_matches(root, selector)
        )

    def _slot_with_id(self, element_id: str) -> list[Slot] | None:
        """The slots an ID names, answered from the bytes when its ``ID`` element occurs at
        most once (one C search instead of building the whole ID index, ~3.5x the BSON in
        memory on a big world); None when the index must decide (a repeated ID)."""
        from brson.model.ids.locate import Location, element_at

        head = ID_HEAD + element_id.encode() + b"\x00"
        buf = self._buf
        at = buf.find(head)  # then on from there: one pass over the bytes, not count + find
        if at < 0:
            return []
        if buf.find(head, at + 1) >= 0:  # (``head`` cannot overlap itself: one 0x02, first)
            return None
        element = element_at(Location(tree=self, offset=at))
        if element is None:
            return None  # the bytes were inside some string value: let the index decide
        return [element] if isinstance(element, Slot) else []

    def find(self, selector: str) -> Slot | None:
        """The one slot a selector names, or ``None`` when none does (a lookup: test the
        result); SelectorError when several do.  :meth:`select` raises instead of returning
        ``None``, with the names that come close."""
        found = self.find_all(selector)
        if len(found) > 1:
            listing = "; ".join(f"{s.path} ({s.id})" for s in found[:10])
            more = f" and {len(found) - 10} more" if len(found) > 10 else ""
            hint = (
                "the ID is defined more than once (a duplicate ID); use a path"
                if is_guid(selector)
                else "use a path or an ID"
            )
            raise SelectorError(f"{selector!r} matches {len(found)} slots: {listing}{more}; {hint}")
        return found[0] if found else None

    def select(self, slot_or_selector: Slot | str) -> Slot:
        """The one slot a selector (name, ID, path) names; SelectorError when none does (with
        "did you mean" and the paths of slots whose names come close) or several do.  What
        ``extract``, the edit commands and every ``--slot`` option use; a Slot given is
        checked to belong to this tree."""
        if isinstance(slot_or_selector, Slot):
            if slot_or_selector.tree is not self:
                raise ModelError("that slot belongs to another tree")
            return slot_or_selector
        slot = self.find(slot_or_selector)  # SelectorError listing candidates when ambiguous
        if slot is None:
            hint = _selector_hint(self, slot_or_selector)
            raise SelectorError(f"no slot matches {slot_or_selector!r}{hint}")
        return slot

    # -- IDs ------------------------------------------------------------------------------
    @property
    def ids(self) -> IdIndex:
        """Every element that has an ID (built on first use, dropped on edits)."""
        if self._ids is None:
            from brson.model.ids.index import IdIndex

            self._ids = IdIndex.build(self)
        return self._ids

    def resolve(self, element_id: str) -> Element | None:
        """The element with this ID, or None."""
        return self.ids.resolve(element_id)

    def model(self) -> DataTreeDoc:
        """The whole root document validated into :class:`DataTreeDoc` (every slot, component
        and member decoded: for checking a document, not for walking a large world)."""
        from brson.model.documents import DataTreeDoc

        return _validated(DataTreeDoc, self.decoded(), None)

    # -- writing --------------------------------------------------------------------------
    def after_edit(self) -> None:
        self._ids = None
        self._types = None
        self._generation += 1

    def to_bson(self) -> bytes:
        return super().to_bson()

    def renumber(self) -> DataTree:
        """A copy with every ID renumbered sequentially (see
        :func:`brson.model.numbering.renumber`)."""
        from brson.model.numbering import renumber

        return renumber(self)

    def __repr__(self) -> str:
        kind = "legacy NeosVR" if self.legacy else f"Resonite {self.version_number}"
        return f"DataTree({kind}, source={self.source!r})"


def _selector_hint(tree: DataTree, selector: str) -> str:
    """Paths of slots whose visible name (rich-text tags removed) contains or resembles it.

    Paths are made only for the few slots shown, and bounded: one full path per slot of a
    2,000-deep tree of long names took 2 GB."""
    wanted = selector.lower()
    slots: dict[str, Slot] = {}
    for slot in tree.walk():
        name = slot.name
        if isinstance(name, str):
            slots.setdefault(slotmatch.plain(name).lower()[:_HINT_NAME], slot)
    found = [slot for plain, slot in slots.items() if wanted in plain]
    found += [
        slots[p]
        for p in difflib.get_close_matches(wanted[:_HINT_NAME], list(slots), n=5)
        if slots[p] not in found
    ]
    if not found:
        return ""
    listing = "; ".join(repr(slot.display_path()) for slot in found[:5])
    return f"; did you mean {listing}? (a path or an ID selects exactly)"


#: Characters of a name compared with the selector for the hint (similarity is quadratic
#: in the length of the two texts).
_HINT_NAME = 200


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
