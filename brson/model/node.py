"""A BSON document backed by the original bytes, decoded on access, edited by overlay.

Every element of the data tree (root, slot, component, member) is a :class:`Node`.  A node
knows the slice of the buffer it came from and indexes its own keys only when first asked;
values it hands out are decoded then.  Serializing a clean node returns its original bytes; a
dirty one re-assembles itself from original element bytes plus encoded new values, so
untouched content stays byte-identical.  Which children are kept (:meth:`Node.child_node`)
and which are views (:meth:`Node.child_view`) is the identity contract of
:mod:`brson.model.overlay`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from brson.document import raw
from brson.errors import ModelError

if TYPE_CHECKING:
    from brson.model.tree import DataTree

N = TypeVar("N", bound="Node")

_MISSING: Any = object()
#: Shared, read-only stand-in for a node's empty overlay: most nodes are only read, and not
#: allocating a dict per node keeps walks cheap (fewer objects for the garbage collector).
_NO_VALS: Any = MappingProxyType({})


class Node:
    __slots__ = (
        "_buf",
        "_dirty",
        "_end",
        "_idx",
        "_key",
        "_keys",
        "_owner",
        "_start",
        "_tree",
        "_vals",
    )

    def __init__(self, buf: bytes, start: int, end: int, owner: Node | None = None) -> None:
        self._buf = buf
        self._start = start
        self._end = end
        self._idx: dict[str, raw.Element] | None = None
        #: Overlay: child nodes handed out, lists of them, and edited values.
        self._vals: dict[str, Any] = _NO_VALS
        #: Key order once the key set changed; None means the original order.
        self._keys: list[str] | None = None
        self._owner = owner
        self._dirty = False
        #: The data tree this node belongs to, once it was handed out by one (navigation
        #: sets it: resolving a reference or describing a location needs the tree).
        self._tree: DataTree | None = None
        #: For a view (:meth:`child_view`) its key in the owner, until the owner holds it.
        self._key: str | None = None

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def new(cls: type[N], values: dict[str, Any], owner: Node | None = None) -> N:
        """A node that has no original bytes (built by an edit)."""
        node = cls(b"", 0, 0, owner)
        node._idx = {}
        node._keys = list(values)
        node._vals = dict(values)
        for value in node.overlay.values():
            _adopt(value, node)
        node._dirty = True
        return node

    # -- reading --------------------------------------------------------------------------
    def _index(self) -> dict[str, raw.Element]:
        idx = self._idx
        if idx is None:
            idx = self._idx = raw.index(self._buf, self._start, self._end)
        return idx

    def _element(self, key: str) -> raw.Element | None:
        """One original element by key (a subclass may answer without keeping an index)."""
        return self._index().get(key)

    def keys(self) -> list[str]:
        return list(self._keys) if self._keys is not None else list(self._index())

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __contains__(self, key: object) -> bool:
        if self._keys is not None:
            return key in self._keys
        if not isinstance(key, str):
            return key in self._index()
        return self._element(key) is not None

    def etype(self, key: str) -> int | None:
        """BSON element type of an original, unedited key (None when edited or absent)."""
        if key in self._vals:
            return None
        elem = self._element(key)
        return elem[0] if elem else None

    def get(self, key: str, default: Any = None) -> Any:
        """The plain Python value of a key (decoded; a child node's value as a dict)."""
        if key in self._vals:
            value = self._vals[key]
            return _plain(value)
        if self._keys is not None and key not in self._keys:
            return default
        elem = self._element(key)
        if elem is None:
            return default
        return raw.scalar(self._buf, elem)

    def _kept(self, key: str) -> Any:
        """What this node keeps for ``key`` in an attribute of its own while it has no
        overlay (:meth:`_keep`); ``_MISSING`` when nothing."""
        return _MISSING

    def _keep(self, key: str, value: Any) -> None:
        """Hold a child node or list handed out for ``key``.  A subclass may keep the ones
        every walk asks for in attributes of its own instead of an overlay dict (a dict per
        slot was 20k objects for the collector); the first edit moves them into the
        overlay (:meth:`_settle`), so an edited node has one place saying what it holds."""
        self._own_vals()[key] = value

    def _settle(self) -> None:
        """Move what :meth:`_keep` put in attributes into the overlay."""

    def _held(self, key: str) -> Any:
        """What this node holds for ``key`` (overlay or kept), ``_MISSING`` when nothing."""
        vals = self._vals
        if vals is _NO_VALS:
            return self._kept(key)
        return vals.get(key, _MISSING)

    def child_node(self, key: str, cls: type[N]) -> N | None:
        """The sub-document at ``key`` as a node of class ``cls`` (kept for identity): the
        view :meth:`child_view` gives, held here from the start."""
        node = self.child_view(key, cls)
        view: Node | None = node
        if view is not None and view._key is not None:  # noqa: SLF001  (Node's own protocol)
            # What _attach does for a key nothing holds yet (child_view found the element).
            self._keep(key, view)
            view._key = None  # noqa: SLF001
        return node

    def child_view(self, key: str, cls: type[N]) -> N | None:
        """The sub-document at ``key`` as a node of class ``cls``, not kept unless edited: the
        node this one holds for ``key`` when it holds one (an edited or kept child), else a
        new view that registers itself here on its first edit (see the module docstring)."""
        value = self._held(key)
        if value is not _MISSING:
            return value if isinstance(value, cls) else None
        if self._keys is not None and key not in self._keys:
            return None
        elem = self._element(key)
        if elem is None or elem[0] != raw.DOCUMENT:
            return None
        node = cls(self._buf, elem[2], elem[3], self)
        node._key = key
        return node

    def holder(self) -> Node | None:
        """For a view: the node its owner holds for the same key when that is another one
        (a view taken before another view of the key was edited is stale: its reads and
        edits belong to the held one); None otherwise."""
        return self._holder_in(self._owner)

    def _holder_in(self, owner: Node | None) -> Node | None:
        """:meth:`holder` with ``owner`` for the node holding this view's key (a subclass
        may own views for another node: :meth:`Member.holder`)."""
        key = self._key
        if key is None or owner is None:
            return None
        held = owner._held(key)  # noqa: SLF001  (Node's own protocol, on a Node)
        return held if isinstance(held, Node) and held is not self else None

    def fields_node(self, make: bool) -> Node | None:
        """The node holding the member views this one hands out (see :meth:`holder`): itself;
        a component's ``Data`` node (made now with ``make``), as its fields live there."""
        return self

    def child_nodes(self, key: str, cls: type[N]) -> list[N] | None:
        """The array at ``key`` as a list of nodes (non-document items are kept as values)."""
        value = self._held(key)
        if value is not _MISSING:
            return value if isinstance(value, list) else None
        if self._keys is not None and key not in self._keys:
            return None
        elem = self._element(key)
        if elem is None or elem[0] != raw.ARRAY:
            return None
        buf = self._buf
        items: list[Any] = []
        for item in raw.array_items(buf, elem[2], elem[3]):
            if item[0] == raw.DOCUMENT:
                items.append(cls(buf, item[2], item[3], self))
            else:
                items.append(raw.scalar(buf, item))
        self._keep(key, items)
        return items

    def decoded(self) -> dict[str, Any]:
        """The whole document as plain Python values (int64 as Int64)."""
        if not self._dirty:
            return raw.decode_doc(self._buf, self._start, self._end)
        return {key: self.get(key) for key in self.keys()}

    # -- writing --------------------------------------------------------------------------
    def _own_vals(self) -> dict[str, Any]:
        vals = self._vals
        if vals is _NO_VALS:
            vals = self._vals = {}
        return vals

    def touch(self, key: str | None = None) -> None:
        """Mark this node and its ancestors as needing re-assembly, and tell the top one
        (the data tree, which records it: :mod:`brson.model.overlay`) that ``key`` of this
        node was edited (None: a value inside one of its lists was changed in place)."""
        node: Node = self
        while True:
            node._dirty = True
            if node._vals is _NO_VALS:
                node._settle()
            owner = node._owner
            if owner is None:
                break
            if node._key is not None:
                node._attach(owner)
                owner = node._owner  # a view may attach elsewhere (Member's lazy owner)
                assert owner is not None
            node = owner
        node.after_edit(self, key)

    def _attach(self, owner: Node) -> None:
        """A view's first edit: its owner holds it from now on, so the owner writes it and
        hands it out again.  A stale view (another node is held for its key) refuses: its
        edit would be lost silently."""
        key = self._key
        assert key is not None
        held = owner._held(key)
        if held is _MISSING:
            if Node.__contains__(owner, key):
                owner._own_vals()[key] = self
            self._key = None
        elif held is not self:
            raise ModelError(
                f"{key!r} was edited through another object since this one was read; "
                "read it again from its component or slot"
            )

    def after_edit(self, edited: Node, key: str | None) -> None:
        """Hook for the top node of a tree, after ``edited``'s ``key`` was edited below it
        (the data tree records the edit and drops caches derived from content)."""

    def set(self, key: str, value: Any) -> None:
        """Set one raw key of this document to ``value`` (plain values, a Node or a list of
        them), appended when new, in place when not; marks the node and its ancestors for
        re-assembly.  Low level: no width or kind is kept (``Member.value`` and
        :func:`brson.model.edit.set_value` do that) and no reference is followed."""
        # Node's own key test: subclasses redefine ``in`` (a Component's means "has member").
        if not Node.__contains__(self, key):
            self._keys = [*self.keys(), key]
        self._own_vals()[key] = value
        _adopt(value, self)
        self.touch(key)

    def delete_key(self, key: str) -> None:
        """Remove one raw key of this document (nothing when absent).  Named apart from
        :meth:`Slot.remove` / :meth:`Component.remove`, which delete the *element* from its
        tree and handle the references to it; this only drops a key."""
        if Node.__contains__(self, key):
            self._keys = [k for k in self.keys() if k != key]
            self._own_vals().pop(key, None)
            self.touch(key)

    @property
    def modified(self) -> bool:
        return self._dirty

    # -- the node protocol: what the other modules and layers read of a node ---------------
    @property
    def buffer(self) -> bytes:
        """The bytes this node was read from (the whole tree's document; empty when an edit
        built it)."""
        return self._buf

    def element_index(self) -> dict[str, raw.Element]:
        """The node's original elements by key: ``(type, start, value start, value end)``
        offsets into :attr:`buffer`, indexed on first use and kept."""
        return self._index()

    def element(self, key: str) -> raw.Element | None:
        """One original element by key, as :meth:`element_index` has it.  A slot in the
        shared layout answers from its compact element ends without building the index dict
        (a walk that reads three keys of each slot built a dict of 14 tuples per slot)."""
        return self._element(key)

    def original_bytes(self) -> memoryview:
        """The node's bytes as read (what an unmodified node writes)."""
        return memoryview(self._buf)[self._start : self._end]

    @property
    def owner(self) -> Node | None:
        """The node holding this one (edits mark it and its owners modified)."""
        return self._owner

    @owner.setter
    def owner(self, node: Node | None) -> None:
        self._owner = node
        self._key = None  # held by its new owner (as a value or in a list), no longer a view

    @property
    def overlay(self) -> Mapping[str, Any]:
        """Values handed out or edited, by key: child nodes, lists of them, new values."""
        return self._vals

    @property
    def tree(self) -> DataTree | None:
        """The data tree that handed this node out (None for a node not reached from one)."""
        return self._tree

    @tree.setter
    def tree(self, tree: DataTree | None) -> None:
        self._tree = tree

    @property
    def span(self) -> tuple[int, int]:
        """Where this node's bytes start and end in :attr:`buffer` (``(0, 0)`` for a node an
        edit built): byte offsets found by scanning the buffer (an ID's definition) lead
        back to their node by it without descending the tree."""
        return self._start, self._end

    def to_bson(self) -> bytes:
        if not self._dirty:
            return self._buf[self._start : self._end]
        return _assemble(self)


def _adopt(value: Any, owner: Node) -> None:
    if isinstance(value, Node):
        value.owner = owner
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, Node):
                item.owner = owner


def _plain(value: Any) -> Any:
    if isinstance(value, Node):
        return value.decoded()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class _Writer:
    """Pieces of a document being re-assembled, with lengths patched in when each closes.

    Children are yielded to the driver in :func:`_assemble` instead of being serialized by a
    recursive call: an edit deep in a tree dirties every ancestor, and trees can be thousands
    of levels deep.  Original bytes go in as views and are copied once, by the final join,
    instead of once per dirty level above them.
    """

    __slots__ = ("out", "size")

    def __init__(self) -> None:
        self.out: list[bytes | memoryview] = []
        self.size = 0

    def put(self, piece: bytes | memoryview) -> None:
        self.out.append(piece)
        self.size += len(piece)

    def open(self) -> tuple[int, int]:
        self.out.append(b"")
        self.size += 4
        return len(self.out) - 1, self.size - 4

    def close(self, mark: tuple[int, int]) -> None:
        self.put(b"\x00")
        self.out[mark[0]] = raw.int32_bytes(self.size - mark[1])

    def node(self, node: Node) -> Iterator[Node]:
        """Emit a dirty node; yields each child node whose bytes go next."""
        mark = self.open()
        view = memoryview(node.buffer)
        idx = node.element_index() if node.buffer else {}
        for key in node:
            value = node.overlay.get(key, _MISSING)
            if value is _MISSING:
                _, pos, _, vend = idx[key]
                self.put(view[pos:vend])
            elif isinstance(value, Node):
                self.put(raw.element_header(raw.DOCUMENT, key))
                yield value
            elif isinstance(value, list) and any(isinstance(v, Node) for v in value):
                self.put(raw.element_header(raw.ARRAY, key))
                inner = self.open()
                for i, item in enumerate(value):
                    if isinstance(item, Node):
                        self.put(raw.element_header(raw.DOCUMENT, str(i)))
                        yield item
                    else:
                        self.put(raw.encode_element(str(i), item))
                self.close(inner)
            else:
                self.put(raw.encode_element(key, value))
        self.close(mark)


def _assemble(top: Node) -> bytes:
    writer = _Writer()
    stack = [writer.node(top)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif child.modified:
            stack.append(writer.node(child))
        else:
            writer.put(child.original_bytes())
    return b"".join(writer.out)
