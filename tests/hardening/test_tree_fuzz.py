"""A fixed slice of the structure-aware fuzzer (fuzz/trees.py): hostile data trees through
every command, in-process. ``make fuzz`` runs the long version (FUZZ_TREE_RUNS), and
BRSON_EXHAUSTIVE=1 a longer slice."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fuzz.trees import MUTATIONS, hostile_tree, run_commands  # noqa: E402
from tests.tiers import sweep  # noqa: E402

pytestmark = pytest.mark.slow  # hostile trees through 18 commands each

#: The first seven inputs: the eighth reached no line of brson the seven do not (coverage).
SLICE = sweep(48, 7)


@pytest.mark.parametrize("chunk", range(4))
def test_hostile_trees_through_every_command(chunk: int) -> None:
    failures = []
    for i in range(chunk, SLICE, 4):
        broken = run_commands(hostile_tree(b"slice%d" % i))
        failures += [f"input slice{i}: {f}" for f in broken]
    assert not failures, "\n".join(failures)


def test_the_generator_makes_hostile_trees() -> None:
    """The slice must not pass by generating nothing: inputs differ from their bases and
    every mutation kind runs."""
    from fuzz.trees import base_documents

    bases = set(base_documents())
    made = [hostile_tree(b"slice%d" % i) for i in range(SLICE)]
    assert len(set(made)) > SLICE * 0.8
    assert sum(m not in bases for m in made) > SLICE * 0.8
    assert len(MUTATIONS) >= 8
