"""A streamed scene's node in one compiled call (``_tscnc.node``) and the shortest float texts
under it (``_shortfloat.h``) write exactly what their Python references write.

Differential: ``StreamedScene.node_text`` is ``node``'s reference, row by row on every sample
and fixture (Godot 3 and 4), and on heads changed to what C must leave to it; ``tscn.real``
(``repr``) is the float formatter's, on generated doubles: any double, float32 values,
dyadic fractions (the exact ties the digit search rounds to even), short decimals and powers
of ten with their neighbours.
"""

from __future__ import annotations

import math
import runpy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brson._speedups import built
from brson.errors import BrsonError
from brson.godot import export, stream, tscn
from brson.godot.stream import StreamedScene, stream_scene
from brson.model.slothead import head_at
from tests.conftest import PROJECT_ROOT
from tests.differential import check_built, loadable_trees
from tests.tiers import examples

TSCNC = built("_tscnc")
needs_c = pytest.mark.skipif(TSCNC is None, reason="the compiled TSCN writer is not built")
#: The scene is streamed only with every compiled reader on (not under BRSON_PURE_PYTHON).
needs_stream = pytest.mark.skipif(
    TSCNC is None or not export.ACCELERATED, reason="the scene is not streamed"
)
TREES = loadable_trees()
REAL = ("orange3134", "mar_")


def test_writer_built_in_ci() -> None:
    check_built(TSCNC, stream._tscnc is not None, "brson._speedups._tscnc")


class _Probe:
    """Stands in for the compiled module in brson.godot.stream: keeps C's answer for the row
    and says None, so the reference writes the same row next and is compared with it."""

    def __init__(self) -> None:
        self.answer: str | None = None
        self.answered = 0
        self.rows = 0

    def node(self, *args: Any) -> None:
        assert TSCNC is not None
        self.answer = TSCNC.node(*args)


@needs_stream
@pytest.mark.parametrize("godot", [3, 4])
@pytest.mark.parametrize("name", sorted(TREES))
def test_nodes_of_real_files(name: str, godot: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row C writes equals the reference's text of it; C writes every row but the root
    of the engine's own files."""
    probe = _Probe()
    reference = StreamedScene.node_text

    def checked(self: StreamedScene, entry: Any, kind: str, parent: str | None, last: bool) -> str:
        text = reference(self, entry, kind, parent, last)
        probe.rows += 1
        if probe.answer is not None:
            assert probe.answer == text, entry.row
            probe.answered += 1
        probe.answer = None
        return text

    monkeypatch.setattr(stream, "_tscnc", probe)
    monkeypatch.setattr(StreamedScene, "node_text", checked)
    try:
        scene = stream_scene(TREES[name], godot)
        if not isinstance(scene, StreamedScene):
            pytest.skip("not streamed (C unsure of the tree)")
        scene.tscn()
    except BrsonError:
        return  # the export's own error (test_stream holds it to export_scene's)
    if any(part in name for part in REAL):
        assert probe.answered == probe.rows - 1


def _scene_and_row() -> tuple[StreamedScene, Any, tuple[Any, ...]]:
    tree = next(tree for name, tree in sorted(TREES.items()) if "orange3134" in name)
    scene = stream_scene(tree, 4)
    assert isinstance(scene, StreamedScene)
    table = scene._table
    top = scene._top
    row = table.first_kid[top.row]
    head = head_at(tree.buffer, *table.slot_span(row))
    assert head is not None
    entry = stream._Row(row, top, 0, 1, head)
    entry.name, entry.path = "Kid", "Kid"
    return scene, entry, head


def _both(scene: StreamedScene, entry: Any, head: tuple[Any, ...], godot: int) -> None:
    """C's text of the row with this head equals the reference's, or C leaves it."""
    assert TSCNC is not None
    scene.godot = godot
    scene._text = tscn.SceneText(godot)
    tree, table = scene._tree, scene._table
    types = scene._type_texts.of(tree)
    start, end = table.slot_span(entry.row)
    kind = "Node3D"
    c = TSCNC.node(tree.buffer, start, end, godot, types, head, entry.name, ".", kind, None, True)
    entry.head = head
    try:
        want = scene.node_text(entry, kind, ".", True)
    except (TypeError, ValueError):
        want = None
    if c is not None:
        assert c == want


@needs_stream
@pytest.mark.parametrize("godot", [3, 4])
def test_changed_heads(godot: int) -> None:
    """Vectors, flags and names C must leave to the reference (nan, ints, tuples, DEL) or must
    write as it does (a zero quaternion, negative zero, huge and tiny numbers)."""
    scene, entry, head = _scene_and_row()
    variants: list[tuple[Any, ...]] = [head]
    for index, size in ((4, 3), (5, 4), (6, 3)):
        for value in (
            None,
            [0.0] * size,
            [-0.0] * size,
            [1e300, -1e-300, 5e-324, 1.7976931348623157e308][:size] + [2.0] * (size - 4),
            [math.nan] * size,
            [math.inf] + [0.0] * (size - 1),
            [1] * size,
            (1.0,) * size,
            [1.0] * (size + 1),
            "abc",
        ):
            variants.append((*head[:index], value, *head[index + 1 :]))
    for index in (0, 1, 2):
        for value in ("plain", 'q"uote\\', "del\x7f", "nul\x00tab\t", "é✓", 7, None):
            variants.append((*head[:index], value, *head[index + 1 :]))
    for active in (True, False, None, 0):
        variants.append((*head[:3], active, *head[4:]))
    for variant in variants:
        _both(scene, entry, variant, godot)
    for name in ("del\x7f", 'a"b'):
        entry.name = name
        _both(scene, entry, head, godot)


@needs_stream
def test_node_refuses_bad_arguments() -> None:
    assert TSCNC is not None
    scene, entry, head = _scene_and_row()
    buf = scene._tree.buffer
    start, end = scene._table.slot_span(entry.row)
    args = ("Kid", ".", "Node3D", None, False)
    assert TSCNC.node(buf, start, end + 1 << 40, 4, (), head, *args) is None
    assert TSCNC.node(buf, -1, end, 4, (), head, *args) is None
    assert TSCNC.node(buf, start, end, 4, None, head, *args) is None
    assert TSCNC.node(buf, start, end, 4, (), head[:7], *args) is None
    with pytest.raises(ValueError, match="godot must be 3 or 4"):
        TSCNC.node(buf, start, end, 5, (), head, *args)


# --- the shortest float texts --------------------------------------------------------------


def same_float(x: float) -> None:
    assert TSCNC is not None
    for godot in (3, 4):
        want = tscn.real(x, godot) if math.isfinite(x) else None
        assert TSCNC.reals([x], godot) == want, repr(x)


#: Each generated example is a list of numbers: hypothesis's cost is mostly per example, so
#: a list of about 30 draws (each biased to edges as a lone draw is) checks as many numbers
#: as 30 examples did for a sixth of the CPU.
def _batches(element: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(element, min_size=20, max_size=40)


@needs_c
@settings(max_examples=examples(4000) // 30, deadline=None)
@given(_batches(st.floats(allow_nan=False, allow_infinity=False)))
def test_any_double(numbers: list[float]) -> None:
    for x in numbers:
        same_float(x)


@needs_c
@settings(max_examples=examples(2000) // 30, deadline=None)
@given(_batches(st.floats(width=32, allow_nan=False, allow_infinity=False)))
def test_float32_values(numbers: list[float]) -> None:
    for x in numbers:
        same_float(x)


@needs_c
@settings(max_examples=examples(4000) // 30, deadline=None)
@given(_batches(st.tuples(st.integers(1, 2**53), st.integers(-1100, 1000))))
def test_dyadic_fractions(pairs: list[tuple[int, int]]) -> None:
    for mantissa, exponent in pairs:
        try:
            x = math.ldexp(mantissa, exponent)
        except OverflowError:
            continue
        same_float(x)
        same_float(-x)


@needs_c
@settings(max_examples=examples(2000) // 30, deadline=None)
@given(_batches(st.tuples(st.integers(1, 10**17), st.integers(0, 40), st.integers(-3, 3))))
def test_short_decimals_and_powers_of_ten(triples: list[tuple[int, int, int]]) -> None:
    for digits, places, steps in triples:
        same_float(digits / 10.0**places)
        x = 10.0 ** (places - 20)
        for _ in range(abs(steps)):
            x = math.nextafter(x, math.inf if steps > 0 else 0.0)
        same_float(x)


@needs_c
def test_layout_edges() -> None:
    """repr's switch between fixed and exponent forms (1e-05 / 0.0001, 1e+16), the 18-digit
    rule's scientific form, and the ends of the tables."""
    for x in (1e-5, 1e-4, 0.000123456789012345, 1e16, 1e16 + 2.0, 9.999999999999998e15, 1e17):
        same_float(x)
    for x in (1e-48, 1e-47, 1e47, 1e48, 1e49, 2.0**-1022, 2.0**-1022 * 0.5):
        same_float(x)
        same_float(math.nextafter(x, 0.0))
        same_float(math.nextafter(x, math.inf))


def test_tables_are_the_scripts() -> None:
    """The header's tables are what scripts/ryu_tables.py prints."""
    script = runpy.run_path(str(PROJECT_ROOT / "scripts" / "ryu_tables.py"))
    header = Path(PROJECT_ROOT / "brson" / "_speedups" / "_shortfloat.h").read_text()
    assert script["tables"]() in header
