"""The pair cut (:func:`brson.ops.engine.cut_pair`: slots whose subtree and parent are the same
on both sides left out) gives the same patch body, hence the same diff, as cutting both
documents whole, on real samples edited every way a tree changes; and it does leave them
out."""

from __future__ import annotations

import copy
import random
import struct
from pathlib import Path
from typing import Any

import pytest

import brson
from brson.document import bsondoc
from brson.ops import engine
from brson.ops.diff import Diff, render
from brson.ops.patchform import structural

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
NAMES = (
    "orange3134_AvatarRootIdentification.brson",
    "orange3134_loading_standin.brson",
    "mar_AimConstraint.pg.brson",
    "redx_5ce7cdf5.7zbson",
)
EDITS = (
    "rename",
    "float",
    "move",
    "remove",
    "add",
    "drop_component",
    "move_component",
    "swap",
    "twin_ids",
    "lose_id",
    "types",
)


def _doc(name: str) -> dict[str, Any]:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"real sample {name} not present")
    return bsondoc.decode(brson.load(path).to_bson())


def _slots(doc: dict[str, Any]) -> list[dict[str, Any]]:
    out, stack = [], [doc["Object"]]
    while stack:
        slot = stack.pop()
        out.append(slot)
        stack.extend(reversed(slot.get("Children") or []))
    return out


def _components(slot: dict[str, Any]) -> list[dict[str, Any]]:
    member = slot.get("Components")
    return member["Data"] if isinstance(member, dict) else []


def _new_id(rng: random.Random) -> str:
    return f"{rng.getrandbits(32):08x}-1111-2222-3333-{rng.getrandbits(48):012x}"


def _edit(doc: dict[str, Any], kind: str, rng: random.Random) -> None:
    slots = _slots(doc)
    inner = slots[1:] or slots
    slot = rng.choice(inner)
    parents = {id(kid): s for s in slots for kid in s.get("Children") or []}
    owners = [s for s in slots if _components(s)]
    if kind == "rename":
        slot["Name"]["Data"] = f"{slot['Name']['Data']} (renamed)"
    elif kind == "float":  # same width: the ancestors keep their lengths
        for component in (c for s in owners for c in _components(s)):
            for member in component["Data"].values():
                if isinstance(member, dict) and type(member.get("Data")) is float:
                    member["Data"] = struct.unpack("<d", struct.pack("<d", member["Data"] + 1))[0]
                    return
    elif kind in ("move", "remove") and id(slot) in parents:
        parents[id(slot)]["Children"].remove(slot)
        if kind == "move":
            target = rng.choice([s for s in _slots(doc) if s is not slot])
            target.setdefault("Children", []).append(slot)
    elif kind == "add":
        kid = copy.deepcopy(slot)
        kid["ID"] = _new_id(rng)
        kid["Children"] = []
        kid["Components"]["Data"] = []
        slot.setdefault("Children", []).append(kid)
    elif kind in ("drop_component", "move_component") and owners:
        owner = rng.choice(owners)
        component = _components(owner).pop()
        if kind == "move_component":
            _components(rng.choice(owners)).append(component)
    elif kind == "swap":
        wide = [s for s in slots if len(s.get("Children") or []) > 1]
        if wide:
            kids = rng.choice(wide)["Children"]
            kids[0], kids[-1] = kids[-1], kids[0]
    elif kind == "twin_ids" and len(inner) > 1:
        a, b = rng.sample(inner, 2)
        b["ID"] = a["ID"]
    elif kind == "lose_id":
        del slot["ID"]
    elif kind == "types" and len(doc.get("Types") or []) > 1:
        doc["Types"].append("[FrooxEngine]FrooxEngine.Unused")


def _both(a: bytes, b: bytes) -> tuple[dict[str, Any], list[str], dict[str, Any], list[str]]:
    pa, pb = engine.cut_pair(a, b)
    fa, fb = engine.Parts(a), engine.Parts(b)
    pair_body, whole_body = structural(pa, pb), structural(fa, fb)
    pair_diff, whole_diff = Diff(), Diff()
    render(pair_body, pa, pb, pair_diff)
    render(whole_body, fa, fb, whole_diff)
    assert (pa.exact and pb.exact) == (fa.exact and fb.exact)
    return pair_body, list(pair_diff.lines()), whole_body, list(whole_diff.lines())


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", range(8))
def test_pair_cut_is_the_whole_cut(name: str, seed: int) -> None:
    rng = random.Random(seed)
    base = _doc(name)
    edited = copy.deepcopy(base)
    for _ in range(rng.randint(1, 3)):
        _edit(edited, rng.choice(EDITS), rng)
    a, b = bsondoc.encode(base), bsondoc.encode(edited)
    for x, y in ((a, b), (b, a)):
        pair_body, pair_lines, whole_body, whole_lines = _both(x, y)
        assert pair_body == whole_body
        assert pair_lines == whole_lines


@pytest.mark.parametrize("kind", EDITS)
def test_each_edit_alone(kind: str) -> None:
    base = _doc("orange3134_AvatarRootIdentification.brson")
    edited = copy.deepcopy(base)
    _edit(edited, kind, random.Random(7))
    a, b = bsondoc.encode(base), bsondoc.encode(edited)
    pair_body, pair_lines, whole_body, whole_lines = _both(a, b)
    assert pair_body == whole_body
    assert pair_lines == whole_lines


def test_equal_subtrees_are_left_out() -> None:
    """One slot renamed: only it and its ancestors are cut, on each side."""
    base = _doc("orange3134_AvatarRootIdentification.brson")
    edited = copy.deepcopy(base)
    slots = _slots(edited)
    deepest = max(slots[1:], key=lambda s: 0 if s.get("Children") else 1)
    deepest["Name"]["Data"] = "renamed"
    a, b = bsondoc.encode(base), bsondoc.encode(edited)
    pa, pb = engine.cut_pair(a, b)
    whole = engine.Parts(b)
    if engine.spans.slot_walk(b, whole.object) is None:
        pytest.skip("the compiled walk is off: both sides are cut whole")
    assert len(pb.slots.raws) < len(whole.slots.raws) // 2
    assert list(pa.slots.raws) == list(pb.slots.raws)
    chain, key = [], deepest["ID"]
    while key is not None:
        chain.append(key)
        key = whole.parent[key]
    assert set(pb.slots.raws) == set(chain)


def _chain(depth: int, leaf_name: str) -> bytes:
    """A chain of ``depth`` slots, the last named ``leaf_name``."""
    slot: dict[str, Any] = {}
    for level in reversed(range(depth)):
        name = leaf_name if level == depth - 1 else f"slot {level}"
        slot = {
            "ID": f"{level:08x}-0000-0000-0000-000000000000",
            "Components": {"ID": f"{level:08x}-0000-0000-0000-00000000c0de", "Data": []},
            "Name": {"ID": f"{level:08x}-0000-0000-0000-00000000face", "Data": name},
            "Children": [slot] if slot else [],
        }
    return bsondoc.encode({"VersionNumber": "2022.1.28.1310", "Types": [], "Object": slot})


def test_equal_length_ancestors_are_compared_in_linear_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A leaf edited without changing its length leaves every ancestor's length equal, so
    each would be compared whole: quadratic in the depth, but the comparisons stop at a
    budget of the documents' size."""
    compared: list[int] = []
    real = engine.same_bytes

    def spy(data_a: bytes, start_a: int, data_b: bytes, start_b: int, size: int) -> bool:
        compared.append(size)
        return real(data_a, start_a, data_b, start_b, size)

    monkeypatch.setattr(engine, "same_bytes", spy)

    def work(depth: int) -> int:
        compared.clear()
        a, b = _chain(depth, "leaf AAAA"), _chain(depth, "leaf BBBB")
        if engine.spans.slot_walk(a, engine.Parts(a).object) is None:
            pytest.skip("the compiled walk is off: both sides are cut whole")
        _, pb = engine.cut_pair(a, b)
        assert len(pb.slots.raws) == depth  # every ancestor differs
        return sum(compared)

    n = 60
    w1, w2, w4 = work(n), work(2 * n), work(4 * n)
    assert (w4 - w2) / (w2 - w1) <= 2.5, (w1, w2, w4)
