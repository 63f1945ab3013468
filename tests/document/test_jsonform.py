"""The lossless JSON form: BSON -> JSON text -> BSON must give back the identical bytes.

Checked on every real file and fixture, on hand-picked edge values, and on hypothesis-made
documents (nested documents and arrays, int32/int64 at their edges, every kind of double,
unicode, keys that look like the form's own ``$`` tags).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bson
import pytest
from bson.int64 import Int64
from container.support import FIXTURES, real_files, real_ids
from hypothesis import given, settings
from hypothesis import strategies as st

from brson.container import unpack
from brson.document import bsondoc, jsonform
from brson.errors import DocumentError
from tests.tiers import examples

ROUND_TRIP_FILES = real_files() + sorted(
    p for p in FIXTURES.glob("*.*son") if p.name.startswith(("tiny", "neos", "multi", "stored"))
)


def assert_json_round_trip(raw: bytes) -> str:
    """BSON bytes -> decode -> JSON text -> loads -> encode: identical bytes, strict JSON."""
    doc = bsondoc.decode(raw)
    for indent in (1, None):
        text = jsonform.dumps(doc, indent=indent)
        json.loads(text, parse_constant=_no_constants)  # no NaN/Infinity literals
        assert bsondoc.encode(jsonform.loads(text)) == raw
        assert bsondoc.encode(jsonform.loads(text.encode())) == raw
    return text


def _no_constants(name: str) -> Any:
    raise AssertionError(f"non-standard JSON constant {name}")


@pytest.mark.parametrize("path", ROUND_TRIP_FILES, ids=real_ids(ROUND_TRIP_FILES))
def test_json_form_round_trip_on_files(path: Path) -> None:
    _, raw = unpack(path.read_bytes(), path.name)
    assert_json_round_trip(raw)


def _double(hex_bits: str) -> float:
    value: float = struct.unpack(">d", bytes.fromhex(hex_bits))[0]
    return value


EDGE_DOCS: dict[str, dict[str, Any]] = {
    "int32 edges": {"min": -(2**31), "max": 2**31 - 1, "zero": 0, "minus one": -1},
    "int64 edges": {
        "min": Int64(-(2**63)),
        "max": Int64(2**63 - 1),
        "zero": Int64(0),
        "just above int32": Int64(2**31),
        "just below int32": Int64(-(2**31) - 1),
        "small": Int64(7),
    },
    "doubles": {
        "-0": -0.0,
        "0": 0.0,
        "1": 1.0,
        "third": 1 / 3,
        "min subnormal": 5e-324,
        "-min subnormal": -5e-324,
        "max subnormal": _double("000fffffffffffff"),
        "min normal": 2.2250738585072014e-308,
        "max": 1.7976931348623157e308,
        "inf": math.inf,
        "-inf": -math.inf,
        "nan": math.nan,
        "-nan": _double("fff8000000000000"),
        "signalling nan": _double("7ff0000000000001"),
        "payload nan": _double("7ff8dead0000beef"),
        "big int as double": 2.0**63,
    },
    "unicode": {
        "": "",
        "日本語": "ﾃｽﾄ",
        "emoji 🦊": "🦊\u200d",
        "nul in value": "a\x00b",
        "é": "e\u0301",
        "@uri": "@packdb:///abc",
        "@@literal": "@@x",
    },
    "dollar keys": {
        "$numberLong": 1,
        "plain": {"$numberLong": "5"},
        "x": {"$document": {}},
        "y": {"$numberDouble": "NaN"},
        "z": {"$bits": "00"},
        "w": {"$": None},
        "v": {"a": 1, "$numberLong": "2"},
    },
    "only $numberLong": {"$numberLong": "123"},
    "only $numberLong int": {"$numberLong": 123},
    "only $document": {"$document": {"$document": {"$numberLong": "1"}}},
    "nested": {"a": [[], {}, [[1, [Int64(2)]]], {"b": [None, True, False, 1.5]}]},
    "engine member": {"ID": "00000004-0000-0000-0000-000000000000", "Data": Int64(0)},
}


@pytest.mark.parametrize("name", sorted(EDGE_DOCS))
def test_json_form_round_trip_edges(name: str) -> None:
    assert_json_round_trip(bsondoc.encode(EDGE_DOCS[name]))


def test_json_form_spelling() -> None:
    """What users see: int64 tagged, doubles never look like integers, non-finite tagged."""
    text = jsonform.dumps({"i": 1, "l": Int64(1), "d": 1.0, "n": math.nan, "e": 1e300}, indent=None)
    assert json.loads(text) == {
        "i": 1,
        "l": {"$numberLong": "1"},
        "d": 1.0,
        "n": {"$numberDouble": "NaN"},
        "e": 1e300,
    }
    assert '"d": 1.0' in text


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1, 2]",
        '{"a": {"$numberLong": "x"}}',
        '{"a": {"$document": {"b": 1}, "c": 2}}',
        '{"a": {"$document": 5}}',
        '{"a": {"$numberDouble": "NaN", "$bits": "zz"}}',
        '{"a": {"$numberDouble": "nope"}}',
        "[" * 100_000 + "]" * 100_000,
        b"\xff\xfe{}",
    ],
)
def test_json_form_rejects_with_document_error(text: str | bytes) -> None:
    with pytest.raises(DocumentError):
        bsondoc.encode(jsonform.loads(text))


# --------------------------------------------------------------------------------------------
# Hypothesis documents.

KEY_SAMPLES = [
    "ID",
    "Data",
    "$numberLong",
    "$numberDouble",
    "$document",
    "$bits",
    "$x",
    "$",
    "$ref",
    "$id",
    "$db",
    "$regex",
    "$options",
    "$oid",
    "$date",
    "",
    "é",
    "日本",
    "@",
    "persistent-ID",
    "0",
]
keys = st.one_of(
    st.sampled_from(KEY_SAMPLES),
    st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8),
)

int32s = st.one_of(
    st.sampled_from([-(2**31), 2**31 - 1, 0, -1, 1]), st.integers(-(2**31), 2**31 - 1)
)
int64s = st.one_of(
    st.sampled_from([-(2**63), 2**63 - 1, 0, 2**31, -(2**31) - 1, 2**31 - 1, -(2**31)]),
    st.integers(-(2**63), 2**63 - 1),
).map(Int64)
nan_bits = st.tuples(st.integers(0, 1), st.integers(1, 2**52 - 1)).map(
    lambda sm: struct.unpack("<d", struct.pack("<Q", sm[0] << 63 | 0x7FF << 52 | sm[1]))[0]
)
doubles = st.one_of(
    st.floats(),
    st.sampled_from([-0.0, 5e-324, -5e-324, math.inf, -math.inf, math.nan, 1e308]),
    nan_bits,
)
scalars = st.one_of(int32s, int64s, doubles, st.text(max_size=12), st.booleans(), st.none())


def _documents(values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts in drawn key order, ``$``-first and DBRef-shaped ones included: the JSON form
    wraps them in ``$document`` and the decoder keeps them plain, so no shape is excluded
    (the shapes that once failed also have their own cases below)."""
    return st.lists(st.tuples(keys, values), max_size=6, unique_by=lambda kv: kv[0]).map(dict)


values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), _documents(inner)),
    max_leaves=20,
)


@pytest.mark.slow
@given(_documents(values))
@settings(max_examples=examples(150))
def test_json_form_round_trip_generated(doc: dict[str, Any]) -> None:
    raw = bsondoc.encode(doc)
    assert bsondoc.encode(bsondoc.decode(raw)) == raw
    assert_json_round_trip(raw)


# --------------------------------------------------------------------------------------------
# Shapes that once failed (kept as named cases).


@pytest.mark.parametrize(
    "inner",
    [
        {"$numberDouble": "NaN", "$bits": "7ff8000000000001"},
        {"$regex": "a", "$options": ""},
        {"$numberLong": "1", "$x": 2},
        {"$document": {"b": 1}, "$y": 1},
    ],
    ids=["numberDouble+bits", "regex+options", "numberLong+x", "document+y"],
)
def test_json_form_dollar_first_multi_key_documents(inner: dict[str, Any]) -> None:
    assert_json_round_trip(bsondoc.encode({"a": inner}))


@pytest.mark.parametrize(
    "inner",
    [{"$id": 1, "$ref": "x"}, {"x": 1, "$ref": "y", "$id": 2}, {"$id": 2, "$ref": "y", "$db": "z"}],
    ids=["id-ref", "x-ref-id", "id-ref-db"],
)
def test_bson_dbref_shaped_documents_keep_key_order(inner: dict[str, Any]) -> None:
    raw = bson.encode({"a": inner})
    assert bsondoc.encode(bsondoc.decode(raw)) == raw


# --------------------------------------------------------------------------------------------
# The streaming writer (to-json) and the in-place reader (from-json) against the reference:
# json.dumps of to_jsonable's tagged copy, and from_jsonable's copy.


def _reference(doc: dict[str, Any], indent: int | None, container: Any = None) -> str:
    form = jsonform.to_jsonable(doc)
    if container is not None:
        form = {jsonform.CONTAINER_KEY: container, **form}
    return json.dumps(form, indent=indent, ensure_ascii=False, allow_nan=False)


def _streamed(raw: bytes, indent: int | None, container: Any = None, chunk: int = 16) -> str:
    """write_bson with a tiny chunk size, so every container is walked element by element
    and runs of elements are decoded apart, as in a big world."""
    parts: list[str] = []
    jsonform.write_bson(raw, parts.append, indent, container, chunk=chunk)
    return "".join(parts)


@pytest.mark.slow
@given(_documents(values), st.sampled_from([None, {"framing": "frdt", "codec": "lz4"}]))
@settings(max_examples=examples(150))
def test_streamed_form_is_the_reference_text(doc: dict[str, Any], container: Any) -> None:
    raw = bsondoc.encode(doc)
    decoded = bsondoc.decode(raw)
    for indent in (1, None, 3):
        expected = _reference(decoded, indent, container)
        assert jsonform.dumps(decoded, indent, container) == expected
        for chunk in (16, 200, 1 << 16):
            assert _streamed(raw, indent, container, chunk) == expected


@pytest.mark.parametrize("path", ROUND_TRIP_FILES, ids=real_ids(ROUND_TRIP_FILES))
def test_streamed_form_of_files_is_the_reference_text(path: Path) -> None:
    _, raw = unpack(path.read_bytes(), path.name)
    decoded = bsondoc.decode(raw)
    record = {"framing": "frdt", "codec": "brotli"}
    assert _streamed(raw, 1, record, chunk=512) == _reference(decoded, 1, record)


@pytest.mark.slow
@given(_documents(values))
@settings(max_examples=examples(150))
def test_in_place_reader_is_from_jsonable(doc: dict[str, Any]) -> None:
    raw = bsondoc.encode(doc)
    text = jsonform.dumps(bsondoc.decode(raw))
    in_place = bsondoc.encode(jsonform.loads(text))
    assert in_place == bsondoc.encode(jsonform.from_jsonable(json.loads(text))) == raw
    assert bsondoc.encode(jsonform.loads(jsonform.decode_text(text.encode("utf-16")))) == raw


def _nested_arrays(depth: int) -> bytes:
    """{"a": [[...[]...]]}: ``depth`` documents and arrays in all, the top one included."""
    inner = b"\x05\x00\x00\x00\x00"
    for _ in range(depth - 2):
        inner = struct.pack("<i", len(inner) + 8) + b"\x040\x00" + inner + b"\x00"
    body = b"\x04a\x00" + inner
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def test_depth_limit_is_the_same_for_every_writer() -> None:
    """MAX_DEPTH levels convert, one more is a DocumentError, whether the document is decoded
    first (dumps), streamed whole, or walked element by element."""
    for depth, ok in ((jsonform.MAX_DEPTH, True), (jsonform.MAX_DEPTH + 1, False)):
        raw = _nested_arrays(depth)
        writers: list[Callable[[bytes], str]] = [
            lambda data: jsonform.dumps(bsondoc.decode(data)),
            lambda data: _streamed(data, 1, chunk=1 << 16),
            lambda data: _streamed(data, 1, chunk=16),
        ]
        for write in writers:
            if ok:
                assert write(raw).count("[") == depth - 1
            else:
                with pytest.raises(DocumentError, match="too deep for the JSON form"):
                    write(raw)


@pytest.mark.slow  # 100 generated documents both ways: about 3.5 s of CPU
@given(_documents(values))
@settings(max_examples=examples(100))
def test_number_record_streamed_and_whole_agree(doc: dict[str, Any]) -> None:
    """The ``$numbers`` record is the same whether the document is walked in chunks or
    rendered whole, and reading it back gives the identical BSON."""
    raw = bsondoc.encode(doc)
    decoded = bsondoc.decode(raw)
    whole = jsonform.dumps(decoded, 1, {"framing": "frdt", "codec": "none"}, numbers=True)
    for chunk in (16, 200, 1 << 16):
        parts: list[str] = []
        jsonform.write_bson(raw, parts.append, 1, {"framing": "frdt", "codec": "none"}, chunk, True)
        assert "".join(parts) == whole
    form = jsonform.loads_form(whole)
    assert form.numbers is not None and form.numbers.notes() == []
    assert bsondoc.encode(form.doc) == raw


def test_number_record_restores_integral_doubles() -> None:
    """What jq 1.6 prints for doubles (``1``, ``-0``, ``100000``) comes back as the doubles."""
    doc = {"Object": {"ID": "A", "Data": [1.0, -0.0, 1e5, 7]}, "Top": 2.0}
    text = jsonform.dumps(doc, numbers=True)
    printed = text.replace("1.0", "1").replace("-0.0", "-0").replace("100000.0", "100000")
    printed = printed.replace("2.0", "2")
    form = jsonform.loads_form(printed)
    assert bsondoc.encode(form.doc) == bsondoc.encode(doc)
    assert math.copysign(1.0, form.doc["Object"]["Data"][1]) == -1.0
    assert form.numbers is not None and form.numbers.doubles == 3  # -0 reads as -0.0 itself


def test_document_holding_the_record_key_is_wrapped() -> None:
    doc = {"a": 1.0, "$numbers": {"root": ""}}
    text = jsonform.dumps(doc, numbers=True)
    assert json.loads(text)["$document"] == {"a": 1.0, "$numbers": {"root": ""}}
    assert bsondoc.encode(jsonform.loads(text)) == bsondoc.encode(doc)
    with pytest.raises(DocumentError):
        jsonform.loads('{"a": 1, "$numbers": {"root": "x", "elements": {}}}')


def test_record_making_a_huge_integer_a_double_is_a_document_error() -> None:
    """An integer past a double's range where the record says ``d``: one error, not an
    OverflowError (from-json's "internal error")."""
    text = (
        '{"a": {"ID": "e", "v": 1'
        + "0" * 400
        + '}, "$numbers": {"root": "", "elements": [["e", "d"]]}}'
    )
    with pytest.raises(DocumentError, match="recorded as a double"):
        jsonform.loads_form(text)
