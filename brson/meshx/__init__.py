"""Triangle meshes in Resonite's frame: the ``MeshX`` asset format (reader and writer) and the
:class:`Mesh` every geometry source (MeshX assets, procedural mesh components) produces."""

from brson.meshx.mesh import Blendshape, BlendshapeFrame, Bone, Mesh, Submesh

__all__ = ["Blendshape", "BlendshapeFrame", "Bone", "Mesh", "Submesh"]
