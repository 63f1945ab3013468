"""scripts/sanitize-tests.txt names tests that exist: a renamed one fails here, not only in
`make sanitize` (the list is written by `make sanitize-select`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "scripts" / "sanitize-tests.txt"
COLLECT = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]


def test_every_listed_test_is_collected() -> None:
    entries = [entry for entry in LIST.read_text().splitlines() if entry]
    assert entries
    assert len(set(entries)) == len(entries), "an entry listed twice"
    # at the sanitized depth, as scripts/sanitize.sh runs them (tests/tiers.py)
    env = dict(os.environ, BRSON_SANITIZE="1")
    result = subprocess.run(
        [*COLLECT, "-n", "0", f"@{LIST.relative_to(ROOT)}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    collected = [line for line in result.stdout.splitlines() if "::" in line]
    for entry in entries:
        # a whole function (its every case) or one case of a parametrized one
        assert any(nodeid == entry or nodeid.startswith(f"{entry}[") for nodeid in collected), (
            f"{entry} is not a test"
        )
