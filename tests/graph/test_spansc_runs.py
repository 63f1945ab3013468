"""The compiled runs of a listing (``_spansc.runs``) answer as their Python references do.

Differential: on the same bytes C cuts the sorted offsets into the anchor runs
:meth:`ComponentSpans.runs_py` cuts (component, slot, leading ``Type``, where each run's offsets
start and stop), and gives each run's rows as the Python descent finds them (``locate``'s
``_component_found`` / ``_slot_found``), or None for that run; in the kinds modes each row's
answer is the nodes' (``source_of``, ``element_at``: what :mod:`brson.model.ids.kinds`
answers), or None where C is not sure.  Wherever Python raises, C says None.  Inputs: every
sample and fixture, synthetic worlds with SyncLists and external references, the same bytes
with keys and types changed, and columns that are no walk's.
"""

from __future__ import annotations

import functools
import random
from array import array
from typing import Any

import pytest

from brson._speedups import built
from brson.errors import BrsonError
from brson.graph.refs import KINDS, source_of
from brson.model import Member
from brson.model.ids.locate import Location, element_at
from brson.model.ids.scan import scan_references
from brson.model.spans import (
    CHAINS,
    PATHS,
    SOURCE_KINDS,
    TARGET_KINDS,
    ComponentSpans,
)
from brson.model.tree import DataTree
from tests.differential import covering
from tests.graph.test_kinds import CHANGED, TREES
from tests.graph.test_spansc import python_paths
from tests.tiers import sweep

_spansc = built("_spansc")

needs_c = pytest.mark.skipif(_spansc is None, reason="the C walk is not built")


#: The trees of each sweep below besides the samples (:func:`covering`): the other trees'
#: cases reach no line or branch of the C runs, their Python references or this module that
#: these do not (the rest run in the kinds modes in test_runs_checked_widely; with the cases
#: scripts/sanitize-tests.txt names).
EVERY_MODE = covering(
    CHANGED,
    [
        "BR106_bad_element_type.brson",
        "BR206_component_without_type.brson",
        "BR401_duplicate_id.brson",
        "BR402_dangling_reference.brson",
        "synthetic 1",
    ],
)
MUTATED = covering(
    CHANGED,
    [
        "BR109_lz4_frame.lz4bson",
        "BR205_slot_without_name.brson",
        "BR208_active_string.brson",
        "BR301_type_index_out_of_range.brson",
        "BR401_duplicate_id.brson",
        "BR402_dangling_reference.brson",
        "BR403_external_guid.brson",
        "BR501_nan_position.brson",
        "BR503_rotation_not_unit.brson",
        "BR701_input_reads_a_field_owner.brson",
        "BR703_node_in_assets.brson",
        "BR704_proxy_of_another_slot.brson",
        "misnamed_frdt.lz4bson",
        "multichunk.lz4bson",
        "neos_legacy.bson",
        "neos_legacy_unknown_size.7zbson",
        "synthetic 1",
        "test_avatar.resonitepackage:Assets/9d45204d9a5377cbe10dbfbff444eb13769b2ee059fa4777688f20ecd183230f",
        "tiny.7zbson",
        "tiny.lz4bson",
        "tiny_frdt.bson",
    ],
)


def expected_kind(spans: ComponentSpans, number: int, slot: int, path: Any, mode: int) -> Any:
    """The nodes' answer for a row (None where they raise: C must not answer then)."""
    anchor = spans.component(number) if number >= 0 else spans.slot(slot)
    location = Location(anchor, path)
    try:
        if mode == TARGET_KINDS:
            element = element_at(location)
            return (KINDS.get(type(element)) if element is not None else None,)
        source = source_of(location)
        return (
            KINDS.get(type(source)) if source is not None else None,
            source.id if isinstance(source, Member) else None,
        )
    except BrsonError:
        return None


def same_runs(buf: bytes, offsets: list[int], mode: int, *, sure: bool) -> int:
    """C's runs against the Python ones for ``offsets`` in ``buf``'s tree; rows checked."""
    assert _spansc is not None
    try:
        spans = ComponentSpans(DataTree(buf))
    except BrsonError:
        return 0
    first, stop = (1, len(offsets) - 1) if len(offsets) > 2 and not sure else (0, len(offsets))
    got = _spansc.runs(buf, spans.columns(), offsets, mode, first, stop)
    if sure:
        assert got is not None
    if got is None:
        return 0
    assert [run[:5] for run in got] == [run[:5] for run in spans.runs_py(offsets, first, stop)]
    checked = 0
    for number, slot, _, lo, hi, rows in got:
        span = spans.span(number) if number >= 0 else spans.slot_span(slot)
        try:
            python = python_paths(buf, span, offsets[lo:hi], number < 0)
        except BrsonError:
            assert rows is None
            continue
        if sure:
            assert rows is not None
        if rows is None:
            continue
        assert [(o, path) for o, path, _ in rows] == [(o, path) for o, path, _ in python]
        for (_, path, third), (_, _, chain) in zip(rows, python, strict=True):
            if mode == PATHS:
                assert third == ()
            elif mode == CHAINS:
                assert third == chain
            else:
                if sure:
                    assert third is not None, path
                if third is not None:
                    assert third == expected_kind(spans, number, slot, path, mode), path
            checked += 1
    return checked


def listing_offsets(buf: bytes) -> tuple[list[int], list[int]]:
    """A listing's references and referenced definitions (none for a tree the scan refuses)."""
    try:
        scan = scan_references(DataTree(buf))
    except BrsonError:
        return [], []
    if scan is None:
        return [], []
    return [o for o, _ in scan.references], sorted(set(scan.definitions.values()))


@functools.cache
def kinds_checked(name: str) -> int:
    """One tree's listing in the kinds modes, C against Python and the nodes; rows checked
    (once a process: the per-tree test and the count over every tree share it)."""
    buf = TREES[name]
    sources, targets = listing_offsets(buf)
    checked = same_runs(buf, sources, SOURCE_KINDS, sure=True)
    return checked + same_runs(buf, targets, TARGET_KINDS, sure=True)


@needs_c
@pytest.mark.parametrize("name", EVERY_MODE)
def test_runs_are_python_s(name: str) -> None:
    """Every mode on the trees test_kinds changes (the other synthetic worlds reach no line
    the first does not; test_runs_checked_widely runs them in the kinds modes)."""
    buf = TREES[name]
    sources, _ = listing_offsets(buf)
    every = sorted(set(range(0, len(buf), 7)) | set(sources))
    for mode in (PATHS, CHAINS):
        same_runs(buf, sources, mode, sure=True)
    kinds_checked(name)
    same_runs(buf, every, CHAINS, sure=True)


@needs_c
def test_runs_checked_widely() -> None:
    assert sum(kinds_checked(name) for name in sorted(TREES)) > 5000


@pytest.mark.slow
@needs_c
@pytest.mark.parametrize("name", MUTATED)
def test_runs_mutated(name: str) -> None:
    """Keys renamed, types and bytes changed: C agrees with Python and the nodes, or gives
    up (the whole call, or one run, or one row's kinds).  The trees test_kinds changes: the
    second and third synthetic worlds' changes reach no line the first's do not."""
    buf = TREES[name]
    sources, targets = listing_offsets(buf)
    if not sources:
        return
    rng = random.Random(name)
    heads = [at for at in range(len(buf) - 6) if buf[at + 1 : at + 5] in (b"Data", b"ID\x00\x25")]
    for _ in range(sweep(40, 12, sanitized=6)):
        mutated = bytearray(buf)
        for _ in range(rng.randint(1, 3)):
            if heads and rng.random() < 0.7:
                at = rng.choice(heads)
                if rng.random() < 0.5:
                    mutated[at + 1] = ord(rng.choice("dXI"))
                else:
                    mutated[at] = rng.choice((0x02, 0x03, 0x04, 0x0A, 0x0D))
            else:
                mutated[rng.randrange(len(buf))] = rng.randrange(256)
        changed = bytes(mutated)
        same_runs(changed, sources, rng.choice((CHAINS, SOURCE_KINDS)), sure=False)
        same_runs(changed, targets, TARGET_KINDS, sure=False)


@needs_c
def test_columns_that_are_no_walk_s() -> None:
    """Columns of other lengths or types, a parent loop, offsets not sorted or not ints, an
    unknown mode, a batch outside the list: None; numbers out of range: no read out of
    bounds (the sanitized build checks)."""
    assert _spansc is not None
    buf = TREES[sorted(TREES)[0]]
    spans = ComponentSpans(DataTree(buf))
    columns = spans.columns()
    sources, _ = listing_offsets(buf)

    def runs(columns: Any, offsets: Any, mode: int, first: int = 0, stop: int = -1) -> Any:
        assert _spansc is not None
        stop = len(offsets) if stop < 0 else stop
        return _spansc.runs(buf, columns, offsets, mode, first, stop)

    assert runs(columns, sources, PATHS) is not None
    count = len(sources)
    assert runs(columns, sources, PATHS, count, count) == []
    for first, stop in ((-1, count), (0, count + 1), (2, 1)):
        assert runs(columns, sources, PATHS, first, stop) is None
    assert runs(columns, sources[::-1], PATHS) in (None, [])
    assert runs(columns, [*sources, "x"], PATHS) is None
    assert runs(columns, sources, 4) is None
    assert runs(columns, sources, -1) is None
    assert _spansc.runs(buf, columns[:7], sources, PATHS, 0, len(sources)) is None
    assert _spansc.runs(bytearray(buf), columns, sources, PATHS, 0, len(sources)) is None
    for at in range(8):
        for bad in (array("q", [*columns[at], 0]), array("i", columns[at]), b"12345678"):
            changed = (*columns[:at], bad, *columns[at + 1 :])
            assert runs(changed, sources, PATHS) is None
        if len(columns[at]):
            for value in (-2, 1 << 40):
                bad = array("q", columns[at])
                bad[0] = value
                changed = (*columns[:at], bad, *columns[at + 1 :])
                # a number naming no row is refused where it is read; any answer is in range
                found = runs(changed, sources, PATHS)
                assert found is None or isinstance(found, list)
    # every slot its own parent past the root: the climb stops, C gives up
    loop = array("q", [0] * len(columns[5]))
    ends = array("q", [0] * len(columns[4]))
    changed = (*columns[:4], ends, loop, *columns[6:])
    offsets = sorted(set(range(0, len(buf), 5)))
    assert runs(changed, offsets, PATHS) is None
    # spans outside the buffer: the run's rows are left to Python
    far = array("q", [len(buf) + 10] * len(columns[1]))
    if len(far):
        found = runs((columns[0], far, *columns[2:]), sources, PATHS)
        assert found is not None and all(run[5] is None for run in found if run[0] >= 0)
