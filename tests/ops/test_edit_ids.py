"""Fresh IDs in the file's style, and deterministic renumbering of every ID."""

from __future__ import annotations

import random
import uuid
from pathlib import Path

import pytest

import brson
from brson.model import edit
from brson.model.numbering import (
    FreshIds,
    defined_ids,
    is_sequential,
    renumber,
    renumber_map,
    rewrite,
    scan,
    sequential_id,
    sequential_number,
)
from brson.model.tree import DataTree
from brson.ops.validate import Severity, validate

SAMPLES = [
    "orange3134_AvatarRootIdentification.brson",
    "orange3134_loading_standin.brson",
    "redx_5ce7cdf5.7zbson",
]


def dangling(tree: DataTree) -> list[str]:
    index = tree.ids
    return [value for _, value in index.values if value not in index.defined]


def references(tree: DataTree) -> list[tuple[str, str]]:
    """(where, what it names) for every resolved reference: stable across renumbering."""
    index = tree.ids
    out = []
    for location, value in index.values:
        target = index.where(value)
        out.append((location.describe(), target.describe() if target else f"?{value}"))
    return sorted(out)


# -- sequential style --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("number", "text"),
    [
        (0, "00000000-0000-0000-0000-000000000000"),
        (0x143, "00000143-0000-0000-0000-000000000000"),
        (0xFFFFFFFF, "ffffffff-0000-0000-0000-000000000000"),
        (1 << 32, "00000000-0001-0000-0000-000000000000"),  # .NET Guid layout: carry to group 2
        (1 << 48, "00000000-0000-0001-0000-000000000000"),
    ],
)
def test_sequential_ids(number: int, text: str) -> None:
    assert sequential_id(number) == text
    assert sequential_number(text) == number


@pytest.mark.parametrize(
    "text",
    [
        "79101779-a5cd-486a-8b61-836bfbaa723b",  # a NeosVR random GUID
        "00000143-0000-0000-0000-000000000001",
        "00000143-0000-0000-0000-00000000000A",  # not as the engine writes it (upper case)
        "not-a-guid",
    ],
)
def test_other_ids_are_not_sequential(text: str) -> None:
    assert sequential_number(text) is None


def test_sequential_id_range() -> None:
    with pytest.raises(ValueError, match="out of range"):
        sequential_id(1 << 64)
    with pytest.raises(ValueError, match="out of range"):
        sequential_id(-1)


def test_samples_number_ids_as_described(samples_dir: Path) -> None:
    """The premise: Resonite samples are sequential from 0 without gaps, NeosVR is random."""
    for name in SAMPLES[:2]:
        tree = brson.load(samples_dir / name)
        numbers = sorted(n for i in tree.ids if (n := sequential_number(i)) is not None)
        assert numbers == list(range(len(tree.ids)))
    legacy = brson.load(samples_dir / SAMPLES[2])
    assert all(uuid.UUID(i).version == 4 for i in legacy.ids)


# -- fresh IDs ---------------------------------------------------------------------------------
def test_fresh_ids_continue_above_every_id_shaped_value(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / SAMPLES[0])
    component = tree.root.components[0]
    # A value naming nothing, above every ID: new IDs must not take it.
    edit.set_value(component["Value"], sequential_id(0x500))
    fresh = FreshIds.for_tree(tree)
    assert fresh.sequential
    assert [fresh() for _ in range(2)] == [sequential_id(0x501), sequential_id(0x502)]


def test_fresh_ids_in_a_neosvr_file_are_random_and_new(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / SAMPLES[2])
    fresh = FreshIds.for_tree(tree)
    assert not fresh.sequential
    made = [next(fresh) for _ in range(100)]
    assert len(set(made)) == 100 and not set(made) & set(tree.ids)
    assert all(uuid.UUID(i).version == 4 for i in made)
    seeded = [FreshIds.for_tree(tree, random.Random(3))() for _ in range(2)]
    assert seeded[0] == seeded[1]  # reproducible with a seeded generator


def test_fresh_ids_skip_taken_values() -> None:
    fresh = FreshIds([sequential_id(0), sequential_id(2)], sequential=True)
    assert fresh() == sequential_id(3)
    fresh = FreshIds([sequential_id(5)], sequential=True)
    fresh.next = 4
    assert [fresh(), fresh()] == [sequential_id(4), sequential_id(6)]
    assert fresh.issued == [sequential_id(4), sequential_id(6)]


def test_style_comes_from_the_definitions() -> None:
    assert is_sequential([sequential_id(0), sequential_id(9)], default=False)
    assert not is_sequential(
        [sequential_id(0), "79101779-a5cd-486a-8b61-836bfbaa723b"], default=True
    )
    assert is_sequential([], default=True) and not is_sequential([], default=False)
    assert FreshIds([], sequential=True)() == sequential_id(0)


# -- renumbering -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SAMPLES)
def test_renumber_is_deterministic_idempotent_and_keeps_references(
    samples_dir: Path, name: str
) -> None:
    tree = brson.load(samples_dir / name)
    once = renumber(tree)
    again = renumber(brson.load(samples_dir / name))
    assert once.to_bson() == again.to_bson()
    assert renumber(once).to_bson() == once.to_bson()
    # Every ID renumbered 0..n-1 in document order, nothing dangling, same references.
    assert defined_ids(once.to_bson()) == [sequential_id(n) for n in range(len(tree.ids))]
    assert dangling(once) == [] and not once.ids.duplicates
    assert references(once) == references(tree)
    assert [f.code for f in validate(once)] == [f.code for f in validate(tree)]
    assert all(f.severity == Severity.INFO for f in validate(once))
    # Only ID strings changed: same length, same bytes outside them.
    before, after = tree.to_bson(), once.to_bson()
    assert len(before) == len(after)
    spans = [(o + len(k) + 6, o + len(k) + 42) for k, _, o in scan(before)]
    mask = bytearray(before)
    for lo, hi in spans:
        mask[lo:hi] = after[lo:hi]
    assert bytes(mask) == after


def test_renumber_keeps_the_container_and_writes(samples_dir: Path, tmp_path: Path) -> None:
    tree = brson.load(samples_dir / SAMPLES[2])
    out = renumber(tree)
    assert out.container is tree.container
    path = tmp_path / "renumbered.7zbson"
    brson.dump(out, path)
    assert brson.load(path).to_bson() == out.to_bson()


def test_renumber_leaves_values_naming_nothing_alone(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / SAMPLES[2])
    stray = sequential_id(3)  # names nothing in this NeosVR file
    member = tree.root.components[0]["MaxDepth"]
    member.set("Data", stray)
    out = renumber(tree)
    assert stray not in out.ids  # skipped: it must not start naming something
    assert dangling(out) == [stray]
    assert sorted(out.ids) == sorted(sequential_id(n) for n in range(len(tree.ids) + 1) if n != 3)
    assert renumber(out).to_bson() == out.to_bson()


def test_renumber_an_edited_tree(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / SAMPLES[1])
    visual = tree.find("Visual")
    assert visual is not None
    edit.delete(visual, references="null")
    edit.add_slot(tree.root, "Added")
    out = renumber(tree)
    assert sorted(out.ids) == [sequential_id(n) for n in range(len(out.ids))]
    assert dangling(out) == []
    assert out.find("Added") is not None


def test_renumber_map_follows_document_order() -> None:
    doc = brson.api.to_bson(
        {
            "Object": {
                "ID": "bbbbbbbb-0000-4000-8000-000000000000",
                "Ref": "aaaaaaaa-0000-4000-8000-000000000000",
                "Inner": {"ID": "aaaaaaaa-0000-4000-8000-000000000000"},
                "ParentReference": "bbbbbbbb-0000-4000-8000-000000000000",
            }
        }
    )
    mapping = renumber_map(doc)
    assert mapping == {
        "bbbbbbbb-0000-4000-8000-000000000000": sequential_id(0),
        "aaaaaaaa-0000-4000-8000-000000000000": sequential_id(1),
    }
    assert brson.loads(rewrite(doc, mapping)).root.get("Ref") == sequential_id(1)
    with pytest.raises(ValueError, match="36 characters"):
        rewrite(doc, {"x": "y"})


@pytest.mark.parametrize("taken, sequential", [((), True), ([sequential_id(3)], True), ((), False)])
def test_take_is_repeated_next(taken: list[str], sequential: bool) -> None:
    a = FreshIds(taken, sequential, random.Random(1))
    b = FreshIds(taken, sequential, random.Random(1))
    assert a.take(0) == []
    assert a.take(6) + a.take(2) == [next(b) for _ in range(8)]
    assert a.issued == b.issued and a.next == b.next


@pytest.mark.parametrize("start", [0, 0x0FFFFFF0, 0xFFFFFF00, 0xFFFFFFF8])
def test_take_in_bulk_is_repeated_next(start: int) -> None:
    """Sequential IDs drawn in bulk (the counters' hex, split) are the ones drawn one by one,
    up to the top of the narrow form and across it."""
    a, b = FreshIds((), True), FreshIds((), True)
    a.next = b.next = start
    assert a.take(300) == [next(b) for _ in range(300)]
    assert a.issued == b.issued and a.next == b.next == start + 300
