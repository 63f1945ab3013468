"""MeshX: the writer's output read back exactly (plain and LZ4), older versions' layouts, and
hostile input (truncated, huge counts, wrong encodings) refused with MeshXError only."""

from __future__ import annotations

import contextlib
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brson.codecs.varint import write_varint
from brson.errors import BrsonError
from brson.meshx.format import MAGIC, MeshXError, read, write
from brson.meshx.mesh import POINTS, TRIANGLES, Blendshape, BlendshapeFrame, Bone, Mesh, Submesh
from tests.tiers import examples


def sample(bones: int = 3, big_index: bool = False) -> Mesh:
    rng = np.random.default_rng(7)
    n = 10
    weights = rng.random((n, 4)).astype(np.float32)
    weights /= weights.sum(axis=1, keepdims=True)
    indices = rng.integers(0, bones, (n, 4)).astype(np.uint32)
    bone_list = [Bone(f"b{i}", rng.random((4, 4)).astype(np.float32)) for i in range(bones)]
    if big_index:
        bone_list += [Bone(f"x{i}", np.eye(4, dtype=np.float32)) for i in range(200)]
        indices[0, 0] = 150  # a two-byte varint
    return Mesh(
        rng.random((n, 3)).astype(np.float32),
        normals=rng.random((n, 3)).astype(np.float32),
        tangents=rng.random((n, 4)).astype(np.float32),
        colors=rng.random((n, 4)).astype(np.float32),
        uvs=[rng.random((n, 2)).astype(np.float32), rng.random((n, 3)).astype(np.float32)],
        submeshes=[
            Submesh(TRIANGLES, np.array([[0, 1, 2], [2, 3, 4]], np.uint32)),
            Submesh("", np.zeros((0, 3), np.uint32)),
            Submesh(POINTS, np.array([[5], [9]], np.uint32)),
        ],
        bones=bone_list,
        bone_indices=indices,
        bone_weights=weights,
        blendshapes=[
            Blendshape("a", [BlendshapeFrame(1.0, rng.random((n, 3)).astype(np.float32))]),
            Blendshape(
                "b",
                [
                    BlendshapeFrame(
                        0.5, *(rng.random((n, 3)).astype(np.float32) for _ in range(3))
                    ),
                    BlendshapeFrame(
                        1.0, *(rng.random((n, 3)).astype(np.float32) for _ in range(3))
                    ),
                ],
            ),
        ],
        color_profile="Linear",
    )


def assert_same(a: Mesh, b: Mesh) -> None:
    for name in ("positions", "normals", "tangents", "colors", "bone_indices", "bone_weights"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert np.array_equal(x, y), name
    assert [u.tolist() for u in a.uvs] == [u.tolist() for u in b.uvs]
    assert [(s.topology, s.indices.tolist()) for s in a.submeshes] == [
        (s.topology, s.indices.tolist()) for s in b.submeshes
    ]
    assert [(x.name, x.bind_pose.tolist()) for x in a.bones] == [
        (x.name, x.bind_pose.tolist()) for x in b.bones
    ]
    assert a.color_profile == b.color_profile
    assert len(a.blendshapes) == len(b.blendshapes)
    for s, t in zip(a.blendshapes, b.blendshapes, strict=True):
        assert s.name == t.name and len(s.frames) == len(t.frames)
        for f, g in zip(s.frames, t.frames, strict=True):
            assert f.weight == g.weight and np.array_equal(f.positions, g.positions)
            assert (f.normals is None) == (g.normals is None)


@pytest.mark.parametrize("lz4", [False, True])
@pytest.mark.parametrize("big_index", [False, True])
def test_round_trip(lz4: bool, big_index: bool) -> None:
    mesh = sample(big_index=big_index)
    data = write(mesh, lz4=lz4)
    assert data.startswith(MAGIC)
    assert_same(read(data), mesh)
    assert write(read(data), lz4=lz4) == data


def legacy(version: int) -> tuple[bytes, Mesh]:
    """A mesh in an older version's layout (notes/meshx.md): 3 vertices, one triangle, UV0 by
    flag bit 16, v0-2 triangle lists, v3+ submeshes, v4+ blendshape count."""
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    uv = np.array([[0, 0], [1, 0], [0, 1]], np.float32)
    head = MAGIC + struct.pack("<iI", version, 16 if version < 6 else 0)
    head += write_varint(3) + write_varint(1) + write_varint(0)
    if version >= 4:
        head += write_varint(0)
    if version in (1, 2):
        head += write_varint(1)
    if version >= 6:
        head += write_varint(1) + bytes([2])
    if version >= 7:
        head += write_varint(4) + b"sRGB"
    if version >= 2:
        head += b"\x00"
    body = pos.tobytes() + uv.tobytes()
    if version >= 3:
        body += write_varint(9) + b"Triangles" + write_varint(1)
    body += np.array([0, 1, 2], "<i4").tobytes()
    mesh = Mesh(pos, uvs=[uv], submeshes=[Submesh(TRIANGLES, np.array([[0, 1, 2]], np.uint32))])
    return head + body, mesh


@pytest.mark.parametrize("version", range(8))
def test_every_version_layout(version: int) -> None:
    data, expected = legacy(version)
    assert_same(read(data), expected)


def legacy_full(version: int, lz4: bool) -> tuple[bytes, Mesh]:
    """Every flag of ``version``: normals, tangents, colors, bones, two UV channels, two
    submeshes (v1-2: a per-triangle submesh index), bones, a blendshape (v4+)."""
    from brson.codecs import lz4net

    n = 4
    rng = np.random.default_rng(version)
    pos, nrm = rng.random((n, 3), np.float32), rng.random((n, 3), np.float32)
    tan, col = rng.random((n, 4), np.float32), rng.random((n, 4), np.float32)
    uv0, uv1 = rng.random((n, 2), np.float32), rng.random((n, 2), np.float32)
    idx = np.array([[0, 1, 2, 3]] * n, np.uint32)
    wts = np.array([[0.25] * 4] * n, np.float32)
    tris = np.array([[0, 1, 2], [2, 3, 0]], np.uint32)
    bind = [np.eye(4, dtype=np.float32) * (k + 1) for k in range(4)]
    delta = rng.random((n, 3), np.float32)
    flags = 1 | 2 | 4 | 8 | (16 | 32 if version < 6 else 0)
    head = MAGIC + struct.pack("<iI", version, flags) + write_varint(n)
    head += write_varint(2) + write_varint(4)  # triangles (v0-2) or submeshes, bones
    if version >= 4:
        head += write_varint(1)
    if version in (1, 2):
        head += write_varint(2)
    if version >= 6:
        head += write_varint(2) + bytes([2, 2])
    if version >= 7:
        head += write_varint(6) + b"Linear"
    body = pos.tobytes() + nrm.tobytes() + tan.tobytes() + col.tobytes()
    for v in range(n):
        body += bytes(int(i) for i in idx[v]) + wts[v].tobytes()
    body += uv0.tobytes() + uv1.tobytes()
    if version >= 3:
        for t in tris:
            body += write_varint(9) + b"Triangles" + write_varint(1) + t.astype("<i4").tobytes()
    else:
        body += tris.astype("<i4").tobytes()
        if version in (1, 2):
            body += np.array([0, 1], "<i4").tobytes()
    for k, m in enumerate(bind):
        body += write_varint(2) + f"b{k}".encode() + m.tobytes()
    if version >= 4:
        body += write_varint(1) + b"s" + write_varint(0) + write_varint(1)
        body += struct.pack("<f", 1.0) + delta.tobytes()
    if version >= 2:
        head += b"\x01" if lz4 else b"\x00"
        body = lz4net.compress(body) if lz4 else body
    submeshes = (
        [Submesh(TRIANGLES, tris[:1]), Submesh(TRIANGLES, tris[1:])]
        if version != 0
        else [Submesh(TRIANGLES, tris)]
    )
    mesh = Mesh(
        pos,
        normals=nrm,
        tangents=tan,
        colors=col,
        uvs=[uv0, uv1],
        submeshes=submeshes,
        bones=[Bone(f"b{k}", m) for k, m in enumerate(bind)],
        bone_indices=idx,
        bone_weights=wts,
        blendshapes=[Blendshape("s", [BlendshapeFrame(1.0, delta)])] if version >= 4 else [],
        color_profile="Linear" if version >= 7 else "sRGB",
    )
    return head + body, mesh


@pytest.mark.parametrize(
    ("version", "lz4"), [(v, z) for v in range(8) for z in (False, True) if v >= 2 or not z]
)
def test_every_version_with_every_flag(version: int, lz4: bool) -> None:
    """(LZ4 bodies exist from v2 on, where the encoding byte appears.)"""
    data, expected = legacy_full(version, lz4)
    assert_same(read(data), expected)


def test_legacy_weights_are_renormalised() -> None:
    pos = np.zeros((1, 3), np.float32)
    head = MAGIC + struct.pack("<iI", 4, 8) + write_varint(1) + write_varint(0)
    head += write_varint(1) + write_varint(0) + b"\x00"
    body = pos.tobytes() + bytes([0, 0, 0, 0]) + np.array([2, 2, 0, 0], "<f4").tobytes()
    body += write_varint(1) + b"b" + np.eye(4, dtype="<f4").tobytes()
    mesh = read(head + body)
    assert mesh.bone_weights is not None
    assert mesh.bone_weights.tolist() == [[0.5, 0.5, 0.0, 0.0]]


def test_truncated_at_every_length_is_a_meshx_error() -> None:
    data = write(sample(), lz4=False)
    for cut in range(len(data)):
        with pytest.raises(MeshXError):
            read(data[:cut])


def test_huge_counts_are_refused_before_allocating() -> None:
    head = MAGIC + struct.pack("<iI", 7, 15) + write_varint(2**60) + write_varint(1)
    head += write_varint(0) + write_varint(0) + write_varint(0) + write_varint(4) + b"sRGB"
    with pytest.raises(MeshXError, match="vertices"):
        read(head + b"\x00" + b"\x00" * 64)
    small, _ = legacy(7)
    # one submesh claiming 2**40 triangles
    bad = small.replace(
        write_varint(9) + b"Triangles" + write_varint(1),
        write_varint(9) + b"Triangles" + write_varint(2**40),
    )
    with pytest.raises(MeshXError):
        read(bad)


@pytest.mark.parametrize("encoding", [2, 3, 255])
def test_unsupported_encodings(encoding: int) -> None:
    data, _ = legacy(7)
    at = data.index(b"sRGB") + 4
    with pytest.raises(MeshXError, match=r"LZMA|encoding"):
        read(data[:at] + bytes([encoding]) + data[at + 1 :])


def test_other_refusals() -> None:
    with pytest.raises(MeshXError, match="magic"):
        read(b"not a mesh at all")
    data, _ = legacy(7)
    with pytest.raises(MeshXError, match="version"):
        read(MAGIC + struct.pack("<i", 8) + data[len(MAGIC) + 4 :])
    with pytest.raises(MeshXError, match="index"):
        read(data[:-4] + struct.pack("<i", 3))  # index 3 of 3 vertices


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_mutations_raise_only_brson_errors(data: st.DataObject) -> None:
    raw = bytearray(write(sample(), lz4=data.draw(st.booleans())))
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    with contextlib.suppress(BrsonError):
        read(bytes(raw))
