"""The benchmark's verdicts (benchmarks/targets.py): an archive-writing operation is held to
its bound where that is above the limit, as the table's limit column says."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def targets() -> Any:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import targets as module
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def _verdicts(targets: Any, ratio: float, bound: float) -> dict[str, Any]:
    row = {"size": 100_000, "codec": "brotli", "op": "extract_10", "time_s": 1.0}
    row |= {"ratio": ratio, "bound_ratio": bound, "peak_ratio": 2.0}
    (entry,) = [
        t for t in targets.evaluate([row]) if t["op"] == "extract_10" and t["measure"] == "time"
    ]
    return dict(entry)


@pytest.mark.parametrize(
    ("ratio", "bound", "limit", "met"),
    [
        (2.88, 2.46, 3.075, True),  # over the plain limit, within 1.25x its bound
        (3.2, 2.46, 3.075, False),  # past 1.25x its bound
        (1.4, 0.8, 1.5, True),  # a small bound: the plain limit holds
        (1.6, 0.8, 1.5, False),
    ],
)
def test_extract_is_held_to_its_bound_where_larger(
    targets: Any, ratio: float, bound: float, limit: float, met: bool
) -> None:
    entry = _verdicts(targets, ratio, bound)
    assert entry["limit"] == pytest.approx(limit)
    assert entry["met"] is met
