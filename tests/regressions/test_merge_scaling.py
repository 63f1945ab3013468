"""Complexity guards for ``brson merge``: its work at n, 2n and 4n grows linearly.

- The whole merge, both sides renaming slots and adding children to one shared parent, in
  lines of brson's code executed (the style and helpers of test_issue12_scaling.py).
- The ID-list merge alone, in element comparisons: placing each addition with
  ``list.index`` + ``insert`` was quadratic work in C, which a line count does not see.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import bson
import pytest

import brson
from brson.ops.applier import merge_ids
from brson.ops.merge import merge_documents

from .test_issue12_scaling import STANDIN, _linear, _lines

pytestmark = pytest.mark.slow  # traces a merge at three sizes


def _renumbered(doc: Any, counter: itertools.count[int]) -> Any:
    """A copy with every ``ID`` string replaced by a fresh sequential one."""
    out = copy.deepcopy(doc)
    stack = [out]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "ID" and isinstance(value, str):
                    item[key] = f"{next(counter):08x}-0000-0000-0000-000000000000"
                else:
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    return out


def _world(n: int) -> tuple[bytes, bytes, bytes]:
    """BASE with n leaf slots under the root; OURS and THEIRS each rename a quarter of them
    (different ones) and add n/4 children to the root."""
    doc = bson.decode(brson.load(STANDIN).to_bson())
    template = {k: v for k, v in doc["Object"]["Children"][0].items() if k != "Children"}
    template["Children"] = []
    counter = itertools.count(1 << 24)
    doc["Object"]["Children"] = [_renumbered(template, counter) for _ in range(n)]
    base = bson.encode(doc)

    def side(offset: int) -> bytes:
        edited = bson.decode(base)
        kids = edited["Object"]["Children"]
        for i in range(offset, n, 4):
            kids[i]["Name"]["Data"] = f"renamed {offset} {i}"
        kids += [_renumbered(template, counter) for _ in range(n // 4)]
        return bson.encode(edited)

    return base, side(0), side(1)


def test_merge_is_linear() -> None:
    def work(n: int) -> int:
        base, ours, theirs = _world(n)
        counted: list[Any] = []
        lines = _lines(lambda: counted.append(merge_documents(base, ours, theirs)))
        assert counted[0].ok, [str(c) for c in counted[0].conflicts]
        return lines

    _linear(work, 40, "merge")


class _CountedId(str):
    """An ID whose comparisons are counted: ``list.index`` and ``list.insert`` work in C, which
    no line count sees, but every element ``index`` passes over calls ``__eq__``."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _CountedId.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_id_list_merge_places_additions_in_linear_work() -> None:
    """Both sides adding to one list (a parent's children): each addition used to be placed by
    ``result.index(anchor)`` + ``insert``, quadratic in the additions."""

    def work(n: int) -> int:
        old = [_CountedId(f"{i:08x}") for i in range(n)]
        ours = [*old, *(_CountedId(f"a{i:07x}") for i in range(n))]
        theirs = [*old, *(_CountedId(f"b{i:07x}") for i in range(n))]
        _CountedId.compared = 0
        merged = merge_ids(old, ours, theirs)
        assert merged is not None and len(merged) == 3 * n
        return _CountedId.compared

    _linear(work, 500, "merge_ids")
