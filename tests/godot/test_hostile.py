"""Hostile input: only VariantError may escape, never struct.error, MemoryError or RecursionError.

Decoding is fed truncations, random bytes, mutated valid encodings, absurd counts and nesting far
past the engine's limit; encoding is fed values it cannot represent.
"""

from __future__ import annotations

import struct
import sys
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brson.errors import VariantError
from brson.godot import (
    MAX_DEPTH,
    RID,
    Callable,
    ContainerType,
    NodePath,
    Object,
    ObjectID,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    Signal,
    StringName,
    TypedArray,
    VariantType,
    Vector2i,
    Vector3,
    Vector4,
    dumps,
    loads,
    loads_prefix,
)
from tests.tiers import examples

from .cases import CASES3, CASES4, crafted

FAST = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
#: Most bytes Python may hold at once while refusing an absurd count (measured: under 3.5 KB).
REFUSAL_PEAK = 16 * 1024


def _u32(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def _decode_or_refuse(data: bytes, godot: int, objects: bool = False) -> Any:
    """Decode; a refusal must be a VariantError with an offset inside the data."""
    try:
        value, used = loads_prefix(data, godot, allow_objects=objects)
    except VariantError as exc:
        assert exc.offset is not None and 0 <= exc.offset <= len(data)
        return exc
    assert 0 < used <= len(data)
    # Whatever decoded must encode again, and the re-encoding must be stable.
    once = dumps(value, godot, full_objects=objects)
    assert dumps(loads(once, godot, allow_objects=objects), godot, full_objects=objects) == once
    return value


def _vectors(godot: int) -> list[bytes]:
    cases = CASES3 if godot == 3 else CASES4
    composite = [v for _, _, v in cases]
    return [dumps(v, godot) for _, _, v in cases] + [dumps(composite, godot)]


@pytest.mark.slow
@pytest.mark.parametrize("godot", [3, 4])
def test_truncated_at_every_offset(godot: int) -> None:
    for data in _vectors(godot):
        refused = 0
        for cut in range(len(data)):
            if isinstance(_decode_or_refuse(data[:cut], godot), VariantError):
                refused += 1
        # Only cuts inside the final pad of a byte array may still decode (as in the engine).
        assert refused >= len(data) - 3


@FAST
@given(st.binary(max_size=64), st.sampled_from([3, 4]), st.booleans())
def test_random_bytes(data: bytes, godot: int, objects: bool) -> None:
    _decode_or_refuse(data, godot, objects)


@FAST
@given(
    st.integers(0, 255),
    st.integers(0, 0xFFFF),
    st.binary(max_size=48),
    st.sampled_from([3, 4]),
    st.booleans(),
)
def test_random_payload_behind_valid_header(
    type_id: int, flags: int, payload: bytes, godot: int, objects: bool
) -> None:
    limit = 39 if godot == 4 else 27
    data = _u32((type_id % limit) | flags << 16) + payload
    _decode_or_refuse(data, godot, objects)


@pytest.mark.slow
@FAST
@given(st.data(), st.sampled_from([3, 4]))
def test_mutated_valid_encodings(data: st.DataObject, godot: int) -> None:
    vectors = _vectors(godot)
    original = bytearray(data.draw(st.sampled_from(vectors)))
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(original) - 1))
        original[index] = data.draw(st.integers(0, 255))
    _decode_or_refuse(bytes(original), godot, objects=True)


@pytest.mark.parametrize("godot", [3, 4])
def test_crafted_refusals_name_an_offset(godot: int) -> None:
    for case in crafted(godot):
        if case.accepted and not case.python_refuses:
            continue
        with pytest.raises(VariantError) as info:
            loads_prefix(case.data, godot, allow_objects=case.objects)
        assert info.value.offset is not None, case.name


def _absurd(godot: int) -> dict[str, bytes]:
    four = godot == 4
    ids = {
        "string": 4,
        "array": 28 if four else 19,
        "dict": 27 if four else 18,
        "bytes": 29 if four else 20,
        "int32s": 30 if four else 21,
        "strings": 34 if four else 23,
        "vec3s": 36 if four else 25,
        "colors": 37 if four else 26,
        "node_path": 22 if four else 15,
        "object": 24 if four else 17,
    }
    out = {
        "string": _u32(ids["string"], 0x7FFFFFF0),
        "array": _u32(ids["array"], 0x7FFFFFFF),
        "array_bit31": _u32(ids["array"], 0xFFFFFFFF),
        "dict": _u32(ids["dict"], 0x7FFFFFFF),
        "bytes": _u32(ids["bytes"], 0x7FFFFFFF),
        "int32s": _u32(ids["int32s"], 0x7FFFFFFF),
        "int32s_overflowing": _u32(ids["int32s"], 0x40000001),
        "strings": _u32(ids["strings"], 0x7FFFFFFF),
        "vec3s": _u32(ids["vec3s"], 0x15555556),
        "colors": _u32(ids["colors"], 0x7FFFFFFF),
        "node_path": _u32(ids["node_path"], 0xFFFFFFFF, 0x7FFFFFFF, 0),
        "object_props": _u32(ids["object"], 1) + b"A\0\0\0" + _u32(0x7FFFFFFF),
    }
    if four:
        out["typed_array"] = _u32(28 | 1 << 16, 2, 0x7FFFFFFF)
        out["typed_class"] = _u32(28 | 2 << 16, 0x7FFFFFFF)
        out["int64s"] = _u32(31, 0x7FFFFFFF)
        out["vec4s_double"] = _u32(38 | 1 << 16, 0x7FFFFFFF)
    return out


@pytest.mark.parametrize("godot", [3, 4])
def test_absurd_counts_fail_before_allocating(godot: int) -> None:
    """Refused at the count itself (offset <= 8), not after reading what follows: a decoder
    that trusted the count would only stop at the end of the 64 KiB of NILs behind it.  And
    before allocating: the most Python allocates at any moment of the refusal stays a few KiB
    (tracemalloc's peak, the same on every run; a list or buffer sized by the count, or the
    NILs read into one, would be megabytes to gigabytes)."""
    for name, data in _absurd(godot).items():
        data += bytes(65536)
        with pytest.raises(VariantError):
            loads(data, godot, allow_objects=True)  # first use: lazy imports, caches
        tracemalloc.start()
        try:
            with pytest.raises(VariantError) as info:
                loads(data, godot, allow_objects=True)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < REFUSAL_PEAK, (name, peak)
        assert info.value.offset is not None and info.value.offset <= 8, name


def _nested(levels: int, godot: int, kind: str) -> bytes:
    four = godot == 4
    if kind == "array":
        return _u32(28 if four else 19, 1) * levels + _u32(0)
    if kind == "dict_value":
        key = _u32(2, 1)
        return (_u32(27 if four else 18, 1) + key) * levels + _u32(0)
    if kind == "dict_key":
        return _u32(27 if four else 18, 1) * levels + _u32(0) + _u32(0) * levels
    if kind == "object":
        obj = 24 if four else 17
        return (_u32(obj, 1) + b"A\0\0\0" + _u32(1, 1) + b"p\0\0\0") * levels + _u32(0)
    raise AssertionError(kind)


@pytest.mark.parametrize("godot", [3, 4])
@pytest.mark.parametrize("kind", ["array", "dict_value", "dict_key", "object"])
def test_deep_nesting_is_refused_without_recursion(godot: int, kind: str) -> None:
    limit = sys.getrecursionlimit()
    with pytest.raises(VariantError, match="nesting deeper"):
        loads(_nested(2000, godot, kind), godot, allow_objects=True)
    assert sys.getrecursionlimit() == limit


@pytest.mark.parametrize("godot", [3, 4])
@pytest.mark.parametrize("kind", ["array", "dict_value", "dict_key", "object"])
def test_engine_depth_limit_is_exact(godot: int, kind: str) -> None:
    """MAX_DEPTH containers around a leaf decode (the leaf sits at depth 1024); one more fails."""
    deepest = _nested(MAX_DEPTH, godot, kind)
    value = loads(deepest, godot, allow_objects=True)
    assert dumps(value, godot, full_objects=True) == deepest
    with pytest.raises(VariantError, match="nesting deeper"):
        loads(_nested(MAX_DEPTH + 1, godot, kind), godot, allow_objects=True)


def test_deep_python_values_are_refused_by_dumps() -> None:
    deep: list[Any] = []
    for _ in range(2000):
        deep = [deep]
    with pytest.raises(VariantError, match="nesting deeper"):
        dumps(deep)
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(VariantError, match="nesting deeper"):
        dumps(loop)


def test_keys_python_would_merge() -> None:
    """{1: a, true: b} is two entries in Godot; Python cannot hold both, so it is refused."""
    data = _u32(27, 2, 2, 1, 2, 10, 1, 1, 2, 20)
    with pytest.raises(VariantError, match="distinct in Godot"):
        loads(data)
    # A repeated identical key overwrites in place, as Dictionary::operator[] does.
    assert loads(_u32(27, 2, 2, 1, 2, 10, 2, 1, 2, 20)) == {1: 20}


def test_container_keys_are_frozen() -> None:
    key = [1, [2, {"x": 3}]]
    data = _u32(27, 1) + dumps(key) + dumps("v")
    decoded = loads(data)
    ((frozen, value),) = decoded.items()
    assert value == "v"
    assert frozen[0] == 1 and isinstance(frozen, tuple) and isinstance(frozen[1], tuple)
    assert dumps(decoded) == data


def test_unauthorized_full_objects() -> None:
    data = dumps(Object("Node", [("name", "n")]), full_objects=True)
    with pytest.raises(VariantError, match="unauthorized"):
        loads(data)
    assert loads(data, allow_objects=True) == Object("Node", [("name", "n")])


def test_trailing_bytes() -> None:
    with pytest.raises(VariantError, match="trailing") as info:
        loads(dumps(1) + b"\0")
    assert info.value.offset == 8
    assert loads_prefix(dumps(1) + b"\0") == (1, 8)


def test_error_offsets_point_at_the_bad_value() -> None:
    data = _u32(28, 2, 2, 5, 99)
    with pytest.raises(VariantError) as info:
        loads(data)
    assert info.value.offset == 16
    assert "unknown Variant type id 99" in str(info.value)


UNENCODABLE: list[tuple[Any, int, dict[str, Any], str]] = [
    ({1, 2}, 4, {}, "cannot encode set"),
    ([object()], 4, {}, "cannot encode object"),
    (2**64, 4, {}, "int64"),
    ("a\0b", 4, {}, "NUL"),
    ("\ufeffbom", 4, {}, "U\\+FEFF"),
    ("\ud800", 4, {}, "UTF-8"),
    (Vector2i(2**31, 0), 4, {}, "int32"),
    (PackedInt32Array([2**31]), 4, {}, "int32"),
    (PackedInt64Array([2**63]), 4, {}, "int64"),
    (PackedStringArray(["ok", "bad\0"]), 4, {}, "NUL"),
    (RID(-1), 4, {}, "does not fit"),
    (ObjectID(2**64), 4, {}, "does not fit"),
    (Object("Node"), 4, {}, "full_objects=True"),
    (Object("Node", [("script", 5)]), 4, {"full_objects": True}, "res://"),
    (TypedArray(ContainerType.of_class("N", "bad.gd"), []), 4, {"full_objects": True}, "res://"),
    (NodePath(["ok", 5]), 4, {}, "expected a string"),  # type: ignore[list-item]
    (Vector4(), 3, {}, "VECTOR4 does not exist in Godot 3"),
    (StringName("x"), 3, {}, "does not exist in Godot 3"),
    (Callable(), 3, {}, "does not exist in Godot 3"),
    (Signal(), 3, {}, "does not exist in Godot 3"),
    (PackedInt64Array(), 3, {}, "does not exist in Godot 3"),
    (TypedArray(ContainerType(VariantType.INT), []), 3, {}, "Godot 3"),
    (1, 5, {}, "godot must be 3 or 4"),
    (Vector3(), 3, {"double_precision": True}, "only for Godot 4"),
]


@pytest.mark.parametrize(("value", "godot", "kwargs", "message"), UNENCODABLE)
def test_unencodable_values(value: Any, godot: int, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(VariantError, match=message):
        dumps(value, godot, **kwargs)


def test_default_replaces_values_without_a_variant_type() -> None:
    """``default`` works as in json.dumps: called for unknown values, containers included."""
    seen: list[Any] = []

    def default(value: Any) -> Any:
        seen.append(value)
        return {"set": sorted(value)} if isinstance(value, frozenset) else str(value)

    data = dumps({"a": [frozenset({2, 1}), complex(1, 2)]}, 3, default=default)
    assert loads(data, 3) == {"a": [{"set": [1, 2]}, "(1+2j)"]}
    assert seen == [frozenset({1, 2}), complex(1, 2)]
    assert dumps(1.5, default=default) == dumps(1.5) and len(seen) == 2  # known: not called
    with pytest.raises(VariantError, match="cannot encode complex") as info:
        dumps([1j])
    assert info.value.path == "[0]"
    with pytest.raises(VariantError, match="turned complex into complex") as info:
        dumps({"k": 1j}, default=lambda v: v)
    assert info.value.path == "['k']"
    with pytest.raises(VariantError, match=r"cannot encode complex as a Godot Variant \(no\)"):
        dumps(1j, default=_refuse)


def _refuse(value: Any) -> Any:
    raise TypeError("no")


def test_encode_errors_name_the_path() -> None:
    with pytest.raises(VariantError) as info:
        dumps({"a": [1, {2: Vector2i(2**40, 0)}]})
    assert info.value.path == "['a'][1][2]"


def test_float32_fields_narrow_like_the_engine() -> None:
    """Values beyond FLT_MAX become inf, as the engine's cast to real_t does (the engine reads
    64-bit math fields from double-precision builds into float and writes inf back)."""
    assert loads(dumps(Vector3(1e39, -1e39, 3.4028235e38))) == Vector3(
        float("inf"), float("-inf"), 3.4028234663852886e38
    )
    assert loads(dumps(Vector3(1e39, 0, 0), double_precision=True)) == Vector3(1e39, 0, 0)


def test_bad_argument_types_are_variant_errors() -> None:
    with pytest.raises(VariantError):
        loads("not bytes")  # type: ignore[arg-type]
    with pytest.raises(VariantError):
        loads(b"\0\0\0\0", godot=2)
    assert loads(memoryview(b"\x02\0\0\0\x05\0\0\0")) == 5
    assert loads(bytearray(b"\x02\0\0\0\x05\0\0\0")) == 5
