"""A mesh as numpy arrays, in Resonite's (Unity's) frame: left-handed, Y up, clockwise front
faces.  Exporters convert the frame once, on the way out (brson.gltf.frame)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.uint32]

TRIANGLES = "Triangles"
POINTS = "Points"


@dataclass
class Submesh:
    """``topology`` "Triangles" (indices N x 3), "Points" (N x 1) or "" (an empty placeholder
    kept so that material indices stay aligned)."""

    topology: str
    indices: Ints


@dataclass
class Bone:
    name: str
    #: The inverse bind matrix (Unity's ``bindposes``): 4 x 4, row-major, column vectors.
    bind_pose: Floats


@dataclass
class BlendshapeFrame:
    weight: float
    positions: Floats
    normals: Floats | None = None
    tangents: Floats | None = None


@dataclass
class Blendshape:
    name: str
    frames: list[BlendshapeFrame] = field(default_factory=list)


@dataclass
class Mesh:
    positions: Floats
    normals: Floats | None = None
    tangents: Floats | None = None
    colors: Floats | None = None
    #: UV channels, each vertices x dimension (2, 3 or 4).
    uvs: list[Floats] = field(default_factory=list)
    submeshes: list[Submesh] = field(default_factory=list)
    bones: list[Bone] = field(default_factory=list)
    #: vertices x 4 bone indices and weights (present together, when the mesh is skinned).
    bone_indices: Ints | None = None
    bone_weights: Floats | None = None
    blendshapes: list[Blendshape] = field(default_factory=list)
    #: "Linear", "sRGB" or "sRGBAlpha": how the vertex colors are stored.
    color_profile: str = "sRGB"

    @property
    def vertex_count(self) -> int:
        return int(self.positions.shape[0])

    def triangle_count(self) -> int:
        return sum(len(s.indices) for s in self.submeshes if s.topology == TRIANGLES)
