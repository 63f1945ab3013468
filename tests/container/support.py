"""Helpers for the codec/container/document tests: the files, and independent decoders.

The decoders here are deliberately plain re-implementations written from the format notes
(``../shared/notes/resonite-format.md``), sharing no code with brson, so that a test which
decodes brson's output with them checks the format and not brson against itself.
"""

from __future__ import annotations

import importlib.util
import lzma
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import lz4.block

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
FIXTURES = PROJECT_ROOT / "fixtures"
ARCHIVE_SUFFIXES = (".brson", ".7zbson", ".lz4bson", ".bson")


@dataclass(frozen=True)
class Real:
    """What MANIFEST.md says about a real sample (checked, not trusted)."""

    framing: str
    codec: int
    bson_size: int
    root_keys: tuple[str, ...]


RESONITE_KEYS = ("VersionNumber", "FeatureFlags", "Types", "TypeVersions", "Object")
REAL: dict[str, Real] = {
    "orange3134_AvatarRootIdentification.brson": Real("frdt", 3, 26589, RESONITE_KEYS),
    "orange3134_loading_standin.brson": Real("frdt", 3, 68443, RESONITE_KEYS),
    "redx_5ce7cdf5.7zbson": Real("legacy", 2, 111579, ("Object", "Assets", "TypeVersions")),
    "mar_AimConstraint.pg.brson": Real("frdt", 3, 103871, (*RESONITE_KEYS, "Assets")),
}
#: Written with the engine's own Brotli settings (quality 9, window 16): these re-compress to
#: the identical bytes. mar_AimConstraint.pg.brson was written at quality 5 / window 22
#: (MANIFEST.md), so only its BSON, and its stored compressed bytes, come back identical.
ENGINE_SETTINGS = {
    "orange3134_AvatarRootIdentification.brson",
    "orange3134_loading_standin.brson",
}


def real_files() -> list[Path]:
    """Every real archive: the shared samples (when present) and the copies in fixtures/real."""
    found = sorted(p for p in SAMPLES.glob("*") if p.suffix in ARCHIVE_SUFFIXES)
    found += sorted((FIXTURES / "real").glob("*"))
    return found


def real_ids(paths: list[Path]) -> list[str]:
    return [f"{p.parent.name}/{p.name}" for p in paths]


def load_generator() -> ModuleType:
    """Import ``fixtures/make_fixtures.py`` (not a package) to reuse its documents and table."""
    name = "brson_make_fixtures"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, FIXTURES / "make_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------------
# Independent decoders.


def plain_varint(data: bytes, pos: int) -> tuple[int, int]:
    """Unsigned LEB128, low group first (what .NET's Write7BitEncodedInt writes)."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def plain_lz4net_chunks(data: bytes) -> tuple[bytes, list[tuple[int, int, int]]]:
    """Decode lz4net chunk framing; also return each chunk's (flags, original, stored)."""
    out = bytearray()
    chunks = []
    pos = 0
    while pos < len(data):
        flags, pos = plain_varint(data, pos)
        original, pos = plain_varint(data, pos)
        if flags & 1:
            stored, pos = plain_varint(data, pos)
            out += lz4.block.decompress(data[pos : pos + stored], uncompressed_size=original)
        else:
            stored = original
            out += data[pos : pos + stored]
        pos += stored
        chunks.append((flags, original, stored))
    return bytes(out), chunks


def lzma_sdk_header(data: bytes) -> tuple[bytes, int, int]:
    """The LZMA SDK's 21-byte header: (5 props bytes, uncompressed size, compressed size)."""
    props, size, csize = struct.unpack_from("<5sqq", data)
    return props, size, csize


def plain_lzma_alone(data: bytes) -> bytes:
    """Decode the SDK form as a ``.lzma`` (FORMAT_ALONE) file: drop the compressed-size field."""
    return lzma.decompress(data[:13] + data[21:], format=lzma.FORMAT_ALONE)


def plain_lzma_raw(data: bytes) -> bytes:
    """Decode the SDK form with a raw LZMA1 decoder stopped at the declared size."""
    props, size, _ = lzma_sdk_header(data)
    first, dict_size = struct.unpack("<BI", props)
    lc, lp, pb = first % 9, first // 9 % 5, first // 45
    decoder = lzma.LZMADecompressor(
        lzma.FORMAT_RAW,
        filters=[{"id": lzma.FILTER_LZMA1, "lc": lc, "lp": lp, "pb": pb, "dict_size": dict_size}],
    )
    return decoder.decompress(data[21:], max_length=size)
