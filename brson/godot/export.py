"""Resonite Slot trees as Godot scenes (TSCN) and as one Godot Variant.

Every slot becomes a ``Spatial`` (Godot 3) / ``Node3D`` (Godot 4) with its local transform and
``visible`` from ``Active``.  A slot whose MeshRenderer draws a procedural mesh Godot also has
(quad, box, sphere, cylinder, cone; capsule and torus in 4.x) becomes a ``MeshInstance`` /
``MeshInstance3D`` with that primitive and, when the renderer's first material is an unlit or
PBS material, a ``SpatialMaterial`` / ``StandardMaterial3D`` carrying its color.

Nothing is dropped: each node's metadata holds the slot's ID, name and tag, every component
(type name, ID, all its data) and the slot's own fields; the scene root also holds the document's
header fields and NeosVR ``Assets``.  What could not be expressed is reported in
:attr:`SceneExport.notes` instead of being skipped silently.

Coordinates are Resonite's, unchanged: a node's transform is its slot's ``local_matrix()``, so
node globals equal ``global_matrix()`` and stay comparable with everything else brson computes.
Resonite is left-handed and Godot right-handed, so a scene looks mirrored along Z;
docs/godot-export.md explains how to view it the right way round.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bson import json_util

from brson._speedups import load
from brson.assets.store import AssetStore
from brson.codecs.limits import DEFAULT_MAX_SIZE
from brson.collector import paused_gc
from brson.errors import BrsonError, ModelError, VariantError
from brson.godot import values as gv
from brson.godot.meshes import Converter
from brson.godot.tscn import (
    RENDERED,
    SceneNode,
    SubResource,
    quote,
    rendered_metadata,
    write_chunks,
)
from brson.godot.variant import dumps
from brson.model import Component, DataTree, Slot, elements, transform
from brson.model.ids.targets import Targets
from brson.model.slothead import SlotHead, head_vectors, slot_head
from brson.model.typename import TypeName

NODE = {3: "Spatial", 4: "Node3D"}
MESH_NODE = {3: "MeshInstance", 4: "MeshInstance3D"}
#: Node name for a slot whose name is empty (or made only of characters Godot refuses).
FALLBACK_NAME = "Slot"

# The compiled metadata writer (brson/_speedups/_tscnc.c), Godot 3 and 4: a slot's metadata
# text from its bytes, without decoding them and encoding the result again (that round trip was
# most of an export).  It answers only what it is sure of and None otherwise; the Python path
# (slot_metadata, then tscn's writer) is the reference, and what runs without the extension or
# with BRSON_PURE_PYTHON set.
if TYPE_CHECKING:
    from brson._speedups import _tscnc
else:
    _tscnc = load("_tscnc")
ACCELERATED: bool = _tscnc is not None
"""Whether the compiled metadata writer is in use."""


#: Metadata keys (Godot 4 needs identifiers).
META_ID, META_NAME, META_TAG = "resonite_id", "resonite_name", "resonite_tag"
META_COMPONENTS, META_SLOT = "resonite_components", "resonite_slot"
META_DOCUMENT, META_ASSETS = "resonite_document", "resonite_assets"


@dataclass
class SceneExport:
    """A built scene: the node tree, which slot each node came from, and the notes."""

    godot: int
    root: SceneNode
    #: (node, slot) in pre-order, the order the TSCN lists nodes in.
    nodes: list[tuple[SceneNode, Slot]] = field(default_factory=list)
    #: Things that could not be expressed in Godot (their data is still in metadata).
    notes: list[str] = field(default_factory=list)
    meshes: int = 0
    materials: int = 0

    @property
    def node_count(self) -> int:
        """Nodes made of slots (the glTF loader node not counted)."""
        return len(self.nodes)

    def tscn(self) -> str:
        return "".join(self.tscn_chunks())

    def tscn_chunks(self) -> Iterator[str]:
        """The TSCN text in pieces (one per node): what the writer makes of each node's
        metadata, read from its slot now, is let go once the piece is written."""
        return write_chunks(self.root, self.godot, fallback=FALLBACK_NAME, default=bson_extended)


class SlotNode(SceneNode):
    """A scene node whose metadata is read from its slot each time it is asked for.

    Kept, the metadata of every node is the whole tree decoded, which was most of an
    export's 15x-the-BSON peak; the writer asks for one node's at a time
    (``deferred_metadata``).  It is the slot as it is when read.  Keys set on ``metadata``
    (the scene root's document fields and assets) are kept beside it.
    """

    deferred_metadata = True

    def __init__(
        self, name: str, type: str, slot: Slot, type_texts: TypeTexts | None = None
    ) -> None:
        self.slot = slot
        #: The export's printed type names (one per export, gone with it).
        self.type_texts = type_texts
        self.extra: dict[str, Any] = {}
        super().__init__(name, type)

    @property
    def metadata(self) -> dict[str, Any]:
        meta = slot_metadata(self.slot)
        meta.update(self.extra)
        return meta

    @metadata.setter
    def metadata(self, value: dict[str, Any]) -> None:
        self.extra = dict(value)

    def deferred_metadata_for(self, godot: int) -> dict[str, Any]:
        return node_metadata(self.slot, godot, self.type_texts, self.extra)


def node_metadata(
    slot: Slot, godot: int, type_texts: TypeTexts | None, extra: dict[str, Any]
) -> dict[str, Any]:
    """A slot node's metadata for the writer of Godot ``godot``: rendered by the compiled
    writer where it is sure, else decoded (:func:`slot_metadata`); ``extra`` keys added."""
    meta = slot_metadata_text(slot, godot, type_texts) if _tscnc is not None else None
    if meta is None:
        meta = slot_metadata(slot)
    meta.update(extra)
    return meta


# --- metadata and the Variant form --------------------------------------------------------------


#: Printed type names by TypeName object: printing one walks its parsed structure, and a tree
#: holds few distinct types but many components (this was the export's largest cost).
_TYPE_TEXT: dict[int, tuple[TypeName, str]] = {}


def _type_text(component: Component) -> str:
    parsed = component.type
    hit = _TYPE_TEXT.get(id(parsed))
    if hit is not None and hit[0] is parsed:
        return hit[1]
    if len(_TYPE_TEXT) > 4096:
        _TYPE_TEXT.clear()
    text = str(parsed)
    _TYPE_TEXT[id(parsed)] = (parsed, text)
    return text


def component_summary(component: Component) -> dict[str, Any]:
    """Type name, ID and all data of a component, as plain values."""
    type_text = _type_text(component)
    try:
        data = component.data.decoded()
    except BrsonError:
        data = None  # read member by member below, for the error that names what is wrong
    if data is None:
        element_id = component.id
    else:  # the ID from the decoded Data: indexing every Data document cost more than this
        value = data.get("ID")
        element_id = value if isinstance(value, str) else None
    out: dict[str, Any] = {"type": type_text, "id": element_id}
    for key in component:
        if key not in ("Type", "Data"):  # unknown top-level keys come along too
            out[key] = component.get(key)
    out["data"] = data if data is not None else component.data.decoded()
    return out


def slot_fields(slot: Slot) -> dict[str, Any]:
    """The slot's own keys except ``Children``; ``Components`` without its list (kept apart)."""
    out: dict[str, Any] = {}
    for key in slot:
        if key == "Children":
            continue
        if key == "Components":
            member = slot.components_member
            if member is not None:
                out[key] = {k: member.get(k) for k in member if k != "Data"}
                continue
        out[key] = slot.get(key)
    return out


def bson_extended(value: Any) -> Any:
    """A BSON value Godot has no type for (datetime, ObjectId, Decimal128, regex, timestamp,
    min/max key) as its canonical Extended JSON, e.g. ``{"$date": {"$numberLong": "…"}}``.

    The engine never writes these, but an archive may hold them (``brson to-json`` keeps them
    the same way); refusing the whole export over one such field would lose everything else.
    """
    return json.loads(json_util.dumps(value, json_options=json_util.CANONICAL_JSON_OPTIONS))


def _metadata_head(slot: Slot | SlotHead) -> dict[str, Any]:
    """The slot's ID, name and tag, each when a string: the first keys of both writers'
    metadata (:func:`slot_metadata`, :func:`slot_metadata_text`); read from its
    :data:`SlotHead` when given that."""
    meta: dict[str, Any] = {}
    slot_id, name, tag = slot[:3] if isinstance(slot, tuple) else (slot.id, slot.name, slot.tag)
    if slot_id is not None:
        meta[META_ID] = slot_id
    if isinstance(name, str):
        meta[META_NAME] = name
    if isinstance(tag, str):
        meta[META_TAG] = tag
    return meta


def slot_metadata(slot: Slot) -> dict[str, Any]:
    meta = _metadata_head(slot)
    own = _own_fields(slot)
    summaries = _component_summaries(slot, own) if own is not None else None
    if summaries is None:
        summaries = [component_summary(c) for c in slot.components]
    meta[META_COMPONENTS] = summaries
    meta[META_SLOT] = _slot_fields_from(slot, own) if own is not None else slot_fields(slot)
    return meta


def _type_texts(tree: DataTree) -> tuple[str, ...] | None:
    """``str`` of each ``Types`` entry (what :func:`_type_text` prints), by index."""
    try:
        types = tree.types
    except BrsonError:
        return None
    return tuple(str(name) for name in types)


class TypeTexts:
    """:func:`_type_texts` of the tree's last ``Types`` list, for one export: kept by its
    slot nodes, not by the module, so the table goes with the export (a module cache kept
    the last tree's alive)."""

    __slots__ = ("_texts", "_types")

    def __init__(self) -> None:
        self._types: list[TypeName] | None = None
        self._texts: tuple[str, ...] | None = None

    def of(self, tree: DataTree) -> tuple[str, ...] | None:
        try:
            types = tree.types
        except BrsonError:
            return None
        if types is not self._types:
            self._texts = _type_texts(tree)
            self._types = types
        return self._texts


def slot_metadata_text(
    slot: Slot, godot: int, type_texts: TypeTexts | None = None
) -> dict[str, Any] | None:
    """:func:`slot_metadata` with the components and slot fields already written as their
    Godot ``godot`` text by the compiled writer, from the slot's bytes; None when the slot was
    edited or the writer is not sure of something in it (the Python path then writes it, or
    says what is wrong)."""
    buf = slot.buffer
    tree = slot.tree
    if _tscnc is None or slot.modified or not buf or tree is None:
        return None
    start, end = slot.span
    member = slot.components_member
    items = member.element_index().get("Data") if member is not None else None
    if items is None or items[0] != elements.ARRAY:
        if slot.components:
            return None
        items = None  # no component list: what the Python path writes for that
    return metadata_text_at(tree, (start, end), items, godot, type_texts)


def metadata_text_at(
    tree: DataTree,
    span: tuple[int, int],
    items: elements.Element | None,
    godot: int,
    type_texts: TypeTexts | None = None,
) -> dict[str, Any] | None:
    """:func:`slot_metadata_text` of the unedited slot at ``span`` of the tree's bytes whose
    ``Components`` list is the array ``items`` (None: it has no component); None when the
    compiled writer is not sure."""
    texts = _compiled_texts(tree, span, items, godot, type_texts)
    head = _tscnc.head(tree.buffer, *span) if texts is not None and _tscnc is not None else None
    if texts is None or head is None:
        return None
    meta = _metadata_head(head)
    rendered = RENDERED[godot]
    meta[META_COMPONENTS] = rendered(texts[0])
    meta[META_SLOT] = rendered(texts[1])
    return meta


def metadata_lines_at(
    tree: DataTree,
    span: tuple[int, int],
    items: elements.Element | None,
    godot: int,
    type_texts: TypeTexts | None,
    head: SlotHead,
) -> list[str] | None:
    """The TSCN lines of :func:`metadata_text_at`'s metadata, made straight from the texts
    (``head``: the slot's :data:`SlotHead`); None when the compiled writer is not sure."""
    texts = _compiled_texts(tree, span, items, godot, type_texts)
    if texts is None:
        return None
    slot_id, name, tag = head[:3]
    pairs = [(META_COMPONENTS, texts[0])]  # in sorted order, as the writer sorts keys
    if slot_id is not None:
        pairs.append((META_ID, quote(slot_id)))
    if isinstance(name, str):
        pairs.append((META_NAME, quote(name)))
    pairs.append((META_SLOT, texts[1]))
    if isinstance(tag, str):
        pairs.append((META_TAG, quote(tag)))
    return rendered_metadata(godot, pairs)


def _compiled_texts(
    tree: DataTree,
    span: tuple[int, int],
    items: elements.Element | None,
    godot: int,
    type_texts: TypeTexts | None,
) -> tuple[str, str] | None:
    """The slot's components and fields as Godot ``godot`` text, by the compiled writer."""
    buf = tree.buffer
    start, end = span
    fields = _tscnc.slot(buf, start, end, godot) if _tscnc is not None else None
    if fields is None:
        return None
    if items is None:
        return ("[  ]" if godot == 3 else "[]"), fields
    types = (type_texts or TypeTexts()).of(tree)
    if types is None:
        return None
    # every item a component {Type: index, Data: {...}}, or None (the Python path)
    components = _tscnc.components(types, buf, items[2], items[3], godot)
    return None if components is None else (components, fields)


def _own_fields(slot: Slot) -> dict[str, Any] | None:
    """The slot document without ``Children``, decoded in one C call; None when it was
    edited or does not decode (the member-by-member readers then say what is wrong).

    Why: decoding each component and slot member on its own was most of the metadata's
    cost (~15 calls a slot into pymongo, each with its own overhead)."""
    buf = slot.buffer
    if slot.modified or not buf:
        return None
    doc = elements.without_children(slot)
    try:
        return elements.decode_doc(doc, 0, len(doc))
    except BrsonError:
        return None


def _component_summaries(slot: Slot, own: dict[str, Any]) -> list[dict[str, Any]] | None:
    """:func:`component_summary` of each component, from the decoded slot (None when its
    ``Components`` is not the list of documents ``slot.components`` reads)."""
    member = own.get("Components")
    items = member.get("Data") if type(member) is dict else None
    if type(items) is not list:
        return None
    components = slot.components
    documents = [item for item in items if type(item) is dict]
    if len(documents) != len(components):
        return None
    out: list[dict[str, Any]] = []
    for component, item in zip(components, documents, strict=True):
        data = item.get("Data")
        if type(data) is not dict:
            out.append(component_summary(component))  # its error, if it has one
            continue
        element_id = data.get("ID")
        summary: dict[str, Any] = {
            "type": _type_text(component),
            "id": element_id if isinstance(element_id, str) else None,
        }
        for key, value in item.items():
            if key not in ("Type", "Data"):
                summary[key] = value
        summary["data"] = data
        out.append(summary)
    return out


def _slot_fields_from(slot: Slot, own: dict[str, Any]) -> dict[str, Any]:
    """:func:`slot_fields` from the decoded slot."""
    out: dict[str, Any] = {}
    for key in slot:
        if key == "Children":
            continue
        value = own.get(key)
        if key == "Components" and type(value) is dict:
            out[key] = {k: v for k, v in value.items() if k != "Data"}
        else:
            out[key] = value
    return out


def root_extra(tree: DataTree) -> dict[str, Any]:
    """The scene root's metadata beside its slot's: the document's fields and its assets."""
    extra: dict[str, Any] = {META_DOCUMENT: document_fields(tree)}
    if "Assets" in tree:
        extra[META_ASSETS] = [component_summary(c) for c in tree.assets]
    return extra


def document_fields(tree: DataTree) -> dict[str, Any]:
    """Root keys other than the slot tree and the assets (version, flags, type tables)."""
    return {key: tree.get(key) for key in tree if key not in ("Object", "Assets")}


def _head_matrix(head: SlotHead) -> transform.Matrix | None:
    """``slot.local_matrix()`` from the head's vectors (the same products: the same bits)."""
    vectors = head_vectors(head)
    return transform.compose(*vectors) if vectors is not None else None


def node_transform(slot: Slot, is_root: bool, head: SlotHead | None = None) -> gv.Transform3D:
    matrix = _head_matrix(head) if head is not None and not is_root else None
    try:
        if matrix is None:
            matrix = slot.global_matrix() if is_root else slot.local_matrix()
    except (TypeError, ValueError, IndexError):
        raise ModelError(
            "position, rotation or scale is not a list of numbers", path=slot.path
        ) from None
    (xx, yx, zx, ox), (xy, yy, zy, oy), (xz, yz, zz, oz) = matrix[:3]
    return gv.Transform3D(
        gv.Basis(gv.Vector3(xx, xy, xz), gv.Vector3(yx, yy, yz), gv.Vector3(zx, zy, zz)),
        gv.Vector3(ox, oy, oz),
    )


def slot_tree_value(tree: DataTree, slot: Slot | None = None) -> dict[str, Any]:
    """The tree as one Variant value: nested Dictionaries and Arrays with Transform values.

    ``{"document": {...}, "assets": [...], "root": <slot>}`` where each slot is ``{"name",
    "id", "tag", "active", "transform" (local; the root's is global), "components",
    "slot" (its other fields), "children"}``.
    """
    top = slot if slot is not None else tree.root
    root_value: dict[str, Any] = {}
    stack: list[tuple[Slot, dict[str, Any], bool]] = [(top, root_value, True)]
    while stack:
        current, out, is_root = stack.pop()
        out.update(
            name=current.name,
            id=current.id,
            tag=current.tag,
            active=current.active,
            transform=node_transform(current, is_root),
            components=[component_summary(c) for c in current.components],
            slot=slot_fields(current),
        )
        children: list[dict[str, Any]] = []
        out["children"] = children
        for child in current.children:
            child_out: dict[str, Any] = {}
            children.append(child_out)
            stack.append((child, child_out, False))
    return {
        "document": document_fields(tree),
        "assets": [component_summary(c) for c in tree.assets],
        "root": root_value,
    }


def export_variant(tree: DataTree, godot: int, slot: Slot | None = None) -> bytes:
    """``var2bytes``/``var_to_bytes`` bytes of :func:`slot_tree_value`."""
    return dumps(slot_tree_value(tree, slot), godot, default=bson_extended)


# --- scene ------------------------------------------------------------------------------------


#: Node added under the scene root by ``export_scene(..., gltf=NAME)``.
GLTF_NODE = "ResoniteMeshes"
#: Its script: Godot 4 loads a .glb at run time with GLTFDocument (a TSCN cannot refer to an
#: unimported .glb), from the scene's own folder.
GLTF_LOADER = """extends Node3D

const GLTF_FILE = "@FILE@"

func _ready():
\tvar scene_root = owner if owner != null else get_parent()
\tvar path = scene_root.scene_file_path.get_base_dir().path_join(GLTF_FILE)
\tvar document = GLTFDocument.new()
\tvar state = GLTFState.new()
\tif document.append_from_file(path, state) == OK:
\t\tadd_child(document.generate_scene(state))
\telse:
\t\tpush_error("brson: cannot load " + path)
"""


def gltf_node(file_name: str) -> SceneNode:
    """The node that shows the meshes of a glTF export (``brson.gltf``, exported with
    ``place_top=False``) in this scene's frame: glTF mirrored Z, so the node mirrors it back."""
    mirror = gv.Transform3D(
        gv.Basis(gv.Vector3(1, 0, 0), gv.Vector3(0, 1, 0), gv.Vector3(0, 0, -1)),
        gv.Vector3(0, 0, 0),
    )
    source = GLTF_LOADER.replace("@FILE@", file_name.replace("\\", "").replace('"', ""))
    script = SubResource("GDScript", {"script/source": source})
    return SceneNode(GLTF_NODE, NODE[4], {"transform": mirror, "script": script})


@paused_gc()  # a bulk pass over every slot (brson.collector)
def export_scene(
    tree: DataTree,
    godot: int,
    slot: Slot | None = None,
    on_slot: Callable[[], None] | None = None,
    gltf: str | None = None,
    assets: AssetStore | None = None,
    max_size: int = DEFAULT_MAX_SIZE,
) -> SceneExport:
    """The scene for ``slot``'s subtree (default: the whole tree) for Godot ``godot``.

    The scene root carries the slot's global transform, so every node's global transform is
    its slot's ``global_matrix()`` even when a subtree is exported.  With ``gltf`` (Godot 4:
    the file name of the same subtree's glTF export beside the scene), the real meshes come
    from that file at run time instead of primitive meshes on the nodes.  With ``assets``
    (Godot 3), ``StaticMesh`` MeshX assets become ``ArrayMesh`` sub-resources, all of them
    together within ``max_size`` bytes of mesh data (LimitError past it).
    """
    if godot not in NODE:
        raise VariantError(f"unsupported Godot version {godot!r} (use 3 or 4)")
    if gltf is not None and godot != 4:
        raise VariantError("a glTF file can be placed in Godot 4 scenes only")
    top = slot if slot is not None else tree.root
    converter = Converter(godot, Targets(tree), assets, max_size)
    type_texts = TypeTexts()
    result = SceneExport(godot, SceneNode("", NODE[godot]))
    stack: list[tuple[Slot, SceneNode | None]] = [(top, None)]
    while stack:
        current, parent = stack.pop()
        node = _node(current, godot, converter, type_texts, parent is None, meshes=gltf is None)
        if parent is None:
            node.extra.update(root_extra(tree))
            result.root = node
        else:
            parent.children.append(node)
        result.nodes.append((node, current))
        if node.type == MESH_NODE[godot]:
            result.meshes += 1
        if on_slot is not None:
            on_slot()
        stack.extend((child, node) for child in reversed(current.children))
    if gltf is not None:
        result.root.children.append(gltf_node(gltf))
    result.materials = sum(1 for m in converter.materials.values() if m is not None)
    result.notes = converter.summary()
    return result


def _node(
    slot: Slot,
    godot: int,
    converter: Converter,
    type_texts: TypeTexts,
    is_root: bool,
    meshes: bool = True,
) -> SlotNode:
    head = slot_head(slot)
    name = head[1] if head is not None else slot.name
    node = SlotNode(name if isinstance(name, str) else "", NODE[godot], slot, type_texts)
    node.properties["transform"] = node_transform(slot, is_root, head)
    if (head[3] if head is not None else slot.active) is False:
        node.properties["visible"] = False
    drawn = None
    if meshes and (head is None or converter.may_draw(slot, head[7])):
        drawn = converter.renderer(slot)
    if drawn is not None:
        mesh, material = drawn
        node.type = MESH_NODE[godot]
        node.properties["mesh"] = mesh
        if material is not None:
            node.properties["material_override"] = material
    return node
