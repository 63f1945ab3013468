"""Resonite's frame (Unity's: left-handed, Y up, clockwise front faces) to glTF's
(right-handed, Y up, counter-clockwise front faces), in one place.

The conversion is the reflection ``z -> -z`` applied to everything with a direction: node
translations, rotations (a quaternion (x, y, z, w) becomes (-x, -y, z, w)), vertex positions,
normals, tangents (and their handedness w, because the bitangent ``cross(n, t) * w`` would
otherwise flip), blendshape deltas, and matrices (``S M S`` with ``S = diag(1, 1, -1, 1)``).
A reflection turns the winding of every triangle, so index triples are reversed to keep front
faces in front: for a front face, ``cross(b - a, c - a)`` points out of it in both frames.
Texture coordinates: Unity's v runs up from the bottom row, glTF's down from the top row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from brson.meshx.mesh import Floats, Ints

_S = np.diag([1.0, 1.0, -1.0, 1.0]).astype(np.float64)


def translation(p: Sequence[float]) -> list[float]:
    return [float(p[0]), float(p[1]), -float(p[2])]


def rotation(q: Sequence[float]) -> list[float]:
    """A unit quaternion (x, y, z, w) in glTF's frame (normalised; glTF requires unit length)."""
    x, y, z, w = (float(v) for v in q)
    n = (x * x + y * y + z * z + w * w) ** 0.5
    if n == 0.0 or not math.isfinite(n):
        return [0.0, 0.0, 0.0, 1.0]
    return [-x / n, -y / n, z / n, w / n]


def vectors(v: Floats) -> Floats:
    """Positions, normals or 3-D deltas (N x 3)."""
    out = np.array(v, dtype=np.float32, copy=True)
    out[:, 2] *= -1.0
    return out


def tangents(t: Floats) -> Floats:
    """N x 4 tangents: z and the handedness w both change sign."""
    out = np.array(t, dtype=np.float32, copy=True)
    out[:, 2] *= -1.0
    out[:, 3] *= -1.0
    return out


def triangles(indices: Ints) -> Ints:
    """N x 3 index triples with their order reversed (a, b, c) -> (a, c, b)."""
    return np.ascontiguousarray(np.asarray(indices, dtype=np.uint32)[:, [0, 2, 1]])


def uvs(uv: Floats) -> Floats:
    """Texture coordinates: v' = 1 - v (extra dimensions of 3-D/4-D channels are dropped:
    glTF's TEXCOORD is 2-D)."""
    out = np.array(uv[:, :2], dtype=np.float32, copy=True)
    out[:, 1] = 1.0 - out[:, 1]
    return out


def matrix(m: np.ndarray) -> np.ndarray:
    """A 4 x 4 row-major matrix (column vectors) conjugated by the reflection."""
    return _S @ np.asarray(m, dtype=np.float64) @ _S


def texture_transform(
    scale: Sequence[float], offset: Sequence[float]
) -> tuple[list[float], list[float]]:
    """Unity's ``uv * scale + offset`` (v up) as KHR_texture_transform scale and offset (v down):
    v_gl' = 1 - ((1 - v_gl) * s + o) = v_gl * s + (1 - s - o)."""
    sx, sy = float(scale[0]), float(scale[1])
    ox, oy = float(offset[0]), float(offset[1])
    return [sx, sy], [ox, 1.0 - sy - oy]
