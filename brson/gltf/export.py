"""A Slot tree as a glTF 2.0 scene: every slot a node, meshes from procedural components and
MeshX assets, materials, textures, skins and morph targets (docs/gltf-export.md).

Everything is converted into glTF's right-handed frame in one place (brson.gltf.frame).
Nothing fails on a missing or odd part: a missing asset, an unknown mesh provider, a material
without a glTF equivalent become warnings in the :class:`GltfReport` (with the URL and the slot),
and the export goes on (missing textures become a placeholder image).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from brson.assets.kinds import identify
from brson.assets.store import AssetStore
from brson.codecs import limits
from brson.collector import paused_gc
from brson.errors import BrsonError, LimitError, ModelError
from brson.gltf import frame, images, materials, procedural
from brson.gltf.document import Document
from brson.gltf.nodes import VISIBILITY
from brson.gltf.slotnodes import RENDERERS, Entry, NodeWriter, TypeTable
from brson.meshx import format as meshx
from brson.meshx.mesh import POINTS, TRIANGLES, Floats, Mesh
from brson.model import Component, DataTree, Slot
from brson.model.fields import field_member, field_text, field_value
from brson.model.ids.targets import Targets
from brson.model.slothead import ACCELERATED as HEADS
from brson.model.slothead import head_at, slot_head
from brson.model.spans import SlotTable

_TEXTURES = {"StaticTexture2D"}
_WRAP = {"Repeat": 10497, "Clamp": 33071, "Mirror": 33648, "MirrorOnce": 33648}
_NEAREST, _LINEAR, _LINEAR_MIPMAP_LINEAR = 9728, 9729, 9987


@dataclass
class GltfReport:
    """What the export holds (the counts real importers are checked against) and its warnings."""

    nodes: int = 0
    hidden: int = 0
    meshes: int = 0
    primitives: int = 0
    vertices: int = 0
    materials: int = 0
    textures: int = 0
    images: int = 0
    skins: int = 0
    joints: int = 0
    morph_targets: int = 0
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _kind(component: Component) -> str:
    try:
        return component.type.full_name.removeprefix("FrooxEngine.")
    except ModelError:
        return ""


def _finite_mesh(mesh: Mesh) -> bool:
    """Every float of the mesh finite (glTF JSON has no inf/NaN: accessor bounds, matrices)."""
    arrays = [mesh.positions, mesh.normals, mesh.tangents, mesh.colors, mesh.bone_weights]
    arrays += mesh.uvs + [b.bind_pose for b in mesh.bones]
    for shape in mesh.blendshapes:
        for f in shape.frames:
            arrays += [f.positions, f.normals, f.tangents]
    return all(a is None or bool(np.isfinite(a).all()) for a in arrays)


def _unit_rows(v: Floats) -> Floats:
    n = np.linalg.norm(v, axis=1, keepdims=True)
    out = np.where(
        n > 1e-12, v / np.where(n > 1e-12, n, 1.0), np.array([0.0, 1.0, 0.0], np.float32)
    )
    return out.astype(np.float32)


class _Exporter:
    def __init__(
        self, tree: DataTree, assets: AssetStore, omit_inactive: bool, budget: limits.Budget
    ) -> None:
        self.tree = tree
        #: The few references an export follows, without the tree's whole ID index.
        self.references = Targets(tree)
        self.assets = assets
        self.omit_inactive = omit_inactive
        self.budget = budget
        self.doc = Document()
        self.report = GltfReport()
        #: The node made for each slot: by row of the slot table when the walk rides one
        #: (and, for the skins' bones, the rows by where their slots start), else by
        #: ``id(slot)``.
        self.table: SlotTable | None = None
        self.row_node = array("q")
        self.row_at: dict[int, int] | None = None
        self.node_of: dict[int, int] = {}
        self.mesh_cache: dict[tuple[str, tuple[str, ...]], tuple[int, Mesh] | None] = {}
        self.geometry: dict[str, Mesh | None] = {}
        #: Procedural meshes by what their generator reads (:meth:`generated`).
        self.shapes: dict[str, Mesh] = {}
        self.material_cache: dict[str, int] = {}
        self.texture_cache: dict[tuple[str, str], int | None] = {}
        self.sampler_cache: dict[tuple[Any, ...], int] = {}
        self.skinned: list[tuple[int, Component, Mesh, Slot]] = []
        self.types = TypeTable(tree)

    def warn(self, slot: Slot | None, message: str) -> None:
        where = f"slot {slot.path!r}: " if slot is not None else ""
        self.report.warnings.append(where + message)

    # -- nodes ----------------------------------------------------------------------------
    def run(self, top: Slot, on_slot: Callable[[], None] | None, place_top: bool) -> None:
        tree, doc = self.tree, self.doc
        table = SlotTable.build(tree) if HEADS and not tree.modified else None
        first = Entry(table.row_of(top) if table is not None else -1, None, 0, -1)
        first.slot = top
        if first.row < 0:
            table = None
        else:
            assert table is not None
            self.row_node = array("q", [-1]) * len(table.slot_starts)
            self.table = table
        buf = tree.buffer
        roots: list[int] = []
        writer = NodeWriter()
        stack = [first]
        while stack:
            entry = stack.pop()
            row = entry.row
            if table is not None:
                head = head_at(buf, table.slot_starts[row], table.slot_ends[row])
            else:
                head = slot_head(entry.view())
            inactive = (head[3] if head is not None else entry.view().active) is False
            if inactive and self.omit_inactive:
                continue
            labels, may_render = self.types.read(head[7]) if head is not None else (None, True)
            text, name = writer.node(entry, head, labels, inactive, place_top or entry is not first)
            index = doc.nodes.add_text(text)
            if table is not None:
                self.row_node[row] = index
            else:
                self.node_of[id(entry.view())] = index
            if inactive:
                self.doc.use(VISIBILITY)
                self.report.hidden += 1
            if entry.parent_node < 0:
                roots.append(index)
            else:
                doc.nodes.add_child(entry.parent_node, index)
            if may_render:
                self.renderers(entry.view(), index, name)
            if on_slot is not None:
                on_slot()
            if table is not None:
                kids, kid, number = [], table.first_kid[row], 0
                following = table.next_sibling
                while kid >= 0:
                    kids.append(Entry(kid, entry, number, index))
                    kid, number = following[kid], number + 1
            else:
                kids = []
                for number, child in enumerate(entry.view().children):
                    kids.append(Entry(-1, entry, number, index))
                    kids[-1].slot = child
            stack.extend(reversed(kids))
        self.skins()
        self.doc.json["scenes"] = [
            {"name": top.name if isinstance(top.name, str) else "", "nodes": roots}
        ]
        self.doc.json["scene"] = 0
        r = self.report
        r.nodes = self.doc.count("nodes")
        r.meshes = self.doc.count("meshes")
        r.materials = self.doc.count("materials")
        r.textures = self.doc.count("textures")
        r.images = self.doc.count("images")
        r.skins = self.doc.count("skins")
        r.warnings += self.assets.problems

    def node_for(self, slot: Slot) -> int | None:
        """The number of the node made for ``slot`` (a slot of the tree), or None."""
        table = self.table
        if table is None:
            return self.node_of.get(id(slot))
        if slot.modified or slot.buffer is not self.tree.buffer:
            return None
        if self.row_at is None:  # only skins ask: made for the first bone
            self.row_at = {start: row for row, start in enumerate(table.slot_starts)}
        row = self.row_at.get(slot.span[0])
        found = self.row_node[row] if row is not None else -1
        return found if found >= 0 else None

    # -- meshes ---------------------------------------------------------------------------
    def renderers(self, slot: Slot, node: int, name: str) -> None:
        """Meshes for the renderers of ``slot``, whose node is number ``node`` named ``name``."""
        nodes = self.doc.nodes
        placed = False
        for component in slot.components:
            kind = _kind(component)
            if kind not in RENDERERS:
                continue
            if field_value(component, "Enabled") is False:
                self.warn(slot, f"{kind} is disabled; not exported")
                continue
            source = self.references.target(field_member(component, "Mesh"))
            if not isinstance(source, Component):
                continue
            if self.geometry_of(source, slot) is None:
                continue  # materials only for drawn meshes (importers drop unused ones)
            mats = self.renderer_materials(component, slot)
            built = self.mesh(source, mats, slot)
            if built is None:
                continue
            mesh_index, geometry = built
            target = node
            if placed:  # a second renderer on the slot: a child node carries it
                target = nodes.add({"name": f"{name} ({kind})"})
                nodes.add_child(node, target)
            nodes.set(target, "mesh", mesh_index)
            placed = True
            if (
                kind == "SkinnedMeshRenderer"
                and geometry.bones
                and geometry.bone_indices is not None
            ):
                self.skinned.append((target, component, geometry, slot))
            weights = field_member(component, "BlendShapeWeights")
            values = weights.value if weights is not None else None
            if geometry.blendshapes and isinstance(values, list):
                defaults = [
                    float(v)
                    if isinstance(v, int | float)
                    and not isinstance(v, bool)
                    and math.isfinite(float(v))
                    else 0.0
                    for v in values
                ]
                defaults = (defaults + [0.0] * len(geometry.blendshapes))[
                    : len(geometry.blendshapes)
                ]
                if any(defaults):
                    nodes.set(target, "weights", defaults)

    def renderer_materials(self, renderer: Component, slot: Slot) -> list[int | None]:
        member = field_member(renderer, "Materials")
        items = member.elements if member is not None else None
        out: list[int | None] = []
        for item in items or []:
            target = self.references.target(item)
            out.append(self.material(target, slot) if isinstance(target, Component) else None)
        return out

    def geometry_of(self, source: Component, slot: Slot) -> Mesh | None:
        key = source.id or str(id(source))
        if key in self.geometry:
            return self.geometry[key]
        kind = _kind(source)
        mesh: Mesh | None = None
        if kind == "StaticMesh":
            url = field_value(source, "URL")
            data = self.assets.get(url)
            if data is None:
                self.warn(slot, f"mesh asset {url} is not available; the node stays empty")
            elif identify(data) != "meshx":
                self.warn(slot, f"mesh asset {url} is a {identify(data)}, not MeshX; skipped")
            else:
                try:
                    mesh = meshx.read(data, budget=self.budget)
                except LimitError:
                    raise  # the run's budget is spent: no later asset could be read either
                except BrsonError as exc:
                    self.warn(slot, f"mesh asset {url}: {exc}")
        else:
            try:
                mesh = self.generated(source)
            except (ValueError, ArithmeticError) as exc:
                self.warn(slot, f"{kind}: cannot generate ({exc})")
            else:
                if mesh is None:
                    self.warn(
                        slot,
                        f"mesh provider {kind or source.type_label} unsupported; node left empty",
                    )
        if mesh is not None and mesh.vertex_count == 0:
            mesh = None
        if mesh is not None and not _finite_mesh(mesh):
            self.warn(slot, f"{kind}: vertex data is not finite (inf/NaN); node left empty")
            mesh = None
        self.geometry[key] = mesh
        return mesh

    def generated(self, source: Component) -> Mesh | None:
        """``procedural.generate(source)``, once per distinct provider: a generator reads only
        the component's type and fields, and copies of one object (a world's many copies of
        a prefab) differ only in their IDs.  Meshes are only read from here on."""
        key = _provider_key(source)
        mesh = self.shapes.get(key) if key is not None else None
        if mesh is None:
            with np.errstate(all="ignore"):  # overflow is caught later as non-finite data
                mesh = procedural.generate(source)
            if key is not None and mesh is not None:
                self.shapes[key] = mesh
        return mesh

    def mesh(
        self, source: Component, mats: list[int | None], slot: Slot
    ) -> tuple[int, Mesh] | None:
        cache_key = (source.id or str(id(source)), tuple(str(m) for m in mats))
        if cache_key in self.mesh_cache:
            return self.mesh_cache[cache_key]
        geometry = self.geometry_of(source, slot)
        if geometry is None:
            self.mesh_cache[cache_key] = None
            return None
        attributes = self.attributes(geometry)
        primitives = []
        for i, sub in enumerate(geometry.submeshes):
            if sub.topology == "" or len(sub.indices) == 0:
                continue
            if sub.topology == TRIANGLES:
                indices = frame.triangles(sub.indices).reshape(-1)
                mode = 4
            elif sub.topology == POINTS:
                indices = np.ascontiguousarray(sub.indices.reshape(-1), np.uint32)
                mode = 0
            else:
                continue
            prim: dict[str, Any] = {
                "attributes": attributes,
                "indices": self.doc.accessor(indices, indices=True),
                "mode": mode,
            }
            if i < len(mats) and mats[i] is not None:
                prim["material"] = mats[i]
            if geometry.blendshapes:
                prim["targets"] = self.targets(geometry)
            primitives.append(prim)
        if not primitives:
            self.mesh_cache[cache_key] = None
            return None
        mesh: dict[str, Any] = {"name": _kind(source) or "mesh", "primitives": primitives}
        if geometry.blendshapes:
            mesh["extras"] = {"targetNames": [b.name for b in geometry.blendshapes]}
            self.report.morph_targets += len(geometry.blendshapes)
        index = self.doc.add("meshes", mesh)
        self.report.primitives += len(primitives)
        self.report.vertices += geometry.vertex_count
        self.mesh_cache[cache_key] = (index, geometry)
        return index, geometry

    def attributes(self, mesh: Mesh) -> dict[str, int]:
        attrs = {"POSITION": self.doc.accessor(frame.vectors(mesh.positions), bounds=True)}
        if mesh.normals is not None:
            attrs["NORMAL"] = self.doc.accessor(_unit_rows(frame.vectors(mesh.normals)))
        if mesh.tangents is not None and mesh.normals is not None:
            t = frame.tangents(mesh.tangents)
            t[:, :3] = _unit_rows(t[:, :3])
            t[:, 3] = np.where(t[:, 3] < 0, -1.0, 1.0)
            attrs["TANGENT"] = self.doc.accessor(t)
        for i, uv in enumerate(mesh.uvs):
            attrs[f"TEXCOORD_{i}"] = self.doc.accessor(frame.uvs(uv))
        if mesh.colors is not None:
            colors = np.clip(np.asarray(mesh.colors, np.float32), 0.0, 1.0)
            if mesh.color_profile != "Linear":
                rgb = colors[:, :3]
                colors[:, :3] = np.where(
                    rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4
                )
            attrs["COLOR_0"] = self.doc.accessor(colors)
        if mesh.bones and mesh.bone_indices is not None and mesh.bone_weights is not None:
            weights = np.clip(np.asarray(mesh.bone_weights, np.float32), 0.0, None)
            joints = np.asarray(mesh.bone_indices, np.uint32).copy()
            weights[joints >= len(mesh.bones)] = 0.0
            joints[joints >= len(mesh.bones)] = 0
            total = weights.sum(axis=1, keepdims=True)
            empty = total[:, 0] <= 0
            weights = np.where(total > 0, weights / np.where(total > 0, total, 1.0), 0.0)
            weights[empty, 0] = 1.0
            joints[weights == 0] = 0
            attrs["JOINTS_0"] = self.doc.accessor(joints.astype(np.uint16))
            attrs["WEIGHTS_0"] = self.doc.accessor(weights.astype(np.float32))
        return attrs

    def targets(self, mesh: Mesh) -> list[dict[str, int]]:
        out = []
        for shape in mesh.blendshapes:
            last = shape.frames[-1] if shape.frames else None  # the full-weight frame
            target: dict[str, int] = {}
            if last is None:
                zeros = np.zeros((mesh.vertex_count, 3), np.float32)
                target["POSITION"] = self.doc.accessor(zeros, bounds=True)
            else:
                target["POSITION"] = self.doc.accessor(frame.vectors(last.positions), bounds=True)
                if last.normals is not None and mesh.normals is not None:
                    target["NORMAL"] = self.doc.accessor(frame.vectors(last.normals))
            out.append(target)
        return out

    # -- skins ----------------------------------------------------------------------------
    def skins(self) -> None:
        for node_index, renderer, mesh, slot in self.skinned:
            member = field_member(renderer, "Bones")
            items = member.elements if member is not None else None
            joints: list[int] = []
            for i, bone in enumerate(mesh.bones):
                target = (
                    self.references.target(items[i])
                    if items is not None and i < len(items)
                    else None
                )
                joint = self.node_for(target) if isinstance(target, Slot) else None
                if joint is None:
                    self.warn(
                        slot,
                        f"bone {i} ({bone.name!r}) names no exported slot; a stand-in joint added",
                    )
                    joint = self.doc.add("nodes", {"name": bone.name or f"bone {i}"})
                    self.doc.nodes.add_child(node_index, joint)
                joints.append(joint)
            if len(set(joints)) != len(joints):
                self.warn(slot, "two bones name the same slot; the skin is not exported")
                continue
            ibm = np.stack([frame.matrix(b.bind_pose).T.reshape(16) for b in mesh.bones]).astype(
                np.float32
            )
            ibm[:, 15] = 1.0
            skin = {"joints": joints, "inverseBindMatrices": self.doc.accessor(ibm, vertex=False)}
            self.doc.nodes.set(node_index, "skin", self.doc.add("skins", skin))
            self.report.joints += len(joints)

    # -- materials and textures -----------------------------------------------------------
    def material(self, component: Component, slot: Slot) -> int:
        key = component.id or str(id(component))
        if key in self.material_cache:
            return self.material_cache[key]

        def texture(tex: Component, role: str) -> dict[str, Any] | None:
            index = self.texture(tex, role, slot)
            return {"index": index} if index is not None else None

        gltf, notes = materials.convert(component, texture, self.references.target)
        for note in notes:
            self.warn(slot, note)
        for ext in gltf.get("extensions", {}):
            self.doc.use(ext)
        if any("extensions" in v for v in _texture_infos(gltf)):
            self.doc.use(materials.TEXTURE_TRANSFORM)
        index = self.doc.add("materials", gltf)
        self.material_cache[key] = index
        return index

    def texture(self, component: Component, role: str, slot: Slot) -> int | None:
        key = (component.id or str(id(component)), "mr" if role == "metallicRoughness" else "")
        if key in self.texture_cache:
            return self.texture_cache[key]
        kind = _kind(component)
        result: int | None = None
        if kind not in _TEXTURES:
            self.warn(
                slot,
                f"texture provider {kind or component.type_label} is not supported; no texture",
            )
        else:
            url = field_value(component, "URL")
            data = self.assets.get(url)
            image: tuple[bytes, str] | None = None
            if data is None:
                self.warn(slot, f"texture asset {url} is not available; a placeholder is used")
            else:
                try:
                    if role == "metallicRoughness":
                        image = images.metallic_roughness(data), "image/png"
                    else:
                        image = images.for_gltf(data)
                except BrsonError as exc:
                    self.warn(slot, f"texture asset {url}: {exc.message}; a placeholder is used")
            if image is None:
                image = images.PLACEHOLDER, "image/png"
            source = self.doc.image(image[0], image[1], name=str(url) if url else None)
            texture: dict[str, Any] = {"source": source, "sampler": self.sampler(component)}
            result = self.doc.add("textures", texture)
        self.texture_cache[key] = result
        return result

    def sampler(self, component: Component) -> int:
        wrap_u = _WRAP.get(str(field_value(component, "WrapModeU")), 10497)
        wrap_v = _WRAP.get(str(field_value(component, "WrapModeV")), 10497)
        point = field_text(component, "FilterMode") == "Point"
        mipmaps = field_value(component, "MipMaps") is not False
        key = (wrap_u, wrap_v, point, mipmaps)
        if key not in self.sampler_cache:
            sampler = {
                "wrapS": wrap_u,
                "wrapT": wrap_v,
                "magFilter": _NEAREST if point else _LINEAR,
                "minFilter": _NEAREST if point else _LINEAR_MIPMAP_LINEAR if mipmaps else _LINEAR,
            }
            self.sampler_cache[key] = self.doc.add("samplers", sampler)
        return self.sampler_cache[key]


def _provider_key(component: Component) -> str | None:
    """A procedural mesh provider's type and every field's value, IDs left out (what its
    generator can read); None when its data does not decode (the generator says why)."""
    try:
        data = component.data.decoded()
        type_name = component.type.full_name
    except BrsonError:
        return None
    values = [(key, value.get("Data")) for key, value in data.items() if isinstance(value, dict)]
    return repr((type_name, values))


def _texture_infos(material: dict[str, Any]) -> list[dict[str, Any]]:
    pbr = material.get("pbrMetallicRoughness", {})
    found = [pbr.get("baseColorTexture"), pbr.get("metallicRoughnessTexture")]
    found += [material.get(k) for k in ("normalTexture", "occlusionTexture", "emissiveTexture")]
    return [f for f in found if isinstance(f, dict)]


@paused_gc()
def export_gltf(
    tree: DataTree,
    slot: Slot | None = None,
    *,
    assets: AssetStore | None = None,
    inactive: Literal["hide", "omit"] = "hide",
    on_slot: Callable[[], None] | None = None,
    place_top: bool = True,
    max_size: int = limits.DEFAULT_MAX_SIZE,
) -> tuple[Document, GltfReport]:
    """The glTF document for ``slot``'s subtree (default: the whole tree) and its report.

    ``assets`` resolves asset URLs (default: none available; pass
    ``AssetStore(package, dirs)``).  Inactive slots are hidden with ``KHR_node_visibility``
    (``inactive="hide"``) or left out with their subtrees (``"omit"``).  The top slot's node
    carries its local transform: a subtree is placed as it is relative to its parent
    (``place_top=False``: no transform, for a host that places the top slot itself).
    ``max_size`` bounds the mesh data decompressed for the whole export, all assets together
    (LimitError past it: a package of many assets, each under the limit, is no way around it).
    """
    budget = limits.Budget(max_size, "mesh data")
    exporter = _Exporter(tree, assets or AssetStore(), inactive == "omit", budget)
    exporter.run(slot if slot is not None else tree.root, on_slot, place_top)
    return exporter.doc, exporter.report
