"""Meshes and materials of a Godot scene: Resonite's procedural meshes as Godot primitives,
MeshX assets as Godot 3 ``ArrayMesh`` resources, unlit and PBS materials as
``SpatialMaterial`` / ``StandardMaterial3D`` (:mod:`brson.godot.export` builds the scene)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from brson.assets.store import AssetStore
from brson.codecs.limits import DEFAULT_MAX_SIZE, Budget
from brson.errors import BrsonError, LimitError
from brson.godot import values as gv
from brson.godot.tscn import SubResource
from brson.model import Component, DataTree, Slot
from brson.model.fields import field_member, field_number, field_numbers, field_text, field_value
from brson.model.ids.targets import Targets
from brson.model.typename import TypeName

MATERIAL = {3: "SpatialMaterial", 4: "StandardMaterial3D"}

_RENDERER = "FrooxEngine.MeshRenderer"
_UNLIT = {"FrooxEngine.UnlitMaterial", "FrooxEngine.OverlayUnlitMaterial"}
_PBS_PREFIX = "FrooxEngine.PBS_"
_TRANSPARENT_BLEND = {"Alpha", "Transparent", "Additive", "Multiply"}


# --- meshes and materials ---------------------------------------------------------------------


def _srgb(channel: float) -> float:
    if channel <= 0.0031308:
        return 12.92 * channel
    return 1.055 * math.pow(channel, 1 / 2.4) - 0.055


def _color(component: Component, key: str) -> gv.Color | None:
    """A ``color``/``colorX`` field as Godot's sRGB Color (``Linear`` profiles are converted)."""
    rgba = field_numbers(component, key, 4)
    if rgba is None:
        return None
    value = field_value(component, key)
    profile = value[4] if len(value) > 4 else None
    r, g, b, a = rgba
    if profile == "Linear":
        r, g, b = _srgb(r), _srgb(g), _srgb(b)
    return gv.Color(r, g, b, a)


class Converter:
    """Builds mesh and material sub-resources once per Resonite component."""

    def __init__(
        self,
        godot: int,
        targets: Targets,
        assets: AssetStore | None = None,
        max_size: int = DEFAULT_MAX_SIZE,
    ) -> None:
        self.godot = godot
        #: The few references an export follows, without the tree's whole ID index.
        self.targets = targets
        self.assets = assets
        #: Every mesh asset of the export together: many assets each under the limit must not
        #: add up past it.
        self.budget = Budget(max_size, "mesh data")
        self.meshes: dict[str, SubResource | None] = {}
        self.materials: dict[str, SubResource | None] = {}
        self.unmapped_meshes: Counter[str] = Counter()
        self.unmapped_materials: Counter[str] = Counter()
        self.notes: list[str] = []
        #: The type table last seen and which of its indices name the renderer.
        self._renderer_types: tuple[list[TypeName], int, frozenset[int]] | None = None

    def _is_renderer(self, component: Component) -> bool:
        """``component.type.full_name == _RENDERER``, by its ``Type`` index where it has one.

        Why: asking every component of every slot for its parsed type was a third of
        building the scene; the table names the renderer at a few indices, found once."""
        raw_type = component.type_index
        tree = component.tree
        if type(raw_type) is int and tree is not None:
            count, renderers = self._renderer_indices(tree)
            if 0 <= raw_type < count:
                return raw_type in renderers
        return component.type.full_name == _RENDERER  # names, or its error

    def _renderer_indices(self, tree: DataTree) -> tuple[int, frozenset[int]]:
        """The length of the tree's type table and which of its indices name the renderer."""
        types = tree.types
        known = self._renderer_types
        if known is None or known[0] is not types or known[1] != len(types):
            found = frozenset(i for i, t in enumerate(types) if t.full_name == _RENDERER)
            known = self._renderer_types = (types, len(types), found)
        return known[1], known[2]

    def may_draw(self, slot: Slot, types: tuple[int, ...] | None) -> bool:
        """False when the slot's component ``Type`` indices (:data:`SlotHead`) name no
        renderer, so :meth:`renderer` has nothing to find: its components need not be read
        (a Component object each, for every slot)."""
        tree = slot.tree
        if types is None or tree is None:
            return True
        if not types:
            return False
        try:
            count, renderers = self._renderer_indices(tree)
        except BrsonError:
            return True  # renderer() reads the components and says what is wrong
        return not all(0 <= index < count and index not in renderers for index in types)

    def renderer(self, slot: Slot) -> tuple[SubResource, SubResource | None] | None:
        """Mesh and material of the slot's first MeshRenderer that draws a known primitive."""
        found: tuple[SubResource, SubResource | None] | None = None
        for component in slot.components:
            if not self._is_renderer(component) or field_value(component, "Enabled") is False:
                continue
            target = self.targets.target(field_member(component, "Mesh"))
            if not isinstance(target, Component):
                continue
            mesh = self.mesh(target, slot)
            if mesh is None:
                continue
            if found is not None:
                self.notes.append(
                    f"slot {slot.path!r}: more than one MeshRenderer; only the "
                    "first becomes the MeshInstance's mesh"
                )
                continue
            found = (mesh, self.material(component))
        return found

    def mesh(self, component: Component, slot: Slot) -> SubResource | None:
        key = component.id or str(id(component))
        if key not in self.meshes:
            self.meshes[key] = self._mesh(component, slot)
        return self.meshes[key]

    def _mesh(self, component: Component, slot: Slot) -> SubResource | None:
        kind = component.type.full_name.removeprefix("FrooxEngine.")
        godot4 = self.godot == 4
        props: dict[str, Any] | None = None
        cls = kind
        if kind == "QuadMesh":
            size = field_numbers(component, "Size", 2)
            props = {"size": gv.Vector2(*size)} if size else None
            rotation = field_numbers(component, "Rotation", 4)
            if (
                props
                and rotation
                and any(abs(a - b) > 1e-6 for a, b in zip(rotation, (0, 0, 0, 1), strict=True))
            ):
                self.notes.append(
                    f"slot {slot.path!r}: QuadMesh Rotation {rotation} is not "
                    "applied (a Godot QuadMesh cannot be rotated)"
                )
        elif kind == "BoxMesh":
            size3 = field_numbers(component, "Size", 3)
            props = {"size": gv.Vector3(*size3)} if size3 else None
            cls = "BoxMesh" if godot4 else "CubeMesh"
        elif kind in ("SphereMesh", "IcoSphereMesh"):
            radius = field_number(component, "Radius")
            props = {"radius": radius, "height": 2 * radius} if radius is not None else None
            cls = "SphereMesh"
        elif kind in ("CylinderMesh", "ConeMesh"):
            height = field_number(component, "Height")
            if kind == "CylinderMesh":
                top = bottom = field_number(component, "Radius")
            else:
                top, bottom = (
                    field_number(component, "RadiusTop"),
                    field_number(component, "RadiusBase"),
                )
            if height is not None and top is not None and bottom is not None:
                props = {"top_radius": top, "bottom_radius": bottom, "height": height}
                caps = field_value(component, "Caps")
                if isinstance(caps, bool) and godot4:
                    props.update(cap_top=caps, cap_bottom=caps)
                elif caps is False:
                    self.notes.append(
                        f"slot {slot.path!r}: {kind} without caps is drawn "
                        "with caps (Godot 3's CylinderMesh always has them)"
                    )
            cls = "CylinderMesh"
        elif kind == "CapsuleMesh" and godot4:  # 3.x capsules lie along Z, not Y
            radius, height = field_number(component, "Radius"), field_number(component, "Height")
            if radius is not None and height is not None:
                props = {"radius": radius, "height": height}
        elif kind == "TorusMesh" and godot4:  # no TorusMesh in 3.x
            major, minor = (
                field_number(component, "MajorRadius"),
                field_number(component, "MinorRadius"),
            )
            if major is not None and minor is not None:
                props = {"inner_radius": major - minor, "outer_radius": major + minor}
        elif kind == "StaticMesh" and not godot4 and self.assets is not None:
            array_mesh = self._static_mesh(component, slot)
            if array_mesh is not None:
                return array_mesh
        if props is None:
            self.unmapped_meshes[kind] += 1
            return None
        return SubResource(cls, props)

    def _static_mesh(self, component: Component, slot: Slot) -> SubResource | None:
        """Godot 3: a MeshX asset as an ``ArrayMesh`` whose surfaces use the engine's "arrays"
        form (``surfaces/N = {"primitive", "arrays", "morph_arrays"}``, loaded by
        ``add_surface_from_arrays``).  Positions and normals stay in Resonite's numbers like
        the rest of the scene; triangles are reversed (Godot's front faces are clockwise with
        ``cross(b - a, c - a)`` pointing away from the viewer) and v is flipped (Godot's UV
        origin is the top left)."""
        assert self.assets is not None
        url = field_value(component, "URL")
        data = self.assets.get(url)
        if data is None:
            self.notes.append(f"slot {slot.path!r}: mesh asset {url} is not available")
            return None
        from brson.meshx.format import read  # numpy: the optional gltf extra

        try:
            mesh = read(data, budget=self.budget)
        except LimitError:
            raise  # the run's limit: the export stops, as export-gltf's does
        except BrsonError as exc:
            self.notes.append(f"slot {slot.path!r}: mesh asset {url}: {exc.message}")
            return None
        positions = gv.PackedVector3Array([gv.Vector3(*map(float, p)) for p in mesh.positions])
        normals = (
            gv.PackedVector3Array([gv.Vector3(*map(float, n)) for n in mesh.normals])
            if mesh.normals is not None
            else None
        )
        uv = (
            gv.PackedVector2Array(
                [gv.Vector2(float(u), 1.0 - float(v)) for u, v, *_ in mesh.uvs[0]]
            )
            if mesh.uvs
            else None
        )
        props: dict[str, Any] = {}
        for sub in mesh.submeshes:
            if sub.topology not in ("Triangles", "Points") or len(sub.indices) == 0:
                continue
            triangles = sub.topology == "Triangles"
            order = sub.indices[:, [0, 2, 1]] if triangles else sub.indices
            indices = gv.PackedInt32Array([int(i) for i in order.reshape(-1)])
            arrays = [positions, normals, None, None, uv, None, None, None, indices]
            props[f"surfaces/{len(props)}"] = {
                "primitive": 4 if triangles else 0,
                "arrays": arrays,
                "morph_arrays": [],
            }
        return SubResource("ArrayMesh", props) if props else None

    def material(self, renderer: Component) -> SubResource | None:
        member = field_member(renderer, "Materials")
        items = member.elements if member is not None else None
        target = self.targets.target(items[0]) if items else None
        if not isinstance(target, Component):
            return None
        key = target.id or str(id(target))
        if key not in self.materials:
            self.materials[key] = self._material(target)
        return self.materials[key]

    def _material(self, component: Component) -> SubResource | None:
        kind = component.type.full_name
        unlit = kind in _UNLIT
        if not unlit and not kind.startswith(_PBS_PREFIX):
            self.unmapped_materials[kind.removeprefix("FrooxEngine.")] += 1
            return None
        color = _color(component, "TintColor" if unlit else "AlbedoColor")
        if color is None:
            self.unmapped_materials[kind.removeprefix("FrooxEngine.")] += 1
            return None
        godot4 = self.godot == 4
        props: dict[str, Any] = {"albedo_color": color}
        if unlit:
            props["shading_mode" if godot4 else "flags_unshaded"] = 0 if godot4 else True
        transparent = (
            color.a < 1.0
            or field_text(component, "BlendMode") in _TRANSPARENT_BLEND
            or field_value(component, "Transparent") is True
        )
        if transparent:
            props["transparency" if godot4 else "flags_transparent"] = 1 if godot4 else True
        if field_text(component, "Sidedness") in ("Double", "DualSided"):
            props["cull_mode" if godot4 else "params_cull_mode"] = 2  # CULL_DISABLED
        metallic, smoothness = (
            field_number(component, "Metallic"),
            field_number(component, "Smoothness"),
        )
        if metallic is not None:
            props["metallic"] = metallic
        if smoothness is not None:
            props["roughness"] = 1.0 - smoothness
        return SubResource(MATERIAL[self.godot], props)

    def summary(self) -> list[str]:
        notes = list(self.notes)
        if self.unmapped_meshes:
            listing = ", ".join(f"{k} x{n}" for k, n in sorted(self.unmapped_meshes.items()))
            notes.append(
                f"meshes without a Godot {self.godot} primitive ({listing}): their "
                "slots stay plain nodes; the components are kept in metadata"
            )
        if self.unmapped_materials:
            listing = ", ".join(f"{k} x{n}" for k, n in sorted(self.unmapped_materials.items()))
            notes.append(f"materials without a Godot equivalent ({listing}): kept in metadata")
        return notes
