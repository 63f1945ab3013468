"""The compiled writer of ``refs --json``'s records writes exactly what its Python reference
writes.

Differential: ``brson._speedups._jsonformc.records`` lays out a batch of reference records
(:data:`~brson.graph.refs.RecordParts`) as :func:`brson.cli.tree.records_py` does.  Where C
answers, the texts must be equal; where a record is not what C writes exactly (another type in
a field, a str that is not UTF-8 encodable), it answers None and the Python path writes the
batch.  Inputs: every real sample's and fixture's table, records needing every escape, and
those records mutated (seeded) field by field.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from brson._speedups import built
from brson.cli.tree import (
    RECORD_LAYOUT,
    RECORD_SEPARATOR,
    RECORDS_A_WRITE,
    RECORDS_ACCELERATED,
    records_py,
)
from brson.graph.refs import RECORD_KEYS, RecordParts, ReferenceListing
from tests.differential import check_built, loadable_trees

JSONFORMC = built("_jsonformc")
needs_c = pytest.mark.skipif(JSONFORMC is None, reason="the C JSON form renderer is not built")
TREES = loadable_trees()

#: Text needing each of json's escapes, non-ASCII, a DEL (json keeps it) and a line separator.
ODD = 'R/"é"\n\\\x00\x1f\x7f\u2028\t\r\b\f😀'
ODD_RECORDS: list[RecordParts] = [
    (ODD, ':T."\\x"\t', None, None, "x", "external", None, "", "\u00ff"),
    (ODD + "/b", "", "member", "m\x7f", "y", "internal", "\u0085", ':"', "id"),
    ("", "", "", "", "", "", "", "", ""),
    ("Root", ".A[0]", "slot", None, "0000-a", "internal", "Root/B", "", None),
]


def records_c(batch: list[Any]) -> str | None:
    assert JSONFORMC is not None
    return JSONFORMC.records(batch, RECORD_LAYOUT, RECORD_SEPARATOR)


def test_records_built_in_ci() -> None:
    check_built(JSONFORMC, RECORDS_ACCELERATED, "brson._speedups._jsonformc")


@needs_c
@pytest.mark.parametrize("name", sorted(TREES))
def test_records_of_every_file(name: str) -> None:
    """Each file's table, in the batches refs --json writes, as the Python path writes it."""
    table = ReferenceListing(TREES[name]).table()
    for first in range(0, len(table), RECORDS_A_WRITE):
        batch = table[first : first + RECORDS_A_WRITE]
        assert records_c(batch) == records_py(batch)


@needs_c
def test_records_escapes_as_json_does() -> None:
    """Both paths write what ``json.dumps(indent=2, ensure_ascii=False)`` writes."""
    text = records_c(ODD_RECORDS)
    assert text is not None and text == records_py(ODD_RECORDS)
    listed = json.loads(f"[{text}]")
    for entry, (head, tail, kind, member_id, value, internal, at, at_tail, at_kind) in zip(
        listed, ODD_RECORDS, strict=True
    ):
        target = None if at is None else at + at_tail
        expected = head + tail, kind, member_id, value, internal, target, at_kind
        assert entry == dict(zip(RECORD_KEYS, expected, strict=True))
    assert records_c([]) == records_py([]) == ""


class _Text(str):
    """A str subclass: C leaves it to the Python path."""


@needs_c
@pytest.mark.parametrize(
    ("field", "value"),
    [
        (0, None),  # from's anchor is text
        (1, None),
        (4, None),  # target_id is text
        (7, None),  # a target's path, even with no target: C reads every field
        (2, 3),
        (3, b"m"),
        (5, _Text("internal")),
        (0, "\ud800"),  # a lone surrogate: not UTF-8 encodable
        (6, "a\udfff"),
    ],
)
def test_records_unsure(field: int, value: object) -> None:
    """A field C does not write exactly: None, whatever the Python path does with it."""
    record = list(ODD_RECORDS[3])
    record[field] = value
    assert records_c([ODD_RECORDS[0], tuple(record)]) is None


@needs_c
@pytest.mark.parametrize("batch", [[ODD_RECORDS[0][:8]], [list(ODD_RECORDS[0])], [None]])
def test_records_not_records(batch: list[Any]) -> None:
    assert records_c(batch) is None


@needs_c
def test_records_layout_refused() -> None:
    """A layout of the wrong size is not written (C trusts no shape it was not built for)."""
    assert JSONFORMC is not None
    assert JSONFORMC.records(ODD_RECORDS, RECORD_LAYOUT[:-1], RECORD_SEPARATOR) is None
    with pytest.raises(TypeError):
        JSONFORMC.records(tuple(ODD_RECORDS), RECORD_LAYOUT, RECORD_SEPARATOR)


@needs_c
def test_records_mutated() -> None:
    """Records made of the samples' values and odd ones, fields swapped, cut, retyped and
    characters replaced (seeded): C's text where it answers is the Python path's."""
    rng = random.Random(29)
    pool: list[Any] = [None, "", ODD, "\ud83d", 7, 1.5, b"x", _Text("t"), "\x00", "é" * 40]
    for tree in list(TREES.values())[:6]:
        for record in ReferenceListing(tree).table()[:50]:
            pool += [item for item in record if item is not None]
    answered = 0
    for _ in range(400):
        batch: list[Any] = []
        for _ in range(rng.randrange(1, 6)):
            record = list(rng.choice(ODD_RECORDS))
            for _ in range(rng.randrange(0, 3)):
                at = rng.randrange(len(record))
                value = rng.choice(pool)
                if isinstance(value, str) and value and rng.random() < 0.5:
                    cut = rng.randrange(len(value))
                    value = value[:cut] + chr(rng.choice([0, 10, 34, 92, 127, 0xD800, 0x10FFFF]))
                record[at] = value
            batch.append(tuple(record))
        text = records_c(batch)
        if text is None:
            continue
        answered += 1
        assert text == records_py(batch)
    assert answered > 100
