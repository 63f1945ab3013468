"""4x4 matrices from Resonite's position / rotation quaternion (x, y, z, w) / scale.

Row-major, column vectors (``p' = M @ p``), the way Godot and most engines print transforms.
Pure Python: a slot tree holds at most a few hundred thousand slots and these are 16 floats.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Matrix = list[list[float]]

#: A slot's transform members and their arity. Every real writer stores their elements as BSON
#: doubles (float3 / floatQ); the one home of that fact for validate and from-json.
TRANSFORM_FIELDS = (("Position", 3), ("Rotation", 4), ("Scale", 3))


def restore_transform_doubles(doc: dict[str, Any]) -> int:
    """Turn integer elements of every slot's transform back into doubles; the count changed.

    A JSON tool that rewrites ``0.0`` as ``0`` (jq 1.6 does) makes from-json's exact BSON an
    int32 transform, which no writer produces. Slot transforms are the fields whose type the
    data tree itself fixes, so from-json restores them; a component member's type is not in the
    file, so its numbers are kept as written (docs/json-form.md)."""
    changed = 0
    stack = [doc.get("Object")]
    while stack:
        slot = stack.pop()
        if not isinstance(slot, dict):
            continue
        for key, size in TRANSFORM_FIELDS:
            member = slot.get(key)
            data = member.get("Data") if isinstance(member, dict) else None
            if isinstance(data, list) and len(data) == size:
                for i, value in enumerate(data):
                    if isinstance(value, int) and not isinstance(value, bool):
                        data[i] = float(value)
                        changed += 1
        children = slot.get("Children")
        if isinstance(children, list):
            stack.extend(children)
    return changed


def identity() -> Matrix:
    return [[1.0 if r == c else 0.0 for c in range(4)] for r in range(4)]


def rotation_matrix(q: Sequence[float]) -> list[list[float]]:
    """3x3 rotation of a quaternion (normalized first, so slightly off quaternions still work)."""
    x, y, z, w = map(float, q)
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
    """T * R * S, written out: export-godot composes one a slot, and the loops over rows and
    columns were most of the time (the same products in the same order: the same bits)."""
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = rotation_matrix(rotation)
    sx, sy, sz = float(scale[0]), float(scale[1]), float(scale[2])
    return [
        [r00 * sx, r01 * sy, r02 * sz, float(position[0])],
        [r10 * sx, r11 * sy, r12 * sz, float(position[1])],
        [r20 * sx, r21 * sy, r22 * sz, float(position[2])],
        [0.0, 0.0, 0.0, 1.0],
    ]


def multiply(a: Matrix, b: Matrix) -> Matrix:
    return [[sum(a[r][k] * b[k][c] for k in range(4)) for c in range(4)] for r in range(4)]
