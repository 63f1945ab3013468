"""Diff's ProtoFlux connections from the focused graphs (only the nodes the changed components
can reach, :mod:`brson.ops.connections`) are the whole graphs' connections, in a fixed order.

Each case edits a real sample's ProtoFlux the ways users and tools do (an input pointed at
another node, at a node's output, cleared; a node or a helper removed), then diffs it both
ways and checks the focused answer against the full build's, line for line."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import brson
from brson import flux
from brson.model.component import Component
from brson.model.ids.forms import is_guid
from brson.model.tree import DataTree
from brson.ops import diff as diff_module
from brson.ops.diff import Diff, add_connections, compared

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
FLUX_SAMPLES = ("orange3134_AvatarRootIdentification.brson", "mar_AimConstraint.pg.brson")


def _load(name: str) -> DataTree:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"real sample {name} not present")
    return brson.load(path)


def _reloaded(tree: DataTree) -> DataTree:
    """The edited tree as a file reads back: unmodified, over its own bytes."""
    return brson.loads(brson.dumps(tree))


def _edit(tree: DataTree, seed: int) -> None:
    """A few ProtoFlux edits chosen by ``seed``."""
    rng = random.Random(seed)
    graph = flux.build(tree)
    nodes = [c for c in tree.components() if c.id in graph.by_id]
    targets = [n.id for n in graph.nodes] + [
        member.id for c in nodes for member in c.fields.values() if member.id is not None
    ]
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(4)
        component = rng.choice(nodes)
        if kind == 3:
            _drop(component)
            nodes.remove(component)
            continue
        refs = [m for m in component.fields.values() if is_guid(m.value)]
        if not refs:
            continue
        member = rng.choice(refs)
        member.value = None if kind == 2 else rng.choice(targets)


def _drop(component: Component) -> None:
    slot = component.slot
    assert slot is not None
    member = slot.components_member
    assert member is not None
    member.set("Data", [c for c in member.child_nodes("Data", Component) if c is not component])


def _both_ways(a: DataTree, b: DataTree) -> list[tuple[Diff, Diff]]:
    pairs = []
    for x, y in ((a, b), (b, a)):
        focused, _, touched = compared(x.to_bson(), y.to_bson())
        full, _, _ = compared(x.to_bson(), y.to_bson())
        assert touched is not None
        add_connections(focused, x, y, touched)
        add_connections(full, x, y)
        pairs.append((focused, full))
    return pairs


@pytest.mark.slow
@pytest.mark.parametrize("name", FLUX_SAMPLES)
@pytest.mark.parametrize("seed", range(6))
def test_focused_connections_are_the_full_graphs(name: str, seed: int) -> None:
    base = _load(name)
    edited = _load(name)
    _edit(edited, seed)
    edited = _reloaded(edited)
    for focused, full in _both_ways(base, edited):
        assert focused.connections == full.connections
        assert focused.values == full.values
        assert list(focused.lines()) == list(full.lines())


def test_connection_lines_are_the_same_on_every_run(tmp_path: Path) -> None:
    """The connection lines come in the trees' order (broken ones in the old tree's, then
    made ones in the new tree's), not in an order that moved with the string hash seed."""
    name = "mar_AimConstraint.pg.brson"
    edited = _load(name)
    _edit(edited, 3)
    target = tmp_path / "edited.brson"
    brson.dump(edited, target)
    outputs = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        argv = [sys.executable, "-m", "brson", "diff", str(SAMPLES / name), str(target)]
        run = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        assert run.returncode == 1, run.stderr
        outputs.add(run.stdout)
    assert len(outputs) == 1, outputs
    lines = next(iter(outputs)).splitlines()
    links = [line for line in lines if line.split(" ")[1] in ("connected", "disconnected")]
    assert len(links) >= 2, lines


def _no_whole_graphs(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(tree: DataTree) -> flux.Flux:
        raise AssertionError("a whole tree's ProtoFlux was built")

    monkeypatch.setattr(diff_module.flux, "build", refused)


def test_no_graph_is_built_when_no_protoflux_component_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A renamed slot and a changed non-ProtoFlux value: no connection can have changed, so
    neither tree's ProtoFlux is built, whole or focused."""
    name = "orange3134_AvatarRootIdentification.brson"
    base = _load(name)
    edited = _load(name)
    edited.root.name = "renamed"
    copy_member = next(
        m
        for c in edited.components()
        if c.type.name.startswith("ValueCopy")
        for m in c.fields.values()
        if type(m.value) is bool
    )
    copy_member.value = not copy_member.value
    edited = _reloaded(edited)

    def refused(*args: object) -> None:
        raise AssertionError("a focused graph was built")

    _no_whole_graphs(monkeypatch)
    monkeypatch.setattr(diff_module, "focused_graphs", refused)
    result = diff_module.diff(base, edited)
    assert result.values and result.slots_renamed and not result.connections


def test_files_as_read_build_only_the_focus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two trees as read from files: the connections come from the focused graphs alone."""
    name = "mar_AimConstraint.pg.brson"
    base = _load(name)
    edited = _load(name)
    _edit(edited, 0)
    edited = _reloaded(edited)
    expected = diff_module.diff(base, edited).connections
    _no_whole_graphs(monkeypatch)
    assert diff_module.diff(base, edited).connections == expected
    assert expected
