"""Builders of hostile inputs for the hardening tests, and a memory-measuring subprocess.

Bombs are built in milliseconds from repeated independent pieces (a flushed Brotli meta-block
of zeros repeats verbatim, LZ4 chunks and frame blocks are independent, a full-flushed deflate
block resets its history), so the tests can afford gigabytes of *expansion* without storing or
compressing gigabytes.  Deep trees are assembled as BSON bytes directly (prefixes top-down,
suffixes bottom-up), because pymongo's encoder is recursive and refuses such depths.
"""

from __future__ import annotations

import functools
import hashlib
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import brotli
import lz4.block
import lz4.frame

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
FIXTURES = PROJECT_ROOT / "fixtures"
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"

GIB = 1 << 30
MIB = 1 << 20
#: The limit a service would set (the CLI's --max-size); bombs must stop there.  What
#: refusing costs is about this much (output is kept up to the limit), never the expansion.
LIMIT = 64 * MIB
#: Peak resident memory allowed for refusing a bomb, interpreter and imports included.
PEAK = 200 * MIB

FRDT = b"FrDT" + struct.pack("<i", 0)


def _i32(n: int) -> bytes:
    return struct.pack("<i", n)


# -- bombs -----------------------------------------------------------------------------------
def brotli_bomb(size: int = 2 * GIB) -> bytes:
    """FrDT Brotli archive expanding to ``size`` bytes of zeros (a few hundred KiB)."""
    step = 16 * MIB
    enc = brotli.Compressor(quality=1, lgwin=22)
    first = enc.process(bytes(step)) + enc.flush()
    again = enc.process(bytes(step)) + enc.flush()
    return bytes(FRDT + b"\x03" + first + again * (size // step - 1) + enc.finish())


def lz4_chunk_bomb(size: int = 2 * GIB) -> bytes:
    """FrDT lz4net chunks: one compressed 1 MiB chunk of zeros, repeated."""
    block = lz4.block.compress(bytes(MIB), store_size=False)
    chunk = b"\x03" + _varint(MIB) + _varint(len(block)) + block
    return bytes(FRDT + b"\x01" + chunk * (size // MIB))


def lz4_frame_bomb(size: int = 2 * GIB) -> bytes:
    """FrDT holding an LZ4 frame whose independent 4 MiB blocks of zeros repeat."""
    step = 4 * MIB
    frame = lz4.frame.compress(
        bytes(step),
        block_size=lz4.frame.BLOCKSIZE_MAX4MB,
        block_linked=False,
        content_checksum=False,
        store_size=False,
    )
    header, rest = frame[:7], frame[7:]
    (n,) = struct.unpack_from("<I", rest)
    block = rest[: 4 + (n & 0x7FFFFFFF)]
    return bytes(FRDT + b"\x01" + header + block * (size // step) + b"\x00\x00\x00\x00")


def lzma_bomb(declared: bool) -> bytes:
    """The committed 2 GiB LZMA stream (``make_bombs.py``): unknown size, or honestly declared."""
    data = (DATA / "bomb_2gib_unknown_size.7zbson").read_bytes()
    if not declared:
        return data
    return data[:14] + struct.pack("<q", 2 * GIB) + data[22:]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


@functools.cache
def deflate_bomb(size: int = 2 * GIB) -> tuple[bytes, int]:
    """Raw deflate of ``size`` zeros (full-flushed 16 MiB blocks repeated) and its CRC-32."""
    step = 16 * MIB
    enc = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = enc.compress(bytes(step)) + enc.flush(zlib.Z_FULL_FLUSH)
    tail = enc.flush(zlib.Z_FINISH)
    return block * (size // step) + tail, crc32_of_zeros(size)


def crc32_of_zeros(size: int) -> int:
    """``zlib.crc32(bytes(size))`` without reading ``size`` bytes (2 GiB: a second of CPU):
    the CRC of a run of zeros twice as long as one already known is the two combined, which
    is zlib's ``crc32_combine`` (not in Python's zlib): appending n zero bytes is a linear
    map over GF(2), squared from one zero bit."""
    crc, known = 0, 0
    for bit in reversed(range(size.bit_length())):
        crc, known = _crc32_combine(crc, crc, known), 2 * known
        if size >> bit & 1:
            crc, known = zlib.crc32(b"\0", crc), known + 1
    return crc


def _crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """The CRC-32 of A + B from those of A and B and B's length (zlib's algorithm)."""

    def times(matrix: list[int], vector: int) -> int:
        total, row = 0, 0
        while vector:
            if vector & 1:
                total ^= matrix[row]
            vector >>= 1
            row += 1
        return total

    operator = [0xEDB88320] + [1 << n for n in range(31)]  # one zero bit
    for _ in range(3):  # one zero byte
        operator = [times(operator, column) for column in operator]
    while len2:
        if len2 & 1:
            crc1 = times(operator, crc1)
        len2 >>= 1
        if len2:
            operator = [times(operator, column) for column in operator]
    return crc1 ^ crc2


def zip_bytes(entries: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A zip from ``(name, stored data, method, crc, declared size)`` entries, written by hand
    so sizes can lie and data can be pre-compressed."""
    local, central = bytearray(), bytearray()
    for name, data, method, crc, size in entries:
        raw_name = name.encode()
        offset = len(local)
        local += (
            struct.pack(
                "<IHHHHHIIIHH",
                0x04034B50,
                20,
                0,
                method,
                0,
                0x21,
                crc,
                len(data),
                size,
                len(raw_name),
                0,
            )
            + raw_name
            + data
        )
        central += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                20,
                20,
                0,
                method,
                0,
                0x21,
                crc,
                len(data),
                size,
                len(raw_name),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + raw_name
        )
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(local), 0
    )
    return bytes(local + central + end)


def package_with_main(main: bytes) -> bytes:
    """A .resonitepackage whose main data tree is ``main`` (stored, named by its sha256)."""
    digest = hashlib.sha256(main).hexdigest()
    record = json.dumps(
        {
            "id": "R-bomb",
            "assetUri": f"packdb:///{digest}",
            "name": "bomb",
            "recordType": "object",
            "assetManifest": [],
        }
    ).encode()
    return zip_bytes(
        [
            ("R-Main.record", record, 0, zlib.crc32(record), len(record)),
            (f"Assets/{digest}", main, 0, zlib.crc32(main), len(main)),
        ]
    )


# -- deep trees ------------------------------------------------------------------------------
def _string(key: str, value: str) -> bytes:
    raw = value.encode() + b"\x00"
    return b"\x02" + key.encode() + b"\x00" + _i32(len(raw)) + raw


def _doc(elements: bytes) -> bytes:
    return _i32(len(elements) + 5) + elements + b"\x00"


def _guid(n: int) -> str:
    return f"{n:08x}-0000-0000-0000-000000000000"


def _member(key: str, member_id: int, data: bytes) -> bytes:
    """``key: {ID, Data}`` with ``data`` the Data element's type byte + value bytes."""
    body = _string("ID", _guid(member_id)) + data[:1] + b"Data\x00" + data[1:]
    return b"\x03" + key.encode() + b"\x00" + _doc(body)


def deep_tree(depth: int) -> bytes:
    """BSON of a Resonite-shaped tree that is one chain of ``depth`` nested slots, each with a
    name and a component whose ``Target`` references the slot's parent (a reference chain)."""
    prefixes: list[bytes] = []
    n = 0
    for level in range(depth):
        sid = n
        comp = _doc(
            b"\x10Type\x00"
            + _i32(0)
            + b"\x03Data\x00"
            + _doc(
                _string("ID", _guid(sid + 2))
                + _member("Enabled", sid + 3, b"\x08\x01")
                + _member(
                    "Target",
                    sid + 4,
                    b"\x02" + _i32(37) + _guid(max(sid - 6, 0)).encode() + b"\x00",
                )
            )
        )
        components = _member("Components", sid + 1, b"\x04" + _doc(b"\x030\x00" + comp))
        name = _member(
            "Name", sid + 5, b"\x02" + _i32(len(f"s{level}") + 1) + f"s{level}".encode() + b"\x00"
        )
        elements = (
            _string("ID", _guid(sid))
            + components
            + name
            + _string("ParentReference", _guid(sid + 6 + 1_000_000))
        )
        prefixes.append(elements)
        n += 6
    # Sizes bottom-up: slot_i = int32 + elements_i + Children array holding slot_{i+1}.
    sizes = [0] * (depth + 1)
    for level in range(depth - 1, -1, -1):
        inner = sizes[level + 1]
        array = 4 + (3 + inner if inner else 0) + 1
        sizes[level] = 4 + len(prefixes[level]) + 1 + len(b"Children\x00") + array + 1
    parts: list[bytes] = []
    for level in range(depth):
        inner = sizes[level + 1]
        array = 4 + (3 + inner if inner else 0) + 1
        parts.append(
            _i32(sizes[level])
            + prefixes[level]
            + b"\x04Children\x00"
            + _i32(array)
            + (b"\x030\x00" if inner else b"")
        )
    parts.append(b"\x00\x00" * depth)  # each level closes its array, then itself
    obj = b"".join(parts)
    types = _doc(_string("0", "[FrooxEngine]FrooxEngine.ReferenceField<slot>"))
    root = (
        _string("VersionNumber", "2025.6.17.855")
        + b"\x04Types\x00"
        + types
        + b"\x03Object\x00"
        + obj
    )
    return _doc(root)


def nested_arrays(depth: int) -> bytes:
    """An element value of ``depth`` nested arrays (type byte + value), innermost empty."""
    inner = _doc(b"")
    for _ in range(depth):
        inner = _doc(b"\x040\x00" + inner)
    return b"\x04" + inner


# -- the CLI in-process -------------------------------------------------------------------------
def run_cli(args: list[str], seconds: float = 60) -> tuple[int, str, str]:
    """``brson ARGS`` in this process: exit code, stdout, stderr.  Only sys.stdout/stderr are
    redirected: the rich consoles follow them (setting their ``file`` would pin them)."""
    import contextlib
    import io

    from brson.cli.app import main

    from .test_depth import time_bound

    out, err = io.StringIO(), io.StringIO()
    with time_bound(seconds), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


# -- subprocess measurement --------------------------------------------------------------------
CHILD_PRELUDE = """
import json, resource, sys
import brson, brson.errors
def peak():
    # VmHWM, not ru_maxrss where it exists: on Linux, ru_maxrss keeps the high-water mark of
    # the image before exec, i.e. of the (large) pytest process this child was forked from.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
def outcome(fn):
    try:
        fn()
        return "ok"
    except brson.errors.BrsonError as exc:
        return type(exc).__name__ + ": " + str(exc)[:200]
"""


def run_child(body: str, *args: str, timeout: float = 120) -> dict[str, Any]:
    """Run ``body`` (after :data:`CHILD_PRELUDE`) in a fresh interpreter; it must end by
    printing one JSON object.  Returns it; its own peak RSS is the honest memory figure."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD_PRELUDE + body, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=PROJECT_ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))
