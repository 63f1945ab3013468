"""Bulk passes pause the cyclic collector and give it back as they found it, errors included."""

from __future__ import annotations

import gc

import pytest

import brson
from brson.cli.archive import summary
from brson.collector import paused_gc
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
