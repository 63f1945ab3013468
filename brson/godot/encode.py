"""The Variant encoder (``var_to_bytes``); the format's rules are in :mod:`brson.godot.variant`."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable as _Fn
from collections.abc import Mapping
from typing import Any, Final

from brson.errors import VariantError
from brson.godot import values as gv
from brson.godot.values import VariantType as T
from brson.godot.wire import (
    COUNT_MASK,
    ENCODED_OBJECT_AS_ID,
    F32,
    F64,
    FLAG_64,
    FLAG_OBJECT_AS_ID,
    I32,
    I64,
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
    INT_TYPES,
    KIND_BUILTIN,
    KIND_CLASS_NAME,
    KIND_NONE,
    KIND_SCRIPT,
    MAX_DEPTH,
    NODEPATH_ABSOLUTE,
    NODEPATH_NEW_FORMAT,
    PACKED_TYPES,
    REAL_TYPES,
    TO_GODOT3,
    TO_GODOT4,
    TYPED_ARRAY_SHIFT,
    TYPED_DICT_KEY_SHIFT,
    TYPED_DICT_VALUE_SHIFT,
    U32,
    UTF8_BOM,
    check_version,
    script_ok,
    short_repr,
)

# Python class -> internal kind, for the exact-type fast path of the encoder.
_KIND_OF_CLASS: Final[dict[type, T]] = {
    type(None): T.NIL,
    bool: T.BOOL,
    int: T.INT,
    float: T.FLOAT,
    str: T.STRING,
    bytes: T.PACKED_BYTE_ARRAY,
    bytearray: T.PACKED_BYTE_ARRAY,
    memoryview: T.PACKED_BYTE_ARRAY,
    list: T.ARRAY,
    tuple: T.ARRAY,
    gv.TypedArray: T.ARRAY,
    dict: T.DICTIONARY,
    gv.FrozenDict: T.DICTIONARY,
    gv.TypedDictionary: T.DICTIONARY,
    gv.Color: T.COLOR,
    gv.StringName: T.STRING_NAME,
    gv.NodePath: T.NODE_PATH,
    gv.RID: T.RID,
    gv.ObjectID: T.OBJECT,
    gv.Object: T.OBJECT,
    gv.Callable: T.CALLABLE,
    gv.Signal: T.SIGNAL,
    gv.PackedStringArray: T.PACKED_STRING_ARRAY,
    **{spec[0]: kind for kind, spec in REAL_TYPES.items()},
    **{spec[0]: kind for kind, spec in INT_TYPES.items()},
    **{spec[0]: kind for kind, spec in PACKED_TYPES.items()},
}


def _narrow(value: Any) -> Any:
    """A float that would overflow float32 becomes +-inf, as ``(float)double`` gives in C++."""
    try:
        F32.pack(value)
    except OverflowError:
        return math.copysign(math.inf, value)
    except (struct.error, TypeError):
        pass  # not a float; the caller's pack reports it
    return value


# --- encoding ---------------------------------------------------------------------------------

# Linked list (parent, segment), rendered only when an error needs it: building "[key]" strings
# eagerly would repr every key of every dictionary.  A segment is a str, an index, or ("key", k).
_Path = tuple[Any, Any] | None


def _render(path: _Path) -> str:
    parts: list[str] = []
    while path is not None:
        path, segment = path
        if isinstance(segment, int):
            parts.append(f"[{segment}]")
        elif isinstance(segment, tuple):
            parts.append(f"<key {short_repr(segment[1])}>")
        elif isinstance(segment, str):
            parts.append(segment)
        else:
            parts.append(f"[{short_repr(segment.key)}]")
    return "".join(reversed(parts)) or "<root>"


class _Item:
    """Path segment for a dictionary value: keeps the key object, formats it only on error."""

    __slots__ = ("key",)

    def __init__(self, key: Any) -> None:
        self.key = key


def _kind_of(value: Any) -> T | None:
    kind = _KIND_OF_CLASS.get(type(value))
    if kind is not None:
        return kind
    # Subclasses (IntEnum, str enums, user list/dict subclasses): bool before int, as Python has it.
    if isinstance(value, bool):
        return T.BOOL
    if isinstance(value, int):
        return T.INT
    if isinstance(value, float):
        return T.FLOAT
    if isinstance(value, str):
        return T.STRING
    if isinstance(value, bytes | bytearray | memoryview):
        return T.PACKED_BYTE_ARRAY
    if isinstance(value, list | tuple):
        return T.ARRAY
    if isinstance(value, Mapping):
        return T.DICTIONARY
    return None


class _Encoder:
    """One ``dumps`` call: a bytearray plus a stack of values still to write, in wire order."""

    def __init__(
        self,
        godot4: bool,
        full_objects: bool,
        double_precision: bool,
        default: _Fn[[Any], Any] | None = None,
    ) -> None:
        self.godot4 = godot4
        self.full_objects = full_objects
        self.double = double_precision
        self.default = default
        self.ids = TO_GODOT4 if godot4 else TO_GODOT3
        self.out = bytearray()
        # Stack entries: (value, depth, path, raw) -- raw bytes are emitted verbatim (property
        # names of objects sit between values).
        self.stack: list[tuple[Any, int, _Path, bytes | None]] = []

    def fail(self, message: str, path: _Path) -> VariantError:
        return VariantError(message, path=_render(path))

    # Small writers ----------------------------------------------------------------------------

    def header(self, kind: T, flags: int, path: _Path) -> None:
        tid = self.ids.get(kind)
        if tid is None:
            raise self.fail(f"{kind.name} does not exist in Godot 3", path)
        self.out += U32.pack(tid | flags)

    def utf8(self, text: Any, path: _Path) -> bytes:
        if not isinstance(text, str):
            raise self.fail(f"expected a string, got {type(text).__name__}", path)
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise self.fail(f"string is not encodable as UTF-8 ({exc.reason})", path) from None
        if b"\x00" in raw:
            raise self.fail("string contains NUL, which the engine cuts the string at", path)
        if raw.startswith(UTF8_BOM):
            raise self.fail("string starts with U+FEFF, which the engine drops on decode", path)
        return raw

    def string_payload(self, text: Any, path: _Path) -> bytes:
        raw = self.utf8(text, path)
        return U32.pack(len(raw)) + raw + b"\x00" * (-len(raw) % 4)

    def pack(self, code: str, items: tuple[Any, ...] | list[Any], path: _Path) -> bytes:
        try:
            return struct.pack(f"<{len(items)}{code}", *items)
        except OverflowError:
            if code != "f":
                raise self.fail(f"value out of range for {code}", path) from None
            # float32 fields: narrow as the engine's C++ cast does (beyond FLT_MAX -> +-inf).
            return self.pack(code, [_narrow(v) for v in items], path)
        except (struct.error, TypeError) as exc:
            what = {"f": "float32", "d": "float64", "i": "int32", "q": "int64"}.get(code, code)
            raise self.fail(f"value does not fit {what}: {exc}", path) from None

    # Driver -----------------------------------------------------------------------------------

    def run(self, value: Any) -> bytes:
        stack = self.stack
        stack.append((value, 0, None, None))
        while stack:
            item, depth, path, raw = stack.pop()
            if raw is not None:
                self.out += raw
                continue
            if depth > MAX_DEPTH:
                raise self.fail(f"nesting deeper than {MAX_DEPTH} levels", path)
            self.one(item, depth, path)
        return bytes(self.out)

    def one(self, value: Any, depth: int, path: _Path) -> None:
        kind = _kind_of(value)
        if kind is None:
            value, kind = self.replace(value, path)
        out = self.out
        # Most frequent kinds first: this chain is the encoder's hot path.
        if kind is T.STRING:
            self.header(kind, 0, path)
            out += self.string_payload(value, path)
        elif kind is T.INT:
            number = int(value)
            if INT32_MIN <= number <= INT32_MAX:
                self.header(kind, 0, path)
                out += I32.pack(number)
            elif INT64_MIN <= number <= INT64_MAX:
                self.header(kind, FLAG_64, path)
                out += I64.pack(number)
            else:
                raise self.fail(f"integer {number} does not fit int64", path)
        elif kind is T.FLOAT:
            self.float_(float(value), path)
        elif kind is T.ARRAY:
            self.array(value, depth, path)
        elif kind is T.DICTIONARY:
            self.dictionary(value, depth, path)
        elif kind is T.NIL or kind is T.CALLABLE:  # the header only
            self.header(kind, 0, path)
        elif kind is T.BOOL:
            self.header(kind, 0, path)
            out += U32.pack(1 if value else 0)
        elif kind is T.STRING_NAME:
            self.header(kind, 0, path)
            out += self.string_payload(value.name, path)
        elif kind in REAL_TYPES:
            self.real(kind, value, path)
        elif kind in INT_TYPES:
            self.header(kind, 0, path)
            out += self.pack("i", INT_TYPES[kind][2](value), path)
        elif kind is T.COLOR:
            self.header(kind, 0, path)
            out += self.pack("f", (value.r, value.g, value.b, value.a), path)
        elif kind is T.NODE_PATH:
            self.node_path(value, path)
        elif kind is T.RID:
            self.header(kind, 0, path)
            if self.godot4:  # 3.x writes the header only
                out += self.pack("Q", (value.id,), path)
        elif kind is T.OBJECT:
            self.object_(value, depth, path)
        elif kind is T.SIGNAL:
            self.header(kind, 0, path)
            out += self.string_payload(value.name, path)
            out += self.pack("Q", (value.object_id,), path)
        elif kind is T.PACKED_BYTE_ARRAY:
            data = bytes(value)
            self.header(kind, 0, path)
            out += U32.pack(len(data)) + data + b"\x00" * (-len(data) % 4)
        elif kind is T.PACKED_STRING_ARRAY:
            self.header(kind, 0, path)
            out += U32.pack(len(value.values))
            for i, text in enumerate(value.values):
                raw = self.utf8(text, (path, i)) + b"\x00"
                out += U32.pack(len(raw)) + raw + b"\x00" * (-len(raw) % 4)
        elif kind in PACKED_TYPES:
            self.packed(kind, value, path)
        else:  # pragma: no cover - every kind above is handled
            raise self.fail(f"no encoder for {kind.name}", path)

    def replace(self, value: Any, path: _Path) -> tuple[Any, T]:
        """``default(value)`` for a value with no Variant type, as ``json.dumps`` does it."""
        what = type(value).__name__
        if self.default is None:
            raise self.fail(f"cannot encode {what} as a Godot Variant", path)
        try:
            value = self.default(value)
        except VariantError:
            raise
        except Exception as exc:  # the caller's hook: any failure is this value's refusal
            raise self.fail(f"cannot encode {what} as a Godot Variant ({exc})", path) from None
        kind = _kind_of(value)
        if kind is None:  # one step only: a hook returning the unknown again would loop
            raise self.fail(
                f"default() turned {what} into {type(value).__name__}, which "
                "has no Variant type either",
                path,
            )
        return value, kind

    def float_(self, number: float, path: _Path) -> None:
        # The engine's rule: float32 when (double)(float)d == d, else FLAG_64 + double.
        try:
            narrow = F32.pack(number)
            exact = F32.unpack(narrow)[0] == number
        except OverflowError:
            exact = False
        if exact:
            self.header(T.FLOAT, 0, path)
            self.out += narrow
        else:
            self.header(T.FLOAT, FLAG_64, path)
            self.out += F64.pack(number)

    def real(self, kind: T, value: Any, path: _Path) -> None:
        _, _, flatten, _ = REAL_TYPES[kind]
        items = flatten(value)
        if self.double:
            self.header(kind, FLAG_64, path)
            self.out += self.pack("d", items, path)
        else:
            self.header(kind, 0, path)
            self.out += self.pack("f", items, path)

    def node_path(self, value: gv.NodePath, path: _Path) -> None:
        self.header(T.NODE_PATH, 0, path)
        names, subnames = value.names, value.subnames
        flags = NODEPATH_ABSOLUTE if value.absolute else 0
        if len(names) > COUNT_MASK:  # pragma: no cover - needs two billion names
            raise self.fail("too many names in NodePath", path)
        self.out += U32.pack(len(names) | NODEPATH_NEW_FORMAT) + U32.pack(len(subnames))
        self.out += U32.pack(flags)
        for text in (*names, *subnames):
            self.out += self.string_payload(text, path)

    def object_(self, value: Any, depth: int, path: _Path) -> None:
        if isinstance(value, gv.ObjectID):
            if self.godot4 and value.id == 0:
                self.header(T.NIL, 0, path)  # 4.x writes null objects as a bare NIL
                return
            self.header(T.OBJECT, FLAG_OBJECT_AS_ID, path)
            self.out += self.pack("Q", (value.id,), path)
            return
        if not self.full_objects:
            raise self.fail("full Object values need dumps(..., full_objects=True)", path)
        if not value.class_name:
            if self.godot4:
                self.header(T.NIL, 0, path)
            else:
                self.header(T.OBJECT, 0, path)
                self.out += U32.pack(0)
            return
        self.header(T.OBJECT, 0, path)
        self.out += self.string_payload(value.class_name, path)
        props = value.properties
        self.out += U32.pack(len(props))
        for name, prop in reversed(props):
            ppath = (path, f".{name}")
            if self.godot4 and name == "script" and not script_ok(prop):
                raise self.fail("the script property must be a res:// path or None", ppath)
            self.stack.append((prop, depth + 1, ppath, None))
            self.stack.append((None, depth, path, self.string_payload(name, ppath)))

    def container_type(self, ctype: gv.ContainerType, path: _Path) -> tuple[int, bytes]:
        """(kind, type info bytes) exactly as _encode_container_type chooses them."""
        if not isinstance(ctype, gv.ContainerType):
            raise self.fail("container type must be a ContainerType", path)
        if not ctype.is_typed:
            return KIND_NONE, b""
        if ctype.script:
            if not self.full_objects:
                return KIND_CLASS_NAME, self.string_payload(ENCODED_OBJECT_AS_ID, path)
            if not ctype.script.startswith("res://"):
                raise self.fail("a container's script type must be a res:// path", path)
            return KIND_SCRIPT, self.string_payload(ctype.script, path)
        if ctype.class_name:
            name = ctype.class_name if self.full_objects else ENCODED_OBJECT_AS_ID
            return KIND_CLASS_NAME, self.string_payload(name, path)
        return KIND_BUILTIN, U32.pack(int(ctype.builtin))

    def array(self, value: Any, depth: int, path: _Path) -> None:
        if isinstance(value, gv.TypedArray):
            if not self.godot4:
                raise self.fail("typed arrays do not exist in Godot 3", path)
            kind, info = self.container_type(value.type, path)
            elements: Any = value.elements
        else:
            kind, info, elements = KIND_NONE, b"", value
        self.header(T.ARRAY, kind << TYPED_ARRAY_SHIFT, path)
        self.out += info + U32.pack(len(elements))
        for i in range(len(elements) - 1, -1, -1):
            self.stack.append((elements[i], depth + 1, (path, i), None))

    def dictionary(self, value: Any, depth: int, path: _Path) -> None:
        if isinstance(value, gv.TypedDictionary):
            if not self.godot4:
                raise self.fail("typed dictionaries do not exist in Godot 3", path)
            kkind, kinfo = self.container_type(value.key_type, path)
            vkind, vinfo = self.container_type(value.value_type, path)
            entries: Mapping[Any, Any] = value.entries
        else:
            kkind, kinfo, vkind, vinfo, entries = KIND_NONE, b"", KIND_NONE, b"", value
        flags = (kkind << TYPED_DICT_KEY_SHIFT) | (vkind << TYPED_DICT_VALUE_SHIFT)
        self.header(T.DICTIONARY, flags, path)
        self.out += kinfo + vinfo + U32.pack(len(entries))
        for key, item in reversed(list(entries.items())):
            self.stack.append((item, depth + 1, (path, _Item(key)), None))
            self.stack.append((key, depth + 1, (path, ("key", key)), None))

    def packed(self, kind: T, value: Any, path: _Path) -> None:
        _, width, code, real_sized, flatten, _ = PACKED_TYPES[kind]
        items = value.values
        if width == 1:
            flat: tuple[Any, ...] | list[Any] = items
        else:
            flat = [component for element in items for component in flatten(element)]
        flags = 0
        if real_sized and self.double:
            code, flags = "d", FLAG_64
        self.header(kind, flags, path)
        self.out += U32.pack(len(items)) + self.pack(code, flat, path)


def dumps(
    value: Any,
    godot: int = 4,
    full_objects: bool = False,
    *,
    double_precision: bool = False,
    default: _Fn[[Any], Any] | None = None,
) -> bytes:
    """Encode ``value`` exactly as ``var_to_bytes`` (4.x) / ``var2bytes`` (3.x) would.

    ``full_objects`` corresponds to ``var_to_bytes_with_objects``: without it, :class:`Object`
    values are refused (write :class:`ObjectID` instead), and typed containers of object
    classes carry the class name ``EncodedObjectAsID``, as the engine writes them.
    ``double_precision`` mimics a 4.x engine built with ``precision=double``: math types get
    64-bit fields and the 64-bit flag.  ``default`` is called, like ``json.dumps``'s, for a
    value that has no Variant type and must return one that has (containers may hold more
    such values); without it such a value is a :class:`VariantError`.
    """
    godot4 = check_version(godot)
    if double_precision and not godot4:
        raise VariantError("double_precision exists only for Godot 4")
    return _Encoder(godot4, bool(full_objects), bool(double_precision), default).run(value)
