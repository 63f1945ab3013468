"""The codec against the real engines: Godot 3.2.3 (godot3-server) and Godot 4 (BRSON_GODOT4).

Three directions, all byte-exact:
* engine -> brson: the engine ``var_to_bytes`` a wide set of GDScript values; ``dumps`` of the
  matching Python value must produce the same bytes and ``loads`` must read them back;
* brson -> engine: bytes from ``dumps`` (fixed cases and 300 seeded random values) are decoded
  and re-encoded by the engine, which must give back the identical bytes;
* crafted bytes: what the engine's decoder tolerates, brson's tolerates, with the documented
  deliberate exceptions.
"""

from __future__ import annotations

from typing import Any

import pytest

from brson.errors import VariantError
from brson.godot import Object, ObjectID, Signal, Transform3D, dumps, loads, loads_prefix

from .cases import CASES3, CASES4, PAD_GARBAGE3, TRS, crafted, full_object
from .conftest import EngineSession

#: Real Godot 3 and 4 runs; one worker runs them all, so each engine session starts once.
pytestmark = [pytest.mark.engine, pytest.mark.xdist_group("godot-values")]

NIL_BYTES = bytes(4)


def _session(request: pytest.FixtureRequest, major: int) -> EngineSession:
    session: EngineSession = request.getfixturevalue(f"godot{major}")
    return session


def _params(major: int, names: list[str]) -> list[Any]:
    return [pytest.param(major, name, id=f"godot{major}-{name}") for name in names]


ENGINE_VALUES = _params(3, [n for n, _, _ in CASES3]) + _params(4, [n for n, _, _ in CASES4])
PY_INPUTS = _params(3, [n for n, _, _ in CASES3]) + _params(4, [n for n, _, _ in CASES4])
CRAFTED = _params(3, [c.name for c in crafted(3)]) + _params(4, [c.name for c in crafted(4)])


def _value(major: int, name: str) -> Any:
    return next(v for n, _, v in (CASES3 if major == 3 else CASES4) if n == name)


def _nodepath_pads(data: bytes) -> set[int]:
    """Offsets of the pad bytes of a standalone encoded NodePath (3.2.3 fills them with garbage)."""
    pads: set[int] = set()
    names = int.from_bytes(data[4:8], "little") & 0x7FFFFFFF
    total = names + int.from_bytes(data[8:12], "little")
    pos = 16
    for _ in range(total):
        length = int.from_bytes(data[pos : pos + 4], "little")
        pad = -length % 4
        pads.update(range(pos + 4 + length, pos + 4 + length + pad))
        pos += 4 + length + pad
    return pads


@pytest.mark.parametrize(("major", "name"), ENGINE_VALUES)
def test_engine_bytes_equal_dumps(request: pytest.FixtureRequest, major: int, name: str) -> None:
    engine = _session(request, major).engine(name)
    value = _value(major, name)
    ours = dumps(value, major)
    if major == 3 and name in PAD_GARBAGE3:
        pads = _nodepath_pads(ours)
        assert len(ours) == len(engine)
        assert all(
            a == b for i, (a, b) in enumerate(zip(ours, engine, strict=True)) if i not in pads
        )
        assert loads(engine, 3) == value
        return
    assert ours.hex() == engine.hex()
    assert dumps(loads(engine, major), major) == engine


@pytest.mark.parametrize("major", [3, 4], ids=["godot3", "godot4"])
def test_every_engine_vector_round_trips(request: pytest.FixtureRequest, major: int) -> None:
    """dumps(loads(b)) == b for every value the engine encoded in this run, whatever the case
    list says about it (objects, signals, computed transforms included).  Only 3.2.3's
    NodePaths differ, in the pad bytes it leaves uninitialised."""
    session = _session(request, major)
    vectors = sorted(session.run.directory.glob("e_*.bin"))
    assert len(vectors) >= len(CASES3 if major == 3 else CASES4) + 5
    for path in vectors:
        data, name = path.read_bytes(), path.stem.removeprefix("e_")
        objects = name == "object_full"
        value = loads(data, major, allow_objects=objects)
        again = dumps(value, major, full_objects=objects)
        if major == 3 and name in PAD_GARBAGE3:
            assert len(again) == len(data) and loads(again, 3) == value, name
        else:
            assert again.hex() == data.hex(), name


@pytest.mark.parametrize(("major", "name"), PY_INPUTS)
def test_engine_reads_dumps(request: pytest.FixtureRequest, major: int, name: str) -> None:
    session = _session(request, major)
    if major == 3 and name in PAD_GARBAGE3:
        assert loads(session.reencoded(f"py_{name}"), 3) == _value(3, name)
        return
    assert session.reencoded(f"py_{name}").hex() == session.inputs[f"py_{name}"].hex()


@pytest.mark.parametrize("major", [3, 4])
def test_engine_reads_random_dumps(request: pytest.FixtureRequest, major: int) -> None:
    session = _session(request, major)
    assert len(session.random) >= 300
    mismatches = [n for n in session.random if session.reencoded(n) != session.inputs[n]]
    assert not mismatches, [(n, session.random[n]) for n in mismatches[:5]]


@pytest.mark.parametrize("major", [3, 4])
def test_engine_full_objects(request: pytest.FixtureRequest, major: int) -> None:
    session = _session(request, major)
    engine = session.engine("object_full")
    assert loads(engine, major, allow_objects=True) == full_object(major)
    assert dumps(full_object(major), major, full_objects=True) == engine
    assert session.reencoded("py_full_object") == engine
    with pytest.raises(VariantError, match="unauthorized"):
        loads(engine, major)


@pytest.mark.parametrize("major", [3, 4])
def test_engine_objects_as_ids(request: pytest.FixtureRequest, major: int) -> None:
    session = _session(request, major)
    instance_id = loads(session.engine("object_node_id"), major)
    engine = session.engine("object_node")
    assert loads(engine, major) == ObjectID(instance_id)
    assert dumps(ObjectID(instance_id), major) == engine
    # Freed objects become a bare NIL in both modes (4.x always; 3.2.3 in its debug-enabled
    # Debian build -- release export templates write id 0 instead).
    assert session.engine("object_freed") == NIL_BYTES
    assert session.engine("object_freed_full") == NIL_BYTES
    if major == 4:
        signal = session.engine("signal_node")
        assert loads(signal, 4) == Signal("ready", instance_id)
        assert dumps(Signal("ready", instance_id)) == signal


@pytest.mark.parametrize(("major", "name"), CRAFTED)
def test_engine_decoder_tolerance(request: pytest.FixtureRequest, major: int, name: str) -> None:
    session = _session(request, major)
    case = next(c for c in crafted(major) if c.name == name)
    engine = session.reencoded(f"c_{name}")
    if not case.accepted:
        assert engine == NIL_BYTES, "the engine was expected to refuse this input"
        with pytest.raises(VariantError):
            loads_prefix(case.data, major, allow_objects=case.objects)
        return
    if case.python_refuses:
        assert engine == case.data
        with pytest.raises(VariantError):
            loads_prefix(case.data, major)
        return
    value, _ = loads_prefix(case.data, major, allow_objects=case.objects)
    ours = dumps(value, major, full_objects=case.objects)
    if case.compare == "decoded":
        assert loads(engine, major) == value
    elif case.compare == "null_object3":
        assert engine == NIL_BYTES
        assert isinstance(value, ObjectID | Object)
        assert ours == case.data
    else:
        assert ours.hex() == engine.hex()


@pytest.mark.parametrize("major", [3, 4])
def test_engine_agrees_on_transform_from_trs(request: pytest.FixtureRequest, major: int) -> None:
    """T * R * S built by the engine equals Transform3D.from_trs / from_matrix (float32 noise)."""
    engine = loads(_session(request, major).engine("trs"), major)
    ours = Transform3D.from_trs(*TRS)
    assert isinstance(engine, Transform3D)
    for a, b in zip(engine.to_matrix(), ours.to_matrix(), strict=True):
        assert a == pytest.approx(b, abs=1e-5)
    assert Transform3D.from_matrix(ours.to_matrix()) == ours
