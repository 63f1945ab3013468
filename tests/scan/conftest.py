"""The scan tests' library: generated archives (fixtures/scan/make_corpus.py; ~420, or
~1,800 with BRSON_EXHAUSTIVE=1) made once per session, and one clean single-worker index every
other scan is compared with.

duckdb, pyarrow and dask must be installed: without the ``scan``/``dask`` extras these tests
fail (an error at collection), they never skip. dask.distributed is only looked up here (its
import costs every collecting process about a second; the Dask tests import it)."""

from __future__ import annotations

import importlib.util
import multiprocessing
from collections.abc import Callable
from multiprocessing import forkserver
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import pyarrow  # noqa: F401
import pytest

from brson.scan import engine
from brson.scan.extract import Options
from brson.scan.schema import TABLES
from tests.tiers import sweep

for _extra in ("dask", "distributed"):
    if importlib.util.find_spec(_extra) is None:
        raise ImportError(f"{_extra} is not installed (the dask extra): the scan tests need it")

PROJECT_ROOT = Path(__file__).resolve().parents[2]
#: Items in the test library (plus duplicates, broken, hostile and real files, ~420 files in
#: all): enough for a scan killed mid-way to have committed several shards of 40 and have
#: more to go, and for every generator pattern (codecs, packages, types, duplicates) to
#: repeat; each of the five scans of the whole library costs in proportion.
ITEMS = sweep(1500, 300)
#: Bombs are refused at this size instead of being decompressed to 4 GiB's check: the
#: largest good file of the library is under 300 KB decompressed, and each scan decompresses
#: the Brotli bomb up to here (0.3 s of CPU a scan at 32 MiB, 0.05 s at 4).
MAX_SIZE = 4 << 20
OPTIONS = Options(max_size=MAX_SIZE)


def load_generator() -> ModuleType:
    path = PROJECT_ROOT / "fixtures" / "scan" / "make_corpus.py"
    spec = importlib.util.spec_from_file_location("make_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("library")
    load_generator().make(root, ITEMS)
    return root


#: What the scan's own forkserver preloads, and Dask's worker code.
FORKSERVER_PRELOAD = [*engine.FORKSERVER_PRELOAD, "distributed"]
#: The test whose Dask worker processes fork from this process's forkserver.
DASK_WORKERS_TEST = "test_dask_local_cluster_identical"


def start_forkserver_for_dask(session: pytest.Session) -> None:
    """When the Dask LocalCluster test runs in this session, the forkserver (which the first
    scan would start with brson's and pyarrow's modules) starts now with Dask's too: each of
    its two worker processes then forks with ``distributed`` imported instead of importing
    it itself (about 2.3 s of CPU a worker; the server's one import about 2.1 s).  A server
    already running is kept as it is; the local engine's workers are the same forks either
    way."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    if not any(item.name == DASK_WORKERS_TEST for item in session.items):
        return
    forkserver.set_forkserver_preload(FORKSERVER_PRELOAD)
    forkserver.ensure_running()


@pytest.fixture(scope="session")
def clean_index(
    corpus: Path, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Path:
    """The reference: one worker, local engine, default batch."""
    start_forkserver_for_dask(request.session)
    out = tmp_path_factory.mktemp("clean") / "index"
    summary = engine.scan([corpus], out, options=OPTIONS, workers=1)
    assert summary.scanned == summary.files > ITEMS
    return out


def dump_tables(index: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every view's rows, sorted, without ``seconds`` (the one column that varies by run):
    two indexes of the same library compare equal exactly when these are equal."""
    con = duckdb.connect(str(index / "brson.duckdb"), read_only=True)
    try:
        out = {}
        for table in TABLES:
            exclude = " EXCLUDE (seconds)" if table == "files" else ""
            out[table] = con.execute(f"SELECT *{exclude} FROM {table} ORDER BY ALL").fetchall()
        return out
    finally:
        con.close()


def sql(index: Path) -> Callable[[str], list[tuple[Any, ...]]]:
    def run(query: str) -> list[tuple[Any, ...]]:
        con = duckdb.connect(str(index / "brson.duckdb"), read_only=True)
        try:
            return con.execute(query).fetchall()
        finally:
            con.close()

    return run


#: The pytest-xdist group of every test that reads the library: one worker builds the library
#: and its clean index once, instead of each worker building its own.
LIBRARY_GROUP = "scan-library"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if item.path.is_relative_to(here) and ("corpus" in fixtures or "clean_index" in fixtures):
            item.add_marker(pytest.mark.xdist_group(LIBRARY_GROUP))
