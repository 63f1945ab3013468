"""One module per codec, each a symmetric ``compress``/``decompress`` pair with limits."""

from __future__ import annotations

import enum
from collections.abc import Callable

from brson.codecs import brotli_engine, limits, lz4net, lzma_sdk


class Codec(enum.IntEnum):
    """Compression kinds, numbered as the FrDT header numbers them."""

    NONE = 0
    LZ4 = 1
    LZMA = 2
    BROTLI = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, name: str | Codec) -> Codec:
        if isinstance(name, Codec):
            return name
        try:
            return cls[name.strip().upper()]
        except KeyError:
            choices = ", ".join(c.label for c in cls)
            raise ValueError(f"unknown codec {name!r} (choose from {choices})") from None


def _identity(data: bytes) -> bytes:
    return data


def _bounded_identity(data: bytes | memoryview, max_size: int = limits.DEFAULT_MAX_SIZE) -> bytes:
    limits.check(len(data), max_size)
    return bytes(data)


COMPRESS: dict[Codec, Callable[[bytes], bytes]] = {
    Codec.NONE: _identity,
    Codec.LZ4: lz4net.compress,
    Codec.LZMA: lzma_sdk.compress,
    Codec.BROTLI: brotli_engine.compress,
}

DECOMPRESS: dict[Codec, Callable[[bytes | memoryview, int], bytes]] = {
    Codec.NONE: _bounded_identity,
    Codec.LZ4: lz4net.decompress,
    Codec.LZMA: lzma_sdk.decompress,
    Codec.BROTLI: brotli_engine.decompress,
}


def compress(codec: Codec, data: bytes) -> bytes:
    return COMPRESS[codec](data)


def decompress(
    codec: Codec, data: bytes | memoryview, max_size: int = limits.DEFAULT_MAX_SIZE
) -> bytes:
    return DECOMPRESS[codec](data, max_size)


__all__ = ["Codec", "compress", "decompress", "limits"]
