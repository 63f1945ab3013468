"""A Godot scene of an unedited tree written as the slot table is walked, holding no node.

Why: :func:`~brson.godot.export.export_scene` makes a scene node, a slot view with its key
index and a transform object per slot, and holds them all until the text is written (Godot 3's
header counts the sub-resources, which only the whole walk knows): ~2 KiB a slot, and most of
an export's time on a world of many small slots.  Here the slots are rows of the compiled slot
walk (:class:`~brson.model.spans.SlotTable`), read from their bytes (:func:`slot_head`, the
compiled metadata writer) twice: a first pass finds the meshes and materials (the
sub-resources, listed first) and the errors the scene would raise; the second writes each
node's piece as its row is reached, from the same reads (one compiled call a node,
``_tscnc.node``, whose reference is :meth:`StreamedScene.node_text`), and lets it go.  A slot
view is made only for a row the compiled readers are not sure of, and for the renderers a mesh
comes from.

The text is :func:`export_scene`'s, byte for byte (tests/godot/test_stream.py holds it to that
on every sample); an edited tree, a tree the compiled walk is unsure of, or no compiled code:
:func:`stream_scene` returns :func:`export_scene`'s scene itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from brson._speedups import load
from brson.assets.store import AssetStore
from brson.codecs.limits import DEFAULT_MAX_SIZE
from brson.collector import paused_gc
from brson.godot import export
from brson.godot.export import (
    FALLBACK_NAME,
    GLTF_NODE,
    MESH_NODE,
    NODE,
    SceneExport,
    bson_extended,
    export_scene,
)
from brson.godot.meshes import Converter
from brson.godot.tscn import (
    MAX_SCENE_DEPTH,
    SceneText,
    check_depth,
    node_header,
    node_name,
    unique_names,
)
from brson.model import DataTree, Slot, elements, transform
from brson.model.ids.targets import Targets
from brson.model.slothead import SlotHead, head_at, head_vectors
from brson.model.spans import RowEntry, SlotTable

if TYPE_CHECKING:
    from brson._speedups import _tscnc
else:
    _tscnc = load("_tscnc")

#: Nodes' pieces are joined into chunks of about this many characters before they are
#: written: a write and an encode a node cost more than the text of a small slot.
_CHUNK = 1 << 18


class _Row(RowEntry):
    """A slot row on the walk's stack: how to make its slot view when one is needed (its
    parent's row and its place among the parent's children) and what the walk read of it."""

    __slots__ = ("depth", "head", "name", "path", "row")
    parent: _Row | None

    def __init__(
        self, row: int, parent: _Row | None, index: int, depth: int, head: SlotHead | None
    ) -> None:
        RowEntry.__init__(self, parent, index)
        self.row, self.depth, self.head = row, depth, head
        self.name = ""
        self.path = "."


class StreamedScene:
    """A scene ready to be written: its sub-resources rendered, its nodes read as written."""

    def __init__(
        self,
        tree: DataTree,
        godot: int,
        table: SlotTable,
        top: _Row,
        gltf: str | None,
    ) -> None:
        self.godot = godot
        self.node_count = 0
        self.meshes = 0
        self.materials = 0
        self.notes: list[str] = []
        self._tree = tree
        self._table = table
        self._top = top
        self._gltf = gltf
        self._text = SceneText(godot, bson_extended)
        self._type_texts = export.TypeTexts()
        #: Property lines of the rows drawn with a mesh (the only ones with sub-resources).
        self._mesh_lines: dict[int, list[str]] = {}
        self._root_lines: list[str] = []
        self._gltf_lines: list[str] = []
        self._layout: elements.Layout = ()

    # --- the first pass: sub-resources, counts, errors ----------------------------------------

    def build(self, converter: Converter, on_slot: Callable[[], None] | None) -> None:
        tree, table, text = self._tree, self._table, self._text
        buf = tree.buffer
        starts, ends = table.slot_starts, table.slot_ends
        top = self._top
        meshes = self._gltf is None
        too_deep = False
        #: may_draw's answer per tuple of component types (many slots share one)
        drawable: dict[tuple[int, ...] | None, bool] = {}
        stack = [top]
        while stack:
            entry = stack.pop()
            row = entry.row
            head = head_at(buf, starts[row], ends[row])
            # what export_scene reads of a slot, in its order, for the errors it raises
            if head is None:
                entry.view().name  # noqa: B018
            if entry is top:
                root_transform = export.node_transform(entry.view(), True, head)
                self._root_lines = text.properties({"transform": root_transform})
            elif head is None or not (
                # head_vectors(head) is not None, without making the vectors
                (head[4] is None or len(head[4]) == 3)
                and (head[5] is None or len(head[5]) == 4)
                and (head[6] is None or len(head[6]) == 3)
            ):
                export.node_transform(entry.view(), False, head)
            if head is None:
                entry.view().active  # noqa: B018
            drawn = None
            if meshes and head is not None:
                kinds = head[7]
                may = drawable.get(kinds)
                if may is None:
                    may = drawable[kinds] = converter.may_draw(top.view(), kinds)
            else:
                may = meshes
            if may:
                drawn = converter.renderer(entry.view())
            if drawn is not None:
                mesh, material = drawn
                properties: dict[str, Any] = {"mesh": mesh}
                if material is not None:
                    properties["material_override"] = material
                self._mesh_lines[row] = text.properties(properties)
                self.meshes += 1
            self.node_count += 1
            if on_slot is not None:
                on_slot()
            kids = self._kids(entry, heads=False)
            if kids and entry.depth == MAX_SCENE_DEPTH:
                too_deep = True
            stack.extend(reversed(kids))
        if self._gltf is not None:
            self._gltf_lines = text.properties(export.gltf_node(self._gltf).properties)
        if too_deep:
            check_depth(MAX_SCENE_DEPTH)
        self.materials = sum(1 for m in converter.materials.values() if m is not None)
        self.notes = converter.summary()

    # --- the second pass: the text --------------------------------------------------------------

    def tscn(self) -> str:
        return "".join(self.tscn_chunks())

    def tscn_chunks(self) -> Iterator[str]:
        """The TSCN text: the header and sub-resources, then a piece per node."""
        text, godot, tree, table = self._text, self.godot, self._tree, self._table
        buf = tree.buffer
        starts, ends, first_kid = table.slot_starts, table.slot_ends, table.first_kid
        plain, mesh_type = NODE[godot], MESH_NODE[godot]
        mesh_lines, gltf = self._mesh_lines, self._gltf
        gltf_name = GLTF_NODE
        types = self._type_texts.of(tree)
        pieces: list[str] = []
        size = 0
        named = _NodeNames(godot)
        yield text.head()
        top = self._top
        top.head = head_at(buf, starts[top.row], ends[top.row])
        name = top.head[1] if top.head is not None else top.view().name
        top.name = node_name(name if isinstance(name, str) else "", godot, FALLBACK_NAME)
        stack = [top]
        while stack:
            entry = stack.pop()
            row, head = entry.row, entry.head
            # the children, named now: a name is made unique among its siblings
            kids = self._kids(entry, heads=True) if first_kid[row] >= 0 else []
            if kids or entry is top:
                names = [named(self._name(kid_row)) for kid_row in kids]
                if entry is top and gltf is not None:
                    names.append(named(GLTF_NODE))
                if len(set(names)) != len(names):  # all distinct: unique_names keeps them
                    names = unique_names(names)
                if entry is top and gltf is not None:
                    gltf_name = names[-1]
                prefix = "" if entry.path == "." else entry.path + "/"
                for kid_row, kid_name in zip(kids, names, strict=False):
                    kid_row.name, kid_row.path = kid_name, prefix + kid_name
            parent = None if entry.parent is None else entry.parent.path
            kind = mesh_type if row in mesh_lines else plain
            last = not kids and not stack and gltf is None
            piece = None
            if parent is not None and head is not None and _tscnc is not None:
                extra = mesh_lines.get(row)
                extra_text = "\n".join(extra) if extra is not None else None
                span, name = (starts[row], ends[row]), entry.name
                piece = _tscnc.node(
                    buf, *span, godot, types, head, name, parent, kind, extra_text, last
                )
            if piece is None:
                piece = self.node_text(entry, kind, parent, last)
            entry.head = None
            pieces.append(piece)
            size += len(piece)
            if size >= _CHUNK:
                yield "".join(pieces)
                pieces, size = [], 0
            stack.extend(reversed(kids))
        if pieces:
            yield "".join(pieces)
        if gltf is not None:
            lines = [node_header(gltf_name, NODE[4], ".")]
            yield text.node(lines + self._gltf_lines, True)

    def node_text(self, entry: _Row, kind: str, parent: str | None, last: bool) -> str:
        """The row's piece of the text (its head read); ``_tscnc.node``'s reference."""
        lines = [node_header(entry.name, kind, parent)]
        lines += self._properties(entry, entry.head)
        lines += self._mesh_lines.get(entry.row, ())
        lines += self._metadata(entry, entry.head)
        return self._text.node(lines, last)

    def _kids(self, entry: _Row, heads: bool) -> list[_Row]:
        """The row's children in Children order, each with its head when ``heads``."""
        table, buf = self._table, self._tree.buffer
        starts, ends, following = table.slot_starts, table.slot_ends, table.next_sibling
        kids: list[_Row] = []
        kid, index, depth = table.first_kid[entry.row], 0, entry.depth + 1
        while kid >= 0:
            head = head_at(buf, starts[kid], ends[kid]) if heads else None
            kids.append(_Row(kid, entry, index, depth, head))
            kid, index = following[kid], index + 1
        return kids

    def _name(self, entry: _Row) -> str:
        name = entry.head[1] if entry.head is not None else entry.view().name
        return name if isinstance(name, str) else ""

    def _properties(self, entry: _Row, head: SlotHead | None) -> list[str]:
        if entry is self._top:
            lines = list(self._root_lines)
        else:
            vectors = head_vectors(head) if head is not None else None
            if vectors is None:
                value = export.node_transform(entry.view(), False, head)
                lines = self._text.properties({"transform": value})
            else:
                matrix = transform.compose(*vectors)
                (xx, yx, zx, ox), (xy, yy, zy, oy), (xz, yz, zz, oz) = matrix[:3]
                lines = [self._text.transform((xx, yx, zx, xy, yy, zy, xz, yz, zz, ox, oy, oz))]
        if (head[3] if head is not None else entry.view().active) is False:
            lines.append("visible = false")
        return lines

    def _metadata(self, entry: _Row, head: SlotHead | None) -> list[str]:
        """The row's metadata lines, as :class:`~brson.godot.export.SlotNode`'s are written."""
        tree, godot = self._tree, self.godot
        if entry is not self._top and head is not None:
            # what the slot's Components member reads: its Data, the array of components
            start, end = self._table.slot_span(entry.row)
            index, self._layout = elements.index_like(tree.buffer, start, end, self._layout)
            member = index.get("Components")
            if member is not None and member[0] == elements.DOCUMENT:
                items = elements.member_index(tree.buffer, member[2], member[3]).get("Data")
                if items is not None and items[0] == elements.ARRAY:
                    lines = export.metadata_lines_at(
                        tree, (start, end), items, godot, self._type_texts, head
                    )
                    if lines is not None:
                        return lines
        extra = export.root_extra(tree) if entry is self._top else {}
        meta = export.node_metadata(entry.view(), godot, self._type_texts, extra)
        return self._text.metadata_lines(meta)


class _NodeNames(dict[str, str]):
    """:func:`node_name` of each slot name once (copies of a subtree repeat their names)."""

    def __init__(self, godot: int) -> None:
        super().__init__()
        self.godot = godot

    def __call__(self, name: str) -> str:
        written = self.get(name)
        if written is None:
            written = self[name] = node_name(name, self.godot, FALLBACK_NAME)
        return written


@paused_gc()  # a bulk pass over every slot (brson.collector)
def stream_scene(
    tree: DataTree,
    godot: int,
    slot: Slot | None = None,
    on_slot: Callable[[], None] | None = None,
    gltf: str | None = None,
    assets: AssetStore | None = None,
    max_size: int = DEFAULT_MAX_SIZE,
) -> StreamedScene | SceneExport:
    """:func:`~brson.godot.export.export_scene`'s scene (the same arguments, the same text),
    streamed from the slot table when the tree is unedited and the compiled readers are
    there; else that function's own scene."""
    top = slot if slot is not None else tree.root
    table = None
    if export.ACCELERATED and not tree.modified and godot in NODE and (gltf is None or godot == 4):
        table = SlotTable.build(tree)
    row = _row_of(table, top) if table is not None else None
    if table is None or row is None:
        return export_scene(tree, godot, slot, on_slot, gltf, assets, max_size)
    entry = _Row(row, None, 0, 0, None)
    entry.slot = top
    scene = StreamedScene(tree, godot, table, entry, gltf)
    scene.build(Converter(godot, Targets(tree), assets, max_size), on_slot)
    return scene


def _row_of(table: SlotTable, slot: Slot) -> int | None:
    """The table's row of an unedited slot of the tree (by where its bytes start)."""
    if slot.modified or slot.tree is None or slot.buffer is not slot.tree.buffer:
        return None
    start = slot.span[0]
    try:
        return table.slot_starts.tolist().index(start)
    except ValueError:
        return None
