"""``MeshX``, Resonite's mesh asset: reader for versions 0-7 (plain and LZ4 bodies), writer of
version 7.  ``../shared/notes/meshx.md`` (docs/meshx.md here) has the layout and its evidence.

A mesh asset comes from strangers: every count is checked against the bytes still present
before an array is allocated, so a 40-byte file claiming 2**60 vertices is a :class:`MeshXError`
at once, not a MemoryError later.
"""

from __future__ import annotations

import struct

import numpy as np

from brson.codecs import limits, lz4net
from brson.codecs.varint import read_varint, write_varint
from brson.errors import BrsonError, CodecError, LimitError
from brson.meshx.mesh import (
    POINTS,
    TRIANGLES,
    Blendshape,
    BlendshapeFrame,
    Bone,
    Floats,
    Mesh,
    Submesh,
)

MAGIC = b"\x05MeshX"
CURRENT_VERSION = 7
FLAG_NORMALS, FLAG_TANGENTS, FLAG_COLORS, FLAG_BONES = 1, 2, 4, 8
#: Before v6 each of these flags means one 2-D UV channel (UV0-UV3).
LEGACY_UV_FLAGS = (16, 32, 64, 128)
ENCODING_PLAIN, ENCODING_LZ4, ENCODING_LZMA = 0, 1, 2
PROFILES = ("Linear", "sRGB", "sRGBAlpha")
BLENDSHAPE_NORMALS, BLENDSHAPE_TANGENTS = 1, 2
#: Bytes a vertex needs at least for its bone binding (4 one-byte varints + 4 float32).
_MIN_BINDING = 20


class MeshXError(BrsonError):
    """A MeshX asset is truncated, corrupt, hostile or of an unsupported version/encoding."""

    layer = "meshx"


class _Reader:
    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def need(self, n: int, what: str) -> None:
        if n < 0 or self.pos + n > len(self.data):
            raise MeshXError(
                f"{what} needs {n} bytes but {len(self.data) - self.pos} remain (truncated "
                "or a count that cannot be right)",
                offset=self.pos,
            )

    def varint(self, what: str) -> int:
        try:
            value, self.pos = read_varint(self.data, self.pos)
        except CodecError as exc:
            raise MeshXError(f"{what}: {exc.message}", offset=exc.offset) from None
        return value

    def string(self, what: str) -> str:
        n = self.varint(what)
        self.need(n, what)
        raw = self.data[self.pos : self.pos + n]
        self.pos += n
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise MeshXError(f"{what} is not UTF-8", offset=self.pos - n) from None

    def unpack(self, fmt: str, what: str) -> tuple[int | float, ...]:
        size = struct.calcsize(fmt)
        self.need(size, what)
        out = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return out

    def floats(self, count: int, width: int, what: str) -> Floats:
        self.need(count * width * 4, what)
        out = np.frombuffer(self.data, "<f4", count * width, self.pos).reshape(count, width)
        self.pos += count * width * 4
        return out.astype(np.float32)

    def int32s(self, count: int, what: str) -> np.ndarray:
        self.need(count * 4, what)
        out = np.frombuffer(self.data, "<i4", count, self.pos)
        self.pos += count * 4
        return out


def _checked(indices: np.ndarray, vertices: int, what: str) -> np.ndarray:
    if indices.size and (int(indices.min()) < 0 or int(indices.max()) >= vertices):
        raise MeshXError(f"{what} has an index outside 0..{vertices - 1}")
    return indices.astype(np.uint32)


def _inflate(payload: bytes | memoryview, max_size: int, budget: limits.Budget | None) -> bytes:
    """lz4net's decompression under ``max_size`` and what is left of ``budget``: a run over
    its budget is refused with the run's limit named, not this asset's share of it."""
    if budget is None:
        return lz4net.decompress(payload, max_size)
    limit = min(max_size, budget.remaining)
    try:
        out = lz4net.decompress(payload, limit)
    except LimitError:
        if limit < max_size:
            budget.charge(limit + 1)  # raises the run's LimitError
        raise
    budget.charge(len(out))
    return out


def read(
    data: bytes,
    *,
    max_size: int = limits.DEFAULT_MAX_SIZE,
    budget: limits.Budget | None = None,
) -> Mesh:
    """Parse a MeshX asset.  Raises :class:`MeshXError` (or LimitError) on anything wrong.

    ``max_size`` bounds one asset's decompressed bytes; ``budget`` (shared by every asset of
    a run) bounds them all together, and is charged before any array is allocated: the
    arrays a body's counts make are never larger than the body (checked below)."""
    if not data.startswith(MAGIC):
        # Some writers compress the whole file with lz4net's chunk framing (notes/meshx.md).
        try:
            inner = _inflate(data, max_size, budget)
        except LimitError:
            raise
        except (BrsonError, ValueError):
            raise MeshXError("not a MeshX asset (no MeshX magic)") from None
        if not inner.startswith(MAGIC):
            raise MeshXError("not a MeshX asset (no MeshX magic)")
        data = inner
    r = _Reader(data, len(MAGIC))
    (version,) = r.unpack("<i", "version")
    if not 0 <= int(version) <= CURRENT_VERSION:
        raise MeshXError(f"unsupported MeshX version {version} (known: 0-{CURRENT_VERSION})")
    version = int(version)
    (flags,) = r.unpack("<I", "flags")
    flags = int(flags)
    vertices = r.varint("vertex count")
    parts = r.varint("triangle count" if version < 3 else "submesh count")
    bone_count = r.varint("bone count")
    # v3 is read without a blendshape count: one of the two decompiled readers does so, the
    # other reads one; no v3 file was available to decide (docs/meshx.md).
    shape_count = r.varint("blendshape count") if version >= 4 else 0
    legacy_submeshes = r.varint("triangle submesh count") if version in (1, 2) else 1
    if version >= 6:
        channels = r.varint("UV channel count")
        r.need(channels, "UV channel dimensions")
        dims = list(data[r.pos : r.pos + channels])
        r.pos += channels
        if any(d not in (2, 3, 4) for d in dims):
            raise MeshXError(f"UV channel dimensions {dims} (each must be 2, 3 or 4)")
    else:
        dims = [2 for bit in LEGACY_UV_FLAGS if flags & bit]
    profile = r.string("color profile") if version >= 7 else "sRGB"
    if profile not in PROFILES:
        raise MeshXError(f"unknown color profile {profile!r}")
    encoding = data[r.pos] if version >= 2 and r.pos < len(data) else ENCODING_PLAIN
    if version >= 2:
        r.need(1, "encoding")
        r.pos += 1
    if encoding == ENCODING_LZ4:
        try:
            body = _inflate(memoryview(data)[r.pos :], max_size, budget)
        except BrsonError as exc:
            if isinstance(exc, LimitError):
                raise
            raise MeshXError(f"LZ4 body: {exc.message}") from None
        r = _Reader(body)
    elif budget is not None and encoding == ENCODING_PLAIN:
        budget.charge(len(data) - r.pos)
    elif encoding == ENCODING_LZMA:
        raise MeshXError(
            "LZMA-encoded MeshX bodies are not supported (their framing is not established)"
        )
    elif encoding != ENCODING_PLAIN:
        raise MeshXError(f"unknown MeshX encoding {encoding}")

    # Cheapest possible body, checked before any loop or allocation sized by a count.
    per_vertex = 12 + 4 * sum(dims)
    per_vertex += 12 if flags & FLAG_NORMALS else 0
    per_vertex += 16 if flags & FLAG_TANGENTS else 0
    per_vertex += 16 if flags & FLAG_COLORS else 0
    per_vertex += _MIN_BINDING if flags & FLAG_BONES else 0
    r.need(vertices * per_vertex, f"{vertices} vertices")
    r.need(parts + bone_count * 65 + shape_count * 3, "submesh, bone and blendshape tables")

    mesh = Mesh(r.floats(vertices, 3, "positions"), color_profile=profile)
    if flags & FLAG_NORMALS:
        mesh.normals = r.floats(vertices, 3, "normals")
    if flags & FLAG_TANGENTS:
        mesh.tangents = r.floats(vertices, 4, "tangents")
    if flags & FLAG_COLORS:
        mesh.colors = r.floats(vertices, 4, "colors")
    if flags & FLAG_BONES:
        mesh.bone_indices, mesh.bone_weights = _bindings(r, vertices, version)
    mesh.uvs = [r.floats(vertices, d, f"UV channel {i}") for i, d in enumerate(dims)]
    if version >= 3:
        for i in range(parts):
            topology = r.string(f"submesh {i} topology")
            if topology == "":
                mesh.submeshes.append(Submesh("", np.zeros((0, 3), np.uint32)))
                continue
            if topology not in (TRIANGLES, POINTS):
                raise MeshXError(f"submesh {i} has unknown topology {topology!r}")
            count = r.varint(f"submesh {i} primitive count")
            width = 3 if topology == TRIANGLES else 1
            raw = r.int32s(count * width, f"submesh {i} indices")
            indices = _checked(raw, vertices, f"submesh {i}").reshape(count, width)
            mesh.submeshes.append(Submesh(topology, indices))
    else:
        raw = r.int32s(parts * 3, "triangle indices")
        triangles = _checked(raw, vertices, "triangles").reshape(parts, 3)
        if legacy_submeshes > 1:
            owner = r.int32s(parts, "triangle submesh indices")
            if owner.size and (int(owner.min()) < 0 or int(owner.max()) >= legacy_submeshes):
                raise MeshXError("a triangle names a submesh that does not exist")
            for s in range(legacy_submeshes):
                mesh.submeshes.append(Submesh(TRIANGLES, triangles[owner == s]))
        else:
            mesh.submeshes.append(Submesh(TRIANGLES, triangles))
    for i in range(bone_count):
        name = r.string(f"bone {i} name")
        mesh.bones.append(Bone(name, r.floats(4, 4, f"bone {i} bind pose")))
    bound = mesh.bone_indices
    if bound is not None and bound.size and int(bound.max()) >= max(bone_count, 1):
        raise MeshXError(f"a vertex is bound to a bone beyond the {bone_count} bones")
    for i in range(shape_count):
        name = r.string(f"blendshape {i} name")
        shape_flags = r.varint(f"blendshape {i} flags")
        frames = r.varint(f"blendshape {i} frame count")
        per_frame = 4 + vertices * 12 * (
            1 + bool(shape_flags & BLENDSHAPE_NORMALS) + bool(shape_flags & BLENDSHAPE_TANGENTS)
        )
        r.need(frames * per_frame, f"blendshape {i} frames")
        shape = Blendshape(name)
        for f in range(frames):
            (weight,) = r.unpack("<f", f"blendshape {i} frame {f} weight")
            frame = BlendshapeFrame(float(weight), r.floats(vertices, 3, "blendshape positions"))
            if shape_flags & BLENDSHAPE_NORMALS:
                frame.normals = r.floats(vertices, 3, "blendshape normals")
            if shape_flags & BLENDSHAPE_TANGENTS:
                frame.tangents = r.floats(vertices, 3, "blendshape tangents")
            shape.frames.append(frame)
        mesh.blendshapes.append(shape)
    return mesh


def _bindings(r: _Reader, vertices: int, version: int) -> tuple[np.ndarray, Floats]:
    """Per vertex 4 varint bone indices then 4 float32 weights.  The common case (every index
    below 128, one byte each) is read as one strided array; others fall back to a loop."""
    start = r.pos
    view = np.frombuffer(r.data, np.uint8, vertices * _MIN_BINDING, start)
    records = view.reshape(vertices, _MIN_BINDING) if vertices else view.reshape(0, _MIN_BINDING)
    if not (records[:, :4] & 0x80).any():
        indices = records[:, :4].astype(np.uint32)
        weights = records[:, 4:].copy().view("<f4").astype(np.float32).reshape(vertices, 4)
        r.pos += vertices * _MIN_BINDING
    else:
        indices = np.zeros((vertices, 4), np.uint32)
        weights = np.zeros((vertices, 4), np.float32)
        for v in range(vertices):
            for k in range(4):
                index = r.varint("bone index")
                if index > 0xFFFFFFFF:  # beyond any bone table (checked against it later)
                    raise MeshXError(f"vertex {v} is bound to bone {index}", offset=r.pos)
                indices[v, k] = index
            weights[v] = r.unpack("<4f", "bone weights")
    if version <= 4:
        total = weights.sum(axis=1, keepdims=True)
        np.divide(weights, total, out=weights, where=total > 0)
    return indices, weights


def write(mesh: Mesh, *, lz4: bool = True) -> bytes:
    """Version-7 MeshX bytes of ``mesh`` (LZ4 body unless ``lz4=False``)."""
    n = mesh.vertex_count
    flags = 0
    flags |= FLAG_NORMALS if mesh.normals is not None else 0
    flags |= FLAG_TANGENTS if mesh.tangents is not None else 0
    flags |= FLAG_COLORS if mesh.colors is not None else 0
    skinned = mesh.bone_indices is not None and mesh.bone_weights is not None
    flags |= FLAG_BONES if skinned else 0
    head = bytearray(MAGIC)
    head += struct.pack("<iI", CURRENT_VERSION, flags)
    head += write_varint(n) + write_varint(len(mesh.submeshes)) + write_varint(len(mesh.bones))
    head += write_varint(len(mesh.blendshapes)) + write_varint(len(mesh.uvs))
    head += bytes(int(uv.shape[1]) for uv in mesh.uvs)
    head += _string(mesh.color_profile)
    head.append(ENCODING_LZ4 if lz4 else ENCODING_PLAIN)

    body = bytearray(_f32(mesh.positions, 3))
    if mesh.normals is not None:
        body += _f32(mesh.normals, 3)
    if mesh.tangents is not None:
        body += _f32(mesh.tangents, 4)
    if mesh.colors is not None:
        body += _f32(mesh.colors, 4)
    if skinned:
        assert mesh.bone_indices is not None and mesh.bone_weights is not None
        idx = np.asarray(mesh.bone_indices, np.int64).reshape(n, 4)
        wts = np.ascontiguousarray(mesh.bone_weights, "<f4").reshape(n, 4)
        if idx.size == 0 or int(idx.max()) < 128:
            rec = np.zeros((n, _MIN_BINDING), np.uint8)
            rec[:, :4] = idx
            rec[:, 4:] = wts.view(np.uint8).reshape(n, 16)
            body += rec.tobytes()
        else:
            for v in range(n):
                for k in range(4):
                    body += write_varint(int(idx[v, k]))
                body += wts[v].tobytes()
    for uv in mesh.uvs:
        body += _f32(uv, int(uv.shape[1]))
    for sub in mesh.submeshes:
        body += _string(sub.topology)
        if sub.topology == "":
            continue
        body += write_varint(len(sub.indices))
        body += np.ascontiguousarray(sub.indices, "<i4").tobytes()
    for bone in mesh.bones:
        body += _string(bone.name) + _f32(bone.bind_pose, 4)
    for shape in mesh.blendshapes:
        first = shape.frames[0] if shape.frames else None
        sflags = 0
        if first is not None and first.normals is not None:
            sflags |= BLENDSHAPE_NORMALS
        if first is not None and first.tangents is not None:
            sflags |= BLENDSHAPE_TANGENTS
        body += _string(shape.name) + write_varint(sflags) + write_varint(len(shape.frames))
        for frame in shape.frames:
            body += struct.pack("<f", frame.weight) + _f32(frame.positions, 3)
            if sflags & BLENDSHAPE_NORMALS:
                body += _f32(_required(frame.normals), 3)
            if sflags & BLENDSHAPE_TANGENTS:
                body += _f32(_required(frame.tangents), 3)
    return bytes(head) + (lz4net.compress(bytes(body)) if lz4 else bytes(body))


def _required(value: Floats | None) -> Floats:
    if value is None:
        raise ValueError("every frame of a blendshape must carry the same delta arrays")
    return value


def _string(text: str) -> bytes:
    raw = text.encode("utf-8")
    return write_varint(len(raw)) + raw


def _f32(array: Floats, width: int) -> bytes:
    return np.ascontiguousarray(array, "<f4").reshape(-1, width).tobytes()
