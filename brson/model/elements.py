"""The tree's BSON elements as the layers above the model may read and write them: the one door
to :mod:`brson.document.raw` above the model (an import-linter contract holds it).

Why a door: the graph, the exporters and the operations read a tree's bytes directly where the
model's objects would cost too much (spans of a whole world, the ID scan of a closure, one
pymongo call per slot).  Each such read goes through a name here, so the byte-level rules they
rely on are stated once, in :mod:`brson.document.raw`, and changing them means looking at one
list of users.  The names are the raw functions themselves, bound once (no wrapper: several run
per element on hot loops); what is expressed in the model's terms (a slot without its
children) is a function of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from brson.document import raw

if TYPE_CHECKING:
    from brson.model.node import Node

# -- element types and the values the integer types hold ---------------------------------------
STRING = raw.STRING
DOCUMENT = raw.DOCUMENT
ARRAY = raw.ARRAY
INT64 = raw.INT64
INT32_MIN, INT32_MAX = raw.INT32_MIN, raw.INT32_MAX
INT64_MIN, INT64_MAX = raw.INT64_MIN, raw.INT64_MAX

#: One indexed element: (type, element start, value start, value end).
Element = raw.Element
#: A document's key layout, to index look-alike documents (slots of one writer) faster.
Layout = raw.Layout

# -- reading: element spans, without decoding --------------------------------------------------
#: A document's elements by key, in file order.
index = raw.index
#: :data:`index`, expecting the layout of the previous look-alike document.
index_like = raw.index_like
#: A member's elements (``ID``, ``Data``); O(1) in the engine's layout.
member_index = raw.member_index
#: A member's ``Data`` element in the engine's layout, else None.
member_data = raw.member_data
#: An array's items in order.
array_items = raw.array_items
#: A component's elements (``Type``, ``Data``); O(1) in the engine's layout.
component_index = raw.component_index
#: One element's value, decoded.
scalar = raw.scalar
#: A whole sub-document, decoded by pymongo.
decode_doc = raw.decode_doc

# -- component type indices in serialized bytes (the scan of a subtree's components) ----------
COMPONENT_TYPE_INDEX = raw.COMPONENT_TYPE_INDEX
COMPONENT_TYPE_NAME = raw.COMPONENT_TYPE_NAME
component_type_indices = raw.component_type_indices
type_index_values = raw.type_index_values
#: The indices and names the two patterns find in documents, each scanned where it lies.
component_types = raw.component_types
set_type_index = raw.set_type_index

# -- writing: documents from element bytes ------------------------------------------------------
encode_element = raw.encode_element
element_header = raw.element_header
assemble = raw.assemble
#: :data:`assemble`'s pieces, not yet joined (documents nested, copied once).
document_parts = raw.document_parts
string_value = raw.string_value
int32_bytes = raw.int32_bytes


def without_children(slot: Node) -> bytes:
    """A slot's own fields as one document's bytes, its ``Children`` left out: what validate
    and export-godot decode in one pymongo call without the subtree (the slot as read, so
    callers check it is unmodified)."""
    start, end = slot.span
    return raw.without_element(slot.buffer, start, end, slot.element("Children"))
