"""The real tools every glTF export is checked with: the Khronos glTF-Validator (node), Blender
(headless) and Godot 4 (GLTFDocument, headless).  A missing tool skips the test with the command
that installs it (scripts/ensure-gltf-tools.sh); in CI the skip fails (tests/conftest.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.godot.engine import require_godot, run_script

NODE_DIR = Path(__file__).resolve().parent / "node"
BLENDER_PROBE = Path(__file__).resolve().parent / "blender_probe.py"


def _missing(what: str) -> None:
    pytest.skip(f"{what} is not installed (make gltf-tools installs it)")


def validate(*paths: Path) -> list[dict[str, Any]]:
    """One Khronos glTF-Validator report per file: errors, warnings, infos, messages."""
    node = shutil.which("node")
    if node is None or not (NODE_DIR / "node_modules" / "gltf-validator").is_dir():
        _missing("the glTF-Validator (node + tests/gltf/node/node_modules)")
    proc = subprocess.run(
        [str(node), str(NODE_DIR / "validate.mjs"), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def _blender_command(*args: str) -> list[str]:
    binary = shutil.which("blender")
    if binary is None:
        _missing("Blender (Debian package blender)")
    command = [str(binary), "-b", "--factory-startup", "--python-exit-code", "1"]
    return [*command, "--python", str(BLENDER_PROBE), "--", *args]


def blender(path: Path, render: Path | None = None, target: str = "0,0,0", distance: float = 4):
    """Blender's import of ``path``: the counts blender_probe.py prints (and a render)."""
    command = _blender_command(str(path))
    if render is not None:
        command += [str(render), target, str(distance)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("BRSON_COUNTS ")]
    assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(lines[-1].removeprefix("BRSON_COUNTS "))


def blender_each(paths: list[Path]) -> dict[Path, dict[str, Any]]:
    """Blender's import of each file, in one Blender (its start is most of a file's cost):
    ``{path: counts}``, or ``{"error": ...}`` for a file whose import raised."""
    command = _blender_command("--each", *map(str, paths))
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    found: dict[Path, dict[str, Any]] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("BRSON_EACH "):
            each = json.loads(line.removeprefix("BRSON_EACH "))
            found[Path(each["file"])] = each.get("counts") or {"error": each["error"]}
    assert proc.returncode == 0 and len(found) == len(paths), (
        proc.stdout[-3000:] + proc.stderr[-3000:]
    )
    return found


GODOT_PROBE = """
var doc = GLTFDocument.new()
var state = GLTFState.new()
var err = doc.append_from_file(OUT + "scene.glb", state)
var out = {"error": err}
if err == OK:
\tvar root = doc.generate_scene(state)
\tout["state_nodes"] = state.get_nodes().size()
\tout["state_meshes"] = state.get_meshes().size()
\tout["state_skins"] = state.get_skins().size()
\tout["mesh_instances"] = 0
\tout["skeletons"] = 0
\tout["bones"] = 0
\tout["blend_shapes"] = 0
\tout["bind_error"] = 0.0
\tout["positions"] = {}
\tout["surfaces"] = {}
\tvar stack = [[root, Transform3D()]]
\twhile stack.size() > 0:
\t\tvar item = stack.pop_back()
\t\tvar n = item[0]
\t\tvar xf = item[1]
\t\tif n is Node3D:
\t\t\txf = xf * n.transform
\t\t\tout["positions"][String(n.name)] = [xf.origin.x, xf.origin.y, xf.origin.z]
\t\tif n is Skeleton3D:
\t\t\tout["skeletons"] += 1
\t\t\tout["bones"] += n.get_bone_count()
\t\tif n is MeshInstance3D and n.skin != null:
\t\t\tvar skel = n.get_node_or_null(n.skeleton)
\t\t\tfor b in range(n.skin.get_bind_count()):
\t\t\t\tvar bone = skel.find_bone(n.skin.get_bind_name(b))
\t\t\t\tif n.skin.get_bind_bone(b) >= 0:
\t\t\t\t\tbone = n.skin.get_bind_bone(b)
\t\t\t\tvar m = skel.get_bone_global_rest(bone) * n.skin.get_bind_pose(b)
\t\t\t\tvar e = (m.basis.x - Vector3(1, 0, 0)).length() + (m.basis.y - Vector3(0, 1, 0)).length()
\t\t\t\te += (m.basis.z - Vector3(0, 0, 1)).length() + m.origin.length()
\t\t\t\tout["bind_error"] = max(out["bind_error"], e)
\t\tif n is MeshInstance3D and n.mesh != null:
\t\t\tout["mesh_instances"] += 1
\t\t\tout["blend_shapes"] += n.mesh.get_blend_shape_count()
\t\t\tvar arrays = n.mesh.surface_get_arrays(0)
\t\t\tvar rows = []
\t\t\tvar verts = arrays[Mesh.ARRAY_VERTEX]
\t\t\tvar uvs = arrays[Mesh.ARRAY_TEX_UV]
\t\t\tvar normals = arrays[Mesh.ARRAY_NORMAL]
\t\t\tfor i in range(verts.size()):
\t\t\t\tvar p = xf * verts[i]
\t\t\t\tvar uv = uvs[i] if uvs != null and i < uvs.size() else Vector2()
\t\t\t\trows.append([p.x, p.y, p.z, uv.x, uv.y, normals[i].x, normals[i].y, normals[i].z])
\t\t\tvar indices = Array(arrays[Mesh.ARRAY_INDEX])
\t\t\tout["surfaces"][String(n.name)] = {"vertices": rows, "indices": indices}
\t\tfor c in n.get_children():
\t\t\tstack.append([c, xf])
\troot.free()
_save("result.json", JSON.stringify(out).to_utf8_buffer())
"""


def godot4_each(paths: list[Path]) -> dict[Path, dict[str, Any]]:
    """Godot 4's import of each .glb in one engine run (its start is most of a file's cost):
    ``{path: result}`` (``result["error"]``: Godot's error code, 0 when it imported); the run
    fails as a whole when the engine does not reach its end."""
    binary = require_godot(4)
    body = GODOT_PROBE.replace('"scene.glb"', '"scene%d.glb" % each')
    body = body.replace('"result.json"', '"result%d.json" % each')
    body = f"for each in range({len(paths)}):\n" + "".join(
        "\t" + line + "\n" if line.strip() else "\n" for line in body.strip("\n").splitlines()
    )
    files = {f"scene{i}.glb": path.read_bytes() for i, path in enumerate(paths)}
    run = run_script(binary, 4, body, files=files, timeout=20 + 10 * len(paths))
    assert run.finished, run.explain()
    results: dict[Path, dict[str, Any]] = {}
    for i, path in enumerate(paths):
        results[path] = json.loads(run.read(f"result{i}.json"))
    shutil.rmtree(run.directory, ignore_errors=True)
    return results
