"""Resonite materials as glTF metallic-roughness materials, by their nearest glTF meaning.

Colors: ``colorX`` values carry their profile ("sRGB" or "Linear"); glTF factors are linear, so
sRGB channels are linearised (plain ``color`` fields are sRGB, the engine's default).  Textures
go through a callback that the exporter resolves (asset lookup, sampler, image conversion).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from brson.gltf import frame
from brson.model.component import Component
from brson.model.fields import field_member, field_number, field_numbers, field_value
from brson.model.member import Member
from brson.model.tree import Element

#: (texture component, glTF slot name) -> textureInfo dict or None.
TextureFn = Callable[[Component, str], dict[str, Any] | None]
#: A reference member -> the element it names (``member.target``, or the exporter's resolver).
TargetFn = Callable[[Member | None], Element | None]


def _member_target(member: Member | None) -> Element | None:
    return member.target if member is not None else None


UNLIT = "KHR_materials_unlit"
EMISSIVE_STRENGTH = "KHR_materials_emissive_strength"
TEXTURE_TRANSFORM = "KHR_texture_transform"

_BLEND = {"Opaque": "OPAQUE", "Cutout": "MASK", "Alpha": "BLEND", "Transparent": "BLEND"}
_BLEND_LIKE = {"Additive", "Multiply"}  # no glTF equivalent: blended, with a warning

#: Field names per role, first match wins (PBS, Unlit, Toon, Fresnel, ... spellings).
_COLOR = ("AlbedoColor", "TintColor", "Color", "MainColor", "NearColor")
_TEXTURE = ("AlbedoTexture", "Texture", "MainTexture", "MainTex", "NearTexture")
_KNOWN_PREFIXES = ("PBS_", "Unlit", "OverlayUnlit", "XiexeToon", "Toon")
#: XiexeToonMaterial's spellings of the same roles (from the engine's component definition).
_SCALE = ("TextureScale", "MainTextureScale")
_OFFSET = ("TextureOffset", "MainTextureOffset")
_SMOOTHNESS = ("Smoothness", "Glossiness")
_METAL_MAP = ("MetallicMap", "MetallicGlossMap")
_EMISSIVE = ("EmissiveColor", "EmissionColor")
_EMISSIVE_MAP = ("EmissiveMap", "EmissionMap")
_CUTOFF = ("AlphaCutoff", "AlphaClip")


#: Largest colour channel kept (half-float max: HDR emission fits, a hostile 1e308 does not).
MAX_CHANNEL = 65504.0


def to_linear(channel: float) -> float:
    channel = min(max(channel, 0.0), MAX_CHANNEL)
    if channel <= 0.04045:
        return channel / 12.92
    return float(((channel + 0.055) / 1.055) ** 2.4)


def linear_color(component: Component, key: str) -> list[float] | None:
    """RGBA, linear; None when the field is absent or not a color."""
    rgba = field_numbers(component, key, 4)
    if rgba is None:
        rgb = field_numbers(component, key, 3)
        if rgb is None:
            return None
        rgba = [*rgb, 1.0]
    if not all(math.isfinite(c) for c in rgba):
        return None
    value = field_value(component, key)
    profile = value[4] if isinstance(value, list) and len(value) > 4 else "sRGB"
    r, g, b, a = (min(max(c, 0.0), MAX_CHANNEL) for c in rgba)
    if profile != "Linear":
        r, g, b = to_linear(max(r, 0.0)), to_linear(max(g, 0.0)), to_linear(max(b, 0.0))
    return [r, g, b, a]


def _number(component: Component, key: str) -> float | None:
    value = field_number(component, key)
    return value if value is not None and math.isfinite(value) else None


def _first(component: Component, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        if field_member(component, key) is not None:
            return key
    return None


def _texture(component: Component, key: str | None, target_of: TargetFn) -> Component | None:
    if key is None:
        return None
    target = target_of(field_member(component, key))
    return target if isinstance(target, Component) else None


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


def convert(
    component: Component, texture: TextureFn, target_of: TargetFn = _member_target
) -> tuple[dict[str, Any], list[str]]:
    """The glTF material and notes on what was approximated (``target_of`` resolves the
    texture references)."""
    kind = component.type.full_name.removeprefix("FrooxEngine.")
    notes: list[str] = []
    material: dict[str, Any] = {"name": kind, "extras": {"resonite_type": kind}}
    pbr: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    if not kind.startswith(_KNOWN_PREFIXES):
        notes.append(f"{kind} has no glTF equivalent; approximated by its main color/texture")
    unlit = kind.startswith(("Unlit", "OverlayUnlit"))
    if unlit:
        extensions[UNLIT] = {}

    color_key = _first(component, _COLOR)
    color = linear_color(component, color_key) if color_key else None
    if color is not None:
        pbr["baseColorFactor"] = [_clamp(c) for c in color]
    scale = field_numbers(component, _first(component, _SCALE) or "", 2) or [1.0, 1.0]
    offset = field_numbers(component, _first(component, _OFFSET) or "", 2) or [0.0, 0.0]
    if not all(math.isfinite(v) for v in (*scale, *offset)):
        scale, offset = [1.0, 1.0], [0.0, 0.0]

    def info(tex: Component | None, role: str) -> dict[str, Any] | None:
        if tex is None:
            return None
        out = texture(tex, role)
        if out is not None and (scale != [1.0, 1.0] or offset != [0.0, 0.0]):
            s, o = frame.texture_transform(scale, offset)
            out.setdefault("extensions", {})[TEXTURE_TRANSFORM] = {"scale": s, "offset": o}
        return out

    base = info(_texture(component, _first(component, _TEXTURE), target_of), "baseColor")
    if base is not None:
        pbr["baseColorTexture"] = base

    if unlit:
        pbr["metallicFactor"] = 0.0
        pbr["roughnessFactor"] = 1.0
    else:
        metallic = _number(component, "Metallic")
        smoothness = _number(component, _first(component, _SMOOTHNESS) or "")
        if kind.startswith("PBS_") and "Specular" in kind:
            pbr["metallicFactor"] = 0.0
            spec = field_numbers(component, "SpecularColor", 4)
            if spec is not None and math.isfinite(spec[3]):
                smoothness = spec[3]
            notes.append(f"{kind}: specular color approximated as metallic 0")
        elif metallic is not None:
            pbr["metallicFactor"] = _clamp(metallic)
        else:
            pbr["metallicFactor"] = 0.0
        if smoothness is not None:
            pbr["roughnessFactor"] = _clamp(1.0 - smoothness)
        metal_map = info(
            _texture(component, _first(component, _METAL_MAP), target_of), "metallicRoughness"
        )
        if metal_map is not None:
            pbr["metallicRoughnessTexture"] = metal_map
        normal = info(_texture(component, "NormalMap", target_of), "normal")
        if normal is not None:
            normal_scale = _number(component, "NormalScale")
            if normal_scale is not None and normal_scale != 1.0:
                normal["scale"] = normal_scale
            material["normalTexture"] = normal
        occlusion = info(_texture(component, "OcclusionMap", target_of), "occlusion")
        if occlusion is not None:
            material["occlusionTexture"] = occlusion
        emissive = linear_color(component, _first(component, _EMISSIVE) or "")
        if emissive is not None and max(emissive[:3]) > 0.0:
            peak = max(emissive[:3])
            if peak > 1.0:
                extensions[EMISSIVE_STRENGTH] = {"emissiveStrength": peak}
                material["emissiveFactor"] = [c / peak for c in emissive[:3]]
            else:
                material["emissiveFactor"] = emissive[:3]
        emissive_map = info(
            _texture(component, _first(component, _EMISSIVE_MAP), target_of), "emissive"
        )
        if emissive_map is not None:
            material["emissiveTexture"] = emissive_map
            material.setdefault("emissiveFactor", [1.0, 1.0, 1.0])

    blend = field_value(component, "BlendMode")
    mode = _BLEND.get(blend) if isinstance(blend, str) else None
    if "Transparent" in kind:
        mode = "BLEND"
    if isinstance(blend, str) and blend in _BLEND_LIKE:
        mode = "BLEND"
        notes.append(f"{kind}: blend mode {blend} drawn as alpha blending")
    if mode is not None and mode != "OPAQUE":
        material["alphaMode"] = mode
        if mode == "MASK":
            cutoff = _number(component, _first(component, _CUTOFF) or "")
            if cutoff is not None:
                material["alphaCutoff"] = _clamp(cutoff)
    sidedness = field_value(component, "Sidedness")
    culling = field_value(component, "Culling")
    if "DualSided" in kind or sidedness in ("Double", "DualSided") or culling == "Off":
        material["doubleSided"] = True
    material["pbrMetallicRoughness"] = pbr
    if extensions:
        material["extensions"] = extensions
    return material, notes
