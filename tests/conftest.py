"""Shared pytest setup for every test package: where the data lives, one hypothesis profile.

Kept small and general on purpose; layer-specific helpers live next to their tests.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Generator
from pathlib import Path

import pytest
from hypothesis import settings

#: The repository root (the directory holding ``brson/`` and ``fixtures/``).
PROJECT_ROOT = Path(__file__).resolve().parent.parent
#: Real archives written by Resonite / NeosVR (see its MANIFEST.md); may be absent outside
#: the development checkout, so tests that need it skip through :func:`samples_dir`.
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
#: Generated archives (``fixtures/make_fixtures.py``) and copies of small real files.
FIXTURES = PROJECT_ROOT / "fixtures"

# Deterministic property tests: the same examples on every run and machine, no deadline
# flakiness on slow CI, no example database written into the checkout.  Select another
# profile with ``--hypothesis-profile`` when hunting for new failures.
settings.register_profile("brson", derandomize=True, deadline=None, database=None)
settings.register_profile("explore", deadline=None, max_examples=2000)
settings.load_profile("brson")


#: CI (``CI=true``, set by .ci/run) installs every tool, engine and sample the suite uses, so
#: there a skip means a check that silently did not run: it fails instead.  One rule for every
#: skip (a missing Godot, Blender, Chromium, glTF-Validator, C extension, sample), so each test
#: only says what is missing.
IN_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def pytest_configure(config: pytest.Config) -> None:
    """pytest 9.2 broke ``--dist loadgroup`` (see :func:`_check_groups`): say so up front, where
    the message is seen, rather than as a worker's internal error."""
    if getattr(config.option, "dist", "") == "loadgroup" and pytest.version_tuple[:2] >= (9, 2):
        raise pytest.UsageError(
            f"pytest {pytest.__version__} does not honour --dist loadgroup (pytest-xdist issue"
            " 1386): install the test extra again (pyproject.toml pins pytest below 9.2)"
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped in CI (CI=true), where nothing may be missing: {reason}"


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (every test module and its parameters, the conformance corpus)
    lives to the end of the run: it is moved out of the cyclic collector's reach, so the
    automatic collections, and the explicit one before each count of the complexity guards,
    walk only what the tests themselves make (the whole suite's objects cost each of them
    about 0.2 s of CPU)."""
    if getattr(session.config.option, "loadgroup", False):
        _check_groups(session.items)
    gc.collect()
    gc.freeze()


def _check_groups(items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup`` each worker renames a grouped test ``<id>@<group>``, and the
    scheduler sends a group to one worker: that is what starts each engine, browser and scan
    library once. pytest 9.2 stopped honouring the rename (pytest-xdist issue 1386) and the
    groups were spread over every worker with no message; the suite stops instead."""
    for item in items:
        if any(item.iter_markers("xdist_group")) and "@" not in item.nodeid:
            raise pytest.UsageError(
                f"--dist loadgroup does not group {item.nodeid}: this pytest and pytest-xdist"
                " do not work together (pyproject.toml pins pytest below 9.2)"
            )


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    """The real-sample directory; skips the test when it is not there."""
    if not SAMPLES.is_dir():
        pytest.skip(f"real samples not found at {SAMPLES}")
    return SAMPLES


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """The generated-fixture directory."""
    return FIXTURES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Count the tests that ran a real Godot engine, so a CI log shows they ran, not skipped."""
    counts: dict[str, dict[str, int]] = {}
    for outcome in ("passed", "failed", "skipped", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            nodeid: str = getattr(report, "nodeid", "")
            if "_engine" not in nodeid or (outcome == "passed" and report.when != "call"):
                continue
            params = nodeid.partition("[")[2]
            if params.startswith(("godot3", "3]")):
                engine = "godot3"
            elif params.startswith(("godot4", "4]")):
                engine = "godot4"
            else:
                continue  # checks about the engine runs, not runs of one engine
            per = counts.setdefault(engine, {})
            per[outcome] = per.get(outcome, 0) + 1
    for engine, per in sorted(counts.items()):
        line = ", ".join(f"{n} {outcome}" for outcome, n in sorted(per.items()))
        terminalreporter.write_line(f"real {engine} engine tests: {line}")
