"""Godot's binary Variant format (``var_to_bytes`` / ``bytes_to_var``), Godot 3.x and 4.x.

The encoder reproduces the engine byte for byte, the decoder accepts what the engine accepts;
both follow ``core/io/marshalls.cpp`` of Godot 3.2.3 and 4.6.3 and are checked against the real
engines in ``tests/godot``.  The choices that are not obvious from the format, and why:

* Width: INT is int32 unless the value needs 64 bits, FLOAT is float32 whenever the float32
  round trip is exact (so NaN is always 64-bit and ±inf 32-bit).  That is the engine's rule and
  the only way to be byte-identical with it.  Math types are float32 (``real_t``) and overflow
  to ±inf exactly as the engine's cast does, so values read from 64-bit fields re-encode.
* Both directions are iterative with an explicit stack, so the engine's nesting limit (1024,
  ``Variant::MAX_RECURSION_DEPTH``) is reachable without touching Python's recursion limit.
* Every count read from the data is checked against the bytes that remain *before* anything is
  allocated: a 4-byte header may claim two billion elements.
* Strings: the engine skips a leading UTF-8 byte-order mark and stops at the first NUL when it
  decodes, so such strings would not survive a trip through Godot; the encoder refuses them
  instead of producing bytes that decode to something else.
* ``loads`` refuses trailing bytes (a Python API should not silently ignore garbage); the engine's
  ``bytes_to_var`` ignores them, which is what :func:`loads_prefix` offers.

Everything the codec refuses is a :class:`~brson.errors.VariantError` carrying the byte offset
(decoding) or the value path (encoding).
"""

from __future__ import annotations

import math
import reprlib
import struct
from collections.abc import Callable as _Fn
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any, Final

from brson.errors import VariantError
from brson.godot import values as gv
from brson.godot.values import VariantType as T
from brson.godot.values import VariantType3 as T3

__all__ = [
    "MAX_DEPTH",
    "MAX_KEYS_PER_HASH",
    "dumps",
    "loads",
    "loads_prefix",
]

MAX_DEPTH: Final = 1024
"""Deepest nesting level the engine encodes or decodes (the top-level value is level 0)."""
#: Distinct keys of one Python hash a decoded Dictionary may hold.  Python's dict compares a
#: new key with every key of its hash, so keys made to collide (arrays of -1 and -2: the two
#: ints share a hash) cost quadratic time: 1.4 MB took 41 s.  Godot hashes Variants its own
#: way; no real dictionary comes near this, and a hostile one is refused in linear time.
MAX_KEYS_PER_HASH: Final = 64

# Header layout (marshalls.cpp): byte 0 is the type, bits 16.. carry per-type data.
TYPE_MASK: Final = 0xFF
FLAG_64: Final = 1 << 16
FLAG_OBJECT_AS_ID: Final = 1 << 16
TYPED_ARRAY_SHIFT: Final = 16
TYPED_DICT_KEY_SHIFT: Final = 16
TYPED_DICT_VALUE_SHIFT: Final = 18
KIND_MASK: Final = 0b11
KIND_NONE: Final = 0
KIND_BUILTIN: Final = 1
KIND_CLASS_NAME: Final = 2
KIND_SCRIPT: Final = 3
COUNT_MASK: Final = 0x7FFFFFFF  # bit 31 of container counts is the legacy "shared" flag
NODEPATH_NEW_FORMAT: Final = 0x80000000
NODEPATH_ABSOLUTE: Final = 1
NODEPATH_OBSOLETE_PROPERTY: Final = 2  # one more subname follows
ENCODED_OBJECT_AS_ID: Final = "EncodedObjectAsID"
UTF8_BOM: Final = b"\xef\xbb\xbf"

INT32_MIN: Final = -(1 << 31)
INT32_MAX: Final = (1 << 31) - 1
INT64_MIN: Final = -(1 << 63)
INT64_MAX: Final = (1 << 63) - 1
UINT64_MAX: Final = (1 << 64) - 1

# The 3.x id of every type that exists in 3.x, keyed by its 4.x name (the codec's internal kind).
GODOT3_IDS: Final[dict[T, T3]] = {
    T.NIL: T3.NIL,
    T.BOOL: T3.BOOL,
    T.INT: T3.INT,
    T.FLOAT: T3.REAL,
    T.STRING: T3.STRING,
    T.VECTOR2: T3.VECTOR2,
    T.RECT2: T3.RECT2,
    T.VECTOR3: T3.VECTOR3,
    T.TRANSFORM2D: T3.TRANSFORM2D,
    T.PLANE: T3.PLANE,
    T.QUATERNION: T3.QUAT,
    T.AABB: T3.AABB,
    T.BASIS: T3.BASIS,
    T.TRANSFORM3D: T3.TRANSFORM,
    T.COLOR: T3.COLOR,
    T.NODE_PATH: T3.NODE_PATH,
    T.RID: T3.RID,
    T.OBJECT: T3.OBJECT,
    T.DICTIONARY: T3.DICTIONARY,
    T.ARRAY: T3.ARRAY,
    T.PACKED_BYTE_ARRAY: T3.POOL_BYTE_ARRAY,
    T.PACKED_INT32_ARRAY: T3.POOL_INT_ARRAY,
    T.PACKED_FLOAT32_ARRAY: T3.POOL_REAL_ARRAY,
    T.PACKED_STRING_ARRAY: T3.POOL_STRING_ARRAY,
    T.PACKED_VECTOR2_ARRAY: T3.POOL_VECTOR2_ARRAY,
    T.PACKED_VECTOR3_ARRAY: T3.POOL_VECTOR3_ARRAY,
    T.PACKED_COLOR_ARRAY: T3.POOL_COLOR_ARRAY,
}
_FROM_GODOT3: Final[dict[int, T]] = {int(t3): t for t, t3 in GODOT3_IDS.items()}
_FROM_GODOT4: Final[dict[int, T]] = {int(t): t for t in T}
_TO_GODOT3: Final[dict[T, int]] = {t: int(t3) for t, t3 in GODOT3_IDS.items()}
_TO_GODOT4: Final[dict[T, int]] = {t: int(t) for t in T}

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_U64 = struct.Struct("<Q")
_I64 = struct.Struct("<q")
_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")

# Math types whose float fields follow real_t (float32, or float64 with FLAG_64 in 4.x).
# Each entry: number of floats, flatten (value -> floats in wire order), build (floats -> value).
_Flatten = _Fn[[Any], tuple[float, ...]]
_Build = _Fn[[tuple[float, ...]], Any]


def _v2(f: tuple[float, ...], i: int = 0) -> gv.Vector2:
    return gv.Vector2(f[i], f[i + 1])


def _v3(f: tuple[float, ...], i: int = 0) -> gv.Vector3:
    return gv.Vector3(f[i], f[i + 1], f[i + 2])


def _v4(f: tuple[float, ...], i: int = 0) -> gv.Vector4:
    return gv.Vector4(f[i], f[i + 1], f[i + 2], f[i + 3])


def _basis_rows(b: gv.Basis) -> tuple[float, ...]:
    x, y, z = b.x, b.y, b.z
    return (x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z)


def _basis_from_rows(f: tuple[float, ...]) -> gv.Basis:
    return gv.Basis(
        gv.Vector3(f[0], f[3], f[6]), gv.Vector3(f[1], f[4], f[7]), gv.Vector3(f[2], f[5], f[8])
    )


_REAL_TYPES: Final[dict[T, tuple[type, int, _Flatten, _Build]]] = {
    T.VECTOR2: (gv.Vector2, 2, lambda v: (v.x, v.y), _v2),
    T.RECT2: (
        gv.Rect2,
        4,
        lambda r: (r.position.x, r.position.y, r.size.x, r.size.y),
        lambda f: gv.Rect2(_v2(f), _v2(f, 2)),
    ),
    T.VECTOR3: (gv.Vector3, 3, lambda v: (v.x, v.y, v.z), _v3),
    T.TRANSFORM2D: (
        gv.Transform2D,
        6,
        lambda t: (t.x.x, t.x.y, t.y.x, t.y.y, t.origin.x, t.origin.y),
        lambda f: gv.Transform2D(_v2(f), _v2(f, 2), _v2(f, 4)),
    ),
    T.VECTOR4: (gv.Vector4, 4, lambda v: (v.x, v.y, v.z, v.w), _v4),
    T.PLANE: (
        gv.Plane,
        4,
        lambda p: (p.normal.x, p.normal.y, p.normal.z, p.d),
        lambda f: gv.Plane(_v3(f), f[3]),
    ),
    T.QUATERNION: (
        gv.Quaternion,
        4,
        lambda q: (q.x, q.y, q.z, q.w),
        lambda f: gv.Quaternion(f[0], f[1], f[2], f[3]),
    ),
    T.AABB: (
        gv.AABB,
        6,
        lambda a: (a.position.x, a.position.y, a.position.z, a.size.x, a.size.y, a.size.z),
        lambda f: gv.AABB(_v3(f), _v3(f, 3)),
    ),
    T.BASIS: (gv.Basis, 9, _basis_rows, _basis_from_rows),
    T.TRANSFORM3D: (
        gv.Transform3D,
        12,
        lambda t: (*_basis_rows(t.basis), t.origin.x, t.origin.y, t.origin.z),
        lambda f: gv.Transform3D(_basis_from_rows(f), _v3(f, 9)),
    ),
    T.PROJECTION: (
        gv.Projection,
        16,
        lambda p: (
            *(p.x.x, p.x.y, p.x.z, p.x.w),
            *(p.y.x, p.y.y, p.y.z, p.y.w),
            *(p.z.x, p.z.y, p.z.z, p.z.w),
            *(p.w.x, p.w.y, p.w.z, p.w.w),
        ),
        lambda f: gv.Projection(_v4(f), _v4(f, 4), _v4(f, 8), _v4(f, 12)),
    ),
}

# Integer vectors: always int32 fields.
_INT_TYPES: Final[dict[T, tuple[type, int, _Fn[[Any], tuple[int, ...]], _Fn[..., Any]]]] = {
    T.VECTOR2I: (gv.Vector2i, 2, lambda v: (v.x, v.y), lambda f: gv.Vector2i(*f)),
    T.RECT2I: (
        gv.Rect2i,
        4,
        lambda r: (r.position.x, r.position.y, r.size.x, r.size.y),
        lambda f: gv.Rect2i(gv.Vector2i(f[0], f[1]), gv.Vector2i(f[2], f[3])),
    ),
    T.VECTOR3I: (gv.Vector3i, 3, lambda v: (v.x, v.y, v.z), lambda f: gv.Vector3i(*f)),
    T.VECTOR4I: (gv.Vector4i, 4, lambda v: (v.x, v.y, v.z, v.w), lambda f: gv.Vector4i(*f)),
}

# Packed arrays of fixed-size records: (class, fields per element, struct code, real_t-sized?,
# flatten element, build element).
_PACKED_TYPES: Final[dict[T, tuple[type, int, str, bool, _Fn[[Any], Any], _Fn[..., Any]]]] = {
    T.PACKED_INT32_ARRAY: (gv.PackedInt32Array, 1, "i", False, lambda e: (e,), lambda f, i: f[i]),
    T.PACKED_INT64_ARRAY: (gv.PackedInt64Array, 1, "q", False, lambda e: (e,), lambda f, i: f[i]),
    T.PACKED_FLOAT32_ARRAY: (
        gv.PackedFloat32Array,
        1,
        "f",
        False,
        lambda e: (e,),
        lambda f, i: f[i],
    ),
    T.PACKED_FLOAT64_ARRAY: (
        gv.PackedFloat64Array,
        1,
        "d",
        False,
        lambda e: (e,),
        lambda f, i: f[i],
    ),
    T.PACKED_VECTOR2_ARRAY: (gv.PackedVector2Array, 2, "f", True, lambda e: (e.x, e.y), _v2),
    T.PACKED_VECTOR3_ARRAY: (
        gv.PackedVector3Array,
        3,
        "f",
        True,
        lambda e: (e.x, e.y, e.z),
        _v3,
    ),
    T.PACKED_COLOR_ARRAY: (
        gv.PackedColorArray,
        4,
        "f",
        False,
        lambda e: (e.r, e.g, e.b, e.a),
        lambda f, i: gv.Color(f[i], f[i + 1], f[i + 2], f[i + 3]),
    ),
    T.PACKED_VECTOR4_ARRAY: (
        gv.PackedVector4Array,
        4,
        "f",
        True,
        lambda e: (e.x, e.y, e.z, e.w),
        _v4,
    ),
}

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
    **{spec[0]: kind for kind, spec in _REAL_TYPES.items()},
    **{spec[0]: kind for kind, spec in _INT_TYPES.items()},
    **{spec[0]: kind for kind, spec in _PACKED_TYPES.items()},
}


def _narrow(value: Any) -> Any:
    """A float that would overflow float32 becomes +-inf, as ``(float)double`` gives in C++."""
    try:
        _F32.pack(value)
    except OverflowError:
        return math.copysign(math.inf, value)
    except (struct.error, TypeError):
        pass  # not a float; the caller's pack reports it
    return value


def _check_version(godot: int) -> bool:
    """True for Godot 4; the API takes the major version so callers can pass it straight on."""
    if godot not in (3, 4) or isinstance(godot, bool):
        raise VariantError(f"godot must be 3 or 4, not {godot!r}")
    return godot == 4


# --- encoding ---------------------------------------------------------------------------------

# Linked list (parent, segment), rendered only when an error needs it: building "[key]" strings
# eagerly would repr every key of every dictionary.  A segment is a str, an index, or ("key", k).
_Path = tuple[Any, Any] | None
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 40


def _short_repr(value: Any) -> str:
    """repr for messages, bounded in size and depth (keys may nest 1024 levels deep)."""
    try:
        return _SHORT.repr(value)
    except RecursionError:
        return f"<{type(value).__name__}>"


def _render(path: _Path) -> str:
    parts: list[str] = []
    while path is not None:
        path, segment = path
        if isinstance(segment, int):
            parts.append(f"[{segment}]")
        elif isinstance(segment, tuple):
            parts.append(f"<key {_short_repr(segment[1])}>")
        elif isinstance(segment, str):
            parts.append(segment)
        else:
            parts.append(f"[{_short_repr(segment.key)}]")
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
        self.ids = _TO_GODOT4 if godot4 else _TO_GODOT3
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
        self.out += _U32.pack(tid | flags)

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
        return _U32.pack(len(raw)) + raw + b"\x00" * (-len(raw) % 4)

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
                out += _I32.pack(number)
            elif INT64_MIN <= number <= INT64_MAX:
                self.header(kind, FLAG_64, path)
                out += _I64.pack(number)
            else:
                raise self.fail(f"integer {number} does not fit int64", path)
        elif kind is T.FLOAT:
            self.float_(float(value), path)
        elif kind is T.ARRAY:
            self.array(value, depth, path)
        elif kind is T.DICTIONARY:
            self.dictionary(value, depth, path)
        elif kind is T.NIL:
            self.header(kind, 0, path)
        elif kind is T.BOOL:
            self.header(kind, 0, path)
            out += _U32.pack(1 if value else 0)
        elif kind is T.STRING_NAME:
            self.header(kind, 0, path)
            out += self.string_payload(value.name, path)
        elif kind in _REAL_TYPES:
            self.real(kind, value, path)
        elif kind in _INT_TYPES:
            self.header(kind, 0, path)
            out += self.pack("i", _INT_TYPES[kind][2](value), path)
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
        elif kind is T.CALLABLE:
            self.header(kind, 0, path)
        elif kind is T.SIGNAL:
            self.header(kind, 0, path)
            out += self.string_payload(value.name, path)
            out += self.pack("Q", (value.object_id,), path)
        elif kind is T.PACKED_BYTE_ARRAY:
            data = bytes(value)
            self.header(kind, 0, path)
            out += _U32.pack(len(data)) + data + b"\x00" * (-len(data) % 4)
        elif kind is T.PACKED_STRING_ARRAY:
            self.header(kind, 0, path)
            out += _U32.pack(len(value.values))
            for i, text in enumerate(value.values):
                raw = self.utf8(text, (path, i)) + b"\x00"
                out += _U32.pack(len(raw)) + raw + b"\x00" * (-len(raw) % 4)
        elif kind in _PACKED_TYPES:
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
            narrow = _F32.pack(number)
            exact = _F32.unpack(narrow)[0] == number
        except OverflowError:
            exact = False
        if exact:
            self.header(T.FLOAT, 0, path)
            self.out += narrow
        else:
            self.header(T.FLOAT, FLAG_64, path)
            self.out += _F64.pack(number)

    def real(self, kind: T, value: Any, path: _Path) -> None:
        _, _, flatten, _ = _REAL_TYPES[kind]
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
        self.out += _U32.pack(len(names) | NODEPATH_NEW_FORMAT) + _U32.pack(len(subnames))
        self.out += _U32.pack(flags)
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
                self.out += _U32.pack(0)
            return
        self.header(T.OBJECT, 0, path)
        self.out += self.string_payload(value.class_name, path)
        props = value.properties
        self.out += _U32.pack(len(props))
        for name, prop in reversed(props):
            ppath = (path, f".{name}")
            if self.godot4 and name == "script" and not _script_ok(prop):
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
        return KIND_BUILTIN, _U32.pack(int(ctype.builtin))

    def array(self, value: Any, depth: int, path: _Path) -> None:
        if isinstance(value, gv.TypedArray):
            if not self.godot4:
                raise self.fail("typed arrays do not exist in Godot 3", path)
            kind, info = self.container_type(value.type, path)
            elements: Any = value.elements
        else:
            kind, info, elements = KIND_NONE, b"", value
        self.header(T.ARRAY, kind << TYPED_ARRAY_SHIFT, path)
        self.out += info + _U32.pack(len(elements))
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
        self.out += kinfo + vinfo + _U32.pack(len(entries))
        for key, item in reversed(list(entries.items())):
            self.stack.append((item, depth + 1, (path, _Item(key)), None))
            self.stack.append((key, depth + 1, (path, ("key", key)), None))

    def packed(self, kind: T, value: Any, path: _Path) -> None:
        _, width, code, real_sized, flatten, _ = _PACKED_TYPES[kind]
        items = value.values
        if width == 1:
            flat: tuple[Any, ...] | list[Any] = items
        else:
            flat = [component for element in items for component in flatten(element)]
        flags = 0
        if real_sized and self.double:
            code, flags = "d", FLAG_64
        self.header(kind, flags, path)
        self.out += _U32.pack(len(items)) + self.pack(code, flat, path)


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
    godot4 = _check_version(godot)
    if double_precision and not godot4:
        raise VariantError("double_precision exists only for Godot 4")
    return _Encoder(godot4, bool(full_objects), bool(double_precision), default).run(value)


# --- decoding ---------------------------------------------------------------------------------

_UNTYPED: Final = gv.ContainerType()
_F_ARRAY: Final = 0
_F_DICT: Final = 1
_F_OBJECT: Final = 2


class _Frame:
    """A container being filled while its children are decoded."""

    __slots__ = (
        "class_name",
        "ctype",
        "frozen",
        "has_key",
        "hashes",
        "items",
        "key",
        "keymap",
        "kind",
        "remaining",
        "vtype",
    )

    def __init__(self, kind: int, remaining: int, frozen: bool) -> None:
        self.kind = kind
        self.remaining = remaining
        self.frozen = frozen
        self.items: Any = None
        self.key: Any = None
        self.has_key = False
        self.keymap: dict[Any, Any] | None = None
        #: Keys seen per hash, for keys other than strings (whose hashes cannot be made to collide).
        self.hashes: dict[int, int] | None = None
        self.ctype: gv.ContainerType | None = None
        self.vtype: gv.ContainerType | None = None
        self.class_name = ""


def _same_godot_key(a: Any, b: Any) -> bool:
    """Whether two Python-equal keys are also the same Godot key (1, 1.0 and True are not).

    Iterative, because keys may nest as deep as the data.
    """
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, float):
            if not (x == y or (math.isnan(x) and math.isnan(y))):
                return False
        elif isinstance(x, tuple):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif isinstance(x, Mapping):
            if len(x) != len(y):
                return False
            pending.extend(zip(x.keys(), y.keys(), strict=True))
            pending.extend(zip(x.values(), y.values(), strict=True))
        elif is_dataclass(x):
            pending.extend((getattr(x, f.name), getattr(y, f.name)) for f in fields(x))
        elif x != y:
            return False
    return True


def _script_ok(value: Any) -> bool:
    """4.x objects carry their script as a res:// path (or nothing); anything else is refused."""
    return value is None or (isinstance(value, str) and value.startswith("res://"))


class _Decoder:
    """One decode pass over ``data`` starting at ``pos``; ``run`` returns the value and end."""

    def __init__(self, data: bytes, pos: int, godot4: bool, allow_objects: bool) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data)
        self.godot4 = godot4
        self.allow_objects = allow_objects
        self.ids = _FROM_GODOT4 if godot4 else _FROM_GODOT3

    def fail(self, message: str, offset: int | None = None) -> VariantError:
        return VariantError(message, offset=self.pos if offset is None else offset)

    def need(self, size: int, what: str) -> None:
        if size > self.end - self.pos:
            have = self.end - self.pos
            raise self.fail(f"truncated {what}: needs {size} bytes, {have} left")

    def u32(self, what: str) -> int:
        self.need(4, what)
        value: int = _U32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return value

    def i32(self, what: str) -> int:
        self.need(4, what)
        value: int = _I32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return value

    def u64(self, what: str) -> int:
        self.need(8, what)
        value: int = _U64.unpack_from(self.data, self.pos)[0]
        self.pos += 8
        return value

    def unpack(self, code: str, count: int, size: int, what: str) -> tuple[Any, ...]:
        self.need(count * size, what)
        values = struct.unpack_from(f"<{count}{code}", self.data, self.pos)
        self.pos += count * size
        return values

    def string(self, what: str = "string") -> str:
        start = self.pos
        length = self.i32(f"{what} length")
        if length < 0:
            raise self.fail(f"negative {what} length {length}", start)
        self.need(length + (-length % 4), what)
        raw = self.data[self.pos : self.pos + length]
        self.pos += length + (-length % 4)
        # The engine's UTF-8 parser skips a BOM and stops at the first NUL.
        if raw.startswith(UTF8_BOM):
            raw = raw[3:]
        nul = raw.find(b"\x00")
        if nul >= 0:
            raw = raw[:nul]
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.fail(f"{what} is not valid UTF-8 ({exc.reason})", start + 4) from None

    def count(self, raw: int, min_size: int, what: str, start: int) -> int:
        """Refuse counts the remaining bytes cannot hold before anything is allocated."""
        if raw < 0:
            raise self.fail(f"negative {what} count {raw}", start)
        if raw * min_size > self.end - self.pos:
            raise self.fail(
                f"{what} count {raw} needs at least {raw * min_size} bytes, "
                f"{self.end - self.pos} left",
                start,
            )
        return raw

    def container_type(self, kind: int, what: str) -> gv.ContainerType:
        start = self.pos
        if kind == KIND_NONE:
            return _UNTYPED
        if kind == KIND_BUILTIN:
            builtin = self.i32(f"{what} type")
            if not 0 <= builtin < len(T):
                raise self.fail(f"{what} type id {builtin} is not a Variant type", start)
            if builtin == T.OBJECT and not self.allow_objects:
                # What the engine does; it makes re-encoding write the class-name kind as it does.
                return gv.ContainerType.of_class(ENCODED_OBJECT_AS_ID)
            return gv.ContainerType(builtin)
        text = self.string(f"{what} type")
        if kind == KIND_CLASS_NAME:
            return gv.ContainerType.of_class(text)
        if self.allow_objects and not text.startswith("res://"):
            raise self.fail(f"{what} script type {text!r} is not a res:// path", start)
        return gv.ContainerType(T.OBJECT, script=text)

    # Driver -----------------------------------------------------------------------------------

    def run(self) -> tuple[Any, int]:
        stack: list[_Frame] = []
        while True:
            top = stack[-1] if stack else None
            if top is not None and top.kind == _F_OBJECT:
                top.key = self.string("property name")
            if len(stack) > MAX_DEPTH:
                raise self.fail(f"nesting deeper than {MAX_DEPTH} levels")
            frozen = top is not None and (top.frozen or (top.kind == _F_DICT and not top.has_key))
            value, frame = self.one(frozen)
            if frame is not None:
                stack.append(frame)
                continue
            while stack:
                top = stack[-1]
                if top.kind == _F_ARRAY:
                    top.items.append(value)
                elif top.kind == _F_DICT:
                    if not top.has_key:
                        top.key, top.has_key = value, True
                        break
                    self.insert(top, value)
                    top.has_key = False
                else:
                    if self.godot4 and top.key == "script" and not _script_ok(value):
                        raise self.fail("object script property is not a res:// path")
                    top.items.append((top.key, value))
                top.remaining -= 1
                if top.remaining > 0:
                    break
                stack.pop()
                value = self.finish(top)
            else:
                return value, self.pos

    def insert(self, frame: _Frame, value: Any) -> None:
        key, items = frame.key, frame.items
        try:
            if type(key) is not str:  # str hashes are keyed (SipHash): no chains to build
                self.count_hash(frame, hash(key))  # before the dict compares along a chain
            present = key in items
        except TypeError:  # pragma: no cover - keys are frozen, this is a safety net
            raise self.fail(f"unhashable dictionary key {type(key).__name__}") from None
        if present:
            if frame.keymap is None:
                frame.keymap = {k: k for k in items}
            if not _same_godot_key(frame.keymap[key], key):
                raise self.fail(
                    f"dictionary keys {_short_repr(frame.keymap[key])} and {_short_repr(key)} "
                    "are distinct in Godot "
                    "but equal in Python"
                )
        elif frame.keymap is not None:
            frame.keymap[key] = key
        items[key] = value  # a repeated key overwrites in place, as Dictionary::operator[] does

    def count_hash(self, frame: _Frame, key_hash: int) -> None:
        hashes = frame.hashes
        if hashes is None:
            hashes = frame.hashes = {}
        seen = hashes[key_hash] = hashes.get(key_hash, 0) + 1
        if seen > MAX_KEYS_PER_HASH:
            raise self.fail(
                f"dictionary has more than {MAX_KEYS_PER_HASH} keys of one hash "
                "(keys built to collide); refused"
            )

    def finish(self, frame: _Frame) -> Any:
        if frame.kind == _F_ARRAY:
            if frame.ctype is not None:
                return gv.TypedArray(frame.ctype, frame.items)
            return tuple(frame.items) if frame.frozen else frame.items
        if frame.kind == _F_DICT:
            entries = gv.FrozenDict(frame.items) if frame.frozen else frame.items
            if frame.ctype is not None and frame.vtype is not None:
                return gv.TypedDictionary(frame.ctype, frame.vtype, entries)
            return entries
        return gv.Object(frame.class_name, frame.items)

    def one(self, frozen: bool) -> tuple[Any, _Frame | None]:
        """Decode one value, or open a container and return its frame.

        The common kinds come first; this is the decoder's hot path.
        """
        start = self.pos
        if self.end - start < 4:
            raise self.fail(f"truncated header: needs 4 bytes, {self.end - start} left")
        header: int = _U32.unpack_from(self.data, start)[0]
        self.pos = start + 4
        tid = header & TYPE_MASK
        kind = self.ids.get(tid)
        if kind is None:
            version = 4 if self.godot4 else 3
            raise self.fail(f"unknown Variant type id {tid} for Godot {version}", start)
        if kind is T.NIL:
            return None, None
        if kind is T.INT:
            if header & FLAG_64:
                return self.unpack("q", 1, 8, "int64")[0], None
            return self.i32("int32"), None
        if kind is T.FLOAT:
            if header & FLAG_64:
                return self.unpack("d", 1, 8, "float64")[0], None
            return self.unpack("f", 1, 4, "float32")[0], None
        if kind is T.STRING:
            return self.string(), None
        if kind is T.ARRAY:
            return self.array(header, frozen, start)
        if kind is T.DICTIONARY:
            return self.dictionary(header, frozen, start)
        if kind is T.BOOL:
            return self.u32("bool") != 0, None
        real = _REAL_TYPES.get(kind)
        if real is not None:
            _, n, _, build = real
            if self.godot4 and header & FLAG_64:
                return build(self.unpack("d", n, 8, kind.name)), None
            return build(self.unpack("f", n, 4, kind.name)), None
        ints = _INT_TYPES.get(kind)
        if ints is not None:
            _, n, _, build_i = ints
            return build_i(self.unpack("i", n, 4, kind.name)), None
        if kind is T.COLOR:
            return gv.Color(*self.unpack("f", 4, 4, "Color")), None
        if kind is T.STRING_NAME:
            return gv.StringName(self.string()), None
        if kind is T.NODE_PATH:
            return self.node_path(start), None
        if kind is T.RID:
            return gv.RID(self.u64("RID") if self.godot4 else 0), None
        if kind is T.OBJECT:
            return self.object_(header, frozen, start)
        if kind is T.CALLABLE:
            return gv.Callable(), None
        if kind is T.SIGNAL:
            name = self.string("signal name")
            return gv.Signal(name, self.u64("signal object id")), None
        if kind is T.PACKED_BYTE_ARRAY:
            size = self.i32("byte array size")
            if size < 0 or size > self.end - self.pos:
                raise self.fail(
                    f"byte array size {size} exceeds the {self.end - self.pos} bytes left", start
                )
            data = bytes(self.data[self.pos : self.pos + size])
            # The engine does not require the pad after the last byte array in the buffer.
            self.pos = min(self.pos + size + (-size % 4), self.end)
            return data, None
        if kind is T.PACKED_STRING_ARRAY:
            raw = self.i32("string array size")
            # A negative count is an empty array to the engine (its loop never runs).
            n = self.count(max(raw, 0), 4, "string array", start)
            return gv.PackedStringArray(
                [self.string("string array element") for _ in range(n)]
            ), None
        if kind in _PACKED_TYPES:
            return self.packed(kind, bool(self.godot4 and header & FLAG_64), start), None
        raise self.fail(f"no decoder for {kind.name}", start)  # pragma: no cover

    def node_path(self, start: int) -> gv.NodePath:
        first = self.u32("NodePath name count")
        if not first & NODEPATH_NEW_FORMAT:
            raise self.fail("NodePath in the old string format, which the engine refuses", start)
        self.need(8, "NodePath header")
        names = first & COUNT_MASK
        subnames = self.u32("NodePath subname count")
        flags = self.u32("NodePath flags")
        if flags & NODEPATH_OBSOLETE_PROPERTY:
            subnames += 1
        total = (names + subnames) & 0xFFFFFFFF  # uint32 arithmetic, as in the engine
        self.count(total, 4, "NodePath string", start)
        parts = [self.string("NodePath name") for _ in range(total)]
        return gv.NodePath(parts[:names], parts[names:], bool(flags & NODEPATH_ABSOLUTE))

    def object_(self, header: int, frozen: bool, start: int) -> tuple[Any, _Frame | None]:
        if header & FLAG_OBJECT_AS_ID:
            return gv.ObjectID(self.u64("object id")), None
        if not self.allow_objects:
            raise self.fail("full object data is unauthorized without allow_objects=True", start)
        class_name = self.string("object class name")
        if not class_name:
            return gv.Object(), None
        raw = self.i32("object property count")
        # A negative count means no properties to the engine (its loop never runs).
        n = self.count(max(raw, 0), 8, "object property", start)
        if n == 0:
            return gv.Object(class_name), None
        frame = _Frame(_F_OBJECT, n, frozen)
        frame.items = []
        frame.class_name = class_name
        return None, frame

    def array(self, header: int, frozen: bool, start: int) -> tuple[Any, _Frame | None]:
        ctype = None
        if self.godot4:
            ctype = self.container_type((header >> TYPED_ARRAY_SHIFT) & KIND_MASK, "array element")
            if not ctype.is_typed:
                ctype = None
        n = self.count(self.u32("array size") & COUNT_MASK, 4, "array element", start)
        frame = _Frame(_F_ARRAY, n, frozen)
        frame.items = []
        frame.ctype = ctype
        if n == 0:
            return self.finish(frame), None
        return None, frame

    def dictionary(self, header: int, frozen: bool, start: int) -> tuple[Any, _Frame | None]:
        ktype = vtype = None
        if self.godot4:
            ktype = self.container_type((header >> TYPED_DICT_KEY_SHIFT) & KIND_MASK, "key")
            vtype = self.container_type((header >> TYPED_DICT_VALUE_SHIFT) & KIND_MASK, "value")
            if not ktype.is_typed and not vtype.is_typed:
                ktype = vtype = None
        n = self.count(self.u32("dictionary size") & COUNT_MASK, 8, "dictionary entry", start)
        frame = _Frame(_F_DICT, n, frozen)
        frame.items = {}
        frame.ctype, frame.vtype = ktype, vtype
        if n == 0:
            return self.finish(frame), None
        return None, frame

    def packed(self, kind: T, wide: bool, start: int) -> Any:
        cls, width, code, real_sized, _, build = _PACKED_TYPES[kind]
        size = 8 if code in "qd" else 4
        if real_sized and wide:
            code, size = "d", 8
        n = self.count(self.i32(f"{kind.name} size"), width * size, kind.name, start)
        flat = self.unpack(code, n * width, size, kind.name)
        if width == 1:
            return cls(flat)
        return cls([build(flat, i) for i in range(0, n * width, width)])


def loads_prefix(
    data: bytes | bytearray | memoryview, godot: int = 4, allow_objects: bool = False
) -> tuple[Any, int]:
    """Decode the Variant at the start of ``data``; returns (value, bytes used).

    This is the engine's ``bytes_to_var`` behaviour, which ignores whatever follows the value;
    use it to read values laid end to end.
    """
    godot4 = _check_version(godot)
    if not isinstance(data, bytes):
        try:
            data = bytes(data)
        except TypeError as exc:
            raise VariantError(f"cannot read Variant data from {type(data).__name__}") from exc
    decoder = _Decoder(data, 0, godot4, bool(allow_objects))
    try:
        return decoder.run()
    except (struct.error, OverflowError, MemoryError, RecursionError) as exc:  # pragma: no cover
        # Bounds are checked before every read; this only guards against a bug becoming a crash.
        raise VariantError(f"internal decoding error: {exc!r}", offset=decoder.pos) from exc


def loads(data: bytes | bytearray | memoryview, godot: int = 4, allow_objects: bool = False) -> Any:
    """Decode exactly one Variant, as ``bytes_to_var`` (4.x) / ``bytes2var`` (3.x) would.

    Unlike the engine, trailing bytes are an error here (see :func:`loads_prefix`).
    ``allow_objects`` is the ``bytes_to_var_with_objects`` switch: without it, full objects
    are refused as the engine refuses them (ERR_UNAUTHORIZED).
    """
    value, used = loads_prefix(data, godot, allow_objects)
    size = len(data) if not isinstance(data, memoryview) else data.nbytes
    if used != size:
        raise VariantError(
            f"{size - used} trailing bytes after the value (loads_prefix ignores them)",
            offset=used,
        )
    return value
