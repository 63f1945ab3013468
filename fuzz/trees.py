"""Structure-aware fuzzing: hostile *data trees* through every command (issue 12).

Byte-level fuzzing of ``loads`` rarely gets past the codecs and the BSON checks, so it never
reaches what operations do with a well-formed document that is a hostile tree. Here the input
bytes seed a generator that starts from a real tree (the fixtures and samples) and applies
tree-level mutations: every BSON type in every place (JavaScript code, Decimal128, binary,
regex, datetime, MinKey, documents and lists where strings or numbers belong), deep and wide
slots, reference chains and cycles, duplicate IDs, odd and long names, missing keys, broken
type tables. Each tree then goes through every command in-process. The contract: exit code
0, 1 or 2, and never "internal error" (the library raised something other than BrsonError).
"""

from __future__ import annotations

import copy
import datetime
import random
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import bson
from bson.binary import Binary
from bson.code import Code
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from bson.objectid import ObjectId
from bson.regex import Regex
from bson.timestamp import Timestamp

ROOT = Path(__file__).resolve().parent.parent
BASES = [
    ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson",
    ROOT / "fixtures" / "real" / "orange3134_AvatarRootIdentification.brson",
    ROOT.parent / "shared" / "samples" / "redx_5ce7cdf5.7zbson",
    ROOT.parent / "shared" / "samples" / "mar_AimConstraint.pg.brson",
]

Doc = dict[str, Any]


@cache
def base_documents() -> tuple[bytes, ...]:
    import brson

    return tuple(brson.load(p).to_bson() for p in BASES if p.is_file())


def hostile_value(rng: random.Random) -> Any:
    choices: list[Callable[[], Any]] = [
        lambda: Code("function(){}"),
        lambda: Code("x", {"a": 1}),
        lambda: Decimal128("1.5"),
        lambda: Binary(b"\x00\xff" * rng.randrange(4)),
        lambda: Regex("a+", "i"),
        lambda: datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC),
        lambda: MinKey(),
        lambda: MaxKey(),
        lambda: ObjectId(b"\x01" * 12),
        lambda: Timestamp(1, 2),
        lambda: Int64(rng.choice([0, -1, 2**63 - 1, -(2**63), 7])),
        lambda: rng.choice([0, -1, 2**31 - 1, -(2**31), 3]),
        lambda: rng.choice([0.0, -0.0, float("nan"), float("inf"), 1e308, -1e308, 5e-324]),
        lambda: None,
        lambda: rng.choice([True, False]),
        lambda: "",
        lambda: "[/]<b>" * rng.randrange(1, 50),
        lambda: "x" * rng.choice([1, 1000, 20000]),
        lambda: "A<" * 200 + "B" + ">" * 200,
        lambda: "00000000-0000-0000-0000-000000000000",
        lambda: [],
        lambda: [hostile_scalar(rng) for _ in range(rng.randrange(6))],
        lambda: {},
        lambda: {"$ref": "x", "$id": 1},
        lambda: {"ID": "dup", "Data": hostile_scalar(rng)},
        lambda: _nested(rng.randrange(1, 90)),
    ]
    return rng.choice(choices)()


def hostile_scalar(rng: random.Random) -> Any:
    return rng.choice([Code("c"), Decimal128("2"), Int64(5), 5, 1.5, None, "s", True, Binary(b"")])


def _nested(depth: int) -> Any:
    value: Any = 1
    for i in range(depth):
        value = [value] if i % 2 else {"d": value}
    return value


def _containers(doc: Any) -> list[tuple[Any, Any]]:
    """(container, key) of every value in the document, iteratively."""
    out: list[tuple[Any, Any]] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            out.append((node, key))
            if isinstance(value, dict | list):
                stack.append(value)
    return out


def _slots(doc: Doc) -> list[Doc]:
    out, stack = [], [doc.get("Object")]
    while stack:
        slot = stack.pop()
        if isinstance(slot, dict):
            out.append(slot)
            children = slot.get("Children")
            if isinstance(children, list):
                stack.extend(children)
    return out


def _ids(doc: Doc) -> list[str]:
    return [v for c, k in _containers(doc) if k == "ID" and isinstance(v := c[k], str)]


def replace_value(doc: Doc, rng: random.Random) -> None:
    spots = _containers(doc)
    if spots:
        container, key = rng.choice(spots)
        container[key] = hostile_value(rng)


def duplicate_id(doc: Doc, rng: random.Random) -> None:
    spots = [(c, k) for c, k in _containers(doc) if k in ("ID", "ParentReference")]
    ids = _ids(doc)
    if spots and ids:
        container, key = rng.choice(spots)
        container[key] = rng.choice(ids)


def reference_cycle(doc: Doc, rng: random.Random) -> None:
    """Values naming their own element, a slot's ParentReference naming a descendant, and
    chains of references from one component to the next."""
    ids = _ids(doc)
    spots = [(c, k) for c, k in _containers(doc) if k == "Data" and isinstance(c[k], str)]
    for container, _ in spots[: rng.randrange(1, 200)]:
        if ids:
            container["Data"] = rng.choice(ids)
    slots = _slots(doc)
    if len(slots) > 1:
        slot = rng.choice(slots)
        if slot.get("Children"):
            child = slot["Children"][0]
            if isinstance(child, dict) and isinstance(slot.get("ParentReference"), str):
                slot["ParentReference"] = child.get("ID")


def deep_slots(doc: Doc, rng: random.Random) -> None:
    slots = _slots(doc)
    if not slots:
        return
    template = _leaf_copy(rng.choice(slots))
    top = rng.choice(slots)
    node = top
    for i in range(rng.choice([10, 100, 250])):
        child = copy.deepcopy(template)
        child["ID"] = f"deep{i:08d}-0000-0000-0000-000000000000"
        if isinstance(node.get("Children"), list):
            node["Children"].append(child)
        node = child


def wide_slots(doc: Doc, rng: random.Random) -> None:
    slots = _slots(doc)
    if not slots:
        return
    top = rng.choice(slots)
    if isinstance(top.get("Children"), list) and top["Children"]:
        kid = top["Children"][0]
        if isinstance(kid, dict):
            leaf = _leaf_copy(kid)
            top["Children"].extend(copy.deepcopy(leaf) for _ in range(rng.choice([5, 300])))


def _leaf_copy(slot: Doc) -> Doc:
    """A slot without its children (copying a deep subtree would recurse in deepcopy)."""
    return {k: ([] if k == "Children" else copy.deepcopy(v)) for k, v in slot.items()}


def odd_names(doc: Doc, rng: random.Random) -> None:
    for slot in _slots(doc)[: rng.randrange(1, 50)]:
        name = slot.get("Name")
        if isinstance(name, dict):
            name["Data"] = rng.choice(["[/]", "a/b", ".", "", "\u202e", "x" * 5000, "Relay"])


def drop_key(doc: Doc, rng: random.Random) -> None:
    spots = [(c, k) for c, k in _containers(doc) if isinstance(c, dict)]
    if spots:
        container, key = rng.choice(spots)
        del container[key]


def type_table(doc: Doc, rng: random.Random) -> None:
    types = doc.get("Types")
    if isinstance(types, list) and types:
        types[rng.randrange(len(types))] = hostile_value(rng)
    for slot in _slots(doc)[:20]:
        comps = slot.get("Components")
        data = comps.get("Data") if isinstance(comps, dict) else None
        if isinstance(data, list) and data and isinstance(data[0], dict):
            data[0]["Type"] = rng.choice([-1, 10**6, Int64(2**40), "X<", Code("t"), None])


MUTATIONS = [
    replace_value,
    replace_value,
    duplicate_id,
    reference_cycle,
    deep_slots,
    wide_slots,
    odd_names,
    drop_key,
    type_table,
]


def hostile_tree(data: bytes) -> bytes:
    """A hostile tree's BSON, determined by ``data``."""
    rng = random.Random(data)
    bases = base_documents()
    doc = bson.decode(rng.choice(bases))
    for _ in range(1 + rng.randrange(4)):
        rng.choice(MUTATIONS)(doc, rng)
    try:
        return bson.encode(doc)
    except Exception:  # a mutation BSON cannot encode (e.g. a key pymongo refuses)
        return rng.choice(bases)


def _commands(path: str, other: str, out: Path, slot: str) -> list[list[str]]:
    o = str(out)
    return [
        ["info", path],
        ["validate", path, "--format", "json"],
        ["tree", path, "--components"],
        ["refs", path],
        ["vars", path],
        ["to-json", path, "-o", o + "/j.json"],
        ["from-json", o + "/j.json", "-o", o + "/j.brson"],
        ["convert", path, o + "/c.7zbson"],
        ["extract", path, "--slot", slot, "-o", o + "/e.brson"],
        ["extract", path, "--slot", slot, "--external", "null", "-o", o + "/e2.brson"],
        ["import", other, path, "--slot", slot, "-o", o + "/i.brson"],
        ["diff", path, other],
        ["rename", path, slot, "renamed", "-o", o + "/r.brson"],
        ["merge", path, path, o + "/r.brson", "-o", o + "/m.bson"],
        ["merge", other, path, o + "/r.brson", "-o", o + "/m2.bson"],
        ["delete", path, slot, "--prune-types", "-o", o + "/d.brson"],
        ["renumber", path, "-o", o + "/n.brson"],
        ["export-godot", path, "-o", o + "/g.tscn", "--variant", o + "/g.bin"],
        ["export-godot", path, "--godot", "3", "-o", o + "/g3.tscn"],
        ["export-gltf", path, "-o", o + "/x.glb"],
    ]


def run_commands(tree_bson: bytes) -> list[str]:
    """Every command on one tree; returns the failures (empty: the contract held)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from brson.cli.app import main

    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "t.bson"
        path.write_bytes(tree_bson)
        other = folder / "o.bson"
        other.write_bytes(base_documents()[0])
        slot = _a_slot(tree_bson)
        for args in _commands(str(path), str(other), folder, slot):
            err, out = io.StringIO(), io.StringIO()
            with redirect_stderr(err), redirect_stdout(out):
                code = main(args)
            text = err.getvalue()
            if "internal error" in text or code not in (0, 1, 2):
                failures.append(f"{args[0]}: exit {code}: {text.strip()[:300]}")
    return failures


def _a_slot(tree_bson: bytes) -> str:
    try:
        doc = bson.decode(tree_bson)
        slots = _slots(doc)
        for slot in slots[1:]:
            if isinstance(slot.get("ID"), str):
                return str(slot["ID"])
    except Exception:
        pass
    return "Visual"


def fuzz_one(data: bytes) -> None:
    """The fuzz target: a finding is an AssertionError naming the commands that broke."""
    failures = run_commands(hostile_tree(data))
    if failures:
        raise AssertionError("; ".join(failures))
