"""A member: one field ``{"ID", "Data"}`` of a slot or a component, handed out as a view.

No pydantic object per element (a big world has millions of members): the model's classes
index the bytes and decode on access; ``model()`` validates into :mod:`brson.model.documents`
on demand.  When two reads give the same object: :mod:`brson.model.overlay`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from bson.int64 import Int64

from brson.document import raw
from brson.model.ids.forms import is_guid
from brson.model.node import _MISSING, _NO_VALS, Node

if TYPE_CHECKING:
    from brson.model.documents import MemberDoc
    from brson.model.tree import DataTree, Element

NT = TypeVar("NT", bound=Node)


def holds_documents(buf: bytes, elem: raw.Element) -> bool:
    """Whether an array element holds documents (a SyncList), judged by its first item."""
    return elem[3] - elem[2] > 5 and buf[elem[2] + 4] == raw.DOCUMENT


class Member(Node):
    """A field: ``{"ID": ..., "Data": ...}``.  ``value`` is Data; lists hold Members.

    Members are views: two reads give two equal objects, a stale one forwards to the member
    an edit registered (the identity contract: :mod:`brson.model.overlay`)."""

    __slots__ = ("_data", "_items")

    def __init__(self, buf: bytes, start: int, end: int, owner: Node | None = None) -> None:
        Node.__init__(self, buf, start, end, owner)  # (see Component.__init__)
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
        a key when it holds one, else a view (its ``Data`` element from the scan).  ``owner`` is the
        component's Data node, or the component itself while it has none (the views then
        reach Data on their first edit, see :meth:`_attach`)."""
        buf = owner.buffer
        held = owner.overlay
        out: dict[str, Member] = {}
        for key, start, end, data in found:
            if held and isinstance(kept := held.get(key), Member):
                kept.tree = tree
                out[key] = kept
                continue
            member = cls(buf, start, end, owner)
            member._tree, member._key, member._data = tree, key, data
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
        return None if owner is None else self._holder_in(owner.fields_node(make=False))

    def _attach(self, owner: Node) -> None:
        """As :meth:`Node._attach`; a field view of a component that kept no Data node
        (:attr:`Component.fields`) belongs to the component's Data, made or found now: the
        one ``component.data`` gives, before the edit or after it."""
        node = owner.fields_node(make=True)
        assert node is not None
        self._owner = node
        super()._attach(node)

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
                if not holds_documents(buf, elem):
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
        from brson.model.component import Component
        from brson.model.slot import Slot

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

    def touch(self, key: str | None = None) -> None:
        Node.touch(self._live(), key)

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
        if etype == raw.ARRAY and elem is not None and not holds_documents(self._buf, elem):
            return None  # numbers (float3, colors): no per-item nodes
        items = self.child_nodes("Data", Member)
        if not items or not all(isinstance(i, Member) and "ID" in i for i in items):
            return None
        for item in items:
            item.tree = self._tree
        return items

    @property
    def target(self) -> Element | None:
        """The element this member references, when its value is the ID of one in the file."""
        value = self.get("Data")
        if self._tree is None or not is_guid(value):
            return None
        return self._tree.resolve(value)

    def model(self) -> MemberDoc:
        from brson.model.documents import MemberDoc, validated

        return validated(MemberDoc, self.decoded(), None)

    def __repr__(self) -> str:
        return f"Member(id={self.id!r}, value={self.get('Data')!r})"
