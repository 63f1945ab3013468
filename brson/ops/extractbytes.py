"""The bytes :func:`brson.ops.extract.extract` writes that it does not copy from the source:
new slots laid out like a template slot with fresh IDs, and the result's trimmed ``Types``
table, applied to each piece while it is written."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import itemgetter
from typing import TYPE_CHECKING, Any, TypeVar

from bson.int64 import Int64

from brson._speedups import load
from brson.errors import ModelError
from brson.model import Component, DataTree, Slot, elements

if TYPE_CHECKING:
    from brson._speedups import _rawc
else:
    _rawc = load("_rawc")
#: Whether :meth:`SlotLayout.holder` writes with ``_rawc.holder`` (the extension built and
#: BRSON_PURE_PYTHON unset); it answers as :func:`holder_bytes` (tests/ops/test_extractbytes.py).
ACCELERATED: bool = _rawc is not None


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
        template = self._fitting(drawn)
        if template is None:
            return [
                elements.assemble(
                    self.elements(name, iter(drawn[at * count :]), components, children)
                )
                for at, (name, components) in enumerate(named)
            ]
        kids = array_parts("Children", children) if children is not None else None
        values = list(map(str.encode, drawn))
        return [
            elements.assemble(self._row(template, values[at : at + count], name, parts, kids))
            for at, (name, parts) in zip(range(0, len(values), count), named, strict=False)
        ]

    def holder(
        self,
        name: str,
        drawn: list[str],
        names: list[str],
        counts: list[int],
        components: list[bytes | memoryview],
    ) -> bytes | None:
        """:meth:`slot` ``name`` (the first ``id_count`` IDs ``drawn``) whose ``Children``
        are :meth:`slots` of ``names`` (the IDs after), child ``k`` holding the next
        ``counts[k]`` of ``components``, written in one buffer by :func:`holder_bytes` (a
        node, or a few joins, per child was most of what a big closure's holder cost).  None
        when :meth:`holder_arguments` is (then :meth:`slots`)."""
        args = self.holder_arguments(name, drawn, names, counts, components)
        if args is None:
            return None
        written = _rawc.holder(*args) if ACCELERATED else None
        return written if written is not None else holder_bytes(*args)

    def holder_arguments(
        self,
        name: str,
        drawn: list[str],
        names: list[str],
        counts: list[int],
        components: list[bytes | memoryview],
    ) -> HolderArguments | None:
        """:func:`holder_bytes`' arguments for :meth:`holder`; None when the byte template
        does not apply, the layout has no ``Children`` or ``Components``, or a name is not
        plain UTF-8 without NUL (:meth:`slots` writes such names as pymongo does)."""
        template = self._fitting(drawn)
        if template is None or template.children is None or template.components is None:
            return None
        try:
            texts = [text.encode() for text in names]
        except UnicodeEncodeError:
            return None
        count = self.id_count
        ids = "".join(drawn[count:]).encode()
        if b"\x00" in b"".join(texts) or len(ids) != len(drawn[count:]) * len(drawn[0]):
            return None
        hole = memoryview(b"")  # where the children's array goes (found by identity)
        kids: list[bytes | memoryview] = [elements.element_header(elements.ARRAY, "Children"), hole]
        own = [value.encode() for value in drawn[:count]]
        pieces = elements.document_parts(self._row(template, own, name, [], kids))
        at = next(n for n, piece in enumerate(pieces) if piece is hole)
        head, id_tail = template.id_element
        return (
            b"".join(pieces[:at]),
            b"".join(pieces[at + 1 :]),
            tuple(template.fixed),
            -1 if template.name is None else template.name,
            template.components,
            (_NAME_HEADER, head, id_tail, _DATA_HEADER, _COMPONENTS_HEADER, _DATA_ARRAY),
            ids,
            texts,
            counts,
            components,
        )

    def _fitting(self, drawn: list[str]) -> SlotTemplate | None:
        """The byte template for IDs as wide as every one ``drawn`` (None: widths differ,
        or no template)."""
        width = len(drawn[0]) if drawn else 0
        return self._template(width) if set(map(len, drawn)) == {width} else None

    @staticmethod
    def _row(
        template: SlotTemplate,
        ids: list[bytes],
        name: str,
        components: list[bytes | memoryview],
        children: list[bytes | memoryview] | None = None,
    ) -> list[bytes | memoryview]:
        """One slot's elements as pieces still to join: the template's fixed parts with
        ``ids`` between them, the ``Name`` and ``Components`` members written around their
        IDs, and ``children`` (an array element's pieces) in place of the empty
        ``Children``."""
        row: list[bytes | memoryview] = [b""] * (2 * len(ids) + 1)
        row[0::2] = template.fixed
        row[1::2] = ids
        if template.name is not None:
            row[2 * template.name + 1] = name_element(ids[template.name], name)
        # Spliced last first, so the earlier place stays where it was.
        splices: list[tuple[int, list[bytes | memoryview]]] = []
        if template.components is not None:
            head, tail = template.id_element
            own = head + ids[template.components] + tail
            member = elements.document_parts([own, *array_parts("Data", components)])
            splices.append((2 * template.components + 1, [_COMPONENTS_HEADER, *member]))
        if children is not None and template.children is not None:
            part, start, end = template.children
            text = template.fixed[part]
            splices.append((2 * part, [text[:start], *children, text[end:]]))
        for where, pieces in sorted(splices, key=itemgetter(0), reverse=True):
            row[where : where + 1] = pieces
        return row

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


#: A member document's ``ID`` and ``Data`` string elements' headers, ``Name``'s, a slot's
#: ``Components``' and a ``Data`` array's.
_ID_HEADER = elements.element_header(elements.STRING, "ID")
_DATA_HEADER = elements.element_header(elements.STRING, "Data")
_NAME_HEADER = elements.element_header(elements.DOCUMENT, "Name")
_COMPONENTS_HEADER = elements.element_header(elements.DOCUMENT, "Components")
_DATA_ARRAY = elements.element_header(elements.ARRAY, "Data")


#: :func:`holder_bytes`' arguments.
HolderArguments = tuple[
    bytes,
    bytes,
    tuple[bytes, ...],
    int,
    int,
    tuple[bytes, bytes, bytes, bytes, bytes, bytes],
    bytes,
    list[bytes],
    list[int],
    list[bytes | memoryview],
]


def holder_bytes(
    prefix: bytes,
    suffix: bytes,
    fixed: tuple[bytes, ...],
    name_at: int,
    place: int,
    parts: tuple[bytes, bytes, bytes, bytes, bytes, bytes],
    ids: bytes,
    names: list[bytes],
    counts: list[int],
    components: list[bytes | memoryview],
) -> bytes:
    """A slot document ``prefix + children + suffix`` (its length at the start of
    ``prefix`` rewritten), ``children`` the array of one slot per name: ``fixed`` with
    ``len(fixed) - 1`` IDs of ``ids`` between them (all of one width, each child's after the
    previous one's), the one at ``name_at`` (-1: none) written as ``Name: {ID, Data: name}``
    and the one at ``place`` as ``Components: {ID, Data: [the child's components]}``.
    ``parts`` are the element headers around them: ``Name``, an ``ID`` string's head (its
    length too) and tail, a ``Data`` string's, ``Components``, a ``Data`` array's.

    The reference of ``brson._speedups._rawc.holder``; names are plain UTF-8 without NUL
    (:meth:`SlotLayout.holder` checks)."""
    name_header, id_head, id_tail, text_header, member_header, array_header = parts
    count = len(fixed) - 1
    width = len(ids) // (count * len(names)) if names else 0
    values = [ids[at : at + width] for at in range(0, len(ids), width or 1)]
    int32 = elements.int32_bytes
    headers = item_headers(max(counts, default=0))
    # The Components member's length but its ID's and its Data array's.
    frame = 4 + len(id_head) + len(id_tail) + len(array_header) + 1
    member = 2 * place + 1
    row: list[bytes | memoryview] = [b""] * (2 * count + 1)
    row[0::2] = fixed
    # Few pieces a child (the join's cost is per piece): its head up to the Data array's
    # items joined, the components' views and their headers, its rest joined.
    items: list[bytes | memoryview] = [b"", b""]
    size = 0
    first = 0
    for at, kid_header, text, held in zip(
        range(0, len(values), count), item_headers(len(names)), names, counts, strict=False
    ):
        own = values[at : at + count]
        row[1::2] = own
        if name_at >= 0:
            body = id_head + own[name_at] + id_tail + text_header + elements.string_value(text)
            row[2 * name_at + 1] = name_header + int32(len(body) + 5) + body + b"\x00"
        array: list[bytes | memoryview] = [b""] * (2 * held)
        array[0::2] = headers[:held]
        array[1::2] = components[first : first + held]
        first += held
        listed = sum(map(len, array)) + 5
        whole = int32(frame + width + listed)
        row[member] = b"".join(
            (member_header, whole, id_head, own[place], id_tail, array_header, int32(listed))
        )
        # The child's length: its row, the items, the two terminators (the array's, the
        # member's) and its own frame.
        length = sum(map(len, row)) + listed + 2
        items.append(b"".join([kid_header, int32(length), *row[: member + 1]]))
        items += array
        items.append(b"".join([b"\x00\x00", *row[member + 1 :], b"\x00"]))
        size += len(kid_header) + length
    items[1] = int32(size + 5)
    items.append(b"\x00")
    items.append(suffix)
    items[0] = int32(len(prefix) + size + 5 + len(suffix)) + prefix[4:]
    return b"".join(items)


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
    body = (
        _ID_HEADER + elements.string_value(element_id) + _DATA_HEADER + elements.string_value(text)
    )
    return _NAME_HEADER + elements.int32_bytes(len(body) + 5) + body + b"\x00"


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
        spans: Iterable[tuple[int, int]],
        type_names: list[str] | None,
        slot: str,
    ) -> None:
        """The plan for a result made of the documents at ``spans`` in ``source``'s bytes
        (the subtree, then each copied component)."""
        #: What the report says of the table: entries kept, entries and versions dropped.
        self.types = 0
        self.types_dropped: list[str] = []
        self.type_versions_dropped: list[str] = []
        used_indices, names = elements.component_types(source.buffer, spans)
        named = {name.decode("utf-8", "replace") for name in names}
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
