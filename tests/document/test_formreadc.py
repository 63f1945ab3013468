"""The compiled reader's walk gives what the two Python passes give.

Differential: ``brson._speedups._formreadc.untag_restore`` replaces the JSON form's tags and
gives its numbers their recorded types in one walk; the reference is ``jsonform._untag`` then
``numberrecord.restore``. Both must leave the same document (its BSON byte for byte) and the
same report (counts and element IDs, in order) on every real sample and fixture, on
generated documents, and on forms a JSON tool changed: integral doubles printed as integers
(jq 1.6), numbers added and removed, elements added, IDs recorded twice, tagged IDs. Where
the Python path refuses, C refuses with the same error.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from brson._speedups import built
from brson.document import bsondoc, jsonform, numberrecord
from brson.errors import DocumentError
from tests.differential import check_built, loadable_trees
from tests.document.test_jsonform import _documents, values
from tests.tiers import examples

FORMREADC = built("_formreadc")
needs_c = pytest.mark.skipif(FORMREADC is None, reason="the C form reader is not built")
TREES = loadable_trees()


def test_reader_built_in_ci() -> None:
    check_built(FORMREADC, numberrecord._formreadc is not None, "brson._speedups._formreadc")


def _read(text: str, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    """(BSON, report) of loads_form through C or the Python passes; the error's text when
    it refuses."""
    with monkeypatch.context() as patch:
        patch.setattr(numberrecord, "_formreadc", FORMREADC if compiled else None)
        try:
            form = jsonform.loads_form(text)
            return bsondoc.encode(form.doc), form.numbers
        except DocumentError as exc:
            return str(exc)


def assert_same(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)


def _integral_doubles_as_ints(value: Any) -> Any:
    """What jq 1.6 prints: every integral double without its ``.0``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral_doubles_as_ints(item) for item in value]
    if isinstance(value, dict):
        return {key: _integral_doubles_as_ints(item) for key, item in value.items()}
    return value


def _edited(text: str, seed: int) -> str:
    """The form as a JSON tool might leave it: doubles re-printed, and here and there a
    number dropped or added, an element added, an ID changed or repeated."""
    rng = random.Random(seed)
    form = _integral_doubles_as_ints(json.loads(text))
    stack = [form]
    while stack:
        node = stack.pop()
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for key, item in items:
            if isinstance(item, dict | list):
                stack.append(item)
            roll = rng.random()
            if isinstance(node, list) and isinstance(item, int | float) and roll < 0.05:
                node.append(rng.choice([7, 2.5]))
            elif isinstance(node, dict) and key == "ID" and isinstance(item, str) and roll < 0.1:
                node["ID"] = rng.choice(["new-element", "ID0", item + "x"])
            elif isinstance(node, dict) and roll < 0.02:
                node[key] = {"ID": "added", "v": [1, 2]}
    return json.dumps(form)


def _form_text(data: bytes) -> str:
    """to-json's text of ``data``, with its container and number records."""
    parts: list[str] = []
    jsonform.write_bson(data, parts.append, 1, {"framing": "frdt", "codec": "none"}, None, True)
    return "".join(parts)


def _forms() -> dict[str, str]:
    """The form of every sample and fixture to-json writes (some fixtures are refused)."""
    forms = {}
    for name, tree in TREES.items():
        try:
            forms[name] = _form_text(tree.to_bson())
        except DocumentError:
            continue
    return forms


FORMS = _forms()


@needs_c
@pytest.mark.parametrize("name", sorted(FORMS))
def test_every_sample_and_fixture(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = FORMS[name]
    assert_same(text, monkeypatch)
    for seed in range(3):
        assert_same(_edited(text, seed), monkeypatch)
    without = json.loads(text)
    del without["$numbers"]
    assert_same(json.dumps(without), monkeypatch)


@needs_c
@pytest.mark.slow
@given(doc=_documents(values))
@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_generated_documents(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    text = _form_text(bsondoc.encode(doc))
    assert_same(text, monkeypatch)
    assert_same(_edited(text, len(text)), monkeypatch)


RECORD = '"$numbers": {"root": "di", "elements": [["a", "dd"], ["b", "i"], ["c", "d"]]}'


@needs_c
@pytest.mark.parametrize(
    "body",
    [
        '"x": 1, "y": 2, "e": {"ID": "a", "v": [1, 2]}',  # doubles restored
        '"x": 1, "y": 2.0, "e": {"ID": "b", "v": 2.5}',  # widened
        '"x": 1, "e": {"ID": "a", "v": [1, 2, 3]}',  # grown: all doubles still
        '"x": 1, "y": 1, "z": 1, "e": {"ID": "b", "v": [1, 2]}',  # ambiguous root
        '"e": {"ID": "zz", "v": [1, 2]}, "f": {"ID": "zy", "w": 1.5}',  # unknown
        '"e": {"ID": {"$document": {"k": 1}}, "v": [1]}',  # an ID that is no string
        '"e": {"ID": {"$symbol": "c"}, "v": [1]}',  # a tagged ID read as a string
        '"e": {"v": [1.5, 1], "ID": {"$symbol": "a"}, "w": {"ID": "b", "x": 1}, "y": 2}',
        '"e": {"v": [1.5, 1], "ID": {"$numberLong": "5"}, "w": {"ID": "b", "x": 1}, "y": 2}',
        '"e": {"v": [1], "ID": "c"}, "f": {"ID": "c", "w": {"$numberLong": "5"}}',
        '"e": {"ID": "a", "v": {"$document": {"$k": 1, "w": {"$numberDouble": "NaN"}}}}',
        '"e": [[{"ID": "a", "v": [1, {"$numberDouble": "-Infinity"}]}]], "x": 3, "y": 4',
        '"e": {"ID": "b", "v": {"$regex": "x", "$options": ""}, "w": 1}',
        '"x": 1e400, "y": 2',
        '"a": [{"$bogus": 1, "k": {"$numberLong": "x"}}], "x": 1',  # kept as it is
        '"e": {"ID": {"$document": {"$numberLong": "x"}}, "v": 1}',
        '"e": {"v": {"$numberLong": "y"}, "ID": {"$numberLong": "x"}}',
    ],
)
def test_record_cases(body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for record in (RECORD, '"$numbers": {"root": "di", "elements": [["a", "dd"], ["a", "d"]]}'):
        assert_same("{" + body + ", " + record + "}", monkeypatch)
    assert_same("{" + body + "}", monkeypatch)


@needs_c
@pytest.mark.parametrize(
    "text",
    [
        '{"a": {"$numberLong": "x"}, "$numbers": {"root": "", "elements": []}}',
        '{"a": {"$document": 1}}',
        '{"a": {"$numberLong": "x"}, "$numbers": {"root": 5, "elements": []}}',
        '{"a": 1, "$numbers": {"root": "", "elements": [["a", "q"]]}}',
        '{"a": {"ID": "e", "v": 1' + "0" * 400 + '}, "$numbers": {"root": "", '
        '"elements": [["e", "d"]]}}',
    ],
    ids=["bad-long", "bad-document", "tag-then-record", "bad-record", "huge"],
)
def test_refusals_are_the_same(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = _read(text, True, monkeypatch)
    assert isinstance(compiled, str)
    assert compiled == _read(text, False, monkeypatch)
