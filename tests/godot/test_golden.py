"""Golden vectors: Godot's own unit tests (tests/core/io/test_marshalls.h, 4.4+ .. 4.6.3) and the
engine facts from the notes that the rest of the suite relies on."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from brson.errors import VariantError
from brson.godot import (
    RID,
    Basis,
    ContainerType,
    NodePath,
    ObjectID,
    PackedStringArray,
    Transform3D,
    TypedArray,
    TypedDictionary,
    VariantType,
    Vector3,
    dumps,
    loads,
    loads_prefix,
)

BIG = struct.unpack("<q", bytes.fromhex("efcdab89674523f1"))[0]  # uint64 0xf123456789abcdef

# (test-case number in test_marshalls.h, value, expected hex)
ENGINE_TESTS: list[tuple[int, Any, str]] = [
    (14, None, "00000000"),
    (15, 0x12345678, "02000000 78563412"),
    (16, BIG, "02000100 efcdab89674523f1"),
    (17, 0.15625, "03000000 0000203e"),
    (18, 0.33333333333333333, "03000100 555555555555d53f"),
    (
        25,
        TypedArray(ContainerType(VariantType.INT), [BIG]),
        "1c000100 02000000 01000000 02000100 efcdab89674523f1",
    ),
    (
        27,
        TypedDictionary(ContainerType(VariantType.INT), ContainerType(VariantType.INT), {BIG: BIG}),
        "1b000500 02000000 02000000 01000000 02000100 efcdab89674523f1 02000100 efcdab89674523f1",
    ),
]


@pytest.mark.parametrize(("case", "value", "expected"), ENGINE_TESTS, ids=lambda x: str(x)[:20])
def test_godot_unit_test_encode(case: int, value: Any, expected: str) -> None:
    assert dumps(value).hex() == expected.replace(" ", "")


@pytest.mark.parametrize(("case", "value", "expected"), ENGINE_TESTS, ids=lambda x: str(x)[:20])
def test_godot_unit_test_decode(case: int, value: Any, expected: str) -> None:
    data = bytes.fromhex(expected.replace(" ", ""))
    decoded, used = loads_prefix(data)
    assert used == len(data)  # the engine's r_len: 4, 8, 12, 8, 12, 24, 40
    assert decoded == value
    assert type(decoded) is type(value)


@pytest.mark.parametrize("data", [b"\x00", bytes.fromhex("ff000000")])
def test_godot_unit_test_invalid_decode(data: bytes) -> None:
    """Case 19: a 1-byte buffer and type 0xff are ERR_INVALID_DATA."""
    with pytest.raises(VariantError) as info:
        loads(data)
    assert info.value.offset == 0


def test_basis_is_row_major() -> None:
    """Columns (1,2,3), (4,5,6), (7,8,9) are written 1,4,7,2,5,8,3,6,9 (both versions)."""
    basis = Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))
    for godot in (3, 4):
        assert struct.unpack("<9f", dumps(basis, godot)[4:]) == (1, 4, 7, 2, 5, 8, 3, 6, 9)
        data = dumps(Transform3D(basis, Vector3(10, 11, 12)), godot)
        assert struct.unpack("<12f", data[4:]) == (1, 4, 7, 2, 5, 8, 3, 6, 9, 10, 11, 12)


def test_float_width_rule() -> None:
    assert dumps(1.5).hex() == "030000000000c03f"
    assert len(dumps(0.1)) == 12
    assert dumps(float("nan")).hex() == "03000100000000000000f87f"
    assert dumps(float("inf")).hex() == "030000000000807f"
    assert dumps(-0.0).hex() == "0300000000000080"
    assert len(dumps(1e300)) == 12


def test_int_width_rule() -> None:
    assert dumps(2**31 - 1).hex() == "02000000ffffff7f"
    assert dumps(2**31).hex() == "020001000000008000000000"
    assert dumps(-(2**31)).hex() == "0200000000000080"
    with pytest.raises(VariantError, match="int64"):
        dumps(2**63)


def test_typed_array_of_class_without_full_objects() -> None:
    """``var a: Array[Node] = []`` -> 1c000200 + "EncodedObjectAsID" + count 0."""
    expected = "1c000200" + "11000000" + b"EncodedObjectAsID".hex() + "000000" + "00000000"
    assert dumps(TypedArray(ContainerType.of_class("Node"), [])).hex() == expected
    full = dumps(TypedArray(ContainerType.of_class("Node"), []), full_objects=True)
    assert full.hex() == "1c000200" + "04000000" + b"Node".hex() + "00000000"


def test_script_typed_array_kinds() -> None:
    typed = TypedArray(ContainerType.of_class("Node", script="res://a.gd"), [])
    assert dumps(typed)[:4].hex() == "1c000200"
    full = dumps(typed, full_objects=True)
    assert full[:4].hex() == "1c000300"
    assert loads(full, allow_objects=True) == TypedArray(
        ContainerType(VariantType.OBJECT, script="res://a.gd"), []
    )


def test_packed_string_array_writes_length_plus_one() -> None:
    data = dumps(PackedStringArray(["abc", ""]))
    assert data.hex() == "22000000" + "02000000" + "04000000" + "61626300" + "01000000" + "00000000"
    assert dumps(PackedStringArray(["abc"]), 3)[:4].hex() == "17000000"


def test_rid_sizes() -> None:
    assert dumps(RID(7)).hex() == "17000000" + "0700000000000000"
    assert dumps(RID(7), 3).hex() == "10000000"
    assert loads(bytes.fromhex("10000000"), 3) == RID()


def test_null_objects() -> None:
    assert dumps(ObjectID(0)).hex() == "00000000"
    assert dumps(ObjectID(0), 3).hex() == "11000100" + "00" * 8
    assert dumps(ObjectID(5)).hex() == "18000100" + "0500000000000000"


def test_node_path_layout() -> None:
    data = dumps(NodePath.parse("/root/a:b"))
    expected = (
        "16000000" + "02000080" + "01000000" + "01000000"
        "04000000" + b"root".hex() + "01000000" + "61000000" + "01000000" + "62000000"
    )
    assert data.hex() == expected
    assert dumps(NodePath.parse("/root/a:b"), 3)[:4].hex() == "0f000000"
