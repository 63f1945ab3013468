"""The real-shaped benchmark worlds (benchmarks/realworld.py): the real samples tiled under one
root with fresh IDs per copy must be a valid world, the same bytes every time, each copy a
faithful copy of its sample, and as local in its references as the samples themselves."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

import brson
from brson.model.ids.forms import defines_id
from brson.model.numbering import defined_ids, id_elements, renumber_map, rewrite
from brson.model.tree import Slot
from brson.ops.validate import validate

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def realworld(samples_dir: Path) -> object:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import realworld as module
    finally:
        sys.path.remove(str(BENCHMARKS))
    assert module.SAMPLES.resolve() == samples_dir.resolve()
    return module


@pytest.fixture(scope="module")
def built(realworld: object) -> tuple[bytes, dict[str, object]]:
    return realworld.build(1)  # type: ignore[attr-defined, no-any-return]


def test_same_size_same_bytes(realworld: object, built: tuple[bytes, dict[str, object]]) -> None:
    data, meta = built
    again, meta_again = realworld.build(1)  # type: ignore[attr-defined]
    assert again == data and meta_again == meta
    assert 1 << 20 <= len(data) < (1 << 20) + 300_000  # past the size by less than one copy


def test_world_validates_and_defines_every_id_once(built: tuple[bytes, dict[str, object]]) -> None:
    data, meta = built
    tree = brson.loads(data)
    assert [f for f in validate(tree) if f.severity.value == "error"] == []
    elements = [(key, i) for key, i in id_elements(data) if defines_id(key)]
    own = Counter(i for key, i in elements if key != "ParentReference")
    assert [i for i, n in own.items() if n > 1] == []
    # A ParentReference names a slot's own link, except where the AimConstraint sample's writer
    # put the parent's ID there (43 children of one slot): then it names that slot, per copy.
    links = Counter(i for key, i in elements if key == "ParentReference")
    repeated = {i: n for i, n in links.items() if n > 1}
    assert all(i in own for i in repeated)
    aim_copies = meta["sources"]["mar_AimConstraint.pg.brson"]  # type: ignore[index]
    assert sorted(repeated.values()) == [43] * aim_copies
    assert sum(1 for _ in tree.walk()) == meta["slots"]


def test_each_copy_is_its_sample_with_fresh_ids_and_a_name_of_its_own(
    built: tuple[bytes, dict[str, object]],
) -> None:
    data, meta = built
    tree = brson.loads(data)
    copies = [c for group in tree.root.children for part in group.children for c in part.children]
    assert len(copies) == sum(meta["sources"].values())  # type: ignore[attr-defined]
    names = [c.name for c in copies]
    assert len(set(names)) == len(names)
    by_sample: dict[str, list[Slot]] = {}
    for copy in copies:
        by_sample.setdefault(str(copy.name).rsplit(" #", 1)[0], []).append(copy)
    assert len(by_sample) == 4

    def shape(slot: Slot) -> bytes:
        """The copy's bytes with its name made equal and its IDs numbered from 0: equal for
        two copies exactly when they differ in nothing but their own IDs and name."""
        data = slot.to_bson()
        clone = Slot(data, 0, len(data))
        clone.name = "copy"
        data = clone.to_bson()
        return rewrite(data, renumber_map(data, 0))

    for name, group in by_sample.items():
        assert len(group) >= 2, name
        first, second = group[0], group[-1]
        assert set(defined_ids(first.to_bson())).isdisjoint(defined_ids(second.to_bson()))
        assert shape(first) == shape(second), name


def test_references_reach_no_farther_than_the_samples(
    realworld: object, built: tuple[bytes, dict[str, object]], tmp_path: Path
) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import locality
    finally:
        sys.path.remove(str(BENCHMARKS))
    path = tmp_path / "real-1.brson"
    path.write_bytes(brson.dumps(built[0], "brotli"))
    counts = locality.reach(path)
    total = sum(counts.values())
    assert total > 1000
    assert counts["5+ steps"] / total < 0.01
    assert (counts["same slot"] + counts["1-2 steps"]) / total > 0.9
