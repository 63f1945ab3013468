"""Container layer: bytes of an archive <-> (framing, decompressed BSON bytes)."""

from brson.container.frdt import (
    EXTENSIONS,
    MAGIC,
    Container,
    codec_for_name,
    frame,
    pack,
    read_header,
    unpack,
    write_header,
)

__all__ = [
    "EXTENSIONS",
    "MAGIC",
    "Container",
    "codec_for_name",
    "frame",
    "pack",
    "read_header",
    "unpack",
    "write_header",
]
