"""The streamed scene (brson.godot.stream) is export_scene's, byte for byte, error for error.

``stream_scene`` walks the slot table and reads each slot from its bytes; ``export_scene``
builds a node per slot from the model.  Both must give the same text, counts and notes on
every sample and fixture, for Godot 3 and 4, with the glTF loader node, for subtrees, and
raise the same error where the export fails; an edited tree falls back to ``export_scene``.
"""

from __future__ import annotations

import gc
import random
from typing import Any

import pytest

import brson
from brson.errors import BrsonError
from brson.godot import export
from brson.godot.export import SceneExport, export_scene
from brson.godot.stream import StreamedScene, stream_scene
from brson.model import DataTree, Slot
from tests.differential import loadable_trees
from tests.hardening.support import deep_tree

TREES = loadable_trees()
needs_c = pytest.mark.skipif(not export.ACCELERATED, reason="the compiled readers are not built")


def outcome(make: Any) -> tuple[Any, ...]:
    """A scene's text, counts and notes, or the error it raised."""
    try:
        scene = make()
        return (scene.tscn(), scene.node_count, scene.meshes, scene.materials, scene.notes)
    except BrsonError as exc:
        return (f"error {type(exc).__name__}: {exc}",)


def same(tree: DataTree, godot: int, slot: Slot | None = None, gltf: str | None = None) -> None:
    want = outcome(lambda: export_scene(tree, godot, slot, gltf=gltf))
    got = outcome(lambda: stream_scene(tree, godot, slot, gltf=gltf))
    assert got == want


@pytest.mark.parametrize("name", sorted(TREES))
@pytest.mark.parametrize("godot", [3, 4])
def test_whole_tree(name: str, godot: int) -> None:
    same(TREES[name], godot)
    if godot == 4:
        same(TREES[name], godot, gltf="scene.glb")


@pytest.mark.parametrize("name", sorted(TREES))
def test_subtrees(name: str) -> None:
    tree = TREES[name]
    try:
        slots = list(tree.walk())
    except BrsonError:
        return
    rng = random.Random(name)
    for slot in rng.sample(slots, min(4, len(slots))):
        for godot in (3, 4):
            same(tree, godot, slot)


@needs_c
def test_streams_an_unedited_tree_and_falls_back_for_an_edited_one() -> None:
    tree = TREES["orange3134_loading_standin.brson"]
    assert isinstance(stream_scene(tree, 4), StreamedScene)
    edited = brson.loads(brson.dumps(tree))
    edited.root.children[0].name = "renamed"
    scene = stream_scene(edited, 4)
    assert isinstance(scene, SceneExport)
    assert scene.tscn() == export_scene(edited, 4).tscn()


def slot_views(make: Any) -> int:
    """How many slot views are alive after ``make()`` (its result kept) beyond before."""
    gc.collect()
    before = sum(isinstance(o, Slot) for o in gc.get_objects())
    kept = make()
    gc.collect()
    after = sum(isinstance(o, Slot) for o in gc.get_objects())
    del kept
    return after - before


@needs_c
def test_holds_no_slot_view_per_node() -> None:
    """Built, the streamed scene holds slot views only for renderers and their parents (here
    none: no slot draws), where export_scene holds one per node."""
    assert slot_views(lambda: stream_scene(brson.loads(deep_tree(50)), 4)) <= 1
    assert slot_views(lambda: export_scene(brson.loads(deep_tree(50)), 4)) >= 50


@pytest.mark.parametrize("godot", [3, 4])
def test_too_deep_a_tree_is_the_same_error(godot: int) -> None:
    tree = brson.loads(deep_tree(1100))
    same(tree, godot)
    assert outcome(lambda: stream_scene(tree, godot))[0].startswith("error VariantError")
