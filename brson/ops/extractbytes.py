"""The bytes :func:`brson.ops.extract.extract` writes that it does not copy from the source:
new slots laid out like a template slot with fresh IDs, and the result's trimmed ``Types``
table, applied to each piece while it is written."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from bson.int64 import Int64

from brson.errors import ModelError
from brson.model import Component, DataTree, Slot, elements


def copy_component(component: Component) -> Component:
    """A detached node over the same bytes (adopting the original would re-parent it).  An
    unmodified component's node shares the source's buffer: copying each one's bytes first
    held the copied closure twice while the result was assembled."""
    if not component.modified:
        start, end = component.span
        return Component(component.buffer, start, end)
    data = component.to_bson()
    return Component(data, 0, len(data))


SLOT_DEFAULTS: dict[str, Any] = {
    "Tag": None,
    "Active": True,
    "Position": [0.0, 0.0, 0.0],
    "Rotation": [0.0, 0.0, 0.0, 1.0],
    "Scale": [1.0, 1.0, 1.0],
}


class SlotTemplate:
    """A slot's bytes for IDs of one width: ``fixed`` parts with the drawn IDs between them
    (one ID between each two), where the ID at ``name`` is the ``Name`` member's and the ID
    at ``components`` the ``Components`` member's, each written with its value around it."""

    __slots__ = ("children", "components", "fixed", "id_element", "name")

    def __init__(
        self,
        fixed: list[bytes],
        name: int | None,
        components: int | None,
        id_element: list[bytes],
        children: tuple[int, int, int] | None,
    ) -> None:
        self.fixed = fixed
        self.name = name
        self.components = components
        #: An ``ID`` element around the ID (the ``Components`` member's own).
        self.id_element = id_element
        #: Where the empty ``Children`` element lies: its fixed part, start and end in it.
        self.children = children


class SlotLayout:
    """New slots laid out like ``template`` (same keys, same order), every ID fresh: the
    template is read once for all of them."""

    def __init__(self, template: Slot) -> None:
        self.keys = list(template)
        old = template.get("OrderOffset") if "OrderOffset" in self.keys else None
        self.order_offset: int = (
            Int64(0) if isinstance(old, dict) and isinstance(old.get("Data"), Int64) else 0
        )
        #: Keys not understood: their values, kept (a member gets its own ID).
        self.kept = {
            key: template.get(key)
            for key in self.keys
            if key not in ("Children", "Components", "ID", "ParentReference", "Name")
            and key != "OrderOffset"
            and not key.endswith("-ID")
            and key not in SLOT_DEFAULTS
        }
        #: Byte templates by ID width (see :meth:`_template`).
        self._templates: dict[int, SlotTemplate | None] = {}
        # How many IDs a slot draws: at most one per key, counted on stand-ins.
        probe = iter(["0" * 36] * len(self.keys))
        self.elements("", probe, [])
        self.id_count = len(self.keys) - sum(1 for _ in probe)

    def slot(
        self,
        name: str,
        drawn: list[str],
        components: list[bytes | memoryview],
        children: list[bytes] | None = None,
    ) -> bytes:
        """The slot's document with the ``id_count`` IDs ``drawn`` for it (and the documents
        ``children`` in its ``Children``, else none): :meth:`elements` assembled, from the
        byte template when every ID has the template's length (a slot's ten-odd keys
        dispatched and encoded one by one were most of the holder's time)."""
        return self.slots([(name, components)], drawn, children)[0]

    def slots(
        self,
        named: list[tuple[str, list[bytes | memoryview]]],
        drawn: list[str],
        children: list[bytes] | None = None,
    ) -> list[bytes]:
        """:meth:`slot` of each ``(name, components)``, the ``id_count`` IDs of each drawn
        after the previous one's, the template looked up once for all of them (a big
        holder writes tens of thousands)."""
        count = self.id_count
        width = len(drawn[0]) if drawn else 0
        template = self._template(width) if set(map(len, drawn)) == {width} else None
        if template is None:
            return [
                elements.assemble(
                    self.elements(name, iter(drawn[at * count :]), components, children)
                )
                for at, (name, components) in enumerate(named)
            ]
        out: list[bytes | memoryview] = [b""] * (2 * count + 1)
        out[0::2] = template.fixed
        # Pieces spliced into a slot's (the Components member, the Children array), last
        # first: each document's bytes copied once, when the slot is joined.
        splices: list[tuple[int, list[bytes | memoryview]]] = []
        if children is not None and template.children is not None:
            part, start, end = template.children
            text = template.fixed[part]
            pieces = [text[:start], *array_parts("Children", children), text[end:]]
            splices.append((2 * part, pieces))
        name_at, components_at = template.name, template.components
        member_at = -1 if components_at is None else 2 * components_at + 1
        head, tail = template.id_element
        header = elements.element_header(elements.DOCUMENT, "Components")
        values = list(map(str.encode, drawn))
        made: list[bytes] = []
        at = 0
        for name, components in named:
            ids = values[at : at + count]
            at += count
            row = out.copy()
            row[1::2] = ids
            if name_at is not None:
                row[2 * name_at + 1] = name_element(ids[name_at], name)
            if components_at is not None:
                own = head + ids[components_at] + tail
                member = elements.document_parts([own, *array_parts("Data", components)])
                splices.append((member_at, [header, *member]))
            for where, pieces in sorted(splices, key=_first, reverse=True):
                row[where : where + 1] = pieces
            if components_at is not None:
                splices.pop()
            made.append(elements.assemble(row))
        return made

    def _template(self, width: int) -> SlotTemplate | None:
        """The slot's elements for IDs of ``width`` characters, from :meth:`elements` with
        stand-in IDs split at each one; None when a stand-in is not found exactly once in
        its element (then :meth:`elements` encodes)."""
        if width in self._templates:
            return self._templates[width]
        made = self._templates[width] = self._make_template(width) if width else None
        return made

    def _make_template(self, width: int) -> SlotTemplate | None:
        stand_in = "\x01" * width
        fixed: list[bytes] = []
        name = components = None
        children = None
        part = b""
        for key in self.keys:
            if key == "Children":
                empty = self._element(key, "", iter(()), [])
                children = (len(fixed), len(part), len(part) + len(empty))
                part += empty
                continue
            if key == "Name" or key == "Components":
                if key == "Name":
                    name = len(fixed)
                else:
                    components = len(fixed)
                fixed.append(part)
                part = b""
                continue
            drawn = iter([stand_in])
            pieces = self._element(key, "", drawn, []).split(stand_in.encode())
            used = next(drawn, None) is None
            if used and len(pieces) == 2:
                fixed.append(part + pieces[0])
                part = pieces[1]
            elif not used and len(pieces) == 1:
                part += pieces[0]
            else:
                return None
        fixed.append(part)
        id_element = elements.encode_element("ID", stand_in).split(stand_in.encode())
        if len(id_element) != 2:
            return None
        return SlotTemplate(fixed, name, components, id_element, children)

    def elements(
        self,
        name: str,
        ids: Iterator[str],
        components: list[bytes | memoryview],
        children: list[bytes] | None = None,
    ) -> list[bytes | memoryview]:
        """The slot's elements, one per key (``Children`` the documents ``children``, else
        empty), IDs drawn in key order."""
        return [self._element(key, name, ids, components, children) for key in self.keys]

    def _element(
        self,
        key: str,
        name: str,
        ids: Iterator[str],
        components: list[bytes | memoryview],
        children: list[bytes] | None = None,
    ) -> bytes:
        if key == "Children":
            if children is not None:
                return array_element(key, children)
            return elements.encode_element(key, [])
        if key == "Components":
            member = [elements.encode_element("ID", next(ids)), array_element("Data", components)]
            return elements.element_header(elements.DOCUMENT, key) + elements.assemble(member)
        if key == "ID" or key == "ParentReference" or key.endswith("-ID"):
            return elements.encode_element(key, next(ids))
        if key == "Name":
            return elements.encode_element(key, {"ID": next(ids), "Data": name})
        if key == "OrderOffset":
            return elements.encode_element(key, {"ID": next(ids), "Data": self.order_offset})
        if key in SLOT_DEFAULTS:
            return elements.encode_element(key, {"ID": next(ids), "Data": SLOT_DEFAULTS[key]})
        value = self.kept[key]
        if isinstance(value, dict) and "ID" in value:
            return elements.encode_element(key, {**value, "ID": next(ids)})
        return elements.encode_element(key, value)


#: A member document's ``ID`` and ``Data`` string elements' headers, and ``Name``'s.
_ID_HEADER = elements.element_header(elements.STRING, "ID")
_DATA_HEADER = elements.element_header(elements.STRING, "Data")
_NAME_HEADER = elements.element_header(elements.DOCUMENT, "Name")


def _first(splice: tuple[int, Any]) -> int:
    return splice[0]


def name_element(element_id: bytes, name: str) -> bytes:
    """``Name: {ID: element_id, Data: name}`` as pymongo encodes it, written directly (a
    pymongo call per slot was a fifth of a big holder's time); a name it would refuse or
    write otherwise (not UTF-8, a NUL) goes through it."""
    try:
        text = name.encode()
    except UnicodeEncodeError:
        text = b"\x00"
    if b"\x00" in text:
        return elements.encode_element("Name", {"ID": element_id.decode(), "Data": name})
    member = [
        _ID_HEADER + elements.string_value(element_id),
        _DATA_HEADER + elements.string_value(text),
    ]
    return _NAME_HEADER + elements.assemble(member)


def array_element(key: str, documents: list[bytes] | list[bytes | memoryview]) -> bytes:
    """An array element of documents given as bytes."""
    return b"".join(array_parts(key, documents))


def array_parts(
    key: str, documents: list[bytes] | list[bytes | memoryview]
) -> list[bytes | memoryview]:
    """:func:`array_element` as pieces still to join (the documents' bytes not copied)."""
    items: list[bytes | memoryview] = [b""] * (2 * len(documents))
    items[0::2] = item_headers(len(documents))
    items[1::2] = documents
    return [elements.element_header(elements.ARRAY, key), *elements.document_parts(items)]


#: Array items' element headers (a document at ``"0"``, ``"1"``, …) for the usual counts of
#: components on a slot, made once.
ITEM_HEADERS = [elements.element_header(elements.DOCUMENT, str(i)) for i in range(64)]


def item_headers(count: int) -> list[bytes]:
    if count <= len(ITEM_HEADERS):
        return ITEM_HEADERS[:count]
    return ITEM_HEADERS + [
        elements.element_header(elements.DOCUMENT, str(i)) for i in range(64, count)
    ]


B = TypeVar("B", bytes, memoryview)


class TypePlan:
    """The result's type table: ``Types`` trimmed to the entries its components use (in the
    source's order) and ``TypeVersions`` to the types still present, decided from the pieces
    the result is made of before it is assembled, so each piece's ``Type`` indices are
    rewritten while it is written anyway, not in a copy of the whole result afterwards
    (two extra copies of a closure of hundreds of MB).

    Indices are rewritten in the bytes: a component is ``{Type: int32 or int64, Data: {…}}``,
    so its index sits at a fixed place and changing it in its own width moves nothing else.
    """

    def __init__(
        self,
        source: DataTree,
        pieces: Iterable[bytes | memoryview],
        type_names: list[str] | None,
        slot: str,
    ) -> None:
        #: What the report says of the table: entries kept, entries and versions dropped.
        self.types = 0
        self.types_dropped: list[str] = []
        self.type_versions_dropped: list[str] = []
        found: set[tuple[bytes, bytes]] = set()
        named: set[str] = set()
        for piece in pieces:
            found.update(elements.COMPONENT_TYPE_INDEX.findall(piece))
            named.update(
                m.group(1).decode("utf-8", "replace")
                for m in elements.COMPONENT_TYPE_NAME.finditer(piece)
            )
        used_indices = elements.type_index_values(found)
        #: Root keys whose values change: ``Types``, ``TypeVersions``.
        self.changes: dict[str, Any] = {}
        self.remap: dict[int, int] = {}
        if type_names is not None:
            used = sorted(used_indices)
            bad = [i for i in used if not 0 <= i < len(type_names)]
            if bad:
                raise ModelError(
                    f"component type index {bad[0]} is out of range (Types has {len(type_names)})",
                    path=slot,
                )
            self.remap = {old: new for new, old in enumerate(used) if old != new}
            new_names = [type_names[i] for i in used]
            self.types = len(new_names)
            self.types_dropped = [n for i, n in enumerate(type_names) if i not in used_indices]
            used_names, known = set(new_names) | named, set(type_names)
            if new_names != type_names:
                self.changes["Types"] = new_names
        else:
            used_names = named
            self.types = len(used_names)
            known = set()
        versions = source.get("TypeVersions")
        if isinstance(versions, dict):
            if type_names is None and versions:
                known = {
                    m.group(1).decode("utf-8", "replace")
                    for m in elements.COMPONENT_TYPE_NAME.finditer(source.to_bson())
                }
            dropped = [k for k in versions if k in known and k not in used_names]
            if dropped:
                self.type_versions_dropped = dropped
                self.changes["TypeVersions"] = {
                    k: v for k, v in versions.items() if k not in dropped
                }

    def apply(self, data: B) -> B | bytes:
        """``data`` (a subtree, a slot, a component) with its ``Type`` indices rewritten; the
        same object when none changes."""
        if not self.remap:
            return data
        found = [f for f in elements.component_type_indices(data) if f[2] in self.remap]
        if not found:
            return data
        out = bytearray(data)
        for offset, width, old in found:
            elements.set_type_index(out, offset, width, self.remap[old])
        return bytes(out)

    def component(self, component: Component) -> Component:
        """A detached copy of ``component`` (:func:`copy_component`), its index rewritten."""
        copy = copy_component(component)
        if not self.remap:
            return copy
        data = self.apply(copy.to_bson())
        return Component(data, 0, len(data))
