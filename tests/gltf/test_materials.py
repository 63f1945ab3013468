"""Materials: colour profiles linearised, smoothness to roughness, emission beyond 1 via
KHR_materials_emissive_strength, blend modes, culling, texture transforms with v flipped."""

from __future__ import annotations

from typing import Any

import pytest

import brson
from brson.gltf import materials
from brson.model.component import Component
from tests.gltf.conftest import ROOT


def material(kind: str, **fields: Any) -> Component:
    tree = brson.load(ROOT / "fixtures" / "tiny.brson")
    return tree.root.add_component(f"[FrooxEngine]FrooxEngine.{kind}", fields)


def convert(component: Component) -> dict[str, Any]:
    out, _ = materials.convert(component, lambda tex, role: {"index": 0})
    return out


def test_pbs_metallic() -> None:
    out = convert(
        material(
            "PBS_Metallic",
            AlbedoColor=[0.5, 1.0, 0.0, 1.0, "sRGB"],
            Metallic=0.25,
            Smoothness=0.75,
            EmissiveColor=[2.0, 1.0, 0.0, 1.0, "Linear"],
            BlendMode="Cutout",
            AlphaCutoff=0.3,
        )
    )
    pbr = out["pbrMetallicRoughness"]
    assert pbr["baseColorFactor"] == pytest.approx([0.21404, 1.0, 0.0, 1.0], abs=1e-4)
    assert (pbr["metallicFactor"], pbr["roughnessFactor"]) == (0.25, 0.25)
    assert out["emissiveFactor"] == [1.0, 0.5, 0.0]
    assert out["extensions"][materials.EMISSIVE_STRENGTH] == {"emissiveStrength": 2.0}
    assert (out["alphaMode"], out["alphaCutoff"]) == ("MASK", 0.3)
    assert "doubleSided" not in out


def test_linear_colors_stay_linear_and_unlit_is_unlit() -> None:
    out = convert(
        material(
            "UnlitMaterial",
            TintColor=[0.5, 0.5, 0.5, 0.5, "Linear"],
            BlendMode="Alpha",
            Sidedness="Double",
        )
    )
    assert out["pbrMetallicRoughness"]["baseColorFactor"] == [0.5, 0.5, 0.5, 0.5]
    assert materials.UNLIT in out["extensions"]
    assert out["alphaMode"] == "BLEND" and out["doubleSided"] is True


def test_dual_sided_transparent_names_and_texture_transform() -> None:
    tree = brson.load(ROOT / "fixtures" / "tiny.brson")
    tex = tree.root.add_component("[FrooxEngine]FrooxEngine.StaticTexture2D", {"URL": None})
    comp = tree.root.add_component(
        "[FrooxEngine]FrooxEngine.PBS_DualSidedTransparent",
        {"AlbedoTexture": tex, "TextureScale": [2.0, 2.0], "TextureOffset": [0.5, 0.0]},
    )
    out = convert(comp)
    assert out["doubleSided"] is True and out["alphaMode"] == "BLEND"
    info = out["pbrMetallicRoughness"]["baseColorTexture"]
    transform = info["extensions"][materials.TEXTURE_TRANSFORM]
    assert transform == {"scale": [2.0, 2.0], "offset": [0.5, -1.0]}


def test_unknown_material_is_approximated_with_a_note() -> None:
    out, notes = materials.convert(
        material("FresnelMaterial", NearColor=[1.0, 0.0, 0.0, 1.0, "sRGB"]), lambda t, r: None
    )
    assert out["pbrMetallicRoughness"]["baseColorFactor"] == [1.0, 0.0, 0.0, 1.0]
    assert any("no glTF equivalent" in n for n in notes)


def test_xiexe_toon_fields() -> None:
    tree = brson.load(ROOT / "fixtures" / "tiny.brson")
    tex = tree.root.add_component("[FrooxEngine]FrooxEngine.StaticTexture2D", {"URL": None})
    comp = tree.root.add_component(
        "[FrooxEngine]FrooxEngine.XiexeToonMaterial",
        {
            "MainTexture": tex,
            "Color": [1.0, 1.0, 1.0, 1.0, "sRGB"],
            "AlphaClip": 0.4,
            "MainTextureScale": [2.0, 1.0],
            "MainTextureOffset": [0.0, 0.0],
            "Metallic": 0.5,
            "Glossiness": 0.8,
            "EmissionColor": [0.5, 0.0, 0.0, 1.0, "Linear"],
            "BlendMode": "Cutout",
            "Culling": "Off",
        },
    )
    out, notes = materials.convert(comp, lambda t, r: {"index": 0})
    pbr = out["pbrMetallicRoughness"]
    assert pbr["metallicFactor"] == 0.5 and pbr["roughnessFactor"] == pytest.approx(0.2)
    assert pbr["baseColorTexture"]["extensions"][materials.TEXTURE_TRANSFORM]["scale"] == [2, 1]
    assert out["emissiveFactor"] == [0.5, 0.0, 0.0]
    assert (out["alphaMode"], out["alphaCutoff"], out["doubleSided"]) == ("MASK", 0.4, True)
    assert notes == []
