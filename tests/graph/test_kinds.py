"""The kinds ``brson refs --json`` reads from the elements on each path
(:mod:`brson.model.ids.kinds`) are the ones the model's nodes give (``source_of``,
``element_at``): on every sample and fixture, synthetic worlds with SyncLists and
document-valued members, and the same bytes with a key or a type changed.  Where the rules
are not sure they say None and the listing asks the nodes; on engine-written trees they
must be sure."""

from __future__ import annotations

import functools
import random

import bson
import pytest

from brson.errors import BrsonError
from brson.graph.refs import KINDS, source_of
from brson.lazymap import LazyMapping
from brson.model import Member
from brson.model.ids.kinds import source_kind, target_kind
from brson.model.ids.locate import Location, element_at, runs
from brson.model.ids.scan import scan_references
from brson.model.spans import ComponentSpans
from brson.model.tree import DataTree
from tests.differential import covering, part_trees_bson
from tests.graph.synth import world
from tests.tiers import EXHAUSTIVE


class _Trees(LazyMapping[bytes]):
    """Every real part's tree BSON, then three synthetic worlds (seeds 1 to 3), each world
    built on its first lookup: collection needs only the names, and the worlds' build (most
    of this module's import) then falls to the process that runs a test on one."""

    def __init__(self) -> None:
        super().__init__([*part_trees_bson(), *(f"synthetic {seed}" for seed in (1, 2, 3))])

    def _make(self, name: str) -> bytes:
        if name.startswith("synthetic "):
            seed = int(name.removeprefix("synthetic "))
            return bson.encode(world(200, seed=seed, fanout=2 + seed, external=5))
        return part_trees_bson()[name]


TREES = _Trees()
#: The trees whose bytes are changed: every real one, and the first synthetic world (all three
#: with BRSON_EXHAUSTIVE=1).  Each change checks the whole tree again, and the other two
#: worlds' changes reach no C or Python line that these do not: two thirds of the sweep's CPU.
CHANGED = sorted(
    name
    for name in TREES
    if EXHAUSTIVE or name == "synthetic 1" or not name.startswith("synthetic ")
)


#: The trees whose bytes are changed besides the samples (:func:`covering`): the other
#: fixtures' changes reach no line or branch of the kinds rules, the nodes or this module that
#: these do not.
CHANGED_HERE = covering(
    CHANGED,
    [
        "BR109_lz4_frame.lz4bson",
        "BR205_slot_without_name.brson",
        "BR206_component_without_type.brson",
        "BR302_type_double.brson",
        "BR305_type_name_garbled.brson",
        "BR401_duplicate_id.brson",
        "BR406_parent_id_as_link.brson",
        "BR501_nan_position.brson",
        "BR601_index_in_neos.7zbson",
        "BR606_version_in_neos.7zbson",
        "clean_resonite.brson",
        "misnamed.lz4bson",
        "misnamed_frdt.lz4bson",
        "synthetic 1",
        "tiny.bson",
    ],
)


def _anchor(spans: ComponentSpans, number: int, slot: int) -> object:
    return spans.component(number) if number >= 0 else spans.slot(slot)


def compare(buf: bytes, *, sure: bool) -> int:
    """Check every reference's and every referenced definition's kinds against the nodes';
    the number checked."""
    tree = DataTree(buf)
    try:
        scan = scan_references(tree)
        if scan is None:
            return 0
        spans = ComponentSpans(tree)
        sources = [offset for offset, _ in scan.references]
        targets = sorted(set(scan.definitions.values()))
        rows = [(False, run) for run in runs(spans, sources, True)]
        rows += [(True, run) for run in runs(spans, targets, True)]
    except BrsonError:
        return 0
    checked = 0
    lists: dict[int, list[object]] = {}
    arrays: dict[int, bool] = {}
    for target, (_, number, slot, found) in rows:
        for _, path, chain in found:
            location = Location(_anchor(spans, number, slot), path)  # type: ignore[arg-type]
            try:
                if target:
                    element = element_at(location)
                    expected: object = (KINDS.get(type(element)) if element is not None else None,)
                else:
                    source = source_of(location)
                    expected = (
                        KINDS.get(type(source)) if source is not None else None,
                        source.id if isinstance(source, Member) else None,
                    )
            except BrsonError:
                expected = None  # the nodes raise: the rules must not answer
            if target:
                got = target_kind(buf, arrays, number >= 0, path, chain)
            else:
                got = source_kind(buf, lists, number >= 0, path, chain)  # type: ignore[arg-type]
            if sure:
                assert got is not None, path
            if got is not None:
                assert got == expected, path
            checked += 1
    return checked


@functools.cache
def compared(name: str) -> int:
    """:func:`compare` of one unchanged tree, sure (once a process: the per-tree test and
    the count over every tree share it)."""
    return compare(TREES[name], sure=True)


@pytest.mark.parametrize("name", sorted(TREES))
def test_kinds_are_the_nodes(name: str) -> None:
    compared(name)


def test_kinds_checked_widely() -> None:
    assert sum(compared(name) for name in sorted(TREES)) > 5000


@pytest.mark.slow
@pytest.mark.parametrize("name", CHANGED_HERE)
def test_kinds_on_changed_bytes(name: str) -> None:
    """A key renamed (``Data``, ``ID`` no longer where the rules look) or an element's type
    changed: the rules still agree with the nodes, or are not sure."""
    buf = TREES[name]
    rng = random.Random(name)
    heads = [at for at in range(len(buf) - 6) if buf[at + 1 : at + 5] in (b"Data", b"ID\x00\x25")]
    for _ in range(15):
        if not heads:
            break
        mutated = bytearray(buf)
        for _ in range(rng.randint(1, 3)):
            at = rng.choice(heads)
            if rng.random() < 0.5:
                mutated[at + 1] = ord(rng.choice("dXI"))  # the key renamed
            else:
                mutated[at] = rng.choice((0x02, 0x03, 0x04, 0x0A, 0x0D))  # the type changed
        compare(bytes(mutated), sure=False)
