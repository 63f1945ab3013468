"""Builders of glTF, MeshX and package inputs for the hostile-input tests and the fuzz seeds:
a real glTF document made by brson's own writer (:class:`brson.gltf.document.Document`),
then changed field by field, and MeshX assets whose LZ4 bodies really expand to what they
claim (independent 1 MiB chunks of zeros, repeated: megabytes of output cost bytes here)."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import lz4.block
import numpy as np

from brson.codecs.varint import write_varint
from brson.gltf.document import Document
from brson.gltf.importer import new_tree
from brson.meshx.format import MAGIC
from brson.package import new_record, packdb_url, sha256_hex, write_package

MIB = 1 << 20


def triangle() -> Document:
    """One node with one triangle mesh (positions, normals, UVs, indices) and a material."""
    doc = Document()
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    attributes = {
        "POSITION": doc.accessor(positions, bounds=True),
        "NORMAL": doc.accessor(np.array([[0, 0, 1]] * 3, np.float32)),
        "TEXCOORD_0": doc.accessor(np.array([[0, 0], [1, 0], [0, 1]], np.float32)),
    }
    indices = doc.accessor(np.array([0, 1, 2], np.uint32), indices=True)
    material = doc.add("materials", {"pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}})
    primitive = {"attributes": attributes, "indices": indices, "material": material}
    doc.add("meshes", {"primitives": [primitive]})
    doc.add("nodes", {"name": "tri", "mesh": 0})
    doc.json["scenes"] = [{"nodes": [0]}]
    doc.json["scene"] = 0
    return doc


def glb(gltf: dict[str, Any], binary: bytes) -> bytes:
    """A .glb of a JSON document and its BIN chunk (lengths as the JSON claims them)."""
    text = json.dumps(gltf, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    binary += b"\x00" * (-len(binary) % 4)
    chunks = struct.pack("<II", len(text), 0x4E4F534A) + text
    if binary:
        chunks += struct.pack("<II", len(binary), 0x004E4942) + binary
    return struct.pack("<III", 0x46546C67, 2, 12 + len(chunks)) + chunks


def triangle_glb(**changes: Any) -> bytes:
    """The triangle as a .glb, with ``changes`` applied: ``{"accessors.0.count": 7}`` style
    keys (dots walk objects and arrays) set to their values."""
    doc = triangle()
    gltf = doc.finish()
    for path, value in changes.items():
        *parents, last = path.split(".")
        holder: Any = gltf
        for part in parents:
            holder = holder[int(part)] if isinstance(holder, list) else holder[part]
        holder[int(last) if isinstance(holder, list) else last] = value
    return glb(gltf, bytes(doc.buffer))


#: Accessor and buffer view fields that break the glTF 2.0 rules, as :func:`triangle_glb`
#: changes: each must be refused by import-gltf and reported by the Khronos validator.
BAD_ACCESSORS: list[dict[str, Any]] = [
    {"bufferViews.0.byteStride": -4096},  # read backwards from the view's start
    {"bufferViews.0.byteStride": 4},  # below a VEC3 float's 12 bytes: elements overlap
    {"bufferViews.0.byteStride": 14},  # not a multiple of 4
    {"bufferViews.0.byteStride": 256},  # past the schema's 252
    {"accessors.0.byteOffset": -12},
    {"accessors.0.byteOffset": 2},  # not a multiple of the float's 4 bytes
    {"accessors.0.count": 1 << 40},
    {"accessors.0.count": 0},
    {"accessors.0.count": 4},  # one element past the view
    {"accessors.0.bufferView": -1},  # Python would take the last view
    {"accessors.0.bufferView": True},
    {"accessors.0.type": "VEC4"},  # positions are VEC3
    {"accessors.3.componentType": 5126},  # float indices
    {"accessors.3.componentType": 5122},  # signed indices
    {"bufferViews.0.byteOffset": -8},
    {"bufferViews.0.byteLength": 1 << 40},
    {"bufferViews.0.buffer": 1},
    {"meshes.0.primitives.0.attributes.NORMAL": 3},  # the indices' one-column accessor
]


def interleaved() -> tuple[dict[str, Any], bytes]:
    """The triangle with its positions and normals read from one interleaved view (24-byte
    stride, the normals at offset 12): a valid strided layout, JSON and buffer."""
    doc = triangle()
    gltf = doc.finish()
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    normals = np.array([[0, 0, 1]] * 3, np.float32)
    data = np.hstack([positions, normals]).tobytes()
    start = len(doc.buffer)
    gltf["bufferViews"].append(
        {"buffer": 0, "byteOffset": start, "byteLength": len(data), "byteStride": 24}
    )
    view = len(gltf["bufferViews"]) - 1
    for name, offset in (("POSITION", 0), ("NORMAL", 12)):
        accessor = {"bufferView": view, "byteOffset": offset, "componentType": 5126}
        accessor |= {"count": 3, "type": "VEC3"}
        if name == "POSITION":
            accessor |= {"min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}
        gltf["accessors"].append(accessor)
        gltf["meshes"][0]["primitives"][0]["attributes"][name] = len(gltf["accessors"]) - 1
    binary = bytes(doc.buffer) + data
    gltf["buffers"][0]["byteLength"] = len(binary)
    return gltf, binary


def nodes_glb(n: int, chained: bool, mesh: bool = False) -> bytes:
    """``n`` nodes, all roots (wide) or each the only child of the one before (chained);
    ``mesh``: every node draws the triangle's mesh."""
    doc = triangle()
    gltf = doc.finish()
    nodes: list[dict[str, Any]] = []
    for i in range(n):
        node: dict[str, Any] = {"name": f"n{i}", "translation": [float(i), 0.0, 0.0]}
        if mesh:
            node["mesh"] = 0
        if chained and i + 1 < n:
            node["children"] = [i + 1]
        nodes.append(node)
    gltf["nodes"] = nodes
    gltf["scenes"] = [{"nodes": [0] if chained else list(range(n))}]
    return glb(gltf, bytes(doc.buffer))


def deep_json(depth: int) -> bytes:
    """A glTF JSON object whose ``extras`` nest ``depth`` arrays deep."""
    return b'{"asset":{"version":"2.0"},"extras":' + b"[" * depth + b"]" * depth + b"}"


def meshx_bomb(size: int, salt: int = 0) -> bytes:
    """A version-7 MeshX whose LZ4 body really holds ``size`` bytes (positions of zeros,
    ``size // 12 - salt`` vertices: ``salt`` makes assets of one size differ)."""
    block = lz4.block.compress(bytes(MIB), store_size=False)
    chunk = b"\x03" + write_varint(MIB) + write_varint(len(block)) + block
    head = MAGIC + struct.pack("<iI", 7, 0) + write_varint(size // 12 - salt)
    head += b"\x00\x00\x00\x00" + b"\x04sRGB" + b"\x01"  # no submeshes, bones, shapes, UVs
    return head + chunk * (size // MIB)


def mesh_package(path: Path, assets: list[bytes]) -> None:
    """A package with one slot per MeshX asset: a StaticMesh and a MeshRenderer drawing it."""
    tree = new_tree("meshes")
    for i, data in enumerate(assets):
        slot = tree.root.add_child(f"m{i}")
        url = packdb_url(sha256_hex(data))
        static = slot.add_component("[FrooxEngine]FrooxEngine.StaticMesh", {"URL": url})
        slot.add_component("[FrooxEngine]FrooxEngine.MeshRenderer", {"Mesh": static})
    write_package(path, tree, new_record("meshes"), assets)
