"""The generated fixtures: they are what the generator makes, and each behaves as documented.

Valid files must decode to exactly the generator's documents; broken files must raise the
right :class:`BrsonError` subclass (never anything else); bombs must be refused by the size
limit without the memory being spent.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bson.int64 import Int64

from brson.codecs import Codec, limits
from brson.container import unpack
from brson.document import bsondoc
from brson.errors import BrsonError, CodecError, ContainerError, DocumentError, LimitError

from .support import FIXTURES, load_generator, plain_lz4net_chunks

MiB = 1 << 20
gen = load_generator()


def load(name: str, max_size: int = limits.DEFAULT_MAX_SIZE) -> dict[str, Any]:
    """What a reader does: unpack (named, so the extension counts), then decode the BSON."""
    _, raw = unpack((FIXTURES / name).read_bytes(), name, max_size)
    return bsondoc.decode(raw)


@pytest.fixture(scope="module")
def generated() -> dict[str, bytes]:
    return dict(gen.build())


@pytest.mark.slow
def test_committed_fixtures_are_what_the_generator_makes(generated: dict[str, bytes]) -> None:
    """Regenerate in memory; every committed file must match byte for byte (determinism)."""
    differ = [n for n, d in generated.items() if (FIXTURES / n).read_bytes() != d]
    assert not differ, f"run `python fixtures/make_fixtures.py`; stale: {differ}"
    on_disk = {p.name for p in FIXTURES.iterdir() if p.is_file()}
    assert on_disk == set(generated) | {"make_fixtures.py"}, "unlisted files in fixtures/"
    assert sum(len(d) for d in generated.values()) < 1_000_000


@pytest.mark.slow
def test_generator_is_deterministic(generated: dict[str, bytes]) -> None:
    """Cheap parts built twice in one process (the committed files cover separate runs)."""
    assert gen.encode(gen.resonite_doc()) == gen.encode(gen.resonite_doc())
    assert gen.encode(gen.neos_doc()) == gen.encode(gen.neos_doc())
    assert generated["README.md"].count(b"\n| `") == len(generated) - 1 + len(gen.REAL_COPIES)


# --------------------------------------------------------------------------------------------
# Valid fixtures.

TINY = gen.encode(gen.resonite_doc())
NEOS = gen.encode(gen.neos_doc())

#: name -> (framing, codec, lz4 framing, expected BSON bytes or None for "see below")
VALID: dict[str, tuple[str, Codec, str | None, bytes | None]] = {
    "tiny.brson": ("frdt", Codec.BROTLI, None, TINY),
    "tiny.7zbson": ("frdt", Codec.LZMA, None, TINY),
    "tiny.lz4bson": ("frdt", Codec.LZ4, "chunks", TINY),
    "tiny_frame.lz4bson": ("frdt", Codec.LZ4, "frame", TINY),
    "tiny_frdt.bson": ("frdt", Codec.NONE, None, TINY),
    "tiny.bson": ("legacy", Codec.NONE, None, TINY),
    "neos_legacy.7zbson": ("legacy", Codec.LZMA, None, NEOS),
    "neos_legacy_unknown_size.7zbson": ("legacy", Codec.LZMA, None, NEOS),
    "neos_legacy.lz4bson": ("legacy", Codec.LZ4, "chunks", NEOS),
    "neos_legacy_frame.lz4bson": ("legacy", Codec.LZ4, "frame", NEOS),
    "neos_legacy.bson": ("legacy", Codec.NONE, None, NEOS),
    "multichunk.lz4bson": ("frdt", Codec.LZ4, "chunks", None),
    "stored_chunk.lz4bson": ("frdt", Codec.LZ4, "chunks", gen.encode(gen.stored_doc())),
    "misnamed.lz4bson": ("legacy", Codec.LZMA, None, NEOS),
    "misnamed_frdt.lz4bson": ("frdt", Codec.LZMA, None, TINY),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_fixture(name: str) -> None:
    framing, codec, lz4_framing, expected = VALID[name]
    data = (FIXTURES / name).read_bytes()
    container, raw = unpack(data, name)
    assert (container.framing, container.codec, container.lz4_framing) == (
        framing,
        codec,
        lz4_framing,
    )
    if expected is not None:
        assert raw == expected
    assert bsondoc.encode(bsondoc.decode(raw)) == raw
    assert bool(container.warnings) == name.startswith("misnamed")
    if not name.startswith("misnamed"):
        assert unpack(data)[1] == raw  # the content alone is enough


def test_tiny_tree_keeps_int32_and_int64() -> None:
    """The synthetic trees carry the widths real files have, and decoding keeps them."""
    doc = load("tiny.brson")
    assert tuple(doc) == ("VersionNumber", "FeatureFlags", "Types", "TypeVersions", "Object")
    root = doc["Object"]
    component = root["Components"]["Data"][0]
    assert type(component["Type"]) is int
    assert type(component["Data"]["UpdateOrder"]["Data"]) is int
    assert type(root["OrderOffset"]["Data"]) is Int64
    assert all(type(v) is int for v in doc["FeatureFlags"].values())
    assert len(root["Children"]) == 2
    neos = load("neos_legacy.7zbson")
    assert tuple(neos) == ("Object", "Assets", "TypeVersions")
    assert all(type(v) is Int64 for v in neos["TypeVersions"].values())
    assert isinstance(neos["Object"]["Components"]["Data"][0]["Type"], str)


def test_multichunk_layout() -> None:
    """> 1 MiB of BSON: one full 1 MiB chunk and the rest, both compressed (flags 3)."""
    data = (FIXTURES / "multichunk.lz4bson").read_bytes()
    plain, chunks = plain_lz4net_chunks(data[9:])
    assert len(plain) > MiB
    assert [(flags, original) for flags, original, _ in chunks] == [(3, MiB), (3, len(plain) - MiB)]
    assert unpack(data, "multichunk.lz4bson")[1] == plain
    assert len(data) < 10_000


def test_stored_chunk_layout() -> None:
    data = (FIXTURES / "stored_chunk.lz4bson").read_bytes()
    plain, chunks = plain_lz4net_chunks(data[9:])
    assert chunks == [(2, len(plain), len(plain))]


def test_kind_0_respects_the_limit() -> None:
    with pytest.raises(LimitError):
        unpack((FIXTURES / "tiny_frdt.bson").read_bytes(), "tiny_frdt.bson", max_size=100)


# --------------------------------------------------------------------------------------------
# Broken fixtures: the layer that knew what was wrong names the error.


BROKEN: dict[str, type[BrsonError]] = {
    "empty.brson": ContainerError,
    "header_only.brson": ContainerError,
    "version1.brson": ContainerError,
    "kind9.brson": ContainerError,
    "noise.brson": ContainerError,  # no magic, and Brotli has no headerless form
    "noise_frdt.brson": CodecError,
    "truncated.brson": CodecError,
    "truncated.7zbson": CodecError,
    "truncated_legacy.7zbson": CodecError,
    "truncated.lz4bson": CodecError,
    "truncated_legacy.lz4bson": CodecError,
    "truncated_multichunk.lz4bson": CodecError,
    "truncated_frame.lz4bson": CodecError,
    "truncated_frdt.bson": DocumentError,
    "truncated.bson": DocumentError,
    "trailing_stream.brson": CodecError,
    "trailing_stream.7zbson": CodecError,
    "trailing_frame.lz4bson": CodecError,
    "trailing_bson.brson": DocumentError,
    "trailing_frdt.bson": DocumentError,
    "length_lie.brson": DocumentError,
    "length_lie.bson": DocumentError,
    "not_bson.brson": DocumentError,
}

#: Bombs: (error with max_size=1 MiB, error with the default limit or None, default size).
BOMBS: dict[str, tuple[type[BrsonError], type[BrsonError] | None, int]] = {
    "bomb.brson": (LimitError, None, 65 * MiB),
    "bomb.7zbson": (LimitError, None, 65 * MiB),
    "bomb_unknown_size.7zbson": (LimitError, None, 65 * MiB),
    "bomb_5gib.7zbson": (LimitError, LimitError, 0),
    "bomb_5gib.lz4bson": (LimitError, LimitError, 0),
    "bomb_96mib.lz4bson": (LimitError, CodecError, 0),
    "bomb_frame.lz4bson": (LimitError, None, 8 * MiB),
}


def test_every_fixture_is_classified(generated: dict[str, bytes]) -> None:
    archives = {n for n in generated if n != "README.md"}
    assert archives == set(VALID) | set(BROKEN) | set(BOMBS)


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_fixture_raises_its_error(name: str) -> None:
    with pytest.raises(BROKEN[name]) as info:
        load(name)
    assert type(info.value) is BROKEN[name]  # not a subclass standing in for it
    assert str(info.value)


@pytest.mark.parametrize("name", sorted(BROKEN) + sorted(BOMBS))
@pytest.mark.parametrize("as_name", [True, False], ids=["named", "unnamed"])
def test_broken_fixture_raises_only_brson_errors(name: str, as_name: bool) -> None:
    """Named or not, bad input ends in a BrsonError (bombs under a 4 MiB limit)."""
    data = (FIXTURES / name).read_bytes()
    with pytest.raises(BrsonError):
        _, raw = unpack(data, name if as_name else None, max_size=4 * MiB)
        bsondoc.decode(raw)


def _peak(call: Callable[[], object]) -> tuple[BaseException | None, int]:
    """Run ``call`` under tracemalloc: (the exception it raised or None, peak bytes)."""
    tracemalloc.start()
    try:
        try:
            call()
        except BaseException as exc:
            return exc, tracemalloc.get_traced_memory()[1]
        return None, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_bomb_small_limit(name: str) -> None:
    """With a 1 MiB limit every bomb is refused while memory stays within a few MiB."""
    data = (FIXTURES / name).read_bytes()
    error, peak = _peak(lambda: unpack(data, name, max_size=MiB))
    assert type(error) is BOMBS[name][0]
    assert peak < 16 * MiB, f"peak {peak} bytes"


DEFAULT_REFUSED = sorted(n for n, (_, err, _) in BOMBS.items() if err is not None)
DEFAULT_EXPANDED = sorted(n for n, (_, err, _) in BOMBS.items() if err is None)


@pytest.mark.parametrize("name", DEFAULT_REFUSED)
def test_bomb_default_limit_refused_cheaply(name: str) -> None:
    """Claims beyond 4 GiB are refused from the header alone, under the default limit."""
    data = (FIXTURES / name).read_bytes()
    error, peak = _peak(lambda: unpack(data, name))
    assert type(error) is BOMBS[name][1]
    assert peak < 16 * MiB, f"peak {peak} bytes"


@pytest.mark.parametrize("name", DEFAULT_EXPANDED)
def test_bomb_default_limit_expands_honestly(name: str) -> None:
    """Real expansion under the 4 GiB default is allowed: the limit does not misfire."""
    container, raw = unpack((FIXTURES / name).read_bytes(), name)
    assert container.uncompressed_size == len(raw) == BOMBS[name][2]
    with pytest.raises(DocumentError):  # zeros: a BSON length prefix of 0
        bsondoc.decode(raw)


def test_misnamed_files_warn(fixtures_dir: Path) -> None:
    """A lying extension is read by content with a warning (the engine would refuse)."""
    for name in ("misnamed.lz4bson", "misnamed_frdt.lz4bson"):
        container, _ = unpack((fixtures_dir / name).read_bytes(), name)
        assert container.codec is Codec.LZMA
        assert any("lz4" in w and "lzma" in w for w in container.warnings)
