"""validate's compiled read of ProtoFlux nodes (``_fieldsc.nodes``,
:func:`brson.ops.validate.slotpass.node_reads`) against its reference,
:func:`brson.flux.model.connectable` of the component decoded.

Differential, component by component: on every node the slot pass lists in the samples and
fixtures, on real nodes changed where the read looks (members' IDs and Data, list items,
types, the component's ID, repeated keys, deeper documents) and on cut and shifted spans,
``nodes`` answers what the decoded component gives, or None (it is then decoded).  Whole
trees: ``validate`` reports the same with the compiled read and with every node decoded.
"""

from __future__ import annotations

import copy
import random
import struct
from array import array
from typing import Any

import bson
import pytest
from bson.errors import BSONError
from bson.int64 import Int64

from brson._speedups import built
from brson.document.bsondoc import decode_bytes
from brson.flux.model import connectable
from brson.model.tree import DataTree
from brson.ops.validate import slotpass
from brson.ops.validate.context import GUID_FORM
from brson.ops.validate.protoflux import ProtoFluxRules
from tests.conftest import SAMPLES
from tests.differential import loadable_trees
from tests.ops.test_slotpass import _both_ways
from tests.ops.test_slotpass import _verdicts as slotpass_verdicts

fieldsc = built("_fieldsc")
needs_c = pytest.mark.skipif(fieldsc is None, reason="validate's C loop is not built")


def _reference(data: bytes, mask: bytes, referenced: set[str]) -> Any:
    """What ``nodes`` must answer for one component's bytes, when it answers."""
    doc = decode_bytes(data)
    raw, fields = doc.get("Type"), doc.get("Data")
    assert type(raw) in (int, Int64) and 0 <= raw < len(mask) and mask[raw]
    assert type(fields) is dict
    return (int(raw), fields["ID"], connectable(fields, referenced))


def _check(buf: bytes, spans: list[tuple[int, int]], mask: bytes, referenced: set[str]) -> int:
    """``nodes`` over these spans of ``buf`` against the reference; how many it read."""
    flat = array("q", [value for start, end in spans for value in (start, end, 0)])
    got = fieldsc.nodes(buf, flat.tobytes(), *GUID_FORM, slotpass.NODE_NAMES, mask, referenced)
    assert len(got) == len(spans)
    read = 0
    for (start, end), answer in zip(spans, got, strict=True):
        if answer is not None:
            assert answer == _reference(buf[start:end], mask, referenced), (start, end)
            read += 1
    return read


def _tree_nodes(tree: DataTree) -> tuple[list[tuple[int, int]], bytes, set[str], set[int]] | None:
    """The ProtoFlux component spans the slot pass lists, the node mask, the referenced IDs
    and the node type indices; None where the pass declines the tree."""
    got = slotpass_verdicts(tree)
    if got is None:
        return None
    ctx, found, _ = got
    assert ctx.census is not None
    flux = ProtoFluxRules()
    flux.root(ctx)
    spans = [(found.flux[at], found.flux[at + 1]) for at in range(0, len(found.flux), 3)]
    mask = flux.node_mask(ctx)
    return spans, mask, ctx.census.defined_values, {i for i, node in enumerate(mask) if node}


def _node_trees() -> list[str]:
    return sorted(name for name, tree in loadable_trees().items() if (_tree_nodes(tree) or [[]])[0])


@needs_c
@pytest.mark.parametrize("name", _node_trees())
def test_every_listed_node_is_read_as_decoded(name: str) -> None:
    tree = loadable_trees()[name]
    found = _tree_nodes(tree)
    assert found is not None
    spans, mask, referenced, node_types = found
    nodes = [s for s in spans if decode_bytes(tree.buffer[s[0] : s[1]])["Type"] in node_types]
    # every node of a real file is read from its bytes, none decoded
    assert _check(tree.buffer, spans, mask, referenced) == len(nodes)


def test_real_files_have_nodes() -> None:
    """The differential tests above are not empty: the real samples hold nodes."""
    if not (SAMPLES / "mar_AimConstraint.pg.brson").exists():
        pytest.skip("the shared samples are not here")
    found = _tree_nodes(loadable_trees()["mar_AimConstraint.pg.brson"])
    assert found is not None and len(found[0]) > 50


def _real_nodes() -> tuple[list[dict[str, Any]], int]:
    """Node components of the samples, decoded, and the size of a node mask for them all."""
    docs: list[dict[str, Any]] = []
    size = 0
    for name in _node_trees():
        tree = loadable_trees()[name]
        found = _tree_nodes(tree)
        assert found is not None
        spans, mask, _, node_types = found
        size = max(size, len(mask))
        for start, end in spans:
            doc = decode_bytes(tree.buffer[start:end])
            if doc["Type"] in node_types:
                docs.append(doc)
    return docs, size


_GUID = "0000002a-0000-0000-0000-000000000000"


def _mutate(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A node's document changed where ``nodes`` reads: member IDs and Data, list items,
    the component's ID and Type, nesting, odd keys."""
    doc = copy.deepcopy(doc)
    data = doc["Data"]
    members = [key for key, value in data.items() if type(value) is dict] or ["ID"]
    key = rng.choice(members)
    member = data.get(key)
    pick = rng.randrange(14)
    if pick == 0 and type(member) is dict:
        member["Data"] = _GUID
    elif pick == 1 and type(member) is dict:
        member["Data"] = [{"ID": _GUID, "Data": _GUID}, {"Data": 3}, 5, {"ID": _GUID}, None]
    elif pick == 2 and type(member) is dict:
        member["Data"] = rng.choice([_GUID.upper(), _GUID[:-1] + "g", "", "é" * 36, None, 1.5])
    elif pick == 3 and type(member) is dict:
        member["ID"] = rng.choice([_GUID, 7, None, "x", _GUID.replace("-", "_")])
    elif pick == 4 and type(member) is dict:
        member.pop(rng.choice(["ID", "Data"]), None)
    elif pick == 5:
        data["ID"] = rng.choice([None, 12, "not an id", _GUID])
    elif pick == 6:
        doc["Type"] = rng.choice([Int64(doc["Type"]), -1, 1 << 20, "Some.Type", True])
    elif pick == 7:
        doc["Data"] = rng.choice([[], "text", None])
    elif pick == 8 and type(member) is dict:
        member["Data"] = {"nested": [{"Data": _GUID}], "ID": _GUID}
    elif pick == 9:
        data["_internal"] = {"ID": _GUID, "Data": _GUID}
    elif pick == 10:
        data[key] = rng.choice([_GUID, 3, [_GUID]])
    elif pick == 11 and type(member) is dict:
        member["Data"] = [{"Data": _GUID, "more": {"deep": [1, 2.5, True, None]}}] * 3
    elif pick == 12:
        data["$ref"] = {"ID": _GUID, "Data": _GUID}
    else:
        doc.pop(rng.choice(["Type", "Data"]))
    return doc


@needs_c
def test_changed_nodes() -> None:
    docs, size = _real_nodes()
    if not docs:
        pytest.skip("no ProtoFlux node in the samples here")
    rng = random.Random(29)
    mask = bytes(1 for _ in range(size))
    read = 0
    for _ in range(1500):
        original = rng.choice(docs)
        # some member IDs are named by a reference, some not
        referenced = {_GUID} | {
            value["ID"] for value in original["Data"].values() if type(value) is dict
        }
        referenced = {value for value in referenced if rng.random() < 0.6}
        buf = bson.encode(_mutate(original, rng))
        read += _check(buf, [(0, len(buf))], mask, referenced)
    assert read > 500  # most changes keep a node the compiled read takes


def _repeat_key(buf: bytes) -> bytes:
    """A component's bytes with its first member's key written over the next member's."""
    doc = bson.decode(buf)
    keys = [key for key, value in doc["Data"].items() if type(value) is dict]
    if len(keys) < 2:
        return buf
    first, second = (k.encode() + b"\x00" for k in keys[:2])
    if len(first) != len(second):
        return buf
    return buf.replace(b"\x03" + second, b"\x03" + first, 1)


@needs_c
def test_cut_shifted_and_repeated_keys() -> None:
    """Spans that frame no component, or one whose bytes pymongo reads otherwise (a key
    repeated: it keeps the last value), are never answered wrong."""
    docs, size = _real_nodes()
    if not docs:
        pytest.skip("no ProtoFlux node in the samples here")
    rng = random.Random(7)
    mask = bytes(1 for _ in range(size))
    for doc in docs[:200]:
        buf = bson.encode(doc)
        spans = [(0, len(buf)), (1, len(buf)), (0, len(buf) - 1), (4, len(buf)), (0, 5)]
        answers = fieldsc.nodes(
            buf,
            array("q", [v for s, e in spans for v in (s, e, 0)]).tobytes(),
            *GUID_FORM,
            slotpass.NODE_NAMES,
            mask,
            set(),
        )
        assert answers[0] is not None and answers[1:] == [None] * 4
        twice = _repeat_key(buf)
        if twice != buf:
            _check(twice, [(0, len(twice))], mask, set())
        broken = bytearray(buf)
        at = rng.randrange(4, len(buf) - 1)
        broken[at] = rng.randrange(256)
        try:
            decode_bytes(bytes(broken))
        except (BSONError, ValueError, OverflowError, RecursionError):  # nodes must not answer
            got = fieldsc.nodes(
                bytes(broken),
                struct.pack("<3q", 0, len(buf), 0),
                *GUID_FORM,
                slotpass.NODE_NAMES,
                mask,
                set(),
            )
            assert got == [None]
        else:
            _check(bytes(broken), [(0, len(buf))], mask, set())


@needs_c
@pytest.mark.parametrize("name", _node_trees())
def test_same_findings_with_nodes_decoded(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # every node decoded: node_reads answers None for each
    off = (slotpass, "node_reads", lambda tree, spans, ats, mask, referenced: [None] * len(ats))
    _both_ways(loadable_trees()[name].buffer, f"{name}.bson", monkeypatch, off)
