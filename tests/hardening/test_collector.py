"""Bulk passes pause the cyclic collector and give it back as they found it, errors included."""

from __future__ import annotations

import gc

import pytest

import brson
from brson.cli.archive import summary
from brson.collector import deferred_full_collections, paused_gc
from brson.errors import SelectorError
from brson.godot.export import export_scene
from brson.ops.extract import extract

from .support import SAMPLES


def test_paused_gc_restores_the_previous_state() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # an inner pause does not re-enable it early
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()


def test_deferred_full_collections_nest_interleave_and_restore() -> None:
    before = gc.get_threshold()
    with deferred_full_collections():
        deferred = gc.get_threshold()
        assert deferred[:2] == before[:2] and deferred[2] > 10**6
        with deferred_full_collections():
            assert gc.get_threshold() == deferred
        assert gc.get_threshold() == deferred  # an inner block does not restore it early
    assert gc.get_threshold() == before
    try:
        with deferred_full_collections():
            gc.set_threshold(500, 5, 5)  # the caller's own setting wins over the restore
        assert gc.get_threshold() == (500, 5, 5)
    finally:
        gc.set_threshold(*before)


def test_a_walk_defers_full_collections_only_while_it_runs() -> None:
    """Walks hand out kept nodes to a user's loop: no full pass over them while it runs,
    young collections on, and the threshold back when the walk ends, is interleaved with
    another or is abandoned half-way."""
    before = gc.get_threshold()
    tree = brson.load(SAMPLES / "orange3134_loading_standin.brson")
    seen = []
    for _ in tree.walk():
        seen.append((gc.isenabled(), gc.get_threshold()[2]))
    assert seen and all(on and third > 10**6 for on, third in seen)
    assert gc.get_threshold() == before
    first, second = tree.walk(), tree.walk()
    next(first)
    next(second)
    assert sum(1 for _ in first) == 35
    assert gc.get_threshold()[2] > 10**6  # the second walk is still running
    del second  # abandoned: closing the generator ends its block
    assert gc.get_threshold() == before
    walk = tree.walk()
    next(walk)
    walk.close()
    assert gc.get_threshold() == before
    with pytest.raises(SelectorError):
        for _ in tree.walk():
            raise SelectorError("a user's loop fails half-way")
    assert gc.get_threshold() == before


def test_bulk_operations_run_paused_and_restore_it() -> None:
    tree = brson.load(SAMPLES / "orange3134_loading_standin.brson")
    seen = []
    extract(tree, tree.root.children[0], progress=lambda _: seen.append(gc.isenabled()))
    assert seen and not any(seen)
    export_scene(tree, 4, on_slot=lambda: seen.append(gc.isenabled()))
    assert not any(seen)
    assert summary(tree, "x")["slots"] == 36
    assert gc.isenabled()
    with pytest.raises(SelectorError):
        extract(tree, "no such slot")
    assert gc.isenabled()


def test_console_command_skips_the_exit_collection() -> None:
    """The console command freezes the heap before it exits: the shutdown collection then has
    nothing to traverse (freezing in a test process would keep its objects forever, so a child
    process runs it)."""
    import subprocess
    import sys

    probe = (
        "import gc, sys\n"
        "from brson.cli import app\n"
        "sys.argv = ['brson', 'version']\n"
        "app.main = lambda: 0\n"
        "try:\n"
        "    app.run()\n"
        "except SystemExit as exc:\n"
        "    print(exc.code, gc.get_freeze_count() > 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "True"]


def test_walks_in_threads_restore_the_threshold() -> None:
    import threading

    before = gc.get_threshold()
    tree = brson.load(SAMPLES / "orange3134_loading_standin.brson")
    counts: list[int] = []
    start = threading.Barrier(4)

    def walk() -> None:
        start.wait()
        for _ in range(20):
            counts.append(sum(1 for _ in tree.walk()))

    threads = [threading.Thread(target=walk) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counts == [36] * 80
    assert gc.get_threshold() == before
