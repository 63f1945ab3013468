"""Model layer: the data tree over lazily indexed BSON, type names, and document models.

The names are imported on first use (PEP 562), so importing one submodule (every ``import
brson.model.x`` runs this file first) does not build the pydantic document models (~100 ms
of CPU) that only validation and JSON Schema need.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from brson.model.component import Component
    from brson.model.documents import ComponentDoc, DataTreeDoc, MemberDoc, SlotDoc
    from brson.model.ids.forms import is_guid
    from brson.model.member import Member
    from brson.model.slot import Slot
    from brson.model.tree import DataTree, IdRef
    from brson.model.typename import TypeName, TypePart

#: Each public name and the module that defines it.
_EXPORTS = {
    "Component": "brson.model.component",
    "ComponentDoc": "brson.model.documents",
    "DataTree": "brson.model.tree",
    "DataTreeDoc": "brson.model.documents",
    "IdRef": "brson.model.tree",
    "Member": "brson.model.member",
    "MemberDoc": "brson.model.documents",
    "Slot": "brson.model.slot",
    "SlotDoc": "brson.model.documents",
    "TypeName": "brson.model.typename",
    "TypePart": "brson.model.typename",
    "is_guid": "brson.model.ids.forms",
}

__all__ = [
    "Component",
    "ComponentDoc",
    "DataTree",
    "DataTreeDoc",
    "IdRef",
    "Member",
    "MemberDoc",
    "Slot",
    "SlotDoc",
    "TypeName",
    "TypePart",
    "is_guid",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
