"""The lossless JSON form of a BSON document: readable, and exact on the way back.

Plain JSON where the value is unambiguous, tags where it is not:

* int32 -> JSON integer; int64 -> ``{"$numberLong": "123"}`` (widths survive);
* double -> JSON number that always has a ``.`` or exponent (``1.0``, never ``1``), written with
  Python's shortest round-trip repr so the bits come back; NaN, +-Infinity ->
  ``{"$numberDouble": "NaN"}`` (JSON has no literal for them); a NaN whose bits are not the
  default quiet NaN -> ``{"$numberDouble": "NaN", "$bits": "7ff8..."}``;
* a document whose first key starts with ``$`` -> ``{"$document": {...}}`` so it is never
  mistaken for a tag;
* other BSON types (never written by the engine, kept anyway) -> MongoDB canonical Extended
  JSON for that value.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

from bson import json_util
from bson.int64 import Int64

from brson.document.raw import INT32_MAX, INT32_MIN
from brson.errors import DocumentError

_DEFAULT_NAN_BITS = struct.pack("<d", math.nan)
_TAGS = {"$numberLong", "$numberDouble", "$document"}


def _float_to_json(value: float) -> Any:
    if math.isnan(value):
        bits = struct.pack("<d", value)
        tagged: dict[str, str] = {"$numberDouble": "NaN"}
        if bits != _DEFAULT_NAN_BITS:
            tagged["$bits"] = bits[::-1].hex()
        return tagged
    if math.isinf(value):
        return {"$numberDouble": "Infinity" if value > 0 else "-Infinity"}
    return value


def to_jsonable(value: Any) -> Any:
    """Turn a decoded BSON value into plain JSON-able data (iteratively safe for depth)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, Int64):
        return {"$numberLong": str(int(value))}
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _float_to_json(value)
    if isinstance(value, dict):
        out = {key: to_jsonable(item) for key, item in value.items()}
        if out and next(iter(out)).startswith("$"):
            return {"$document": out}  # never read back as a tag
        return out
    if isinstance(value, list):
        return [to_jsonable(item) for item in value]
    return json.loads(json_util.dumps(value, json_options=json_util.CANONICAL_JSON_OPTIONS))


def from_jsonable(value: Any) -> Any:
    """Inverse of :func:`to_jsonable`."""
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return value if INT32_MIN <= value <= INT32_MAX else Int64(value)
    if isinstance(value, list):
        return [from_jsonable(item) for item in value]
    if isinstance(value, dict):
        keys = list(value)
        if keys and keys[0].startswith("$"):
            return _from_tag(value)
        return {key: from_jsonable(item) for key, item in value.items()}
    raise DocumentError(f"unexpected JSON value {value!r}")


def _from_tag(value: dict[str, Any]) -> Any:
    first = next(iter(value))
    if first == "$document":
        inner = value["$document"]
        if len(value) != 1 or not isinstance(inner, dict):
            raise DocumentError("$document must be the only key and hold an object")
        return {key: from_jsonable(item) for key, item in inner.items()}
    if first == "$numberLong" and len(value) == 1:
        try:
            return Int64(int(value[first]))
        except (TypeError, ValueError):
            raise DocumentError(f"bad $numberLong {value[first]!r}") from None
    if first == "$numberDouble" and set(value) <= {"$numberDouble", "$bits"}:
        if "$bits" in value:
            try:
                return struct.unpack("<d", bytes.fromhex(value["$bits"])[::-1])[0]
            except (TypeError, ValueError, struct.error):
                raise DocumentError(f"bad $bits {value['$bits']!r}") from None
        try:
            return float(value[first])
        except (TypeError, ValueError):
            raise DocumentError(f"bad $numberDouble {value[first]!r}") from None
    try:
        return json_util.loads(json.dumps(value), json_options=json_util.CANONICAL_JSON_OPTIONS)
    except Exception as exc:  # json_util raises many types for unknown tags
        raise DocumentError(f"unknown tagged JSON value {first!r} ({exc})") from None


def dumps(doc: dict[str, Any], indent: int | None = 1) -> str:
    try:
        return json.dumps(to_jsonable(doc), indent=indent, ensure_ascii=False, allow_nan=False)
    except RecursionError:
        raise DocumentError("document nesting too deep for the JSON form") from None


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` for untrusted text, failing only with ``ValueError``: syntax, encoding,
    an integer literal past Python's 4,300-digit limit (a plain ValueError) and nesting deep
    enough to exhaust the stack (a RecursionError) all become one kind of error. Every reader
    of JSON from a file (the JSON form, package records, asset metadata) goes through here."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nesting too deep") from None


def loads(text: str | bytes) -> dict[str, Any]:
    try:
        raw = parse_json(text)
    except ValueError as exc:
        raise DocumentError(f"invalid JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise DocumentError("the JSON form of a data tree must be an object")
    try:
        doc = from_jsonable(raw)
    except RecursionError:
        raise DocumentError("JSON nesting too deep") from None
    if not isinstance(doc, dict):
        raise DocumentError("the JSON form of a data tree must be an object")
    return doc
