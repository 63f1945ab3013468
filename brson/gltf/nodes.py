"""The glTF ``nodes`` array of a document under construction, a node's compact JSON text each.

Why: an export makes a node per slot.  Held as dicts (a name, three lists of floats, an
extras dict and its list) until the JSON was written, they were most of the export's memory
on a world of many small slots, and encoding them most of its writing.  A slot's node is
known whole when it is made, but for what comes later (its mesh and weights, its children, a
skin), so it is kept as its text up to there (:meth:`Nodes.add_text`, made by
:func:`node_text`) and the later members beside it, sparse; children as links between node
numbers.  A node made as a dict (:meth:`Nodes.add`) is kept as that dict.

Each node is written as ``json.dumps(node, separators=(",", ":"), allow_nan=False)`` writes
the dict it stands for, byte for byte: members in the order a dict would hold them (set
order; ``children`` where the first child was added), floats by ``float.__repr__``, strings
by the encoder's own ASCII escaping.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator, Sequence
from json.encoder import encode_basestring_ascii
from typing import Any

#: The extension marking a hidden node, written into the node's text.
VISIBILITY = "KHR_node_visibility"
_HIDDEN = ',"extensions":{"' + VISIBILITY + '":{"visible":false}}'

#: Where ``children`` stands among a text node's later members (its value: the links).
_CHILDREN = "children"


def compact(value: Any) -> bytes:
    """``value`` as compact JSON (UTF-8; non-finite floats refused, as glTF has none)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode("utf-8")


def value_text(value: Any) -> str:
    """:func:`compact`'s text of one value, strings and None without the encoder's set-up."""
    if type(value) is str:
        return encode_basestring_ascii(value)
    if value is None:
        return "null"
    return compact(value).decode("ascii")


def floats_text(values: Sequence[float]) -> str:
    """A list of finite floats as ``json.dumps`` writes it."""
    return "[" + ",".join(map(float.__repr__, values)) + "]"


def node_text(name: str, transform: str, extras: str, hidden: bool) -> bytes:
    """A node's compact JSON as made: ``{"name": name}``, the text of its transform members
    (``,"translation":[...]`` and so on, or ""), ``"extras"`` (its value's JSON text) and,
    ``hidden``, the visibility extension."""
    parts = ['{"name":', encode_basestring_ascii(name), transform, ',"extras":', extras]
    if hidden:
        parts.append(_HIDDEN)
    parts.append("}")
    return "".join(parts).encode("ascii")


class Nodes:
    """The nodes by number: each a dict, or a text (and its later members, its children)."""

    def __init__(self) -> None:
        self._items: list[bytes | dict[str, Any]] = []
        #: A text node's members set after it was made, in the order they were set.
        self._late: dict[int, dict[str, Any]] = {}
        #: A text node's children: its first and last child, and each node's next sibling.
        self._first = array("q")
        self._last = array("q")
        self._next = array("q")

    def __len__(self) -> int:
        return len(self._items)

    def _append(self, item: bytes | dict[str, Any]) -> int:
        self._items.append(item)
        self._first.append(-1)
        self._last.append(-1)
        self._next.append(-1)
        return len(self._items) - 1

    def add(self, node: dict[str, Any]) -> int:
        """Append a node kept as the dict itself (written as it is then); its number."""
        return self._append(node)

    def add_text(self, text: bytes) -> int:
        """Append a node given as the compact JSON text of its first members (a JSON object,
        as :func:`node_text` makes: later members go before its closing brace); its number."""
        return self._append(text)

    def set(self, index: int, key: str, value: Any) -> None:
        """``node[key] = value``."""
        item = self._items[index]
        if isinstance(item, dict):
            item[key] = value
            return
        late = self._late.get(index)
        if late is None:
            late = self._late[index] = {}
            if self._first[index] >= 0:  # children came first
                late[_CHILDREN] = None
        late[key] = value

    def add_child(self, parent: int, child: int) -> None:
        """``node.setdefault("children", []).append(child)`` for node ``parent``."""
        item = self._items[parent]
        if isinstance(item, dict):
            item.setdefault(_CHILDREN, []).append(child)
            return
        last = self._last[parent]
        if last < 0:
            self._first[parent] = child
            late = self._late.get(parent)
            if late is not None:
                late.setdefault(_CHILDREN, None)
        else:
            self._next[last] = child
        self._last[parent] = child

    def children(self, index: int) -> list[int]:
        """Node ``index``'s children, in the order they were added."""
        item = self._items[index]
        if isinstance(item, dict):
            return list(item.get(_CHILDREN, ()))
        out, child, following = [], self._first[index], self._next
        while child >= 0:
            out.append(child)
            child = following[child]
        return out

    def text(self, index: int) -> bytes:
        """Node ``index`` as compact JSON."""
        item = self._items[index]
        if isinstance(item, dict):
            return compact(item)
        late = self._late.get(index)
        if late is None:
            if self._first[index] < 0:
                return item  # the text as made, not a copy (a world's leaves: most nodes)
            return item[:-1] + b',"children":' + compact(self.children(index)) + b"}"
        parts = [item[:-1]]
        comma = item != b"{}"
        for key, value in late.items():
            parts += (b"," if comma else b"", encode_basestring_ascii(key).encode(), b":")
            parts.append(compact(self.children(index) if key == _CHILDREN else value))
            comma = True
        parts.append(b"}")
        return b"".join(parts)

    def node(self, index: int) -> dict[str, Any]:
        """Node ``index`` as the dict it stands for (a text node read back: the same JSON)."""
        item = self._items[index]
        if isinstance(item, dict):
            return item
        found: dict[str, Any] = json.loads(self.text(index))
        return found

    def dicts(self) -> list[dict[str, Any]]:
        return [self.node(index) for index in range(len(self._items))]

    def pieces(self) -> Iterator[bytes]:
        """The array as compact JSON, a piece a node and one between nodes."""
        yield b"["
        for index in range(len(self._items)):
            if index:
                yield b","
            yield self.text(index)
        yield b"]"

    def indented(self, level: int, batch: int) -> Iterator[str]:
        """The array as ``json.dumps(nodes, indent=1)`` writes it ``level`` deep in a document
        (its lines after the first indented by ``level`` more), ``batch`` nodes a piece."""
        if not self._items:
            yield "[]"
            return
        yield "["
        shift = "\n" + " " * level
        for at in range(0, len(self._items), batch):
            dicts = [self.node(index) for index in range(at, min(at + batch, len(self._items)))]
            text = json.dumps(dicts, indent=1, allow_nan=False)[1:-2].replace("\n", shift)
            yield text if at == 0 else "," + text
        yield shift + "]"
