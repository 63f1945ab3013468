"""validate's compiled per-field loop (``brson._speedups._fieldsc``) answers as the Python
code of ``brson.ops.validate.context`` does.

Differential: ``_fieldsc.guids`` against :func:`context.all_guids_py`, and
``_fieldsc.scan_all`` against what :meth:`ComponentInfo.scan_all_py` decides (the odd keys of
each ``Data`` when every ID is a GUID, else nothing), on the decoded documents of every sample
and fixture, on mutated copies of their IDs and keys, and on hypothesis-built dicts with odd
keys, IDs and values.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from typing import Any

import bson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brson._speedups import built
from brson.api import load
from brson.model.ids.forms import DEFINING_KEY_SUFFIX, ID_KEY, holds_own_id
from brson.ops.validate import context
from brson.ops.validate.context import ComponentInfo, Context
from brson.ops.validate.findings import Findings
from tests.conftest import FIXTURES
from tests.differential import check_built, loaded_buffers
from tests.tiers import examples, sweep

_fieldsc = built("_fieldsc")
needs_c = pytest.mark.skipif(_fieldsc is None, reason="validate's C loop is not built")


def test_accelerator_built_in_ci() -> None:
    check_built(_fieldsc, context.ACCELERATED, "brson._speedups._fieldsc")


def c_guids(values: list[Any]) -> bool:
    assert _fieldsc is not None
    return _fieldsc.guids(values, context._TO_SHAPE, context._GUID_SHAPE)


def c_scan(datas: list[dict[str, Any]]) -> list[list[str]] | None:
    assert _fieldsc is not None
    return _fieldsc.scan_all(
        datas, context._TO_SHAPE, context._GUID_SHAPE, ID_KEY, DEFINING_KEY_SUFFIX
    )


@functools.cache
def _standin_context() -> Context:
    """A context for the infos to point at (scanning reads only their ``Data``): loaded once."""
    return Context(load(FIXTURES / "real" / "orange3134_loading_standin.brson"), Findings())


def py_scan(datas: list[dict[str, Any]]) -> list[list[str]] | None:
    """What the Python scan_all records: the odd keys when it sets them, else None."""
    infos = [ComponentInfo(_standin_context(), {"Data": data}, None) for data in datas]
    ComponentInfo.scan_all_py(infos)
    if any(info.scanned is None for info in infos):
        assert all(info.scanned is None for info in infos)
        return None
    return [info.scanned[0] for info in infos if info.scanned is not None]


def same(datas: list[dict[str, Any]]) -> None:
    assert c_scan(datas) == py_scan(datas)
    for data in datas:
        values = list(data.values())
        assert c_guids(values) == context.all_guids_py(values)
        ids = [v["ID"] for v in values if type(v) is dict and "ID" in v]
        assert c_guids(ids) == context.all_guids_py(ids)


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict in a decoded document, outermost first, without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            yield item
            stack.extend(reversed(list(item.values())))
        elif type(item) is list:
            stack.extend(reversed(item))


@pytest.fixture(scope="module")
def documents() -> list[dict[str, Any]]:
    """Every sample and fixture of up to 20 MB that loads, decoded."""
    out = []
    for path, buf in loaded_buffers():
        if path.stat().st_size > 20_000_000:
            continue
        try:
            out.append(bson.decode(buf))
        except Exception:  # what pymongo refuses has nothing to compare
            continue
    return out


@pytest.mark.slow
@needs_c
def test_samples_and_fixtures(documents: list[dict[str, Any]]) -> None:
    assert documents
    for doc in documents:
        dicts = list(_dicts(doc))
        for at in range(0, len(dicts), 7):
            same(dicts[at : at + 7])
        same(dicts[:500])


_VARIANTS = [
    None,
    0,
    "",
    "x",
    "00000017-0000-0000-0000-00000000000",
    "00000017-0000-0000-0000-0000000000000",
    "00000017-0000-0000-0000-00000000000g",
    "00000017-0000-0000-0000-00000000000\n",
    "00000017-0000-0000-0000-00000000000\uff10",
    "00000017-0000-0000-0000-00000000000\xe9",
    "0000001700000-0000-0000-000000000000",
    "ABCDEF17-abcd-0000-0000-000000000000",
    b"00000017-0000-0000-0000-000000000000",
    {"ID": None},
    {"Data": 1},
    {},
]


@pytest.mark.slow
@needs_c
def test_mutated(documents: list[dict[str, Any]]) -> None:
    """IDs replaced by near-GUIDs and other values, keys renamed, members emptied."""
    rng = random.Random(14)
    for doc in documents[:40]:
        dicts = [d for d in _dicts(doc) if d][:300]
        for _ in range(sweep(20, 5)):
            picked = [dict(d) for d in rng.sample(dicts, min(len(dicts), rng.randint(1, 8)))]
            for data in picked:
                for _ in range(rng.randint(0, 3)):
                    key = rng.choice(list(data)) if data else "ID"
                    roll = rng.random()
                    if roll < 0.4:
                        data[key] = rng.choice(_VARIANTS)
                    elif roll < 0.7 and type(data.get(key)) is dict:
                        data[key] = {**data[key], "ID": rng.choice(_VARIANTS)}
                    else:
                        data[rng.choice(["ID", "x-ID", "-ID", "ID-", "Id", key + "-ID"])] = (
                            data.pop(key, None)
                        )
            same(picked)


class _Str(str):
    pass


_GUID = "0a1b2c3d-4e5f-6789-abcd-ABCDEF012345"
_KEYS = st.sampled_from(
    ["ID", "-ID", "x-ID", "ID-", "Id", "ID ", "\u00e9-ID", "\U0001f600-ID", "a", "", "Data"]
)
_VALUES = st.one_of(
    st.sampled_from([*_VARIANTS, _GUID, _Str(_GUID), _GUID.lower(), _GUID.upper()]),
    st.text(alphabet="0123456789abcdefABCDEFg-\n\xe9\uff10", min_size=34, max_size=38),
    st.integers(),
    st.floats(allow_nan=False),
)
_MEMBERS = st.dictionaries(st.sampled_from(["ID", "Data", "x"]), _VALUES, max_size=3)
_DATA = st.dictionaries(_KEYS, st.one_of(_VALUES, _MEMBERS), max_size=8)


@pytest.mark.slow
@needs_c
@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_DATA, max_size=5))
def test_generated(datas: list[dict[str, Any]]) -> None:
    same(datas)


@pytest.mark.slow
@needs_c
@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_VALUES, max_size=12))
def test_generated_guids(values: list[Any]) -> None:
    assert c_guids(values) == context.all_guids_py(values)


@needs_c
def test_many_and_unexpected() -> None:
    """Past the joined path's 512 IDs (the regex), and inputs C leaves to Python."""
    assert c_guids([_GUID] * 600) is context.all_guids_py([_GUID] * 600) is True
    assert c_guids([_GUID] * 600 + ["x"]) is context.all_guids_py([_GUID] * 600 + ["x"])
    assert c_scan([{1: "x"}]) is None  # type: ignore[dict-item]
    assert c_scan([[]]) is None  # type: ignore[list-item]
    with pytest.raises(ValueError):
        _fieldsc.guids([], b"", context._GUID_SHAPE)  # type: ignore[union-attr]
    with pytest.raises(TypeError):
        c_scan(({},))  # type: ignore[arg-type]
    for id_key, suffix in (("ID", ""), ("", "-ID"), ("ID", "-\xe9"), (_Str("ID"), "-ID")):
        with pytest.raises((TypeError, ValueError)):
            _fieldsc.scan_all([], context._TO_SHAPE, context._GUID_SHAPE, id_key, suffix)  # type: ignore[union-attr]


_ANY_KEY = st.one_of(
    _KEYS, st.text(alphabet="IDd-x\u00e9\U0001f600", max_size=5), st.text(max_size=6)
)


@needs_c
@settings(max_examples=examples(400), deadline=None)
@given(_ANY_KEY)
def test_key_rule_is_the_forms_rule(key: str) -> None:
    """The C loop holds no key rule of its own: a key is checked for a GUID exactly when
    ``ids.forms.holds_own_id`` says it holds the component's ID (context passes the C loop the
    keys that function tests)."""
    assert c_scan([{key: "not a GUID"}]) == (None if holds_own_id(key) else [[key]])
    infos = [ComponentInfo(_standin_context(), {"Data": {key: "not a GUID"}}, None)]
    ComponentInfo.scan_all(infos)  # what validate calls: the C loop with context's keys
    assert (infos[0].scanned is None) == holds_own_id(key)
    assert c_scan([{key: _GUID}]) == [[] if holds_own_id(key) else [key]]


@needs_c
def test_keys_come_from_the_caller() -> None:
    """Other keys handed in are the ones tested (nothing of ids.forms' is restated in C)."""
    assert _fieldsc is not None
    table, shape = context._TO_SHAPE, context._GUID_SHAPE
    datas = [{"Key": "x", "a_key": "y", "ID": "z", "m": {"Key": "w"}}]
    assert _fieldsc.scan_all(datas, table, shape, "Key", "_key") is None
    datas = [{"Key": _GUID, "a_key": _GUID, "ID": "z", "m": {"Key": _GUID}, "n": {"ID": 1}}]
    assert _fieldsc.scan_all(datas, table, shape, "Key", "_key") == [["ID", "n"]]
