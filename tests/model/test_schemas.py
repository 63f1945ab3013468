"""The committed JSON Schemas accept the real samples and reject broken documents.

A small validator for the keywords the schemas use is written here (no jsonschema dependency),
so the schemas are checked as schemas, not only compared with what the code generates.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bson
import pytest
from bson.int64 import Int64
from pydantic import ValidationError

from brson.document import jsonform
from brson.errors import DocumentError
from brson.model.documents import SCHEMA_MODELS

from .support import PROJECT_ROOT, archive_files, ids_of, raw_components, raw_document, raw_slots

ARCHIVES = archive_files()
SCHEMAS = PROJECT_ROOT / "schemas"
TYPES: dict[str, type] = {
    "object": dict,
    "array": list,
    "string": str,
    "null": type(None),
    "boolean": bool,
}


def schema(stem: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{stem}.schema.json").read_text())
    return loaded


def errors(instance: Any, node: dict[str, Any], root: dict[str, Any], at: str = "$") -> list[str]:
    """Why ``instance`` does not match ``node`` (empty when it does)."""
    found: list[str] = []
    if "$ref" in node:
        name = node["$ref"].removeprefix("#/$defs/")
        found += errors(instance, root["$defs"][name], root, at)
    if "anyOf" in node and all(errors(instance, o, root, at) for o in node["anyOf"]):
        found.append(f"{at}: matches none of anyOf")
    if "not" in node and not errors(instance, node["not"], root, at):
        found.append(f"{at}: matches what it must not")
    kind = node.get("type")
    if kind is not None:
        if kind == "integer":
            ok = isinstance(instance, int) and not isinstance(instance, bool)
        elif kind == "number":
            ok = isinstance(instance, int | float) and not isinstance(instance, bool)
        else:
            ok = isinstance(instance, TYPES[kind]) and not (
                kind != "boolean" and isinstance(instance, bool)
            )
        if not ok:
            return [*found, f"{at}: not {kind}"]
    if "enum" in node and instance not in node["enum"]:
        found.append(f"{at}: not one of {node['enum']}")
    if isinstance(instance, str) and "pattern" in node and not re.search(node["pattern"], instance):
        found.append(f"{at}: does not match {node['pattern']}")
    if isinstance(instance, int | float) and not isinstance(instance, bool):
        if "minimum" in node and instance < node["minimum"]:
            found.append(f"{at}: below minimum")
        if "maximum" in node and instance > node["maximum"]:
            found.append(f"{at}: above maximum")
    if isinstance(instance, list) and "items" in node:
        for i, item in enumerate(instance):
            found += errors(item, node["items"], root, f"{at}[{i}]")
    if isinstance(instance, dict):
        if len(instance) < node.get("minProperties", 0):
            found.append(f"{at}: too few properties")
        if "propertyNames" in node:
            for key in instance:
                found += errors(key, node["propertyNames"], root, f"{at} key {key!r}")
        props = node.get("properties", {})
        found += [f"{at}: missing {key}" for key in node.get("required", ()) if key not in instance]
        extra = node.get("additionalProperties", True)
        for key, item in instance.items():
            if key in props:
                found += errors(item, props[key], root, f"{at}.{key}")
            elif extra is False:
                found.append(f"{at}: unexpected {key}")
            elif isinstance(extra, dict):
                found += errors(item, extra, root, f"{at}.{key}")
    return found


def check(instance: Any, stem: str) -> list[str]:
    root = schema(stem)
    return errors(instance, root, root)


def plain(value: Any) -> Any:
    """Decoded BSON as the JSON data the model schemas describe (int64 is an integer)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return int(value) if isinstance(value, Int64) else value


@pytest.mark.parametrize("path", ARCHIVES, ids=ids_of(ARCHIVES))
def test_samples_match_the_model_schemas(path: Path) -> None:
    doc = raw_document(path)
    assert check(plain(doc), "datatree") == []
    for slot, _ in raw_slots(doc):
        assert check(plain(slot), "slot") == []
    for component in raw_components(doc):
        assert check(plain(component), "component") == []
        for value in component["Data"].values():
            if isinstance(value, dict) and "ID" in value:
                assert check(plain(value), "member") == []
    SCHEMA_MODELS["datatree"].model_validate(doc)  # and pydantic agrees


def _broken() -> list[tuple[str, dict[str, Any]]]:
    doc = raw_document(ARCHIVES[0])
    out = []
    no_object = dict(doc)
    del no_object["Object"]
    out.append(("no Object", no_object))
    changes: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
        (
            "Type is a float",
            lambda d: d["Object"]["Components"]["Data"].append({"Type": 1.5, "Data": {"ID": "x"}}),
        ),
        ("member without ID", lambda d: d["Object"].__setitem__("Name", {"Data": "n"})),
        ("Children not a list", lambda d: d["Object"].__setitem__("Children", {})),
        ("Types not strings", lambda d: d.__setitem__("Types", [1, 2])),
        ("slot ID not a string", lambda d: d["Object"].__setitem__("ID", 5)),
    ]
    for what, change in changes:
        copy = bson.decode(bson.encode(doc))
        change(copy)
        out.append((what, copy))
    return out


@pytest.mark.parametrize("what", range(6))
def test_broken_documents_are_rejected(what: int) -> None:
    label, doc = _broken()[what]
    assert check(plain(doc), "datatree"), label
    with pytest.raises(ValidationError):
        SCHEMA_MODELS["datatree"].model_validate(doc)


ODD_NAN = struct.unpack("<d", bytes.fromhex("7ff8000000000001")[::-1])[0]


@pytest.mark.parametrize("path", ARCHIVES, ids=ids_of(ARCHIVES))
def test_json_form_of_samples_matches_its_schema(path: Path) -> None:
    form = json.loads(jsonform.dumps(raw_document(path)))
    assert check(form, "jsonform") == []


@pytest.mark.slow
@pytest.mark.parametrize("path", ARCHIVES, ids=ids_of(ARCHIVES))
def test_json_form_with_its_container_matches_its_schema(path: Path) -> None:
    """What to-json writes: the ``$container`` record first, then the document."""
    import brson

    container = brson.load(path).container
    assert container is not None
    record = jsonform.container_record(container)
    form = json.loads(jsonform.dumps(raw_document(path), container=record))
    assert next(iter(form)) == "$container"
    assert check(form, "jsonform") == []
    form["$container"] = {"framing": "zip", "codec": "brotli"}
    assert check(form, "jsonform")


def test_json_form_edge_values_match_its_schema() -> None:
    doc = {
        "i32": 5,
        "i64": Int64(-(2**40)),
        "f": 1.0,
        "nan": math.nan,
        "odd": ODD_NAN,
        "inf": math.inf,
        "ninf": -math.inf,
        "tagged": {"$x": 1, "y": [Int64(1)]},
        "later": {"a": 1, "$numberLong": "kept"},
        "nested": [[{"$y": None}]],
        "s": "@@x",
    }
    form = json.loads(jsonform.dumps(doc))
    assert form["odd"].keys() == {"$numberDouble", "$bits"}
    assert check(form, "jsonform") == []


@pytest.mark.parametrize(
    ("bad", "reader_rejects"),
    [
        ({"x": {"$numberLong": 5}}, False),  # the reader takes the number; the writer quotes it
        ({"x": {"$numberDouble": "nan"}}, False),  # float() reads it; the writer spells NaN
        ({"x": {"$numberDouble": "NaN", "$bits": "XYZ"}}, True),
        ({"x": {"$document": 3}}, True),
        ({"x": {"$document": {"a": 1}, "$bits": "00"}}, True),
        ([1, 2], True),
    ],
)
def test_json_form_schema_rejects_what_the_writer_never_writes(
    bad: Any, reader_rejects: bool
) -> None:
    assert check(bad, "jsonform")
    if reader_rejects:
        with pytest.raises(DocumentError):
            jsonform.loads(json.dumps(bad))
