"""Hostile input: whatever the bytes, reading ends in a result or a BrsonError, nothing else.

Real samples and fixtures are mutated (bit flips, truncation, insertion, deletion, overwrites,
concentrated on the headers where the lengths live) and fed to ``unpack`` then
``bson.decode``, under a small size limit so a mutation that inflates a length cannot make a
test slow.  A second, exhaustive pass covers every truncation and every header bit flip of the
small files, which random mutation might miss.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brson.container import unpack
from brson.document import bsondoc
from brson.errors import BrsonError
from tests.tiers import examples

from .support import FIXTURES, real_files

MAX_SIZE = 4 << 20
NAMES = [None, "x.brson", "x.7zbson", "x.lz4bson", "x.bson", "x.unknown"]

#: Inputs: every real file and every fixture except the bombs (a mutated bomb only hits the
#: limit again, after spending the time to get there).
INPUTS: dict[str, bytes] = {
    p.name: p.read_bytes()
    for p in real_files() + sorted(FIXTURES.glob("*.*son"))
    if not p.name.startswith("bomb")
}
SMALL = sorted(n for n in INPUTS if n.startswith(("tiny", "neos", "stored", "misnamed")))


def read(data: bytes, name: str | None) -> None:
    """The reader under test; only BrsonError may leave it."""
    try:
        _, raw = unpack(data, name, MAX_SIZE)
        bsondoc.decode(raw)
    except BrsonError:
        pass


@st.composite
def mutations(draw: st.DrawFn) -> tuple[bytes, str | None]:
    name = draw(st.sampled_from(sorted(INPUTS)))
    data = bytearray(INPUTS[name])
    for _ in range(draw(st.integers(1, 4))):
        # Half the edits land in the first 40 bytes: headers, varints, length prefixes.
        pos = draw(st.one_of(st.integers(0, 40), st.integers(0, 1 << 20))) % (len(data) + 1)
        op = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "overwrite"]))
        if op == "flip" and pos < len(data):
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "truncate":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 64))]
        elif op == "overwrite":
            chunk = draw(
                st.sampled_from(
                    [
                        b"\xff" * 4,
                        b"\x00" * 4,
                        b"\x7f\xff\xff\xff",
                        b"\x80\x80\x80\x80\x80",
                        b"FrDT",
                    ]
                )
            )
            data[pos : pos + len(chunk)] = chunk
    as_name = draw(st.sampled_from([name, *NAMES]))
    return bytes(data), as_name


@pytest.mark.slow
@given(mutations())
@settings(max_examples=examples(500), suppress_health_check=[HealthCheck.too_slow])
def test_mutated_inputs_raise_only_brson_errors(case: tuple[bytes, str | None]) -> None:
    read(*case)


@given(st.binary(max_size=64), st.sampled_from(NAMES))
@settings(max_examples=examples(300))
def test_random_bytes_raise_only_brson_errors(data: bytes, name: str | None) -> None:
    read(data, name)


@given(st.binary(max_size=48), st.sampled_from([0, 1, 2, 3]), st.sampled_from(NAMES))
@settings(max_examples=examples(300))
def test_random_payload_after_frdt_header(payload: bytes, kind: int, name: str | None) -> None:
    """A correct header in front of garbage: each codec's own validation must hold."""
    read(b"FrDT\0\0\0\0" + bytes([kind]) + payload, name)


@pytest.mark.parametrize("name", SMALL)
def test_every_truncation_and_header_flip(name: str) -> None:
    data = INPUTS[name]
    path = Path(name)
    for cut in range(len(data)):
        read(data[:cut], path.name)
    for pos in range(min(len(data), 40)):
        for bit in range(8):
            flipped = bytearray(data)
            flipped[pos] ^= 1 << bit
            read(bytes(flipped), path.name)
            read(bytes(flipped), None)
