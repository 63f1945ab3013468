"""ID-bearing values of every BSON type (JavaScript code above all: pymongo decodes it to a
``str`` subclass spelling the same GUID, which cannot key a dict) through the commands that
index IDs.  Each is a finding or one error line, never an internal error; in this directory
so ``make test`` runs it again on the pure-Python path (BRSON_PURE_PYTHON=1)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import bson
import pytest
from bson.binary import Binary
from bson.code import Code
from bson.dbref import DBRef
from bson.decimal128 import Decimal128
from bson.int64 import Int64
from bson.min_key import MinKey
from bson.objectid import ObjectId
from bson.regex import Regex
from bson.timestamp import Timestamp

import brson
from brson.cli.app import main
from brson.model.ids.forms import is_guid
from brson.ops.validate.context import all_guids, all_guids_py
from tests.tiers import EXHAUSTIVE

STANDIN = Path(__file__).resolve().parents[2] / "fixtures" / "real"
STANDIN = STANDIN / "orange3134_loading_standin.brson"

GUID = "0000001c-0000-0000-0000-000000000000"

KINDS: dict[str, Callable[[str], Any]] = {
    "code": Code,
    "code with scope": lambda g: Code(g, {"a": 1}),
    "binary": lambda g: Binary(g.encode()),
    "regex": Regex,
    "dbref": lambda g: DBRef("c", g),
    "minkey": lambda g: MinKey(),
    "decimal128": lambda g: Decimal128("1"),
    "timestamp": lambda g: Timestamp(1, 2),
    "objectid": lambda g: ObjectId(b"\x01" * 12),
    "int64": lambda g: Int64(5),
}


def _visual(doc: dict[str, Any]) -> dict[str, Any]:
    child: dict[str, Any] = doc["Object"]["Children"][0]
    return child


#: Where an ID stands: a slot's ID, its ParentReference, a component's ID, a member's ID and a
#: reference member's Data (the root's own ID, and a ``*-ID`` key, too).
PLACES: dict[str, Callable[[dict[str, Any]], tuple[dict[str, Any], str]]] = {
    "slot ID": lambda d: (_visual(d), "ID"),
    "root ID": lambda d: (d["Object"], "ID"),
    "ParentReference": lambda d: (_visual(d), "ParentReference"),
    "Persistent-ID": lambda d: (_visual(d), "Persistent-ID"),
    "component ID": lambda d: (_visual(d)["Components"]["Data"][0]["Data"], "ID"),
    "member ID": lambda d: (_visual(d)["Name"], "ID"),
    "reference Data": lambda d: (_reference(d), "Data"),
}


def _reference(doc: dict[str, Any]) -> dict[str, Any]:
    """The first component member whose Data is an ID (a reference)."""
    for slot in [doc["Object"], *doc["Object"]["Children"]]:
        for component in slot["Components"]["Data"]:
            for member in component["Data"].values():
                if isinstance(member, dict) and _is_id(member):
                    return member
    raise AssertionError("the fixture has a reference")


def _is_id(member: dict[str, Any]) -> bool:
    data = member.get("Data")
    return type(data) is str and len(data) == 36 and data.count("-") == 4


COMMANDS = [
    ["info", "{f}"],
    ["validate", "{f}"],
    ["tree", "{f}", "--components"],
    ["refs", "{f}"],
    ["extract", "{f}", "--slot", "Visual", "-o", "{o}/e.brson"],
    ["diff", "{f}", str(STANDIN)],
    ["renumber", "{f}", "-o", "{o}/n.brson"],
]


def _cases() -> list[tuple[str, str]]:
    """Every kind at every place when exhaustive.  By default: JavaScript code (a ``str``
    spelling a GUID, the shape that once reached a dict key) with and without scope at every
    place; every kind as a slot's and a component's ID (where a DBRef, a document, reads as a
    component without an ID); each other kind at one more place, in turn."""
    places = list(PLACES)
    if EXHAUSTIVE:
        return [(kind, place) for place in places for kind in KINDS]
    cases = [(kind, place) for kind in ("code", "code with scope") for place in places]
    cases += [(kind, place) for place in ("slot ID", "component ID") for kind in KINDS]
    rest = [place for place in places if place not in ("slot ID", "component ID")]
    others = [kind for kind in KINDS if not kind.startswith("code")]
    cases += [(kind, rest[i % len(rest)]) for i, kind in enumerate(others)]
    return list(dict.fromkeys(cases))


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "place"), _cases())
def test_id_values_of_other_types_are_findings_or_errors(
    kind: str, place: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = bson.decode(brson.load(STANDIN).to_bson())
    container, key = PLACES[place](doc)
    guid = container[key] if type(container.get(key)) is str else GUID
    container[key] = KINDS[kind](guid)
    source = tmp_path / "t.bson"
    source.write_bytes(bson.encode(doc))
    for command in COMMANDS:
        args = [a.format(f=source, o=tmp_path) for a in command]
        code = main(args)
        err = capsys.readouterr().err
        assert code in (0, 1, 2) and "internal error" not in err, (args, err)
        assert len(err.strip().splitlines()) <= 1 or command[0] == "validate", (args, err)


def test_javascript_code_holding_a_guid_is_not_an_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = bson.decode(brson.load(STANDIN).to_bson())
    visual = _visual(doc)
    visual["ID"] = Code(visual["ID"])
    source = tmp_path / "t.bson"
    source.write_bytes(bson.encode(doc))
    assert main(["validate", str(source)]) == 1
    out = capsys.readouterr().out
    assert "BR408" in out and "slot ID is JavaScript code, not a GUID" in out
    guid = GUID
    assert all_guids([guid]) and all_guids_py([guid])
    assert not all_guids([guid, Code(guid)]) and not all_guids_py([guid, Code(guid)])
    assert not is_guid(Code(guid))
