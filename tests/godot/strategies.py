"""Hypothesis strategies for Variant values, per engine version, plus a strict equality.

Values are generated so that ``loads(dumps(v)) == v`` must hold exactly: math-type fields are
float32-representable (the format stores them as float32), strings avoid the two things the
engine cannot carry (NUL, a leading BOM), and null objects are left out (4.x turns them into NIL).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from hypothesis import strategies as st

from brson.godot import (
    AABB,
    RID,
    Basis,
    Callable,
    Color,
    ContainerType,
    FrozenDict,
    NodePath,
    Object,
    ObjectID,
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
)

INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
UINT64 = st.integers(0, 2**64 - 1)
F32 = st.floats(width=32, allow_nan=True, allow_infinity=True)
F64 = st.floats(allow_nan=True, allow_infinity=True)
TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12
).filter(lambda s: not s.startswith("\ufeff"))


def _v2() -> st.SearchStrategy[Vector2]:
    return st.builds(Vector2, F32, F32)


def _v3() -> st.SearchStrategy[Vector3]:
    return st.builds(Vector3, F32, F32, F32)


def _v4() -> st.SearchStrategy[Vector4]:
    return st.builds(Vector4, F32, F32, F32, F32)


def _small(s: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(s, max_size=5)


def leaves(godot: int) -> st.SearchStrategy[Any]:
    common: list[st.SearchStrategy[Any]] = [
        st.none(),
        st.booleans(),
        INT64,
        F64,
        TEXT,
        _v2(),
        st.builds(Rect2, _v2(), _v2()),
        _v3(),
        st.builds(Transform2D, _v2(), _v2(), _v2()),
        st.builds(Plane, _v3(), F32),
        st.builds(Quaternion, F32, F32, F32, F32),
        st.builds(AABB, _v3(), _v3()),
        st.builds(Basis, _v3(), _v3(), _v3()),
        st.builds(Transform3D, st.builds(Basis, _v3(), _v3(), _v3()), _v3()),
        st.builds(Color, F32, F32, F32, F32),
        st.builds(NodePath, _small(TEXT), _small(TEXT), st.booleans()),
        st.binary(max_size=12),
        st.builds(ObjectID, st.integers(1, 2**64 - 1)),
        st.builds(PackedInt32Array, _small(INT32)),
        st.builds(PackedFloat32Array, _small(F32)),
        st.builds(PackedStringArray, _small(TEXT)),
        st.builds(PackedVector2Array, _small(_v2())),
        st.builds(PackedVector3Array, _small(_v3())),
        st.builds(PackedColorArray, _small(st.builds(Color, F32, F32, F32, F32))),
    ]
    if godot == 3:
        return st.one_of(*common, st.just(RID()))
    return st.one_of(
        *common,
        st.builds(Vector2i, INT32, INT32),
        st.builds(Rect2i, st.builds(Vector2i, INT32, INT32), st.builds(Vector2i, INT32, INT32)),
        st.builds(Vector3i, INT32, INT32, INT32),
        _v4(),
        st.builds(Vector4i, INT32, INT32, INT32, INT32),
        st.builds(Projection, _v4(), _v4(), _v4(), _v4()),
        st.builds(StringName, TEXT),
        st.builds(RID, UINT64),
        st.just(Callable()),
        st.builds(Signal, TEXT, UINT64),
        st.builds(PackedInt64Array, _small(INT64)),
        st.builds(PackedFloat64Array, _small(F64)),
        st.builds(PackedVector4Array, _small(_v4())),
        st.builds(TypedArray, st.just(ContainerType(VariantType.INT)), _small(INT64)),
        st.builds(TypedArray, st.just(ContainerType(VariantType.VECTOR3)), _small(_v3())),
        st.builds(
            TypedDictionary,
            st.just(ContainerType(VariantType.STRING)),
            st.just(ContainerType()),
            st.dictionaries(TEXT, st.one_of(st.none(), INT64, TEXT), max_size=3),
        ),
    )


KEYS = st.one_of(st.none(), st.booleans(), INT64, TEXT, st.builds(Vector2, F32, F32))


def values(godot: int, objects: bool = False) -> st.SearchStrategy[Any]:
    base = leaves(godot)
    if objects:
        names = TEXT.filter(lambda s: s != "script")
        base = st.one_of(base, st.builds(Object, TEXT.filter(bool), st.just(())))

        def with_objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
            props = st.lists(st.tuples(names, children), max_size=3)
            return st.builds(Object, TEXT.filter(bool), props)

    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        options = [
            st.lists(children, max_size=4),
            st.dictionaries(KEYS, children, max_size=4),
        ]
        if objects:
            options.append(with_objects(children))
        return st.one_of(*options)

    return st.recursive(base, extend, max_leaves=12)


def same(a: Any, b: Any) -> bool:
    """Equality that also demands identical types (1 vs 1.0 vs True) and treats NaN == NaN."""
    pending: list[tuple[Any, Any]] = [(a, b)]
    while pending:
        x, y = pending.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, float):
            if not (x == y and math.copysign(1, x) == math.copysign(1, y)) and not (
                math.isnan(x) and math.isnan(y)
            ):
                return False
        elif isinstance(x, list | tuple):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif isinstance(x, dict | FrozenDict | Mapping):
            if len(x) != len(y):
                return False
            pending.extend(zip(list(x), list(y), strict=True))
            pending.extend(zip(list(x.values()), list(y.values()), strict=True))
        elif is_dataclass(x):
            pending.extend((getattr(x, f.name), getattr(y, f.name)) for f in fields(x))
        elif x != y:
            return False
    return True
