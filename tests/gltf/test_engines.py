"""Every export checked by the real tools: Khronos glTF-Validator (0 errors), Blender's importer
and Godot 4's GLTFDocument (their counts equal brson's report)."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

from tests.gltf.conftest import AVATAR, Exported, inputs
from tests.gltf.tools import validate

#: Real glTF-Validator, Blender and Godot 4 runs, on the exports the session makes once
#: (one worker: tests/gltf/conftest.py builds them per process); each tool runs once over
#: every export (its start costs more than a file), each file's test reads its own result.
pytestmark = [pytest.mark.engine, pytest.mark.xdist_group("gltf")]

NAMES = [p.name for p in inputs()]


def gltf_json(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    (length,) = struct.unpack_from("<I", data, 12)
    result: dict[str, Any] = json.loads(data[20 : 20 + length])
    return result


def test_validator_reports_no_errors_on_any_export(exported: dict[str, Exported]) -> None:
    reports = validate(*(e.glb for e in exported.values()))
    assert len(reports) == len(exported)
    for report in reports:
        assert report["errors"] == 0, report["messages"]


def test_validator_sees_a_broken_file(tmp_path: Path, exported: dict[str, Exported]) -> None:
    """The check can fail: an accessor pointing past its buffer is an error."""
    source = exported[AVATAR.name].glb
    doc = gltf_json(source)
    doc["accessors"][0]["count"] *= 1000
    body = json.dumps(doc).encode()
    body += b" " * (-len(body) % 4)
    data = source.read_bytes()
    (length,) = struct.unpack_from("<I", data, 12)
    rest = data[20 + length :]
    chunk = struct.pack("<II", len(body), 0x4E4F534A) + body + rest
    broken = tmp_path / "broken.glb"
    broken.write_bytes(struct.pack("<III", 0x46546C67, 2, 12 + len(chunk)) + chunk)
    (report,) = validate(broken)
    assert report["errors"] > 0


@pytest.mark.parametrize("name", NAMES)
def test_blender_imports_what_brson_reports(
    name: str, exported: dict[str, Exported], blender_imports: dict[str, dict[str, Any]]
) -> None:
    export = exported[name]
    r = export.report
    counts = blender_imports[name]
    assert "error" not in counts, counts.get("error")
    node_names = {n.get("name") for n in gltf_json(export.glb).get("nodes", [])}
    armatures = counts["by_type"].get("ARMATURE", 0)
    # Blender makes joints bones, not objects; an armature object takes the place of the
    # skeleton's parent node when there is one (same name), else it is an extra object.
    replacing = sum(1 for a in counts["armature_names"] if a in node_names)
    assert counts["objects"] - armatures + replacing + counts["bones"] == r.nodes
    assert armatures == r.skins
    assert counts["by_type"].get("MESH", 0) == sum(
        1 for n in gltf_json(export.glb).get("nodes", []) if "mesh" in n
    )
    assert counts["meshes"] == r.meshes
    assert counts["vertices"] == r.vertices
    assert counts["materials"] == r.materials
    assert counts["images"] == r.images
    assert counts["bones"] == r.joints
    assert counts["shape_keys"] == r.morph_targets


@pytest.mark.parametrize("name", NAMES)
def test_godot4_imports_what_brson_reports(
    name: str, exported: dict[str, Exported], godot4_imports: dict[str, dict[str, Any]]
) -> None:
    export = exported[name]
    r = export.report
    result = godot4_imports[name]
    assert result["error"] == 0, f"Godot's import error {result['error']}"
    assert result["state_nodes"] == r.nodes
    assert result["state_meshes"] == r.meshes
    assert result["state_skins"] == r.skins
    assert result["bones"] == r.joints
    assert result["blend_shapes"] == r.morph_targets
    # Inverse bind matrices right: each joint's rest transform undoes its bind matrix.
    assert result["bind_error"] < 1e-4
    assert result["mesh_instances"] == sum(
        1 for n in gltf_json(export.glb).get("nodes", []) if "mesh" in n
    )


def test_the_avatar_has_everything(exported: dict[str, Exported]) -> None:
    r = exported[AVATAR.name].report
    assert (r.skins, r.joints, r.morph_targets, r.images) == (1, 5, 2, 2)
    assert r.warnings == []
