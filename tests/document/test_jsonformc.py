"""The compiled JSON form renderer writes exactly what the Python renderer writes.

Differential: ``brson._speedups._jsonformc`` renders a BSON document's JSON form (and its
``$numbers`` record) from the bytes; the reference is the Python path of
:mod:`brson.document.jsonform` (pymongo's decoder, then ``_Renderer``). Where C answers, the
texts must be equal; where the Python path refuses (or decodes to something C does not
render), C must not answer: it returns None and the caller runs the Python path, so errors
have one source. Inputs: every real sample and fixture, hypothesis-generated documents, the
shapes C refuses one by one, and the samples' bytes mutated.
"""

from __future__ import annotations

import random
import struct
from typing import Any

import bson
import pytest
from bson.int64 import Int64
from hypothesis import HealthCheck, given, settings

from brson._speedups import built
from brson.document import bsondoc, jsonform
from brson.errors import BrsonError
from tests.conftest import SAMPLES
from tests.differential import check_built, loadable_trees
from tests.document.test_jsonform import _documents, values
from tests.tiers import examples, sweep

JSONFORMC = built("_jsonformc")
needs_c = pytest.mark.skipif(JSONFORMC is None, reason="the C JSON form renderer is not built")
TREES = loadable_trees()
CONTAINER = {"framing": "frdt", "codec": "brotli"}


def test_renderer_built_in_ci() -> None:
    check_built(JSONFORMC, jsonform.ACCELERATED, "brson._speedups._jsonformc")


def _form(data: bytes, compiled: bool, indent: int | None, container: Any, numbers: bool) -> str:
    """``write_bson``'s text, through the C renderer or (``compiled=False``) Python's."""
    parts: list[str] = []
    renderer = jsonform._Renderer(indent, [])
    renderer.flush_to = parts.append
    renderer.numbers = numbers
    renderer.compiled = compiled
    renderer.bson_document(data, container)
    renderer.flush()
    return "".join(parts)


def _python_form(data: bytes, *args: Any) -> str | None:
    try:
        return _form(data, False, *args)
    except BrsonError:
        return None


def _renders(data: bytes) -> bool:
    """Whether C takes the document (rather than leaving it to the Python path)."""
    assert JSONFORMC is not None
    return JSONFORMC.renderer(data, 1, 0, True, True, ", ") is not None


def assert_same(data: bytes, *, taken: bool | None = None) -> None:
    """C's text is Python's in every layout; ``taken``: whether C must render it itself."""
    if taken is not None:
        assert _renders(data) is taken
    for indent in (1, None, 3):
        for container in (None, CONTAINER):
            for numbers in (True, False):
                args = (indent, container, numbers)
                expected = _python_form(data, *args)
                if expected is None:  # refused by Python: C must have left it alone
                    assert not _renders(data)
                    continue
                assert _form(data, True, *args) == expected


@pytest.mark.slow
@needs_c
@pytest.mark.parametrize("name", sorted(TREES))
def test_every_sample_and_fixture(name: str) -> None:
    data = TREES[name].to_bson()
    assert_same(data)


@needs_c
def test_real_samples_are_rendered_in_c() -> None:
    """The engine's own files take the compiled path (a refusal would be slow, not wrong)."""
    real = [path.name for path in SAMPLES.iterdir() if path.name in TREES]
    assert len(real) >= 4
    for name in real:
        assert _renders(TREES[name].to_bson()), name


@needs_c
@pytest.mark.slow
@given(_documents(values))
@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
def test_generated_documents(doc: dict[str, Any]) -> None:
    assert_same(bsondoc.encode(doc))


def _doc(body: bytes) -> bytes:
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def _elements(**fields: Any) -> bytes:
    return bson.encode(fields)[4:-1]


@needs_c
@pytest.mark.parametrize(
    "doc",
    [
        {"a": 'tab\there "quoted" back\\slash \x00\x01\x1f\x7f é 日本 \U0001f600'},
        {"a": [-0.0, 5e-324, 1e16, 1e22, 0.1, 1.5e-7, 1e308, float("inf"), -float("inf")]},
        {"a": [float("nan"), struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000000))[0]]},
        {"a": [struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000001))[0]]},
        {"a": [Int64(-(2**63)), Int64(2**63 - 1), -(2**31), 2**31 - 1, True, False, None]},
        {"$first": 1, "b": {"$x": 2, "y": [{"$document": {}}]}},
        {"a": {}, "b": [], "c": [[], [{}]], "d": {"e": {}}},
        {"ID": "root", "x": 1.0, "c": [{"ID": "a", "v": [1.0, 2], "k": {"ID": "b", "w": 3}}]},
        {"x": {"ID": 5, "v": 1.0}, "y": {"v": 2.0, "ID": "late"}, "z": {"ID": "", "v": 1}},
        {"$numbers": 1, "a": 2.5},
        {"a": 1, "$numbers": {"root": "", "elements": []}},
        {"a": {"$ref": "c", "$id": 1}, "b": {"x": 1, "$ref": "y", "$id": 2.0}},
    ],
    ids=[
        "escapes",
        "doubles",
        "nans",
        "nan-payload",
        "ints",
        "dollar-keys",
        "empties",
        "elements",
        "element-rule",
        "numbers-key-first",
        "numbers-key-later",
        "dbref-shapes",
    ],
)
def test_edge_documents(doc: dict[str, Any]) -> None:
    assert_same(bsondoc.encode(doc), taken=True)


@needs_c
@pytest.mark.parametrize(
    "data",
    [
        _doc(b"\x02a\x00" + struct.pack("<i", 3) + b"\xc3\x28\x00"),  # bad UTF-8 value
        _doc(b"\x02a\x00" + struct.pack("<i", 4) + b"\xed\xa0\x80\x00"),  # a surrogate
        _doc(b"\x02a\x00" + struct.pack("<i", 3) + b"\xc0\xaf\x00"),  # overlong
        _doc(b"\x02a\x00" + struct.pack("<i", 5) + b"\xf4\x90\x80\x80\x00"),  # past U+10FFFF
        _doc(b"\x10\xff\x00" + struct.pack("<i", 1)),  # bad UTF-8 key
        _doc(_elements(a=1) + _elements(a=2)),  # duplicate keys, compared pairwise
        _doc(b"".join(_elements(**{f"k{i}": i}) for i in range(40)) + _elements(k7=0)),
        _doc(b"\x08a\x00\x02"),  # a boolean that is neither 0 nor 1
        bson.encode({"a": bson.Binary(b"x")}),  # types the engine does not write
        bson.encode({"a": bson.ObjectId()}),
        bson.encode({"a": bson.Regex("x")}),
        _doc(b"\x02a\x00" + struct.pack("<i", 2) + b"xx"),  # a string without its NUL
        _doc(b"\x03a\x00" + struct.pack("<i", 99) + b"\x00"),  # a length past the end
    ],
    ids=[
        "utf8",
        "surrogate",
        "overlong",
        "past-max",
        "key-utf8",
        "dup-pairwise",
        "dup-hashed",
        "bool",
        "binary",
        "objectid",
        "regex",
        "no-nul",
        "overrun",
    ],
)
def test_refused_documents_take_the_python_path(data: bytes) -> None:
    assert not _renders(data)
    assert_same(data)


@needs_c
def test_empty_document() -> None:
    """Rendered by the Python path (its top object is the form's, with no record), the same."""
    assert_same(b"\x05\x00\x00\x00\x00")


def _nested(depth: int) -> bytes:
    """``depth`` nested documents in all, the top one included."""
    inner = b"\x05\x00\x00\x00\x00"
    for _ in range(depth - 2):
        inner = _doc(b"\x03a\x00" + inner)
    return _doc(b"\x03a\x00" + inner)


@needs_c
def test_nesting_past_the_limit_takes_the_python_path() -> None:
    assert _renders(_nested(256)) and not _renders(_nested(257))
    assert_same(_nested(256))
    assert_same(_nested(257))
    assert _python_form(_nested(jsonform.MAX_DEPTH + 1), 1, None, True) is None


@pytest.mark.slow
@needs_c
def test_pieces_and_record_of_a_big_document() -> None:
    """Tiny pieces and a record of several pieces (each at most a quarter MiB) give the
    same text as one piece: the resumable stack and the record's cuts lose nothing.  More
    slots than the Python record joins in one chunk (4,096 pairs), with IDs long enough that
    their pairs fill more than one of C's pieces: the reference renders every layout of them,
    at a cost per element, so no more slots than that."""
    pad = "-" + "0123456789abcdef" * 4
    slots = [{"ID": f"id{i:06d}{pad}", "v": [float(i), i], "n": f"slot {i}"} for i in range(4300)]
    data = bsondoc.encode({"Object": {"ID": "root", "Children": slots}, "x": 1})
    assert_same(data, taken=True)
    assert JSONFORMC is not None
    items = JSONFORMC.renderer(data, 1, 0, True, True, ",\n   ")
    assert items is not None
    text = "".join(iter(lambda: items.render(1), ""))
    root, pieces = items.record()
    assert root == "i" and len(pieces) > 1
    whole = JSONFORMC.renderer(data, 1, 0, True, True, ",\n   ")
    assert whole is not None
    assert whole.render(1 << 30) == text and whole.render(1 << 30) == ""
    assert whole.record() == (root, pieces)


@needs_c
@pytest.mark.slow
def test_mutated_samples() -> None:
    """Flipped and truncated bytes: C renders what Python renders, or leaves it alone."""
    rng = random.Random(29)
    names = sorted(TREES)
    for _ in range(sweep(300, 75)):
        data = bytearray(TREES[rng.choice(names)].to_bson())
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.2:
            cut = rng.randrange(5, len(data))
            data = data[:cut]
            data[:4] = struct.pack("<i", cut)
        mutated = bytes(data)
        if not _renders(mutated):
            continue
        expected = _python_form(mutated, 1, CONTAINER, True)
        assert expected is not None
        assert _form(mutated, True, 1, CONTAINER, True) == expected
