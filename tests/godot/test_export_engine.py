"""Exported scenes and slot-tree Variants as the real engines read them.

One engine run per Godot version loads every case (each real sample and the synthetic tree):
the TSCN (format=2 for Godot 3, format=3 for Godot 4) and the ``--variant`` bytes.  For each
case the engine must see exactly the nodes brson built, in order, with the names brson chose
(and that the engine's own ``set_name`` would keep), unique paths, global transforms matching
``slot.global_matrix()`` to 1e-5, ``visible`` from ``Active``, all metadata (floats within one
ulp: the engine's decimal parser is not correctly rounded, see brson/godot/tscn.py), and the
primitive meshes and materials brson wrote.  The Variant must decode and re-encode to the same
bytes and its transforms must compose to the same globals.

Godot 3 (godot3-server) is required when ``CI=true``; Godot 4 runs when ``BRSON_GODOT4`` is set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from brson.godot import Color, Transform3D, Vector2, Vector3, loads
from brson.godot.export import (
    FALLBACK_NAME,
    MESH_NODE,
    SceneExport,
    export_scene,
    export_variant,
    slot_metadata,
)
from brson.godot.tscn import PlacedNode, SubResource, layout
from brson.model.tree import DataTree

from .engine import EngineRun, require_godot, run_script
from .export_cases import load_cases, sample_paths
from .export_probe import probe_body

#: Real Godot 3 and 4 runs; one worker runs them all, so each engine export runs once.
pytestmark = [pytest.mark.engine, pytest.mark.xdist_group("godot-export")]

TOLERANCE = 1e-5
CASES = load_cases()
CASE_NAMES = list(CASES)


@dataclass
class CaseResult:
    tree: DataTree
    scene: SceneExport
    placed: list[PlacedNode]
    variant: bytes
    records: list[list[Any]]
    variant_same: bool
    variant_walk: list[list[Any]]


@dataclass
class EngineExports:
    major: int
    run: EngineRun
    cases: dict[str, CaseResult]


def _run(binary: str, major: int, where: Path) -> EngineExports:
    files: dict[str, bytes] = {}
    built: dict[str, tuple[SceneExport, bytes]] = {}
    for index, (name, tree) in enumerate(CASES.items()):
        scene = export_scene(tree, major)
        variant = export_variant(tree, major)
        built[name] = (scene, variant)
        files[f"c{index}.tscn"] = scene.tscn().encode("utf-8")
        files[f"c{index}.var"] = variant
    files["cases.txt"] = "\n".join(f"c{i}" for i in range(len(CASES))).encode()
    run = run_script(binary, major, probe_body(major), files, keep_in=where)
    if not run.finished:
        pytest.fail(f"Godot {major} did not finish the export probe\n{run.explain()}")
    results: dict[str, CaseResult] = {}
    for index, (name, tree) in enumerate(CASES.items()):
        scene, variant = built[name]
        same, walk = loads(run.read(f"variant_c{index}.bin"), godot=major)
        results[name] = CaseResult(
            tree=tree,
            scene=scene,
            placed=layout(scene.root, major, FALLBACK_NAME),
            variant=variant,
            records=loads(run.read(f"scene_c{index}.bin"), godot=major),
            variant_same=same,
            variant_walk=walk,
        )
    return EngineExports(major, run, results)


@pytest.fixture(scope="module")
def exports3(tmp_path_factory: pytest.TempPathFactory) -> EngineExports:
    return _run(require_godot(3), 3, tmp_path_factory.mktemp("export3"))


@pytest.fixture(scope="module")
def exports4(tmp_path_factory: pytest.TempPathFactory) -> EngineExports:
    return _run(require_godot(4), 4, tmp_path_factory.mktemp("export4"))


def _case(request: pytest.FixtureRequest, major: int, name: str) -> CaseResult:
    exports: EngineExports = request.getfixturevalue(f"exports{major}")
    return exports.cases[name]


PARAMS = [
    pytest.param(major, name, id=f"godot{major}-{name}") for major in (3, 4) for name in CASE_NAMES
]


# --- comparison helpers -----------------------------------------------------------------------


def _close(expected: float, got: float) -> bool:
    return abs(expected - got) <= TOLERANCE * max(1.0, abs(expected))


def _same_transform(expected: list[list[float]], got: Transform3D) -> bool:
    mine = Transform3D.from_matrix(expected).to_matrix()
    theirs = got.to_matrix()
    return all(
        _close(a, b)
        for ra, rb in zip(mine, theirs, strict=True)
        for a, b in zip(ra, rb, strict=True)
    )


def _same_value(expected: Any, got: Any) -> bool:
    """Equality, with floats allowed one ulp off (the engines' decimal parser)."""
    if isinstance(expected, float) and isinstance(got, float):
        if math.isnan(expected) or math.isnan(got):
            return math.isnan(expected) and math.isnan(got)
        if math.isinf(expected) or expected == 0.0:
            return expected == got and math.copysign(1, expected) == math.copysign(1, got)
        return abs(expected - got) <= math.ulp(expected)
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, int) and isinstance(got, int):
        return expected == got
    if isinstance(expected, dict) and isinstance(got, dict):
        return list(expected) == list(got) and all(
            _same_value(v, got[k]) for k, v in expected.items()
        )
    if isinstance(expected, list | tuple) and isinstance(got, list | tuple):
        return len(expected) == len(got) and all(
            _same_value(a, b) for a, b in zip(expected, got, strict=True)
        )
    return bool(type(expected) is type(got) and expected == got)


def _same_property(expected: Any, got: Any) -> bool:
    """A resource property as the engine stores it (float32 math types, float/int scalars)."""
    if isinstance(expected, bool):
        return got is expected
    if isinstance(expected, int | float):
        return isinstance(got, int | float) and _close(float(expected), float(got))
    if isinstance(expected, Vector2 | Vector3 | Color):
        fields = expected.__dataclass_fields__
        return type(got) is type(expected) and all(
            _close(getattr(expected, f), getattr(got, f)) for f in fields
        )
    return bool(expected == got)


# --- the checks -------------------------------------------------------------------------------


@pytest.mark.parametrize(("major", "name"), PARAMS)
def test_nodes_names_and_transforms(request: pytest.FixtureRequest, major: int, name: str) -> None:
    case = _case(request, major, name)
    slots = [slot for _, slot in case.scene.nodes]
    assert len(slots) == sum(1 for _ in (slots[0].walk())) == len(case.records)
    assert [p.node for p in case.placed] == [n for n, _ in case.scene.nodes]
    for placed, slot, record in zip(case.placed, slots, case.records, strict=True):
        node_name, node_class, path, global_t, visible, _, _, valid, found = record
        where = f"{name}: slot {slot.path!r}"
        assert node_name == placed.name, where
        assert path == placed.path, where
        assert node_class == placed.node.type, where
        assert valid, f"{where}: the engine's set_name would rename {node_name!r}"
        assert found, f"{where}: path {path!r} leads to another node (sibling names clash)"
        assert visible is (slot.active is not False), where
        assert _same_transform(slot.global_matrix(), global_t), (
            f"{where}: engine global {global_t} vs {slot.global_matrix()}"
        )


@pytest.mark.parametrize(("major", "name"), PARAMS)
def test_metadata(request: pytest.FixtureRequest, major: int, name: str) -> None:
    case = _case(request, major, name)
    for (node, slot), record in zip(case.scene.nodes, case.records, strict=True):
        engine_meta = record[5]
        assert sorted(engine_meta) == sorted(node.metadata), slot.path
        for key, value in node.metadata.items():
            assert _same_value(value, engine_meta[key]), f"{name}: {slot.path!r} meta {key}"
        # What brson computed from the slot, independently of the scene built for it.
        expected = slot_metadata(slot)
        for key, value in expected.items():
            assert _same_value(value, engine_meta[key]), f"{name}: {slot.path!r} meta {key}"
        assert engine_meta.get("resonite_id") == slot.id


@pytest.mark.parametrize(("major", "name"), PARAMS)
def test_meshes_and_materials(request: pytest.FixtureRequest, major: int, name: str) -> None:
    case = _case(request, major, name)
    for (node, slot), record in zip(case.scene.nodes, case.records, strict=True):
        resources = record[6]
        wanted = {k: v for k, v in node.properties.items() if isinstance(v, SubResource)}
        assert sorted(resources) == sorted(wanted), slot.path
        for prop, resource in wanted.items():
            got = resources[prop]
            assert got["@class"] == resource.type, f"{slot.path!r} {prop}"
            for key, value in resource.properties.items():
                assert _same_property(value, got[key]), (
                    f"{name}: {slot.path!r} {prop}.{key}: wrote {value!r}, engine has {got[key]!r}"
                )
        assert (node.type == MESH_NODE[major]) == ("mesh" in wanted)


@pytest.mark.parametrize(("major", "name"), PARAMS)
def test_variant_read_by_engine(request: pytest.FixtureRequest, major: int, name: str) -> None:
    case = _case(request, major, name)
    assert case.variant_same, "the engine re-encoded the slot-tree Variant differently"
    slots = [slot for _, slot in case.scene.nodes]
    assert len(case.variant_walk) == len(slots)
    for slot, (slot_name, slot_id, global_t, components) in zip(
        slots, case.variant_walk, strict=True
    ):
        assert slot_name == slot.name and slot_id == slot.id
        assert components == len(slot.components)
        assert _same_transform(slot.global_matrix(), global_t), slot.path


#: Engine noise unrelated to our files: Debian's 3.2.3 under LANG=C, leak reports at exit.
_HARMLESS = ("Invalid locale", "Unsupported locale", "leaked at exit", "   At: ")


@pytest.mark.parametrize("major", [3, 4])
def test_engine_reports_no_errors(request: pytest.FixtureRequest, major: int) -> None:
    """Unknown properties, bad literals or vanished parents would show up on stderr."""
    exports: EngineExports = request.getfixturevalue(f"exports{major}")
    complaints = [
        line
        for line in exports.run.stderr.splitlines()
        if line.strip() and not any(h in line for h in _HARMLESS)
    ]
    assert complaints == []


def test_ci_exports_the_real_samples() -> None:
    """In CI the engine checks must include the real samples (../shared/samples), not only
    the synthetic tree: a checkout without them would otherwise pass with less evidence."""
    if not sample_paths():
        pytest.skip("real samples (../shared/samples) not available")
    assert len(CASE_NAMES) == len(sample_paths()) + 1


def test_synthetic_case_exercises_the_mapping(request: pytest.FixtureRequest) -> None:
    """The synthetic tree really produces meshes, materials and renamed nodes in Godot 3."""
    case = _case(request, 3, "synthetic")
    classes = {r[1] for r in case.records}
    assert {"Spatial", "MeshInstance"} <= classes
    mesh_classes = {r[6]["mesh"]["@class"] for r in case.records if "mesh" in r[6]}
    assert mesh_classes == {"CubeMesh", "SphereMesh", "CylinderMesh", "QuadMesh"}
    names = [r[0] for r in case.records]
    assert {"Abc%de", "ab", "Slot", "Slot2", "Slot3", "dup3", "Root2"} <= set(names)
