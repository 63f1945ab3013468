"""JSON Schema of the lossless JSON form (:mod:`brson.document.jsonform`, ``brson to-json``).

Hand-written rather than derived from a pydantic model: the form is plain JSON plus a few
tagged objects, and what a schema can say about it is which shapes may appear where, not a
class per document.  Two rules a JSON Schema cannot express are stated in the descriptions:
key order is the BSON key order, and only a document whose *first* key starts with ``$`` is
wrapped in ``$document`` (a plain object may hold ``$``-keys after its first key).
"""

from __future__ import annotations

from typing import Any

from brson.document.raw import INT32_MAX, INT32_MIN

_VALUE = {"$ref": "#/$defs/value"}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "brson lossless JSON form",
    "description": (
        "A BSON document as written by `brson to-json` and read back by `brson from-json`, "
        "byte-identical.  Plain JSON where the BSON value is unambiguous, tagged objects where "
        "it is not.  Object key order is the BSON key order and is significant."
    ),
    "$ref": "#/$defs/document",
    "properties": {
        "$container": {"$ref": "#/$defs/container"},
        "$numbers": {"$ref": "#/$defs/numbers"},
    },
    "$defs": {
        "numbers": {
            "description": (
                "Written by to-json as the last key: the type of every number, so a JSON tool "
                "that prints 1.0 as 1 (jq 1.6) loses nothing.  `root`: the types of the numbers "
                "outside every element; `elements`: [ID, types] per element (an object whose ID "
                "is a string) holding numbers, the types of its own numbers in document order "
                "(d double, i int32); an ID listed twice with different types is not used.  "
                "from-json gives each element's numbers these types back (docs/json-form.md)."
            ),
            "type": "object",
            "properties": {
                "root": {"type": "string", "pattern": "^[di]*$"},
                "elements": {
                    "type": "array",
                    "items": {
                        "type": "array",
                        "prefixItems": [
                            {"type": "string"},
                            {"type": "string", "pattern": "^[di]+$"},
                        ],
                        "minItems": 2,
                        "maxItems": 2,
                    },
                },
            },
            "required": ["root", "elements"],
            "additionalProperties": False,
        },
        "container": {
            "description": (
                "Written by to-json as the first key: the archive the document was read from "
                "(not part of the document).  from-json writes the same framing and codec "
                "unless its options or OUT's extension say otherwise."
            ),
            "type": "object",
            "properties": {
                "framing": {"enum": ["frdt", "legacy"]},
                "codec": {"enum": ["none", "lz4", "lzma", "brotli"]},
                "lz4_framing": {"enum": ["chunks", "frame"]},
            },
            "required": ["framing", "codec"],
        },
        "value": {
            "description": "Any BSON value in its JSON form.",
            "anyOf": [
                {"type": "null"},
                {"type": "boolean"},
                {"type": "string"},
                {"$ref": "#/$defs/int32"},
                {"$ref": "#/$defs/double"},
                {"$ref": "#/$defs/numberLong"},
                {"$ref": "#/$defs/numberDouble"},
                {"$ref": "#/$defs/taggedDocument"},
                {"type": "array", "items": _VALUE},
                {"$ref": "#/$defs/document"},
            ],
        },
        "int32": {
            "description": "BSON int32.  (A reader widens integers outside this range to int64.)",
            "type": "integer",
            "minimum": INT32_MIN,
            "maximum": INT32_MAX,
        },
        "double": {
            "description": (
                "BSON double, finite.  Always written with a '.' or an exponent (1.0, never 1) "
                "in Python's shortest repr, so the exact bits come back.  (JSON Schema cannot "
                "tell 1.0 from 1; a reader takes a number without '.' or exponent as an "
                "integer: int32 when it fits, else int64.)"
            ),
            "type": "number",
        },
        "numberLong": {
            "description": "BSON int64 (NeosVR files use it for every integer; Resonite for "
            "OrderOffset).  Kept apart from int32 so widths survive.",
            "type": "object",
            "properties": {"$numberLong": {"type": "string", "pattern": "^-?[0-9]+$"}},
            "required": ["$numberLong"],
            "additionalProperties": False,
        },
        "numberDouble": {
            "description": (
                "A double JSON has no literal for.  $bits (big-endian hex of the IEEE-754 "
                "bits) is present for a NaN whose bits are not the default quiet NaN."
            ),
            "type": "object",
            "properties": {
                "$numberDouble": {"enum": ["NaN", "Infinity", "-Infinity"]},
                "$bits": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
            },
            "required": ["$numberDouble"],
            "additionalProperties": False,
        },
        "taggedDocument": {
            "description": (
                "A document whose first key starts with '$', wrapped so that it is never read "
                "as a tag."
            ),
            "type": "object",
            "properties": {"$document": {"type": "object", "additionalProperties": _VALUE}},
            "required": ["$document"],
            "additionalProperties": False,
        },
        "document": {
            "description": (
                "A BSON document (keys in BSON order; the first key does not start with '$', "
                "which a schema can only approximate: not every key starts with '$').  BSON "
                "types the engine never writes appear as MongoDB canonical Extended JSON "
                'objects ({"$binary": ...}, {"$oid": ...}), which this shape also admits.'
            ),
            "type": "object",
            "additionalProperties": _VALUE,
            "not": {"minProperties": 1, "propertyNames": {"pattern": "^[$]"}},
        },
    },
}
