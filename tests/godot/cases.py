"""Test vectors shared by the pure-Python tests and the real-engine tests.

``CASES3``/``CASES4`` pair a GDScript expression with the Python value it should equal; the
engine tests have the engine ``var2bytes`` the expression and compare with ``dumps`` of the
Python value.  ``CRAFTED3``/``CRAFTED4`` are hand-made byte strings probing what the engine's
decoder tolerates (or refuses); the engine decodes and re-encodes them, and so do we.
``random_values`` makes a deterministic batch of values restricted to what survives a trip
through the engine unchanged (see its docstring).
"""

from __future__ import annotations

import math
import random
import struct
from dataclasses import dataclass
from typing import Any

from brson.godot import (
    AABB,
    RID,
    Basis,
    Callable,
    Color,
    ContainerType,
    NodePath,
    Object,
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Signal,
    StringName,
    Transform2D,
    Transform3D,
    TypedArray,
    TypedDictionary,
    VariantType,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
    dumps,
)

NAN = math.nan
INF = math.inf
UNICODE = "héllo wörld ✓ 😀 日本"
BIG = -1070935975390360081  # 0xf123456789abcdef as int64, the value Godot's own tests use

# (name, GDScript expression, Python value); valid in both engines' GDScript dialects.
_COMMON: list[tuple[str, str, Any]] = [
    ("nil", "null", None),
    ("true", "true", True),
    ("false", "false", False),
    ("int_zero", "0", 0),
    ("int_neg", "-1", -1),
    ("int32_max", "2147483647", 2147483647),
    ("int32_min", "-2147483648", -2147483648),
    ("int_2p31", "2147483648", 2147483648),
    ("int_below_int32", "-2147483649", -2147483649),
    ("int64_max", "9223372036854775807", 9223372036854775807),
    ("int64_min", "-9223372036854775807 - 1", -(1 << 63)),
    ("int_big", str(BIG), BIG),
    ("float_half", "1.5", 1.5),
    ("float_tenth", "0.1", 0.1),
    ("float_third", "1.0 / 3.0", 1.0 / 3.0),
    ("float_neg_zero", "-0.0", -0.0),
    ("float_huge", "1e300", 1e300),
    ("float_tiny", "1e-300", 1e-300),
    ("float_flt_max", "pow(2.0, 127) * (2.0 - pow(2.0, -23))", 3.4028234663852886e38),
    ("float_nan", "NAN", NAN),
    ("float_inf", "INF", INF),
    ("float_neg_inf", "-INF", -INF),
    ("str_empty", '""', ""),
    ("str_ascii", '"hello"', "hello"),
    ("str_four", '"abcd"', "abcd"),
    ("str_unicode", f'"{UNICODE}"', UNICODE),
    ("str_escapes", '"tab\\tnl\\nquote\\"back\\\\"', 'tab\tnl\nquote"back\\'),
    ("vector2", "Vector2(1.5, -2)", Vector2(1.5, -2)),
    ("vector2_rounded", "Vector2(0.1, 1e30)", Vector2(0.1, 1e30)),
    ("rect2", "Rect2(1, 2, 3, 4)", Rect2(Vector2(1, 2), Vector2(3, 4))),
    ("vector3", "Vector3(1, -2.5, 3e-3)", Vector3(1, -2.5, 3e-3)),
    (
        "transform2d",
        "Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6))",
        Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6)),
    ),
    ("plane", "Plane(1, 2, 3, 4)", Plane(Vector3(1, 2, 3), 4)),
    ("aabb", "AABB(Vector3(1, 2, 3), Vector3(4, 5, 6))", AABB(Vector3(1, 2, 3), Vector3(4, 5, 6))),
    (
        "basis",
        "Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))",
        Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),
    ),
    ("color", "Color(0.1, 0.2, 0.3, 0.4)", Color(0.1, 0.2, 0.3, 0.4)),
    ("nodepath_abs", 'NodePath("/root/abcd:prop")', NodePath(("root", "abcd"), ("prop",), True)),
    ("nodepath_rel", 'NodePath("abcd/efgh")', NodePath(("abcd", "efgh"))),
    ("nodepath_subs", 'NodePath("abcd:prop:subs")', NodePath(("abcd",), ("prop", "subs"))),
    ("nodepath_empty", 'NodePath("")', NodePath()),
    ("rid", "RID()", RID()),
    ("dict_empty", "{}", {}),
    ("array_empty", "[]", []),
    (
        "dict_mixed",
        '{"a": 1, 2: [1, "x", {}], Vector2(1, 2): null, "nested": {"deeper": [[], [[1.5]]]}}',
        {"a": 1, 2: [1, "x", {}], Vector2(1, 2): None, "nested": {"deeper": [[], [[1.5]]]}},
    ),
    (
        "array_nested",
        '[[[[1]]], [], {"k": [true, false]}, "end"]',
        [[[[1]]], [], {"k": [True, False]}, "end"],
    ),
    ("dict_int_keys", "{1: 2, -3: 4.5, 0: null}", {1: 2, -3: 4.5, 0: None}),
]

# 3.2.3 leaves NodePath pad bytes uninitialised, so these compare equal only once decoded.
PAD_GARBAGE3 = {"nodepath_pad"}

_POOL3: list[tuple[str, str, Any]] = [
    ("nodepath_pad", 'NodePath("/root/a:b")', NodePath(("root", "a"), ("b",), True)),
    ("quat", "Quat(0.1, 0.2, 0.3, 0.9)", Quaternion(0.1, 0.2, 0.3, 0.9)),
    (
        "transform",
        "Transform(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),"
        " Vector3(10, 11, 12))",
        Transform3D(
            Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12)
        ),
    ),
    ("pool_byte", "PoolByteArray([1, 2, 3])", b"\x01\x02\x03"),
    ("pool_byte_four", "PoolByteArray([1, 2, 3, 255])", b"\x01\x02\x03\xff"),
    ("pool_byte_empty", "PoolByteArray()", b""),
    (
        "pool_int",
        "PoolIntArray([1, -2, 2147483647, -2147483648])",
        PackedInt32Array([1, -2, 2147483647, -2147483648]),
    ),
    ("pool_int_empty", "PoolIntArray()", PackedInt32Array()),
    (
        "pool_real",
        "PoolRealArray([1.5, 0.1, -0.0, INF])",
        PackedFloat32Array([1.5, 0.1, -0.0, INF]),
    ),
    (
        "pool_string",
        f'PoolStringArray(["a", "", "abc", "abcd", "{UNICODE}"])',
        PackedStringArray(["a", "", "abc", "abcd", UNICODE]),
    ),
    ("pool_string_empty", "PoolStringArray()", PackedStringArray()),
    (
        "pool_vector2",
        "PoolVector2Array([Vector2(1, 2), Vector2(0.1, -3)])",
        PackedVector2Array([Vector2(1, 2), Vector2(0.1, -3)]),
    ),
    (
        "pool_vector3",
        "PoolVector3Array([Vector3(1, 2, 3)])",
        PackedVector3Array([Vector3(1, 2, 3)]),
    ),
    (
        "pool_color",
        "PoolColorArray([Color(1, 0, 0, 1), Color(0.1, 0.2, 0.3, 0.5)])",
        PackedColorArray([Color(1, 0, 0, 1), Color(0.1, 0.2, 0.3, 0.5)]),
    ),
    (
        "mixed_all",
        '[null, true, 7, 2.5, "s", Vector2(1, 2), PoolIntArray([1]), {"x": PoolStringArray(["q"])},'
        " Transform(), Color(1, 1, 1, 1)]",
        [
            None,
            True,
            7,
            2.5,
            "s",
            Vector2(1, 2),
            PackedInt32Array([1]),
            {"x": PackedStringArray(["q"])},
            Transform3D(),
            Color(1, 1, 1, 1),
        ],
    ),
]

_ONLY4: list[tuple[str, str, Any]] = [
    ("quat", "Quaternion(0.1, 0.2, 0.3, 0.9)", Quaternion(0.1, 0.2, 0.3, 0.9)),
    (
        "transform",
        "Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),"
        " Vector3(10, 11, 12))",
        Transform3D(
            Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12)
        ),
    ),
    ("vector2i", "Vector2i(1, -2)", Vector2i(1, -2)),
    ("rect2i", "Rect2i(1, 2, 3, 4)", Rect2i(Vector2i(1, 2), Vector2i(3, 4))),
    ("vector3i", "Vector3i(2147483647, -2147483648, 0)", Vector3i(2147483647, -2147483648, 0)),
    ("vector4", "Vector4(1.5, 0.1, -3, 4)", Vector4(1.5, 0.1, -3, 4)),
    ("vector4i", "Vector4i(1, 2, 3, 4)", Vector4i(1, 2, 3, 4)),
    (
        "projection",
        "Projection(Vector4(1, 2, 3, 4), Vector4(5, 6, 7, 8), Vector4(9, 10, 11, 12),"
        " Vector4(13, 14, 15, 16))",
        Projection(
            Vector4(1, 2, 3, 4),
            Vector4(5, 6, 7, 8),
            Vector4(9, 10, 11, 12),
            Vector4(13, 14, 15, 16),
        ),
    ),
    ("string_name", '&"name"', StringName("name")),
    ("string_name_empty", '&""', StringName("")),
    ("nodepath_pad", 'NodePath("/root/a:b")', NodePath(("root", "a"), ("b",), True)),
    ("callable", "Callable()", Callable()),
    ("signal_empty", "Signal()", Signal()),
    ("dict_string_name_key", '{&"sn": 1, "s": &"v"}', {StringName("sn"): 1, "s": StringName("v")}),
    ("packed_byte", "PackedByteArray([1, 2, 3])", b"\x01\x02\x03"),
    ("packed_byte_empty", "PackedByteArray()", b""),
    (
        "packed_int32",
        "PackedInt32Array([1, -2, 2147483647, -2147483648])",
        PackedInt32Array([1, -2, 2147483647, -2147483648]),
    ),
    (
        "packed_int64",
        "PackedInt64Array([1, -2, 9223372036854775807])",
        PackedInt64Array([1, -2, 9223372036854775807]),
    ),
    (
        "packed_float32",
        "PackedFloat32Array([1.5, 0.1, -0.0, INF])",
        PackedFloat32Array([1.5, 0.1, -0.0, INF]),
    ),
    ("packed_float64", "PackedFloat64Array([1.5, 0.1, NAN])", PackedFloat64Array([1.5, 0.1, NAN])),
    (
        "packed_string",
        f'PackedStringArray(["a", "", "abc", "abcd", "{UNICODE}"])',
        PackedStringArray(["a", "", "abc", "abcd", UNICODE]),
    ),
    (
        "packed_vector2",
        "PackedVector2Array([Vector2(1, 2), Vector2(0.1, -3)])",
        PackedVector2Array([Vector2(1, 2), Vector2(0.1, -3)]),
    ),
    (
        "packed_vector3",
        "PackedVector3Array([Vector3(1, 2, 3)])",
        PackedVector3Array([Vector3(1, 2, 3)]),
    ),
    (
        "packed_color",
        "PackedColorArray([Color(1, 0, 0, 1), Color(0.1, 0.2, 0.3, 0.5)])",
        PackedColorArray([Color(1, 0, 0, 1), Color(0.1, 0.2, 0.3, 0.5)]),
    ),
    (
        "packed_vector4",
        "PackedVector4Array([Vector4(1, 2, 3, 4), Vector4(0.1, 0, 0, 0)])",
        PackedVector4Array([Vector4(1, 2, 3, 4), Vector4(0.1, 0, 0, 0)]),
    ),
    ("packed_vector4_empty", "PackedVector4Array()", PackedVector4Array()),
    (
        "typed_array_int",
        f'Array([{BIG}], TYPE_INT, &"", null)',
        TypedArray(ContainerType(VariantType.INT), [BIG]),
    ),
    (
        "typed_array_vector3",
        'Array([Vector3(1, 2, 3)], TYPE_VECTOR3, &"", null)',
        TypedArray(ContainerType(VariantType.VECTOR3), [Vector3(1, 2, 3)]),
    ),
    (
        "typed_array_empty_string",
        'Array([], TYPE_STRING, &"", null)',
        TypedArray(ContainerType(VariantType.STRING), []),
    ),
    (
        "typed_array_node",
        'Array([], TYPE_OBJECT, &"Node", null)',
        TypedArray(ContainerType.of_class("Node"), []),
    ),
    (
        "typed_dict_int_int",
        f'Dictionary({{{BIG}: {BIG}}}, TYPE_INT, &"", null, TYPE_INT, &"", null)',
        TypedDictionary(ContainerType(VariantType.INT), ContainerType(VariantType.INT), {BIG: BIG}),
    ),
    (
        "typed_dict_value_only",
        'Dictionary({"k": 1.5}, TYPE_NIL, &"", null, TYPE_FLOAT, &"", null)',
        TypedDictionary(ContainerType(), ContainerType(VariantType.FLOAT), {"k": 1.5}),
    ),
    (
        "typed_dict_key_only",
        'Dictionary({&"k": [1]}, TYPE_STRING_NAME, &"", null, TYPE_NIL, &"", null)',
        TypedDictionary(
            ContainerType(VariantType.STRING_NAME), ContainerType(), {StringName("k"): [1]}
        ),
    ),
    (
        "typed_nested",
        '[Array([1, 2], TYPE_INT, &"", null), {"t": Array([], TYPE_FLOAT, &"", null)}]',
        [
            TypedArray(ContainerType(VariantType.INT), [1, 2]),
            {"t": TypedArray(ContainerType(VariantType.FLOAT), [])},
        ],
    ),
    (
        "mixed_all",
        '[null, true, 7, 2.5, "s", Vector2i(1, 2), PackedInt64Array([1]), {"x": &"q"},'
        " Transform3D(), Color(1, 1, 1, 1), RID(), Callable()]",
        [
            None,
            True,
            7,
            2.5,
            "s",
            Vector2i(1, 2),
            PackedInt64Array([1]),
            {"x": StringName("q")},
            Transform3D(),
            Color(1, 1, 1, 1),
            RID(),
            Callable(),
        ],
    ),
]

CASES3: list[tuple[str, str, Any]] = _COMMON + _POOL3
CASES4: list[tuple[str, str, Any]] = _COMMON + _ONLY4

# Values computed by the engine in float32, compared approximately: they check conventions
# (which way round Basis/Transform helpers build their axes), not bytes.
TRS = (Vector3(5, 6, 7), Quaternion(0.1, 0.2, 0.3, 0.9), Vector3(2, 3, 4))
APPROX3 = {
    "trs": "Transform(Basis(Quat(0.1, 0.2, 0.3, 0.9).normalized())"
    " * Basis().scaled(Vector3(2, 3, 4)), Vector3(5, 6, 7))",
}
APPROX4 = {
    "trs": "Transform3D(Basis(Quaternion(0.1, 0.2, 0.3, 0.9).normalized())"
    " * Basis.from_scale(Vector3(2, 3, 4)), Vector3(5, 6, 7))",
}


# --- crafted inputs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Crafted:
    """Bytes fed to the engine's decoder.  ``accepted`` is what both the engine and ``loads_prefix``
    must agree on; ``objects`` selects bytes_to_var_with_objects; ``python_refuses`` marks the
    deliberate differences (the engine accepts, brson refuses)."""

    name: str
    data: bytes
    accepted: bool
    objects: bool = False
    python_refuses: bool = False
    # "bytes": engine re-encoding == ours; "decoded": equal once decoded (3.x NodePath pads are
    # uninitialised memory); "null_object3": 3.x debug builds write null objects as NIL, brson
    # keeps the as-ID/full form it read.
    compare: str = "bytes"


def _u32(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def _string(raw: bytes) -> bytes:
    return _u32(len(raw)) + raw + b"\0" * (-len(raw) % 4)


def _nested_arrays(levels: int, godot: int) -> bytes:
    """``levels`` arrays each holding the next; the innermost is empty."""
    header = _u32(28 if godot == 4 else 19)
    return (header + _u32(1)) * (levels - 1) + header + _u32(0)


def crafted(godot: int) -> list[Crafted]:
    """Hand-made inputs around the decoder's edges; ids are spelled out per version."""
    t = {
        "int": 2,
        "string": 4,
        "vector2": 5,
        "vector3": 9 if godot == 4 else 7,
        "node_path": 22 if godot == 4 else 15,
        "object": 24 if godot == 4 else 17,
        "dict": 27 if godot == 4 else 18,
        "array": 28 if godot == 4 else 19,
        "bytes": 29 if godot == 4 else 20,
        "strings": 34 if godot == 4 else 23,
    }
    cases = [
        Crafted("trailing_bytes", dumps(1, godot) + b"\x09\x09\x09", True),
        Crafted("count_bit31", _u32(t["array"], 0x80000001, t["int"], 5), True),
        Crafted("dict_count_bit31", _u32(t["dict"], 0x80000001, t["int"], 1, t["int"], 2), True),
        Crafted("header_byte1_set", _u32(t["int"] | 0x0100, 7), True),
        Crafted("bool_two", _u32(1, 2), True),
        Crafted("string_bom", _u32(t["string"]) + _string(b"\xef\xbb\xbfabc"), True),
        Crafted("string_nul", _u32(t["string"]) + _string(b"ab\0cd"), True),
        Crafted("string_pad_garbage", _u32(t["string"], 1) + b"a\x01\x02\x03", True),
        Crafted("bytes_no_pad", _u32(t["bytes"], 3) + b"\x01\x02\x03", True),
        Crafted(
            "node_path_obsolete_flag",
            _u32(t["node_path"], 0x80000001, 0, 2) + _string(b"abcd") + _string(b"efgh"),
            True,
        ),
        Crafted(
            "node_path_pad_garbage",
            _u32(t["node_path"], 0x80000001, 0, 1) + _u32(1) + b"a\x63\x72\x69",
            True,
            compare="bytes" if godot == 4 else "decoded",
        ),
        Crafted("string_array_negative", _u32(t["strings"], 0xFFFFFFFF), True),
        Crafted("string_array_no_nul", _u32(t["strings"], 1) + _string(b"abcd"), True),
        Crafted(
            "object_as_id_zero",
            _u32(t["object"] | 1 << 16, 0, 0),
            True,
            compare="bytes" if godot == 4 else "null_object3",
        ),
        Crafted("empty", b"", False),
        Crafted("short_header", b"\x02\x00", False),
        Crafted("unknown_type", _u32(39 if godot == 4 else 27), False),
        Crafted("unknown_type_255", _u32(0xFF), False),
        Crafted("truncated_int64", _u32(t["int"] | 1 << 16, 1), False),
        Crafted("string_negative_length", _u32(t["string"], 0x80000000), False),
        Crafted("string_too_long", _u32(t["string"], 100) + b"abcd", False),
        Crafted("string_invalid_utf8", _u32(t["string"]) + _string(b"\xff\xfe"), False),
        Crafted("array_count_huge", _u32(t["array"], 0x7FFFFFFF, 0), False),
        Crafted("dict_count_huge", _u32(t["dict"], 0x7FFFFFFF, 0, 0), False),
        Crafted("bytes_count_huge", _u32(t["bytes"], 0x7FFFFFFF, 0), False),
        Crafted("bytes_count_negative", _u32(t["bytes"], 0xFFFFFFFF, 0), False),
        Crafted("node_path_old_format", _u32(t["node_path"], 1) + b"a\0\0\0", False),
        Crafted(
            "node_path_truncated", _u32(t["node_path"], 0x80000002, 0, 0) + _string(b"a"), False
        ),
        Crafted("full_object_unauthorized", _u32(t["object"]) + _string(b"Node") + _u32(0), False),
        Crafted("array_truncated_child", _u32(t["array"], 2, t["int"], 1), False),
    ]
    if godot == 4:
        cases += [
            Crafted("vector3_double", _u32(9 | 1 << 16) + struct.pack("<3d", 0.5, 0.1, -2.0), True),
            Crafted(
                "vector2_double_overflow",
                _u32(5 | 1 << 16) + struct.pack("<2d", 1e300, -1e300),
                True,
            ),
            Crafted(
                "vector2_double_truncated", _u32(5 | 1 << 16) + struct.pack("<2f", 1, 2), False
            ),
            Crafted(
                "packed_vector2_double",
                _u32(35 | 1 << 16, 1) + struct.pack("<2d", 1.5, 0.1),
                True,
            ),
            Crafted("typed_builtin_nil", _u32(28 | 1 << 16, 0, 0), True),
            Crafted("typed_builtin_object", _u32(28 | 1 << 16, 24, 0), True),
            Crafted("typed_class_name", _u32(28 | 2 << 16) + _string(b"Node") + _u32(0), True),
            Crafted(
                "typed_script_no_objects",
                _u32(28 | 3 << 16) + _string(b"res://missing.gd") + _u32(0),
                True,
            ),
            Crafted("typed_builtin_out_of_range", _u32(28 | 1 << 16, 39, 0), False),
            Crafted("typed_truncated", _u32(28 | 1 << 16), False),
            Crafted("rid_payload", _u32(23) + struct.pack("<Q", 123456789), True),
            Crafted("rid_truncated", _u32(23, 1), False),
            Crafted("signal", _u32(26) + _string(b"sig") + struct.pack("<Q", 42), True),
            Crafted("callable_flags", _u32(25 | 0xABCD0000), True),
            Crafted("nested_1025", _nested_arrays(1025, 4), True),
            Crafted("nested_1026", _nested_arrays(1026, 4), False),
            Crafted(
                "full_object_refcounted",
                _u32(24) + _string(b"RefCounted") + _u32(1) + _string(b"script") + _u32(0),
                True,
                objects=True,
            ),
            Crafted(
                "full_object_bad_script",
                _u32(24) + _string(b"RefCounted") + _u32(1) + _string(b"script") + _u32(2, 1),
                False,
                objects=True,
            ),
            Crafted("full_object_null", _u32(24, 0), True, objects=True),
        ]
    else:
        cases += [
            Crafted("vector2_flag64_ignored", _u32(5 | 1 << 16) + struct.pack("<2f", 1, 2), True),
            Crafted("rid_no_payload", _u32(16), True),
            Crafted(
                "full_object_reference",
                _u32(17) + _string(b"Reference") + _u32(1) + _string(b"script") + _u32(0),
                True,
                objects=True,
            ),
            Crafted("full_object_null", _u32(17, 0), True, objects=True, compare="null_object3"),
            # 3.2.3 has no depth limit at all; brson keeps the 4.x limit for both versions.
            Crafted("nested_1100", _nested_arrays(1100, 3), True, python_refuses=True),
        ]
    return cases


# --- random values ----------------------------------------------------------------------------


def random_values(godot: int, count: int, seed: int) -> list[Any]:
    """Deterministic values that come back unchanged from bytes_to_var + var_to_bytes.

    Excluded on purpose: ObjectID (the engine wraps it in a new EncodedObjectAsID object and
    writes *that* object's id), full Objects, 3.x NodePath names needing pad bytes (3.2.3 writes
    uninitialised pad), dictionary keys Godot would merge (String vs StringName in 4.x), and
    typed containers (covered by fixed cases; random elements could violate the type).
    """
    rng = random.Random(seed)
    return [_random_value(rng, godot, depth=0) for _ in range(count)]


def _random_float(rng: random.Random, real: bool = False) -> float:
    """A float; ``real`` ones fit float32 (math types are float32 in the engine)."""
    choice = rng.random()
    if choice < 0.1:
        specials = [0.0, -0.0, INF, -INF, NAN, 0.1]
        return rng.choice(specials if real else [*specials, 1e300, -1e-300])
    if choice < 0.5:
        return float(rng.randint(-1000, 1000)) / 4
    return rng.uniform(-1e6, 1e6)


def _random_text(rng: random.Random, godot: int) -> str:
    alphabet = "abcXYZ09 _-/:.é✓😀日"
    length = rng.randint(0, 9)
    if godot == 3:
        length -= length % 4  # keep NodePath-safe lengths everywhere in 3.x
    return "".join(rng.choice(alphabet) for _ in range(length))


def _random_int(rng: random.Random) -> int:
    return rng.choice(
        [
            rng.randint(-100, 100),
            rng.randint(-(1 << 31), (1 << 31) - 1),
            rng.randint(-(1 << 63), (1 << 63) - 1),
        ]
    )


def _random_leaf(rng: random.Random, godot: int) -> Any:
    f = lambda: _random_float(rng, real=True)  # noqa: E731
    i32 = lambda: rng.randint(-(1 << 31), (1 << 31) - 1)  # noqa: E731
    v3 = lambda: Vector3(f(), f(), f())  # noqa: E731
    makers: list[Any] = [
        lambda: None,
        lambda: rng.random() < 0.5,
        lambda: _random_int(rng),
        lambda: _random_float(rng),
        lambda: _random_text(rng, godot),
        lambda: Vector2(f(), f()),
        lambda: Rect2(Vector2(f(), f()), Vector2(f(), f())),
        v3,
        lambda: Transform2D(Vector2(f(), f()), Vector2(f(), f()), Vector2(f(), f())),
        lambda: Plane(v3(), f()),
        lambda: Quaternion(f(), f(), f(), f()),
        lambda: AABB(v3(), v3()),
        lambda: Basis(v3(), v3(), v3()),
        lambda: Transform3D(Basis(v3(), v3(), v3()), v3()),
        lambda: Color(f(), f(), f(), f()),
        lambda: NodePath(
            [_random_text(rng, godot) or "n" * 4 for _ in range(rng.randint(0, 3))],
            [_random_text(rng, godot) or "s" * 4 for _ in range(rng.randint(0, 2))],
            rng.random() < 0.5,
        ),
        lambda: rng.randbytes(rng.randint(0, 9)),
        lambda: PackedInt32Array([i32() for _ in range(rng.randint(0, 4))]),
        lambda: PackedFloat32Array([f() for _ in range(rng.randint(0, 4))]),
        lambda: PackedStringArray([_random_text(rng, 4) for _ in range(rng.randint(0, 4))]),
        lambda: PackedVector2Array([Vector2(f(), f()) for _ in range(rng.randint(0, 3))]),
        lambda: PackedVector3Array([v3() for _ in range(rng.randint(0, 3))]),
        lambda: PackedColorArray([Color(f(), f(), f(), f()) for _ in range(rng.randint(0, 3))]),
    ]
    if godot == 3:
        makers.append(lambda: RID())
    else:
        v4 = lambda: Vector4(f(), f(), f(), f())  # noqa: E731
        makers += [
            lambda: Vector2i(i32(), i32()),
            lambda: Rect2i(Vector2i(i32(), i32()), Vector2i(i32(), i32())),
            lambda: Vector3i(i32(), i32(), i32()),
            v4,
            lambda: Vector4i(i32(), i32(), i32(), i32()),
            lambda: Projection(v4(), v4(), v4(), v4()),
            lambda: StringName(_random_text(rng, 4)),
            lambda: RID(rng.randint(0, (1 << 64) - 1)),
            lambda: Callable(),
            lambda: Signal(_random_text(rng, 4), rng.randint(0, (1 << 64) - 1)),
            lambda: PackedInt64Array([_random_int(rng) for _ in range(rng.randint(0, 4))]),
            lambda: PackedFloat64Array([_random_float(rng) for _ in range(rng.randint(0, 4))]),
            lambda: PackedVector4Array([v4() for _ in range(rng.randint(0, 3))]),
        ]
    return rng.choice(makers)()


def _random_value(rng: random.Random, godot: int, depth: int) -> Any:
    roll = rng.random()
    if depth < 4 and roll < 0.15:
        return [_random_value(rng, godot, depth + 1) for _ in range(rng.randint(0, 4))]
    if depth < 4 and roll < 0.3:
        result: dict[Any, Any] = {}
        for _ in range(rng.randint(0, 4)):
            # Keys from types Python and Godot agree on (no float/bool/int mixing, no StringName).
            key = rng.choice([_random_text(rng, godot), rng.randint(-50, 50)])
            result[key] = _random_value(rng, godot, depth + 1)
        return result
    return _random_leaf(rng, godot)


def full_object(godot: int) -> Object:
    """The object ``var_to_bytes_with_objects(RefCounted.new())`` describes."""
    return Object("RefCounted" if godot == 4 else "Reference", [("script", None)])
