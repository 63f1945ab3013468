"""Container layer: bytes of an archive <-> (framing, decompressed BSON bytes)."""

from brson.container.frdt import (
    EXTENSIONS,
    MAGIC,
    PACKAGE_SUFFIX,
    Container,
    codec_for_name,
    frame,
    is_package_name,
    pack,
    read_header,
    unpack,
)

__all__ = [
    "EXTENSIONS",
    "MAGIC",
    "PACKAGE_SUFFIX",
    "Container",
    "codec_for_name",
    "frame",
    "is_package_name",
    "pack",
    "read_header",
    "unpack",
]
