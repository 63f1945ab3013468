"""Write the LZMA bombs the hardening tests read (``python tests/hardening/make_bombs.py``).

Brotli and LZ4 bombs are built at test time in milliseconds (a flushed Brotli meta-block of
zeros repeats verbatim; LZ4 chunks are independent), but an LZMA stream is one range-coded
whole that takes a minute to encode for gigabytes, so this one is committed instead.
Deterministic: liblzma's output for the same input and filter is stable.
"""

from __future__ import annotations

import lzma
import struct
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
SIZE = 2 << 30  # 2 GiB of zeros
STEP = 64 << 20
#: The engine's LZMA properties (lc=3 lp=0 pb=2, 2 MiB dictionary), as brson writes them.
PROPS = bytes([0x5D]) + struct.pack("<I", 2 << 20)


def stream() -> bytes:
    filters = [{"id": lzma.FILTER_LZMA1, "lc": 3, "lp": 0, "pb": 2, "dict_size": 2 << 20}]
    encoder = lzma.LZMACompressor(lzma.FORMAT_RAW, filters=filters)
    zeros = bytes(STEP)
    parts = [encoder.compress(zeros) for _ in range(SIZE // STEP)]
    parts.append(encoder.flush())  # with the end marker (liblzma always writes one)
    return b"".join(parts)


def main() -> None:
    DATA.mkdir(exist_ok=True)
    body = stream()
    frdt = b"FrDT" + struct.pack("<i", 0) + b"\x02"
    # Unknown size (-1): only the end marker stops the decoder, the limit must.
    unknown = frdt + PROPS + struct.pack("<qq", -1, len(body)) + body
    (DATA / "bomb_2gib_unknown_size.7zbson").write_bytes(unknown)
    # (The honestly declared variant is this file with the size patched in; see support.py.)


if __name__ == "__main__":
    main()
