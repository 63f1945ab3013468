"""An independent view of an archive, for checking what brson wrote.

Reads with the container layer and pymongo only, and describes a document as plain data:
slots, components with their resolved type names, every value tagged with its BSON type (so
int32, int64 and double never compare equal), definitions and references.  The matrix compares
brson's outputs and reports against this view, not against brson's own model.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import bson
from bson.int64 import Int64

from .writers import Sample, components, decoded, slots

GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")


def is_guid(value: object) -> bool:
    return isinstance(value, str) and len(value) == 36 and GUID.match(value) is not None


def typed(value: Any) -> Any:
    """The value with its BSON type attached: int32, int64, double (bits), bool, string,
    null, documents (key order kept) and arrays."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, Int64):
        return ("int64", int(value))
    if isinstance(value, int):
        return ("int32", value)
    if isinstance(value, float):
        return ("double", struct.pack("<d", value))
    if isinstance(value, dict):
        return ("doc", tuple((k, typed(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", tuple(typed(v) for v in value))
    return (type(value).__name__, value)


def _is_definition(key: object) -> bool:
    return key in ("ID", "ParentReference") or (isinstance(key, str) and key.endswith("-ID"))


class Data:
    """A component's Data, or a slot's field.  Two compare equal when their BSON bytes do:
    the bytes carry what :func:`typed` tells apart (each value's BSON type and width, a
    double's bits, key order), and pymongo's C encoder writes them in a fraction of the time
    ``typed`` takes, so a view of a written file need not type every value to compare it.
    ``typed`` is the :func:`typed` form, built on first use."""

    __slots__ = ("_bson", "_typed", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self._bson: bytes | None = None
        self._typed: Any = None

    @property
    def bson(self) -> bytes:
        if self._bson is None:
            # Wrapped: pymongo moves a top-level "_id" first; a nested document keeps its order.
            self._bson = bson.encode({"": self.value})
        return self._bson

    @property
    def typed(self) -> Any:
        if self._typed is None:
            self._typed = typed(self.value)
        return self._typed

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Data) and self.bson == other.bson

    def __hash__(self) -> int:
        return hash(self.bson)

    def __repr__(self) -> str:
        return repr(self.typed)


@dataclass
class View:
    """A decoded document, indexed.  Definitions and references (a walk of every value) are
    found on first use: most views of written files are only asked about slots and types."""

    doc: dict[str, Any]
    #: Slot ID -> (name value, parent slot ID, number of components).
    slots: dict[str, tuple[Any, str | None]] = field(default_factory=dict)
    slot_order: list[str] = field(default_factory=list)
    #: Component ID -> (type name, the Type element's BSON type, its Data).
    components: dict[str, tuple[str, str, Data]] = field(default_factory=dict)
    component_order: list[str] = field(default_factory=list)
    #: Component ID -> the ID of the slot holding it (None: root Assets).
    holder: dict[str, str | None] = field(default_factory=dict)
    #: Type names used by components, and the table.
    used_types: set[str] = field(default_factory=set)
    table: list[str] | None = None
    problems: list[str] = field(default_factory=list)
    #: Slot ID -> its fields other than structure, each a :class:`Data` (built on first use).
    _slot_fields: dict[str, dict[str, Data]] | None = None

    def slot_fields(self) -> dict[str, dict[str, Data]]:
        if self._slot_fields is None:
            self._slot_fields = {
                s["ID"]: {k: Data(v) for k, v in s.items() if k not in ("Children", "Components")}
                for s, _ in slots(self.doc)
            }
        return self._slot_fields

    @cached_property
    def _ids(self) -> tuple[set[str], list[str]]:
        """(every ID defined, every ID-shaped value that is not a definition)."""
        defined: set[str] = set()
        values: list[str] = []
        held = {id(data.value): data for _, _, data in self.components.values()}
        for top in (self.doc.get("Object"), self.doc.get("Assets")):
            if type(top) is dict or type(top) is list:
                _walk_ids(top, defined, values, held)
        # A ParentReference repeating its parent's ID is a link, not a definition of its own.
        for slot, parent in slots(self.doc):
            if parent is not None and slot.get("ParentReference") == parent.get("ID"):
                values.append(parent["ID"])
        return defined, values

    @property
    def defined(self) -> set[str]:
        return self._ids[0]

    @property
    def values(self) -> list[str]:
        return self._ids[1]

    @property
    def internal(self) -> list[str]:
        return [v for v in self.values if v in self.defined]

    @property
    def external(self) -> list[str]:
        return [v for v in self.values if v not in self.defined]

    def type_count(self) -> int:
        return len(self.table) if self.table is not None else len(self.used_types)


#: A component Data's (IDs defined, other ID-shaped values), by its BSON bytes: an edit's
#: output holds most of its input's components unchanged, so each is walked once a process.
_DATA_IDS: dict[bytes, tuple[frozenset[str], tuple[str, ...]]] = {}


def _walk_ids(value: Any, defined: set[str], values: list[str], held: dict[int, Data]) -> None:
    """Add the IDs ``value`` defines and the other ID-shaped values it holds, in document
    order.  Exact types (what bson.decode builds), and only containers entered: this walk
    runs on every output whose references are checked."""
    match = GUID.match
    if type(value) is dict:
        data = held.get(id(value))
        if data is not None:
            found = _DATA_IDS.get(data.bson)
            if found is None:
                own: set[str] = set()
                listed: list[str] = []
                _walk_ids(value, own, listed, {})
                found = _DATA_IDS[data.bson] = (frozenset(own), tuple(listed))
            defined.update(found[0])
            values.extend(found[1])
            return
        for key, item in value.items():
            kind = type(item)
            if kind is str:
                if len(item) == 36 and match(item):
                    (defined.add(item) if _is_definition(key) else values.append(item))
            elif kind is dict or kind is list:
                _walk_ids(item, defined, values, held)
    else:
        for item in value:
            kind = type(item)
            if kind is str:
                if len(item) == 36 and match(item):
                    values.append(item)
            elif kind is dict or kind is list:
                _walk_ids(item, defined, values, held)


def view(doc: dict[str, Any]) -> View:
    out = View(doc)
    table = doc.get("Types")
    out.table = list(table) if isinstance(table, list) else None
    for slot, parent in slots(doc):
        sid = slot.get("ID")
        name = slot.get("Name")
        out.slots[sid] = (
            name.get("Data") if isinstance(name, dict) else name,
            parent and parent["ID"],
        )
        out.slot_order.append(sid)
        for component in slot["Components"]["Data"]:
            out.holder[component["Data"]["ID"]] = sid
    for component in components(doc):
        cid = component["Data"]["ID"]
        raw = component.get("Type")
        if isinstance(raw, str):
            name = raw
        elif isinstance(raw, int) and out.table is not None and 0 <= raw < len(out.table):
            name = out.table[raw]
        else:
            out.problems.append(f"component {cid}: Type {raw!r} names no type")
            name = repr(raw)
        out.used_types.add(name)
        out.components[cid] = (name, typed(raw)[0], Data(component["Data"]))
        out.component_order.append(cid)
        out.holder.setdefault(cid, None)
    return out


def file_view(path: Path) -> View:
    return view(decoded(Sample(path.name, path.read_bytes(), path.name)))


def type_table_problems(v: View, trimmed: bool = False) -> list[str]:
    """Type indices in range, the table without repeats, and (``trimmed``) no unused entry."""
    problems = list(v.problems)
    if v.table is not None:
        if len(set(v.table)) != len(v.table):
            problems.append("a type is listed twice")
        if trimmed and set(v.table) != v.used_types:
            problems.append(f"unused types {sorted(set(v.table) - v.used_types)}")
    return problems
