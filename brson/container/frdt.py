"""The FrDT container: ``"FrDT"``, int32 version (0), 7-bit varint compression kind, payload.

Reader and writer side by side.  Also the headerless legacy (NeosVR) framing, where the codec
comes from the file extension, confirmed by sniffing the content.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath

from brson.codecs import Codec, compress, decompress, limits, lz4net, lzma_sdk
from brson.codecs.varint import read_varint, write_varint
from brson.errors import CodecError, ContainerError

MAGIC = b"FrDT"
VERSION = 0
_VERSION = struct.Struct("<i")

#: Which codec each archive extension means.
EXTENSIONS: dict[str, Codec] = {
    ".brson": Codec.BROTLI,
    ".7zbson": Codec.LZMA,
    ".lz4bson": Codec.LZ4,
    ".bson": Codec.NONE,
}

#: A ``.resonitepackage`` is a zip around an archive, told apart by this extension alone (as
#: Resonite does); the one statement of it, for the API, the CLI and validate.
PACKAGE_SUFFIX = ".resonitepackage"


def is_package_name(name: str | os.PathLike[str]) -> bool:
    return os.fspath(name).lower().endswith(PACKAGE_SUFFIX)


@dataclass(frozen=True)
class Container:
    """How an archive was framed, so it can be written back the same way."""

    framing: str  # "frdt" or "legacy"
    codec: Codec
    version: int | None  # FrDT version; None for legacy files
    header_size: int
    compressed_size: int  # payload bytes after the header
    uncompressed_size: int
    lz4_framing: str | None = None  # "chunks" (engine) or "frame" for LZ4 payloads
    warnings: tuple[str, ...] = field(default=())

    @property
    def legacy(self) -> bool:
        return self.framing == "legacy"

    @property
    def ratio(self) -> float:
        """Uncompressed bytes per stored byte (header included)."""
        stored = self.header_size + self.compressed_size
        return self.uncompressed_size / stored if stored else 0.0


def codec_for_name(name: str | None) -> Codec | None:
    """The codec an archive's extension implies, or None for unknown extensions."""
    if not name:
        return None
    return EXTENSIONS.get(PurePath(name).suffix.lower())


def read_header(data: bytes | memoryview) -> tuple[int, Codec, int]:
    """Parse an FrDT header: ``(version, codec, payload offset)``; ContainerError if wrong."""
    if len(data) < 9 and bytes(data[:4]) == MAGIC:
        raise ContainerError(f"truncated FrDT header ({len(data)} bytes)", offset=0)
    if bytes(data[:4]) != MAGIC:
        raise ContainerError("no FrDT magic", offset=0)
    (version,) = _VERSION.unpack_from(data, 4)
    if version != VERSION:
        raise ContainerError(
            f"unsupported FrDT version {version} (this brson reads version {VERSION})", offset=4
        )
    try:
        kind, pos = read_varint(data, 8)
    except CodecError as exc:
        raise ContainerError(f"bad compression kind varint: {exc.message}", offset=8) from None
    try:
        codec = Codec(kind)
    except ValueError:
        raise ContainerError(
            f"unknown compression kind {kind} (known: 0 none, 1 LZ4, 2 LZMA, 3 Brotli)", offset=8
        ) from None
    return version, codec, pos


def write_header(codec: Codec) -> bytes:
    return MAGIC + _VERSION.pack(VERSION) + write_varint(int(codec))


def _bson_plausible(data: bytes | memoryview) -> bool:
    return len(data) >= 5 and int.from_bytes(data[:4], "little") == len(data) and data[-1] == 0


def sniff_legacy(data: bytes | memoryview) -> Codec | None:
    """Guess the codec of a headerless file from its content alone."""
    if _bson_plausible(data):
        return Codec.NONE
    if bytes(data[:4]) == lz4net.FRAME_MAGIC:
        return Codec.LZ4
    if lzma_sdk.plausible(data):
        return Codec.LZMA
    if lz4net.plausible(data):
        return Codec.LZ4
    return None


def _never(data: bytes | memoryview) -> bool:
    return False


_PLAUSIBLE: dict[Codec, Callable[[bytes | memoryview], bool]] = {
    Codec.NONE: _bson_plausible,
    Codec.LZMA: lzma_sdk.plausible,
    Codec.LZ4: lz4net.plausible,
    Codec.BROTLI: _never,  # never written headerless; cannot be sniffed
}


def unpack(
    data: bytes | memoryview,
    name: str | None = None,
    max_size: int = limits.DEFAULT_MAX_SIZE,
) -> tuple[Container, bytes]:
    """Split an archive into its framing and its decompressed payload (the BSON bytes).

    Follows the engine: FrDT header first; without one, the extension's legacy form, and
    sniffing when the extension is unknown or its codec does not fit the content (a file
    whose name lies is still read, with a warning).
    """
    if len(data) == 0:
        raise ContainerError("empty file", offset=0)
    expected = codec_for_name(name)
    warnings: list[str] = []
    view = memoryview(data)
    if bytes(view[:4]) == MAGIC:
        version, codec, pos = read_header(view)
        framing = "frdt"
        if expected is not None and expected != codec:
            warnings.append(
                f"extension says {expected.label} but the FrDT header says {codec.label}"
            )
    else:
        version, pos, framing = None, 0, "legacy"
        if expected is not None and _PLAUSIBLE[expected](view):
            codec = expected
        else:
            sniffed = sniff_legacy(view)
            if sniffed is None and expected is not None and expected is not Codec.BROTLI:
                sniffed = expected  # as the engine does: decode as the extension says
            if sniffed is None:
                # Brotli files always carry the header, so "legacy brotli" would name a form
                # that does not exist: say what is missing instead.
                if expected is Codec.BROTLI:
                    why = "not a .brson archive: no FrDT magic (Brotli files always have one)"
                elif expected is not None:
                    why = f"not a legacy {expected.label} file: no FrDT magic"
                else:
                    why = "not an archive: no FrDT magic"
                raise ContainerError(f"{why} and the content matches no known codec", offset=0)
            if expected is not None:
                warnings.append(
                    f"extension says {expected.label} but the content is {sniffed.label}; "
                    "reading it as that"
                )
            codec = sniffed
    payload = view[pos:]
    bson_bytes = decompress(codec, payload, max_size)
    lz4_framing = None
    if codec is Codec.LZ4:
        lz4_framing = "frame" if bytes(payload[:4]) == lz4net.FRAME_MAGIC else "chunks"
    return (
        Container(
            framing=framing,
            codec=codec,
            version=version,
            header_size=pos,
            compressed_size=len(payload),
            uncompressed_size=len(bson_bytes),
            lz4_framing=lz4_framing,
            warnings=tuple(warnings),
        ),
        bson_bytes,
    )


def pack(bson_bytes: bytes, codec: Codec, legacy: bool = False) -> bytes:
    """Compress and frame a BSON document; legacy means headerless (NeosVR style)."""
    if legacy and codec is Codec.BROTLI:
        raise ContainerError("Brotli has no headerless legacy form (NeosVR never wrote one)")
    body = compress(codec, bson_bytes)
    return body if legacy else write_header(codec) + body


def frame(payload: bytes, codec: Codec, legacy: bool = False) -> bytes:
    """Frame an already compressed payload (re-using an unmodified file's exact bytes)."""
    return payload if legacy else write_header(codec) + payload
