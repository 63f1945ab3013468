"""Decompression bombs and absurd declared sizes: refused by the limit, in little memory.

Each bomb really expands to 2 GiB (checked once when the builders were written: see
``support.py``); each is read in a fresh interpreter with the limit a service would set
(``max_size`` = 64 MiB, the CLI's ``--max-size``) and must end in a ``LimitError`` while the
whole process, interpreter included, stays under 200 MB resident: what refusing costs is the
output kept up to the limit, never the expansion.

The default limit is 4 GiB: a file *declaring* more is refused before decoding (tested below),
but a stream that declares nothing (Brotli, unknown-size LZMA) is decoded up to the limit, so
trusting the default with untrusted input costs up to that much memory.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from .support import (
    GIB,
    LIMIT,
    PEAK,
    brotli_bomb,
    crc32_of_zeros,
    deflate_bomb,
    lz4_chunk_bomb,
    lz4_frame_bomb,
    lzma_bomb,
    package_with_main,
    run_child,
    zip_bytes,
)

pytestmark = pytest.mark.slow  # archives that really expand to 2 GiB, each in its own process

BOMBS: dict[str, Callable[[], bytes]] = {
    "bomb.brson": brotli_bomb,
    "bomb.lz4bson": lz4_chunk_bomb,
    "bomb_frame.lz4bson": lz4_frame_bomb,
    "bomb_unknown_size.7zbson": lambda: lzma_bomb(declared=False),
    "bomb_declared.7zbson": lambda: lzma_bomb(declared=True),
}

LOAD = """
path, limit = sys.argv[1], int(sys.argv[2])
base = peak()
result = outcome(lambda: brson.load(path, max_size=limit))
print(json.dumps({"result": result, "peak": peak(), "base": base}))
"""


@pytest.fixture(scope="module")
def bomb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bombs")
    for name, build in BOMBS.items():
        (folder / name).write_bytes(build())
    return folder


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_bomb_refused_by_the_limit_in_little_memory(bomb_dir: Path, name: str) -> None:
    out = run_child(LOAD, str(bomb_dir / name), str(LIMIT))
    assert out["result"].startswith("LimitError"), out
    assert "limit" in out["result"]
    assert out["peak"] < PEAK, f"{name}: peak RSS {out['peak'] / 2**20:.0f} MiB"
    assert out["peak"] - out["base"] < LIMIT + 48 * 2**20  # the limit, not the 2 GiB


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_bomb_through_the_cli_is_one_line_and_exit_2(bomb_dir: Path, name: str) -> None:
    code = """
from brson.cli.app import main
import contextlib, io
err = io.StringIO()
with contextlib.redirect_stderr(err):
    rc = main(["--max-size", sys.argv[2], "info", sys.argv[1]])
print(json.dumps({"rc": rc, "err": err.getvalue(), "peak": peak()}))
"""
    out = run_child(code, str(bomb_dir / name), str(LIMIT))
    assert out["rc"] == 2
    lines = out["err"].strip().splitlines()
    assert len(lines) == 1 and "limit" in lines[0] and name in lines[0], out["err"]
    assert "Traceback" not in out["err"]
    assert out["peak"] < PEAK


def test_declared_sizes_over_the_default_limit_cost_nothing(tmp_path: Path) -> None:
    """At the default limit (4 GiB), headers declaring more are refused before decoding."""
    lzma_5gib = bytearray(lzma_bomb(declared=False))
    lzma_5gib[14:22] = struct.pack("<q", 5 * GIB)
    (tmp_path / "lzma.7zbson").write_bytes(bytes(lzma_5gib))
    code = """
import brson.codecs.limits as limits
results = [outcome(lambda p=p: brson.load(p)) for p in sys.argv[1:]]
print(json.dumps({"results": results, "peak": peak(), "default": limits.DEFAULT_MAX_SIZE}))
"""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    out = run_child(
        code,
        str(tmp_path / "lzma.7zbson"),
        str(fixtures / "bomb_5gib.lz4bson"),
        str(fixtures / "bomb_5gib.7zbson"),
    )
    assert out["default"] < 5 * GIB
    assert all(r.startswith("LimitError") for r in out["results"]), out
    assert out["peak"] < PEAK


def test_bomb_nested_in_a_package(tmp_path: Path) -> None:
    """A package whose main tree is a Brotli bomb: the tree's limit applies inside packages."""
    path = tmp_path / "bomb.resonitepackage"
    path.write_bytes(package_with_main(brotli_bomb()))
    out = run_child(LOAD, str(path), str(LIMIT))
    assert "LimitError" in out["result"], out
    assert out["peak"] < PEAK


@pytest.mark.parametrize("lie", [False, True], ids=["declared", "lying"])
def test_deflate_bomb_entry_in_a_package(tmp_path: Path, lie: bool) -> None:
    """A zip entry inflating to 2 GiB: refused from its declared size, or (when the header
    lies) while inflating, past what it declared."""
    data, crc = deflate_bomb()
    record = b'{"id": "R-x", "assetUri": "packdb:///' + b"0" * 64 + b'", "name": "x"}'
    declared = 1000 if lie else 2 * GIB - 1
    blob = zip_bytes(
        [
            ("R-Main.record", record, 0, __import__("zlib").crc32(record), len(record)),
            ("Assets/" + "0" * 64, data, 8, crc, declared),
        ]
    )
    path = tmp_path / "deflate.resonitepackage"
    path.write_bytes(blob)
    code = """
from brson.package import load_package
def read_all():
    pkg = load_package(sys.argv[1], max_size=int(sys.argv[2]))
    for name in pkg.assets:
        pkg.assets[name]
result = outcome(read_all)
print(json.dumps({"result": result, "peak": peak()}))
"""
    out = run_child(code, str(path), str(LIMIT))
    assert out["result"] != "ok", out
    assert out["result"].startswith(("PackageLimitError", "LimitError", "PackageError")), out
    assert out["peak"] < PEAK


def test_the_deflate_bombs_crc_is_zlibs() -> None:
    """The bomb's CRC-32 is computed, not read from 2 GiB: it must be what zlib reads."""
    import zlib

    for size in (0, 1, 2, 7, 255, 4097, (1 << 20) + 13):
        assert crc32_of_zeros(size) == zlib.crc32(bytes(size)), size


ABSURD = """
import struct
from brson.godot import variant
from brson.package import loads_package

def i32(n): return struct.pack("<i", n)
def u32(n): return struct.pack("<I", n)
cases = {
    # BSON: a document, a string and a sub-document claiming 2 GiB in a tiny payload.
    "bson_doc_length": lambda: brson.loads(i32(0x7FFFFFFF) + b"\\x00" * 8),
    "bson_string_length": lambda: brson.loads(
        i32(32) + b"\\x02Name\\x00" + i32(0x7FFFFFF0) + b"x" * 16 + b"\\x00\\x00"),
    "bson_subdoc_length": lambda: brson.loads(
        i32(32) + b"\\x03Object\\x00" + i32(0x7FFFFFF0) + b"\\x00" * 14 + b"\\x00"),
    "frdt_kind_0_length": lambda: brson.loads(b"FrDT" + i32(0) + b"\\x00" + i32(0x7FFFFFFF)),
    # Godot Variant: arrays, dictionaries, strings and packed arrays claiming 2^31 items.
    "variant4_array": lambda: variant.loads(u32(28) + u32(0x7FFFFFFF), godot=4),
    "variant4_dict": lambda: variant.loads(u32(27) + u32(0x7FFFFFFF), godot=4),
    "variant4_string": lambda: variant.loads(u32(4) + u32(0x7FFFFFFF) + b"abc", godot=4),
    "variant4_packed_bytes": lambda: variant.loads(u32(29) + u32(0x7FFFFFFF), godot=4),
    "variant4_packed_vec3": lambda: variant.loads(u32(36) + u32(0x7FFFFFFF), godot=4),
    "variant3_array": lambda: variant.loads(u32(19) + u32(0x7FFFFFFF), godot=3),
    "variant3_pool_real": lambda: variant.loads(u32(22) + u32(0x7FFFFFFF), godot=3),
    # Zip: an end record claiming 65535 entries and a 4 GiB central directory.
    "zip_counts": lambda: loads_package(
        struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 65535, 65535, 0xFFFFFFF0, 0, 0)),
}
results = {name: outcome(fn) for name, fn in cases.items()}
print(json.dumps({"results": results, "peak": peak()}))
"""


def test_absurd_lengths_and_counts_in_headers() -> None:
    out = run_child(ABSURD)
    for name, result in out["results"].items():
        assert result != "ok", name
    assert out["peak"] < PEAK
