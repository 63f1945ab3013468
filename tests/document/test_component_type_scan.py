"""The component ``Type`` patterns start at the key (for the matcher's literal search): they
must find what the leading-type-byte form of the same rule finds, with the same groups."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brson.document import raw
from tests.tiers import examples

#: The rule as first written, starting at the element's type byte.
LEADING_INDEX = re.compile(rb"(?:\x10Type\x00(.{4})|\x12Type\x00(.{8}))\x03Data\x00", re.DOTALL)
LEADING_NAME = re.compile(rb"\x02Type\x00.{4}([^\x00]*)\x00\x03Data\x00", re.DOTALL)

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
FIXTURES = PROJECT_ROOT / "fixtures"

#: Pieces that make near-misses and real matches likely when strung together.
PIECES = st.sampled_from(
    [
        b"\x10Type\x00",
        b"\x12Type\x00",
        b"\x02Type\x00",
        b"Type\x00",
        b"\x03Data\x00",
        b"Data\x00",
        b"\x00",
        b"\x10",
        b"\x12",
        b"\x02",
        struct.pack("<i", 3),
        struct.pack("<q", 7),
        b"Mesh",
    ]
)


def _same(data: bytes) -> None:
    index = [(m.span(1), m.span(2), m.end()) for m in LEADING_INDEX.finditer(data)]
    assert index == [
        (m.span(1), m.span(2), m.end()) for m in raw.COMPONENT_TYPE_INDEX.finditer(data)
    ]
    names = [(m.span(1), m.end()) for m in LEADING_NAME.finditer(data)]
    assert names == [(m.span(1), m.end()) for m in raw.COMPONENT_TYPE_NAME.finditer(data)]
    assert raw.component_type_indices(data) == [
        (m.start(1), 4, struct.unpack_from("<i", data, m.start(1))[0])
        if m.group(1) is not None
        else (m.start(2), 8, struct.unpack_from("<q", data, m.start(2))[0])
        for m in LEADING_INDEX.finditer(data)
    ]
    # The set extract's type plan takes from findall's groups: the same indices.
    found = raw.COMPONENT_TYPE_INDEX.findall(data)
    assert raw.type_index_values(found) == {i for _, _, i in raw.component_type_indices(data)}
    # Extract's one scan for both, where the bytes lie (here the whole): the same answers.
    named = set(raw.COMPONENT_TYPE_NAME.findall(data))
    assert raw.component_types(data, [(0, len(data))]) == (raw.type_index_values(found), named)


@pytest.mark.slow
@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.one_of(PIECES, st.binary(max_size=6)), max_size=40))
def test_generated_bytes(parts: list[bytes]) -> None:
    _same(b"".join(parts))


def test_name_inside_a_wide_index() -> None:
    """A type name can start inside an int64 index's free bytes: the one scan looks for
    names there too (the index match hides the name's start from its name branch)."""
    data = b"\x12Type\x00" + b"!\x02Type\x00!" + b"\x03Data\x00" + b"\x03Data\x00"
    assert raw.COMPONENT_TYPE_NAME.findall(data) == [b"ta"]
    assert len(raw.COMPONENT_TYPE_INDEX.findall(data)) == 1
    _same(data)
    # Narrow indices leave no room: their free bytes and ``\x03Data`` hold no name's NUL.
    _same(b"\x10Type\x00" + b"\x02Typ" + b"\x03Data\x00" + b"\x03Data\x00")


def test_files() -> None:
    """Every sample and fixture file's bytes as they are (BSON inside containers included:
    the scans run over whatever they are given)."""
    files = sorted(p for d in (SAMPLES, FIXTURES) if d.is_dir() for p in d.rglob("*"))
    for path in files:
        if path.is_file() and path.stat().st_size < 8 << 20:
            _same(path.read_bytes())
