"""``export-godot --godot 4 --gltf``: the scene loads the glTF export at run time and shows the
real meshes where the slots are (the scene keeps Resonite's coordinates; the loader node mirrors
the glTF frame back)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from brson.cli.app import main
from tests.gltf.conftest import AVATAR, HANDEDNESS
from tests.godot.engine import require_godot, run_script

#: The scene enters the tree on the first frame (inside ``_init`` the root is not in the tree
#: yet, so ``_ready`` would not run); the check runs right after that frame.
PROBE = """
var scene = load(OUT + "scene.tscn").instantiate()
process_frame.connect(func():
\tif scene.is_inside_tree():
\t\treturn
\tget_root().add_child(scene)
\tvar out = {"meshes": 0, "skins": 0, "mesh_positions": {}, "slot_positions": {}}
\tvar stack = [scene]
\twhile stack.size() > 0:
\t\tvar n = stack.pop_back()
\t\tif n is MeshInstance3D:
\t\t\tout["meshes"] += 1
\t\t\tif n.skin != null:
\t\t\t\tout["skins"] += 1
\t\t\tvar g = n.global_transform.origin
\t\t\tout["mesh_positions"][String(n.name)] = [g.x, g.y, g.z]
\t\telif n is Node3D and n.has_meta("resonite_id"):
\t\t\tvar h = n.global_transform.origin
\t\t\tout["slot_positions"][String(n.name)] = [h.x, h.y, h.z]
\t\tfor c in n.get_children():
\t\t\tstack.append(c)
\t_save("result.json", JSON.stringify(out).to_utf8_buffer())
)
"""


@pytest.mark.engine
@pytest.mark.parametrize(
    ("source", "slot", "meshes", "skins"),
    [(AVATAR, None, 3, 1), (HANDEDNESS, None, 2, 0), (HANDEDNESS, "Sign", 1, 0)],
)
def test_godot4_scene_shows_the_gltf_meshes(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    source: Path,
    slot: str | None,
    meshes: int,
    skins: int,
) -> None:
    binary = require_godot(4)
    out = tmp_path / "scene.tscn"
    args = ["export-godot", str(source), "-o", str(out), "--godot", "4", "--gltf"]
    if slot is not None:
        args += ["--slot", slot]
    assert main(args) == 0, capsys.readouterr().err
    files = {"scene.tscn": out.read_bytes(), "scene.glb": (tmp_path / "scene.glb").read_bytes()}
    run = run_script(binary, 4, PROBE, files=files)
    assert run.finished and (run.directory / "result.json").is_file(), run.explain()
    result = json.loads(run.read("result.json"))
    assert result["meshes"] == meshes and result["skins"] == skins
    # Each mesh sits where its slot's node is (both in the scene's Resonite coordinates).
    for name, position in result["mesh_positions"].items():
        if name in result["slot_positions"]:
            assert np.allclose(position, result["slot_positions"][name], atol=1e-5), name
    if source == HANDEDNESS:
        assert np.allclose(result["mesh_positions"]["Sign"], [1, 0, 0], atol=1e-5)
        if slot is None:  # Resonite +Z in the scene's Resonite coordinates: the mirror undone
            assert np.allclose(result["mesh_positions"]["Ahead"], [0, 0, 1], atol=1e-5)


def test_gltf_option_is_refused_for_godot_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["export-godot", str(AVATAR), "-o", str(tmp_path / "s.tscn"), "--godot", "3", "--gltf"]
    assert main(args) == 2
    assert "--gltf" in capsys.readouterr().err


PROBE3 = """
var scene = load(OUT + "scene.tscn").instance()
var out = {}
var stack = [scene]
while stack.size() > 0:
\tvar n = stack.pop_back()
\tif n is MeshInstance and n.mesh is ArrayMesh:
\t\tvar arrays = n.mesh.surface_get_arrays(0)
\t\tvar verts = []
\t\tfor v in arrays[Mesh.ARRAY_VERTEX]:
\t\t\tverts.append([v.x, v.y, v.z])
\t\tvar normals = []
\t\tfor v in arrays[Mesh.ARRAY_NORMAL]:
\t\t\tnormals.append([v.x, v.y, v.z])
\t\tout[n.name] = {"surfaces": n.mesh.get_surface_count(), "vertices": verts,
\t\t\t"normals": normals, "indices": Array(arrays[Mesh.ARRAY_INDEX]),
\t\t\t"material": n.material_override != null}
\tfor c in n.get_children():
\t\tstack.append(c)
_save("result.json", to_json(out).to_utf8())
scene.free()
"""


@pytest.mark.engine
def test_godot3_static_meshx_becomes_an_array_mesh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = require_godot(3)
    out = tmp_path / "scene.tscn"
    args = ["export-godot", str(AVATAR), "-o", str(out), "--godot", "3"]
    assert main(args) == 0, capsys.readouterr().err
    run = run_script(binary, 3, PROBE3, files={"scene.tscn": out.read_bytes()})
    assert run.finished, run.explain()
    result = json.loads(run.read("result.json"))
    base = result["Base"]
    assert base["surfaces"] == 1 and base["material"]
    positions = np.asarray(base["vertices"])
    normals = np.asarray(base["normals"])
    tri = np.asarray(base["indices"]).reshape(-1, 3)
    assert len(positions) == 24 and len(tri) == 12
    assert np.allclose(np.ptp(positions, axis=0), [0.5, 0.1, 0.5], atol=1e-6)
    # Godot's front faces are clockwise: cross(b - a, c - a) points against the normal.
    a, b, c = (positions[tri[:, k]] for k in range(3))
    assert ((np.cross(b - a, c - a) * normals[tri[:, 0]]).sum(axis=1) < 0).all()
