"""LZ4 as the engine writes it: the chunked framing of its .NET LZ4 library (lz4net fork).

Not the LZ4 frame format: no magic, no checksums, no end mark.  Each chunk is
``flags`` varint (bit0 compressed, bit1 high-compression, bits 2-4 zero), ``original length``
varint, ``compressed length`` varint (only when compressed), then one raw LZ4 block or the raw
bytes.  The writer uses 1 MiB chunks and stores a chunk raw when compressing does not shrink it.
The LZ4 frame format (magic ``04 22 4D 18``) is read too, in case a file has it.
"""

from __future__ import annotations

import lz4.block as _block
import lz4.frame as _frame

from brson.codecs import limits
from brson.codecs.varint import read_varint, write_varint
from brson.errors import CodecError

CHUNK_SIZE = 1 << 20
FLAG_COMPRESSED = 0x01
FLAG_HIGH_COMPRESSION = 0x02
FLAG_RESERVED = 0x1C
FRAME_MAGIC = b"\x04\x22\x4d\x18"
#: lz4net's HC writer; any level decodes the same, this one matches LZ4's HC default.
HC_LEVEL = 9
#: LZ4 emits at most 255 bytes per byte of input (long runs), so larger claims are corrupt.
MAX_RATIO = 255
#: The block API takes int32 sizes; the engine writes 1 MiB chunks.
MAX_CHUNK = 2**31 - 1


def compress(data: bytes, chunk_size: int = CHUNK_SIZE) -> bytes:
    """Write the engine's chunk framing (flags 3 compressed, 2 stored)."""
    out = bytearray()
    view = memoryview(data)
    for start in range(0, len(data), chunk_size):
        chunk = bytes(view[start : start + chunk_size])
        block = _block.compress(
            chunk, mode="high_compression", compression=HC_LEVEL, store_size=False
        )
        if len(block) < len(chunk):
            out += write_varint(FLAG_COMPRESSED | FLAG_HIGH_COMPRESSION)
            out += write_varint(len(chunk))
            out += write_varint(len(block))
            out += block
        else:
            out += write_varint(FLAG_HIGH_COMPRESSION)
            out += write_varint(len(chunk))
            out += chunk
    return bytes(out)


def decompress(data: bytes | memoryview, max_size: int = limits.DEFAULT_MAX_SIZE) -> bytes:
    """Read chunk framing, or an LZ4 frame when the data starts with the frame magic."""
    if bytes(data[:4]) == FRAME_MAGIC:
        return decompress_frame(data, max_size)
    view = memoryview(data)
    out = limits.Output(max_size)
    pos = 0
    while pos < len(view):
        chunk_at = pos
        flags, pos = read_varint(view, pos)
        if flags & FLAG_COMPRESSED and flags & FLAG_RESERVED:
            raise CodecError(f"LZ4 chunk has reserved flag bits set (0x{flags:x})", offset=chunk_at)
        if flags > 0x1F:
            raise CodecError(f"LZ4 chunk has unknown flags 0x{flags:x}", offset=chunk_at)
        original, pos = read_varint(view, pos)
        out.reserve(original)
        if flags & FLAG_COMPRESSED:
            stored, pos = read_varint(view, pos)
            if stored > original:
                raise CodecError(
                    f"LZ4 chunk's compressed length {stored} exceeds its original length "
                    f"{original}",
                    offset=chunk_at,
                )
            if original > MAX_RATIO * stored + 16 or original > MAX_CHUNK:
                # Refused before allocating: LZ4 cannot expand more than ~255:1.
                raise CodecError(
                    f"LZ4 chunk claims {original} bytes from {stored} (impossible for LZ4)",
                    offset=chunk_at,
                )
        else:
            stored = original
        if pos + stored > len(view):
            raise CodecError(
                f"truncated LZ4 chunk: needs {stored} bytes, {len(view) - pos} remain",
                offset=chunk_at,
            )
        payload = view[pos : pos + stored]
        pos += stored
        if flags & FLAG_COMPRESSED:
            try:
                block = _block.decompress(payload, uncompressed_size=original)
            except _block.LZ4BlockError as exc:
                raise CodecError(f"corrupt LZ4 block ({exc})", offset=chunk_at) from None
            if len(block) != original:
                raise CodecError(
                    f"LZ4 block decoded to {len(block)} bytes, chunk says {original}",
                    offset=chunk_at,
                )
            out.write(block)
        else:
            out.write(payload)
    return out.value()


def decompress_frame(data: bytes | memoryview, max_size: int = limits.DEFAULT_MAX_SIZE) -> bytes:
    decoder = _frame.LZ4FrameDecompressor()
    out = limits.Output(max_size)
    try:
        chunk = decoder.decompress(bytes(data), max_length=limits.STEP)
        while True:
            out.write(chunk)
            if decoder.eof or decoder.needs_input:
                break
            chunk = decoder.decompress(b"", max_length=limits.STEP)
    except RuntimeError as exc:
        raise CodecError(f"corrupt LZ4 frame ({exc})") from None
    if not decoder.eof:
        raise CodecError("truncated LZ4 frame (no end mark)")
    if decoder.unused_data:
        raise CodecError(f"{len(decoder.unused_data)} trailing bytes after the LZ4 frame")
    return out.value()


def plausible(data: bytes | memoryview) -> bool:
    """Sniff: an LZ4 frame magic, or a first chunk header that fits the data."""
    if bytes(data[:4]) == FRAME_MAGIC:
        return True
    try:
        flags, pos = read_varint(data, 0)
        original, pos = read_varint(data, pos)
        stored = original
        if flags & FLAG_COMPRESSED:
            stored, pos = read_varint(data, pos)
    except CodecError:
        return False
    return flags in (0, 1, 2, 3) and 0 < stored <= original and pos + stored <= len(data)
