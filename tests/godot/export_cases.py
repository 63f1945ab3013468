"""Trees for the scene-export tests: the real samples plus one built to be awkward.

The real samples have few meshes and tame names, so the synthetic tree adds what they lack:
names each engine version rewrites or that need escaping, duplicate siblings, an unnamed slot,
inactive slots, every procedural mesh the exporter maps (and some it does not), unlit/PBS/
unknown materials, a renderer drawing a mesh that lives on another slot, degenerate and sheared
transforms, and metadata holding special floats, big integers, control characters and
non-ASCII text.
"""

from __future__ import annotations

import math
from itertools import count
from pathlib import Path
from typing import Any

from bson.int64 import Int64

from brson import api
from brson.document import bsondoc
from brson.model.tree import DataTree

#: The real samples (see tests/conftest.py; computed here because tests/ is not a package).
SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples"
SAMPLE_SUFFIXES = (".brson", ".7zbson", ".lz4bson", ".bson", ".resonitepackage")


def sample_paths() -> list[Path]:
    if not SAMPLES.is_dir():
        return []
    return sorted(p for p in SAMPLES.iterdir() if p.suffix in SAMPLE_SUFFIXES)


def load_cases() -> dict[str, DataTree]:
    """Case name -> tree: every real sample, then the synthetic tree."""
    cases = {path.name: api.load(path) for path in sample_paths()}
    cases["synthetic"] = synthetic_tree()
    return cases


#: Names the engines rewrite (3.x deletes ``. : @ / "``, 4.x turns them and ``%`` into ``_``),
#: names needing escapes in a node header, duplicates, and one that only exists after renaming.
AWKWARD_NAMES: list[str | None] = [
    'A:b@c%d"e',
    "a/b",
    "",
    "...",
    "dup",
    "dup",
    "dup2",
    "tab\there",
    "new\nline",
    "uni \u2603 \U0001f600 \u65e5\u672c",
    "back\\slash",
    'q"uote',
    None,
    " spaced ",
    "Ro.ot",
    "Root",
    "%unique",
    "@internal",
]


class _Builder:
    """Resonite-shaped documents with fresh GUID-shaped IDs."""

    def __init__(self) -> None:
        self.ids = count(2)
        self.types: list[str] = []

    def new_id(self) -> str:
        return f"{next(self.ids):08x}-0000-0000-0000-000000000000"

    def member(self, value: Any) -> dict[str, Any]:
        return {"ID": self.new_id(), "Data": value}

    def type_index(self, name: str) -> int:
        full = f"[FrooxEngine]FrooxEngine.{name}"
        if full not in self.types:
            self.types.append(full)
        return self.types.index(full)

    def component(self, name: str, **fields: Any) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ID": self.new_id(),
            "persistent-ID": self.new_id(),
            "UpdateOrder": self.member(0),
            "Enabled": self.member(True),
        }
        for key, value in fields.items():
            data[key] = self.member(value)
        return {"Type": self.type_index(name), "Data": data}

    def slot(
        self,
        name: str | None,
        components: list[dict[str, Any]] | None = None,
        children: list[dict[str, Any]] | None = None,
        position: list[float] | None = None,
        rotation: list[float] | None = None,
        scale: list[float] | None = None,
        active: bool = True,
        tag: str | None = None,
    ) -> dict[str, Any]:
        return {
            "ID": self.new_id(),
            "Components": self.member(components or []),
            "Name": self.member(name),
            "Tag": self.member(tag),
            "Active": self.member(active),
            "Persistent-ID": self.new_id(),
            "Position": self.member(position or [0.0, 0.0, 0.0]),
            "Rotation": self.member(rotation or [0.0, 0.0, 0.0, 1.0]),
            "Scale": self.member(scale or [1.0, 1.0, 1.0]),
            "OrderOffset": self.member(Int64(0)),
            "ParentReference": self.new_id(),
            "Children": children or [],
        }

    def renderer(self, mesh: dict[str, Any], material: dict[str, Any] | None) -> dict[str, Any]:
        materials = [self.member(material["Data"]["ID"])] if material is not None else []
        return self.component(
            "MeshRenderer",
            Mesh=mesh["Data"]["ID"],
            Materials=materials,
            ShadowCastMode="On",
            SortingOrder=0,
        )


def synthetic_tree() -> DataTree:
    b = _Builder()
    half = math.sqrt(0.5)

    def drawn(
        name: str, mesh: dict[str, Any], material: dict[str, Any] | None = None, **place: Any
    ) -> dict[str, Any]:
        parts = [mesh, b.renderer(mesh, material)] + ([material] if material else [])
        return b.slot(name, parts, **place)

    unlit = b.component(
        "UnlitMaterial",
        TintColor=[0.5, 0.25, 1.0, 0.5, "Linear"],
        BlendMode="Alpha",
        Sidedness="Double",
    )
    pbs = b.component(
        "PBS_Metallic",
        AlbedoColor=[1.0, 0.5, 0.0, 1.0, "sRGB"],
        Metallic=0.75,
        Smoothness=0.25,
        BlendMode="Opaque",
    )
    fresnel = b.component("FresnelMaterial", NearColor=[1.0, 1.0, 1.0, 1.0])
    legacy_color = b.component("UnlitMaterial", TintColor=[0.2, 0.4, 0.6, 1.0])
    shared_box = b.component("BoxMesh", Size=[0.5, 2.0, 0.25], UVScale=[1.0, 1.0, 1.0])
    meshes = [
        drawn(
            "Box",
            shared_box,
            pbs,
            position=[1.0, 2.0, 3.0],
            scale=[2.0, 0.5, 1.0],
            rotation=[0.0, half, 0.0, half],
        ),
        drawn("Sphere", b.component("SphereMesh", Radius=0.75, Segments=8, Rings=4), unlit),
        drawn("Ico", b.component("IcoSphereMesh", Radius=0.3, Subdivisions=2), legacy_color),
        drawn(
            "Cylinder",
            b.component("CylinderMesh", Height=1.5, Radius=0.2, Sides=16, Caps=True),
            fresnel,
        ),
        drawn("Tube", b.component("CylinderMesh", Height=1.0, Radius=0.1, Sides=8, Caps=False)),
        drawn(
            "Cone",
            b.component("ConeMesh", Height=2.0, RadiusTop=0.0, RadiusBase=0.5, Sides=12, Caps=True),
        ),
        drawn("Capsule", b.component("CapsuleMesh", Radius=0.25, Height=1.5, Segments=8, Rings=4)),
        drawn(
            "Torus",
            b.component(
                "TorusMesh", MajorRadius=1.0, MinorRadius=0.25, MajorSegments=16, MinorSegments=8
            ),
        ),
        drawn(
            "Quad", b.component("QuadMesh", Size=[2.0, 0.5], Rotation=[0.0, 0.0, 0.0, 1.0]), unlit
        ),
        drawn(
            "Quad turned", b.component("QuadMesh", Size=[1.0, 1.0], Rotation=[half, 0.0, 0.0, half])
        ),
        drawn("Bevel", b.component("BevelSoliStripeMesh", Width=0.25, Height=0.05)),
        # A renderer drawing the box that lives on the "Box" slot: shares its sub-resource.
        b.slot("Borrowed box", [b.renderer(shared_box, pbs)], position=[-1.0, 0.0, 0.0]),
        # Disabled renderer: stays a plain node.
        b.slot(
            "Disabled renderer",
            [
                {
                    **(r := b.renderer(shared_box, None)),
                    "Data": {**r["Data"], "Enabled": b.member(False)},
                },
            ],
        ),
    ]
    awkward = [b.slot(name, tag=f"tag {i}") for i, name in enumerate(AWKWARD_NAMES)]
    metadata_stress = b.slot(
        "Metadata",
        [
            b.component(
                "ValueField",
                Value=[
                    math.inf,
                    -math.inf,
                    math.nan,
                    -0.0,
                    1e-300,
                    5e-324,
                    1.7976931348623157e308,
                    0.1,
                    1e16,
                    123456789.125,
                ],
            ),
            b.component("ValueField", Value=Int64(-(2**63))),
            b.component("ValueField", Value=Int64(2**63 - 1)),
            b.component(
                "ValueField",
                Value={
                    "nested": [[], {}, [None, True, False]],
                    "text": 'quote " backslash \\ \x01 \x7f \r\n end',
                    "unicode": "\u00e9\u4e2d\U0001f600",
                },
            ),
        ],
        tag='line one\nline two\ttabbed "quoted"',
    )
    transforms = b.slot(
        "Transforms",
        children=[
            b.slot(
                "Zero scale",
                scale=[0.0, 0.0, 0.0],
                children=[b.slot("Under zero", position=[1.0, 1.0, 1.0])],
            ),
            b.slot(
                "Sheared parent",
                rotation=[0.1, 0.7, -0.2, 0.6],
                scale=[3.0, 0.25, 1.5],
                children=[
                    b.slot(
                        "Rotated child",
                        rotation=[0.3, 0.0, 0.4, 0.8],
                        position=[0.5, -2.0, 7.0],
                        children=[b.slot("Far", position=[1e4, -3e3, 2.5e3])],
                    )
                ],
            ),
            b.slot("Hidden", active=False, children=[b.slot("Under hidden")]),
            b.slot("Unnormalised", rotation=[0.0, 0.0, 2.0, 2.0], scale=[-1.0, 1.0, 1.0]),
        ],
    )
    chain = b.slot("Chain end")
    for level in range(40):
        chain = b.slot(
            f"Level {39 - level}",
            children=[chain],
            position=[0.0, 0.1, 0.0],
            rotation=[0.0, 0.0, 0.05, 0.99875],
        )
    root = b.slot(
        "Ro.ot",
        [b.component("Comment", Text="root:has/bad@chars")],
        children=[*meshes, *awkward, metadata_stress, transforms, chain],
        position=[0.25, -0.5, 4.0],
        rotation=[0.0, 0.0, half, half],
    )
    doc = {
        "VersionNumber": "2025.1.1.1",
        "FeatureFlags": {"ColorManagement": 0, "ResetGUID": 0},
        "Types": b.types,
        "TypeVersions": {},
        "Object": root,
    }
    return DataTree(bsondoc.encode(doc), source="synthetic")
