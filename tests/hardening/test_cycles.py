"""Reference cycles and parent cycles are findings or plain data, never hangs.

The slot tree itself cannot loop (the parent is the document holding ``Children``), but IDs can:
references that form rings, a member naming itself, a ``ParentReference`` naming a descendant
(the third-party parent-ID style turned into a loop), and a slot reusing its ancestor's ID so
that resolving "the parent" by ID walks back down.  Every reader, the graph, validation,
extraction, editing and the CLI must finish on them within a time bound.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import brson
from brson.errors import BrsonError
from brson.ops.extract import extract

from .support import _doc, _guid, _i32, _member, _string, run_cli
from .test_depth import time_bound

REF_TYPE = "[FrooxEngine]FrooxEngine.ReferenceField<[FrooxEngine]FrooxEngine.IWorldElement>"


def _ref(key: str, member_id: int, target: int) -> bytes:
    return _member(key, member_id, b"\x02" + _i32(37) + _guid(target).encode() + b"\x00")


def _slot(
    sid: int, name: str, components: list[bytes], children: list[bytes], parent_ref: int
) -> bytes:
    array = b"".join(b"\x03" + str(i).encode() + b"\x00" + c for i, c in enumerate(components))
    kids = b"".join(b"\x03" + str(i).encode() + b"\x00" + c for i, c in enumerate(children))
    return _doc(
        _string("ID", _guid(sid))
        + _member("Components", sid + 1, b"\x04" + _doc(array))
        + _member("Name", sid + 2, b"\x02" + _i32(len(name) + 1) + name.encode() + b"\x00")
        + _string("ParentReference", _guid(parent_ref))
        + b"\x04Children\x00"
        + _doc(kids)
    )


def _component(cid: int, fields: bytes) -> bytes:
    return _doc(
        b"\x10Type\x00" + _i32(0) + b"\x03Data\x00" + _doc(_string("ID", _guid(cid)) + fields)
    )


def cyclic_tree() -> bytes:
    """Root(0) > A(100) > B(200) > C(300), with:
    - a ring of references A.comp -> B.comp -> C.comp -> A.comp (components 110/210/310),
    - a member referencing itself (member 121 holds 121),
    - a list whose elements reference the list and each other,
    - ParentReference of A naming C (its descendant) and of C naming A (a parent-ID loop),
    - C reusing the ID of its grandparent A's Name member (a duplicate ID pointing upwards)."""
    ring = {110: 210, 210: 310, 310: 110}

    def comp(cid: int) -> bytes:
        fields = _ref("Target", cid + 1, ring[cid])
        if cid == 110:
            fields += _ref("Self", cid + 11, cid + 11)
            items = b"".join(
                b"\x03"
                + str(i).encode()
                + b"\x00"
                + _doc(
                    _string("ID", _guid(cid + 20 + i))
                    + b"\x02Data\x00"
                    + _i32(37)
                    + _guid(cid + 20 + (i + 1) % 3).encode()
                    + b"\x00"
                )
                for i in range(3)
            )
            fields += _member("List", cid + 19, b"\x04" + _doc(items))
        return _component(cid, fields)

    c = _slot(300, "C", [comp(310)], [], parent_ref=100)
    c = c.replace(_guid(300).encode(), _guid(102).encode(), 1)  # C's ID = A's Name member ID
    b = _slot(200, "B", [comp(210)], [c], parent_ref=100)
    a = _slot(100, "A", [comp(110)], [b], parent_ref=300)
    root = _slot(0, "Root", [], [a], parent_ref=999)
    return _doc(
        _string("VersionNumber", "2025.6.17.855")
        + b"\x04Types\x00"
        + _doc(_string("0", REF_TYPE))
        + b"\x03Object\x00"
        + root
    )


@pytest.fixture
def tree() -> Any:
    return brson.loads(cyclic_tree(), name="cycles.bson")


def finishes(fn: Callable[[], Any], seconds: float = 20) -> Any:
    with time_bound(seconds):
        try:
            return fn()
        except BrsonError as exc:
            return exc


def test_the_tree_is_what_it_claims(tree: Any) -> None:
    names = [s.name for s in tree.walk()]
    assert names == ["Root", "A", "B", "C"]
    assert "00000066-0000-0000-0000-000000000000" in tree.ids.duplicates  # 102 twice


def test_following_references_around_the_ring_terminates(tree: Any) -> None:
    a = tree.find("Root/A")
    component = a.components[0]
    seen = []
    current: Any = component
    for _ in range(10):
        target = finishes(partial(lambda c: c["Target"].target, current))
        if target is None or isinstance(target, BrsonError):
            break
        seen.append(target.id)
        current = target
    assert seen[:3] == [_guid(210), _guid(310), _guid(110)]
    member = component["Self"]
    assert member.target is member or member.target.id == member.id
    items = component["List"].elements
    assert [i.target.id for i in items] == [items[1].id, items[2].id, items[0].id]


def test_graph_validate_and_paths(tree: Any) -> None:
    from brson.graph.refs import ReferenceGraph
    from brson.ops.validate import validate

    def graph() -> int:
        g = ReferenceGraph.build(tree)
        g.locate_all()
        for ref in g:
            ref.to_dict()
        return len(g)

    assert finishes(graph) >= 6
    findings = finishes(lambda: validate(tree))
    assert isinstance(findings, list)
    codes = {f.code for f in findings}
    assert codes, "a duplicate ID and a looping ParentReference should be reported"
    for slot in tree.walk():
        assert finishes(partial(getattr, slot, "path")).count("/") == slot.depth
        finishes(slot.global_matrix)


@pytest.mark.parametrize("selector", ["Root/A", "Root/A/B", "Root/A/B/C"])
def test_extract_and_edit_on_cycles(tree: Any, selector: str) -> None:
    part = finishes(lambda: extract(tree, selector).tree)
    if not isinstance(part, BrsonError):
        finishes(lambda: brson.loads(brson.dumps(part, "none")).root.name)
    slot = tree.find(selector)
    slot.name = "renamed"
    again = brson.loads(brson.dumps(tree, "none"))
    assert "renamed" in [s.name for s in again.walk()]


@pytest.mark.parametrize(
    "argv",
    [
        ["info", "{f}"],
        ["tree", "{f}", "--json"],
        ["refs", "{f}", "--json"],
        ["refs", "{f}"],
        ["validate", "{f}"],
        ["extract", "{f}", "-s", "Root/A/B", "-o", "{o}/b.brson"],
        ["diff", "{f}", "{f}"],
        ["export-godot", "{f}", "-o", "{o}/x.tscn"],
        ["delete", "{f}", "Root/A/B", "-o", "{o}/d.brson"],
    ],
    ids=lambda a: "-".join(a[:2]).replace("{f}", "").strip("-"),
)
def test_cli_on_cycles(tmp_path: Path, argv: list[str]) -> None:
    path = tmp_path / "cycles.brson"
    path.write_bytes(brson.dumps(cyclic_tree(), "brotli"))
    code, _, err = run_cli([a.format(f=path, o=tmp_path) for a in argv], seconds=20)
    assert "internal error" not in err, err
    assert code in (0, 1, 2)
