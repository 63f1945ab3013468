"""Member values from text (the command line): numbers in the width the member has, vectors,
colours with their profile, booleans, references by ID, null; and the JSON form ``brson set``
prints (``[0.0, 1.0, 0.0]``, ``[1.0, 1.0, 1.0, 1.0, "sRGB"]``, ``{"Min": [...], ...}``).

The member's current value decides the shape when no type hint is given, so ``set`` keeps
int32 as int32, a float3 as three doubles and a colour's profile as it was.  JSON is held to
the same rule: each number keeps its field's width, and a value of another kind (``1.5`` for
an integer, ``true`` for a number, a missing key) is refused rather than converted.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from bson.int64 import Int64

from brson.errors import ModelError
from brson.model.elements import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from brson.model.ids.forms import is_guid
from brson.model.node import Node
from brson.model.tree import DataTree

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_INT_TYPES = {"int", "long", "short", "byte", "sbyte", "uint", "ulong", "ushort", "char"}
_FLOAT_TYPES = {"float", "double", "decimal"}
_VECTOR = re.compile(r"(float|double|int|long|uint|ulong|bool)([2-4])\Z")
_HEX_COLOR = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{8})\Z")
_PROFILES = ("sRGB", "Linear", "sRGBAlpha")


def parse_text(
    text: str,
    current: Any,
    type_hint: str | None = None,
    *,
    tree: DataTree | None = None,
    reference: bool = False,
    where: str | None = None,
) -> Any:
    """A value typed on the command line, read as the field's kind: from ``type_hint`` (a
    generic argument such as ``bool``, ``float3``, ``colorX``) when given, else from the
    field's current value.  ``reference``: the field holds an element's ID (checked against
    ``tree``).  ``null`` clears a reference, string or nullable field.  Raises
    :class:`ModelError` naming what was expected."""
    hint = (type_hint or "").rstrip("?")
    nullable = bool(type_hint and type_hint.endswith("?"))

    typed = text  # as given: a JSON vector is read on as its comma form

    def fail(expected: str) -> ModelError:
        return ModelError(f"{typed!r} is not {expected}", field=where)

    if reference or (not hint and (is_guid(current) or (current is None and is_guid(text)))):
        if text in ("null", ""):
            return None
        if not is_guid(text):
            raise fail("an element ID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx) or null")
        if tree is not None and text not in tree.ids:
            raise ModelError(f"no element has the ID {text}", field=where)
        return text
    if text == "null" and (
        nullable or current is None or isinstance(current, str) or hint in ("string", "Uri")
    ):
        return None
    kind = _kind(hint, current)
    if text.lstrip()[:1] in ("[", "{") and kind not in ("string", "uri"):
        value = _json(text, fail)
        if kind.startswith("vector") or kind in ("color", "colorX"):
            text = _as_list_text(value, fail)  # then read as the comma form, widths and all
        else:
            return _conform(value, current, fail)
    if kind == "bool":
        low = text.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise fail("a bool (true/false)")
    if kind == "int":
        try:
            number = int(text.strip(), 0)
        except ValueError:
            raise fail("an integer") from None
        wide = (
            isinstance(current, Int64)
            or hint in ("long", "ulong")
            or (current is None and tree is not None and tree.legacy)
        )
        smallest, largest = (INT64_MIN, INT64_MAX) if wide else (INT32_MIN, INT32_MAX)
        if not smallest <= number <= largest:
            raise ModelError(
                f"{number} does not fit the field's {64 if wide else 32}-bit integer", field=where
            )
        return Int64(number) if wide else number
    if kind == "float":
        try:
            return float(text.strip())
        except ValueError:
            raise fail("a number") from None
    if kind.startswith("vector"):
        size = int(kind[6:])
        item_kind = (
            "int"
            if hint.startswith(("int", "long", "uint", "ulong"))
            or (
                isinstance(current, list)
                and current
                and all(isinstance(v, int) and not isinstance(v, bool) for v in current)
            )
            else "float"
        )
        if hint.startswith("bool"):
            item_kind = "bool"
        parts = [p.strip() for p in text.split(",")]
        if len(parts) != size:
            raise fail(f"{size} comma-separated numbers")
        olds = current if isinstance(current, list) and len(current) == size else [None] * size
        return [
            parse_text(
                p,
                o if o is not None else (0.0 if item_kind == "float" else None),
                item_kind,
                where=where,
            )
            for p, o in zip(parts, olds, strict=True)
        ]
    if kind in ("colorX", "color"):
        return _parse_color(text, current, kind == "colorX", fail)
    if kind == "uri":
        return text if text.startswith("@") else "@" + text
    if kind == "string":
        return text
    raise ModelError(
        f"cannot set a value of this kind from text (now {current!r}"
        f"{f', type {type_hint}' if type_hint else ''})",
        field=where,
    )


def _kind(hint: str, current: Any) -> str:
    base = hint.rpartition(".")[2]
    if base == "bool":
        return "bool"
    if base in _INT_TYPES:
        return "int"
    if base in _FLOAT_TYPES:
        return "float"
    if base in ("colorX", "color"):
        return base
    if base == "floatQ" or base == "doubleQ":
        return "vector4"
    vector = _VECTOR.match(base)
    if vector:
        return f"vector{vector.group(2)}"
    if base == "Uri":
        return "uri"
    if base == "string":
        return "string"
    if isinstance(current, bool):
        return "bool"
    if isinstance(current, int):
        return "int"
    if isinstance(current, float):
        return "float"
    if isinstance(current, list) and current:
        if len(current) == 5 and isinstance(current[4], str):
            return "colorX"
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in current):
            return f"vector{len(current)}"
    if isinstance(current, str):
        return "uri" if current.startswith("@") and not current.startswith("@@") else "string"
    return "unknown"


def _parse_color(text: str, current: Any, profiled: bool, fail: Any) -> list[Any]:
    profile = current[4] if isinstance(current, list) and len(current) == 5 else "sRGB"
    hexed = _HEX_COLOR.match(text.strip())
    if hexed:
        digits = hexed.group(1)
        values = [int(digits[i : i + 2], 16) / 255 for i in range(0, len(digits), 2)]
        if len(values) == 3:
            values.append(1.0)
    else:
        parts = [p.strip() for p in text.split(",")]
        if profiled and parts and parts[-1] in _PROFILES:
            profile = parts.pop()
        if len(parts) == 3:
            parts.append("1")
        if len(parts) != 4:
            raise fail(
                "a color: r,g,b[,a]"
                + (f"[,{'|'.join(_PROFILES)}]" if profiled else "")
                + " or #rrggbb[aa]"
            )
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise fail("a color of numbers") from None
    if not all(math.isfinite(v) for v in values):
        raise fail("a finite color")
    return [*values, profile] if profiled else values


#: Nesting of a JSON value read for a member (the deepest value Resonite stores is a list of
#: records of vectors, three levels).
_JSON_DEPTH = 16


def _json(text: str, fail: Callable[[str], ModelError]) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise fail("valid JSON") from None


def _as_list_text(value: Any, fail: Callable[[str], ModelError]) -> str:
    """A JSON vector or colour as the comma form: the one reader then decides widths."""
    if not isinstance(value, list) or not all(
        isinstance(v, int | float | str) and not isinstance(v, bool) for v in value
    ):
        raise fail("a list of numbers")
    return ",".join(v if isinstance(v, str) else repr(v) for v in value)


def _conform(value: Any, current: Any, fail: Callable[[str], ModelError], depth: int = 0) -> Any:
    """A JSON value in the shape and widths of the field's current value, or refused."""
    if depth > _JSON_DEPTH:
        raise fail(f"a value nested at most {_JSON_DEPTH} levels")
    if isinstance(current, dict):
        if not isinstance(value, dict) or set(value) != set(current):
            raise fail(f"an object with the keys {', '.join(map(json.dumps, current))}")
        return {k: _conform(value[k], old, fail, depth + 1) for k, old in current.items()}
    if isinstance(current, list):
        if not isinstance(value, list):
            raise fail("a list")
        olds = [item.get("Data") if isinstance(item, Node) else item for item in current]
        if len(value) > len(olds) and not _same_shape(olds):
            raise fail(f"a list of {len(olds)} item(s)")
        return [
            _conform(v, olds[n] if n < len(olds) else olds[0], fail, depth + 1)
            for n, v in enumerate(value)
        ]
    return _scalar(value, current, fail)


def _scalar(value: Any, current: Any, fail: Callable[[str], ModelError]) -> Any:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(current, bool):
        if isinstance(value, bool):
            return value
        raise fail("true or false")
    if isinstance(current, int):
        wide = isinstance(current, Int64)
        smallest, largest = (INT64_MIN, INT64_MAX) if wide else (INT32_MIN, INT32_MAX)
        if not (isinstance(value, int) and not isinstance(value, bool)):
            raise fail("an integer")
        if not smallest <= value <= largest:
            raise fail(f"an integer that fits {64 if wide else 32} bits")
        return Int64(value) if wide else value
    if isinstance(current, float):
        if number:
            return float(value)
        raise fail("a number")
    if isinstance(current, str) or current is None:
        if value is None or isinstance(value, str):
            return value
        raise fail("a string or null" if current is None else "a string")
    raise fail(f"a value like {current!r}")


def _same_shape(items: list[Any]) -> bool:
    """Whether every item has the first one's kind, so it can stand for new ones."""
    return bool(items) and all(type(item) is type(items[0]) for item in items)
