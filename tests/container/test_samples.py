"""Real archives written by Resonite and NeosVR: framing, exact re-encoding, conversion chains.

These are the facts the whole toolkit rests on (an unmodified file re-packs byte for byte; a
BSON decode/encode changes nothing; converting between codecs never touches the BSON), so they
are checked on every real file rather than on synthetic ones.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

import brson
from brson.codecs import Codec
from brson.container import frame, pack, read_header, unpack
from brson.document import bsondoc

from .support import (
    ENGINE_SETTINGS,
    REAL,
    SAMPLES,
    lzma_sdk_header,
    plain_lz4net_chunks,
    plain_lzma_alone,
    plain_lzma_raw,
    real_files,
    real_ids,
)

REAL_FILES = real_files()
BRSON_FILES = [p for p in REAL_FILES if p.suffix == ".brson"]
ENGINE_BRSON = [p for p in BRSON_FILES if p.name in ENGINE_SETTINGS]


@pytest.mark.parametrize("path", REAL_FILES, ids=real_ids(REAL_FILES))
def test_real_file_unpacks_with_its_framing(path: Path) -> None:
    data = path.read_bytes()
    expected = REAL[path.name]
    container, raw = unpack(data, path.name)
    assert container.framing == expected.framing
    assert container.codec == expected.codec
    assert container.uncompressed_size == len(raw) == expected.bson_size
    assert container.header_size + container.compressed_size == len(data)
    assert container.warnings == ()
    # Named nothing, the content alone must be enough (FrDT magic, or sniffing).
    assert unpack(data)[1] == raw
    if expected.framing == "frdt":
        assert data[:9] == b"FrDT\0\0\0\0" + bytes([expected.codec])
        assert read_header(data) == (0, Codec(expected.codec), 9)


@pytest.mark.parametrize("path", REAL_FILES, ids=real_ids(REAL_FILES))
def test_real_bson_decode_encode_is_identical(path: Path) -> None:
    _, raw = unpack(path.read_bytes(), path.name)
    doc = bsondoc.decode(raw)
    assert tuple(doc) == REAL[path.name].root_keys
    assert bsondoc.encode(doc) == raw


def test_every_real_brson_is_described() -> None:
    """A new sample must be added to REAL (and to ENGINE_SETTINGS when it re-packs exactly)."""
    assert {p.name for p in REAL_FILES} <= set(REAL)


@pytest.mark.parametrize("path", BRSON_FILES, ids=real_ids(BRSON_FILES))
def test_real_brson_dumps_unmodified_byte_identical(path: Path) -> None:
    """Whatever settings wrote it, an unmodified tree comes back as the file's own bytes."""
    data = path.read_bytes()
    assert brson.dumps(brson.loads(data, name=path.name)) == data


def test_other_writer_settings_do_not_recompress_identically() -> None:
    """Quality 5 / window 22 (MANIFEST.md): Brotli at the engine's settings gives other bytes,
    which is why dumps keeps the stored stream instead of re-compressing."""
    path = SAMPLES / "mar_AimConstraint.pg.brson"
    if not path.is_file():
        pytest.skip("shared samples not present")
    data = path.read_bytes()
    container, raw = unpack(data, path.name)
    assert pack(raw, container.codec) != data
    assert unpack(pack(raw, container.codec))[1] == raw


@pytest.mark.parametrize("path", ENGINE_BRSON, ids=real_ids(ENGINE_BRSON))
def test_real_brson_repacks_byte_identical(path: Path) -> None:
    """Brotli q9/w16 over the decoded BSON reproduces the engine's file exactly."""
    data = path.read_bytes()
    container, raw = unpack(data, path.name)
    assert pack(raw, container.codec) == data
    assert pack(bsondoc.encode(bsondoc.decode(raw)), Codec.BROTLI) == data
    assert frame(data[9:], Codec.BROTLI) == data


def test_legacy_lzma_sample_layout() -> None:
    """The NeosVR sample: SDK header, engine props, no end marker (size-bounded decoding)."""
    path = SAMPLES / "redx_5ce7cdf5.7zbson"
    if not path.is_file():
        pytest.skip("shared samples not present")
    data = path.read_bytes()
    props, size, csize = lzma_sdk_header(data)
    assert props.hex() == "5d00002000"
    assert (size, csize) == (111579, len(data) - 21)
    _, raw = unpack(data, path.name)
    assert plain_lzma_alone(data) == raw
    assert plain_lzma_raw(data) == raw


@pytest.mark.parametrize("path", REAL_FILES, ids=real_ids(REAL_FILES))
def test_convert_chain_keeps_bson(path: Path) -> None:
    """brotli -> lz4 -> lzma -> brotli (from whatever the file is) never changes the BSON.

    Each intermediate is also read with the plain decoders, so the written layout is the
    engine's (FrDT kind 1 with lz4net chunks; FrDT kind 2 with the SDK's 21-byte header).
    """
    _, raw = unpack(path.read_bytes(), path.name)

    lz4_file = pack(raw, Codec.LZ4)
    container, back = unpack(lz4_file, "x.lz4bson")
    assert (container.framing, container.codec, container.lz4_framing) == (
        "frdt",
        Codec.LZ4,
        "chunks",
    )
    assert lz4_file[:9] == b"FrDT\0\0\0\0\x01"
    plain, chunks = plain_lz4net_chunks(lz4_file[9:])
    assert plain == back == raw
    assert {flags for flags, _, _ in chunks} <= {2, 3}

    lzma_file = pack(back, Codec.LZMA)
    container, back = unpack(lzma_file, "x.7zbson")
    assert (container.framing, container.codec) == ("frdt", Codec.LZMA)
    assert lzma_file[:9] == b"FrDT\0\0\0\0\x02"
    assert plain_lzma_alone(lzma_file[9:]) == plain_lzma_raw(lzma_file[9:]) == back == raw

    brotli_file = pack(back, Codec.BROTLI)
    _, back = unpack(brotli_file, "x.brson")
    assert back == raw
    if path.name in ENGINE_SETTINGS:
        assert brotli_file == path.read_bytes()


@pytest.mark.parametrize("codec", [Codec.LZMA, Codec.LZ4, Codec.NONE], ids=lambda c: c.label)
@pytest.mark.parametrize("path", REAL_FILES, ids=real_ids(REAL_FILES))
def test_legacy_repack_is_read_back_by_extension(path: Path, codec: Codec) -> None:
    """Headerless (NeosVR) output of every legacy codec reads back, named or only sniffed."""
    _, raw = unpack(path.read_bytes(), path.name)
    legacy = pack(raw, codec, legacy=True)
    ext = {Codec.LZMA: ".7zbson", Codec.LZ4: ".lz4bson", Codec.NONE: ".bson"}[codec]
    for name in (f"x{ext}", None):
        container, back = unpack(legacy, name)
        assert (container.framing, container.codec, back) == ("legacy", codec, raw)


PACKAGES = sorted(SAMPLES.glob("*.resonitepackage"))


@pytest.mark.parametrize("path", PACKAGES, ids=[p.name for p in PACKAGES])
def test_package_assets_are_named_by_sha256(path: Path) -> None:
    """Inside a package every asset is named by its sha256; the main tree is FrDT Brotli."""
    with zipfile.ZipFile(path) as archive:
        assets = {n: archive.read(n) for n in archive.namelist() if n.startswith("Assets/")}
    trees = 0
    for name, data in assets.items():
        assert name == "Assets/" + hashlib.sha256(data).hexdigest()
        if data[:4] == b"FrDT":
            container, raw = unpack(data)
            assert container.codec is Codec.BROTLI
            assert pack(raw, Codec.BROTLI) == data
            trees += 1
    assert trees == 1
