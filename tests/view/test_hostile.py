"""Hostile data trees (fuzz/trees.py: every BSON type in every place, cycles, duplicate IDs,
broken type tables) through the viewer: the ``--html`` export asks every question the page can
ask in server mode (every slot's children, inspector and referenced-by, the search index, the
findings, the GLB) and ends in success or one error line, never an internal error."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from brson.cli.app import main
from fuzz.trees import hostile_tree
from tests.tiers import sweep

SEEDS = sweep(30, 12)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(SEEDS))
def test_hostile_tree(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "t.bson"
    path.write_bytes(hostile_tree(seed.to_bytes(4, "little")))
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        code = main(["view", str(path), "--html", str(tmp_path / "v.html")])
    assert code in (0, 2) and "internal error" not in err.getvalue(), err.getvalue()
    assert len(err.getvalue().strip().splitlines()) <= 1
