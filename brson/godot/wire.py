"""The wire layout of Godot's binary Variant format, shared by the encoder
(:mod:`brson.godot.encode`) and the decoder (:mod:`brson.godot.variant`): header bits, the
type ids of Godot 3 and 4, the engine's limits, and the field layout of every math and packed
type (``core/io/marshalls.cpp`` of Godot 3.2.3 and 4.6.3).
"""

from __future__ import annotations

import reprlib
import struct
from collections.abc import Callable as _Fn
from operator import getitem
from typing import Any, Final

from brson.errors import VariantError
from brson.godot import values as gv
from brson.godot.values import VariantType as T
from brson.godot.values import VariantType3 as T3

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
FROM_GODOT3: Final[dict[int, T]] = {int(t3): t for t, t3 in GODOT3_IDS.items()}
FROM_GODOT4: Final[dict[int, T]] = {int(t): t for t in T}
TO_GODOT3: Final[dict[T, int]] = {t: int(t3) for t, t3 in GODOT3_IDS.items()}
TO_GODOT4: Final[dict[T, int]] = {t: int(t) for t in T}

U32 = struct.Struct("<I")
I32 = struct.Struct("<i")
U64 = struct.Struct("<Q")
I64 = struct.Struct("<q")
F32 = struct.Struct("<f")
F64 = struct.Struct("<d")

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


REAL_TYPES: Final[dict[T, tuple[type, int, _Flatten, _Build]]] = {
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
INT_TYPES: Final[dict[T, tuple[type, int, _Fn[[Any], tuple[int, ...]], _Fn[..., Any]]]] = {
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


def _single(element: Any) -> tuple[Any]:
    """A packed array of scalars: each element one field."""
    return (element,)


# Packed arrays of fixed-size records: (class, fields per element, struct code, real_t-sized?,
# flatten element, build element).
PACKED_TYPES: Final[dict[T, tuple[type, int, str, bool, _Fn[[Any], Any], _Fn[..., Any]]]] = {
    T.PACKED_INT32_ARRAY: (gv.PackedInt32Array, 1, "i", False, _single, getitem),
    T.PACKED_INT64_ARRAY: (gv.PackedInt64Array, 1, "q", False, _single, getitem),
    T.PACKED_FLOAT32_ARRAY: (gv.PackedFloat32Array, 1, "f", False, _single, getitem),
    T.PACKED_FLOAT64_ARRAY: (gv.PackedFloat64Array, 1, "d", False, _single, getitem),
    T.PACKED_VECTOR2_ARRAY: (gv.PackedVector2Array, 2, "f", True, lambda e: (e.x, e.y), _v2),
    T.PACKED_VECTOR3_ARRAY: (gv.PackedVector3Array, 3, "f", True, lambda e: (e.x, e.y, e.z), _v3),
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


def check_version(godot: int) -> bool:
    """True for Godot 4; the API takes the major version so callers can pass it straight on."""
    if godot not in (3, 4) or isinstance(godot, bool):
        raise VariantError(f"godot must be 3 or 4, not {godot!r}")
    return godot == 4


SHORT_REPR = reprlib.Repr()
SHORT_REPR.maxstring = SHORT_REPR.maxother = 40


def short_repr(value: Any) -> str:
    """repr for messages, bounded in size and depth (keys may nest 1024 levels deep)."""
    try:
        return SHORT_REPR.repr(value)
    except RecursionError:
        return f"<{type(value).__name__}>"


def script_ok(value: Any) -> bool:
    """4.x objects carry their script as a res:// path (or nothing); anything else is refused."""
    return value is None or (isinstance(value, str) and value.startswith("res://"))
