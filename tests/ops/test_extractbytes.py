"""Extract's holder writer: ``brson._speedups._rawc.holder`` answers as
:func:`brson.ops.extractbytes.holder_bytes` does, and :meth:`SlotLayout.holder` writes what
the per-child path (:meth:`SlotLayout.slots` inside :meth:`SlotLayout.slot`) writes.

Differential: every slot of every sample, fixture and a synthetic world as the template, its
tree's components grouped by slot as the children (sequential, random and wide IDs), the
same arguments mutated (a count, a width, a name, a component's type), and arguments C must
refuse (None, then Python answers or raises).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from typing import Any

import bson
import pytest

from brson._speedups import built
from brson.errors import BrsonError
from brson.model import DataTree, Slot
from brson.model.numbering import FreshIds
from brson.model.spans import ASSETS, ComponentSpans
from brson.ops import extractbytes
from brson.ops.extract import HOLDER_NAME
from brson.ops.extractbytes import HolderArguments, SlotLayout, holder_bytes
from tests.differential import check_built, loadable_trees
from tests.graph.synth import world
from tests.tiers import sweep

_rawc = built("_rawc")
needs_c = pytest.mark.skipif(_rawc is None, reason="raw.py's C loops are not built")


def test_accelerator_built_in_ci() -> None:
    check_built(_rawc, extractbytes.ACCELERATED, "brson._speedups._rawc")


def _fresh(style: str) -> FreshIds:
    ids = FreshIds((), style != "random", random.Random(7))
    ids.next = 1 << 40 if style == "wide" else 11
    return ids


def _children(tree: DataTree) -> tuple[list[str], list[int], list[bytes | memoryview]]:
    """Every slot of ``tree`` holding components, as a holder's children: names, counts and
    the components' bytes (views of the tree's buffer, as extract gives them)."""
    spans = ComponentSpans(tree)
    view = memoryview(tree.buffer)
    names: list[str] = []
    counts: list[int] = []
    pieces: list[bytes | memoryview] = []
    last = None
    for number in range(len(spans)):
        slot = spans.slot_of(number)
        if slot == ASSETS:
            continue
        if slot != last:
            names.append(spans.slot_name(slot))
            counts.append(0)
            last = slot
        counts[-1] += 1
        start, end = spans.span(number)
        pieces.append(view[start:end])
    return names, counts, pieces


def _per_child(
    layout: SlotLayout,
    drawn: list[str],
    names: list[str],
    counts: list[int],
    pieces: list[bytes | memoryview],
) -> bytes:
    """The holder as the per-child path writes it (the reference of the one-buffer path)."""
    named = []
    at = 0
    for name, held in zip(names, counts, strict=True):
        named.append((name, pieces[at : at + held]))
        at += held
    count = layout.id_count
    kids = layout.slots(named, drawn[count:])
    return layout.slot(HOLDER_NAME, drawn[:count], [], kids)


@functools.cache
def _trees() -> dict[str, DataTree]:
    trees = dict(loadable_trees())
    trees["synthetic world"] = DataTree(bson.encode(world(300, seed=3)))
    return trees


@pytest.fixture(scope="module", params=sorted(_trees()))
def tree(request: pytest.FixtureRequest) -> DataTree:
    """A tree whose slots and components extract reads (the rest hold nothing to write)."""
    found = _trees()[request.param]
    try:
        if not found.root.children and not found.root.components:
            pytest.skip("no slot to copy")
        ComponentSpans(found)
    except BrsonError:
        pytest.skip("extract refuses this tree")
    return found


@pytest.mark.parametrize("style", ["sequential", "random", "wide"])
def test_holder_is_the_per_child_path(tree: DataTree, style: str) -> None:
    names, counts, pieces = _children(tree)
    templates = [tree.root, *tree.root.children[:2]]
    for template in templates:
        layout = SlotLayout(Slot(tree.buffer, *template.span))
        drawn = _fresh(style).take(layout.id_count * (1 + len(names)))
        written = layout.holder(HOLDER_NAME, drawn, names, counts, pieces)
        if written is not None:
            assert written == _per_child(layout, drawn, names, counts, pieces)


@needs_c
@pytest.mark.parametrize("style", ["sequential", "random", "wide"])
def test_c_writes_what_python_writes(tree: DataTree, style: str) -> None:
    assert _rawc is not None
    names, counts, pieces = _children(tree)
    layout = SlotLayout(Slot(tree.buffer, *tree.root.span))
    drawn = _fresh(style).take(layout.id_count * (1 + len(names)))
    args = layout.holder_arguments(HOLDER_NAME, drawn, names, counts, pieces)
    if args is None:
        return
    assert _rawc.holder(*args) == holder_bytes(*args)
    # Components as bytes, the first child's name long and non-ASCII, no name at all.
    varied: list[Any] = list(args)
    varied[9] = [bytes(p) for p in args[9]]
    if varied[7]:
        varied[7] = ["ü日本 ".encode() * 40, *varied[7][1:]]
    assert _rawc.holder(*varied) == holder_bytes(*varied)
    varied[3] = -1
    assert _rawc.holder(*varied) == holder_bytes(*varied)


def _mutants(args: HolderArguments, rng: random.Random) -> Iterator[tuple[Any, ...]]:
    """``args`` with one part changed: what C must either write as Python does or refuse."""
    edits: list[tuple[int, Any]] = [
        (0, args[0][:3]),
        (1, b""),
        (2, args[2][:-1]),
        (2, (*args[2][:-1], bytearray(args[2][-1]))),
        (3, len(args[2])),
        (3, args[4]),
        (3, -2),
        (4, len(args[2]) - 1),
        (4, -1),
        (4, 1 << 70),
        (5, args[5][:5]),
        (5, (*args[5][:5], "Data")),
        (6, args[6][:-1]),
        (6, args[6] + b"0"),
        (7, [*args[7], b"extra"]),
        (7, [*args[7][:-1], "text"] if args[7] else ["text"]),
        (8, [*args[8][:-1], args[8][-1] + 1] if args[8] else [1]),
        (8, [*args[8][:-1], -1] if args[8] else [-1]),
        (8, [*args[8][:-1], True] if args[8] else [True]),
        (9, [*args[9][:-1], bytearray(b"\x05\x00\x00\x00\x00")] if args[9] else []),
        (9, [*args[9], memoryview(b"abcd")[::2]]),
    ]
    for where, value in edits:
        changed = list(args)
        changed[where] = value
        yield tuple(changed)
    if args[9]:
        released = memoryview(b"\x05\x00\x00\x00\x00")
        released.release()
        changed = list(args)
        changed[9] = [*args[9][:-1], released]
        yield tuple(changed)
        # A component's bytes changed (another type, a longer body): written as given.
        changed = list(args)
        pieces = list(args[9])
        at = rng.randrange(len(pieces))
        pieces[at] = bson.encode({"Type": rng.randrange(1 << 20), "Data": {"x": "y" * at}})
        changed[9] = pieces
        yield tuple(changed)
    yield args[:9]


@needs_c
def test_odd_arguments_refused_or_written_alike(tree: DataTree) -> None:
    assert _rawc is not None
    rng = random.Random(29)
    names, counts, pieces = _children(tree)
    layout = SlotLayout(Slot(tree.buffer, *tree.root.span))
    drawn = _fresh("sequential").take(layout.id_count * (1 + len(names)))
    args = layout.holder_arguments(
        HOLDER_NAME, drawn, names[:40], counts[:40], pieces[: sum(counts[:40])]
    )
    if args is None:
        return
    for changed in _mutants(args, rng):
        made = _rawc.holder(*changed)
        if made is None:
            continue
        assert made == holder_bytes(*changed)


@needs_c
def test_random_holders() -> None:
    """Hand-made layouts and children: empty holders, empty children, long names, many
    components (array indices of several digits)."""
    assert _rawc is not None
    rng = random.Random(31)
    base = {"ID": "a", "Name": {"ID": "b", "Data": "x"}, "Components": {"ID": "c", "Data": []}}
    for case in range(sweep(400, 60, 30)):
        doc: dict[str, Any] = dict(base)
        if rng.random() < 0.5:
            doc["Odd"] = {"ID": "d", "Data": rng.randrange(9)}
        doc["Children"] = []
        if rng.random() < 0.3:
            doc["Tail-ID"] = "e"
        data = bson.encode(doc)
        layout = SlotLayout(Slot(data, 0, len(data)))
        kids = rng.choice([0, 1, 3, 12])
        counts = [rng.choice([0, 1, 2, 11, 120]) for _ in range(kids)]
        names = [
            "".join(chr(rng.randrange(1, 0x2FF)) for _ in range(rng.randrange(40)))
            for _ in range(kids)
        ]
        pieces: list[bytes | memoryview] = [
            bson.encode({"Type": n, "Data": {"v": "z" * rng.randrange(30)}})
            for n in range(sum(counts))
        ]
        drawn = _fresh(rng.choice(["sequential", "random", "wide"])).take(
            layout.id_count * (1 + kids)
        )
        args = layout.holder_arguments(HOLDER_NAME, drawn, names, counts, pieces)
        assert args is not None, case
        assert (
            _rawc.holder(*args)
            == holder_bytes(*args)
            == _per_child(layout, drawn, names, counts, pieces)
        )
