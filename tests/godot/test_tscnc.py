"""The compiled Godot 3 and 4 metadata writer writes exactly what the Python path writes.

Differential: ``brson._speedups._tscnc`` renders BSON bytes as Godot 3 or 4 text; the reference
is the Python path (pymongo's decode, then ``tscn._bson_container4`` for Godot 4 /
``tscn.literal``, and the writer's metadata lines).
Where C answers, the texts must be equal; where the Python decode fails, C must not answer (it
returns None and the caller runs the Python path, so errors have one source).  Inputs: every
slot of every real sample and fixture, whole exports, the slot bytes mutated and truncated,
and hypothesis-generated documents.
"""

from __future__ import annotations

import math
import random
from typing import Any

import bson
import pytest
from bson.int64 import Int64
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brson._speedups import built
from brson.document import raw
from brson.errors import BrsonError
from brson.godot import export, tscn
from brson.godot.export import export_scene, slot_metadata, slot_metadata_text
from brson.model import Slot, slothead
from tests.differential import check_built, covering, loadable_trees
from tests.graph.synth import world
from tests.tiers import examples, sweep

TSCNC = built("_tscnc")
needs_c = pytest.mark.skipif(TSCNC is None, reason="the C metadata writer is not built")


def test_writer_built_in_ci() -> None:
    check_built(TSCNC, export.ACCELERATED, "brson._speedups._tscnc")


TREES = loadable_trees()
#: The trees whose slots are mutated besides the samples (:func:`covering`): the other
#: fixtures' cases reach no line or branch of the C writer, its Python twin or this module
#: that these do not (with the cases scripts/sanitize-tests.txt names).
MUTATED = covering(
    TREES,
    [
        "BR106_bad_element_type.brson",
        "BR206_component_without_type.brson",
        "BR207_field_not_member.brson",
        "BR302_type_double.brson",
        "BR305_type_name_garbled.brson",
        "BR501_nan_position.brson",
        "BR504_zero_quaternion.brson",
        "clean_neos.7zbson",
        "misnamed.lz4bson",
        "tiny.7zbson",
        "tiny_frame.lz4bson",
        "tiny_frdt.bson",
    ],
)
#: The trees of the per-slot, whole-scene and slot-head checks besides the samples
#: (:func:`covering`, each check's own; with the cases scripts/sanitize-tests.txt names).
SLOTS_CHECKED = covering(
    TREES,
    [
        "BR106_bad_element_type.brson",
        "BR205_slot_without_name.brson",
        "BR206_component_without_type.brson",
        "BR305_type_name_garbled.brson",
        "BR501_nan_position.brson",
        "BR506_integer_position.brson",
        "BR601_index_in_neos.7zbson",
    ],
)
EXPORTED = covering(
    TREES,
    [
        "BR106_bad_element_type.brson",
        "BR205_slot_without_name.brson",
        "BR206_component_without_type.brson",
        "BR305_type_name_garbled.brson",
        "BR501_nan_position.brson",
        "BR505_position_two_numbers.brson",
        "BR506_integer_position.brson",
        "BR601_index_in_neos.7zbson",
        "BR606_version_in_neos.7zbson",
    ],
)
HEADS = covering(
    TREES,
    [
        "BR205_slot_without_name.brson",
        "BR404_parent_reference_loop.brson",
        "BR504_zero_quaternion.brson",
        "BR607_resonite_headerless.7zbson",
        "neos_legacy.bson",
        "neos_legacy_unknown_size.7zbson",
    ],
)
GODOT = pytest.mark.parametrize("godot", [3, 4])


def render(value: Any, godot: int) -> str:
    """The Python writer's literal of decoded BSON data, as the metadata lines write it."""
    text = tscn._bson_container4(value) if godot == 4 else None
    return text if text is not None else tscn.literal(value, godot, default=export.bson_extended)


def python_text(buf: bytes, etype: int, start: int, end: int, godot: int = 4) -> str | None:
    """The Python path's text of a document or array span, or None where it does not decode."""
    try:
        value = raw.decode_doc(buf, start, end)
    except BrsonError:
        return None
    if etype == 0x04:
        value = list(value.values())
    return render(value, godot)


def slot_fields_text(data: bytes, godot: int = 4) -> str | None:
    """The Python path's ``resonite_slot`` text of a slot document (export.slot_fields: each
    key but ``Children``, ``Components`` without ``Data``), or None where it does not read."""
    out: dict[str, Any] = {}
    try:
        idx = raw.index_py(data, 0, len(data))
        for key, elem in idx.items():
            if key == "Children":
                continue
            if key == "Components" and elem[0] == 0x03:
                inner = raw.index_py(data, elem[2], elem[3])
                out[key] = {k: raw.value(data, e) for k, e in inner.items() if k != "Data"}
            else:
                out[key] = raw.value(data, elem)
    except BrsonError:
        return None
    return render(out, godot)


def components_text(
    data: bytes, elem: raw.Element, types: tuple[str, ...], godot: int = 4
) -> str | None:
    """The Python path's ``resonite_components`` text of the component array element
    ``elem`` (export._component_summaries), or None where it does not read."""
    value = b"\x04a\x00" + data[elem[2] : elem[3]]  # the array's bytes only, under a plain key
    try:
        items = raw.value(value, (raw.ARRAY, 0, 3, len(value)))
    except BrsonError:
        return None
    out: list[dict[str, Any]] = []
    for item in items:
        if type(item) is not dict or set(item) != {"Type", "Data"}:
            return None
        index, value = item["Type"], item["Data"]
        if type(index) is bool or not isinstance(index, int) or not 0 <= index < len(types):
            return None
        if type(value) is not dict:
            return None
        element_id = value.get("ID")
        out.append(
            {
                "type": types[index],
                "id": element_id if isinstance(element_id, str) else None,
                "data": value,
            }
        )
    return render(out, godot)


def same_value(buf: bytes, etype: int, start: int, end: int) -> None:
    """C's text of the span equals the Python path's, for both versions, where C answers."""
    assert TSCNC is not None
    for godot in (3, 4):
        c = TSCNC.value(buf, etype, start, end, godot)
        if c is not None:
            assert c == python_text(buf, etype, start, end, godot), (start, end, godot)


def metadata_lines(meta: Any, godot: int = 4) -> list[str]:
    writer = tscn._Writer(godot, export.bson_extended)
    return list(tscn._metadata(writer, meta, bson_data=True))


@pytest.mark.slow
@needs_c
@GODOT
@pytest.mark.parametrize("name", SLOTS_CHECKED)
def test_slots_of_real_files(name: str, godot: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each slot's metadata lines C answers equal the Python path's, and so do its errors (that
    C answers the engine's own files is test_c_answers_real_samples's check)."""
    monkeypatch.setattr(export, "_tscnc", TSCNC)  # also under BRSON_PURE_PYTHON
    tree = TREES[name]
    for slot in tree.walk():
        try:
            fast = slot_metadata_text(slot, godot)
        except BrsonError as exc:  # the Python path's own error (a component's Type)
            with pytest.raises(type(exc)):
                slot_metadata(slot)
            continue
        if fast is None:
            continue
        expected = metadata_lines(slot_metadata(slot), godot)
        assert metadata_lines(fast, godot) == expected, slot.path


@needs_c
def test_c_answers_real_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled path is the one taken on the engine's own files (not all None)."""
    monkeypatch.setattr(export, "_tscnc", TSCNC)
    real = [tree for name, tree in TREES.items() if "orange3134" in name or "mar_" in name]
    if not real:
        pytest.skip("the real samples are not here")
    for tree in real:
        slots = [slot for slot in tree.walk() if slot.buffer]
        for godot in (3, 4):
            answered = sum(slot_metadata_text(slot, godot) is not None for slot in slots)
            assert answered == len(slots)


@pytest.mark.slow
@needs_c
@GODOT
@pytest.mark.parametrize("name", EXPORTED)
def test_whole_export(name: str, godot: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole scene with and without the compiled writer, slot reader and float texts."""
    tree = TREES[name]
    for module in (export, tscn, slothead):
        monkeypatch.setattr(module, "_tscnc", TSCNC)
    try:
        fast = export_scene(tree, godot).tscn()
    except BrsonError as exc:
        fast = f"error {type(exc).__name__}: {exc}"
    for module in (export, tscn, slothead):
        monkeypatch.setattr(module, "_tscnc", None)
    try:
        slow = export_scene(tree, godot).tscn()
    except BrsonError as exc:
        slow = f"error {type(exc).__name__}: {exc}"
    assert fast == slow


@pytest.mark.slow
@needs_c
@pytest.mark.parametrize("name", MUTATED)
def test_mutated_slots(name: str) -> None:
    """Slot bytes with flipped and cut bytes: C answers only what decodes, equal when it does."""
    tree = TREES[name]
    rng = random.Random(name)
    assert TSCNC is not None
    types = export._type_texts(tree) if tree.types else None
    for number, slot in enumerate(tree.walk()):
        if number > 40 or not slot.buffer:
            break
        start, end = slot.span
        original = bytes(slot.buffer[start:end])
        member = slot.components_member
        found = member.element_index().get("Data") if member is not None else None
        components = found if found is not None and found[0] == raw.ARRAY else None
        for _ in range(sweep(20, 5)):
            data = bytearray(original)
            for _ in range(rng.randint(1, 3)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            same_value(bytes(data), 0x03, 0, len(data))
            godot = rng.choice((3, 4))
            fields = TSCNC.slot(bytes(data), 0, len(data), godot)
            if fields is not None:
                assert fields == slot_fields_text(bytes(data), godot)
            if types is not None and components is not None:
                elem = tuple(offset - start for offset in components[1:])
                listed = TSCNC.components(types, bytes(data), elem[1], elem[2], godot)
                if listed is not None:
                    expected = components_text(bytes(data), (raw.ARRAY, *elem), types, godot)
                    assert listed == expected
        for cut in range(0, len(original), max(1, len(original) // 16)):
            same_value(original[:cut], 0x03, 0, cut)
            assert TSCNC.value(original, 0x03, 0, cut, 4) is None
        assert TSCNC.value(original, 0x03, -1, len(original), 3) is None
        assert TSCNC.value(original, 0x03, 0, len(original) + 1, 4) is None


@needs_c
def test_special_values() -> None:
    """What the writer renders differently from JSON, and float forms, against Python."""
    assert TSCNC is not None
    floats = [0.0, -0.0, 1.0, 1e16, 1e-5, 0.1, 1 / 3, -2 / 3, 0.0008727497770451009, 5e-324]
    floats += [1.7976931348623157e308, math.nan, math.inf, -math.inf, 123456789.123, 0.5]
    values: list[Any] = [*floats, "a\x7fb", '\x00\x01\x02\n\t"\\é€', b"bytes", None, True]
    values += [2**40, -(2**31), {}, [], {"$ref": 1, "$id": 2}, [{"": [[]]}]]
    for value in values:
        buf = bson.encode({"v": value, "w": [value]})
        same_value(buf, 0x03, 0, len(buf))
    simple = bson.encode({"a": 1.5, "b": [1, "x", None], "c": {}, "d": [], "e": [{}, []]})
    for godot in (3, 4):
        text = TSCNC.value(simple, 0x03, 0, len(simple), godot)
        assert text is not None
        assert text == python_text(simple, 3, 0, len(simple), godot)
    assert TSCNC.value(simple, 0x03, 0, len(simple), 3) == (
        '{\n"a": 1.5,\n"b": [ 1, "x", null ],\n"c": {\n},\n"d": [  ],\n"e": [ {\n}, [  ] ]\n}'
    )
    duplicate = bson.encode({"a": 1})[:-1] + b"\x10a\x00\x02\x00\x00\x00\x00"
    duplicate = len(duplicate).to_bytes(4, "little") + duplicate[4:]
    assert TSCNC.value(duplicate, 0x03, 0, len(duplicate), 3) is None
    assert TSCNC.value(duplicate, 0x03, 0, len(duplicate), 4) is None
    with pytest.raises(ValueError, match="godot must be 3 or 4"):
        TSCNC.value(simple, 0x03, 0, len(simple), 5)
    for number in range(2000):
        x = random.Random(number).random() * 10.0 ** random.Random(-number).randint(-30, 30)
        buf = bson.encode({"x": x, "y": -x})
        same_value(buf, 0x03, 0, len(buf))


LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


@pytest.mark.slow
@needs_c
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.text(max_size=6), VALUES, max_size=6))
def test_generated_documents(doc: dict[str, Any]) -> None:
    try:
        buf = bson.encode(doc)
    except Exception:
        return
    same_value(buf, 0x03, 0, len(buf))


@pytest.mark.slow
@given(
    st.dictionaries(
        st.text(max_size=8),
        st.one_of(st.text(max_size=12), st.builds(tscn.Godot3Text, st.text(max_size=12))),
        max_size=6,
    )
)
@settings(max_examples=examples(300), deadline=None)
def test_metadata_lines_as_the_writer(metadata: dict[str, str]) -> None:
    """A node's metadata lines from strings and written text are the general writer's."""
    for godot in (3, 4):
        writer = tscn._Writer(godot)
        values = {k: str(v) if godot == 4 else v for k, v in metadata.items()}
        keys = sorted(values)
        if godot == 3:
            want = [f"__meta__ = {writer.literal({k: values[k] for k in keys})}"] if keys else []
        elif all(tscn._IDENTIFIER.match(k) for k in keys):
            want = [f"metadata/{k} = {writer.literal(values[k])}" for k in keys]
        else:
            continue
        assert list(tscn._metadata(writer, values, bson_data=True)) == want


@needs_c
def test_reals() -> None:
    """The float fields of math literals (transforms): C's text is ``tscn.real``'s, or None
    for what it leaves to it (nan, inf, numbers that are not floats)."""
    assert TSCNC is not None
    rng = random.Random(29)
    floats = [0.0, -0.0, 1.0, -1.0, 1e16, 1e-5, 0.1, 1 / 3, 0.0008727497770451009, 5e-324]
    floats += [1.7976931348623157e308, 123456789.123, 2.0**60, -2.5, 1e15 + 0.5, 9999999999999998.0]
    for _ in range(5000):
        floats.append(rng.random() * 10.0 ** rng.randint(-30, 30) * rng.choice((1, -1)))
        floats.append(float(rng.randint(-(10**17), 10**17)))
    for godot in (3, 4):
        for at in range(0, len(floats), 12):
            chunk = floats[at : at + 12]
            assert TSCNC.reals(chunk, godot) == ", ".join(tscn.real(x, godot) for x in chunk)
        assert TSCNC.reals((), godot) == ""
        for unsure in ([1.0, math.nan], [math.inf], [-math.inf, 0.0], [1, 2.0], [True]):
            assert TSCNC.reals(unsure, godot) is None
    with pytest.raises(ValueError, match="godot must be 3 or 4"):
        TSCNC.reals([1.0], 2)


@needs_c
@GODOT
def test_math_literals_with_and_without_c(godot: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Transforms, vectors and packed arrays written by the writer, C on and off."""
    from brson.godot import values as gv

    values = [
        gv.Transform3D(
            gv.Basis(gv.Vector3(1, 0.5, -0.0), gv.Vector3(1e-7, 1 / 3, 2.0), gv.Vector3(0, 0, 1)),
            gv.Vector3(math.nan, math.inf, -math.inf),
        ),
        gv.Vector3(0.0008727497770451009, -2.5, 1e300),
        gv.Color(0.1, 0.2, 0.3, 1.0),
        gv.PackedVector3Array([gv.Vector3(1.0, 2.0, 3.5)] * 3),
        gv.PackedFloat32Array([]),
    ]
    monkeypatch.setattr(tscn, "_tscnc", TSCNC)
    fast = [tscn.literal(v, godot) for v in values]
    monkeypatch.setattr(tscn, "_tscnc", None)
    assert fast == [tscn.literal(v, godot) for v in values]


def python_head(slot: Slot) -> tuple[Any, ...] | None:
    """The Python path's :data:`export.SlotHead` without the types: the slot's properties, or
    None where they do not read (a malformed slot: C must not answer either)."""
    try:
        return (slot.id, slot.name, slot.tag, slot.active, slot.position, slot.rotation, slot.scale)
    except BrsonError:
        return None


def same_head(buf: bytes, start: int, end: int) -> None:
    """C's head equals the properties where it answers; its component types, where given,
    each component's ``type_index`` (None: the export reads the components, errors and all)."""
    assert TSCNC is not None
    c = TSCNC.head(buf, start, end)
    if c is None:
        return
    slot = Slot(buf, start, end)
    expected = python_head(slot)
    assert expected is not None, (start, end)
    assert repr(c[:7]) == repr(expected)  # nan included
    assert [type(v) for v in c[:7]] == [type(v) for v in expected]
    if c[7] is not None:
        assert c[7] == tuple(component.type_index for component in slot.components)


@needs_c
@pytest.mark.parametrize("name", HEADS)
def test_head(name: str) -> None:
    """A slot's members read in C equal its properties, on every slot (C answers all of the
    real samples'), on mutated and cut slot bytes, and out-of-range spans."""
    assert TSCNC is not None
    tree = TREES[name]
    rng = random.Random(name)
    real = "orange3134" in name or "mar_" in name
    try:
        slots = list(tree.walk())
    except BrsonError:
        slots = []
    for number, slot in enumerate(slots):
        if not slot.buffer:
            continue
        start, end = slot.span
        if real:  # every writer's layout, int32 or int64 component Types (mar_AimConstraint)
            head = TSCNC.head(slot.buffer, start, end)
            assert head is not None and head[7] is not None, slot.path
        same_head(slot.buffer, start, end)
        if number > 40:
            continue
        original = bytes(slot.buffer[start:end])
        for _ in range(sweep(20, 5)):
            data = bytearray(original)
            for _ in range(rng.randint(1, 3)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            same_head(bytes(data), 0, len(data))
        for cut in range(0, len(original), max(1, len(original) // 16)):
            assert TSCNC.head(original[:cut], 0, cut) is None
        assert TSCNC.head(original, -1, len(original)) is None
        assert TSCNC.head(original, 0, len(original) + 1) is None


@needs_c
def test_head_negative_component_types() -> None:
    """Negative component Types (int32 and int64) pass through head as the components'
    type_index reads them: the exporter names such a component as the model does."""
    assert TSCNC is not None
    slot = world(1, seed=2)["Object"]
    slot["Components"]["Data"] = [
        {"Type": -5, "Data": {"ID": "a"}},
        {"Type": Int64(-7), "Data": {"ID": "b"}},
        {"Type": Int64(2), "Data": {"ID": "c"}},
    ]
    buf = bson.encode(slot)
    head = TSCNC.head(buf, 0, len(buf))
    assert head is not None
    assert head[7] == (-5, -7, 2)
    same_head(buf, 0, len(buf))
