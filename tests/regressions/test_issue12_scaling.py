"""Complexity guards for issue 12's quadratic paths fixed here (defects 9 and 12): the cost
at 2n must stay near twice the cost at n (measured in one run, CPU time, best of three, with a
floor for noise). The old code fails each by a wide margin (quadratic: about 4x)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import bson

import brson
from brson.ops.diff import diff
from brson.package import packdb_names

STANDIN = (
    Path(__file__).resolve().parents[2] / "fixtures" / "real" / "orange3134_loading_standin.brson"
)
FLOOR = 0.02  # seconds: below this, timing noise dominates


def _cost(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def _linear(make: Callable[[int], Callable[[], object]], n: int) -> tuple[float, float]:
    small, large = _cost(make(n)), _cost(make(2 * n))
    assert large <= 2.6 * small + FLOOR, f"n={n}: {small:.4f} s, 2n: {large:.4f} s"
    return small, large


def test_packdb_scan_is_linear_on_runs_of_string_type_bytes() -> None:
    """Defect 9: a regex scanning a key forward from every 0x02 byte (a 940-byte package made
    `assets` take 23 s)."""

    def make(n: int) -> Callable[[], object]:
        data = b"\x02" * n + b"\x00....no url"  # every 0x02 starts a key that ends at the NUL
        return lambda: packdb_names(data)

    _linear(make, 20_000)
    url = b"\x02Data\x00" + (13).to_bytes(4, "little") + b"@packdb:///a\x00"
    assert packdb_names(b"\x02" * 100 + b"\x00" + url) == ["a"]


def test_diff_of_duplicate_ids_is_linear() -> None:
    """Defect 12: diff probed #2, #3, ... from the start for every duplicate (10k: 15 s)."""
    doc = bson.decode(brson.load(STANDIN).to_bson())
    template = doc["Object"]["Children"][0]

    def make(n: int) -> Callable[[], object]:
        copy = bson.decode(bson.encode(doc))
        leaf = {k: v for k, v in template.items() if k != "Children"}
        leaf["Children"] = []
        copy["Object"]["Children"] = [dict(leaf) for _ in range(n)]  # n slots, one ID
        tree = brson.loads(bson.encode(copy), name="d.bson")
        return lambda: diff(tree, tree)

    _linear(make, 1500)


def test_deep_tree_of_long_names_gives_a_bounded_report() -> None:
    """Defect 10: every slot's full path was kept and printed; 2,000 levels of 1,000-character
    names (19 KB compressed) cost 2 GB in validate and a 502 MB scene. Paths in findings are
    now bounded and long paths are not memoized: the report grows with the findings, not
    with depth squared."""
    from brson.errors import MESSAGE_LIMIT, PATH_LIMIT
    from brson.ops.validate import validate

    data = _deep(300)  # the same tree the time guards below double
    findings = validate(brson.loads(data, name="deep.bson"))
    assert len(findings) >= 300  # duplicate IDs on every level: many findings, each bounded
    assert all(len(f.path or "") <= PATH_LIMIT + 1 for f in findings)
    assert all(len(f.message) <= MESSAGE_LIMIT + 1 for f in findings)
    assert sum(len(str(f)) for f in findings) < 20 * len(findings) * 1000


def _chain(n: int) -> bytes:
    """Slot ``S`` whose component references a component on another slot, which references
    the next, ``n`` links long (each link on its own slot under the root)."""
    doc = bson.decode(brson.load(STANDIN).to_bson())
    root = doc["Object"]
    slot_template = {k: v for k, v in root["Children"][0].items() if k != "Children"}
    component_template = root["Components"]["Data"][1]  # has a reference member, Target
    serial = iter(range(1, 1 << 30))

    def fresh() -> str:
        return f"{next(serial):08x}-cccc-0000-0000-000000000000"

    def slot(name: str, target: str | None) -> tuple[dict[str, object], str]:
        new = bson.decode(bson.encode(slot_template))
        for value in new.values():
            if isinstance(value, dict) and "ID" in value:
                value["ID"] = fresh()
        new.update({"ID": fresh(), "Persistent-ID": fresh(), "Children": []})
        new["Name"] = {"ID": fresh(), "Data": name}
        component = bson.decode(bson.encode(component_template))
        data = component["Data"]
        for value in data.values():
            if isinstance(value, dict):
                value["ID"] = fresh()
        data.update({"ID": fresh(), "persistent-ID": fresh()})
        data["Target"]["Data"] = target
        new["Components"] = {"ID": fresh(), "Data": [component]}
        return new, data["ID"]

    children: list[dict[str, object]] = []
    target: str | None = None
    for i in range(n):
        link, target = slot(f"L{i}", target)
        children.append(link)
    start, _ = slot("S", target)
    root["Children"] = [start, *reversed(children)]
    return bson.encode(doc)


def test_extract_and_import_follow_a_reference_chain_in_linear_time() -> None:
    """Defect 11: extract (and import, which extracts) walked the whole tree once per round
    of a reference chain, one link a round: 2.5k / 5k / 10k links took 2.6 / 8.5 / 33.5 s."""
    from brson.ops.extract import extract
    from brson.ops.importing import import_slot

    def make(n: int) -> Callable[[], object]:
        data = _chain(n)
        return lambda: extract(brson.loads(data, name="chain.bson"), "S")

    _linear(make, 2500)  # below ~2,000 links fixed costs make the ratio noisy
    data = _chain(300)
    result = extract(brson.loads(data, name="chain.bson"), "S")
    assert result.report.copied and len(result.report.copied) == 300  # every link came along
    target = brson.load(STANDIN)
    imported = import_slot(target, brson.loads(data, name="chain.bson"), "S")
    assert imported.report.components == 301


def test_variant_dictionary_of_colliding_keys_is_refused_in_linear_time() -> None:
    """Defect 14: Python's dict compares a key with every key of its hash; arrays of -1 and
    -2 (the two ints share a hash) all collide, so 1.4 MB of such keys took 41 s to decode.
    Past MAX_KEYS_PER_HASH keys of one hash the dictionary is refused, before the compares."""
    import itertools

    import pytest

    from brson.errors import VariantError
    from brson.godot import variant

    def colliding(n: int) -> bytes:
        # Encoded entry by entry: building the Python dict itself would be quadratic.
        head = bytearray(variant.dumps({}, godot=4))
        head[4:8] = n.to_bytes(4, "little")
        keys = itertools.islice(itertools.product((-1, -2), repeat=24), n)
        entries = b"".join(variant.dumps(k, godot=4) + variant.dumps(0, godot=4) for k in keys)
        return bytes(head) + entries

    assert len(variant.loads(colliding(variant.MAX_KEYS_PER_HASH), godot=4)) == 64

    def make(n: int) -> Callable[[], object]:
        data = colliding(n)

        def run() -> None:
            with pytest.raises(VariantError, match="keys of one hash"):
                variant.loads(data, godot=4)

        return run

    _linear(make, 3000)


def _deep(depth: int, name_length: int = 1000) -> bytes:
    """A chain of ``depth`` slots with long names (each slot a copy of a real one, so IDs
    repeat: every level also has findings and references to describe)."""
    import sys

    doc = bson.decode(brson.load(STANDIN).to_bson())
    leaf = {k: v for k, v in doc["Object"]["Children"][0].items() if k != "Children"}
    node = doc["Object"]
    for i in range(depth):
        name = {"ID": f"n{i}", "Data": f"{i:05d}" + "x" * name_length}
        child = dict(leaf, Children=[], Name=name)
        node["Children"] = [child]
        node = child
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        return bson.encode(doc)
    finally:
        sys.setrecursionlimit(limit)


def test_deep_trees_of_long_names_cost_linear_time() -> None:
    """Defect 10, time: a full path per slot (O(depth) each) made validate, refs, vars, the
    Godot scene and selector lookups quadratic in depth (2,000 levels: 13.8 s in validate).
    Each of these, at depth n and 2n, must cost about twice as much, not four times."""
    import pytest

    from brson.godot.export import export_scene
    from brson.graph import ReferenceGraph
    from brson.ops.extract import extract
    from brson.ops.validate import validate
    from brson.ops.variables import variables

    def describe_all(tree: brson.DataTree) -> None:
        for reference in ReferenceGraph.build(tree):
            reference.describe()

    def missing(tree: brson.DataTree) -> None:
        with pytest.raises(brson.SelectorError, match="no slot matches"):
            extract(tree, "00001xxxx")  # a name like many: the hint compares them all

    operations: dict[str, Callable[[brson.DataTree], object]] = {
        "validate": validate,
        "refs": describe_all,
        "vars": variables,
        "godot": lambda tree: export_scene(tree, 4).tscn(),
        "select": lambda tree: tree.find_all("Root/no/such/slot"),
        "hint": missing,
    }
    for name, operation in operations.items():

        def make(
            n: int, operation: Callable[[brson.DataTree], object] = operation
        ) -> Callable[[], object]:
            data = _deep(n)
            return lambda: operation(brson.loads(data, name="deep.bson"))

        small, large = _cost(make(250)), _cost(make(500))
        assert large <= 2.6 * small + FLOOR, f"{name}: n=250: {small:.4f} s, 2n: {large:.4f} s"


def test_godot_scene_is_bounded_for_deep_trees_of_long_names() -> None:
    """Defect 10, output: a scene spells each node's whole path in ``parent=``; 2,000 levels of
    1,000-character names wrote 2 GB. Node names are capped (the slot's name stays whole in
    the node's metadata) and trees deeper than the limit are refused with one error."""
    import pytest

    from brson.errors import VariantError
    from brson.godot import tscn
    from brson.godot.export import META_NAME, export_scene

    data = _deep(300)
    scene = export_scene(brson.loads(data, name="deep.bson"), 4)
    text = scene.tscn()
    assert len(text) < 300 * 300 * (tscn.MAX_NODE_NAME + 1)  # was 300 * 300 * 1006 / 2
    deepest = scene.nodes[-1][0]
    assert deepest.metadata[META_NAME] == "00299" + "x" * 1000  # nothing lost
    with pytest.raises(VariantError, match="levels deep"):
        export_scene(brson.loads(_deep(tscn.MAX_SCENE_DEPTH + 1, 10), name="d.bson"), 4).tscn()
