"""``model.ids.targets.Targets`` answers what the tree's ID index answers, without building it.

Differential over every sample and fixture: each ID-shaped value of the tree resolved through
:class:`Targets` (on a fresh load, so nothing is shared) and through ``tree.resolve`` name the
same element (kind and byte span).  Trees whose parent links repeat their parent's ID (the
legacy ``ParentReference`` form) are answered from the definitions scan too.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import brson
from brson.model import Component, Slot
from brson.model.ids.scan import id_spans, scan_ids
from brson.model.ids.targets import Targets
from brson.model.tree import Element
from tests.differential import input_files

FILES = {path.name: path for path in input_files()}
#: At most this many references of a file are compared (the big samples hold thousands).
LOOKUPS = 400


def outcome(resolve: Callable[[str], Element | None], value: str) -> object:
    """What resolving answers, comparable across two loads: the kind and span of the
    element, or the error's type (a malformed file fails the same way both ways)."""
    try:
        found = resolve(value)
    except brson.BrsonError as exc:
        return type(exc)
    if isinstance(found, Slot | Component):
        return type(found), found.span
    return type(found)


def load(name: str) -> brson.DataTree | None:
    try:
        return brson.loads(FILES[name].read_bytes(), name=name)
    except (brson.BrsonError, MemoryError):
        return None


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FILES))
def test_targets_match_the_index(name: str) -> None:
    indexed = load(name)
    if indexed is None:
        # A refused file (a hostile fixture, a bomb among them): nothing to resolve, and no
        # second load of it (the same bytes, refused the same way, after the same work).
        return
    fresh = load(name)
    assert fresh is not None
    try:
        values = [value for _, value in indexed.ids.values][:LOOKUPS]
        values += list(indexed.ids.defined)[:LOOKUPS]
    except brson.BrsonError:
        # No ID index (a malformed tree): the index refuses every lookup, so values stay
        # empty and only the unknown ID is asked of Targets below.
        values = []
    targets = Targets(fresh)
    for value in values:
        assert outcome(targets.resolve, value) == outcome(indexed.resolve, value), value
    assert targets.resolve("00000000-dead-beef-0000-000000000000") is None
    repeated = scan_ids(fresh.buffer, id_spans(fresh), references=False).repeated
    if values and not repeated:
        assert fresh.ids_if_built is None  # answered without the index


def test_edited_tree_asks_the_index() -> None:
    """After an edit the bytes are stale: the index (rebuilt from the nodes) answers."""
    for name in sorted(FILES):
        tree = load(name)
        try:
            first = next(iter(tree.walk()), None) if tree is not None else None
            if tree is None or first is None or not isinstance(first.id, str):
                continue
            first.name = "renamed"
            targets = Targets(tree)  # made after the edit, before the index
            expected = targets.resolve(first.id)
        except brson.BrsonError:  # a malformed file's rebuilt index fails on its nodes
            continue
        assert tree.modified and tree.ids_if_built is not None
        assert expected is first
        return
    pytest.skip("no sample with a slot")
