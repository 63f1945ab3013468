"""The codec layer: the varint, each codec's round trip and size limit, and the byte layouts.

The layouts are checked against plain decoders written in ``support.py`` (varint loop +
``lz4.block``; Python's ``lzma`` in FORMAT_ALONE and FORMAT_RAW), so brson's writer is judged
by the format, not by brson's own reader.
"""

from __future__ import annotations

import lzma
import struct
import tracemalloc

import lz4.block
import lz4.frame
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brson.codecs import Codec, compress, decompress, limits, lz4net, lzma_sdk
from brson.codecs.varint import MAX_VARINT_BYTES, read_varint, write_varint
from brson.errors import BrsonError, CodecError, LimitError

from .support import (
    lzma_sdk_header,
    plain_lz4net_chunks,
    plain_lzma_alone,
    plain_lzma_raw,
    plain_varint,
)

MiB = 1 << 20

# --------------------------------------------------------------------------------------------
# varint


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, "00"),
        (1, "01"),
        (3, "03"),  # the FrDT kind byte of every real .brson
        (127, "7f"),
        (128, "8001"),
        (300, "ac02"),
        (MiB, "808040"),  # an engine LZ4 chunk's original length
        (2**31 - 1, "ffffffff07"),  # int.MaxValue, the largest Write7BitEncodedInt
        (2**32 - 1, "ffffffff0f"),
    ],
)
def test_varint_vectors(value: int, encoded: str) -> None:
    assert write_varint(value).hex() == encoded
    assert read_varint(bytes.fromhex(encoded), 0) == (value, len(encoded) // 2)


@given(st.integers(0, 2**64 - 1), st.binary(max_size=4), st.binary(max_size=4))
def test_varint_round_trip(value: int, before: bytes, after: bytes) -> None:
    """Any 64-bit value survives, read from any offset, ignoring what follows."""
    encoded = write_varint(value)
    assert len(encoded) <= MAX_VARINT_BYTES
    assert encoded[-1] < 0x80 and all(b >= 0x80 for b in encoded[:-1])
    assert read_varint(before + encoded + after, len(before)) == (value, len(before + encoded))
    assert plain_varint(encoded, 0) == (value, len(encoded))


@given(st.binary(min_size=1, max_size=12).map(lambda b: bytes(x | 0x80 for x in b)))
def test_varint_unterminated_is_codec_error(data: bytes) -> None:
    """All continuation bits: either runs off the end or exceeds 10 bytes; both CodecError."""
    with pytest.raises(CodecError):
        read_varint(data, 0)


def test_varint_rejects_negative() -> None:
    with pytest.raises(ValueError):
        write_varint(-1)


# --------------------------------------------------------------------------------------------
# Round trips through every codec, and the size limit at its exact boundary.

small_bytes = st.binary(max_size=4096)


@st.composite
def large_bytes(draw: st.DrawFn) -> bytes:
    """> 1 MiB (more than one LZ4 chunk) built from a small drawn pattern plus noise."""
    pattern = draw(st.binary(min_size=1, max_size=64))
    size = draw(st.integers(MiB + 1, MiB + MiB // 2))
    noise = draw(st.binary(max_size=256))
    at = draw(st.integers(0, size))
    body = (pattern * (size // len(pattern) + 1))[:size]
    return body[:at] + noise + body[at:]


@pytest.mark.parametrize("codec", list(Codec), ids=lambda c: c.label)
@given(data=small_bytes)
@settings(max_examples=60)
def test_codec_round_trip_small(codec: Codec, data: bytes) -> None:
    packed = compress(codec, data)
    assert decompress(codec, packed) == data
    assert decompress(codec, packed, max_size=len(data)) == data
    if data:
        with pytest.raises(LimitError):
            decompress(codec, packed, max_size=len(data) - 1)


@pytest.mark.parametrize("codec", list(Codec), ids=lambda c: c.label)
@given(data=large_bytes())
@settings(max_examples=4)
def test_codec_round_trip_large(codec: Codec, data: bytes) -> None:
    packed = compress(codec, data)
    assert decompress(codec, packed, max_size=len(data)) == data
    with pytest.raises(LimitError):
        decompress(codec, packed, max_size=len(data) - 1)


@pytest.mark.parametrize("codec", list(Codec), ids=lambda c: c.label)
def test_codec_empty(codec: Codec) -> None:
    assert decompress(codec, compress(codec, b"")) == b""


@given(st.binary(max_size=4096), st.sampled_from([0, 1, 9]))
@settings(max_examples=40)
def test_lz4_frame_round_trip(data: bytes, level: int) -> None:
    """A standard LZ4 frame (any level, with or without checksum) is read too."""
    frame = lz4.frame.compress(data, compression_level=level, content_checksum=bool(level))
    assert lz4net.decompress(frame) == data


# --------------------------------------------------------------------------------------------
# LZ4: the lz4net chunk framing, checked with the plain decoder.


def test_lz4_framing_vector_abc() -> None:
    """Too short to shrink: stored raw, flags 2 (high compression, not compressed)."""
    assert lz4net.compress(b"abc").hex() == "0203616263"
    assert lz4net.decompress(bytes.fromhex("0203616263")) == b"abc"


def test_lz4_framing_vector_100_a() -> None:
    """Compressible: flags 3, original 100, compressed 11, then an 11-byte raw block."""
    out = lz4net.compress(b"A" * 100)
    assert out[:3].hex() == "03640b"
    assert len(out) == 3 + 11
    assert lz4.block.decompress(out[3:], uncompressed_size=100) == b"A" * 100
    assert lz4net.decompress(out) == b"A" * 100


@given(data=st.one_of(small_bytes, large_bytes()))
@settings(max_examples=20)
def test_lz4_writer_matches_plain_reader(data: bytes) -> None:
    """1 MiB chunks, flags 3 or 2 only, stored only when compressing does not shrink."""
    out = lz4net.compress(data)
    decoded, chunks = plain_lz4net_chunks(out)
    assert decoded == data
    assert [original for _, original, _ in chunks][:-1] == [MiB] * (len(chunks) - 1)
    for flags, original, stored in chunks:
        assert flags in (2, 3)
        assert (stored < original) if flags == 3 else (stored == original)


def test_lz4_stored_flag_0_and_1_are_read() -> None:
    """Other lz4net writers may omit the high-compression bit; the bit is informational."""
    block = lz4.block.compress(b"B" * 64, store_size=False)
    assert lz4net.decompress(b"\x00\x03xyz") == b"xyz"
    assert lz4net.decompress(b"\x01\x40" + bytes([len(block)]) + block) == b"B" * 64


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"\x03\x05", "no compressed length"),
        (b"\x03\x05\x09" + b"x" * 9, "compressed length exceeds original"),
        (b"\x07\x05\x02ab", "reserved bit 2 set on a compressed chunk"),
        (b"\x02\x05ab", "stored chunk cut short"),
        (b"\x03\x05\x03\xff\xff\xff", "corrupt block"),
        (b"\xff\x01\x01a", "flags beyond 5 bits"),
        (b"\x80", "varint cut short"),
    ],
)
def test_lz4_corrupt_chunks(data: bytes, why: str) -> None:
    with pytest.raises(CodecError):
        lz4net.decompress(data)


# --------------------------------------------------------------------------------------------
# LZMA: the SDK's 21-byte header, checked with Python's lzma in two independent ways.


@given(data=small_bytes)
@settings(max_examples=40)
def test_lzma_writer_matches_plain_readers(data: bytes) -> None:
    out = lzma_sdk.compress(data)
    props, size, csize = lzma_sdk_header(out)
    assert props == bytes.fromhex("5d00002000")  # lc=3 lp=0 pb=2, 2 MiB dictionary
    assert size == len(data)
    assert csize == len(out) - 21
    assert plain_lzma_alone(out) == data
    assert plain_lzma_raw(out) == data


def test_lzma_props_helpers() -> None:
    assert lzma_sdk.props_bytes() == bytes.fromhex("5d00002000")
    filt = lzma_sdk.parse_props(bytes.fromhex("5d00002000"))
    assert (filt["lc"], filt["lp"], filt["pb"], filt["dict_size"]) == (3, 0, 2, 2 * MiB)
    with pytest.raises(CodecError):
        lzma_sdk.parse_props(bytes.fromhex("e100002000"))  # 225: past pb=4


def test_lzma_without_end_marker_stops_at_declared_size() -> None:
    """The engine writes no end marker: a raw decode must stop at the declared size."""
    data = b"Resonite " * 500
    raw = lzma.compress(
        data, format=lzma.FORMAT_RAW, filters=[lzma_sdk.parse_props(lzma_sdk.props_bytes())]
    )
    filters = [lzma_sdk.parse_props(lzma_sdk.props_bytes())]

    def decodes(prefix: bytes) -> bool:
        dec = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters)
        return bool(dec.decompress(prefix, max_length=len(data)) == data)

    # liblzma always appends an end marker; the shortest prefix that still yields all the
    # data is the engine-like stream without it.
    cut = len(raw)
    while cut > 1 and decodes(raw[: cut - 1]):
        cut -= 1
    assert cut < len(raw)
    body = raw[:cut]
    archive = struct.pack("<5sqq", lzma_sdk.props_bytes(), len(data), len(body)) + body
    assert lzma_sdk.decompress(archive) == data


def test_lzma_unknown_size_with_end_marker() -> None:
    data = b"NeosVR " * 300
    full = lzma_sdk.compress(data)
    body = full[21:]
    archive = struct.pack("<5sqq", full[:5], -1, len(body)) + body
    assert lzma_sdk.decompress(archive) == data
    with pytest.raises(LimitError):
        lzma_sdk.decompress(archive, max_size=len(data) - 1)


@pytest.mark.parametrize(
    ("mutate", "why"),
    [
        (lambda a: a[:20], "header cut short"),
        (lambda a: a[:-5], "body cut short (compressed size says more)"),
        (lambda a: a + b"xx", "trailing bytes after the counted data"),
        (lambda a: a[:5] + struct.pack("<q", -2) + a[13:], "negative size"),
        (lambda a: a[:5] + struct.pack("<q", 10**6) + a[13:], "size larger than the data"),
        (lambda a: b"\xe1" + a[1:], "props byte out of range"),
        (lambda a: a[:21] + bytes(len(a) - 21), "zeroed body"),
    ],
)
def test_lzma_corrupt(mutate: object, why: str) -> None:
    archive = lzma_sdk.compress(b"corrupt me " * 100)
    with pytest.raises(CodecError):
        lzma_sdk.decompress(mutate(archive))  # type: ignore[operator]


# --------------------------------------------------------------------------------------------
# Brotli


def test_brotli_is_quality_9_window_16() -> None:
    import brotli

    data = b"Resonite brotli settings " * 400
    assert compress(Codec.BROTLI, data) == brotli.compress(data, quality=9, lgwin=16)


@pytest.mark.parametrize(
    ("mutate", "why"),
    [
        (lambda b: b[: len(b) // 2], "cut in half"),
        (lambda b: b + b"\x00junk", "junk after the last block"),
        (lambda b: b"", "empty"),
        (lambda b: bytes(x ^ 0x55 for x in b), "every byte flipped"),
    ],
)
def test_brotli_corrupt(mutate: object, why: str) -> None:
    packed = compress(Codec.BROTLI, b"brotli corrupt " * 300)
    with pytest.raises(CodecError):
        decompress(Codec.BROTLI, mutate(packed))  # type: ignore[operator]


# --------------------------------------------------------------------------------------------
# Regressions: bugs found by these tests and fixed in the codec layer.


def test_lzma_props_lc_plus_lp_over_4_is_codec_error() -> None:
    archive = bytearray(lzma_sdk.compress(b"props " * 50))
    archive[0] = (2 * 5 + 1) * 9 + 4  # pb=2 lp=1 lc=4 -> 0x6a
    with pytest.raises(CodecError):
        lzma_sdk.decompress(bytes(archive))


def test_lzma_unknown_size_truncated_is_codec_error() -> None:
    data = bytes(range(256)) * 8
    body = lzma_sdk.compress(data)[21:]
    cut = body[: len(body) // 2]
    archive = struct.pack("<5sqq", lzma_sdk.props_bytes(), -1, len(cut)) + cut
    with pytest.raises(CodecError):
        lzma_sdk.decompress(archive)


def _lz4_claim(original: int) -> bytes:
    block = bytes(lz4.block.compress(b"abc" * 10, store_size=False))
    return write_varint(3) + write_varint(original) + write_varint(len(block)) + block


def test_lz4_chunk_claiming_3_gib_is_codec_error() -> None:
    with pytest.raises(CodecError):
        lz4net.decompress(_lz4_claim(3 << 30))


def _peak_of(call: object) -> tuple[BaseException | None, int]:
    tracemalloc.start()
    try:
        try:
            call()  # type: ignore[operator]
            error = None
        except BaseException as exc:
            error = exc
        return error, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_lz4_chunk_claim_does_not_allocate_the_claim() -> None:
    error, peak = _peak_of(lambda: lz4net.decompress(_lz4_claim(256 * MiB)))
    assert isinstance(error, CodecError)
    assert peak < 16 * MiB


def test_lzma_huge_dictionary_is_not_allocated() -> None:
    data = b"tiny"
    full = lzma_sdk.compress(data)
    archive = struct.pack("<BIqq", 0x5D, 1 << 30, len(data), len(full) - 21) + full[21:]
    error, peak = _peak_of(lambda: lzma_sdk.decompress(archive))
    assert error is None
    assert peak < 64 * MiB


def test_only_brson_errors_from_declared_sizes() -> None:
    """Claims around the default limit: LimitError above it, never a foreign exception."""
    for original in (limits.DEFAULT_MAX_SIZE + 1, 5 << 30, 2**62):
        with pytest.raises(LimitError):
            lz4net.decompress(_lz4_claim(original))
    with pytest.raises(BrsonError):
        lz4net.decompress(_lz4_claim(8 * MiB))


@pytest.mark.parametrize("data", [bytes(2 * MiB), b"ab" * (2 * MiB)], ids=["zeros", "ab"])
def test_brotli_long_output_is_not_truncated(data: bytes) -> None:
    import brotli

    packed = brotli.compress(data, quality=9, lgwin=16)
    assert decompress(Codec.BROTLI, packed) == data
