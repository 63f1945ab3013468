"""The C accelerator of raw.py's byte loops answers exactly as the pure-Python functions do.

Differential: each C function (``brson._speedups._rawc``) and its pure-Python reference
(``raw.index_py``, ...) are called on the same arguments and must give the same outcome: an
equal value of the same types in the same order, or the same error (C hands every input it
is not sure of to the Python function, so errors have one source). Inputs: every document of
every real sample and fixture, the same bytes mutated and truncated, random bytes, and
arguments Python accepts in odd ways (negative offsets, spans past the buffer, bytearray).
"""

from __future__ import annotations

import os
import random
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import bson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brson._speedups import PURE_PYTHON, built
from brson.document import raw
from brson.errors import BrsonError
from tests.conftest import SAMPLES
from tests.differential import check_built, covering, part_trees_bson, sample_parts
from tests.tiers import examples, sweep


def _load_rawc() -> ModuleType | None:
    _rawc = built("_rawc")
    if _rawc is None:
        return None
    # raw.py registers these when it uses C; under BRSON_PURE_PYTHON it does not load C.
    _rawc.set_fallbacks(
        raw.index_py,
        raw.index_as_py,
        raw.member_data_py,
        raw.member_index_py,
        raw.array_items_py,
        raw.component_index_py,
    )
    return _rawc


RAWC = _load_rawc()
needs_c = pytest.mark.skipif(RAWC is None, reason="the C accelerator is not built")

#: (name, C function, pure function) for the functions of (buf, start, end).
NAMES = ("index", "member_data", "member_index", "array_items", "component_index")


def test_accelerator_built_in_ci() -> None:
    check_built(RAWC, raw.ACCELERATED, "brson._speedups._rawc")
    if raw.ACCELERATED:
        assert RAWC is not None and raw.index is RAWC.index


def test_pure_python_forced() -> None:
    """BRSON_PURE_PYTHON=1 gives the pure functions (the second pytest pass of `make test`)."""
    if PURE_PYTHON:
        assert not raw.ACCELERATED
        assert raw.index is raw.index_py
        assert raw.array_items is raw.array_items_py


def outcome(fn: Callable[..., Any], *args: Any) -> tuple[str, str]:
    """What a call gives: its value's repr (order, types: True is not 1) or its error."""
    try:
        value = fn(*args)
    except BrsonError as exc:
        return ("error", f"{type(exc).__name__}: {exc} @ {exc.offset}")
    except Exception as exc:  # the pure functions' own behaviour on odd arguments
        return ("raised", f"{type(exc).__name__}: {exc}")
    return ("value", repr(value))


def same(name: str, *args: Any) -> None:
    assert RAWC is not None
    c = outcome(getattr(RAWC, name), *args)
    py = outcome(getattr(raw, f"{name}_py"), *args)
    assert c == py, (name, args[1:])


def same_all(buf: Any, start: Any, end: Any, layouts: tuple[Any, ...] = ()) -> None:
    for name in NAMES:
        same(name, buf, start, end)
    for layout in layouts:
        same("index_as", buf, start, end, layout)


# -- the documents of real files -----------------------------------------------------------


def _buffers() -> Iterator[tuple[str, bytes]]:
    """The BSON of every sample and fixture that reads, and the raw bytes of every file."""
    trees = part_trees_bson()
    for name, part in sample_parts():
        yield name, part
        if name in trees:
            yield f"{name} (BSON)", trees[name]


BUFFERS = dict(_buffers())
REAL = {name: buf for name, buf in BUFFERS.items() if name.endswith("(BSON)")}


def spans(buf: bytes, start: int, end: int, depth: int = 0) -> Iterator[tuple[int, int]]:
    """Every document and array span under ``buf[start:end]`` (pure index), itself first."""
    yield start, end
    if depth > 60:
        return
    try:
        items = raw.index_py(buf, start, end).values()
    except BrsonError:
        return
    for etype, _, vstart, vend in items:
        if etype in (raw.DOCUMENT, raw.ARRAY):
            yield from spans(buf, vstart, vend, depth + 1)


def layout_or_empty(buf: bytes, start: int, end: int) -> raw.Layout:
    try:
        return raw.layout_of(raw.index_py(buf, start, end))
    except BrsonError:
        return ()


#: The files and trees walked whole besides the samples' (:func:`covering`): the other
#: fixtures' cases reach no line or branch of the C index, its Python twin or this module that
#: these do not.
EVERY_FILE = covering(
    BUFFERS,
    [
        "BR106_bad_element_type.brson (BSON)",
        "header_only.brson",
        "neos_legacy.lz4bson",
        "sql-no-statement.bin",
        "truncated.bson",
    ],
)
#: The trees mutated besides the samples' (:func:`covering`): the other fixtures' cases reach
#: no line or branch of the C index, its Python twin or this module that these do not.
MUTATED = covering(
    REAL,
    [
        "BR106_bad_element_type.brson (BSON)",
        "BR404_parent_reference_loop.brson (BSON)",
        "BR703_node_in_assets.brson (BSON)",
        "test_avatar.resonitepackage:Assets/"
        "9d45204d9a5377cbe10dbfbff444eb13769b2ee059fa4777688f20ecd183230f (BSON)",
        "tiny_frdt.bson (BSON)",
    ],
)


def test_real_samples_found() -> None:
    """The walk below covers real trees, not nothing (the samples may be absent elsewhere)."""
    assert any("orange3134" in name for name in REAL) or not SAMPLES.is_dir()
    assert len(REAL) >= 10


@needs_c
@pytest.mark.parametrize("name", EVERY_FILE)
def test_every_document_of_every_file(name: str) -> None:
    """Each document of each file, by all six functions; index_as with the layout of the
    previous document (the walk's case: mostly a match) and of the document itself."""
    assert RAWC is not None
    buf = BUFFERS[name]
    deferred = RAWC.deferred()
    previous: raw.Layout = ()
    well_formed = True
    for start, end in spans(buf, 0, len(buf)):
        try:
            own: raw.Layout = raw.layout_of(raw.index_py(buf, start, end))
        except BrsonError:
            own = ()
            well_formed = False
        same_all(buf, start, end, (previous, own))
        previous = own
    if name in REAL and well_formed:
        # Well-formed documents are answered by C itself, never handed back to Python.
        assert RAWC.deferred() == deferred
    if name.startswith(("orange3134", "mar_", "redx_")) and name in REAL:
        assert well_formed, "a real sample's tree is well-formed BSON"


#: Element types to write over a type byte: every BSON type, the zero-payload ones that only
#: a NULL may be as a member's Data, and bytes that are no type.
TYPES = [*range(0x01, 0x14), 0x00, 0x7F, 0xFF, 0x20, 0x80]


def mutate(buf: bytes, start: int, end: int, rng: random.Random) -> tuple[bytes, int, int]:
    """One structure-aware mutation of the document ``buf[start:end]``: its elements' length
    prefixes set to boundary and hostile values, type bytes swapped, key and document
    terminators broken, the span cut or run on at element boundaries, or random bytes."""
    data = bytearray(buf)
    try:
        elems = list(raw.index_py(buf, start, end).values())
    except BrsonError:
        elems = []
    kind = rng.randrange(7) if elems else 6
    if elems:
        _, pos, vstart, vend = rng.choice(elems)
    if kind == 0 and vstart + 4 <= len(data):  # a length prefix
        now = struct.unpack_from("<i", data, vstart)[0]
        room = end - vstart
        value = rng.choice(
            [now - 1, now + 1, 0, 1, 4, 5, -1, -(1 << 31), (1 << 31) - 1, room, room - 1, room - 5]
        )
        value = min(max(value, -(1 << 31)), (1 << 31) - 1)  # now +- 1 at the int32 limits
        struct.pack_into("<i", data, vstart, value)
    elif kind == 1:  # a type byte
        data[pos] = rng.choice(TYPES)
    elif kind == 2:  # the key's terminator, or the value's last byte (a document's NUL)
        data[rng.choice([vstart - 1, vend - 1])] = rng.choice([0x00, 0x01, 0x80, 0xFF])
    elif kind == 3:  # the span cut at, or run on past, an element boundary
        end = max(start, rng.choice([pos, vstart, vend, end]) + rng.randint(-2, 2))
    elif kind == 4:  # the span starts elsewhere
        start = max(0, rng.choice([pos, vstart, start]) + rng.randint(-2, 2))
    elif kind == 5:  # a key byte that is not UTF-8 (or a surrogate's lead)
        if vstart - pos > 2:
            data[rng.randrange(pos + 1, vstart - 1)] = rng.choice([0x80, 0xC3, 0xED, 0xF4, 0xFF])
    else:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(start, end) if end > start else 0] = rng.randrange(256)
    return bytes(data), start, end


def variants(layout: raw.Layout, rng: random.Random) -> list[Any]:
    """The layout, and one with an element's type or header changed, or an element more."""
    if not layout:
        return [layout]
    i = rng.randrange(len(layout))
    header, key, etype = layout[i]
    changed = list(layout)
    if rng.random() < 0.5:
        changed[i] = (header, key, rng.choice(TYPES))
    else:
        changed[i] = (header[: rng.randrange(len(header) + 1)], key, etype)
    extra = (*layout, (bytes([rng.choice(TYPES)]) + b"k\x00", "k", rng.choice(TYPES)))
    return [layout, tuple(changed), extra]


@pytest.mark.slow
@needs_c
@pytest.mark.parametrize("name", MUTATED)
def test_mutated_real_documents(name: str) -> None:
    buf = REAL[name]
    rng = random.Random(name)
    docs = list(spans(buf, 0, len(buf)))
    for _ in range(sweep(400, 100)):
        start, end = rng.choice(docs)
        layout = layout_or_empty(buf, start, end)
        data, start, end = mutate(buf, start, end, rng)
        same_all(data, start, end, tuple(variants(layout, rng)))
        # The same span as a sub-slice: offsets relative to a shorter buffer.
        same_all(data[start:end], 0, max(0, end - start), (layout,))


# -- random bytes and generated documents -------------------------------------------------

ints = st.one_of(st.integers(-8, 300), st.sampled_from([-(1 << 31), 1 << 31, 1 << 62, -(1 << 70)]))


@pytest.mark.slow
@needs_c
@settings(max_examples=examples(400), suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200), ints, ints)
def test_random_bytes(buf: bytes, start: int, end: int) -> None:
    same_all(buf, start, end, ((), ((b"\x02a\x00", "a", 2),)))
    same_all(buf, 0, len(buf))


keys = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=6)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(1 << 31), (1 << 31) - 1),
    st.integers(-(1 << 63), (1 << 63) - 1),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.binary(max_size=8),
    st.sampled_from(
        [
            bson.MinKey(),
            bson.MaxKey(),
            bson.Regex("a.b", "i"),
            bson.Code("f()"),
            bson.Code("f()", {"x": 1}),
            bson.ObjectId(b"0123456789ab"),
            bson.Timestamp(1, 2),
            bson.Decimal128("1.5"),
            bson.DBRef("c", 1),
        ]
    ),
)
documents = st.recursive(
    st.dictionaries(keys, scalars, max_size=5),
    lambda inner: st.one_of(
        st.dictionaries(keys, inner, max_size=4),
        st.builds(lambda items: {"list": items}, st.lists(inner, max_size=4)),
        st.builds(lambda d: {"ID": "x" * 36, "Data": d}, inner),
        st.builds(lambda d: {"Type": 3, "Data": d}, inner),
    ),
    max_leaves=20,
)


@pytest.mark.slow
@needs_c
@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.data())
def test_generated_documents(doc: dict[str, Any], data: st.DataObject) -> None:
    """Well-formed documents (members, components, arrays, every type), then mutated."""
    buf = bson.encode(doc)
    layout = raw.layout_of(raw.index_py(buf, 0, len(buf)))
    for start, end in spans(buf, 0, len(buf)):
        same_all(buf, start, end, (layout,))
    rng = random.Random(data.draw(st.integers(0, 1 << 32)))
    docs = list(spans(buf, 0, len(buf)))
    for _ in range(20):
        start, end = rng.choice(docs)
        own = layout_or_empty(buf, start, end)
        mutated, start, end = mutate(buf, start, end, rng)
        same_all(mutated, start, end, tuple(variants(own, rng)))


# -- arguments Python takes in its own way ------------------------------------------------


class Sneaky(int):
    def __add__(self, other: object) -> int:
        return int(self) + 1 + int(other)  # type: ignore[call-overload]


class Key(str):
    pass


@needs_c
def test_odd_arguments() -> None:
    """Whatever the pure function does with these (answer or raise), C does the same."""
    buf = bson.encode({"ID": "a" * 36, "Data": {"x": 1}, "Type": 7, "s": "t"})
    n = len(buf)
    cases: list[tuple[Any, Any, Any]] = [
        (buf, -n, 0),
        (buf, 0, n + 10),
        (buf, 5, 3),
        (buf, True, n),
        (buf, Sneaky(0), n),
        (bytearray(buf), 0, n),
        (memoryview(buf), 0, n),
        (buf, 0.0, n),
        (buf, 1 << 80, n),
        (b"", 0, 0),
        (b"\x05\x00\x00\x00\x00", 0, 5),
    ]
    for args in cases:
        same_all(*args)
    idx = raw.index_py(buf, 0, n)
    layout = raw.layout_of(idx)
    header, key, etype = layout[0]
    odd_layouts: list[Any] = [
        list(layout),
        layout + layout,  # duplicate keys: the dict keeps one
        ((header, Key(key), etype), *layout[1:]),
        ((header, key, True), *layout[1:]),
        ((header, key, 1 << 70), *layout[1:]),
        ((header, key, -1), *layout[1:]),
        (((header,), key, etype), *layout[1:]),
        ((b"", key, etype), *layout[1:]),
        ((header, key),),
        ((bytearray(header), key, etype), *layout[1:]),
    ]
    for odd in odd_layouts:
        same("index_as", buf, 0, n, odd)
        same("index_as", buf, 0, n - 1, odd)


@needs_c
def test_wrong_arity_raises_like_python() -> None:
    assert RAWC is not None
    for name in NAMES:
        with pytest.raises(TypeError):
            getattr(RAWC, name)(b"")


def _pure_module_env() -> dict[str, str]:
    return {**os.environ, "BRSON_PURE_PYTHON": "1"}


def test_pure_flag_read_at_import(tmp_path: Path) -> None:
    """The environment variable picks the path in a fresh interpreter."""
    import subprocess
    import sys

    code = "from brson.document import raw; print(raw.ACCELERATED)"
    out = subprocess.run(
        [sys.executable, "-c", code], env=_pure_module_env(), capture_output=True, text=True
    )
    assert out.stdout.strip() == "False", out.stderr
