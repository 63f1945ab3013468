"""glTF 2.0 export of Resonite Slot trees (``brson export-gltf``; docs/gltf-export.md)."""

from brson.gltf.document import Document
from brson.gltf.export import GltfReport, export_gltf

__all__ = ["Document", "GltfReport", "export_gltf"]
