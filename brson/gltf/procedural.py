"""Procedural mesh components (QuadMesh, BoxMesh, SphereMesh, ...) as :class:`Mesh` geometry in
Resonite's frame, generated from the component's fields.

Field names and defaults: docs/gltf-export.md says which were seen in real files and which are
assumed.  Geometry conventions (checked by tests for every generator): every triangle's
``cross(b - a, c - a)`` points out of its front face, along its vertex normals; meshes are
centred on the slot; a quad lies in the XY plane and shows its front to a viewer on -Z looking
along +Z (Resonite's forward), with u growing along +X and v along +Y.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from brson.meshx.mesh import TRIANGLES, Mesh, Submesh
from brson.model.component import Component
from brson.model.fields import field_number, field_numbers, field_value
from brson.model.transform import rotation_matrix


def _int(component: Component, key: str, default: int, low: int, high: int = 512) -> int:
    value = field_number(component, key)
    if value is None or not math.isfinite(value):
        return default
    return max(low, min(high, int(value)))


def _float(component: Component, key: str, default: float) -> float:
    value = field_number(component, key)
    return value if value is not None and math.isfinite(value) else default


def _vec(component: Component, key: str, default: tuple[float, ...]) -> list[float]:
    value = field_numbers(component, key, len(default))
    if value is None or not all(math.isfinite(v) for v in value):
        return list(default)
    return value


def _mesh(
    positions: npt.ArrayLike, normals: npt.ArrayLike, uv: npt.ArrayLike, triangles: npt.ArrayLike
) -> Mesh:
    tri = np.asarray(triangles, dtype=np.uint32).reshape(-1, 3)
    return Mesh(
        np.asarray(positions, dtype=np.float32).reshape(-1, 3),
        normals=np.asarray(normals, dtype=np.float32).reshape(-1, 3),
        uvs=[np.asarray(uv, dtype=np.float32).reshape(-1, 2)],
        submeshes=[Submesh(TRIANGLES, tri)],
    )


def _with_back_faces(mesh: Mesh) -> Mesh:
    """DualSided: the same faces again, reversed, with flipped normals."""
    n = mesh.vertex_count
    tri = mesh.submeshes[0].indices
    assert mesh.normals is not None
    return _mesh(
        np.vstack([mesh.positions, mesh.positions]),
        np.vstack([mesh.normals, -mesh.normals]),
        np.vstack([mesh.uvs[0], mesh.uvs[0]]),
        np.vstack([tri, tri[:, [0, 2, 1]] + n]),
    )


def _uv_transform(mesh: Mesh, component: Component, size: list[float] | None = None) -> None:
    scale = _vec(component, "UVScale", (1.0, 1.0))
    offset = _vec(component, "UVOffset", (0.0, 0.0))
    uv = mesh.uvs[0]
    if size is not None and field_value(component, "ScaleUVWithSize") is True:
        scale = [scale[0] * size[0], scale[1] * size[1]]
    uv *= np.asarray(scale[:2], dtype=np.float32)
    uv += np.asarray(offset[:2], dtype=np.float32)


def _rotate(mesh: Mesh, component: Component) -> None:
    """The component's own ``Rotation`` (QuadMesh, GridMesh) applied to the geometry."""
    rotation = _vec(component, "Rotation", (0.0, 0.0, 0.0, 1.0))
    rot = np.asarray(rotation_matrix(rotation), dtype=np.float32)
    mesh.positions = mesh.positions @ rot.T
    if mesh.normals is not None:
        mesh.normals = mesh.normals @ rot.T


def quad(component: Component) -> Mesh:
    w, h = _vec(component, "Size", (1.0, 1.0))
    x, y = w / 2, h / 2
    mesh = _mesh(
        [[-x, -y, 0], [x, -y, 0], [x, y, 0], [-x, y, 0]],
        [[0, 0, -1]] * 4,
        [[0, 0], [1, 0], [1, 1], [0, 1]],
        [[0, 3, 2], [0, 2, 1]],
    )
    _uv_transform(mesh, component, [w, h])
    _rotate(mesh, component)
    if field_value(component, "UseVertexColors") is not False:
        corners = [
            field_numbers(component, key, 4)
            for key in ("LowerLeftColor", "LowerRightColor", "UpperRightColor", "UpperLeftColor")
        ]
        if all(c is not None for c in corners) and any(c != [1.0] * 4 for c in corners if c):
            mesh.colors = np.asarray(corners, dtype=np.float32)
    if field_value(component, "DualSided") is True:
        colors = mesh.colors
        mesh = _with_back_faces(mesh)
        if colors is not None:
            mesh.colors = np.vstack([colors, colors])
    return mesh


def _box_faces(hx: float, hy: float, hz: float) -> Mesh:
    positions: list[list[float]] = []
    normals: list[list[float]] = []
    uv: list[list[float]] = []
    tris: list[list[int]] = []
    h = (hx, hy, hz)
    for axis in range(3):
        for sign in (1.0, -1.0):
            n = [0.0, 0.0, 0.0]
            n[axis] = sign
            # u, v axes so that cross(u, v) = n (outward): the face's front is outside.
            ua, va = (axis + 1) % 3, (axis + 2) % 3
            u = [0.0, 0.0, 0.0]
            v = [0.0, 0.0, 0.0]
            u[ua], v[va] = sign, 1.0
            if axis == 1:  # keep v "up"-ish: on the top/bottom faces v runs along Z
                u, v = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
                u[0], v[2] = 1.0, -sign
            base = len(positions)
            for cu, cv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = [n[i] * h[i] + cu * u[i] * h[i] + cv * v[i] * h[i] for i in range(3)]
                positions.append(p)
                normals.append(n)
                uv.append([(cu + 1) / 2, (cv + 1) / 2])
            tris += [[base, base + 1, base + 2], [base, base + 2, base + 3]]
    return _mesh(positions, normals, uv, tris)


def box(component: Component) -> Mesh:
    sx, sy, sz = _vec(component, "Size", (1.0, 1.0, 1.0))
    mesh = _box_faces(sx / 2, sy / 2, sz / 2)
    scale = _vec(component, "UVScale", (1.0, 1.0, 1.0))
    mesh.uvs[0] *= np.asarray(scale[:2], dtype=np.float32)
    return mesh


def _convex_polygons(polygons: list[np.ndarray]) -> Mesh:
    """Flat-shaded faces of a convex solid centred on the origin: each polygon's points are
    ordered around its centre and fanned so the front faces outwards."""
    positions: list[np.ndarray] = []
    normals: list[np.ndarray] = []
    tris: list[list[int]] = []
    for points in polygons:
        centre = points.mean(axis=0)
        outward = centre / (np.linalg.norm(centre) or 1.0)
        e1 = points[0] - centre
        e1 /= np.linalg.norm(e1) or 1.0
        e2 = np.cross(outward, e1)
        rel = points - centre
        order = np.argsort(np.arctan2(rel @ e2, rel @ e1))
        ordered = points[order]
        normal = np.cross(ordered[1] - ordered[0], ordered[2] - ordered[0])
        normal /= np.linalg.norm(normal) or 1.0
        if normal @ outward < 0:
            ordered, normal = ordered[::-1], -normal
        base = sum(len(p) for p in positions)
        positions.append(ordered)
        normals.append(np.repeat(normal[None, :], len(ordered), axis=0))
        tris += [[base, base + i, base + i + 1] for i in range(1, len(ordered) - 1)]
    all_positions = np.vstack(positions)
    span = np.ptp(all_positions, axis=0)
    span[span == 0] = 1.0
    lo = all_positions.min(axis=0)
    # Box-projected UVs (the face's two largest axes): enough for tiling materials.
    uv = np.zeros((len(all_positions), 2), dtype=np.float32)
    all_normals = np.vstack(normals)
    major = np.abs(all_normals).argmax(axis=1)
    for i, axis in enumerate(major):
        a, b = [k for k in range(3) if k != axis]
        uv[i] = (all_positions[i, a] - lo[a]) / span[a], (all_positions[i, b] - lo[b]) / span[b]
    return _mesh(all_positions, all_normals, uv, tris)


def bevel_box(component: Component) -> Mesh:
    sx, sy, sz = _vec(component, "Size", (1.0, 1.0, 1.0))
    h = np.array([sx / 2, sy / 2, sz / 2])
    bevel = min(max(_float(component, "Bevel", 0.0), 0.0), float(h.min()))
    if bevel <= 0.0:
        return box(component)
    inner = h - bevel
    polygons: list[np.ndarray] = []
    signs = (-1.0, 1.0)
    for axis in range(3):  # the six flat faces
        a, b = [k for k in range(3) if k != axis]
        for s in signs:
            pts = []
            for sa in signs:
                for sb in signs:
                    p = np.zeros(3)
                    p[axis], p[a], p[b] = s * h[axis], sa * inner[a], sb * inner[b]
                    pts.append(p)
            polygons.append(np.array(pts))
    for axis in range(3):  # twelve bevels along the edges parallel to ``axis``
        a, b = [k for k in range(3) if k != axis]
        for sa in signs:
            for sb in signs:
                pts = []
                for s in signs:
                    for which in (a, b):
                        p = np.zeros(3)
                        p[axis] = s * inner[axis]
                        p[a], p[b] = sa * inner[a], sb * inner[b]
                        p[which] = (sa if which == a else sb) * h[which]
                        pts.append(p)
                polygons.append(np.array(pts))
    for sx_ in signs:  # eight corner triangles
        for sy_ in signs:
            for sz_ in signs:
                s3 = np.array([sx_, sy_, sz_])
                pts = []
                for axis in range(3):
                    p = s3 * inner
                    p[axis] = s3[axis] * h[axis]
                    pts.append(p)
                polygons.append(np.array(pts))
    return _convex_polygons(polygons)


def _lathe(profile: list[tuple[float, float, float, float]], sides: int, v_of: list[float]) -> Mesh:
    """A surface of revolution around Y: ``profile`` rows (radius, y, normal_r, normal_y) from
    bottom to top; smooth normals from the profile."""
    rows = len(profile)
    positions = np.zeros((rows, sides + 1, 3), dtype=np.float32)
    normals = np.zeros_like(positions)
    uv = np.zeros((rows, sides + 1, 2), dtype=np.float32)
    for j, (r, y, nr, ny) in enumerate(profile):
        for i in range(sides + 1):
            angle = 2 * math.pi * i / sides
            c, s = math.cos(angle), math.sin(angle)
            positions[j, i] = (r * c, y, r * s)
            normals[j, i] = (nr * c, ny, nr * s)
            uv[j, i] = (i / sides, v_of[j])
    tris = []
    for j in range(rows - 1):
        for i in range(sides):
            a = j * (sides + 1) + i
            b, c, d = a + 1, a + sides + 1, a + sides + 2
            # Outward front faces: with x = r cos, z = r sin, the angle runs from +X towards +Z.
            tris += [[a, c, d], [a, d, b]]
    mesh = _mesh(positions.reshape(-1, 3), normals.reshape(-1, 3), uv.reshape(-1, 2), tris)
    return _drop_degenerate(mesh)


def _drop_degenerate(mesh: Mesh) -> Mesh:
    tri = mesh.submeshes[0].indices
    p = mesh.positions.astype(np.float64)
    area = np.linalg.norm(
        np.cross(p[tri[:, 1]] - p[tri[:, 0]], p[tri[:, 2]] - p[tri[:, 0]]), axis=1
    )
    mesh.submeshes[0] = Submesh(TRIANGLES, tri[area > 1e-12])
    return mesh


def _cap(radius: float, y: float, up: bool, sides: int) -> Mesh:
    positions = [[0.0, y, 0.0]]
    uv = [[0.5, 0.5]]
    for i in range(sides + 1):
        angle = 2 * math.pi * i / sides
        positions.append([radius * math.cos(angle), y, radius * math.sin(angle)])
        uv.append([0.5 + 0.5 * math.cos(angle), 0.5 + 0.5 * math.sin(angle)])
    tris = [[0, i + 2, i + 1] if up else [0, i + 1, i + 2] for i in range(sides)]
    return _mesh(positions, [[0.0, 1.0 if up else -1.0, 0.0]] * len(positions), uv, tris)


def _join(meshes: list[Mesh]) -> Mesh:
    offsets = np.cumsum([0] + [m.vertex_count for m in meshes[:-1]])
    normals = [m.normals for m in meshes]
    assert all(n is not None for n in normals)
    return _mesh(
        np.vstack([m.positions for m in meshes]),
        np.vstack(normals),  # type: ignore[arg-type]
        np.vstack([m.uvs[0] for m in meshes]),
        np.vstack([m.submeshes[0].indices + o for m, o in zip(meshes, offsets, strict=True)]),
    )


def sphere(component: Component) -> Mesh:
    radius = _float(component, "Radius", 0.5)
    rings = _int(component, "Rings", 16, 2)
    sides = _int(component, "Segments", 32, 3)
    profile = []
    for j in range(rings + 1):
        theta = math.pi * j / rings  # 0 at the bottom pole
        ny, nr = -math.cos(theta), math.sin(theta)
        profile.append((radius * nr, radius * ny, nr, ny))
    return _lathe(profile, sides, [j / rings for j in range(rings + 1)])


def frustum(component: Component, top: float, bottom: float) -> Mesh:
    height = _float(component, "Height", 1.0)
    sides = _int(component, "Sides", 16, 3)
    slope = bottom - top
    length = math.hypot(slope, height) or 1.0
    nr, ny = height / length, slope / length
    y0, y1 = -height / 2, height / 2
    parts = [_lathe([(bottom, y0, nr, ny), (top, y1, nr, ny)], sides, [0.0, 1.0])]
    if field_value(component, "Caps") is not False:
        if bottom > 0:
            parts.append(_cap(bottom, y0, False, sides))
        if top > 0:
            parts.append(_cap(top, y1, True, sides))
    return _join(parts)


def cylinder(component: Component) -> Mesh:
    radius = _float(component, "Radius", 0.5)
    return frustum(component, radius, radius)


def cone(component: Component) -> Mesh:
    return frustum(
        component, _float(component, "RadiusTop", 0.0), _float(component, "RadiusBase", 0.5)
    )


def capsule(component: Component) -> Mesh:
    radius = _float(component, "Radius", 0.5)
    height = max(_float(component, "Height", 2.0), 2 * radius)
    rings = _int(component, "Rings", 8, 1)
    sides = _int(component, "Segments", 32, 3)
    half = height / 2 - radius
    profile = []
    for j in range(rings + 1):  # bottom hemisphere
        theta = (math.pi / 2) * j / rings
        profile.append(
            (
                radius * math.sin(theta),
                -half - radius * math.cos(theta),
                math.sin(theta),
                -math.cos(theta),
            )
        )
    for j in range(rings + 1):  # top hemisphere
        theta = math.pi / 2 + (math.pi / 2) * j / rings
        profile.append(
            (
                radius * math.sin(theta),
                half - radius * math.cos(theta),
                math.sin(theta),
                -math.cos(theta),
            )
        )
    v = [(p[1] + height / 2) / height for p in profile]
    return _lathe(profile, sides, v)


def torus(component: Component) -> Mesh:
    major = _float(component, "MajorRadius", 0.5)
    minor = _float(component, "MinorRadius", 0.1)
    minor_segments = _int(component, "MinorSegments", 16, 3)
    sides = _int(component, "MajorSegments", 32, 3)
    profile = []
    for j in range(minor_segments + 1):
        phi = -math.pi / 2 - 2 * math.pi * j / minor_segments  # from the inner bottom, outward
        nr, ny = math.cos(phi), math.sin(phi)
        profile.append((major + minor * nr, minor * ny, nr, ny))
    profile.reverse()
    return _lathe(profile, sides, [j / minor_segments for j in range(minor_segments + 1)])


def ico_sphere(component: Component) -> Mesh:
    radius = _float(component, "Radius", 0.5)
    subdivisions = _int(component, "Subdivisions", 1, 0, 6)
    t = (1 + 5**0.5) / 2
    verts = [
        [-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
        [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1],
    ]  # fmt: skip
    faces = [
        [0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4],
        [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8],
        [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1],
    ]  # fmt: skip
    points = [np.asarray(v, dtype=np.float64) / np.linalg.norm(v) for v in verts]
    for _ in range(subdivisions):
        cache: dict[tuple[int, int], int] = {}

        def middle(i: int, j: int, cache: dict[tuple[int, int], int] = cache) -> int:
            key = (min(i, j), max(i, j))
            if key not in cache:
                m = points[i] + points[j]
                points.append(m / np.linalg.norm(m))
                cache[key] = len(points) - 1
            return cache[key]

        new = []
        for a, b, c in faces:
            ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
            new += [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
        faces = new
    unit = np.asarray(points, dtype=np.float32)
    # Orient every face outwards (the table above follows a right-handed convention).
    tri = np.asarray(faces, dtype=np.uint32)
    cross = np.cross(unit[tri[:, 1]] - unit[tri[:, 0]], unit[tri[:, 2]] - unit[tri[:, 0]])
    flip = (cross * unit[tri[:, 0]]).sum(axis=1) < 0
    tri[flip] = tri[flip][:, [0, 2, 1]]
    uv = np.stack(
        [
            0.5 + np.arctan2(unit[:, 2], unit[:, 0]) / (2 * np.pi),
            0.5 + np.arcsin(unit[:, 1]) / np.pi,
        ],
        axis=1,
    )
    return _mesh(unit * radius, unit, uv, tri)


def grid(component: Component) -> Mesh:
    sx, sz = _vec(component, "Size", (1.0, 1.0))
    points = field_numbers(component, "Points", 2) or [1.0, 1.0]
    nx = max(1, min(512, int(points[0])))
    nz = max(1, min(512, int(points[1])))
    xs = np.linspace(-sx / 2, sx / 2, nx + 1)
    zs = np.linspace(-sz / 2, sz / 2, nz + 1)
    gx, gz = np.meshgrid(xs, zs)
    positions = np.stack([gx.ravel(), np.zeros(gx.size), gz.ravel()], axis=1)
    uv = np.stack([(gx.ravel() + sx / 2) / (sx or 1), (gz.ravel() + sz / 2) / (sz or 1)], axis=1)
    tris = []
    for j in range(nz):
        for i in range(nx):
            a = j * (nx + 1) + i
            tris += [[a, a + nx + 1, a + nx + 2], [a, a + nx + 2, a + 1]]
    mesh = _mesh(positions, [[0.0, 1.0, 0.0]] * len(positions), uv, tris)
    _uv_transform(mesh, component)
    _rotate(mesh, component)
    return mesh


GENERATORS: dict[str, Callable[[Component], Mesh]] = {
    "QuadMesh": quad,
    "BoxMesh": box,
    "BevelBoxMesh": bevel_box,
    "SphereMesh": sphere,
    "IcoSphereMesh": ico_sphere,
    "CylinderMesh": cylinder,
    "ConeMesh": cone,
    "CapsuleMesh": capsule,
    "TorusMesh": torus,
    "GridMesh": grid,
}


def generate(component: Component) -> Mesh | None:
    """The component's geometry; None when it is not a procedural mesh brson knows."""
    make = GENERATORS.get(component.type.full_name.removeprefix("FrooxEngine."))
    return make(component) if make is not None else None
