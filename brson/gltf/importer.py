"""glTF 2.0 (``.glb`` / ``.gltf`` + buffers) to a ``.resonitepackage``: the reverse of
:mod:`brson.gltf.export` for static scenes.

Nodes become slots (TRS converted back into Resonite's frame, brson.gltf.frame), each mesh
primitive a MeshX asset with ``StaticMesh`` + ``MeshRenderer`` (one slot per primitive beyond
the first), materials ``PBS_Metallic`` (base colour kept linear as a ``Linear`` colorX,
metallic, smoothness = 1 - roughness, base colour texture), images ``StaticTexture2D`` assets
with their bytes unchanged.  Skins and morph targets are not imported (reported).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from bson.int64 import Int64

from brson.errors import BrsonError
from brson.fileio import read_bytes
from brson.gltf import frame
from brson.meshx.format import write as write_meshx
from brson.meshx.mesh import TRIANGLES, Mesh, Submesh
from brson.model.edit import SyncList
from brson.model.numbering import sequential_id
from brson.model.tree import Component, DataTree, Slot
from brson.package import packdb_url, sha256_hex

VERSION = "2025.1.1.1"
_DTYPES = {
    5120: np.int8,
    5121: np.uint8,
    5122: np.int16,
    5123: np.uint16,
    5125: np.uint32,
    5126: np.float32,
}
_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


class GltfImportError(BrsonError):
    layer = "gltf"


@dataclass
class ImportReport:
    slots: int = 0
    meshes: int = 0
    materials: int = 0
    textures: int = 0
    notes: list[str] = field(default_factory=list)


def _document(data: bytes, base: Path | None) -> tuple[dict[str, Any], list[bytes]]:
    """The JSON and the buffers of a .glb or .gltf."""
    if data[:4] == b"glTF":
        if len(data) < 20:
            raise GltfImportError("truncated glb header")
        (json_len,) = struct.unpack_from("<I", data, 12)
        doc = json.loads(data[20 : 20 + json_len])
        pos = 20 + json_len
        buffers = []
        if pos + 8 <= len(data):
            (bin_len,) = struct.unpack_from("<I", data, pos)
            buffers.append(data[pos + 8 : pos + 8 + bin_len])
        return doc, buffers
    doc = json.loads(data)
    buffers = []
    for buf in doc.get("buffers", []):
        uri = buf.get("uri")
        if uri is None or base is None or uri.startswith("data:") or "/" in uri or "\\" in uri:
            raise GltfImportError(f"buffer {uri!r}: only files beside the .gltf are read")
        buffers.append(read_bytes(base / uri))
    return doc, buffers


class _Reader:
    def __init__(self, doc: dict[str, Any], buffers: list[bytes]) -> None:
        self.doc = doc
        self.buffers = buffers

    def view(self, index: int) -> tuple[bytes, int | None]:
        view = self.doc["bufferViews"][index]
        buf = self.buffers[view.get("buffer", 0)]
        start = view.get("byteOffset", 0)
        end = start + view["byteLength"]
        if end > len(buf):
            raise GltfImportError(f"bufferView {index} runs past its buffer")
        return buf[start:end], view.get("byteStride")

    def accessor(self, index: int) -> np.ndarray:
        acc = self.doc["accessors"][index]
        dtype = np.dtype(_DTYPES[acc["componentType"]]).newbyteorder("<")
        width, count = _WIDTH[acc["type"]], acc["count"]
        raw, stride = self.view(acc["bufferView"])
        offset = acc.get("byteOffset", 0)
        item = dtype.itemsize * width
        stride = stride or item
        if count and offset + stride * (count - 1) + item > len(raw):
            raise GltfImportError(f"accessor {index} runs past its bufferView")
        rows = np.lib.stride_tricks.as_strided(
            np.frombuffer(raw, np.uint8, len(raw) - offset, offset), (count, item), (stride, 1)
        )
        out = np.ascontiguousarray(rows).view(dtype).reshape(count, width)
        if acc.get("normalized") and dtype.kind in "iu":
            out = out.astype(np.float32) / float(
                2 ** (8 * dtype.itemsize - (dtype.kind == "i")) - 1
            )
        return out

    def image(self, index: int, base: Path | None) -> bytes:
        image = self.doc["images"][index]
        if "bufferView" in image:
            return self.view(image["bufferView"])[0]
        uri = image.get("uri", "")
        if base is None or uri.startswith("data:") or "/" in uri or "\\" in uri:
            raise GltfImportError(f"image {uri!r}: only files beside the .gltf are read")
        return read_bytes(base / uri)


def new_tree(name: str) -> DataTree:
    """An empty Resonite data tree: one root slot, sequential IDs, engine key order."""
    ids = iter(sequential_id(n) for n in range(1 << 30))

    def member(value: Any) -> dict[str, Any]:
        return {"ID": next(ids), "Data": value}

    root = {
        "ID": next(ids),
        "Components": member([]),
        "Name": member(name),
        "Tag": member(None),
        "Active": member(True),
        "Persistent-ID": next(ids),
        "Position": member([0.0, 0.0, 0.0]),
        "Rotation": member([0.0, 0.0, 0.0, 1.0]),
        "Scale": member([1.0, 1.0, 1.0]),
        "OrderOffset": member(Int64(0)),
        "ParentReference": next(ids),
        "Children": [],
    }
    import bson

    doc = {
        "VersionNumber": VERSION,
        "FeatureFlags": {
            "ColorManagement": 0,
            "ResetGUID": 0,
            "ProtoFlux": 0,
            "TEXTURE_QUALITY": 0,
            "TypeManagement": 0,
        },
        "Types": [],
        "TypeVersions": {},
        "Object": root,
    }
    return DataTree(bson.encode(doc))


def import_gltf(
    data: bytes, name: str, base: Path | None = None
) -> tuple[DataTree, list[bytes], ImportReport]:
    """The data tree and its assets (bytes, named by hash in the package) for a glTF file."""
    try:
        with np.errstate(all="ignore"):
            return _import(data, name, base)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, struct.error) as exc:
        # A structurally wrong document (missing arrays, wrong types, bad indices).
        raise GltfImportError(
            f"not a glTF file brson can import: {type(exc).__name__} {exc}"
        ) from None


def _import(
    data: bytes, name: str, base: Path | None
) -> tuple[DataTree, list[bytes], ImportReport]:
    doc, buffers = _document(data, base)
    reader = _Reader(doc, buffers)
    tree = new_tree(name)
    report = ImportReport()
    assets: dict[str, bytes] = {}
    materials: dict[int, Component] = {}
    textures: dict[int, Component] = {}

    def asset(blob: bytes) -> str:
        key = sha256_hex(blob)
        assets[key] = blob
        return packdb_url(key)

    def texture(slot: Slot, index: int) -> Component:
        if index not in textures:
            source = doc["textures"][index]["source"]
            url = asset(reader.image(source, base))
            textures[index] = slot.add_component(
                "[FrooxEngine]FrooxEngine.StaticTexture2D", {"URL": url}
            )
            report.textures += 1
        return textures[index]

    def material(slot: Slot, index: int) -> Component:
        if index not in materials:
            m = doc["materials"][index]
            pbr = m.get("pbrMetallicRoughness", {})
            color = [float(c) for c in pbr.get("baseColorFactor", [1, 1, 1, 1])]
            fields: dict[str, Any] = {
                "AlbedoColor": [*color, "Linear"],
                "Metallic": float(pbr.get("metallicFactor", 1.0)),
                "Smoothness": 1.0 - float(pbr.get("roughnessFactor", 1.0)),
            }
            if "baseColorTexture" in pbr:
                fields["AlbedoTexture"] = texture(slot, pbr["baseColorTexture"]["index"])
            kind = "PBS_DualSidedMetallic" if m.get("doubleSided") else "PBS_Metallic"
            materials[index] = slot.add_component(f"[FrooxEngine]FrooxEngine.{kind}", fields)
            report.materials += 1
        return materials[index]

    def mesh_parts(slot: Slot, index: int) -> None:
        gmesh = doc["meshes"][index]
        if "skin" in gmesh or any("targets" in p for p in gmesh["primitives"]):
            report.notes.append(f"mesh {index}: morph targets not imported")
        for k, prim in enumerate(gmesh["primitives"]):
            if prim.get("mode", 4) != 4:
                report.notes.append(f"mesh {index} primitive {k}: mode {prim.get('mode')} skipped")
                continue
            attrs = prim["attributes"]
            positions = frame.vectors(reader.accessor(attrs["POSITION"]).astype(np.float32))
            mesh = Mesh(positions)
            if "NORMAL" in attrs:
                mesh.normals = frame.vectors(reader.accessor(attrs["NORMAL"]).astype(np.float32))
            if "TEXCOORD_0" in attrs:
                mesh.uvs = [frame.uvs(reader.accessor(attrs["TEXCOORD_0"]).astype(np.float32))]
            if "indices" in prim:
                indices = reader.accessor(prim["indices"]).reshape(-1).astype(np.uint32)
            else:
                indices = np.arange(len(positions), dtype=np.uint32)
            if indices.size % 3 or (indices.size and int(indices.max()) >= len(positions)):
                raise GltfImportError(f"mesh {index} primitive {k}: bad indices")
            mesh.submeshes = [Submesh(TRIANGLES, frame.triangles(indices.reshape(-1, 3)))]
            holder = slot if k == 0 else slot.add_child(f"{slot.name} ({k})")
            static = holder.add_component(
                "[FrooxEngine]FrooxEngine.StaticMesh", {"URL": asset(write_meshx(mesh))}
            )
            fields: dict[str, Any] = {"Mesh": static}
            if "material" in prim:
                fields["Materials"] = SyncList([material(holder, prim["material"])])
            holder.add_component("[FrooxEngine]FrooxEngine.MeshRenderer", fields)
            report.meshes += 1

    scene = doc.get("scenes", [{}])[doc.get("scene", 0)] if doc.get("scenes") else {}
    roots = scene.get("nodes", list(range(len(doc.get("nodes", [])))))
    stack: list[tuple[int, Slot]] = [(n, tree.root) for n in reversed(roots)]
    seen: set[int] = set()
    while stack:
        index, parent = stack.pop()
        if index in seen:
            raise GltfImportError(f"node {index} is used twice (a cycle or a shared node)")
        seen.add(index)
        node = doc["nodes"][index]
        if "matrix" in node:
            report.notes.append(f"node {index}: matrix transforms are imported as identity")
        t = node.get("translation", [0, 0, 0])
        r = node.get("rotation", [0, 0, 0, 1])
        slot = parent.add_child(
            str(node.get("name", f"Node {index}")),
            position=frame.translation(t),
            rotation=frame.rotation(r),
            scale=[float(v) for v in node.get("scale", [1, 1, 1])],
        )
        report.slots += 1
        if "skin" in node:
            report.notes.append(f"node {index}: skin not imported (static mesh only)")
        if "mesh" in node:
            mesh_parts(slot, node["mesh"])
        stack.extend((child, slot) for child in reversed(node.get("children", [])))
    return tree, list(assets.values()), report
