"""Value types: constructors a scene exporter relies on, normalisation, aliases."""

from __future__ import annotations

import math

import pytest

from brson.errors import VariantError
from brson.godot import (
    AABB,
    Basis,
    Color,
    ContainerType,
    FrozenDict,
    NodePath,
    Object,
    PackedInt32Array,
    PackedVector3Array,
    PoolIntArray,
    Projection,
    Quat,
    Quaternion,
    Transform,
    Transform2D,
    Transform3D,
    TypedArray,
    VariantType,
    Vector2,
    Vector3,
    Vector4,
    dumps,
    loads,
)

# Row-major 4x4 acting on column vectors: x axis (1,0,0)->(0,1,0) (90 degrees about z), scale 2
# on z, translation (5, 6, 7).
MATRIX = [
    [0.0, -1.0, 0.0, 5.0],
    [1.0, 0.0, 0.0, 6.0],
    [0.0, 0.0, 2.0, 7.0],
    [0.0, 0.0, 0.0, 1.0],
]


def test_transform_from_matrix_reads_columns_as_axes() -> None:
    t = Transform3D.from_matrix(MATRIX)
    assert t.basis.x == Vector3(0, 1, 0)
    assert t.basis.y == Vector3(-1, 0, 0)
    assert t.basis.z == Vector3(0, 0, 2)
    assert t.origin == Vector3(5, 6, 7)
    assert t.to_matrix() == MATRIX
    assert Transform3D.from_matrix([v for row in MATRIX for v in row]) == t
    assert Transform3D.from_matrix(MATRIX[:3]) == t


def test_transform_binary_layout_is_the_matrix_rows() -> None:
    """What TSCN and the binary format write: the basis rows, then the origin."""
    import struct

    data = dumps(Transform3D.from_matrix(MATRIX))
    assert struct.unpack("<12f", data[4:]) == (0, -1, 0, 1, 0, 0, 0, 0, 2, 5, 6, 7)


def test_from_trs_matches_rotation_then_scale() -> None:
    half = math.sqrt(0.5)
    t = Transform3D.from_trs(Vector3(5, 6, 7), Quaternion(0, 0, half, half), Vector3(1, 1, 2))
    expected = Transform3D.from_matrix(MATRIX)
    for a, b in zip(t.to_matrix(), expected.to_matrix(), strict=True):
        assert a == pytest.approx(b, abs=1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0.5, 1]],
        [1.0] * 15,
        [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
        [[1, 0, 0, 0], 5],
    ],
)
def test_from_matrix_refuses_non_affine_or_misshapen(bad: list[object]) -> None:
    with pytest.raises(VariantError):
        Transform3D.from_matrix(bad)  # type: ignore[arg-type]


def test_other_matrix_constructors() -> None:
    b = Basis.from_rows([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert b.x == Vector3(1, 4, 7)
    assert b.rows() == ((1, 2, 3), (4, 5, 6), (7, 8, 9))
    t2 = Transform2D.from_matrix([[1, 2, 3], [4, 5, 6], [0, 0, 1]])
    assert (t2.x, t2.y, t2.origin) == (Vector2(1, 4), Vector2(2, 5), Vector2(3, 6))
    p = Projection.from_matrix([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]])
    assert p.x == Vector4(1, 5, 9, 13)
    with pytest.raises(VariantError):
        Basis.from_quaternion(Quaternion(0, 0, 0, 0))


def test_defaults_are_godot_defaults() -> None:
    assert Quaternion() == Quaternion(0, 0, 0, 1)
    assert Transform3D().basis == Basis(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))
    assert Color() == Color(0, 0, 0, 1)
    assert AABB().size == Vector3()


def test_godot3_aliases() -> None:
    assert Quat is Quaternion
    assert Transform is Transform3D
    assert PoolIntArray is PackedInt32Array


def test_sequences_are_normalised_and_values_hashable() -> None:
    arr = PackedVector3Array([Vector3(1, 2, 3)])
    assert arr.values == (Vector3(1, 2, 3),)
    assert {arr, TypedArray(ContainerType(VariantType.INT), [1]), NodePath(["a"])}
    obj = Object("Node", {"name": "n"})
    assert obj.properties == (("name", "n"),)


def test_node_path_parse_and_str() -> None:
    for text in ["/root/a/b:c:d", "a/b", "", ":x", "/"]:
        path = NodePath.parse(text)
        assert str(path) == text
    assert NodePath.parse("/root/a:b") == NodePath(("root", "a"), ("b",), True)


def test_container_type_validation() -> None:
    with pytest.raises(VariantError):
        ContainerType(99)
    with pytest.raises(VariantError):
        ContainerType(VariantType.INT, class_name="Node")
    assert not ContainerType().is_typed


def test_frozen_dict_behaves_like_a_mapping_and_a_key() -> None:
    a = FrozenDict({"x": 1, "y": (2, 3)})
    assert a == {"x": 1, "y": (2, 3)}
    assert hash(a) == hash(FrozenDict({"y": (2, 3), "x": 1}))
    assert loads(dumps({a: 1})) == {a: 1}
