"""The short fuzz slice CI runs: the fuzz targets on mutated seeds, and the regressions.

The same targets as the long atheris runs (``fuzz/targets.py``): the reader is called and what
it returns is touched (every slot, member, reference; an edited copy re-read).  A target lets
``BrsonError`` pass and nothing else, so any exception reaching the test is a finding.  Each
input also runs under a watchdog of ``PER_INPUT_S`` CPU seconds, far above any input's run: a
hang is a finding too.  It is not a speed check (those are in ``benchmarks/``), and other
processes' load does not count towards it.  Mutations are hypothesis-driven (the profile is
derandomized: the same inputs on every run) with the harness's own mutator.
"""

from __future__ import annotations

import functools
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .support import PROJECT_ROOT
from .test_depth import time_bound

sys.path.insert(0, str(PROJECT_ROOT))
from fuzz import inputs, targets
from fuzz.harness import mutate
from tests.tiers import examples, sweep

pytestmark = pytest.mark.slow  # every fuzz target on mutated seeds

PER_INPUT_S = 10
# "trees" has its own slice (tests/hardening/test_tree_fuzz.py): ~0.4 s an input.
NAMES = [name for name, t in targets.TARGETS.items() if t.available() and name != "trees"]


@functools.cache
def seeds(name: str) -> list[bytes]:
    """A target's seeds, made on first use (once a process): collection needs only the
    targets' names, and making every target's seeds was most of this module's import."""
    return targets.TARGETS[name].seeds()


#: The tests that query the sql target's index, which a process makes once: one pytest-xdist
#: worker runs them all.  The scan runs in this process (DuckDB and pyarrow are imported
#: here already; a child scanning was about 3 s of CPU).
SQL = pytest.mark.xdist_group("fuzz-sql")
inputs.SCAN_IN_PROCESS = True


@pytest.fixture(scope="session", autouse=True)
def sql_index_removed() -> Iterator[None]:
    """The sql target's index (made once per process, in a temporary folder) goes when the
    session ends: its exit handler runs only if the process ends normally, and a test run
    that is killed, or a worker that ends otherwise, left one in /tmp each time."""
    yield
    folder = inputs.remove_index()
    assert folder is None or not folder.exists(), f"{folder} is left behind"


def run_bounded(name: str, data: bytes) -> None:
    with time_bound(PER_INPUT_S, cpu=True):
        targets.TARGETS[name].run(data)


@pytest.mark.parametrize("name", [pytest.param(n, marks=SQL) if n == "sql" else n for n in NAMES])
def test_every_seed_passes(name: str) -> None:
    assert seeds(name), f"no seeds for {name}"
    for seed in seeds(name):
        run_bounded(name, seed)


def run_mutated(name: str, data: st.DataObject) -> None:
    pool = seeds(name)
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="mutation seed"))
    original = pool[data.draw(st.integers(0, len(pool) - 1), label="seed")]
    run_bounded(name, mutate(rng, original, pool))


@pytest.mark.parametrize("name", [name for name in NAMES if name != "sql"])
@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_mutated_seeds_raise_only_brson_errors(name: str, data: st.DataObject) -> None:
    run_mutated(name, data)


#: A query opens a DuckDB sandbox over the index, twenty times any other target's input, and
#: a mutated query mostly stops in DuckDB's parser: ten reach every line of brson the
#: default thirty-seven did, but the error for SQL of no statement (test_sandbox's own).
@SQL
@settings(max_examples=sweep(150, 10), suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_mutated_queries_raise_only_brson_errors(data: st.DataObject) -> None:
    run_mutated("sql", data)


def test_regression_inputs_exist_for_every_fix() -> None:
    files = sorted(p.name for p in targets.REGRESSIONS.glob("*") if p.name != "README.md")
    assert files, "fixtures/regressions/ is empty"
    readme = (targets.REGRESSIONS / "README.md").read_text()
    for name in files:
        assert f"`{name}`" in readme, f"{name} is not described in fixtures/regressions/README.md"
        assert name.split("-", 1)[0] in targets.TARGETS, name


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=SQL) if p.name.startswith("sql-") else p
        for p in sorted(targets.REGRESSIONS.glob("*-*"))
        if p.suffix == ".bin"
    ],
    ids=lambda p: p.name,
)
def test_regression_replays_clean(path: Path) -> None:
    run_bounded(path.name.split("-", 1)[0], path.read_bytes())


def test_rotation_that_is_not_numbers_is_a_model_error() -> None:
    """The first finding: a hostile Rotation made ``global_matrix`` raise TypeError."""
    import brson
    from brson.errors import ModelError

    data = (targets.REGRESSIONS / "loads-rotation-not-numbers.bin").read_bytes()
    tree = brson.loads(data[1:], name="x.bson")
    with pytest.raises(ModelError, match=r"Rotation .* not 4 numbers") as info:
        tree.root.global_matrix()
    assert info.value.path == tree.root.path


@pytest.mark.parametrize("name", ["loads", "godot4"])
def test_harness_runs_without_atheris(name: str) -> None:
    """The harness scripts themselves (plain-mutation driver mode), so they cannot rot."""
    proc = subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "fuzz" / f"fuzz_{name}.py"), "--driver", "-runs=150"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PROJECT_ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Done 150 runs" in proc.stdout and "findings 0" in proc.stdout
