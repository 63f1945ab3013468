"""Fuzz targets: what each harness feeds its bytes to, and the seeds it starts from.

One module shared by the atheris harnesses (``fuzz/fuzz_*.py``), the fallback random-mutation
driver (``fuzz/driver.py``) and the short slice in the test suite, so all three test the same
thing.  The contract under test is the project's error contract: whatever the bytes, a reader
returns or raises a :class:`brson.errors.BrsonError` -- any other exception is a finding.  A
target therefore calls the reader *and* touches what it returns (walks every slot, reads every
member, builds the ID index, re-writes an edited copy), because a lazy model defers most of its
parsing to the first access.

Inputs are capped at :data:`MAX_SIZE` decompressed bytes so a mutated length cannot make one
execution slow; the decompression limit itself is what gets tested.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import brson
from brson.errors import BrsonError
from fuzz import inputs

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SAMPLES = ROOT.parent / "shared" / "samples"
REGRESSIONS = FIXTURES / "regressions"

#: Decompression limit for fuzzed archives (small: fast executions, bombs hit it quickly).
MAX_SIZE = 1 << 20
#: Extension chosen by the first input byte: it decides how a headerless file is read.
NAMES = ("x.brson", "x.7zbson", "x.lz4bson", "x.bson", "x.unknown", None)
ARCHIVE_SUFFIXES = (".brson", ".7zbson", ".lz4bson", ".bson")
#: How many members of one component a target reads (bounds the time of one execution).
MEMBERS_PER_INPUT = 20_000


def exercise_tree(tree: Any) -> None:
    """Touch everything a user of a loaded tree could touch."""
    from brson.cli.archive import summary

    summary(tree, "fuzz")
    budget = itertools.count()
    for slot in tree.walk():
        _ = (slot.id, slot.name, slot.tag, slot.active, slot.order_offset, slot.path)
        _ = (slot.persistent_id, slot.parent_reference, slot.parent, slot.depth)
        with contextlib.suppress(BrsonError):
            slot.global_matrix()
        for component in slot.components:
            _ = (component.id, component.type_index, repr(component))
            with contextlib.suppress(BrsonError):
                str(component.type)
            for _name, member in component.fields.items():
                if next(budget) > MEMBERS_PER_INPUT:
                    return
                _ = (member.id, member.value, member.elements, member.target)
    _ = [c.data.get("ID") for c in tree.assets]
    ids = tree.ids
    for element_id in itertools.islice(ids.defined, 200):
        location = ids.where(element_id)
        if location is not None:
            location.describe()
        ids.resolve(element_id)
    for location, _value in itertools.islice(ids.values, 200):
        location.describe()
    _ = list(ids.duplicates.values())


def edit_and_reload(tree: Any) -> None:
    """An edited tree must serialize to an archive that loads again (a writer bug otherwise)."""
    root = tree.root
    if root.member("Name") is None:
        return
    root.name = "fuzzed"
    data = brson.dumps(tree, "none")
    again = brson.loads(data, max_size=MAX_SIZE + (1 << 16))
    if again.root.name != "fuzzed":
        raise AssertionError("an edited slot name did not survive dumps/loads")


def load_archive(data: bytes) -> None:
    """``brson.loads`` + full traversal + an edit round trip; the first byte picks the name."""
    if not data:
        return
    name = NAMES[data[0] % len(NAMES)]
    try:
        tree = brson.loads(data[1:], name=name, max_size=MAX_SIZE)
        exercise_tree(tree)
        edit_and_reload(tree)
    except BrsonError:
        pass


def _validate_fn() -> Callable[..., Any] | None:
    """The validator's entry point once ``brson.ops.validate`` exists."""
    try:
        module = importlib.import_module("brson.ops.validate")
    except ImportError:
        return None
    for name in ("validate", "run", "check"):
        fn = getattr(module, name, None)
        if callable(fn):
            return fn  # type: ignore[no-any-return]
    return None


def validate_archive(data: bytes) -> None:
    """Load then validate: validation must report findings, never crash, on any tree."""
    validate = _validate_fn()
    if validate is None or not data:
        return
    name = NAMES[data[0] % len(NAMES)]
    try:
        tree = brson.loads(data[1:], name=name, max_size=MAX_SIZE)
        validate(tree)
    except BrsonError:
        pass


def _godot(version: int) -> Callable[[bytes], None]:
    def run(data: bytes) -> None:
        from brson.godot import variant

        if not data:
            return
        with contextlib.suppress(BrsonError):
            variant.loads(data[1:], godot=version, allow_objects=bool(data[0] & 1))

    run.__name__ = f"godot{version}_loads"
    run.__doc__ = f"``brson.godot.variant.loads`` for Godot {version}."
    return run


def load_package(data: bytes) -> None:
    """The package reader: zip, record, main tree, every asset and metadata entry."""
    try:
        from brson.package import loads_package
    except ImportError:
        return
    try:
        package = loads_package(data, max_size=MAX_SIZE)
        for name in package.assets:
            package.assets[name]
        for meta in package.metadata.values():
            meta.data  # noqa: B018 - parses the JSON on access
        exercise_tree(package.tree)
    except BrsonError:
        pass


def import_gltf(data: bytes) -> None:
    """``import-gltf`` on a .glb or .gltf's bytes (no folder: buffer URIs are refused), and
    the package it makes written and read back."""
    from brson.gltf.importer import import_gltf as run
    from brson.package import dumps_package, loads_package, new_record

    try:
        tree, assets, _report = run(data, "fuzz", max_size=MAX_SIZE)
        package = loads_package(dumps_package(tree, new_record("fuzz"), assets))
        exercise_tree(package.tree)
    except BrsonError:
        pass


def read_meshx(data: bytes) -> None:
    """The MeshX reader under a run's budget, and what it read written and read back: the
    writer must take every mesh the reader returns, and give the same arrays again."""
    import numpy as np

    from brson.codecs.limits import Budget
    from brson.meshx import format as meshx

    try:
        mesh = meshx.read(data, max_size=MAX_SIZE, budget=Budget(MAX_SIZE))
    except BrsonError:
        return
    again = meshx.read(meshx.write(mesh))
    if again.vertex_count != mesh.vertex_count or not np.array_equal(
        again.positions, mesh.positions, equal_nan=True
    ):
        raise AssertionError("a MeshX read back after writing differs")


@functools.cache
def _patch_base() -> bytes:
    return brson.load(FIXTURES / "real" / "orange3134_loading_standin.brson").to_bson()


def apply_patch(data: bytes) -> None:
    """``brson apply``: the bytes as a patch (JSON) applied to the real sample's tree, and
    the result serialized."""
    from brson.document.jsonform import parse_json
    from brson.ops.patch import PatchError, apply_patch, read_patch

    try:
        patch = read_patch(parse_json(data))
    except (ValueError, PatchError):  # not JSON, or not a patch: what apply refuses first
        return
    try:
        result = apply_patch(brson.loads(_patch_base(), name="base.bson"), patch)
        if result.bson is not None:
            exercise_tree(brson.loads(result.bson, name="result.bson"))
    except BrsonError:
        pass


# -- seeds -----------------------------------------------------------------------------------
def _files(*patterns: str) -> list[Path]:
    found: list[Path] = []
    for folder in (FIXTURES, FIXTURES / "real", REGRESSIONS, SAMPLES):
        if folder.is_dir():
            for pattern in patterns:
                found += sorted(folder.glob(pattern))
    return found


def _archive_seeds() -> list[bytes]:
    seeds = []
    for path in _files("*"):
        if path.suffix not in ARCHIVE_SUFFIXES or path.name.startswith("bomb"):
            continue
        data = path.read_bytes()
        index = next((i for i, n in enumerate(NAMES) if n and n.endswith(path.suffix)), 5)
        seeds.append(bytes([index]) + data)
        # The plain BSON too, so mutations reach the document and model layers.
        with contextlib.suppress(BrsonError):
            seeds.append(bytes([3]) + brson.loads(data, name=path.name).to_bson())
    return list(dict.fromkeys(seeds))


def _godot_seeds(version: int) -> Callable[[], list[bytes]]:
    def seeds() -> list[bytes]:
        from brson import godot as g

        values: list[Any] = [
            None,
            True,
            7,
            -(2**40),
            1.5,
            "héllo",
            [1, "a", [2.0, None]],
            {"a": 1, "b": [True, {"c": "d"}]},
            g.Vector2(1, 2),
            g.Vector3(1, 2, 3),
            g.Color(0.1, 0.2, 0.3, 1.0),
            g.Quaternion(0, 0, 0, 1),
            g.StringName("name"),
            g.NodePath("a/b:c"),
            g.PackedInt32Array([1, 2, 3]),
            g.PackedFloat32Array([1.5]),
            g.PackedStringArray(["x", "y"]),
            g.PackedVector3Array([g.Vector3(1, 2, 3)]),
            g.Transform3D(g.Basis(), g.Vector3(1, 2, 3)),
        ]
        if version == 4:
            values += [g.Vector4(1, 2, 3, 4), g.PackedVector4Array([g.Vector4(1, 2, 3, 4)])]
        out = []
        for value in values:
            try:
                out.append(b"\x00" + g.dumps(value, godot=version))
            except BrsonError:
                continue
        return out

    return seeds


def _package_seeds() -> list[bytes]:
    return [p.read_bytes() for p in _files("*.resonitepackage")]


def _trees(data: bytes) -> None:
    """Hostile data trees through every command (``fuzz/trees.py``)."""
    from fuzz.trees import fuzz_one

    fuzz_one(data)


def _tree_seeds() -> list[bytes]:
    return [bytes([i]) * (1 + i % 7) for i in range(32)]


def _gltf_seeds() -> list[bytes]:
    """The glTF fixtures exported (.glb, and the same JSON as a .gltf without its buffer),
    and an empty scene."""
    import json

    from brson.assets.store import AssetStore
    from brson.gltf.export import export_gltf
    from brson.package import load_package

    seeds = [b'{"asset": {"version": "2.0"}, "scenes": [{"nodes": []}]}']
    for path in sorted((FIXTURES / "gltf").glob("*.resonitepackage")):
        package = load_package(path)
        document, _report = export_gltf(package.tree, assets=AssetStore(package))
        seeds.append(document.glb())
        seeds.append(json.dumps(document.finish("data.bin")).encode())
    return seeds


def _meshx_seeds() -> list[bytes]:
    """The MeshX assets of the packages in fixtures and samples, and a plain (uncompressed)
    copy of each."""
    from brson.assets.kinds import identify
    from brson.meshx import format as meshx
    from brson.package import load_package

    seeds = [meshx.write(_every_part(), lz4=lz4) for lz4 in (True, False)]
    for path in _files("*.resonitepackage", "gltf/*.resonitepackage"):
        package = load_package(path)
        for name in package.assets:
            data = package.assets[name]
            if identify(data) == "meshx":
                seeds += [data, meshx.write(meshx.read(data), lz4=False)]
    return list(dict.fromkeys(seeds))


def _every_part() -> Any:
    """A small mesh with every part MeshX has: normals, tangents, colours, two UV channels,
    triangles, points and an empty submesh, bones (one index needing a 2-byte varint) and
    blendshapes with normals and tangents."""
    import numpy as np

    from brson.meshx.mesh import POINTS, TRIANGLES, Blendshape, BlendshapeFrame, Bone, Mesh, Submesh

    n, v = 4, np.arange(48, dtype=np.float32).reshape(4, 12) / 48
    bones = [Bone(f"b{i}", np.eye(4, dtype=np.float32)) for i in range(130)]
    frame = BlendshapeFrame(1.0, v[:, :3], v[:, 3:6], v[:, 6:9])
    return Mesh(
        v[:, :3].copy(),
        normals=v[:, 3:6].copy(),
        tangents=v[:, 4:8].copy(),
        colors=v[:, 8:12].copy(),
        uvs=[v[:, :2].copy(), v[:, 2:5].copy()],
        submeshes=[
            Submesh(TRIANGLES, np.array([[0, 1, 2], [1, 2, 3]], np.uint32)),
            Submesh("", np.zeros((0, 3), np.uint32)),
            Submesh(POINTS, np.array([[3]], np.uint32)),
        ],
        bones=bones,
        bone_indices=np.array([[0, 1, 2, 129]] * n, np.uint32),
        bone_weights=np.full((n, 4), 0.25, np.float32),
        blendshapes=[Blendshape("smile", [frame])],
    )


def _patch_seeds() -> list[bytes]:
    """Patches between the real sample and edited copies of it (a rename, a value set, a
    slot added and one deleted), as ``brson diff --json`` writes them."""
    import json

    from brson.ops.patch import make_patch

    def edited(edit: Callable[[Any], object]) -> bytes:
        a = brson.loads(_patch_base(), name="a.bson")
        b = brson.loads(_patch_base(), name="b.bson")
        edit(b)
        return json.dumps({"patch": make_patch(a, b)}).encode()

    return [
        edited(lambda t: setattr(t.root.children[0], "name", "Renamed")),
        edited(lambda t: setattr(t.root.children[0], "position", [1.0, 2.0, 3.0])),
        edited(lambda t: t.root.add_child("New")),
        edited(lambda t: t.root.children[-1].remove()),
    ]


@dataclass(frozen=True)
class Target:
    name: str
    run: Callable[[bytes], None]
    seeds: Callable[[], list[bytes]]
    available: Callable[[], bool]


def _importable(module: str) -> Callable[[], bool]:
    def check() -> bool:
        try:
            importlib.import_module(module)
        except ImportError:
            return False
        return True

    return check


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("loads", load_archive, _archive_seeds, lambda: True),
        Target("validate", validate_archive, _archive_seeds, lambda: _validate_fn() is not None),
        Target("godot3", _godot(3), _godot_seeds(3), _importable("brson.godot.variant")),
        Target("godot4", _godot(4), _godot_seeds(4), _importable("brson.godot.variant")),
        Target("package", load_package, _package_seeds, _importable("brson.package")),
        Target("trees", _trees, _tree_seeds, lambda: True),
        Target("gltf", import_gltf, _gltf_seeds, _importable("brson.gltf.importer")),
        Target("meshx", read_meshx, _meshx_seeds, _importable("brson.meshx.format")),
        Target("patch", apply_patch, _patch_seeds, lambda: True),
        Target("folders", inputs.run_folders, inputs.folder_seeds, lambda: True),
        Target("sql", inputs.run_sql, inputs.sql_seeds, _importable("duckdb")),
    )
}


def regression_inputs(target: str) -> Iterator[Path]:
    """Committed inputs that once broke ``target`` (``fixtures/regressions/<target>-*``)."""
    if REGRESSIONS.is_dir():
        yield from sorted(REGRESSIONS.glob(f"{target}-*"))
