"""LZMA as the engine writes it (``.7zbson``): the C# LZMA SDK layout.

Layout: 5 property bytes, int64 uncompressed size, int64 compressed size (21 bytes), then raw
LZMA1 data.  The engine writes no end marker, so decoding stops at the declared size (an
unbounded raw decoder emits a garbage byte past the end).  liblzma always appends an end marker
when encoding; the engine's decoder stops at the declared size, so that is harmless, and the
compressed-size field counts it.
"""

from __future__ import annotations

import lzma
import struct

from brson.codecs import limits
from brson.errors import CodecError

HEADER = struct.Struct("<5sqq")
HEADER_SIZE = HEADER.size  # 21

#: The engine's properties: lc=3 lp=0 pb=2, 2 MiB dictionary (``5D 00 00 20 00``).
LC, LP, PB = 3, 0, 2
DICT_SIZE = 2 * 1024 * 1024
NICE_LEN = 32


def props_bytes(lc: int = LC, lp: int = LP, pb: int = PB, dict_size: int = DICT_SIZE) -> bytes:
    return struct.pack("<BI", (pb * 5 + lp) * 9 + lc, dict_size)


def parse_props(props: bytes, size: int = -1, limit: int | None = None) -> dict[str, int]:
    """Turn the 5 property bytes into a liblzma LZMA1 filter; CodecError when impossible.

    The dictionary is clamped to the declared size, or, for a stream of unknown size, to the
    output limit: a decoder never needs a window larger than what it may produce, and liblzma
    allocates the whole dictionary up front (a tiny file could otherwise claim 4 GiB).
    """
    first, dict_size = struct.unpack("<BI", props)
    if first >= 9 * 5 * 5:
        raise CodecError(f"invalid LZMA properties byte 0x{first:02x}", offset=0)
    lc = first % 9
    lp = (first // 9) % 5
    pb = first // 45
    if lc + lp > 4:
        raise CodecError(
            f"unsupported LZMA properties lc={lc} lp={lp} (liblzma needs lc+lp <= 4)", offset=0
        )
    if size >= 0:
        dict_size = min(dict_size, size)
    elif limit is not None:
        dict_size = min(dict_size, limit)
    return {
        "id": lzma.FILTER_LZMA1,
        "lc": lc,
        "lp": lp,
        "pb": pb,
        "dict_size": max(dict_size, 4096),
    }


def plausible(data: bytes | memoryview) -> bool:
    """Sniff: props byte valid, sizes non-negative and consistent with the data length."""
    if len(data) < HEADER_SIZE:
        return False
    props, size, csize = HEADER.unpack_from(data)
    return bool(props[0] < 225 and size >= -1 and csize == len(data) - HEADER_SIZE)


def compress(data: bytes) -> bytes:
    """Encode with the engine's properties and the 21-byte header."""
    filt = {
        "id": lzma.FILTER_LZMA1,
        "lc": LC,
        "lp": LP,
        "pb": PB,
        "dict_size": DICT_SIZE,
        "nice_len": NICE_LEN,
        "mf": lzma.MF_BT4,
    }
    body = lzma.compress(data, format=lzma.FORMAT_RAW, filters=[filt])
    return HEADER.pack(props_bytes(), len(data), len(body)) + body


#: No real archive declares more than this (256 TiB) in either size field: a larger value means
#: the 21 bytes are not an LZMA header (text, another format), not that the limit is too low.
MAX_PLAUSIBLE_SIZE = 1 << 48


def header_problem(props: bytes, size: int, csize: int) -> str | None:
    """Why 21 bytes cannot be an LZMA SDK header, or None when they can."""
    first = props[0]
    if first >= 9 * 5 * 5:
        return f"invalid properties byte 0x{first:02x}"
    if (first % 9) + (first // 9) % 5 > 4:
        return f"unsupported properties byte 0x{first:02x} (lc+lp > 4)"
    if size < -1 or size > MAX_PLAUSIBLE_SIZE:
        return f"impossible uncompressed size {size}"
    if csize < 0 or csize > MAX_PLAUSIBLE_SIZE:
        return f"impossible compressed size {csize}"
    return None


def decompress(data: bytes | memoryview, max_size: int = limits.DEFAULT_MAX_SIZE) -> bytes:
    """Decode the 21-byte-header form, stopping at the declared uncompressed size.

    The header is judged before its sizes are: an impossible one says "not an LZMA archive",
    and only a plausible size over the limit suggests raising ``--max-size``."""
    if len(data) < HEADER_SIZE:
        raise CodecError(
            f"LZMA header needs {HEADER_SIZE} bytes, the data has {len(data)}", offset=0
        )
    props, size, csize = HEADER.unpack_from(data)
    problem = header_problem(props, size, csize)
    if problem is not None:
        raise CodecError(f"not an LZMA archive: {problem}", offset=0)
    if size >= 0:
        limits.check(size, max_size, f"declared LZMA size ({size} bytes)")
    body = memoryview(data)[HEADER_SIZE:]
    if csize != len(body):
        if csize < 0 or csize > len(body):
            raise CodecError(
                f"truncated LZMA data: header declares {csize} compressed bytes, "
                f"{len(body)} present",
                offset=13,
            )
        raise CodecError(
            f"{len(body) - csize} trailing bytes after the LZMA data", offset=HEADER_SIZE + csize
        )
    want = size if size >= 0 else max_size + 1
    out = limits.Output(max_size)
    try:
        decoder = lzma.LZMADecompressor(
            lzma.FORMAT_RAW, filters=[parse_props(props, size, max_size)]
        )
        chunk = decoder.decompress(bytes(body), max_length=min(limits.STEP, want))
        while True:
            out.write(chunk)
            if out.total >= want or decoder.eof or decoder.needs_input:
                break
            chunk = decoder.decompress(b"", max_length=min(limits.STEP, want - out.total))
    except lzma.LZMAError as exc:
        raise CodecError(f"corrupt LZMA data ({exc})") from None
    total = out.total
    if size >= 0 and total < size:
        raise CodecError(f"truncated LZMA data: decoded {total} of the declared {size} bytes")
    if size < 0 and not decoder.eof:
        raise CodecError("truncated LZMA data: no end marker and no declared size")
    return out.value()
