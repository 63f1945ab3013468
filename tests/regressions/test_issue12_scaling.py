"""Complexity guards for issue 12's quadratic paths (defects 9 to 12 and 14): the work an
operation does at n, 2n and 4n must grow linearly. Work is counted, not timed, so a guard gives
the same answer on a loaded machine (a timed version failed once under load; speed itself is
measured in ``benchmarks/``, see docs/performance.md, "Complexity guards"):

- every line of brson's own code the operation executes (``sys.settrace``), and
- where a path is the cost, the characters of every :attr:`Slot.path` made (a spy that calls
  the real property).

Linear work ``a + b*n`` has ``w(4n) - w(2n) == 2 * (w(2n) - w(n))`` exactly, whatever the fixed
cost; quadratic work makes that factor approach 4. Each guard was checked against its old
quadratic code (about 3 to 4; the fixed code gives 2.0 to 2.1). Work done inside a C
accelerator is invisible to the line count: ``make test`` also runs this file with
``BRSON_PURE_PYTHON=1`` (PURE_TESTS), where the Python reference does that work in lines."""

from __future__ import annotations

import functools
import gc
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import bson
import pytest

import brson
from brson.gltf import export_gltf
from brson.godot.export import export_scene
from brson.godot.stream import stream_scene
from brson.graph import ReferenceGraph
from brson.graph.refs import ReferenceListing
from brson.model.slot import Slot
from brson.ops.diff import diff
from brson.ops.extract import extract
from brson.ops.validate import validate
from brson.ops.variables import variables
from brson.package import packdb_names

pytestmark = pytest.mark.slow  # each guard traces its operation at three sizes

STANDIN = (
    Path(__file__).resolve().parents[2] / "fixtures" / "real" / "orange3134_loading_standin.brson"
)
BRSON_CODE = str(Path(brson.__file__).resolve().parent) + os.sep
#: ``w(4n) - w(2n)`` over ``w(2n) - w(n)``: 2 when linear (a sort's log factor gives 2.1), up
#: to 4 when quadratic; the old code of each guard gave 3.1 to 3.9.
GROWTH = 2.5


def _lines(run: Callable[[], object], code: str = BRSON_CODE) -> int:
    """Lines of brson's own code (or of the part under ``code``) that ``run`` executes: the
    same count on every run."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def enter(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename.startswith(code) else None

    # A collection inside would run what it frees (an abandoned walk's ``finally``), so none
    # runs there but those brson asks for (``collector.drop_cycles``: the youngest
    # generation), which start from an empty one. Not a full collection first: in a test
    # process late in the suite it walks everything earlier tests keep (0.3 s each time).
    gc.collect(0)
    enabled = gc.isenabled()
    gc.disable()
    previous = sys.gettrace()
    sys.settrace(enter)
    try:
        run()
    finally:
        sys.settrace(previous)
        if enabled:
            gc.enable()
    return count


@contextmanager
def _path_characters(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Characters of every :attr:`Slot.path` made while inside (one item, updated): a path is
    depth times name length, so making one per slot is quadratic work in C's string joins,
    which the line count alone does not see."""
    made = [0]
    real = Slot.path

    def spy(slot: Slot) -> str:
        assert real.fget is not None
        text: str = real.fget(slot)
        made[0] += len(text)
        return text

    with monkeypatch.context() as patch:
        patch.setattr(Slot, "path", property(spy))
        yield made


def _linear(work: Callable[[int], int], n: int, what: str = "") -> None:
    work(n)  # first use: lazy imports and caches would count towards n alone
    small, middle, large = work(n), work(2 * n), work(4 * n)
    first, second = middle - small, large - middle
    assert second <= GROWTH * first, (
        f"{what} work at n={n}, 2n, 4n: {small}, {middle}, {large} (growth "
        f"{second / first if first else float('inf'):.2f}, linear is 2)"
    )


def test_packdb_scan_is_linear_on_runs_of_string_type_bytes() -> None:
    """Defect 9: a regex scanning a key forward from every 0x02 byte (a 940-byte package made
    `assets` take 23 s). That work is the regex engine's, which no count here sees: its guard
    is ``benchmarks/scaling.py --check`` (CPU time at n and 2n). This one keeps the Python
    side linear (a loop over the 0x02 bytes, each looking ahead, would fail it)."""

    def work(n: int) -> int:
        data = b"\x02" * n + b"\x00....no url"  # every 0x02 starts a key that ends at the NUL
        return _lines(lambda: packdb_names(data))

    _linear(work, 2_000)
    url = b"\x02Data\x00" + (13).to_bytes(4, "little") + b"@packdb:///a\x00"
    assert packdb_names(b"\x02" * 100 + b"\x00" + url) == ["a"]


def test_diff_of_duplicate_ids_is_linear() -> None:
    """Defect 12: diff probed #2, #3, ... from the start for every duplicate (10k: 15 s)."""
    doc = bson.decode(brson.load(STANDIN).to_bson())
    template = doc["Object"]["Children"][0]

    def work(n: int) -> int:
        copy = bson.decode(bson.encode(doc))
        leaf = {k: v for k, v in template.items() if k != "Children"}
        leaf["Children"] = []
        copy["Object"]["Children"] = [dict(leaf) for _ in range(n)]  # n slots, one ID
        tree = brson.loads(bson.encode(copy), name="d.bson")
        return _lines(lambda: diff(tree, tree))

    _linear(work, 100)


def test_deep_tree_of_long_names_gives_a_bounded_report() -> None:
    """Defect 10: every slot's full path was kept and printed; 2,000 levels of 1,000-character
    names (19 KB compressed) cost 2 GB in validate and a 502 MB scene. Paths in findings are
    now bounded and long paths are not memoized: the report grows with the findings, not
    with depth squared."""
    from brson.errors import MESSAGE_LIMIT, PATH_LIMIT
    from brson.ops.validate import validate

    data = _deep_cached(128)  # the deepest tree the time guards below build
    findings = validate(brson.loads(data, name="deep.bson"))
    assert len(findings) >= 128  # duplicate IDs on every level: many findings, each bounded
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


def test_extract_and_import_follow_a_reference_chain_in_linear_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Defect 11: extract (and import, which extracts) walked the whole tree once per round
    of a reference chain, one link a round: 2.5k / 5k / 10k links took 2.6 / 8.5 / 33.5 s.
    Rounds now look targets up in the component spans, built once per tree per extract
    (counted: with the compiled span scan that build is C, which the line count does not see)."""
    from brson.model.spans import ComponentSpans
    from brson.ops import extract as extract_module
    from brson.ops.importing import import_slot

    built = [0]

    class CountedSpans(ComponentSpans):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built[0] += 1
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(extract_module, "ComponentSpans", CountedSpans)

    def work(n: int) -> int:
        data = _chain(n)
        return _lines(lambda: extract(brson.loads(data, name="chain.bson"), "S"))

    _linear(work, 100)
    # once for each of the four extracts (one a warm-up): the source's spans, once for every
    # round (the result's, which describe where the leaving references sit, only when read)
    assert built[0] == 4
    data = _chain(300)
    result = extract(brson.loads(data, name="chain.bson"), "S")
    assert result.report.copied and len(result.report.copied) == 300  # every link came along
    target = brson.load(STANDIN)
    imported = import_slot(target, brson.loads(data, name="chain.bson"), "S")
    assert imported.report.components == 301


def test_variant_dictionary_of_colliding_keys_is_refused_in_linear_time() -> None:
    """Defect 14: Python's dict compares a key with every key of its hash; arrays of -1 and
    -2 (the two ints share a hash) all collide, so 1.4 MB of such keys took 41 s to decode.
    Past MAX_KEYS_PER_HASH keys of one hash the dictionary is refused, before the compares:
    the error comes at the first key too many, whatever follows (the compares are C's, so
    where decoding stopped is the count), and the work up to it does not grow with the input."""
    import itertools

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

    entry = len(variant.dumps((-1,) * 24, godot=4) + variant.dumps(0, godot=4))
    stops = set()
    for n in (100, 1_000, 3_000):
        with pytest.raises(VariantError, match="keys of one hash") as info:
            variant.loads(colliding(n), godot=4)
        assert info.value.offset is not None
        stops.add(info.value.offset)
    (stop,) = stops  # the same place in every input
    assert stop <= 8 + (variant.MAX_KEYS_PER_HASH + 1) * entry

    def work(n: int) -> int:
        data = colliding(n)

        def run() -> None:
            with pytest.raises(VariantError, match="keys of one hash"):
                variant.loads(data, godot=4)

        return _lines(run)

    assert work(100) == work(3_000)


def _deep(depth: int, name_length: int = 1000) -> bytes:
    """A chain of ``depth`` slots with long names (each slot a copy of a real one, so IDs
    repeat: every level also has findings and references to describe)."""
    doc = bson.decode(brson.load(STANDIN).to_bson())
    leaf = {k: v for k, v in doc["Object"]["Children"][0].items() if k != "Children"}
    node = doc["Object"]
    for i in range(depth):
        name = {"ID": f"n{i}", "Data": f"{i:05d}" + "x" * name_length}
        child = dict(leaf, Children=[], Name=name)
        node["Children"] = [child]
        node = child
    return encode_deep(doc)


def encode_deep(doc: dict[str, Any]) -> bytes:
    """BSON of a document nested deeper than Python's default recursion limit allows."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        return bson.encode(doc)
    finally:
        sys.setrecursionlimit(limit)


_deep_cached = functools.cache(_deep)


def _describe_all(tree: brson.DataTree) -> None:
    for reference in ReferenceGraph.build(tree):
        reference.describe()


def _missing(tree: brson.DataTree) -> None:
    with pytest.raises(brson.SelectorError, match="no slot matches"):
        extract(tree, "00001xxxx")  # a name like many: the hint compares them all


_DEEP_OPERATIONS: dict[str, Callable[[brson.DataTree], object]] = {
    "validate": validate,
    "refs": _describe_all,
    "refs listing": lambda tree: ReferenceListing(tree).rows(),
    "refs --json records": lambda tree: list(ReferenceListing(tree).records()),
    "vars": variables,
    "godot": lambda tree: export_scene(tree, 4).tscn(),
    "godot streamed": lambda tree: stream_scene(tree, 4).tscn(),
    "godot 3 streamed": lambda tree: stream_scene(tree, 3).tscn(),
    "gltf": lambda tree: export_gltf(tree)[0].glb(),
    "select": lambda tree: tree.find_all("Root/no/such/slot"),
    # the loose tiers: every name without its tags, paths below the root, an ID's start
    "select loosely": lambda tree: tree.find_all("<b>00001</b>x/no/such/slot"),
    "select by ID prefix": lambda tree: tree.find_all("0000beef"),
    "write": lambda tree: brson.dumps(tree, "none"),  # with its check of every document
    "hint": _missing,
}


#: The depth each guard starts at: 16, where a full path made for every slot walked (the old
#: code's step, planted in ``Slot.children``) grows the work by 2.6 to 4.0, with and without
#: the accelerators. With them, the variables (the compiled scan) and the write (bytes)
#: walk no slot in Python: those two keep 32.
_DEEP_START = dict.fromkeys(_DEEP_OPERATIONS, 16) | {"vars": 32, "write": 32}


@pytest.mark.parametrize("name", list(_DEEP_OPERATIONS))
def test_deep_trees_of_long_names_cost_linear_time(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defect 10, time: a full path per slot (O(depth) each) made validate, refs, vars, the
    Godot scene and selector lookups quadratic in depth (2,000 levels: 13.8 s in validate).
    Each of these, at depth n, 2n and 4n, must do linear work: lines run and characters of
    slot paths made. (The scene's own text is quadratic in depth by its format, bounded by
    the capped node names: the test below.)"""
    operation = _DEEP_OPERATIONS[name]
    paths: dict[int, int] = {}

    def lines(n: int) -> int:
        data = _deep_cached(n)
        with _path_characters(monkeypatch) as made:
            count = _lines(lambda: operation(brson.loads(data, name="deep.bson")))
        paths[n] = made[0]
        return count

    _linear(lines, _DEEP_START[name], f"{name}: lines")
    _linear(paths.__getitem__, _DEEP_START[name], f"{name}: path characters")


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


def _self_parented(depth: int, name_length: int = 1000) -> bytes:
    """A chain of ``depth`` slots with long names, each naming itself as its ParentReference:
    a parent loop at every level."""
    doc = bson.decode(brson.load(STANDIN).to_bson())
    leaf = {k: v for k, v in doc["Object"]["Children"][0].items() if k != "Children"}
    node = doc["Object"]
    for i in range(depth):
        own = f"{i:08x}-5e1f-4000-8000-000000000000"
        name = {"ID": f"{i:08x}-4a3e-4000-8000-000000000000", "Data": "x" * name_length}
        child = dict(leaf, ID=own, ParentReference=own, Children=[], Name=name)
        node["Children"] = [child]
        node = child
    return encode_deep(doc)


def test_parent_loops_at_every_level_are_reported_in_linear_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """validate names each slot of a ParentReference loop; with a loop at every level of a
    deep chain, naming them by full path made characters quadratic in depth."""
    data = functools.cache(_self_parented)
    paths: dict[int, int] = {}

    def lines(n: int) -> int:
        with _path_characters(monkeypatch) as made:
            count = _lines(lambda: validate(brson.loads(data(n), name="loops.bson")))
        paths[n] = made[0]
        return count

    # At 16 a loop named by its full path (Slot.path) grows the characters by 3.96
    _linear(lines, 16, "validate of parent loops: lines")
    _linear(paths.__getitem__, 16, "validate of parent loops: path characters")
    report = validate(brson.loads(data(64), name="loops.bson"))
    assert sum("ParentReference chain loops" in f.message for f in report) == 64
