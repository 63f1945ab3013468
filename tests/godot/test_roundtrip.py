"""Round trips on generated values (hypothesis) and on the fixed engine vectors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from brson.godot import dumps, loads, loads_prefix
from tests.tiers import examples

from .cases import CASES3, CASES4, crafted, full_object, random_values
from .strategies import same, values

FAST = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _check_roundtrip(value: Any, godot: int) -> None:
    data = dumps(value, godot)
    assert len(data) % 4 == 0
    back = loads(data, godot)
    assert same(back, value)
    assert dumps(back, godot) == data


@pytest.mark.slow
@FAST
@given(values(4))
def test_roundtrip_godot4(value: Any) -> None:
    _check_roundtrip(value, 4)


@pytest.mark.slow
@FAST
@given(values(3))
def test_roundtrip_godot3(value: Any) -> None:
    _check_roundtrip(value, 3)


@pytest.mark.slow
@FAST
@given(values(4, objects=True))
def test_roundtrip_full_objects_godot4(value: Any) -> None:
    data = dumps(value, 4, full_objects=True)
    assert same(loads(data, 4, allow_objects=True), value)


@pytest.mark.slow
@FAST
@given(values(3, objects=True))
def test_roundtrip_full_objects_godot3(value: Any) -> None:
    data = dumps(value, 3, full_objects=True)
    assert same(loads(data, 3, allow_objects=True), value)


@pytest.mark.slow
@FAST
@given(values(4))
def test_double_precision_builds(value: Any) -> None:
    """Bytes from a precision=double engine decode to the same values (64-bit math fields)."""
    wide = dumps(value, 4, double_precision=True)
    assert same(loads(wide, 4), value)
    assert dumps(loads(wide, 4), 4) == dumps(value, 4)


@pytest.mark.parametrize("godot", [3, 4])
def test_fixed_cases_roundtrip(godot: int) -> None:
    for _, _, value in CASES3 if godot == 3 else CASES4:
        data = dumps(value, godot)
        assert dumps(loads(data, godot), godot) == data
    for value in random_values(godot, 300, seed=godot):
        data = dumps(value, godot)
        assert dumps(loads(data, godot), godot) == data
    obj = full_object(godot)
    assert loads(dumps(obj, godot, full_objects=True), godot, allow_objects=True) == obj


@pytest.mark.parametrize("godot", [3, 4])
def test_loads_prefix_reads_values_end_to_end(godot: int) -> None:
    items = [1, "two", [3.5, None], {"k": b"\x01"}]
    stream = b"".join(dumps(v, godot) for v in items)
    pos, out = 0, []
    while pos < len(stream):
        value, used = loads_prefix(stream[pos:], godot)
        out.append(value)
        pos += used
    assert out == items


@pytest.mark.parametrize("godot", [3, 4])
def test_accepted_crafted_inputs_reencode_stably(godot: int) -> None:
    for case in crafted(godot):
        if not case.accepted or case.python_refuses:
            continue
        value, _ = loads_prefix(case.data, godot, allow_objects=case.objects)
        once = dumps(value, godot, full_objects=case.objects)
        twice = dumps(
            loads(once, godot, allow_objects=case.objects), godot, full_objects=case.objects
        )
        assert once == twice, case.name
