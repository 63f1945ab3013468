"""The 7-bit varint of .NET's ``Write7BitEncodedInt`` and of lz4net's chunk framing.

Low group first, high bit means "more".  Both the FrDT compression kind and the LZ4 chunk
headers use it, so there is exactly one reader and one writer.
"""

from __future__ import annotations

from brson.errors import CodecError

#: A varint longer than this cannot encode a 64-bit length; treat it as corruption.
MAX_VARINT_BYTES = 10


def read_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """Return ``(value, next position)``; raise CodecError on EOF or an overlong varint."""
    value = 0
    shift = 0
    start = pos
    while True:
        if pos >= len(data):
            raise CodecError("varint runs past the end of the data", offset=start)
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if pos - start >= MAX_VARINT_BYTES:
            raise CodecError("varint is longer than 10 bytes", offset=start)


def write_varint(value: int) -> bytes:
    """Encode a non-negative integer."""
    if value < 0:
        raise ValueError("varints are unsigned")
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)
