"""scripts/sanitize-tests.txt names tests that exist: a renamed one fails here, not only in
`make sanitize` (the list is written by `make sanitize-select`)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests import tiers

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "scripts" / "sanitize-tests.txt"
#: scripts/sanitize.sh's arguments, collection only.
COLLECT = [
    "--collect-only",
    "-q",
    "-p",
    "no:cacheprovider",
    "-n",
    "0",
    f"@{LIST.relative_to(ROOT)}",
]


class _Collected:
    """A plugin of the inner collection: the node IDs it collected."""

    def __init__(self) -> None:
        self.nodeids: list[str] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.nodeids = [item.nodeid for item in session.items]


def _modules_of(files: set[Path]) -> dict[str, ModuleType]:
    """The imported modules (under any name) whose source is one of ``files``."""
    found = {}
    for name, module in list(sys.modules.items()):
        source = getattr(module, "__file__", None)
        if source and Path(source).resolve() in files:
            found[name] = module
    return found


def test_every_listed_test_is_collected(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [entry for entry in LIST.read_text().splitlines() if entry]
    assert entries
    assert len(set(entries)) == len(entries), "an entry listed twice"
    # Collected as scripts/sanitize.sh runs them: the same arguments, at the sanitized depth
    # (tests/tiers.py), which the listed modules read when imported (their parameters). In this
    # process, not a new one: the samples those modules parametrize over were loaded here
    # already in a suite run (tests/differential.py keeps them), which a fresh interpreter
    # would load again. The listed modules are imported afresh at that depth, and the ones
    # this process had put back after.
    files = {(ROOT / entry.partition("::")[0]).resolve() for entry in entries}
    before = _modules_of(files)
    for name in before:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setenv("BRSON_SANITIZE", "1")
    monkeypatch.setattr(tiers, "SANITIZED", True)
    monkeypatch.chdir(ROOT)
    collected = _Collected()
    try:
        code = pytest.main(COLLECT, plugins=[collected])
    finally:
        for name in _modules_of(files):
            if name not in before:
                del sys.modules[name]
    output = capsys.readouterr()
    assert code == 0, output.out[-3000:] + output.err[-3000:]
    for entry in entries:
        # a whole function (its every case) or one case of a parametrized one
        assert any(
            nodeid == entry or nodeid.startswith(f"{entry}[") for nodeid in collected.nodeids
        ), f"{entry} is not a test"
