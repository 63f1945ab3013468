"""``bsondoc``: the ``$ref`` mark search that lets a walk skip pymongo's DBRef path."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from brson.document import bsondoc
from brson.document.bsondoc import holds_dbref_mark

MARK = b"$ref\x00"


def test_mark_found_or_not() -> None:
    assert not holds_dbref_mark(b"")
    assert holds_dbref_mark(MARK)
    assert holds_dbref_mark(b"\x02" + MARK + b"\x02\x00\x00\x00x\x00")
    assert not holds_dbref_mark(b"$re$ref$ref\x01$")
    assert not holds_dbref_mark(b"$ref")


def test_past_the_dollars_looked_at_one_by_one() -> None:
    many = b"$" * (bsondoc._DOLLARS + 5)
    assert not holds_dbref_mark(many)
    assert holds_dbref_mark(many + MARK)
    assert holds_dbref_mark(b"$" * (bsondoc._DOLLARS - 1) + MARK)
    assert holds_dbref_mark(b"$" * bsondoc._DOLLARS + MARK)
    assert not holds_dbref_mark(many + b"$ref")


@given(st.lists(st.sampled_from([b"$", b"r", b"e", b"f", b"\x00", b"a", MARK]), max_size=60))
def test_same_as_the_plain_search(parts: list[bytes]) -> None:
    data = b"".join(parts)
    assert holds_dbref_mark(data) == (MARK in data)
