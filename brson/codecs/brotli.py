"""Brotli, as Resonite writes it: quality 9, window 16.

With exactly these settings, re-compressing the BSON of a real ``.brson`` reproduces the file
byte for byte (measured on every sample), which is what makes an unmodified re-pack exact.
"""

from __future__ import annotations

import brotli as _brotli

from brson.codecs import limits
from brson.errors import CodecError

QUALITY = 9
WINDOW = 16


def compress(data: bytes, quality: int = QUALITY, window: int = WINDOW) -> bytes:
    return bytes(_brotli.compress(data, quality=quality, lgwin=window))


def decompress(data: bytes | memoryview, max_size: int = limits.DEFAULT_MAX_SIZE) -> bytes:
    """Stream-decompress, refusing output beyond ``max_size`` before allocating it."""
    decoder = _brotli.Decompressor()
    out: list[bytes] = []
    total = 0
    try:
        chunk = decoder.process(data, output_buffer_limit=limits.STEP)
        while True:
            out.append(chunk)
            total += len(chunk)
            limits.check(total, max_size)
            if decoder.is_finished():
                break
            # Output may still be buffered after the input is used up, so keep draining;
            # only an empty step from a decoder that wants more input means truncation.
            if not chunk and decoder.can_accept_more_data():
                raise CodecError("truncated Brotli stream (ended before its last block)")
            chunk = decoder.process(b"", output_buffer_limit=limits.STEP)
    except _brotli.error as exc:
        raise CodecError(f"corrupt Brotli stream ({exc})") from None
    return b"".join(out)
