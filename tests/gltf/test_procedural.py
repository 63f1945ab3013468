"""Procedural meshes: every generator's triangles face out along their normals, sizes are
honoured, and the glTF conversion keeps front faces in front (the notes' invariant)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import brson
from brson.gltf import frame, procedural
from brson.meshx.mesh import Mesh
from brson.model.component import Component
from tests.gltf.conftest import ROOT

FIELDS: dict[str, dict[str, Any]] = {
    "QuadMesh": {"Size": [2.0, 1.0]},
    "BoxMesh": {"Size": [1.0, 2.0, 3.0]},
    "BevelBoxMesh": {"Size": [1.0, 2.0, 3.0], "Bevel": 0.1},
    "SphereMesh": {"Radius": 0.5},
    "IcoSphereMesh": {"Radius": 0.5, "Subdivisions": 2},
    "CylinderMesh": {"Radius": 0.5, "Height": 2.0},
    "ConeMesh": {"RadiusTop": 0.1, "RadiusBase": 0.5, "Height": 2.0},
    "CapsuleMesh": {"Radius": 0.5, "Height": 2.0},
    "TorusMesh": {"MajorRadius": 0.5, "MinorRadius": 0.1},
    "GridMesh": {"Size": [2.0, 3.0], "Points": [4, 5]},
}
EXTENT = {
    "QuadMesh": [2, 1, 0],
    "BoxMesh": [1, 2, 3],
    "BevelBoxMesh": [1, 2, 3],
    "SphereMesh": [1, 1, 1],
    "IcoSphereMesh": [1, 1, 1],
    "CylinderMesh": [1, 2, 1],
    "ConeMesh": [1, 2, 1],
    "CapsuleMesh": [1, 2, 1],
    "TorusMesh": [1.2, 0.2, 1.2],
    "GridMesh": [2, 0, 3],
}


def component(kind: str, fields: dict[str, Any]) -> Component:
    tree = brson.load(ROOT / "fixtures" / "tiny.brson")
    return tree.root.add_component(f"[FrooxEngine]FrooxEngine.{kind}", fields)


def facing(positions: np.ndarray, normals: np.ndarray, tri: np.ndarray) -> np.ndarray:
    a, b, c = (positions[tri[:, k]].astype(np.float64) for k in range(3))
    cross = np.cross(b - a, c - a)
    return (cross * normals[tri].mean(axis=1)).sum(axis=1)


@pytest.mark.parametrize("kind", sorted(FIELDS))
def test_generators(kind: str) -> None:
    mesh = procedural.generate(component(kind, FIELDS[kind]))
    assert isinstance(mesh, Mesh) and mesh.normals is not None
    tri = mesh.submeshes[0].indices
    assert len(tri) and np.isfinite(mesh.positions).all()
    assert (facing(mesh.positions, mesh.normals, tri) > 0).all()
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1, atol=1e-5)
    assert np.allclose(np.ptp(mesh.positions, axis=0), EXTENT[kind], atol=0.02)
    # Converted to glTF's frame, the same invariant holds (mirror + reversed winding).
    gl_pos, gl_norm = frame.vectors(mesh.positions), frame.vectors(mesh.normals)
    assert (facing(gl_pos, gl_norm, frame.triangles(tri)) > 0).all()


def test_quad_faces_resonite_back_and_reads_left_to_right() -> None:
    mesh = procedural.quad(component("QuadMesh", {"Size": [2.0, 1.0]}))
    assert mesh.normals is not None
    assert np.allclose(mesh.normals, [0, 0, -1])  # visible to a viewer on -Z looking along +Z
    right = mesh.positions[:, 0] > 0
    assert np.allclose(mesh.uvs[0][right, 0], 1) and np.allclose(mesh.uvs[0][~right, 0], 0)


def test_dual_sided_quad_has_back_faces() -> None:
    mesh = procedural.quad(component("QuadMesh", {"Size": [1.0, 1.0], "DualSided": True}))
    assert mesh.normals is not None
    assert len(mesh.submeshes[0].indices) == 4
    assert (facing(mesh.positions, mesh.normals, mesh.submeshes[0].indices) > 0).all()


def test_unknown_provider_is_none() -> None:
    assert procedural.generate(component("SomethingMesh", {})) is None


def test_frame_conversion_of_transforms() -> None:
    assert frame.translation([1, 2, 3]) == [1, 2, -3]
    # A quarter turn about +Y, left-handed, maps +Z to +X; mirrored, glTF's turn maps -Z to +X.
    s = 2**-0.5
    assert np.allclose(frame.rotation([0, s, 0, s]), [0, -s, 0, s])
    m = np.arange(16, dtype=np.float64).reshape(4, 4)
    assert np.allclose(frame.matrix(frame.matrix(m)), m)
    assert frame.texture_transform([2, 3], [0.5, 0.25]) == ([2.0, 3.0], [0.5, 1.0 - 3.0 - 0.25])


def test_rotation_field_turns_quad_and_grid() -> None:
    s = 2**-0.5  # a quarter turn about X: a quad facing -Z then faces +Y
    quad = procedural.quad(component("QuadMesh", {"Size": [1.0, 1.0], "Rotation": [s, 0, 0, s]}))
    assert quad.normals is not None and np.allclose(quad.normals, [0, 1, 0], atol=1e-6)
    grid = procedural.grid(
        component("GridMesh", {"Size": [1.0, 1.0], "Points": [1, 1], "Rotation": [s, 0, 0, s]})
    )
    assert grid.normals is not None and np.allclose(grid.normals, [0, 0, 1], atol=1e-6)
    assert (facing(grid.positions, grid.normals, grid.submeshes[0].indices) > 0).all()
