"""glTF 2.0 (``.glb`` / ``.gltf`` + buffers) to a ``.resonitepackage``: the reverse of
:mod:`brson.gltf.export` for static scenes.

Nodes become slots (TRS converted back into Resonite's frame, brson.gltf.frame), each mesh
primitive a MeshX asset with ``StaticMesh`` + ``MeshRenderer`` (one slot per primitive beyond
the first), materials ``PBS_Metallic`` (base colour kept linear as a ``Linear`` colorX,
metallic, smoothness = 1 - roughness, base colour texture), images ``StaticTexture2D`` assets
with their bytes unchanged.  Skins and morph targets are not imported (reported).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from bson.int64 import Int64

from brson.codecs import limits
from brson.collector import paused_gc
from brson.document.jsonform import parse_json
from brson.errors import BrsonError
from brson.fileio import read_bytes
from brson.gltf import frame
from brson.meshx.format import write as write_meshx
from brson.meshx.mesh import TRIANGLES, Mesh, Submesh
from brson.model import Component, DataTree, Slot
from brson.model.edit import SyncList, new_slot
from brson.model.numbering import FreshIds, sequential_id
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
_FLOAT = frozenset({5126})
#: What each imported attribute may be (glTF 2.0, "Meshes"): its type and component types.
_ATTRIBUTES = {
    "POSITION": ("VEC3", _FLOAT),
    "NORMAL": ("VEC3", _FLOAT),
    "TEXCOORD_0": ("VEC2", frozenset({5126, 5121, 5123})),
}
_INDICES = ("SCALAR", frozenset({5121, 5123, 5125}))
#: A bufferView's byteStride: 4 to 252, a multiple of 4 (glTF 2.0 schema).
_STRIDES = range(4, 253, 4)
_GLB_MAGIC, _GLB_JSON, _GLB_BIN = b"glTF", 0x4E4F534A, 0x004E4942


class GltfImportError(BrsonError):
    layer = "gltf"


@dataclass
class ImportReport:
    slots: int = 0
    meshes: int = 0
    materials: int = 0
    textures: int = 0
    notes: list[str] = field(default_factory=list)


def _natural(value: Any, what: str, least: int = 0) -> int:
    """A JSON integer of at least ``least`` (never a bool, a float or a string)."""
    if type(value) is not int or value < least:
        raise GltfImportError(f"{what} must be an integer of at least {least}, not {value!r}")
    return value


def _items(doc: dict[str, Any], kind: str) -> list[Any]:
    value = doc.get(kind, [])
    if not isinstance(value, list):
        raise GltfImportError(f"{kind} must be an array")
    return value


def _item(doc: dict[str, Any], kind: str, index: Any, what: str) -> dict[str, Any]:
    """``doc[kind][index]``, an object, for an index taken from the file."""
    items = _items(doc, kind)
    if type(index) is not int or not 0 <= index < len(items):
        raise GltfImportError(f"{what} names {kind} {index!r}, which does not exist")
    item = items[index]
    if not isinstance(item, dict):
        raise GltfImportError(f"{kind} {index} must be an object")
    return item


def _numbers(value: Any, count: int, what: str) -> list[float]:
    """``count`` finite JSON numbers (a transform, a colour)."""
    if (
        not isinstance(value, list)
        or len(value) != count
        or not all(type(v) in (int, float) for v in value)
    ):
        raise GltfImportError(f"{what} must be {count} numbers, not {value!r}")
    out = [float(v) for v in value]
    if not all(math.isfinite(v) for v in out):
        raise GltfImportError(f"{what} {value!r} is not finite")
    return out


def _json(data: bytes | memoryview) -> dict[str, Any]:
    try:
        doc = parse_json(bytes(data))
    except ValueError as exc:
        raise GltfImportError(f"invalid JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise GltfImportError("the glTF JSON must be an object")
    return doc


def _glb(data: bytes) -> tuple[dict[str, Any], list[bytes]]:
    """The JSON chunk and the BIN chunk (buffer 0) of a .glb, every length checked."""
    if len(data) < 20:
        raise GltfImportError("truncated glb header")
    version, length = struct.unpack_from("<II", data, 4)
    if version != 2:
        raise GltfImportError(f"glb version {version} (only glTF 2.0 is read)")
    if length > len(data):
        raise GltfImportError(f"truncated glb: its header says {length} bytes, {len(data)} present")
    json_len, kind = struct.unpack_from("<II", data, 12)
    if kind != _GLB_JSON or 20 + json_len > length:
        raise GltfImportError("the glb's first chunk is not a whole JSON chunk")
    view = memoryview(data)
    doc = _json(view[20 : 20 + json_len])
    pos = 20 + json_len + (-json_len % 4)
    buffers = []
    if pos + 8 <= length:
        bin_len, kind = struct.unpack_from("<II", data, pos)
        if kind == _GLB_BIN:
            if pos + 8 + bin_len > length:
                raise GltfImportError("the glb's BIN chunk runs past the file")
            buffers.append(data[pos + 8 : pos + 8 + bin_len])
    return doc, buffers


def _beside(base: Path | None, uri: Any, what: str, budget: limits.Budget) -> bytes:
    """A file named by a URI beside the .gltf: a regular file (a FIFO, ``/dev/zero`` or a
    symlink to one is refused before reading), within what is left of the run's budget."""
    if (
        not isinstance(uri, str)
        or base is None
        or not uri
        or uri.startswith("data:")
        or "/" in uri
        or "\\" in uri
    ):
        raise GltfImportError(f"{what} {uri!r}: only files beside the .gltf are read")
    data = read_bytes(base / uri, max_size=budget.remaining)
    budget.charge(len(data))
    return data


def _document(
    data: bytes, base: Path | None, budget: limits.Budget
) -> tuple[dict[str, Any], list[bytes]]:
    """The JSON and the buffers of a .glb or .gltf."""
    if data[:4] == _GLB_MAGIC:
        return _glb(data)
    doc = _json(data)
    buffers = []
    for index, buf in enumerate(_items(doc, "buffers")):
        if not isinstance(buf, dict):
            raise GltfImportError(f"buffers {index} must be an object")
        declared = _natural(buf.get("byteLength"), f"buffer {index}'s byteLength", 1)
        content = _beside(base, buf.get("uri"), f"buffer {index}", budget)
        if len(content) < declared:
            raise GltfImportError(
                f"buffer {index} ({buf.get('uri')}) has {len(content)} bytes, its byteLength "
                f"says {declared}"
            )
        buffers.append(content[:declared] if len(content) > declared else content)
    return doc, buffers


class _Reader:
    """Accessors, buffer views and images of one glTF file, every offset, stride and count
    checked against the bytes present before any array is made; arrays are copies, never
    views that could reach past a buffer."""

    def __init__(self, doc: dict[str, Any], buffers: list[bytes]) -> None:
        self.doc = doc
        self.buffers = buffers

    def view(self, index: Any) -> tuple[memoryview, int | None]:
        view = _item(self.doc, "bufferViews", index, "a bufferView reference")
        where = f"bufferView {index}"
        buffer = view.get("buffer")
        if type(buffer) is not int or not 0 <= buffer < len(self.buffers):
            raise GltfImportError(f"{where} names buffer {buffer!r}, which is not present")
        buf = self.buffers[buffer]
        start = _natural(view.get("byteOffset", 0), f"{where}'s byteOffset")
        end = start + _natural(view.get("byteLength"), f"{where}'s byteLength", 1)
        if end > len(buf):
            raise GltfImportError(f"{where} runs past its buffer")
        stride = view.get("byteStride")
        if stride is not None and (type(stride) is not int or stride not in _STRIDES):
            raise GltfImportError(
                f"{where}'s byteStride {stride!r} is not a multiple of 4 from 4 to 252"
            )
        return memoryview(buf)[start:end], stride

    def accessor(
        self,
        index: Any,
        kind: tuple[str, frozenset[int]] | None = None,
        what: str = "an attribute",
    ) -> np.ndarray:
        """The accessor's values (count x width), of the type and component types ``kind``
        allows for its use (None: any)."""
        acc = _item(self.doc, "accessors", index, what)
        where = f"accessor {index} ({what})"
        shape, ctype = acc.get("type"), acc.get("componentType")
        if kind is None:
            kind = (shape if shape in _WIDTH else "a known type", frozenset(_DTYPES))
        if shape != kind[0] or type(ctype) is not int or ctype not in kind[1]:
            raise GltfImportError(
                f"{where} is {shape!r} of component type {ctype!r}; it must be {kind[0]} of "
                f"{sorted(kind[1])}"
            )
        if "sparse" in acc or "bufferView" not in acc:
            raise GltfImportError(f"{where}: sparse or bufferView-less accessors are not read")
        dtype = np.dtype(_DTYPES[ctype]).newbyteorder("<")
        width, size = _WIDTH[kind[0]], dtype.itemsize
        count = _natural(acc.get("count"), f"{where}'s count", 1)
        offset = _natural(acc.get("byteOffset", 0), f"{where}'s byteOffset")
        raw, stride = self.view(acc["bufferView"])
        item = size * width
        if stride is None:
            stride = item
        if offset % size or stride % size or stride < item:
            raise GltfImportError(
                f"{where}: byteOffset {offset} and byteStride {stride} must be multiples of "
                f"its component size {size}, the stride at least its element size {item}"
            )
        span = offset + stride * (count - 1) + item
        if span > len(raw):
            raise GltfImportError(f"{where} runs past its bufferView")
        # Exactly the bytes the elements span, taken by numpy's own bounds-checked slicing:
        # whole strides for all but the last element, which needs only its own bytes.
        region = np.frombuffer(raw, np.uint8, span - offset, offset)
        rows = np.empty((count, item), np.uint8)
        rows[: count - 1] = region[: stride * (count - 1)].reshape(count - 1, stride)[:, :item]
        rows[count - 1] = region[stride * (count - 1) :]
        out = rows.view(dtype).reshape(count, width)
        if acc.get("normalized") is True and dtype.kind in "iu":
            return out.astype(np.float32) / float(
                2 ** (8 * dtype.itemsize - (dtype.kind == "i")) - 1
            )
        return out

    def image(self, index: Any, base: Path | None, budget: limits.Budget | None = None) -> bytes:
        image = _item(self.doc, "images", index, "a texture's source")
        if "bufferView" in image:
            return bytes(self.view(image["bufferView"])[0])
        return _beside(base, image.get("uri", ""), f"image {index}", budget or limits.Budget())


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


@paused_gc()
def import_gltf(
    data: bytes,
    name: str,
    base: Path | None = None,
    *,
    max_size: int = limits.DEFAULT_MAX_SIZE,
) -> tuple[DataTree, list[bytes], ImportReport]:
    """The data tree and its assets (bytes, named by hash in the package) for a glTF file.
    ``max_size`` bounds the buffer and image files read beside a .gltf, all together."""
    try:
        with np.errstate(all="ignore"):
            return _import(data, name, base, limits.Budget(max_size, "files read"))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError) as exc:
        # A structurally wrong document the checks above did not name (wrong types, say).
        raise GltfImportError(
            f"not a glTF file brson can import: {type(exc).__name__} {exc}"
        ) from None


class _Builder:
    """The package's tree and assets, built node by node in linear time.  One
    :class:`FreshIds` serves the whole import (each edit drawing its own rescans the tree's
    bytes), and slots are made unplaced (:func:`new_slot`), each one's ``Children`` set once
    at the end, deepest first: adding them one by one costs each parent's child count and
    each slot's depth, quadratic in wide and in deep scenes."""

    def __init__(
        self,
        doc: dict[str, Any],
        buffers: list[bytes],
        name: str,
        base: Path | None,
        budget: limits.Budget,
    ) -> None:
        self.doc = doc
        self.reader = _Reader(doc, buffers)
        self.base = base
        self.budget = budget
        self.tree = tree = new_tree(name)
        self.ids = FreshIds.for_tree(tree)
        self.report = ImportReport()
        self.assets: dict[str, bytes] = {}
        self.materials: dict[int, Component] = {}
        self.textures: dict[int, Component] = {}
        #: Every slot made, in order, and the children each will hold (root included).
        self.made: list[Slot] = [self.tree.root]
        self.kids: dict[int, list[Slot]] = {id(self.tree.root): []}

    def child(self, parent: Slot, name: str, **options: Any) -> Slot:
        """A new slot, last under ``parent`` once :meth:`place` runs."""
        slot = new_slot(parent, name, ids=self.ids, **options)
        self.kids[id(parent)].append(slot)
        self.kids[id(slot)] = []
        self.made.append(slot)
        return slot

    def place(self) -> DataTree:
        """Every slot into its parent's ``Children``: children before their parents, so no
        edit re-marks a placed subtree."""
        for slot in reversed(self.made):
            kids = self.kids[id(slot)]
            if kids:
                slot.set("Children", kids)
        return self.tree

    def asset(self, blob: bytes) -> str:
        key = sha256_hex(blob)
        self.assets[key] = blob
        return packdb_url(key)

    def component(self, slot: Slot, kind: str, fields: dict[str, Any]) -> Component:
        return slot.add_component(f"[FrooxEngine]FrooxEngine.{kind}", fields, ids=self.ids)

    def texture(self, slot: Slot, index: Any) -> Component:
        if index not in self.textures:
            texture = _item(self.doc, "textures", index, "a material's texture")
            blob = self.reader.image(texture.get("source"), self.base, self.budget)
            self.textures[index] = self.component(
                slot, "StaticTexture2D", {"URL": self.asset(blob)}
            )
            self.report.textures += 1
        return self.textures[index]

    def material(self, slot: Slot, index: Any) -> Component:
        if index not in self.materials:
            m = _item(self.doc, "materials", index, "a primitive's material")
            pbr = m.get("pbrMetallicRoughness", {})
            if not isinstance(pbr, dict):
                raise GltfImportError(f"material {index}'s pbrMetallicRoughness is not an object")
            color = _numbers(pbr.get("baseColorFactor", [1, 1, 1, 1]), 4, "baseColorFactor")
            metallic, roughness = (
                _numbers([pbr.get(k, 1.0)], 1, k)[0] for k in ("metallicFactor", "roughnessFactor")
            )
            fields: dict[str, Any] = {
                "AlbedoColor": [*color, "Linear"],
                "Metallic": metallic,
                "Smoothness": 1.0 - roughness,
            }
            if "baseColorTexture" in pbr:
                info = pbr["baseColorTexture"]
                if not isinstance(info, dict):
                    raise GltfImportError(f"material {index}'s baseColorTexture is not an object")
                fields["AlbedoTexture"] = self.texture(slot, info.get("index"))
            kind = "PBS_DualSidedMetallic" if m.get("doubleSided") else "PBS_Metallic"
            self.materials[index] = self.component(slot, kind, fields)
            self.report.materials += 1
        return self.materials[index]

    def attribute(self, attrs: dict[str, Any], key: str, count: int | None) -> np.ndarray:
        values = self.reader.accessor(attrs[key], _ATTRIBUTES[key], key)
        if count is not None and len(values) != count:
            raise GltfImportError(f"{key} has {len(values)} values for {count} positions")
        return values.astype(np.float32)

    def mesh_parts(self, slot: Slot, index: Any) -> None:
        gmesh = _item(self.doc, "meshes", index, "a node's mesh")
        primitives = gmesh.get("primitives")
        if not isinstance(primitives, list) or not all(isinstance(p, dict) for p in primitives):
            raise GltfImportError(f"mesh {index}'s primitives must be an array of objects")
        if "skin" in gmesh or any("targets" in p for p in primitives):
            self.report.notes.append(f"mesh {index}: morph targets not imported")
        for k, prim in enumerate(primitives):
            if prim.get("mode", 4) != 4:
                self.report.notes.append(
                    f"mesh {index} primitive {k}: mode {prim.get('mode')} skipped"
                )
                continue
            attrs = prim.get("attributes")
            if not isinstance(attrs, dict) or "POSITION" not in attrs:
                raise GltfImportError(f"mesh {index} primitive {k} has no POSITION attribute")
            positions = frame.vectors(self.attribute(attrs, "POSITION", None))
            mesh = Mesh(positions)
            if "NORMAL" in attrs:
                mesh.normals = frame.vectors(self.attribute(attrs, "NORMAL", len(positions)))
            if "TEXCOORD_0" in attrs:
                mesh.uvs = [frame.uvs(self.attribute(attrs, "TEXCOORD_0", len(positions)))]
            if "indices" in prim:
                indices = self.reader.accessor(prim["indices"], _INDICES, "indices")
                indices = indices.reshape(-1).astype(np.uint32)
            else:
                indices = np.arange(len(positions), dtype=np.uint32)
            if indices.size % 3 or (indices.size and int(indices.max()) >= len(positions)):
                raise GltfImportError(f"mesh {index} primitive {k}: bad indices")
            mesh.submeshes = [Submesh(TRIANGLES, frame.triangles(indices.reshape(-1, 3)))]
            holder = slot if k == 0 else self.child(slot, f"{slot.name} ({k})")
            static = self.component(holder, "StaticMesh", {"URL": self.asset(write_meshx(mesh))})
            fields: dict[str, Any] = {"Mesh": static}
            if "material" in prim:
                fields["Materials"] = SyncList([self.material(holder, prim["material"])])
            self.component(holder, "MeshRenderer", fields)
            self.report.meshes += 1

    def node(self, index: Any, parent: Slot) -> tuple[Slot, list[Any]]:
        """The slot of node ``index`` under ``parent``, and the node's children."""
        node = _item(self.doc, "nodes", index, "a scene or node")
        if "matrix" in node:
            self.report.notes.append(f"node {index}: matrix transforms are imported as identity")
        t = _numbers(node.get("translation", [0, 0, 0]), 3, f"node {index}'s translation")
        r = _numbers(node.get("rotation", [0, 0, 0, 1]), 4, f"node {index}'s rotation")
        scale = _numbers(node.get("scale", [1, 1, 1]), 3, f"node {index}'s scale")
        slot = self.child(
            parent,
            str(node.get("name", f"Node {index}")),
            position=frame.translation(t),
            rotation=frame.rotation(r),
            scale=scale,
        )
        self.report.slots += 1
        if "skin" in node:
            self.report.notes.append(f"node {index}: skin not imported (static mesh only)")
        if "mesh" in node:
            self.mesh_parts(slot, node["mesh"])
        children = node.get("children", [])
        if not isinstance(children, list):
            raise GltfImportError(f"node {index}'s children must be an array")
        return slot, children


def _roots(doc: dict[str, Any]) -> list[Any]:
    """The nodes the scene to import starts from (every node when there is no scene)."""
    if not doc.get("scenes"):
        return list(range(len(_items(doc, "nodes"))))
    scene = _item(doc, "scenes", doc.get("scene", 0), "the file's scene")
    roots = scene.get("nodes", list(range(len(_items(doc, "nodes")))))
    if not isinstance(roots, list):
        raise GltfImportError("the scene's nodes must be an array")
    return roots


def _import(
    data: bytes, name: str, base: Path | None, budget: limits.Budget
) -> tuple[DataTree, list[bytes], ImportReport]:
    doc, buffers = _document(data, base, budget)
    builder = _Builder(doc, buffers, name, base, budget)
    stack: list[tuple[Any, Slot]] = [(n, builder.tree.root) for n in reversed(_roots(doc))]
    seen: set[Any] = set()
    while stack:
        index, parent = stack.pop()
        if index in seen:
            raise GltfImportError(f"node {index} is used twice (a cycle or a shared node)")
        seen.add(index)
        slot, children = builder.node(index, parent)
        stack.extend((child, slot) for child in reversed(children))
    return builder.place(), list(builder.assets.values()), builder.report
