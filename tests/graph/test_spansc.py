"""The C walk of ComponentSpans (``brson._speedups._spansc``) answers as the Python walk does.

Differential: on the same bytes the C walk either gives exactly the Python walk's spans,
slots and parents, or None (not sure: the Python walk then decides, and whenever the Python
walk raises C must have said None, so errors have one source).  Inputs: every sample and
fixture, synthetic worlds, the same bytes mutated and truncated, and hypothesis-made
documents.
"""

from __future__ import annotations

import functools
import random
from array import array
from collections.abc import Iterator

import bson
import pytest
from bson.int64 import Int64
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brson._speedups import built
from brson.document import raw
from brson.errors import BrsonError
from brson.model import spans as spans_module
from brson.model.ids import locate
from brson.model.ids.scan import id_spans, scan_ids
from brson.model.spans import ComponentSpans
from brson.model.tree import DataTree
from tests.differential import check_built, covering, part_trees_bson
from tests.graph.synth import world
from tests.tiers import examples, sweep

_spansc = built("_spansc")

needs_c = pytest.mark.skipif(_spansc is None, reason="the C walk is not built")

Arrays = tuple["array[int]", ...]


def test_accelerator_built_in_ci() -> None:
    check_built(_spansc, spans_module.ACCELERATED, "brson._speedups._spansc")


def python_walk(buf: bytes, start: int, end: int) -> Arrays:
    made = ComponentSpans.__new__(ComponentSpans)
    made._walk(buf, (raw.DOCUMENT, start - 5, start, end), [])
    return (
        made._starts,
        made._ends,
        made._slot_of,
        made._slot_starts,
        made._slot_ends,
        made._parents,
    )


def c_walk(buf: bytes, start: int, end: int) -> Arrays | None:
    assert _spansc is not None
    found = _spansc.walk(buf, start, end)
    if found is None:
        return None
    components, slots = array("q"), array("q")
    components.frombytes(found[0])
    slots.frombytes(found[1])
    return (
        components[0::3],
        components[1::3],
        components[2::3],
        slots[0::3],
        slots[1::3],
        slots[2::3],
    )


def same(buf: bytes, start: int, end: int, *, sure: bool = False) -> None:
    """C gives the Python walk's arrays or None; None wherever Python raises.  The same of
    the slot table's columns (``table``), which ride the same walk."""
    assert _spansc is not None
    c = c_walk(buf, start, end)
    table = _spansc.table(buf, start, end)
    assert (table is None) is (c is None)
    try:
        py = python_walk(buf, start, end)
    except BrsonError:
        assert c is None
        return
    if sure:  # a tree the engine's writers make: C must not give up on it
        assert c is not None
    if c is not None:
        assert c == py
        assert table == spans_module.table_columns_py(buf, start, end)
    named = _spansc.walk(buf, start, end, True)
    assert (named is None) is (c is None)
    if named is not None and table is not None:
        assert named[:2] == _spansc.walk(buf, start, end)
        assert _walked_names(buf, named[2]) == table[2]


def _walked_names(buf: bytes, triples: bytes) -> list[str | None]:
    """The walk's name triples read as ``table`` reads them: the UTF-8 text, or None."""
    spans = array("q")
    spans.frombytes(triples)
    out: list[str | None] = []
    for at, size in zip(spans[0::3], spans[1::3], strict=True):
        try:
            out.append(buf[at : at + size].decode() if at >= 0 else None)
        except UnicodeDecodeError:
            out.append(None)
    return out


def object_span(buf: bytes) -> tuple[int, int] | None:
    try:
        top = raw.index(buf, 0, len(buf)).get("Object")
    except BrsonError:
        return None
    if top is None or top[0] != raw.DOCUMENT:
        return None
    return top[2], top[3]


#: The synthetic worlds beside the real trees (name: seed): more slots, components and
#: references than most samples, and the ID scan's runs of sequential IDs.  Built on first
#: use, not at collection.
SYNTHETIC = {f"synthetic {seed}": seed for seed in (1, 2)}
#: A world's slots: every kind of field the generator makes, many times over (a larger world
#: repeats the same elements: measured, 100 slots reach every C and Python line 300 did).
SYNTHETIC_SLOTS = 100


def _real_trees() -> dict[str, bytes]:
    return {
        name: tree_bson
        for name, tree_bson in part_trees_bson().items()
        if object_span(tree_bson) is not None
    }


REAL_TREES = _real_trees()
NAMES = sorted([*REAL_TREES, *SYNTHETIC])


@functools.cache
def tree_bytes(name: str) -> bytes:
    if name in SYNTHETIC:
        seed = SYNTHETIC[name]
        return bson.encode(world(SYNTHETIC_SLOTS, seed=seed, fanout=3 + seed))
    return REAL_TREES[name]


#: The trees each sweep below runs on besides the samples (:func:`covering`): the other
#: fixtures' and worlds' cases reach no line or branch of the C walk, its Python twin or this
#: module that these do not (with the cases scripts/sanitize-tests.txt names).
TRUNCATED = covering(
    NAMES,
    [
        "BR106_bad_element_type.brson",
        "BR206_component_without_type.brson",
        "BR302_type_double.brson",
        "BR303_unused_type.brson",
        "BR305_type_name_garbled.brson",
        "BR401_duplicate_id.brson",
        "BR402_dangling_reference.brson",
        "BR503_rotation_not_unit.brson",
        "BR604_int64_update_order.brson",
        "BR606_version_in_neos.7zbson",
        "BR701_input_reads_a_field_owner.brson",
        "neos_legacy_frame.lz4bson",
        "neos_legacy_unknown_size.7zbson",
        "tiny.bson",
        "tiny.lz4bson",
    ],
)
PATHS_CHECKED = covering(
    NAMES,
    [
        "BR106_bad_element_type.brson",
        "BR401_duplicate_id.brson",
        "misnamed.lz4bson",
        "multichunk.lz4bson",
        "synthetic 2",
    ],
)
PATHS_MUTATED = covering(
    NAMES,
    [
        "BR207_field_not_member.brson",
        "BR401_duplicate_id.brson",
        "BR408_id_not_guid.brson",
        "BR502_zero_scale.brson",
        "BR504_zero_quaternion.brson",
        "multichunk.lz4bson",
        "neos_legacy.7zbson",
        "synthetic 1",
        "tiny.brson",
        "tiny_frame.lz4bson",
    ],
)


def test_there_are_trees() -> None:
    assert len(NAMES) >= 5


@needs_c
@pytest.mark.parametrize("name", NAMES)
def test_real_trees(name: str) -> None:
    buf = tree_bytes(name)
    span = object_span(buf)
    assert span is not None
    same(buf, *span, sure=True)


@needs_c
@pytest.mark.parametrize("name", NAMES)
def test_component_spans_same_either_way(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """ComponentSpans of a whole tree (root assets joined in) is the same with C or not (the
    built module handed in, so this holds under BRSON_PURE_PYTHON too)."""
    tree = DataTree(tree_bytes(name))
    monkeypatch.setattr(spans_module, "_spansc", _spansc)
    monkeypatch.setattr(spans_module, "ACCELERATED", True)
    first = ComponentSpans(tree)
    monkeypatch.setattr(spans_module, "ACCELERATED", False)
    second = ComponentSpans(tree)
    for field in ("_starts", "_ends", "_slot_of", "_slot_starts", "_slot_ends", "_parents"):
        assert getattr(first, field) == getattr(second, field), field


@pytest.mark.slow
@needs_c
@pytest.mark.parametrize("name", TRUNCATED)
def test_mutated_and_truncated(name: str) -> None:
    buf = tree_bytes(name)
    span = object_span(buf)
    assert span is not None
    start, end = span
    rng = random.Random(name)
    for _ in range(sweep(60, 15)):
        mutated = bytearray(buf)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(start, end)
            mutated[at] = rng.choice((0, 1, 2, 3, 4, 0x7F, 0xFF, 0x80, rng.randrange(256)))
        same(bytes(mutated), start, end)
    for _ in range(sweep(20, 5)):
        cut = rng.randrange(start + 5, end)
        same(buf, start, cut)
        same(buf[:cut], start, min(end, cut))
    assert _spansc is not None
    assert _spansc.walk(buf, -1, end, True) is None
    with pytest.raises(TypeError):
        _spansc.table(buf, start, end, True)  # type: ignore[call-arg]
    for run in (_spansc.walk, _spansc.table):
        assert run(buf, -1, end) is None
        assert run(buf, start, len(buf) + 1) is None
        assert run(bytearray(buf), start, end) is None  # type: ignore[arg-type]


_keys = st.sampled_from(["Name", "Children", "Components", "Data", "ID", "x", "Ä"])
_leaf = st.one_of(st.integers(-(2**31), 2**31 - 1), st.text(max_size=4), st.booleans(), st.none())
_values = st.recursive(
    _leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)),
    max_leaves=30,
)


@pytest.mark.slow
@needs_c
@settings(max_examples=examples(300), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(_keys, _values, max_size=5), st.randoms(use_true_random=False))
def test_generated(doc: dict[str, object], rnd: random.Random) -> None:
    buf = bson.encode({"Object": doc})
    span = object_span(buf)
    assert span is not None
    same(buf, *span)
    if len(buf) > 12:
        mutated = bytearray(buf)
        mutated[rnd.randrange(span[0], span[1])] = rnd.randrange(256)
        same(bytes(mutated), *span)


# -- paths: the key paths of offsets inside one anchor ------------------------------------
def python_paths(
    buf: bytes, span: tuple[int, int], offsets: list[int], slot: bool
) -> list[tuple[int, object, object]]:
    """What ``locate.runs`` finds in Python for one anchor's offsets (rows by offset)."""
    trails: list[locate.Chain] = []
    if slot:
        found, _ = locate._slot_found(buf, span, offsets, (), trails)
    else:
        found = locate._component_found(buf, span, offsets, trails)
    rows = [(o, path, trail) for (o, path), trail in zip(found, trails, strict=True)]
    return sorted(rows, key=lambda row: row[0])


def same_paths(
    buf: bytes, span: tuple[int, int], offsets: list[int], slot: bool, *, sure: bool = False
) -> None:
    """C gives the Python descent's rows (with and without the chains) or None; None
    wherever Python raises."""
    assert _spansc is not None
    with_chains = _spansc.paths(buf, span[0], span[1], offsets, True, slot)
    without = _spansc.paths(buf, span[0], span[1], offsets, False, slot)
    try:
        py = python_paths(buf, span, offsets, slot)
    except BrsonError:
        assert with_chains is None and without is None
        return
    if sure:
        assert with_chains is not None
    if with_chains is not None:
        assert with_chains == py
        assert without == [(o, path, ()) for o, path, _ in py]


#: Offsets handed in for one anchor at most: past it, every third byte is thinned evenly (the
#: ID scan's offsets all kept).  Every anchor of the samples and synthetic worlds holds fewer
#: (about 1,100 at most); only a fixture's 1 MiB string holds more, and offsets inside a
#: string start no element, so each of its 380,000 repeated the same step of both walks.
MAX_OFFSETS = 4096


def anchors(buf: bytes) -> Iterator[tuple[tuple[int, int], list[int], bool]]:
    """Each component and each slot of the tree in ``buf`` with offsets inside it that no
    other anchor holds: every third byte (element starts or not; :data:`MAX_OFFSETS`), and
    the ID scan's."""
    tree = DataTree(buf)
    spans = ComponentSpans(tree)
    scanned = {offset for offset, _ in scan_ids(buf, id_spans(tree)).references}
    owned: dict[tuple[bool, int], list[int]] = {}
    for offset in sorted(set(range(0, len(buf), 3)) | scanned):
        number = spans.at(offset)
        if number is not None:
            owned.setdefault((False, number), []).append(offset)
        elif (slot := spans.slot_at(offset)) is not None:
            owned.setdefault((True, slot), []).append(offset)
    for (slot, number), offsets in owned.items():
        if len(offsets) > MAX_OFFSETS:
            step = -(-len(offsets) // MAX_OFFSETS)
            offsets = sorted(set(offsets[::step]) | (scanned & set(offsets)))
        yield (spans.slot_span(number) if slot else spans.span(number)), offsets, slot


@pytest.mark.slow
@needs_c
@pytest.mark.parametrize("name", PATHS_CHECKED)
def test_paths_on_real_trees(name: str) -> None:
    buf = tree_bytes(name)
    for span, offsets, slot in anchors(buf):
        same_paths(buf, span, offsets, slot, sure=True)


@pytest.mark.slow
@needs_c
@pytest.mark.parametrize("name", PATHS_MUTATED)
def test_paths_mutated(name: str) -> None:
    """Bytes changed inside an anchor (lengths, types, keys): C agrees or gives up."""
    buf = tree_bytes(name)
    rng = random.Random(name)
    found = list(anchors(buf))
    for _ in range(sweep(80, 20)):
        span, offsets, slot = rng.choice(found)
        mutated = bytearray(buf)
        for _ in range(rng.randint(1, 3)):
            mutated[rng.randrange(*span)] = rng.choice((0, 2, 3, 4, 0x7F, 0x80, rng.randrange(256)))
        same_paths(bytes(mutated), span, offsets, slot)
    assert _spansc is not None
    span, offsets, slot = found[0]
    assert _spansc.paths(buf, span[0], span[1], offsets[::-1], True, slot) in (None, [])
    assert _spansc.paths(buf, -1, span[1], offsets, True, slot) is None
    assert _spansc.paths(buf, span[0], len(buf) + 1, offsets, True, slot) is None


@pytest.mark.slow
@needs_c
@settings(max_examples=examples(300), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(_keys, _values, max_size=5), st.randoms(use_true_random=False))
def test_paths_generated(doc: dict[str, object], rnd: random.Random) -> None:
    buf = bson.encode({"ID": "x", "Data": doc})
    offsets = list(range(0, len(buf), 2))
    same_paths(buf, (0, len(buf)), offsets, rnd.random() < 0.5)
    mutated = bytearray(buf)
    mutated[rnd.randrange(4, len(buf))] = rnd.randrange(256)
    same_paths(bytes(mutated), (0, len(buf)), offsets, rnd.random() < 0.5)


@needs_c
def test_negative_leading_type() -> None:
    """A component whose leading ``Type`` is negative (int32 or int64) gets -1 in the table's
    type column from C as from Python: the model then reads its Type and answers what that
    answers, where a passed-through -1 would have named the last entry of Types."""
    doc = world(6, seed=3)
    components: list[dict[str, object]] = []
    slots = [doc["Object"]]
    while slots:
        slot = slots.pop()
        components += slot["Components"]["Data"]
        slots += slot["Children"]
    assert len(components) >= 3
    components[0]["Type"] = -5
    components[1]["Type"] = Int64(-7)
    components[2]["Type"] = Int64(3)
    buf = bson.encode(doc)
    span = object_span(buf)
    assert span is not None
    same(buf, *span, sure=True)
    assert _spansc is not None
    columns = _spansc.table(buf, *span)
    assert columns is not None
    types = array("q")
    types.frombytes(columns[1])
    held = len(types) // 3
    by_start = dict(zip(types[:held], types[2 * held :], strict=True))
    tree = DataTree(buf)
    read = {c.span[0]: c.type_index for c in tree.components()}
    assert sorted(read.values()).count(-5) == 1 and -7 in read.values()
    for start, index in read.items():
        if start in by_start:
            assert by_start[start] == (index if index >= 0 else -1)


@pytest.mark.parametrize("name", NAMES)
def test_subtree_counts_and_slot_membership(name: str) -> None:
    """What extract's report reads from the spans: the slots and components in a slot's span
    are those a walk of its nodes meets; ``in_slots`` answers as ``slot_at`` does, at every
    slot's and component's edges and across the bytes."""
    tree = DataTree(tree_bytes(name))
    spans = ComponentSpans(tree)
    try:
        slots = list(tree.walk())
    except BrsonError:
        pytest.skip("the model cannot walk this tree")
    for slot in slots[:: max(1, len(slots) // 100)]:
        walked = list(slot.walk())
        counted = (len(walked), sum(len(sub.components) for sub in walked))
        assert spans.counts_within(*slot.span) == counted, slot.path
    buf = tree.buffer
    edges = [at for number in range(len(spans)) for at in spans.span(number)]
    edges += [at for slot in range(len(slots)) for at in spans.slot_span(slot)]
    offsets = {at + step for at in edges for step in (-1, 0, 1)}
    offsets.update(range(0, len(buf), max(1, len(buf) // 1000)))
    for offset in sorted(offsets):
        assert spans.in_slots(offset) == (spans.slot_at(offset) is not None), offset
