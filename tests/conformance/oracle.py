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
from pathlib import Path
from typing import Any

from bson.int64 import Int64

from .writers import Sample, components, decoded, slots

GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")


def is_guid(value: object) -> bool:
    return isinstance(value, str) and GUID.match(value) is not None


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


@dataclass
class View:
    """A decoded document, indexed."""

    doc: dict[str, Any]
    #: Slot ID -> (name value, parent slot ID, number of components).
    slots: dict[str, tuple[Any, str | None]] = field(default_factory=dict)
    slot_order: list[str] = field(default_factory=list)
    #: Component ID -> (type name, the Type element's BSON type, typed Data).
    components: dict[str, tuple[str, str, Any]] = field(default_factory=dict)
    component_order: list[str] = field(default_factory=list)
    #: Component ID -> the ID of the slot holding it (None: root Assets).
    holder: dict[str, str | None] = field(default_factory=dict)
    defined: set[str] = field(default_factory=set)
    #: Every ID-shaped value that is not a definition.
    values: list[str] = field(default_factory=list)
    #: Type names used by components, and the table.
    used_types: set[str] = field(default_factory=set)
    table: list[str] | None = None
    problems: list[str] = field(default_factory=list)
    #: Slot ID -> its typed fields other than structure (built on first use).
    _slot_fields: dict[str, dict[str, Any]] | None = None

    def slot_fields(self) -> dict[str, dict[str, Any]]:
        if self._slot_fields is None:
            self._slot_fields = {
                s["ID"]: {k: typed(v) for k, v in s.items() if k not in ("Children", "Components")}
                for s, _ in slots(self.doc)
            }
        return self._slot_fields

    @property
    def internal(self) -> list[str]:
        return [v for v in self.values if v in self.defined]

    @property
    def external(self) -> list[str]:
        return [v for v in self.values if v not in self.defined]

    def type_count(self) -> int:
        return len(self.table) if self.table is not None else len(self.used_types)


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
        out.components[cid] = (name, typed(raw)[0], typed(component["Data"]))
        out.component_order.append(cid)
        out.holder.setdefault(cid, None)

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if is_guid(item):
                    (out.defined.add(item) if _is_definition(key) else out.values.append(item))
                else:
                    visit(item)
        elif isinstance(value, list):
            for item in value:
                if is_guid(item):
                    out.values.append(item)
                else:
                    visit(item)

    visit(doc.get("Object"))
    visit(doc.get("Assets"))
    # A ParentReference repeating its parent's ID is a link, not a definition of its own.
    for slot, parent in slots(doc):
        if parent is not None and slot.get("ParentReference") == parent.get("ID"):
            out.values.append(parent["ID"])
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
