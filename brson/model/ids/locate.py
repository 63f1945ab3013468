"""Where an ID or an ID-shaped value lives: a :class:`Location` (a slot or component and a
key path), found from a byte offset in an unmodified tree, and many of them found at once.

A :class:`Location` made from a byte offset descends from the root: right for the odd lookup,
but O(depth x siblings) each.  :func:`locate_many` walks the tree once, entering only the
elements whose byte spans hold a wanted offset, and gives the same anchors and paths from the
tree's own nodes.  :func:`runs` finds each anchor in a tree's
:class:`~brson.model.spans.ComponentSpans` with no walk, and its paths by one compiled descent
(:func:`~brson.model.spans.anchor_paths`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from brson.collector import paused_gc
from brson.document import raw
from brson.errors import ModelError
from brson.model import Component, DataTree, IdRef, Member, Slot, elements
from brson.model.component import leading_type
from brson.model.node import Node
from brson.model.spans import (
    ASSETS,
    CHAINS,
    PATHS,
    ComponentSpans,
    anchor_paths,
    document_spans,
)
from brson.model.tree import Element

#: A path inside an anchor: keys (str) and list positions (int).
Path = tuple[str | int, ...]
#: The elements a path went through (:mod:`brson.model.ids.kinds`).
Chain = tuple[elements.Element, ...]


class Location:
    """Where an element or value lives: a slot or component (the anchor) and a key path.

    Built either with both known (structural scan) or from a byte offset in an unmodified
    tree, in which case anchor and path are found on first use.
    """

    __slots__ = ("_anchor", "_offset", "_path", "_tree")

    def __init__(
        self,
        anchor: Slot | Component | None = None,
        path: Path | None = None,
        *,
        tree: DataTree | None = None,
        offset: int | None = None,
    ) -> None:
        self._anchor = anchor
        self._path = path
        self._tree = tree
        self._offset = offset

    def _locate(self) -> None:
        if self._path is None:
            assert self._tree is not None and self._offset is not None
            found = locate(self._tree, self._offset) if self._offset >= 0 else None
            self._anchor, self._path = found if found else (None, ())

    @property
    def anchor(self) -> Slot | Component | None:
        self._locate()
        return self._anchor

    @property
    def offset(self) -> int | None:
        """The byte offset this location was made from (None when built with a known anchor
        and path): callers that locate many offsets at once read it instead of locating each
        one, and byte checks next to the value need no descent."""
        return self._offset

    @property
    def is_located(self) -> bool:
        """Whether anchor and path are known (else they are found on first use)."""
        return self._path is not None

    def may_be_key(self, key: str) -> bool:
        """False when this is surely not an element named ``key``; cheap, for filtering many
        locations before locating the rest (an offset location reads its element header in
        the bytes instead of descending the tree; the full path decides afterwards)."""
        if self._path is None and self._tree is not None and self._offset is not None:
            header = b"\x02" + key.encode() + b"\x00"
            return self._offset >= 0 and self._tree.buffer.startswith(header, self._offset)
        return bool(self.path) and self.path[-1] == key

    @property
    def path(self) -> Path:
        self._locate()
        assert self._path is not None
        return self._path

    @property
    def slot(self) -> Slot | None:
        """The slot this location belongs to (a component's slot for component anchors)."""
        anchor = self.anchor
        return anchor if isinstance(anchor, Slot) else anchor.slot if anchor else None

    def set_value(self, value: Any) -> None:
        """Replace the value here, materializing nodes on the way as navigation does (a
        component's ``Data`` as its node, member documents as Members), so the edit is the
        one the model shows; ModelError when nothing is there."""
        anchor, path = self.anchor, self.path
        if anchor is None or not path:
            raise ModelError("no value at an unknown location")
        node: Node = anchor
        n = 0
        while n < len(path) - 1:
            part, nxt = path[n], path[n + 1]
            if isinstance(nxt, int):
                items: list[Any] | None = node.child_nodes(str(part), Member)
                if items is None or nxt >= len(items):
                    raise ModelError(f"no value at {path!r}")
                if n + 1 == len(path) - 1:  # a bare value inside an array
                    items[nxt] = value
                    node.touch(str(part))
                    return
                item = items[nxt]
                if not isinstance(item, Node):
                    raise ModelError(f"no value at {path!r}")
                node = item
                n += 2
                continue
            if isinstance(node, Component) and part == "Data":
                node = node.data
            else:
                child = node.child_node(str(part), Member)
                if child is None:
                    raise ModelError(f"no value at {path!r}")
                node = child
            n += 1
        node.set(str(path[-1]), value)

    def describe(self) -> str:
        """Human path: ``Root/Body:MeshRenderer.Materials[0]``.  The slot part is the
        bounded display path (exact unless over a thousand characters): a report describing
        every reference of a deep tree by full paths grew with depth squared."""
        anchor = self.anchor
        if anchor is None:
            return "<unknown>"
        return anchor_text(anchor) + path_text(self.path)

    def __repr__(self) -> str:
        return f"Location({self.describe()!r})"


def _containing(idx: dict[str, raw.Element], offset: int) -> tuple[str, raw.Element] | None:
    for key, elem in idx.items():
        if elem[1] <= offset < elem[3]:
            return key, elem
    return None


def _child_at(kids: list[Any], offset: int) -> Slot | None:
    """The child slot spanning ``offset``: bisected (children are in byte order), so locating
    many values in a wide tree costs the depth, not the number of siblings."""
    lo, hi = 0, len(kids)
    while lo < hi:
        mid = (lo + hi) // 2
        kid = kids[mid]
        if not isinstance(kid, Slot):  # not a slot list after all: look at each
            return next(
                (k for k in kids if isinstance(k, Slot) and k.span[0] <= offset < k.span[1]), None
            )
        start, end = kid.span
        if offset < start:
            hi = mid
        elif offset >= end:
            lo = mid + 1
        else:
            return kid
    return None


def locate(tree: DataTree, offset: int) -> tuple[Slot | Component, Path] | None:
    """Anchor and path of the string element starting at ``offset`` in an unmodified tree."""
    found = _containing(tree.element_index(), offset)
    if found is None:
        return None
    if found[0] == "Object":
        slot: Slot = tree.root
        while True:
            found = _containing(slot.element_index(), offset)
            if found is None:
                return None
            key = found[0]
            if key == "Children":
                kid = _child_at(slot.child_nodes("Children", Slot) or [], offset)
                if kid is None:
                    return None
                kid.tree, kid.parent = slot.tree, slot  # as Slot.children would
                slot = kid
                continue
            if key == "Components":
                for component in slot.components:
                    start, end = component.span
                    if start <= offset < end:
                        return _descend(component, offset, start, end)
            return _descend(slot, offset, *slot.span)
    if found[0] == "Assets":
        for component in tree.assets:
            start, end = component.span
            if start <= offset < end:
                return _descend(component, offset, start, end)
    return None


def _descend(
    anchor: Slot | Component, offset: int, start: int, end: int
) -> tuple[Slot | Component, Path] | None:
    """Follow the documents containing ``offset`` down to the element that starts there."""
    buf = anchor.buffer
    path: list[str | int] = []
    is_array = False
    while True:
        found = _containing(raw.index(buf, start, end), offset)
        if found is None:
            return None
        key, elem = found
        part: str | int = int(key) if is_array else key
        if elem[1] == offset:
            if key == "ID":
                return anchor, tuple(path)
            return anchor, (*path, part)
        if elem[0] not in (raw.DOCUMENT, raw.ARRAY):
            return None
        path.append(part)
        is_array = elem[0] == raw.ARRAY
        start, end = elem[2], elem[3]


def element_at(location: Location) -> Element | None:
    """Materialize the element a location names (slot, component, member or ID key)."""
    anchor, path = location.anchor, location.path
    if anchor is None:
        return None
    if not path:
        return anchor
    if isinstance(anchor, Component) and path == ("Data",):
        return anchor
    node: Node = anchor
    for i, part in enumerate(path):
        last = i == len(path) - 1
        if isinstance(part, int):
            items = node.child_nodes("Data", Member) if isinstance(node, Member) else None
            if items is None or part >= len(items) or not isinstance(items[part], Node):
                return None
            node = items[part]
        elif part == "Data" and isinstance(node, Component):
            node = node.data
        elif part == "Data" and isinstance(node, Member):
            continue
        elif (etype := node.etype(part)) == raw.STRING or (
            etype is None and isinstance(node.get(part), str)  # decode only edited values
        ):
            return IdRef(node, part) if last else None
        else:
            child = node.child_node(part, Member)
            if child is None:
                return None
            node = child
        if isinstance(node, Member):
            node.tree = anchor.tree
    return node if isinstance(node, Slot | Component | Member) else None


# -- describing locations: one rule for Location.describe and the bulk describers ----------
def anchor_text(anchor: Slot | Component) -> str:
    """The head of a description: a slot's bounded display path; for a component its slot's
    (:func:`slot_text`) and ``:`` its short type name (:func:`component_text`)."""
    if isinstance(anchor, Slot):
        return anchor.display_path()
    return component_text(slot_text(anchor.slot), type_text(anchor))


def slot_text(slot: Slot | None) -> str:
    """The slot part of a description: its bounded display path; ``<Assets>`` for a root
    asset, which has no slot."""
    return slot.display_path() if slot is not None else "<Assets>"


def component_text(slot_part: str, type_name: str) -> str:
    """A component's head: ``Root/Body:MeshRenderer``."""
    return f"{slot_part}:{type_name}"


def type_text(component: Component) -> str:
    """A component's short type name in a description; ``?`` for a ``Type`` that names no
    type (validate reports it).  A function of ``type_index`` within a tree."""
    try:
        return component.type.name
    except Exception:  # an invalid Type index is reported elsewhere
        return "?"


class TypeLabels:
    """``label(component)`` made once per ``Type`` value of one tree: a component's type
    name is a function of its ``type_index`` within a tree, and a closure or a reference
    listing names thousands of components of a few dozen types."""

    __slots__ = ("_known", "_label", "by_index")

    def __init__(self, label: Callable[[Component], str] = type_text) -> None:
        self._label = label
        #: Labels by integer ``Type`` index (every writer's form): a loop over many
        #: components reads it directly, one ``get`` with no key tuple or callable made
        #: (None, no leading index, is never a key).
        self.by_index: dict[int | None, str] = {}
        #: Labels by string ``Type`` value (a hostile file's).
        self._known: dict[str, str] = {}

    def at(self, buf: bytes, span: tuple[int, int], component: Callable[[], Component]) -> str:
        """:meth:`of` the component at ``span``, whose leading integer ``Type`` (every
        writer's first key) is read in place: its node (``component()``) is made for a new
        type only."""
        return self.known(leading_type(buf, *span), component)

    def known(self, index: int | None, component: Callable[[], Component]) -> str:
        """:meth:`at` for a leading ``Type`` index already read (None: none was)."""
        if index is not None:
            name = self.by_index.get(index)
            if name is not None:
                return name
        return self.of(component())

    def of(self, component: Component) -> str:
        type_index = component.type_index
        if type(type_index) is int:
            name = self.by_index.get(type_index)
            if name is None:
                name = self.by_index[type_index] = self._label(component)
            return name
        if type(type_index) is not str:  # hostile files hold any value (bson Code)
            return self._label(component)
        name = self._known.get(type_index)
        if name is None:
            name = self._known[type_index] = self._label(component)
        return name


def path_text(path: Path) -> str:
    """The tail of a description: ``.Materials[0]`` for ``("Data", "Materials", "Data", 0)``
    (the engine's ``Data`` and ``ID`` levels are implied)."""
    tail = ""
    for part in path:
        if isinstance(part, int):
            tail += f"[{part}]"
        elif part not in ("Data", "ID"):
            tail += f".{part}"
    return tail


# -- many locations at once, in one walk ---------------------------------------------------
#: Element items to visit: (key or list position, indexed element).
_Items = list[tuple[str | int, elements.Element]]


def locate_many(tree: DataTree, offsets: Iterable[int]) -> dict[int, Location]:
    """Anchor and key path of the element starting at each offset (unresolvable ones absent).

    Offsets are byte offsets of elements in ``tree``'s buffer, so the tree must be unmodified.
    """
    wanted = sorted(set(offsets))
    out: dict[int, Location] = {}
    if not wanted:
        return out
    with paused_gc():
        _locate(tree, wanted, out)
    return out


def located(tree: DataTree, locations: Iterable[Location | None]) -> dict[int, Location]:
    """``id(location)`` -> the location with its anchor and path known.  Locations found by
    byte offset in an unmodified tree are located together in one walk, never by one descent
    each; one that leads nowhere comes back unknown (``describe()`` "<unknown>")."""
    given = [loc for loc in locations if loc is not None]
    pending = [
        (loc, offset) for loc in given if not loc.is_located and (offset := loc.offset) is not None
    ]
    found = locate_many(tree, [offset for _, offset in pending]) if pending else {}
    unknown = Location(None, ())
    out = {id(loc): loc for loc in given}
    for loc, offset in pending:
        out[id(loc)] = found.get(offset, unknown)
    return out


def _locate(tree: DataTree, wanted: list[int], out: dict[int, Location]) -> None:
    """Locations anchored on the tree's own nodes (a component's, as its slot hands it out),
    so what comes back is identical to what navigation gives."""
    buf = tree.buffer
    owner: object = _NO_OWNER
    by_span: dict[tuple[int, int], Component] = {}
    for slot, span, items, offsets in _walk(tree, wanted):
        if span is None:
            assert slot is not None
            for offset, path in _paths(buf, items, offsets):
                out[offset] = Location(slot, path)
            continue
        if owner is not slot:
            owner = slot
            held = slot.components if slot is not None else tree.assets
            by_span = {component.span: component for component in held}
        component = by_span.get(span)
        if component is None:
            continue
        # Indexed through the component's own node: the index is kept there and reused
        # when the member is then fetched.
        index = component.element_index()
        data = index.get("Data")
        is_document = data is not None and data[0] == elements.DOCUMENT
        fields = component.data.element_index() if is_document else None
        for offset, path in _component_paths(buf, index, fields, offsets):
            out[offset] = Location(component, path)


_NO_OWNER = object()


def described(spans: ComponentSpans, offsets: Iterable[int]) -> Iterator[tuple[int, str, bool]]:
    """``(offset, Location.describe(), whether a component holds it)`` of each offset of
    ``spans``' tree that starts an element, for a reader that also needs the anchor's kind
    (extract: a reference leaving for a slot or for a component): each offset's component
    or slot is found by bisection over the spans (:func:`runs`), with no walk from the root
    through slot nodes."""
    tails: dict[Path, str] = {}  # path -> path_text(path): a type's few fields, many offsets
    for head, number, _, found in runs(spans, sorted(set(offsets))):
        for offset, path, _ in found:
            tail = tails.get(path)
            if tail is None:
                tail = tails[path] = path_text(path)
            yield offset, head + tail, number >= 0


def _component_found(
    buf: bytes, span: tuple[int, int], inside: list[int], chains: list[Chain] | None = None
) -> list[tuple[int, Path]]:
    """The paths of ``inside`` in the component at ``span``, indexed from the bytes."""
    index = elements.component_index(buf, *span)
    data = index.get("Data")
    fields = (
        elements.index(buf, data[2], data[3]) if data and data[0] == elements.DOCUMENT else None
    )
    return _component_paths(buf, index, fields, inside, chains)


def _slot_found(
    buf: bytes,
    span: tuple[int, int],
    own: list[int],
    layout: elements.Layout,
    chains: list[Chain] | None = None,
) -> tuple[list[tuple[int, Path]], elements.Layout]:
    """The paths of ``own`` (sorted offsets in the slot at ``span`` and in none of its
    components or children) as :func:`_slots` finds them: none in ``Children`` (the array's
    own bytes), those in ``Components`` by that member alone; with the layout to expect."""
    index, layout = elements.index_like(buf, *span, layout)
    children = index.get("Children")
    if children is not None and children[0] == elements.ARRAY:
        _, own = _cut(own, children)  # in no child (the array's own bytes): dropped
    found: list[tuple[int, Path]] = []
    held = index.get("Components")
    if held is not None and held[0] == elements.DOCUMENT:
        here, own = _cut(own, held)
        if here:
            found = _paths(buf, [("Components", held)], here, None, chains)
    if own:
        found += _paths(buf, list(index.items()), own, None, chains)
    return found, layout


#: One run of :func:`runs`: the anchor's head, its component's number (-1: a slot's own
#: elements), its slot's number (:data:`ASSETS` for a root asset), and ``(offset, path,
#: chain)`` of the run's offsets that lead to an element, by offset (chains empty unless
#: asked for; with ``kinds``, the rule's answer in the chain's place).
Run = tuple[str, int, int, list[tuple[int, Path, Any]]]


#: A reader of :mod:`brson.model.ids.kinds`' answer for a row C did not answer: called with
#: whether a component holds it, its key path and chain.
Kinds = Callable[[bool, Path, Chain], Any]


def runs(
    spans: ComponentSpans,
    offsets: list[int],
    chains: bool = False,
    kinds: tuple[int, Kinds] | None = None,
) -> Iterator[Run]:
    """:func:`described`'s anchors and paths in byte order, for a reader that writes each
    offset as it comes: the sorted ``offsets`` cut into runs of one anchor (a slot's own
    elements may come in two runs, around its components) by
    :meth:`~brson.model.spans.ComponentSpans.runs` (one compiled call finds the paths of
    all); the runs C is unsure of are read here.  With ``kinds`` (``SOURCE_KINDS`` or
    ``TARGET_KINDS`` of :mod:`brson.model.spans` and the reader of that rule), each row's
    third item is that rule's answer (None: unsure), C's or the reader's from the chain."""
    buf = spans.tree.buffer
    types = TypeLabels()
    labels = types.by_index
    layout: elements.Layout = ()
    mode = kinds[0] if kinds is not None else CHAINS if chains else PATHS
    trails: list[Chain] | None = [] if mode != PATHS else None
    last, slot_part = ASSETS - 1, ""
    with paused_gc():
        for number, slot, type_index, lo, hi, rows in spans.runs(offsets, mode):
            if rows is None:
                inside = offsets[lo:hi]
                span = spans.span(number) if number >= 0 else spans.slot_span(slot)
                rows = anchor_paths(buf, span, inside, trails is not None, number < 0)
                if rows is not None and kinds is not None:
                    read = kinds[1]
                    rows = [(o, path, read(number >= 0, path, trail)) for o, path, trail in rows]
            if rows is None:
                if number >= 0:
                    found = _component_found(buf, span, inside, trails)
                else:
                    found, layout = _slot_found(buf, span, inside, layout, trails)
                if trails is None:
                    rows = [(o, path, ()) for o, path in found]
                else:
                    read = kinds[1] if kinds is not None else _as_chain
                    rows = [
                        (o, path, read(number >= 0, path, trail))
                        for (o, path), trail in zip(found, trails, strict=True)
                    ]
                    trails.clear()
                if number < 0:  # the Components member's offsets came first
                    rows.sort(key=_first)
            if not rows:
                continue
            if slot != last:  # a slot's runs and its components' come one after another
                last = slot
                slot_part = "<Assets>" if slot == ASSETS else spans.slot_display_path(slot)
            if number < 0:
                yield slot_part, number, slot, rows
                continue
            label = labels.get(type_index)
            if label is None:
                label = types.known(type_index, partial(spans.component, number))
            yield component_text(slot_part, label), number, slot, rows


def _as_chain(component: bool, path: Path, chain: Chain) -> Chain:
    return chain


def _first(row: tuple[int, Path, Any]) -> int:
    return row[0]


def _between(offsets: list[int], start: int, end: int) -> list[int]:
    return offsets[bisect_left(offsets, start) : bisect_left(offsets, end)]


def _cut(offsets: list[int], elem: elements.Element) -> tuple[list[int], list[int]]:
    """``(the offsets inside the element, the others)``: two bisections, not a test each."""
    lo = bisect_left(offsets, elem[1])
    hi = bisect_left(offsets, elem[3], lo)
    if lo == hi:
        return [], offsets
    return offsets[lo:hi], offsets[:lo] + offsets[hi:]


#: One anchor's share of a walk: its slot (None for a root asset), the component's span
#: (None for the slot's own elements), those elements holding the offsets (slots), offsets.
_Segment = tuple[Slot | None, tuple[int, int] | None, _Items, list[int]]


def _walk(tree: DataTree, wanted: list[int]) -> Iterator[_Segment]:
    """Enter only the slots, components and root elements whose byte spans hold a wanted
    offset; components are found by their spans in the bytes (``Slot.components`` reads the
    same ``Components`` member), so no component node is made here."""
    buf = tree.buffer
    for key, elem in tree.element_index().items():
        inside = _between(wanted, elem[1], elem[3])
        if not inside:
            continue
        if key == "Object" and elem[0] == elements.DOCUMENT:
            yield from _slots(tree.root, buf, inside)
        elif key == "Assets" and elem[0] == elements.ARRAY:
            for span in document_spans(buf, elem):
                here = _between(inside, *span)
                if here:
                    yield None, span, [], here


def _slots(root: Slot, buf: bytes, offsets: list[int]) -> Iterator[_Segment]:
    stack: list[tuple[Slot, list[int]]] = [(root, offsets)]
    layout: elements.Layout = ()
    while stack:
        slot, inside = stack.pop()
        # From the bytes (the tree is unmodified), in one call for slots of one layout: the
        # node's own index is built key by key.
        index, layout = elements.index_like(buf, *slot.span, layout)
        own = inside  # less the subtree's and the components' offsets, cut out below
        children = index.get("Children")
        if children is not None and children[0] == elements.ARRAY:
            here, own = _cut(inside, children)
            if here:
                stack += _children_holding(slot, buf, children, here)
        held = index.get("Components")
        if held is not None and held[0] == elements.DOCUMENT:
            here, own = _cut(own, held)
            if here:
                rest = set(here)
                data = elements.member_index(buf, held[2], held[3]).get("Data")
                spans = document_spans(buf, data) if data and data[0] == elements.ARRAY else []
                for span in spans:
                    mine = _between(here, *span)
                    if mine:
                        rest.difference_update(mine)
                        yield slot, span, [], mine
                if rest:  # the Components member's own ID (and anything odd beside components)
                    yield slot, None, [("Components", held)], sorted(rest)
        if own:
            # The other elements in byte order: the descent finds each offset's element (an
            # offset in none, a length prefix, is dropped there).
            yield slot, None, list(index.items()), own


def _children_holding(
    slot: Slot, buf: bytes, children: elements.Element, offsets: list[int]
) -> list[tuple[Slot, list[int]]]:
    """The children of ``slot`` whose spans hold some of ``offsets`` (sorted, inside the
    ``Children`` element), with those offsets, in the children's order; an offset in no child
    (the array's own bytes) is dropped.  Each child holding offsets is found by bisecting
    the children's starts, so a wide slot costs its children once, not once per batch.  The
    slot's own child nodes are handed out (what navigation gives)."""
    if slot.modified:  # children held in memory: their spans are no offsets in ``buf``
        return [(kid, mine) for kid in slot.children if (mine := _between(offsets, *kid.span))]
    spans = document_spans(buf, children)
    starts = [span[0] for span in spans]
    kids = slot.children
    out: list[tuple[Slot, list[int]]] = []
    at, count = 0, len(offsets)
    while at < count:
        k = bisect_right(starts, offsets[at]) - 1
        if k < 0:  # before the first child
            at = bisect_left(offsets, starts[0], at) if starts else count
            continue
        upto = bisect_left(offsets, spans[k][1], at)
        if upto == at:  # past this child's end: on to the next child's start
            at = bisect_left(offsets, starts[k + 1], at) if k + 1 < len(starts) else count
            continue
        out.append((kids[k], offsets[at:upto]))
        at = upto
    return out


def _component_paths(
    buf: bytes,
    index: dict[str, elements.Element],
    fields: dict[str, elements.Element] | None,
    offsets: list[int],
    chains: list[Chain] | None = None,
) -> list[tuple[int, Path]]:
    """Paths inside a component from its index and its ``Data`` document's (``fields``)."""
    levels: dict[int, tuple[_Items, list[int]]] = {}
    data = index.get("Data")
    if data is not None and fields is not None:
        inner: _Items = list(fields.items())
        levels[data[2]] = (inner, [elem[1] for _, elem in inner])
    return _paths(buf, list(index.items()), offsets, levels, chains)


def _paths(
    buf: bytes,
    items: _Items,
    offsets: list[int],
    levels: dict[int, tuple[_Items, list[int]]] | None = None,
    chains: list[Chain] | None = None,
) -> list[tuple[int, Path]]:
    """Follow the documents holding each offset down to the element that starts there:
    ``(offset, key path)`` for each that does; with ``chains``, each one's elements on the
    way appended there too (:mod:`brson.model.ids.kinds` reads them).

    A level is indexed once per anchor however many offsets pass through it (a component's
    ``Data`` holds many fields and few references); members take the O(1) member index.
    """
    levels = {} if levels is None else levels
    top_starts = [elem[1] for _, elem in items]
    member_data = elements.member_data
    found: list[tuple[int, Path]] = []
    for offset in offsets:
        at = bisect_right(top_starts, offset) - 1
        if at < 0:
            continue
        part, elem = items[at]
        where: Path = ()
        trail: Chain = ()
        while True:
            etype, pos, vstart, vend = elem
            if offset >= vend:
                break  # inside no element (a document's own length prefix)
            if offset == pos:
                # Same rule as Location: an ``ID`` names the document holding it.
                found.append((offset, where if part == "ID" else (*where, part)))
                if chains is not None:
                    chains.append(trail if part == "ID" else (*trail, elem))
                break
            where = (*where, part)
            if chains is not None:
                trail = (*trail, elem)
            level = levels.get(vstart)
            if level is None:
                if etype == elements.DOCUMENT:
                    # A member (most documents): its two elements at their fixed places,
                    # what ``member_index`` gives for it, without a level kept per member.
                    data = member_data(buf, vstart, vend)
                    if data is not None:
                        if offset >= data[1]:
                            part, elem = "Data", data
                        elif offset >= vstart + 4:
                            part, elem = "ID", (elements.STRING, vstart + 4, vstart + 8, data[1])
                        else:
                            break
                        continue
                    inner: _Items = list(elements.member_index(buf, vstart, vend).items())
                elif etype == elements.ARRAY:
                    inner = list(enumerate(elements.array_items(buf, vstart, vend)))
                else:
                    break
                level = levels[vstart] = (inner, [elem[1] for _, elem in inner])
            at = bisect_right(level[1], offset) - 1
            if at < 0:
                break
            part, elem = level[0][at]
    return found
