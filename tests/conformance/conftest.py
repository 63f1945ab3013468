"""The conformance matrix's files, its check counter and the size line at the end of the run.

Files: every archive and package in ``../shared/samples/`` (globbed, so a new file joins with
no code change), each package's main tree as an archive, and the writer variants
(:mod:`conformance.writers`) derived from them.  Operations: the ``test_*`` functions of the
``test_*.py`` modules here (one a family: reports, conversions, extract, edits, exports, no
overwrite), each parametrized over every file; what they share is :mod:`conformance.checks`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.tiers import EXHAUSTIVE

from .writers import BROTLI_SETTINGS, Sample, corpus

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples"
CORPUS: list[Sample] = corpus(SAMPLES) if SAMPLES.is_dir() else []

#: Cells that fail on main for a defect listed in issue 11 and being fixed elsewhere:
#: (operation, defect number, file patterns, exceptions).  Each is a strict xfail, so the fix
#: landing turns the cell red here until its entry is removed.
KNOWN: list[tuple[str, int, tuple[str, ...], tuple[str, ...]]] = []


def known_defect(operation: str, name: str) -> int | None:
    for op, defect, patterns, but in KNOWN:
        if op != operation or any(fnmatch.fnmatch(name, b) for b in but):
            continue
        if any(fnmatch.fnmatch(name, p) for p in patterns):
            return defect
    return None


#: The name under which a cell's test reports carry its tally, ``[file, operation, checks]``
#: (``user_properties``; the call's report has the final count).  Reports reach the process
#: that prints the summary, so the size line adds up cells that pytest-xdist workers ran.
CELL_PROPERTY = "conformance_cell"


Check = Callable[..., None]


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus written once per session (inputs are read-only to every operation)."""
    where = tmp_path_factory.mktemp("corpus")
    for sample in CORPUS:
        (where / sample.name).write_bytes(sample.data)
    return where


#: Operations whose outcome depends on the output's path alone (an output naming an input is
#: refused before anything is written, whatever the document holds): they run on every real
#: file and every kind of container (the real ones, and a headerless ``.bson``), not on each
#: document convention of the writer variants.
PATH_ONLY = {"test_no_overwrite", "test_no_overwrite_godot", "test_no_overwrite_hard_link"}


#: Operations that read or write a file's container, not only its document: the ones the
#: Brotli-settings variants run by default.  Each one's document is byte for byte a real
#: file's (the largest or the smallest package's main tree), whose cells run every operation,
#: and brson decodes every Brotli setting through one path, so the other operations would
#: repeat those cells exactly; BRSON_EXHAUSTIVE=1 runs them too.
CONTAINER_OPS = {
    "test_info",
    "test_tree",
    "test_refs",
    "test_json",
    "test_convert",
    "test_validate",
    "test_diff",
    "test_export_gltf",
}


#: Every operation of the matrix in a fixed order (each ``test_*`` function of the modules
#: here): an operation's place in it picks which document carries each variant for it.
OPERATIONS = sorted(
    name
    for module in Path(__file__).parent.glob("test_*.py")
    for name in re.findall(r"^def (test_\w+)\(", module.read_text(encoding="utf-8"), re.M)
)


def _covering(operation: str) -> list[Sample]:
    """The default run's files for ``operation``: every real file, and each writer variant on
    one document only, a different one for each operation in turn (so across the operations
    every variant meets every document it applies to, and every operation every variant).
    A variant changes one convention of the document; which operations read that convention
    depends on the variant, not on the document's size, so this keeps every kind of cell
    while the full product (every variant of every document for every operation) is
    BRSON_EXHAUSTIVE=1's."""
    place = OPERATIONS.index(operation) if operation in OPERATIONS else 0
    by_variant: dict[str, list[Sample]] = {}
    for sample in CORPUS:
        by_variant.setdefault(sample.variant, []).append(sample)
    out: list[Sample] = []
    for turn, (variant, samples) in enumerate(by_variant.items()):
        if variant in ("", "main tree"):
            out.extend(samples)
        elif variant in BROTLI_SETTINGS:
            out.extend(samples if operation in CONTAINER_OPS else [])
        elif variant == "headerless" and operation in CONTAINER_OPS:
            out.extend(samples)  # a container of its own: every document's, like the real ones
        else:
            out.append(samples[(place + turn) % len(samples)])
    order = {s.name: i for i, s in enumerate(CORPUS)}
    return sorted(out, key=lambda s: order[s.name])


def _files_for(operation: str) -> list[Sample]:
    if operation in PATH_ONLY:
        return [s for s in CORPUS if s.variant in ("", "main tree", "headerless")]
    if EXHAUSTIVE:
        return CORPUS
    return _covering(operation)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "sample" in metafunc.fixturenames:
        if not CORPUS:
            metafunc.parametrize(
                "sample", [pytest.param(None, marks=pytest.mark.skip("no samples"))]
            )
            return
        files = _files_for(metafunc.function.__name__)
        metafunc.parametrize("sample", files, ids=[s.name for s in files])


def _operation(request: pytest.FixtureRequest) -> str:
    return request.node.originalname.removeprefix("test_").replace("_", "-")


@pytest.fixture
def check(request: pytest.FixtureRequest, sample: Sample) -> Check:
    """``check(condition, message)``: one counted invariant of this cell."""
    operation = _operation(request)
    defect = known_defect(operation, sample.name)
    if defect is not None:
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"issue 11 defect {defect}"))
    cell: list[Any] = [sample.name, operation, 0]
    request.node.user_properties.append((CELL_PROPERTY, cell))

    def run(condition: object, message: str = "") -> None:
        cell[2] += 1
        assert condition, message

    return run


@pytest.fixture
def path(sample: Sample, corpus_dir: Path) -> Path:
    return corpus_dir / sample.name


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    cells: set[tuple[str, str]] = set()
    checks = 0
    for reports in terminalreporter.stats.values():
        for r in reports:
            if getattr(r, "when", None) != "call":
                continue
            for name, value in getattr(r, "user_properties", ()):
                if name == CELL_PROPERTY:
                    cells.add((value[0], value[1]))
                    checks += value[2]
    if not cells:
        return
    files = len({f for f, _ in cells})
    operations = len({o for _, o in cells})
    failed = sum(
        1
        for outcome in ("failed", "error")
        for r in terminalreporter.stats.get(outcome, [])
        if "tests/conformance/" in getattr(r, "nodeid", "")
    )
    xfailed = sum(
        1
        for r in terminalreporter.stats.get("xfailed", [])
        if "tests/conformance/" in getattr(r, "nodeid", "")
    )
    state = "all passed" if not failed else f"{failed} failed"
    if xfailed:
        state += f", {xfailed} known defect(s) xfailed"
    terminalreporter.write_line(
        f"conformance matrix: {files} files x {operations} operations = "
        f"{len(cells)} cells, {checks} checks, {state}"
    )
