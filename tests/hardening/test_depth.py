"""Thousands of levels: deep slot trees and deep BSON values work, or give one BrsonError.

Never a ``RecursionError`` (or any other crash): every operation and every CLI command is run
on a 5000-level chain of slots, whose components reference their parents, and on members
whose values nest 10000 arrays deep.  5000 is far past Python's default recursion limit
(1000), so any recursive walk would show.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import brson
from brson.errors import BrsonError
from brson.model.tree import DataTree
from brson.ops.extract import extract

from .support import deep_tree, nested_arrays, run_cli

pytestmark = pytest.mark.slow  # thousands of levels through every operation and command

DEPTH = 5000
TIME_BOUND_S = 60


@pytest.fixture(scope="module")
def deep_bytes() -> bytes:
    return deep_tree(DEPTH)


@pytest.fixture
def tree(deep_bytes: bytes) -> DataTree:
    return brson.loads(deep_bytes, name="deep.bson")


@pytest.fixture(scope="module")
def deep_file(deep_bytes: bytes, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("deep") / "deep.brson"
    path.write_bytes(brson.dumps(deep_bytes, "brotli"))
    return path


@contextlib.contextmanager
def time_bound(seconds: float = TIME_BOUND_S, *, cpu: bool = False) -> Iterator[None]:
    """Fail instead of hanging (a loop in a cycle would never end): a watchdog far above any
    real run, not a speed check (speed is measured in ``benchmarks/``).  With ``cpu`` it
    counts this process's CPU time, which other processes' load does not stretch."""
    what = "CPU s" if cpu else "s"

    def expire(_signum: int, _frame: Any) -> None:
        raise TimeoutError(f"over {seconds} {what}: a hang")

    sig, timer = (
        (signal.SIGPROF, signal.ITIMER_PROF) if cpu else (signal.SIGALRM, signal.ITIMER_REAL)
    )
    previous = signal.signal(sig, expire)
    signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(sig, previous)


def works_or_brson_error(fn: Callable[[], Any]) -> Any:
    """The result, or the BrsonError raised; anything else (RecursionError...) fails."""
    with time_bound():
        try:
            return fn()
        except BrsonError as exc:
            return exc


def deepest(tree: Any) -> Any:
    slot = tree.root
    while slot.children:
        slot = slot.children[0]
    return slot


def test_walk_path_depth_and_transforms(tree: Any) -> None:
    slots = list(tree.walk())
    assert len(slots) == DEPTH
    last = deepest(tree)
    assert last.depth == DEPTH - 1
    assert last.path.count("/") == DEPTH - 1
    assert last.path.endswith(f"s{DEPTH - 1}")
    assert len(last.global_matrix()) == 4


def test_find_and_resolve_at_the_bottom(tree: Any) -> None:
    last = deepest(tree)
    assert tree.find(last.path) is last or tree.find(last.path).id == last.id
    assert tree.resolve(last.id).id == last.id
    location = tree.ids.where(last.id)
    assert location is not None and location.describe().endswith(f"s{DEPTH - 1}")
    target = last.components[0]["Target"].target
    assert target is not None and target.id == last.parent.id


def test_reference_graph(tree: Any) -> None:
    from brson.graph.refs import ReferenceGraph

    def build() -> int:
        graph = ReferenceGraph.build(tree)
        graph.locate_all()
        return len(graph)

    assert works_or_brson_error(build) == DEPTH


def test_validate(tree: Any, deep_bytes: bytes) -> None:
    from brson.ops.validate import validate

    findings = works_or_brson_error(lambda: validate(tree))
    assert isinstance(findings, list)
    assert isinstance(works_or_brson_error(lambda: validate(deep_bytes, name="deep.bson")), list)


def test_extract_from_the_middle(tree: Any) -> None:
    middle = tree.root
    for _ in range(DEPTH // 2):
        middle = middle.children[0]
    part = works_or_brson_error(lambda: extract(tree, middle).tree)
    if not isinstance(part, BrsonError):
        again = brson.loads(brson.dumps(part, "none"))
        assert sum(1 for _ in again.walk()) == DEPTH - DEPTH // 2


def test_edit_at_the_bottom_and_write(tree: Any) -> None:
    """Renaming the deepest slot dirties all 5000 ancestors: re-assembly must not recurse."""
    deepest(tree).name = "bottom"
    data = works_or_brson_error(lambda: brson.dumps(tree, "none"))
    if not isinstance(data, BrsonError):
        assert deepest(brson.loads(data)).name == "bottom"


def test_unmodified_dumps_is_the_input(tree: Any, deep_bytes: bytes) -> None:
    assert brson.dumps(tree, "none")[9:] == deep_bytes


def test_json_form_and_godot_export(tree: Any) -> None:
    from brson.document import jsonform
    from brson.godot.export import export_scene

    works_or_brson_error(lambda: jsonform.dumps(tree.decoded()))
    for godot in (3, 4):
        works_or_brson_error(partial(lambda g: export_scene(tree, g).tscn(), godot))


COMMANDS = [
    ["info", "{f}"],
    ["tree", "{f}", "--json"],
    ["tree", "{f}"],
    ["refs", "{f}", "--json"],
    ["validate", "{f}"],
    ["to-json", "{f}", "-o", "{o}/x.json"],
    ["convert", "{f}", "{o}/x.lz4bson"],
    ["extract", "{f}", "-s", "s2500", "-o", "{o}/part.brson"],
    ["rename", "{f}", f"s{DEPTH - 1}", "renamed", "-o", "{o}/renamed.brson"],
    ["diff", "{f}", "{f}"],
    ["export-godot", "{f}", "-o", "{o}/x.tscn"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_cli_on_a_deep_tree(deep_file: Path, tmp_path: Path, argv: list[str]) -> None:
    args = [a.format(f=deep_file, o=tmp_path) for a in argv]
    code, _, err = run_cli(args)
    assert "internal error" not in err, err
    assert "Traceback" not in err
    assert code in (0, 1, 2)
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err


def _tree_with_member(value: bytes) -> bytes:
    """A one-slot tree whose Name member's Data is ``value`` (type byte + bytes)."""
    from .support import _doc, _member, _string

    slot = _doc(
        _string("ID", "00000001-0000-0000-0000-000000000000")
        + _member("Name", 2, value)
        + b"\x04Children\x00"
        + _doc(b"")
    )
    return _doc(b"\x04Types\x00" + _doc(b"") + b"\x03Object\x00" + slot)


@pytest.mark.parametrize("depth", [950, 10_000])
def test_deeply_nested_bson_value(depth: int) -> None:
    data = _tree_with_member(nested_arrays(depth))
    tree = brson.loads(data, name="nested.bson")
    works_or_brson_error(lambda: tree.root.name)
    works_or_brson_error(lambda: tree.root.model())
    works_or_brson_error(lambda: tree.decoded())
    works_or_brson_error(lambda: tree.ids.values)
    from brson.ops.validate import validate

    works_or_brson_error(lambda: validate(tree))
    works_or_brson_error(lambda: validate(data, name="nested.bson"))
    tree.root.name = "flat again"
    assert brson.loads(brson.dumps(tree, "none")).root.name == "flat again"


def test_deeply_nested_variant() -> None:
    from brson.godot import variant

    for godot, array_id in ((3, 19), (4, 28)):
        data = (array_id.to_bytes(4, "little") + (1).to_bytes(4, "little")) * 10_000
        data += (0).to_bytes(4, "little")
        works_or_brson_error(partial(variant.loads, data, godot=godot))
