"""raw.value: arrays of doubles read by one struct must be exactly what pymongo decodes."""

from __future__ import annotations

import math
import struct
from typing import Any

import bson
import pytest

from brson.document import raw


def _value_element(doc: dict[str, Any]) -> tuple[bytes, raw.Element]:
    buf = bson.encode(doc)
    return buf, raw.index(buf, 0, len(buf))["v"]


NAN_PAYLOAD = struct.unpack("<d", struct.pack("<Q", 0x7FF8_0000_DEAD_BEEF))[0]


@pytest.mark.parametrize(
    "items",
    [
        [1.5],
        [0.0, -0.0, 1e308],
        [1.0, 2.0, 3.0, 4.0],
        [float(i) / 3 for i in range(10)],
        [float(i) for i in range(11)],  # key "10": the struct's shape does not apply
        [math.inf, -math.inf, NAN_PAYLOAD],
        [1.0, 2, 3.0],  # an int32 among the doubles
        [1.0, "x"],
        [],
        [[1.0, 2.0]],
    ],
)
def test_value_is_what_scalar_decodes(items: list[Any]) -> None:
    buf, elem = _value_element({"v": items})
    fast, slow = raw.value(buf, elem), raw.scalar(buf, elem)
    assert type(fast) is type(slow) and len(fast) == len(slow)
    assert [type(x) for x in fast] == [type(x) for x in slow]
    assert bson.encode({"v": fast}) == bson.encode({"v": slow}) == buf  # every bit


def test_keys_other_than_indices_are_not_read_as_a_vector() -> None:
    buf = bytearray(bson.encode({"v": [1.0, 2.0, 3.0]}))
    at = buf.find(b"\x011\x00")
    buf[at + 1] = ord("x")  # the second item's key is "x": a document-like array
    elem = raw.index(bytes(buf), 0, len(buf))["v"]
    assert raw.value(bytes(buf), elem) == raw.scalar(bytes(buf), elem)


def test_other_types_go_through_scalar() -> None:
    for doc_value in ("text", 3, bson.Int64(3), True, None, 2.5, {"a": 1}):
        buf, elem = _value_element({"v": doc_value})
        assert raw.value(buf, elem) == raw.scalar(buf, elem)
        assert type(raw.value(buf, elem)) is type(raw.scalar(buf, elem))
