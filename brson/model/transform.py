"""4x4 matrices from Resonite's position / rotation quaternion (x, y, z, w) / scale.

Row-major, column vectors (``p' = M @ p``), the way Godot and most engines print transforms.
Pure Python: a slot tree holds at most a few hundred thousand slots and these are 16 floats.
"""

from __future__ import annotations

from collections.abc import Sequence

Matrix = list[list[float]]


def identity() -> Matrix:
    return [[1.0 if r == c else 0.0 for c in range(4)] for r in range(4)]


def rotation_matrix(q: Sequence[float]) -> list[list[float]]:
    """3x3 rotation of a quaternion (normalized first, so slightly off quaternions still work)."""
    x, y, z, w = (float(v) for v in q)
    n = x * x + y * y + z * z + w * w
    if n == 0.0:
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    s = 2.0 / n
    xx, yy, zz = x * x * s, y * y * s, z * z * s
    xy, xz, yz = x * y * s, x * z * s, y * z * s
    wx, wy, wz = w * x * s, w * y * s, w * z * s
    return [
        [1.0 - (yy + zz), xy - wz, xz + wy],
        [xy + wz, 1.0 - (xx + zz), yz - wx],
        [xz - wy, yz + wx, 1.0 - (xx + yy)],
    ]


def compose(position: Sequence[float], rotation: Sequence[float], scale: Sequence[float]) -> Matrix:
    """T * R * S."""
    rot = rotation_matrix(rotation)
    m = identity()
    for r in range(3):
        for c in range(3):
            m[r][c] = rot[r][c] * float(scale[c])
        m[r][3] = float(position[r])
    return m


def multiply(a: Matrix, b: Matrix) -> Matrix:
    return [[sum(a[r][k] * b[k][c] for k in range(4)) for c in range(4)] for r in range(4)]
