"""What the differential tests of brson's C accelerators share: the guard that CI built each
extension, and the real inputs they run both paths over.

Each accelerator (the modules of ``brson._speedups``) is held to its Python reference on
the same files, in the same order (samples, then fixtures, each sorted within itself: seeded
mutations must not depend on where the checkout lies).

The inputs are read, decompressed and loaded once per test process and shared (``functools.cache``):
several modules parametrize over them, and each used to load every file again at import.  The
parametrized modules still need the names at collection, so the first of them fills the cache;
the others, and the tests that take them whole, reuse it.  Tests only read what they get here
(an edit works on a copy).
"""

from __future__ import annotations

import functools
import zipfile
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import pytest

import brson
from brson._speedups import PURE_PYTHON
from brson.api import to_bson
from brson.errors import BrsonError
from brson.model import DataTree
from tests.conftest import FIXTURES, SAMPLES
from tests.tiers import EXHAUSTIVE

#: Larger files would only slow the tests down (every real input is far smaller).  It bounds
#: what a file decompresses to as well: the fixtures' bombs, refused either way, would each
#: decompress up to brson's default limit first (0.3 s of CPU apiece, in every test process
#: that collects a module parametrized over these inputs).
MAX_SIZE = 8 << 20


def check_built(extension: ModuleType | None, accelerated: bool, dotted: str) -> None:
    """CI builds every extension (``pip install -e .``); a silent fallback there would leave
    it untested, so the skip fails in CI (tests/conftest.py). Built, the module uses it unless
    ``BRSON_PURE_PYTHON`` forces the Python path."""
    if extension is not None:
        assert accelerated is not PURE_PYTHON
        return
    pytest.skip(f"{dotted} is not built (pip install -e . compiles it)")


def covering(names: Iterable[str], chosen: Iterable[str]) -> list[str]:
    """The inputs a sweep of mutated copies runs on, of ``names`` (sorted): every real
    sample's, and of the fixtures and synthetic worlds those ``chosen`` by coverage (C by
    gcov, Python by coverage.py, line and branch, case by case: the other fixtures' cases
    reach nothing these do not; most are one tree with one thing changed, or one tree in
    another container); every input with BRSON_EXHAUSTIVE=1.  A new sample joins with no
    change; a chosen name that is gone fails collection, so the cover cannot shrink
    unnoticed."""
    names = sorted(names)
    chosen = frozenset(chosen)
    missing = chosen.difference(names)
    assert not missing, f"chosen inputs not found: {sorted(missing)}"
    samples = {p.name for p in SAMPLES.iterdir()} if SAMPLES.is_dir() else set()

    def is_sample(name: str) -> bool:
        return name.split(":")[0].removesuffix(" (BSON)") in samples

    return [n for n in names if EXHAUSTIVE or n in chosen or is_sample(n)]


def input_files(max_size: int | None = MAX_SIZE) -> list[Path]:
    """Every file of the shared samples and of fixtures/ (generated ones too; no size limit
    with ``max_size=None``), not the bytecode Python caches beside the generators: which of it
    exists depends on what ran before, and each pytest-xdist worker must collect the same tests."""
    found = [p for d in (SAMPLES, FIXTURES) if d.is_dir() for p in sorted(d.rglob("*"))]
    return [
        p
        for p in found
        if p.is_file()
        and p.suffix not in (".py", ".pyc", ".md")
        and "__pycache__" not in p.parts
        and (max_size is None or p.stat().st_size <= max_size)
    ]


@functools.cache
def sample_parts() -> tuple[tuple[str, bytes], ...]:
    """Each file's bytes, and each member of a zip (a package) as a part of its own."""
    parts: list[tuple[str, bytes]] = []
    for path in input_files():
        data = path.read_bytes()
        parts.append((path.name, data))
        if not zipfile.is_zipfile(path):
            continue
        try:
            with zipfile.ZipFile(path) as archive:
                members = [
                    (f"{path.name}:{info.filename}", archive.read(info))
                    for info in archive.infolist()
                    if info.file_size < MAX_SIZE
                ]
        except (zipfile.BadZipFile, OSError, NotImplementedError, ValueError):
            continue
        parts.extend(members)
    return tuple(parts)


@functools.cache
def part_trees_bson() -> dict[str, bytes]:
    """The tree BSON of every part of :func:`sample_parts` brson loads, by part name."""
    found: dict[str, bytes] = {}
    for name, part in sample_parts():
        try:
            found[name] = to_bson(brson.loads(part, name=name, max_size=MAX_SIZE))
        except (BrsonError, MemoryError):
            continue
    return found


@functools.cache
def loaded_buffers() -> tuple[tuple[Path, bytes], ...]:
    """Every input file (of any size) ``brson.load`` reads, with its tree's buffer: trees up
    to :data:`MAX_SIZE`, which refuses the bombs before they decompress to the default limit."""
    found: list[tuple[Path, bytes]] = []
    for path in input_files(max_size=None):
        try:
            found.append((path, brson.load(path, max_size=MAX_SIZE).buffer))
        except Exception:  # any refusal: these tests compare two readers of what loads
            continue
    return tuple(found)


@functools.cache
def loadable_trees() -> dict[str, DataTree]:
    """Every sample and fixture brson loads, by file name: the differential tests compare two
    readers of one tree, so files the loader refuses have nothing to compare."""
    trees: dict[str, DataTree] = {}
    for path in input_files():
        try:
            trees[path.name] = brson.loads(path.read_bytes(), name=path.name, max_size=MAX_SIZE)
        except (BrsonError, MemoryError):
            continue
    return trees
