"""Python values for every Godot Variant type, shaped so that the exact Variant type round trips.

Python's own types cover the obvious cases (``None``, ``bool``, ``int``, ``float``, ``str``,
``list``, ``dict``, ``bytes``).  Everything else gets a frozen dataclass here, because the binary
format distinguishes types Python would merge: a ``PackedInt32Array`` and a ``PackedInt64Array``
of the same numbers are different bytes, ``StringName`` is not ``String``, a ``Vector2i`` is not a
``Vector2``.  Frozen + slots keeps them cheap, hashable (so they can be dictionary keys, as in
Godot) and safe to share.

The classes carry the Godot 4 names; the Godot 3 names (``Quat``, ``Transform``, ``Pool*Array``)
are aliases because the 3.x layout of those types is identical.  Sequences given to the
constructors are normalised to tuples so that values stay immutable and hashable.

Type ids: :class:`VariantType` is the 4.x engine enum (used by typed containers, which only exist
in 4.x) and :class:`VariantType3` the 3.x one; the codec never spells an id as a bare literal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from brson.errors import VariantError

__all__ = [
    "AABB",
    "RID",
    "Basis",
    "Callable",
    "Color",
    "ContainerType",
    "FrozenDict",
    "NodePath",
    "Object",
    "ObjectID",
    "PackedByteArray",
    "PackedColorArray",
    "PackedFloat32Array",
    "PackedFloat64Array",
    "PackedInt32Array",
    "PackedInt64Array",
    "PackedStringArray",
    "PackedVector2Array",
    "PackedVector3Array",
    "PackedVector4Array",
    "Plane",
    "PoolByteArray",
    "PoolColorArray",
    "PoolIntArray",
    "PoolRealArray",
    "PoolStringArray",
    "PoolVector2Array",
    "PoolVector3Array",
    "Projection",
    "Quat",
    "Quaternion",
    "Rect2",
    "Rect2i",
    "Signal",
    "StringName",
    "Transform",
    "Transform2D",
    "Transform3D",
    "TypedArray",
    "TypedDictionary",
    "VariantType",
    "VariantType3",
    "Vector2",
    "Vector2i",
    "Vector3",
    "Vector3i",
    "Vector4",
    "Vector4i",
]


class VariantType(IntEnum):
    """Godot 4.x ``Variant::Type`` (checked against 4.6.3 ``core/variant/variant.h``)."""

    NIL = 0
    BOOL = 1
    INT = 2
    FLOAT = 3
    STRING = 4
    VECTOR2 = 5
    VECTOR2I = 6
    RECT2 = 7
    RECT2I = 8
    VECTOR3 = 9
    VECTOR3I = 10
    TRANSFORM2D = 11
    VECTOR4 = 12
    VECTOR4I = 13
    PLANE = 14
    QUATERNION = 15
    AABB = 16
    BASIS = 17
    TRANSFORM3D = 18
    PROJECTION = 19
    COLOR = 20
    STRING_NAME = 21
    NODE_PATH = 22
    RID = 23
    OBJECT = 24
    CALLABLE = 25
    SIGNAL = 26
    DICTIONARY = 27
    ARRAY = 28
    PACKED_BYTE_ARRAY = 29
    PACKED_INT32_ARRAY = 30
    PACKED_INT64_ARRAY = 31
    PACKED_FLOAT32_ARRAY = 32
    PACKED_FLOAT64_ARRAY = 33
    PACKED_STRING_ARRAY = 34
    PACKED_VECTOR2_ARRAY = 35
    PACKED_VECTOR3_ARRAY = 36
    PACKED_COLOR_ARRAY = 37
    PACKED_VECTOR4_ARRAY = 38


class VariantType3(IntEnum):
    """Godot 3.x ``Variant::Type`` (checked against 3.2.3 ``core/variant.h``)."""

    NIL = 0
    BOOL = 1
    INT = 2
    REAL = 3
    STRING = 4
    VECTOR2 = 5
    RECT2 = 6
    VECTOR3 = 7
    TRANSFORM2D = 8
    PLANE = 9
    QUAT = 10
    AABB = 11
    BASIS = 12
    TRANSFORM = 13
    COLOR = 14
    NODE_PATH = 15
    RID = 16
    OBJECT = 17
    DICTIONARY = 18
    ARRAY = 19
    POOL_BYTE_ARRAY = 20
    POOL_INT_ARRAY = 21
    POOL_REAL_ARRAY = 22
    POOL_STRING_ARRAY = 23
    POOL_VECTOR2_ARRAY = 24
    POOL_VECTOR3_ARRAY = 25
    POOL_COLOR_ARRAY = 26


# --- vectors ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Vector2:
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True, slots=True)
class Vector2i:
    x: int = 0
    y: int = 0


@dataclass(frozen=True, slots=True)
class Vector3:
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0


@dataclass(frozen=True, slots=True)
class Vector3i:
    x: int = 0
    y: int = 0
    z: int = 0


@dataclass(frozen=True, slots=True)
class Vector4:
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    w: float = 0.0


@dataclass(frozen=True, slots=True)
class Vector4i:
    x: int = 0
    y: int = 0
    z: int = 0
    w: int = 0


# --- other math types -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rect2:
    position: Vector2 = Vector2()
    size: Vector2 = Vector2()


@dataclass(frozen=True, slots=True)
class Rect2i:
    position: Vector2i = Vector2i()
    size: Vector2i = Vector2i()


@dataclass(frozen=True, slots=True)
class Plane:
    normal: Vector3 = Vector3()
    d: float = 0.0


@dataclass(frozen=True, slots=True)
class Quaternion:
    """Rotation as x, y, z, w (the default is the identity, as in Godot)."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    w: float = 1.0


Quat = Quaternion


@dataclass(frozen=True, slots=True)
class AABB:
    position: Vector3 = Vector3()
    size: Vector3 = Vector3()


@dataclass(frozen=True, slots=True)
class Color:
    r: float = 0.0
    g: float = 0.0
    b: float = 0.0
    a: float = 1.0


@dataclass(frozen=True, slots=True)
class Transform2D:
    """2D affine transform by its columns: ``x`` and ``y`` axes, then ``origin``."""

    x: Vector2 = Vector2(1.0, 0.0)
    y: Vector2 = Vector2(0.0, 1.0)
    origin: Vector2 = Vector2()

    @classmethod
    def from_matrix(cls, m: Sequence[Sequence[float]] | Sequence[float]) -> Transform2D:
        """Build from a 3x3 (or 2x3) row-major matrix acting on column vectors."""
        rows = _matrix_rows(m, 2, 3, "Transform2D")
        return cls(
            Vector2(rows[0][0], rows[1][0]),
            Vector2(rows[0][1], rows[1][1]),
            Vector2(rows[0][2], rows[1][2]),
        )


@dataclass(frozen=True, slots=True)
class Basis:
    """3x3 matrix by its column vectors ``x``, ``y``, ``z`` (Godot's axis view).

    The binary format writes it row by row (x.x, y.x, z.x, x.y, ...); the codec handles that, so
    code building a Basis only thinks in axes.
    """

    x: Vector3 = Vector3(1.0, 0.0, 0.0)
    y: Vector3 = Vector3(0.0, 1.0, 0.0)
    z: Vector3 = Vector3(0.0, 0.0, 1.0)

    @classmethod
    def from_rows(cls, m: Sequence[Sequence[float]]) -> Basis:
        """Build from a 3x3 row-major matrix (``m[row][col]``)."""
        rows = _matrix_rows(m, 3, 3, "Basis")
        return cls(
            Vector3(rows[0][0], rows[1][0], rows[2][0]),
            Vector3(rows[0][1], rows[1][1], rows[2][1]),
            Vector3(rows[0][2], rows[1][2], rows[2][2]),
        )

    def rows(self) -> tuple[tuple[float, float, float], ...]:
        """The matrix row by row, the order the binary format and TSCN write it in."""
        x, y, z = self.x, self.y, self.z
        return ((x.x, y.x, z.x), (x.y, y.y, z.y), (x.z, y.z, z.z))

    @classmethod
    def from_quaternion(cls, q: Quaternion, scale: Vector3 | None = None) -> Basis:
        """Rotation of ``q`` (normalised first), each axis then scaled by ``scale`` (R * S)."""
        x, y, z, w = q.x, q.y, q.z, q.w
        n = x * x + y * y + z * z + w * w
        if n == 0.0 or not math.isfinite(n):
            raise VariantError(f"cannot build a rotation from quaternion {q}")
        s = 2.0 / n
        xx, yy, zz = x * x * s, y * y * s, z * z * s
        xy, xz, yz = x * y * s, x * z * s, y * z * s
        wx, wy, wz = w * x * s, w * y * s, w * z * s
        sx, sy, sz = (scale.x, scale.y, scale.z) if scale is not None else (1.0, 1.0, 1.0)
        return cls(
            Vector3((1.0 - (yy + zz)) * sx, (xy + wz) * sx, (xz - wy) * sx),
            Vector3((xy - wz) * sy, (1.0 - (xx + zz)) * sy, (yz + wx) * sy),
            Vector3((xz + wy) * sz, (yz - wx) * sz, (1.0 - (xx + yy)) * sz),
        )


@dataclass(frozen=True, slots=True)
class Transform3D:
    """3D affine transform: a :class:`Basis` plus an origin (Godot 3 calls it ``Transform``)."""

    basis: Basis = Basis()
    origin: Vector3 = Vector3()

    @classmethod
    def from_matrix(cls, m: Sequence[Sequence[float]] | Sequence[float]) -> Transform3D:
        """Build from a row-major 4x4 (or 3x4) matrix acting on column vectors.

        Accepts nested rows or 16/12 flat numbers, which is what ``brson.model.transform``
        produces.  A 4x4 whose last row is not (0, 0, 0, 1) is projective, which a Transform3D
        cannot hold, so it is refused instead of silently dropping that row.
        """
        rows = _matrix_rows(m, 3, 4, "Transform3D")
        basis = Basis.from_rows([r[:3] for r in rows[:3]])
        return cls(basis, Vector3(rows[0][3], rows[1][3], rows[2][3]))

    @classmethod
    def from_trs(
        cls,
        translation: Vector3 = Vector3(),
        rotation: Quaternion = Quaternion(),
        scale: Vector3 = Vector3(1.0, 1.0, 1.0),
    ) -> Transform3D:
        """T * R * S, the way Resonite slots and Godot nodes compose position/rotation/scale."""
        return cls(Basis.from_quaternion(rotation, scale), translation)

    def to_matrix(self) -> list[list[float]]:
        """Row-major 4x4 acting on column vectors."""
        r = self.basis.rows()
        o = self.origin
        return [
            [r[0][0], r[0][1], r[0][2], o.x],
            [r[1][0], r[1][1], r[1][2], o.y],
            [r[2][0], r[2][1], r[2][2], o.z],
            [0.0, 0.0, 0.0, 1.0],
        ]


Transform = Transform3D


@dataclass(frozen=True, slots=True)
class Projection:
    """4x4 matrix by its columns ``x``, ``y``, ``z``, ``w`` (the binary format is column-major)."""

    x: Vector4 = Vector4(1.0, 0.0, 0.0, 0.0)
    y: Vector4 = Vector4(0.0, 1.0, 0.0, 0.0)
    z: Vector4 = Vector4(0.0, 0.0, 1.0, 0.0)
    w: Vector4 = Vector4(0.0, 0.0, 0.0, 1.0)

    @classmethod
    def from_matrix(cls, m: Sequence[Sequence[float]] | Sequence[float]) -> Projection:
        """Build from a row-major 4x4 matrix."""
        rows = _matrix_rows(m, 4, 4, "Projection")
        cols = [Vector4(rows[0][c], rows[1][c], rows[2][c], rows[3][c]) for c in range(4)]
        return cls(*cols)


def _matrix_rows(
    m: Sequence[Sequence[float]] | Sequence[float], min_rows: int, ncols: int, what: str
) -> list[tuple[float, ...]]:
    """Read a matrix given nested or flat into min_rows..ncols rows of floats.

    When the full square is given, its last row must be the affine (0, ..., 0, 1): a projective
    matrix cannot be held by a transform, and dropping that row silently would be wrong.
    """
    items: list[Any] = list(m)
    if items and all(isinstance(v, int | float) for v in items):
        flat = [float(v) for v in items]
        if len(flat) % ncols:
            raise VariantError(f"{what}: cannot read {len(flat)} numbers as rows of {ncols}")
        rows = [tuple(flat[i : i + ncols]) for i in range(0, len(flat), ncols)]
    else:
        rows = []
        for row in items:
            if isinstance(row, int | float):
                raise VariantError(f"{what}: mixed flat and nested matrix")
            r = tuple(float(v) for v in row)
            if len(r) != ncols:
                raise VariantError(f"{what}: row of {len(r)} numbers, expected {ncols}")
            rows.append(r)
    if len(rows) not in (min_rows, ncols):
        raise VariantError(f"{what}: {len(rows)} rows, expected {min_rows} or {ncols}")
    if len(rows) > min_rows and min_rows < ncols:
        affine = (0.0,) * (ncols - 1) + (1.0,)
        if any(abs(a - b) > 1e-6 for a, b in zip(rows[-1], affine, strict=True)):
            raise VariantError(f"{what}: matrix is not affine (last row {list(rows[-1])})")
    return rows


# --- names, handles, objects ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StringName:
    """Godot 4 interned string; distinct from ``str`` in the binary format (type 21)."""

    name: str = ""

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class NodePath:
    """A node path as the engine stores it: names, subnames (after ':'), absolute flag."""

    names: Sequence[str] = ()
    subnames: Sequence[str] = ()
    absolute: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "subnames", tuple(self.subnames))

    @classmethod
    def parse(cls, path: str) -> NodePath:
        """Split ``"/root/a/b:prop:sub"`` the way ``NodePath(String)`` does."""
        absolute = path.startswith("/")
        body = path[1:] if absolute else path
        node_part, _, sub_part = body.partition(":")
        names = tuple(n for n in node_part.split("/") if n)
        subnames = tuple(s for s in sub_part.split(":") if s) if sub_part else ()
        return cls(names, subnames, absolute)

    def __str__(self) -> str:
        text = ("/" if self.absolute else "") + "/".join(self.names)
        return text + "".join(":" + s for s in self.subnames)


@dataclass(frozen=True, slots=True)
class RID:
    """Server resource handle.  4.x writes its 64-bit id; 3.x writes no payload at all."""

    id: int = 0


@dataclass(frozen=True, slots=True)
class ObjectID:
    """An object sent by instance id (the default, non-"full objects" form).

    The engine decodes this into an ``EncodedObjectAsID`` wrapper; id 0 means a null object,
    which Godot 4 writes as a bare NIL instead.
    """

    id: int = 0


@dataclass(frozen=True, slots=True)
class Object:
    """A full object: class name plus its stored properties, in the order the engine listed them.

    Only written with ``full_objects=True`` and only read with ``allow_objects=True`` because
    the engine instantiates the class and (4.x) loads the ``script`` property's path on decode.
    An empty class name is the null object.
    """

    class_name: str = ""
    properties: Sequence[tuple[str, Any]] | Mapping[str, Any] = ()

    def __post_init__(self) -> None:
        props = self.properties
        items = props.items() if isinstance(props, Mapping) else props
        object.__setattr__(self, "properties", tuple((str(k), v) for k, v in items))


@dataclass(frozen=True, slots=True)
class Callable:
    """Godot 4 Callable: the binary format keeps nothing of it (header only)."""


@dataclass(frozen=True, slots=True)
class Signal:
    """Godot 4 Signal: signal name plus the owning object's instance id."""

    name: str = ""
    object_id: int = 0


# --- containers -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ContainerType:
    """Element (or key/value) type of a typed Array/Dictionary (Godot 4 only).

    ``builtin`` is a :class:`VariantType`; ``NIL`` means "Variant" (untyped).  Object types carry
    ``builtin=OBJECT`` plus a ``class_name`` and, for script classes, the ``res://`` script path.
    The encoder writes the kind the engine would: builtin id, class name, or script path.
    """

    builtin: int = VariantType.NIL
    class_name: str = ""
    script: str = ""

    def __post_init__(self) -> None:
        if not 0 <= int(self.builtin) < len(VariantType):
            raise VariantError(f"container element type {self.builtin} is not a Variant type")
        if (self.class_name or self.script) and self.builtin != VariantType.OBJECT:
            raise VariantError("a class name or script needs builtin=VariantType.OBJECT")
        object.__setattr__(self, "builtin", VariantType(int(self.builtin)))

    @classmethod
    def of_class(cls, class_name: str, script: str = "") -> ContainerType:
        return cls(VariantType.OBJECT, class_name, script)

    @property
    def is_typed(self) -> bool:
        return self.builtin != VariantType.NIL


@dataclass(frozen=True, slots=True)
class TypedArray:
    """``Array[T]``: the element type travels in the header and before the count."""

    type: ContainerType
    elements: Sequence[Any] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "elements", tuple(self.elements))


@dataclass(frozen=True, slots=True)
class TypedDictionary:
    """``Dictionary[K, V]``; either side may be untyped (``ContainerType()``)."""

    key_type: ContainerType
    value_type: ContainerType
    entries: Mapping[Any, Any] = field(default_factory=dict)


class FrozenDict(Mapping[Any, Any]):
    """Immutable, hashable dictionary, used where a Godot Dictionary is itself a dictionary key.

    Godot allows any Variant as a key, Python only hashable ones, so the decoder freezes
    containers that appear inside keys (lists become tuples, dicts become this).
    """

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[Any, Any] | Iterable[tuple[Any, Any]] = ()) -> None:
        self._data: dict[Any, Any] = dict(data)
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"


# --- packed arrays ----------------------------------------------------------------------------

PackedByteArray = bytes
PoolByteArray = bytes


class _PackedArray:
    """What the packed arrays share: ``values`` given as any sequence is kept as a tuple."""

    __slots__ = ()
    values: Sequence[Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))


@dataclass(frozen=True, slots=True)
class PackedInt32Array(_PackedArray):
    values: Sequence[int] = ()


@dataclass(frozen=True, slots=True)
class PackedInt64Array(_PackedArray):
    values: Sequence[int] = ()


@dataclass(frozen=True, slots=True)
class PackedFloat32Array(_PackedArray):
    values: Sequence[float] = ()


@dataclass(frozen=True, slots=True)
class PackedFloat64Array(_PackedArray):
    values: Sequence[float] = ()


@dataclass(frozen=True, slots=True)
class PackedStringArray(_PackedArray):
    values: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class PackedVector2Array(_PackedArray):
    values: Sequence[Vector2] = ()


@dataclass(frozen=True, slots=True)
class PackedVector3Array(_PackedArray):
    values: Sequence[Vector3] = ()


@dataclass(frozen=True, slots=True)
class PackedColorArray(_PackedArray):
    values: Sequence[Color] = ()


@dataclass(frozen=True, slots=True)
class PackedVector4Array(_PackedArray):
    values: Sequence[Vector4] = ()


PoolIntArray = PackedInt32Array
PoolRealArray = PackedFloat32Array
PoolStringArray = PackedStringArray
PoolVector2Array = PackedVector2Array
PoolVector3Array = PackedVector3Array
PoolColorArray = PackedColorArray
