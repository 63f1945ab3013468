"""A component: ``{"Type", "Data"}``, its type through the tree's ``Types`` table, and its
fields as members (identity of what it hands out: :mod:`brson.model.overlay`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bson.int64 import Int64

from brson.document import raw
from brson.errors import ModelError
from brson.model.ids.forms import leading_id
from brson.model.member import Member
from brson.model.node import _NO_VALS, Node
from brson.model.typename import TypeName, is_type_name

if TYPE_CHECKING:
    from brson.model.documents import ComponentDoc
    from brson.model.edit import Removal
    from brson.model.slot import Slot
    from brson.model.tree import DataTree


#: Element header of an int32 `Type` (the first key of an engine-written component).
_TYPE_INT32 = b"\x10Type\x00"
#: The same in int64, as other writers put it (mar_AimConstraint.pg.brson).
_TYPE_INT64 = b"\x12Type\x00"
#: A node's allocation without its constructor (:meth:`Component.on_walked_slot`).
_new_node = object.__new__


def leading_type(buf: bytes, start: int, end: int) -> int | None:
    """The integer ``Type`` of the component document ``buf[start:end]`` when it is the first
    key (every writer's layout), read in place without indexing it; None otherwise."""
    if end - start > 25:
        if buf.startswith(_TYPE_INT32, start + 4):
            return raw.int32_at(buf, start + 10)
        if end - start > 29 and buf.startswith(_TYPE_INT64, start + 4):
            return raw.int64_at(buf, start + 10)
    return None


def leading_data_id(buf: bytes, start: int, end: int) -> str | None:
    """The ``ID`` :attr:`Component.id` reads of the unedited component document
    ``buf[start:end]`` where its ``Data`` leads with it (every writer's layout), without a
    node; None otherwise (the node then answers)."""
    elem = _document_data(raw.component_index(buf, start, end))
    return leading_id(buf, elem[2], elem[3]) if elem is not None else None


def _document_data(idx: Mapping[str, raw.Element]) -> raw.Element | None:
    """The ``Data`` element of a component's index when it is a document."""
    elem = idx.get("Data")
    return elem if elem is not None and elem[0] == raw.DOCUMENT else None


class Component(Node):
    """``{"Type": index or name, "Data": {"ID", "persistent-ID", "UpdateOrder", "Enabled", …}}``."""

    __slots__ = ("_data_node", "_type_at", "slot")

    def __init__(self, buf: bytes, start: int, end: int, owner: Node | None = None) -> None:
        # Not super(): its proxy object is a third of a node's construction, and a walk makes
        # one node per slot and component, a field read one per member.
        Node.__init__(self, buf, start, end, owner)
        #: The slot whose Components hold this one (None for root Assets and new ones).
        self.slot: Slot | None = None
        #: The Data node, kept here rather than in the overlay until it is edited: an
        #: overlay dict per component is one more object per component for the collector.
        self._data_node: Node | None = None
        #: The leading ``Type`` index its slot's table read (``SlotTable.comp_types``; -1:
        #: none): what :attr:`type` reads while the component is unedited.
        self._type_at = -1

    @classmethod
    def on_walked_slot(
        cls, buf: bytes, start: int, end: int, slot: Slot, tree: DataTree, type_at: int
    ) -> Component:
        """The component ``buf[start:end]`` of ``slot`` as its tree's table gives it
        (:meth:`Slot.components`): what ``Component(buf, start, end, slot)`` makes, owned by the
        slot until its ``Components`` member is asked for (:meth:`_attach`), with its tree and
        its ``Type`` index from the table.  Attributes are set here, as in
        :meth:`Slot.walked_child` and for the same reason."""
        self = _new_node(cls)
        self._buf = buf
        self._start = start
        self._end = end
        self._idx = None
        self._vals = _NO_VALS
        self._keys = None
        self._owner = slot
        self._dirty = False
        self._tree = tree
        self._key = "Components"
        self.slot = slot
        self._data_node = None
        self._type_at = type_at
        return self

    def _index(self) -> dict[str, raw.Element]:
        idx = self._idx
        if idx is None:
            idx = self._idx = raw.component_index(self._buf, self._start, self._end)
        return idx

    def _attach(self, owner: Node) -> None:
        """A component its slot read straight from the bytes (:meth:`Slot._scan_components`)
        is owned by the slot until the first edit below it: the slot then makes its
        ``Components`` member, which owns the component and writes the edit."""
        slot = self.slot
        if slot is not None and owner is slot:
            slot.materialize_components()  # sets this component's owner and key
            return
        super()._attach(owner)

    @property
    def owner(self) -> Node | None:
        """The ``Components`` member holding this component (made now for one its slot read
        straight from the bytes)."""
        slot = self.slot
        if slot is not None and self._owner is slot:
            slot.materialize_components()
        return self._owner

    @owner.setter
    def owner(self, node: Node | None) -> None:
        self._owner = node
        self._key = None

    @property
    def data(self) -> Node:
        """The ``Data`` document's node, one per component (:mod:`brson.model.overlay`): a view
        kept in an attribute, so an unedited component allocates no overlay; its first edit
        registers it in the overlay, which writes it."""
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
        return _document_data(idx)

    @property
    def type_index(self) -> int | str | None:
        """The raw ``Type`` value: an index into ``Types`` (Resonite) or a name (NeosVR)."""
        if self._idx is None:
            leading = leading_type(self._buf, self._start, self._end)  # a walk asks each one
            if leading is not None:
                return leading
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
        tree = self._tree
        if tree is not None and self._idx is None:  # a walk asks every component
            # Unedited (an edit indexes first): the table's index, else the bytes'.
            at: int | None = self._type_at
            if at is not None and at < 0:
                at = leading_type(self._buf, self._start, self._end)
            if at is not None:
                types = tree.types
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

    def fields_node(self, make: bool) -> Node | None:
        return self.data if make else self.data_held()

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
                return Member.views(self, found, self._tree)
        data = self.data
        if not data.modified and data.buffer:
            start, end = data.span
            return Member.views(data, raw.component_fields(data.buffer, start, end), self._tree)
        out: dict[str, Member] = {}  # edited or built by an edit: key by key
        for key in data:
            member = self._member(key, data)
            if member is not None:
                out[key] = member
        return out

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
        return self.slot.path if self.slot is not None else None

    def model(self) -> ComponentDoc:
        from brson.model.documents import ComponentDoc, validated

        return validated(ComponentDoc, self.decoded(), self._where())

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
