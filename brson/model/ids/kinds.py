"""What a located value's source and a definition's element are (slot, component, member,
ID key), from the elements on its key path, with no node made.

The graph's ``source_of`` and ``element_at`` answer by navigating nodes (a member view per
level: most of ``brson refs --json``'s time); the same rules are read here from the element
spans the locating walk passed through (``chain``: the element of each part of the path).  Each
answer is the nodes' own, or None when these rules are not sure, and the caller asks the nodes.
"""

from __future__ import annotations

from brson.errors import BrsonError
from brson.model import elements
from brson.model.ids.locate import Chain, Path
from brson.model.member import holds_documents


class _Unsure(Exception):
    """The nodes would read more than the spans say (a decode, another layout)."""


def source_kind(
    buf: bytes,
    lists: dict[int, list[elements.Element]],
    component: bool,
    path: Path,
    chain: Chain,
) -> tuple[str, str | None] | None:
    """``(kind, member ID)`` of the innermost element holding the value at ``path`` in a
    component (else a slot): the graph's ``source_of`` (its kind and, for a member, its
    ``id``); None when unsure.  ``lists`` keeps each SyncList's items between calls."""
    try:
        return _source(buf, component, path, chain, lists)
    except (_Unsure, BrsonError):
        return None


def _source(
    buf: bytes,
    component: bool,
    path: Path,
    chain: Chain,
    lists: dict[int, list[elements.Element]],
) -> tuple[str, str | None]:
    best: elements.Element | None = None  # the member holding the value so far
    known: elements.Element | None = None  # best's ID element, where its index was read
    entered: elements.Element | None = None  # the member whose Data the path has entered
    fields = False  # the path has entered a component's Data document
    for part, elem in zip(path[:-1], chain, strict=False):
        if entered is not None:
            items = _members(buf, entered, lists)
            if items is None or type(part) is not int or not 0 <= part < len(items):
                break
            best, known, entered = items[part], None, None
        elif best is not None:
            if part != "Data":
                break
            entered = best
        elif component:
            if part == "Data" and not fields:
                fields = True
            elif fields and type(part) is str and elem[0] == elements.DOCUMENT:
                known = elements.member_index(buf, elem[2], elem[3]).get("ID")
                if known is None:
                    break
                best = elem
            else:
                break
        elif type(part) is str and elem[0] == elements.DOCUMENT:
            known = elements.member_index(buf, elem[2], elem[3]).get("ID")
            if _id_text(buf, known) is None:  # a slot's member names itself by its ID
                break
            best = elem
        else:
            break
    if best is None:
        return ("component" if component else "slot"), None
    if known is None:
        known = elements.member_index(buf, best[2], best[3]).get("ID")
    return "member", _id_text(buf, known)


def _id_text(buf: bytes, found: elements.Element | None) -> str | None:
    """A member's ID from its ``ID`` element (None: no ID, or one that is no string)."""
    if found is None:
        return None
    if found[0] != elements.STRING:
        raise _Unsure  # the model decodes it (JavaScript code spells text and is no ID)
    value = elements.scalar(buf, found)
    return value if type(value) is str else None


def _members(
    buf: bytes, member: elements.Element, lists: dict[int, list[elements.Element]]
) -> list[elements.Element] | None:
    """A SyncList member's items when every one is a member (``Member.elements``), else
    None; kept by the member's start (a list's entries reference one after another)."""
    key = member[2]
    if key in lists:
        return lists[key] or None
    data = elements.member_index(buf, member[2], member[3]).get("Data")
    items: list[elements.Element] = []
    if data is not None and data[0] == elements.ARRAY and holds_documents(buf, data):
        items = elements.array_items(buf, data[2], data[3])
        for item in items:
            if item[0] != elements.DOCUMENT:
                raise _Unsure  # the model decodes the others
            if "ID" not in elements.member_index(buf, item[2], item[3]):
                items = []
                break
    lists[key] = items
    return items or None


def target_kind(
    buf: bytes, arrays: dict[int, bool], component: bool, path: Path, chain: Chain
) -> tuple[str | None] | None:
    """``(kind,)`` of the element a definition at ``path`` names (the graph's ``element_at``:
    slot, component, member, ``id`` for an ID key, None for none); None when unsure.
    ``arrays`` keeps, by start, whether each list met holds only documents."""
    try:
        return _target(buf, component, path, chain, arrays)
    except BrsonError:
        return None


def _target(
    buf: bytes, component: bool, path: Path, chain: Chain, arrays: dict[int, bool]
) -> tuple[str | None] | None:
    if not path:
        return ("component" if component else "slot",)
    if component and path == ("Data",):
        return ("component",)
    node = "component" if component else "slot"  # or "data" (a Data node), "member"
    through = False  # the last part was a member's Data, which the model steps over
    last = len(path) - 1
    for at, (part, elem) in enumerate(zip(path, chain, strict=True)):
        if type(part) is int:
            if node != "member":
                return (None,)
            if not through or not _documents(buf, chain[at - 1], arrays):
                return None  # the model decodes the list's other items
            node, through = "member", False
        elif part == "Data" and node == "component":
            if elem[0] != elements.DOCUMENT:
                return None
            node = "data"
        elif part == "Data" and node == "member":
            if through:
                return None
            through = True
        elif through:
            return None  # the model reads the key in the member, not in its Data
        elif elem[0] == elements.STRING:
            return ("id" if at == last else None,)
        elif elem[0] != elements.DOCUMENT:
            return (None,)
        else:
            node = "member"
    return (None if node == "data" else node,)


def _documents(buf: bytes, listing: elements.Element, arrays: dict[int, bool]) -> bool:
    """Whether an array holds only documents (else the model decodes its other items)."""
    key = listing[2]
    known = arrays.get(key)
    if known is None:
        known = arrays[key] = listing[0] == elements.ARRAY and all(
            item[0] == elements.DOCUMENT
            for item in elements.array_items(buf, listing[2], listing[3])
        )
    return known
