"""Model layer: the data tree over lazily indexed BSON, type names, and document models."""

from brson.model.documents import ComponentDoc, DataTreeDoc, MemberDoc, SlotDoc
from brson.model.tree import Component, DataTree, IdRef, Member, Slot, is_guid
from brson.model.typename import TypeName, TypePart

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
