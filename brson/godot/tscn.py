"""TSCN text scenes for Godot 3 (``format=2``) and Godot 4 (``format=3``).

A scene is described by :class:`SceneNode` / :class:`SubResource` objects holding Godot class
and property names plus values (Python values and :mod:`brson.godot.values` types);
:func:`write` turns them into the text the given engine version loads.  The two versions differ
in the header, resource ids, class names of literals (``Transform`` vs ``Transform3D``), spacing,
special floats and how metadata is stored; ``../shared/notes/godot.md`` §6-7 has the facts.

Why the writer, not the caller, fixes node names: both engines load a TSCN without sanitising
names, and a name holding ``/`` or ``:`` later breaks the ``parent=`` paths of its children
(the child is dropped or re-parented).  So names are made valid by the version's own rule and
unique among siblings here, where the paths are written.

Floats are written with Python's shortest round-trip ``repr``.  Godot's decimal parser
(``built_in_strtod``, the same in 3.x and 4.x) is not correctly rounded: it reads about a third
of 17-digit doubles one unit in the last place off, and no decimal text reaches ~1% of doubles.
Values therefore arrive within one ulp of a double, which is far below the engines' float32
transforms; the binary Variant export (``--variant``) is the bit-exact path.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from brson._speedups import load
from brson.errors import VariantError
from brson.godot import values as gv
from brson.godot.wire import INT64_MAX, INT64_MIN

# The compiled writer (brson/_speedups/_tscnc.c) formats the floats of math literals (a scene
# writes twelve a node for its transform); :func:`real` is its reference and what runs without
# it or for what it is not sure of (nan, inf, numbers that are not floats).
if TYPE_CHECKING:
    from brson._speedups import _tscnc
else:
    _tscnc = load("_tscnc")

#: ``format=`` written for each engine major version.
FORMAT = {3: 2, 4: 3}

#: Characters each version refuses in node names: Godot 3.2 ``Node::set_name`` deletes them,
#: Godot 4 ``String::validate_node_name`` replaces each with ``_`` (``%`` marks unique names).
INVALID_NAME_CHARS = {3: '.:@/"', 4: '.:@/"%'}
#: ``str.translate`` tables of each version's rule (Godot 3 drops, Godot 4 replaces by ``_``),
#: NUL dropped by both; built once (a slot name is sanitised per exported node).
_NAME_TABLES: dict[int, dict[int, str | None]] = {
    3: {ord(c): None for c in INVALID_NAME_CHARS[3] + "\x00"},
    4: {**{ord(c): "_" for c in INVALID_NAME_CHARS[4]}, 0: None},
}

#: Longest node name written, and deepest node.  Every node's ``parent=`` spells its whole
#: path, so a scene grows with depth times name length per node: a 2,000-deep tree of
#: 1,000-character names made a 2 GB scene from a 20 KB archive.  Node names are
#: for finding nodes in the editor; the slot's whole name stays in the node's metadata.
MAX_NODE_NAME = 64
MAX_SCENE_DEPTH = 1024

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: Mantissa digits Godot's ``built_in_strtod`` reads; it ignores the rest.
_PARSER_DIGITS = 18

#: Escapes both engines' tokenizers read back (``\\uXXXX`` for the other control characters).
_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\b": "\\b",
    "\f": "\\f",
}
_NEEDS_ESCAPE = re.compile(r'[\\"\x00-\x1f\x7f]')


#: Packed arrays with a TSCN literal: (Godot 3 name, Godot 4 name, components of an item;
#: None for integers).  Literals list every component flat: ``PoolVector3Array( 0, 0, 1, ... )``.
_PACKED: dict[type, tuple[str, str, Callable[[Any], Sequence[float]] | None]] = {
    gv.PackedInt32Array: ("PoolIntArray", "PackedInt32Array", None),
    gv.PackedFloat32Array: ("PoolRealArray", "PackedFloat32Array", lambda v: (v,)),
    gv.PackedVector2Array: ("PoolVector2Array", "PackedVector2Array", lambda v: (v.x, v.y)),
    gv.PackedVector3Array: ("PoolVector3Array", "PackedVector3Array", lambda v: (v.x, v.y, v.z)),
    gv.PackedColorArray: ("PoolColorArray", "PackedColorArray", lambda v: (v.r, v.g, v.b, v.a)),
}


@dataclass(eq=False)
class SubResource:
    """A resource embedded in the scene (``[sub_resource]``), referenced from properties.

    Identity matters: the same object used twice is written once and referenced twice.
    """

    type: str
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class SceneNode:
    """One node: wanted name, Godot class, properties in write order, metadata, children.

    A subclass may compute ``metadata`` when it is read and set :attr:`deferred_metadata`:
    :func:`write_chunks` then reads it only when that node's turn comes and drops it after,
    so a scene whose metadata is a whole world's data decoded (15x its BSON) never holds it
    all at once.  Deferred metadata is BSON data: string keys, no sub-resources.
    """

    #: Read ``metadata`` only while writing this node (see above).
    deferred_metadata: ClassVar[bool] = False

    name: str
    type: str
    properties: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    children: list[SceneNode] = field(default_factory=list)

    def deferred_metadata_for(self, godot: int) -> Mapping[str, Any]:
        """The deferred metadata as the writer of version ``godot`` takes it: values may be
        :class:`Godot3Text` / :class:`Godot4Text` (already rendered for that version, e.g.
        straight from BSON bytes)."""
        return self.metadata


class Godot3Text(str):
    """A metadata value already written as its Godot 3 literal (deferred metadata only)."""


class Godot4Text(str):
    """A metadata value already written as its Godot 4 literal (deferred metadata only)."""


#: The rendered-text class of each version.
RENDERED: dict[int, type[str]] = {3: Godot3Text, 4: Godot4Text}


@dataclass(frozen=True)
class PlacedNode:
    """A node with the name and paths it gets in the file (pre-order, root first)."""

    node: SceneNode
    #: The name written: sanitised for the version and unique among its siblings.
    name: str
    #: ``parent=`` as written: None for the root, ``"."`` for its children, else a path.
    parent: str | None
    #: Path from the scene root: ``"."`` for the root itself, else ``"A/B"``.
    path: str


# --- names ------------------------------------------------------------------------------------


def sanitize_name(name: str | None, godot: int, fallback: str = "Node") -> str:
    """``name`` as the engine's own ``set_name`` would leave it; ``fallback`` if nothing is left.

    NUL is removed as well: engine strings end there.
    """
    text = (name or "").translate(_NAME_TABLES[_check_version(godot)])
    return text or fallback


def unique_names(names: Sequence[str]) -> list[str]:
    """Siblings' names made distinct: the first keeps its name, repeats become ``Name2``, ….

    A generated name never takes a name another sibling already has (``A, A, A2`` gives
    ``A, A3, A2``), so the result does not depend on which sibling is renamed.
    """
    taken = set(names)
    used: set[str] = set()
    #: Per repeated name, the number to try next: siblings often share one name (hundreds
    #: of "Slot"s), and counting up from 2 for each repeat was quadratic in their number.
    next_number: dict[str, int] = {}
    out: list[str] = []
    for name in names:
        if name in used:
            number = next_number.get(name, 2)
            while f"{name}{number}" in taken or f"{name}{number}" in used:
                number += 1
            next_number[name] = number + 1
            name = f"{name}{number}"
        used.add(name)
        out.append(name)
    return out


def layout(root: SceneNode, godot: int, fallback: str = "Node") -> list[PlacedNode]:
    """Every node in file order (pre-order) with its final name and paths.

    ``fallback`` names a node whose name is empty once sanitised.
    """
    _check_version(godot)
    out: list[PlacedNode] = []
    root_name = node_name(root.name, godot, fallback)
    stack: list[tuple[SceneNode, str, str | None, str, int]] = [(root, root_name, None, ".", 0)]
    while stack:
        node, name, parent, path, depth = stack.pop()
        out.append(PlacedNode(node, name, parent, path))
        if node.children:
            check_depth(depth)
        names = unique_names([node_name(c.name, godot, fallback) for c in node.children])
        prefix = "" if path == "." else path + "/"
        for child, child_name in reversed(list(zip(node.children, names, strict=True))):
            stack.append((child, child_name, path, prefix + child_name, depth + 1))
    return out


def node_name(name: str | None, godot: int, fallback: str) -> str:
    """The name written (before siblings are made unique): valid for the engine and no longer
    than :data:`MAX_NODE_NAME` (the slot's whole name is in the node's metadata)."""
    return sanitize_name(name, godot, fallback)[:MAX_NODE_NAME]


def check_depth(depth: int) -> None:
    """Refuse a node with children at :data:`MAX_SCENE_DEPTH` (the check of :func:`layout`)."""
    if depth == MAX_SCENE_DEPTH:
        raise VariantError(
            f"the tree is more than {MAX_SCENE_DEPTH} levels deep: a scene spells every "
            "node's whole path, so deeper trees are not written"
        )


# --- literals ---------------------------------------------------------------------------------


def escape(text: str) -> str:
    """C-style escaping both engines' tokenizers read back, for headers and values alike."""
    if not _NEEDS_ESCAPE.search(text):
        return text
    return _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m[0], f"\\u{ord(m[0]):04x}"), text)


def quote(text: str) -> str:
    return '"' + escape(text) + '"'


def real(number: float, godot: int) -> str:
    """A float field of a math type (``Vector3( 1, 0.5, 0 )``): integral values without ``.0``."""
    text = _float_text(float(number), godot)
    return text[:-2] if text.endswith(".0") else text


def _float_text(number: float, godot: int) -> str:
    text = repr(number)
    if text[-1] > "9":  # finite numbers end in a digit; these are nan, inf and -inf
        if math.isnan(number):
            return "nan"
        if number > 0:
            return "inf"
        # 4.x has a keyword; 3.x writes -inf as "-inf.0", which its own parser refuses, but a
        # literal beyond the double range overflows to -inf (exponents > 511 also warn).
        return "inf_neg" if godot == 4 else "-1e400"
    if len(text) <= _PARSER_DIGITS + 1:  # sign or point included: at most 18 digits
        return text
    mantissa = text.partition("e")[0]
    # repr's mantissa is digits, a point and a sign: counted without a loop per character
    # (a scene writes twelve numbers a node through here).
    if len(mantissa) - mantissa.count(".") - mantissa.count("-") <= _PARSER_DIGITS:
        return text
    # Godot's parser keeps only the first 18 mantissa digits, leading zeros included, so
    # 0.0008727497770451009 would lose five significant digits; scientific form keeps them.
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if body.startswith("0.") and "e" not in body:  # the only form repr gives this long
        fraction = body[2:]
        digits = fraction.lstrip("0")
        exponent = len(digits) - len(fraction) - 1
        return f"{'-' if negative else ''}{digits[0]}.{digits[1:] or '0'}e{exponent}"
    sign, places, power = Decimal(text).as_tuple()
    assert isinstance(power, int)
    head, tail = str(places[0]), "".join(map(str, places[1:]))
    return f"{'-' if sign else ''}{head}.{tail or '0'}e{power + len(places) - 1}"


#: What :meth:`_Writer.literal` writes (``math_literal`` lists the Godot types one by one).
_LITERAL_TYPES = (
    type(None),
    bool,
    int,
    float,
    str,
    bytes,
    bytearray,
    Mapping,
    list,
    tuple,
    SubResource,
    gv.Vector2,
    gv.Vector3,
    gv.Quaternion,
    gv.Color,
    gv.Basis,
    gv.Transform3D,
    gv.AABB,
    gv.NodePath,
    gv.StringName,
)


def _not_json(value: Any) -> Any:
    raise TypeError(type(value).__name__)


#: Godot 4 literals of BSON data through json's C encoder (see :func:`_bson_container4`).
#: The separators are control characters, which the encoder escapes inside strings, so
#: every ``\x01`` (between items) and ``\x02`` (after a key) in its output is structural.
_JSON = json.JSONEncoder(
    ensure_ascii=False,
    allow_nan=False,  # nan and inf are Godot keywords, not JSON: those values go the slow way
    check_circular=False,
    separators=("\x01", "\x02"),
    default=_not_json,
)
#: Followed by a key: a whole string token, then the key separator.  A ``{`` or ``\x01``
#: inside a string cannot be: an unescaped quote after it closes that string, and no
#: second string starts before the next separator.  Without backslashes in the text (no
#: escaped quotes), a string token is simply ``"[^"]*"``, which is faster to match.
_KEY_AHEAD = r'(?="(?:[^"\\\x01\x02]|\\.)*"\x02)'
_KEY_AHEAD_PLAIN = r'(?="[^"]*"\x02)'
_DICT_OPEN = re.compile(r"\{" + _KEY_AHEAD), re.compile(r"\{" + _KEY_AHEAD_PLAIN)
_DICT_ITEM = re.compile("\x01" + _KEY_AHEAD), re.compile("\x01" + _KEY_AHEAD_PLAIN)
#: Closing a container: only closers, then a separator or the end (in a string, the
#: closing quote would come first).  Empty dictionaries become ``{\n}``, which nothing
#: else can (JSON strings hold no newline), and are put back as ``{}``.
_CLOSES = r"(?=[\]}]*(?:\x01|\Z))"
_DICT_CLOSE = re.compile(r"\}" + _CLOSES)
#: A number token (after a separator or ``[``, before closers and a separator) that may
#: be longer than Godot's parser reads (:func:`_float_text`).  ``repr`` has at most 17
#: significant digits and writes numbers under 1e-4 or from 1e16 in scientific form, so
#: only ``0.`` followed by 18 or more digits (``0.0`` and 17 significant ones) exceeds 18
#: digits; ``0.`` and 17 digits is 18 digits, which :func:`_float_text` leaves as it is,
#: so those (a third of a world's numbers) need no call back into Python.
#: (Starting with the literal ``0.`` lets ``re`` skip ahead fast; what precedes the token
#: is checked by :func:`_godot4_number`.)
_LONG_NUMBER = re.compile(r"0\.[0-9]{18,}" + _CLOSES)
_LONG_DIGITS = re.compile(r"0\.[0-9]{18}")


def _godot4_number(match: re.Match[str]) -> str:
    start = match.start()
    text, before = match[0], match.string[max(0, start - 2) : start]
    if not before.endswith(("\x01", "\x02", "[", "\x01-", "\x02-", "[-")):
        return text  # the tail of another token
    return _float_text(float(text), 4)  # repr's own digits: float() gives the same double


def _bson_container4(value: dict[str, Any] | list[Any]) -> str | None:
    """A decoded BSON document or array as its Godot 4 literal, at C speed, or None when it
    holds something the fast path does not write the way :meth:`_Writer.literal` does
    (bytes, nan/inf, ``\\x7f``, BSON-only types, nesting past the encoder's limit).

    Godot 4's literal is JSON's with other spacing: dictionaries ``{\\n"k": v,\\n"k2": v2\\n}``
    (``{}`` when empty), arrays ``[a, b]``, floats as ``repr`` (past 18 digits rewritten).
    One ``literal()`` per member was most of an export's time (~1 µs a value).
    """
    try:
        text = _JSON.encode(value)
    except (TypeError, ValueError, RecursionError):
        return None
    if "\x7f" in text:  # JSON leaves DEL as it is; the writer escapes it
        return None
    if _LONG_DIGITS.search(text) is not None:
        text = _LONG_NUMBER.sub(_godot4_number, text)
    plain = "\\" not in text
    text = _DICT_OPEN[plain].sub("{\n", text)
    text = _DICT_CLOSE.sub("\n}", text).replace("{\n}", "{}")
    text = _DICT_ITEM[plain].sub(",\n", text)
    return text.replace("\x01", ", ").replace("\x02", ": ")


class _Raw(str):
    """Text already in TSCN form (punctuation between the parts of a container)."""


_COLON, _COMMA, _ITEM_SEPARATOR = _Raw(": "), _Raw(", "), _Raw(",\n")


class _Writer:
    """Literal formatting for one engine version.

    A sub-resource is rendered when first referenced, after the resources it refers to, so
    ``resource_lines`` lists dependencies first, as the loader needs, in one pass.
    """

    def __init__(self, godot: int, default: Callable[[Any], Any] | None = None) -> None:
        self.godot = _check_version(godot)
        self.default = default
        self.ids: dict[int, str] = {}
        self.pending: set[int] = set()
        self.resource_lines: list[str] = []

    # Resources --------------------------------------------------------------------------------

    def reference(self, resource: SubResource) -> str:
        key = id(resource)
        rid = self.ids.get(key)
        if rid is None:
            if key in self.pending:
                raise VariantError(f"sub-resource {resource.type} refers to itself")
            self.pending.add(key)
            body = list(_properties(self, resource.properties))  # dependencies get ids first
            self.pending.discard(key)
            number = len(self.ids) + 1
            rid = str(number) if self.godot == 3 else f"{resource.type}_{number}"
            self.ids[key] = rid
            rid_text = rid if self.godot == 3 else quote(rid)
            self.resource_lines += [
                f"[sub_resource type={quote(resource.type)} id={rid_text}]",
                *body,
                "",
            ]
        return f"SubResource( {rid} )" if self.godot == 3 else f'SubResource("{rid}")'

    # Literals ---------------------------------------------------------------------------------

    def call(self, name: str, args: Sequence[str]) -> str:
        if self.godot == 3:
            return f"{name}( {', '.join(args)} )" if args else f"{name}(  )"
        return f"{name}({', '.join(args)})"

    def reals(self, name: str, numbers: Sequence[float]) -> str:
        text = _tscnc.reals(numbers, self.godot) if _tscnc is not None and numbers else None
        if text is None:
            return self.call(name, [real(n, self.godot) for n in numbers])
        return f"{name}( {text} )" if self.godot == 3 else f"{name}({text})"

    def literal(self, value: Any) -> str:
        """``value`` as TSCN text; containers are expanded with a stack, not recursion, so
        deeply nested metadata cannot exhaust Python's recursion limit."""
        out: list[str] = []
        stack: list[Any] = [value]
        while stack:
            item = stack.pop()
            kind = type(item)  # exact-type fast paths: most metadata is strings and floats
            if kind is _Raw:
                out.append(item)
            elif kind is str:
                out.append(quote(item))
            elif kind is float:
                out.append(_float_text(item, self.godot))
            elif kind is Godot3Text or kind is Godot4Text:
                if kind is not RENDERED[self.godot]:
                    raise VariantError(f"a {kind.__name__} value in a Godot {self.godot} scene")
                out.append(item)
            elif isinstance(item, Mapping):
                stack.extend(reversed(self._mapping_parts(item)))
            elif isinstance(item, list | tuple):
                stack.extend(reversed(self._sequence_parts(item)))
            else:
                out.append(self.scalar(item))
        return "".join(out)

    def _mapping_parts(self, value: Mapping[Any, Any]) -> list[Any]:
        if not value:
            return [_Raw("{\n}" if self.godot == 3 else "{}")]
        parts: list[Any] = [_Raw("{\n")]
        for key, item in value.items():
            parts += [key, _COLON, item, _ITEM_SEPARATOR]
        parts[-1] = _Raw("\n}")
        return parts

    def _sequence_parts(self, value: Sequence[Any]) -> list[Any]:
        godot3 = self.godot == 3
        if not value:
            return [_Raw("[  ]" if godot3 else "[]")]
        parts: list[Any] = [_Raw("[ " if godot3 else "[")]
        for item in value:
            parts += [item, _COMMA]
        parts[-1] = _Raw(" ]" if godot3 else "]")
        return parts

    def scalar(self, value: Any) -> str:
        """Anything but a container."""
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            if not INT64_MIN <= value <= INT64_MAX:
                raise VariantError(f"integer {value} does not fit a Godot int (int64)")
            return str(int(value))
        if isinstance(value, float):
            return _float_text(value, self.godot)
        if isinstance(value, str):
            return quote(value)
        if isinstance(value, SubResource):
            return self.reference(value)
        return self.math_literal(value)

    def math_literal(self, value: Any) -> str:
        godot3 = self.godot == 3
        if isinstance(value, gv.Vector2):
            return self.reals("Vector2", (value.x, value.y))
        if isinstance(value, gv.Vector3):
            return self.reals("Vector3", (value.x, value.y, value.z))
        if isinstance(value, gv.Quaternion):
            name = "Quat" if godot3 else "Quaternion"
            return self.reals(name, (value.x, value.y, value.z, value.w))
        if isinstance(value, gv.Color):
            return self.reals("Color", (value.r, value.g, value.b, value.a))
        if isinstance(value, gv.Basis):
            return self.reals("Basis", [n for row in value.rows() for n in row])
        if isinstance(value, gv.Transform3D):
            rows = [n for row in value.basis.rows() for n in row]
            origin = value.origin
            return self.reals(
                "Transform" if godot3 else "Transform3D", [*rows, origin.x, origin.y, origin.z]
            )
        if isinstance(value, gv.AABB):
            p, s = value.position, value.size
            return self.reals("AABB", (p.x, p.y, p.z, s.x, s.y, s.z))
        if isinstance(value, gv.NodePath):
            return f"NodePath({quote(str(value))})"
        if isinstance(value, gv.StringName):
            return quote(value.name) if godot3 else "&" + quote(value.name)
        if isinstance(value, bytes | bytearray):
            name = "PoolByteArray" if godot3 else "PackedByteArray"
            return self.call(name, [str(b) for b in value])
        packed = _PACKED.get(type(value))
        if packed is not None:
            name3, name4, flatten = packed
            name = name3 if godot3 else name4
            if flatten is None:
                return self.call(name, [str(int(v)) for v in value.values])
            return self.reals(name, [n for item in value.values for n in flatten(item)])
        return self.literal(self.replace(value))

    def replace(self, value: Any) -> Any:
        """``default(value)`` for a value TSCN has no literal for (see :func:`write`)."""
        what = type(value).__name__
        if self.default is None:
            raise VariantError(f"cannot write a {what} in a TSCN file")
        try:
            value = self.default(value)
        except VariantError:
            raise
        except Exception as exc:  # the caller's hook: any failure is this value's refusal
            raise VariantError(f"cannot write a {what} in a TSCN file ({exc})") from None
        if not isinstance(value, _LITERAL_TYPES):  # one step only: a hook could loop
            raise VariantError(
                f"default() turned {what} into {type(value).__name__}, which "
                "has no TSCN literal either"
            )
        return value


# --- scene ------------------------------------------------------------------------------------


def write(
    root: SceneNode,
    godot: int,
    fallback: str = "Node",
    default: Callable[[Any], Any] | None = None,
) -> str:
    """The TSCN text of the scene under ``root`` for Godot ``godot`` (3 or 4).

    ``default``, as in ``json.dumps``, turns a value that has no TSCN literal into one that
    has; without it such a value is a :class:`~brson.errors.VariantError`.
    """
    return "".join(write_chunks(root, godot, fallback, default))


def write_chunks(
    root: SceneNode,
    godot: int,
    fallback: str = "Node",
    default: Callable[[Any], Any] | None = None,
) -> Iterator[str]:
    """:func:`write`'s text in pieces: the header and sub-resources, then one per node.

    Every node's properties are written first (sub-resources are listed before the nodes and
    Godot 3's header counts them); deferred metadata (:class:`SceneNode`) is read and written
    when its node's piece is made, so a caller writing the pieces out holds one node's.
    """
    text = SceneText(godot, default)
    blocks: list[tuple[PlacedNode, list[str]]] = []
    for item in layout(root, godot, fallback):
        lines = [
            node_header(item.name, item.node.type, item.parent),
            *text.properties(item.node.properties),
        ]
        if not item.node.deferred_metadata:
            lines.extend(_metadata(text.writer, item.node.metadata))
        blocks.append((item, lines))
    yield text.head()
    last = len(blocks) - 1
    for number, (item, lines) in enumerate(blocks):
        if item.node.deferred_metadata:
            lines.extend(text.metadata_lines(item.node.deferred_metadata_for(godot)))
        yield text.node(lines, number == last)
        blocks[number] = (item, [])  # written: let its text go


def node_header(name: str, type: str, parent: str | None) -> str:
    """A node's first line: its written name, class and ``parent=`` path (None: the root)."""
    header = f"[node name={quote(name)} type={quote(type)}"
    if parent is not None:
        header += f" parent={quote(parent)}"
    return header + "]"


class SceneText:
    """The pieces of one scene's text, for a writer that makes its nodes' lines itself.

    The order is the loader's: every property that refers to a sub-resource is written
    (:meth:`properties`) before :meth:`head`, which lists them (and Godot 3 counts them);
    then each node's piece (:meth:`node`) in file order, its BSON metadata added last
    (:meth:`metadata_lines`).
    """

    def __init__(self, godot: int, default: Callable[[Any], Any] | None = None) -> None:
        self.godot = godot
        self.writer = _Writer(godot, default)
        self._steps = 0

    def properties(self, properties: Mapping[str, Any]) -> list[str]:
        return list(_properties(self.writer, properties))

    def transform(self, numbers: Sequence[float]) -> str:
        """The ``transform`` property line of a Transform3D's twelve numbers, basis rows
        first (what :meth:`properties` writes for the value)."""
        name = "Transform" if self.godot == 3 else "Transform3D"
        return "transform = " + self.writer.reals(name, numbers)

    def head(self) -> str:
        """The header and every sub-resource referenced so far."""
        writer = self.writer
        steps = self._steps = len(writer.ids) + 1
        if self.godot == 3:
            head = f"[gd_scene load_steps={steps} format=2]" if steps > 1 else "[gd_scene format=2]"
        else:
            head = f"[gd_scene format={FORMAT[4]}]"
        return "".join(line + "\n" for line in [head, "", *writer.resource_lines])

    def metadata_lines(self, metadata: Mapping[str, Any]) -> list[str]:
        """Deferred metadata (decoded BSON, or text rendered for this version) as lines."""
        lines = list(_metadata(self.writer, metadata, bson_data=True))
        if len(self.writer.ids) + 1 != self._steps:
            raise VariantError("deferred metadata refers to a sub-resource")
        return lines

    @staticmethod
    def node(lines: list[str], last: bool) -> str:
        """A node's piece from its lines (header, properties, metadata)."""
        lines.append("" if last else "\n")
        return "\n".join(lines)


def _properties(writer: _Writer, properties: Mapping[str, Any]) -> Iterator[str]:
    for name, value in properties.items():
        if not name or any(c in name for c in ' ="\n[]'):
            raise VariantError(f"invalid property name {name!r}")
        yield f"{name} = {writer.literal(value)}"


def _metadata(
    writer: _Writer, metadata: Mapping[str, Any], bson_data: bool = False
) -> Iterator[str]:
    """Godot 3: one ``__meta__`` dictionary; Godot 4: a ``metadata/<key>`` line per key.

    Keys are sorted, as the engines write them.  ``bson_data``: the values are decoded BSON
    (string keys only), which Godot 4 containers write through :func:`_bson_container4`.
    """
    if not metadata:
        return
    keys = sorted(metadata)
    if writer.godot == 3:
        text3 = _meta3_text(metadata, keys) if bson_data else None
        if text3 is None:
            text3 = writer.literal({k: metadata[k] for k in keys})
        yield "__meta__ = " + text3
        return
    for key in keys:
        if not _IDENTIFIER.match(key):
            raise VariantError(f"metadata key {key!r} is not an identifier (Godot 4 refuses it)")
        value = metadata[key]
        text: str | None = None
        if type(value) is str:  # what literal() writes for one, without its stack
            text = quote(value)
        elif bson_data and type(value) is Godot4Text:
            text = value
        elif bson_data and type(value) in (dict, list):
            text = _bson_container4(value)
        yield f"metadata/{key} = {text if text is not None else writer.literal(value)}"


def rendered_metadata(godot: int, pairs: Sequence[tuple[str, str]]) -> list[str]:
    """:func:`_metadata`'s lines for metadata whose keys are identifiers, given in sorted
    order, and whose values are already written as literals of version ``godot``."""
    if godot == 3:
        return ["__meta__ = {\n" + ",\n".join(f'"{k}": {v}' for k, v in pairs) + "\n}"]
    return [f"metadata/{k} = {v}" for k, v in pairs]


def _meta3_text(metadata: Mapping[str, Any], keys: list[str]) -> str | None:
    """Godot 3's ``__meta__`` dictionary as :meth:`_Writer.literal` writes it, when every key
    is a string and every value a string or text already written (a slot's metadata: its
    ID, name and tag, its components and fields); None otherwise.  The writer's general
    stack, item by item, was a tenth of a Godot 3 export."""
    parts: list[str] = []
    for key in keys:
        value = metadata[key]
        kind = type(value)
        if type(key) is not str or (kind is not str and kind is not Godot3Text):
            return None
        parts.append(f"{quote(key)}: {quote(value) if kind is str else value}")
    return "{\n" + ",\n".join(parts) + "\n}" if parts else None


def literal(value: Any, godot: int, default: Callable[[Any], Any] | None = None) -> str:
    """One value as a TSCN literal (no sub-resources)."""
    return _Writer(godot, default).literal(value)


def _check_version(godot: int) -> int:
    if godot not in FORMAT:
        raise VariantError(f"unsupported Godot version {godot!r} (use 3 or 4)")
    return godot
