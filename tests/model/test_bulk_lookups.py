"""The bulk lookups extract's closure makes a round at a time answer as one call per item
does: :meth:`DefinitionTable.offsets` as :meth:`DefinitionTable.offset` of each ID,
:meth:`ComponentSpans.numbers_at` as :meth:`ComponentSpans.at` of each offset (None kept), and
:meth:`ComponentSpans.spans` and :meth:`ComponentSpans.slots_of` as :meth:`ComponentSpans.span`
and :meth:`ComponentSpans.slot_of` of each number."""

from __future__ import annotations

from array import array
from pathlib import Path

import bson
import pytest

from brson import api
from brson._speedups import load
from brson.model.ids.scan import DefinitionTable, id_spans, scan_ids
from brson.model.spans import ComponentSpans
from brson.model.tree import DataTree
from tests.graph.synth import world

#: The walk's module as spans.py uses it (None on the pure-Python pass, where the twin answers).
_spansc = load("_spansc")
#: IDs no file defines (the world, users), an empty string and one that is not ID-shaped.
STRANGERS = ["ffffffff-ffff-4fff-bfff-ffffffffffff", "", "Root", "00000000-0000-0000-0000-0000"]


def _check(tree: DataTree) -> None:
    table = DefinitionTable(tree)
    scan = scan_ids(tree.buffer, id_spans(tree))
    ids = [value for _, value in scan.references] + STRANGERS
    assert table.offsets(ids) == [table.offset(value) for value in ids]
    spans = ComponentSpans(tree)
    offsets: list[int | None] = [*range(-3, len(tree.buffer) + 3, 7), None]
    offsets += [offset for offset, _ in scan.references]
    offsets += table.offsets(ids)
    expected = [None if o is None else spans.at(o) for o in offsets]
    assert spans.numbers_at(offsets) == spans.numbers_at_py(offsets) == expected
    numbers = list(range(len(spans)))
    assert spans.spans(numbers[::-1]) == [spans.span(number) for number in numbers[::-1]]
    assert spans.spans(iter(numbers)) == [spans.span(number) for number in numbers]
    assert list(spans.slots_of(numbers)) == [spans.slot_of(number) for number in numbers]
    if _spansc is not None:  # C answers a list of ints and None, and leaves the rest to Python
        assert _spansc.numbers_at(spans._starts, spans._ends, offsets) == expected
        for odd in (True, 1 << 64, -(1 << 64)):
            assert _spansc.numbers_at(spans._starts, spans._ends, [*offsets, odd]) is None
            assert spans.numbers_at([*offsets, odd]) == [*expected, spans.at(odd)]
        assert _spansc.numbers_at(spans._starts, spans._ends + array("q", [0]), offsets) is None
        assert _spansc.numbers_at(spans._starts, array("i", [0]), offsets) is None


def test_samples(samples_dir: Path) -> None:
    paths = sorted(p for p in samples_dir.iterdir() if p.suffix != ".md")
    assert paths
    for path in paths:
        _check(api.load(path))


@pytest.mark.parametrize("seed", [1, 2])
def test_synthetic_world(seed: int) -> None:
    _check(DataTree(bson.encode(world(300, seed=seed, external=20))))
