"""A data tree's edits, in one place, and when two reads give the same object.

Each node keeps what it holds in memory (:attr:`Node.overlay`: the child nodes it handed out
and the values an edit gave it); writing re-assembles only the modified nodes from their
original bytes plus the new values.  :class:`Edits` (``tree.edits``) records every node whose
own keys an edit set or removed, in the order first edited; ``tree.modified`` is true exactly
when it holds one.

The identity contract (docs/data-tree.md states it whole): slots, components, a component's
``Data`` and a slot's ``Components`` member are one object each for the life of the tree;
members are views (one object per read was most of the memory), equal by ``==``, and the
first edit through a view registers it with its owner, so a member read earlier forwards to
it.  Removed elements, and everything read before ``discard_edits()``, are detached: an edit
through them raises ModelError rather than be lost.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from brson.errors import ModelError
from brson.model.node import Node

if TYPE_CHECKING:
    from brson.model.tree import DataTree


class _Removed:
    """What :attr:`Edit.changes` gives for a key the edit removed."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "REMOVED"


#: The value :attr:`Edit.changes` gives for a key an edit removed.
REMOVED: Any = _Removed()


class Edit(NamedTuple):
    """One edited node: the keys an edit set or removed on it, in first-edit order (a
    key set twice is listed once)."""

    node: Node
    keys: tuple[str, ...]

    @property
    def changes(self) -> dict[str, Any]:
        """What the node holds now for each edited key (a value, a node, a list of them), or
        :data:`REMOVED`."""
        held: Mapping[str, Any] = self.node.overlay
        present = set(self.node.keys())
        return {key: held.get(key) if key in present else REMOVED for key in self.keys}


class Edits:
    """The edits of one data tree (see the module docstring); its ``edits`` attribute."""

    __slots__ = ("_by_node", "_tree")

    def __init__(self, tree: DataTree) -> None:
        self._tree = tree
        #: id(node) -> (node, keys edited).  Keyed by identity: members compare equal across
        #: views of one field, and the node an edit registered is the one that holds it.
        self._by_node: dict[int, tuple[Node, list[str]]] = {}

    def record(self, node: Node, key: str | None) -> None:
        """Note an edit of ``node``'s ``key`` (None: a value inside a list or document the
        node holds was changed in place, the node's keys are the same)."""
        entry = self._by_node.get(id(node))
        if entry is None:
            entry = self._by_node[id(node)] = (node, [])
        if key is not None and key not in entry[1]:
            entry[1].append(key)

    def __bool__(self) -> bool:
        return bool(self._by_node)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __iter__(self) -> Iterator[Edit]:
        """The edits still in the tree, in the order their nodes were first edited (an edit
        below a removed element is not: it will not be written)."""
        attached = _Attachment(self._tree)
        for node, keys in list(self._by_node.values()):
            if attached(node):
                yield Edit(node, tuple(keys))

    def __contains__(self, node: object) -> bool:
        """Whether an edit changed ``node``'s own keys (``node.modified`` also says so of
        every node above an edit)."""
        entry = self._by_node.get(id(node))
        return entry is not None and entry[0] is node and _Attachment(self._tree)(entry[0])

    def keys(self, node: Node) -> tuple[str, ...]:
        """The keys edits set or removed on ``node`` (empty when none did)."""
        entry = self._by_node.get(id(node))
        return tuple(entry[1]) if entry is not None and entry[0] is node else ()

    def clear(self) -> None:
        """Forget every edit (the tree's :meth:`~brson.model.tree.DataTree.discard_edits`)."""
        self._by_node.clear()


def detach(node: Node, why: str) -> None:
    """Cut ``node`` (and so everything below it) off its tree: it still reads as it was,
    and an edit through it raises ModelError saying ``why`` (it would not be written).
    Setting it into a node of a tree again (``Node.set``) attaches it there."""
    node.owner = Detached(why)


def refuse_detached(node: Node) -> None:
    """ModelError when ``node`` is detached (it or an owner of it is): for an edit that would
    change the tree before the edit of ``node`` itself refuses (a removal nulls references
    first)."""
    top: Node = node
    while (owner := top.owner) is not None:
        top = owner
    if isinstance(top, Detached):
        top.after_edit(node, None)


class Detached(Node):
    """The owner of a detached node (:func:`detach`): the top its edits reach, refusing."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        Node.__init__(self, b"", 0, 0)
        self.why = why

    def after_edit(self, edited: Node, key: str | None) -> None:
        raise ModelError(
            f"this element was {self.why}, so an edit through it would not be written; "
            "read it again from the tree"
        )


class _Attachment:
    """Whether nodes are held, owner by owner, up to the tree (what the tree writes), for
    one listing: each node's answer and each owner's held objects are worked out once, so
    listing edits costs the nodes on their chains and the lists those hold, not that times
    the edits (siblings' edits all pass their parent's ``Children``)."""

    __slots__ = ("_held", "_known")

    def __init__(self, tree: DataTree) -> None:
        self._known: dict[int, bool] = {id(tree): True}
        self._held: dict[int, set[int]] = {}

    def __call__(self, node: Node) -> bool:
        known = self._known
        chain: list[Node] = []  # kept alive while their ids are keys
        state = known.get(id(node))
        while state is None:
            chain.append(node)
            owner = node.owner
            if owner is None or id(node) not in self._holding(owner):
                state = False
            else:
                node = owner
                state = known.get(id(node))
        for passed in chain:
            known[id(passed)] = state
        return state

    def _holding(self, owner: Node) -> set[int]:
        held = self._held.get(id(owner))
        if held is None:
            held = self._held[id(owner)] = set()
            for value in owner.overlay.values():
                if type(value) is list:
                    held.update(id(item) for item in value if isinstance(item, Node))
                elif isinstance(value, Node):
                    held.add(id(value))
        return held
