"""Handedness: a 2 x 1 quad on a slot at +X whose texture has four coloured quadrants as seen
from the front (top-left red, top-right green, bottom-left blue, bottom-right yellow), and a
slot "Ahead" at Resonite's forward +Z.  A mirrored or inside-out export shows the quadrants
swapped or nothing at all: checked in a Blender render, in Godot 4's imported surface and in
the glTF numbers themselves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.gltf.conftest import HANDEDNESS, Exported
from tests.gltf.tools import blender

#: Real Blender and Godot 4 runs.
pytestmark = [pytest.mark.engine, pytest.mark.xdist_group("gltf")]

RED, GREEN, BLUE, YELLOW = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)


def _close(pixel: np.ndarray, color: tuple[int, int, int]) -> bool:
    return bool(np.abs(pixel[:3].astype(int) - np.array(color)).max() < 60)


def test_blender_render_shows_the_front_the_right_way_round(
    exported: dict[str, Exported], tmp_path: Path
) -> None:
    picture = tmp_path / "front.png"
    counts = blender(exported[HANDEDNESS.name].glb, picture, target="1,0,0", distance=4)
    # Blender is Z up: glTF (x, y, z) -> Blender (x, -z, y); Resonite +X stays +X and
    # Resonite's forward +Z (glTF -Z) becomes Blender +Y.
    assert np.allclose(counts["locations"]["Sign"], [1, 0, 0], atol=1e-6)
    assert np.allclose(counts["locations"]["Ahead"], [0, 1, 0], atol=1e-6)
    pixels = np.asarray(Image.open(picture).convert("RGB"))
    h, w = pixels.shape[:2]
    # The quad fills the middle; sample the centre of each quadrant of the quad.
    cx, cy = w // 2, h // 2
    dx, dy = w // 8, h // 10
    assert _close(pixels[cy - dy, cx - dx], RED)
    assert _close(pixels[cy - dy, cx + dx], GREEN)
    assert _close(pixels[cy + dy, cx - dx], BLUE)
    assert _close(pixels[cy + dy, cx + dx], YELLOW)


def test_godot4_surface_faces_the_viewer_with_u_to_the_right(
    godot4_imports: dict[str, dict[str, Any]],
) -> None:
    result = godot4_imports[HANDEDNESS.name]
    assert result["error"] == 0, f"Godot's import error {result['error']}"
    assert np.allclose(result["positions"]["Sign"], [1, 0, 0], atol=1e-6)
    assert np.allclose(result["positions"]["Ahead"], [0, 0, -1], atol=1e-6)  # Godot forward -Z
    surface = result["surfaces"]["Sign"]
    rows = np.asarray(surface["vertices"])
    position, uv, normal = rows[:, :3], rows[:, 3:5], rows[:, 5:8]
    # A viewer on +Z looking along -Z (Godot's camera default) has +X to the right, +Y up.
    assert np.allclose(normal, [[0, 0, 1]] * len(rows), atol=1e-3)
    right = position[:, 0] > 1.0
    top = position[:, 1] > 0.0
    assert np.allclose(uv[right, 0], 1) and np.allclose(uv[~right, 0], 0)
    assert np.allclose(uv[top, 1], 0) and np.allclose(uv[~top, 1], 1)  # v down from the top
    # Godot draws clockwise triangles as front faces: cross(b - a, c - a) points away from
    # the viewer, against the normal.
    tri = np.asarray(surface["indices"]).reshape(-1, 3)
    cross = np.cross(
        position[tri[:, 1]] - position[tri[:, 0]], position[tri[:, 2]] - position[tri[:, 0]]
    )
    assert (cross @ np.array([0, 0, 1]) < 0).all()
