"""One worker, two workers and a real Dask LocalCluster (processes) give identical tables;
so does a scan killed by SIGKILL mid-way and run again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brson.scan import engine
from tests.scan.conftest import MAX_SIZE, OPTIONS, dump_tables

pytestmark = pytest.mark.slow  # a real Dask LocalCluster and killed scans


def test_clean_index_has_every_table(clean_index: Path) -> None:
    tables = dump_tables(clean_index)
    for name in ("files", "components", "types", "assets", "findings"):
        assert tables[name], name
    assert not tables["slots"] and not tables["refs"]  # only with --slots / --refs


def test_two_workers_identical(corpus: Path, clean_index: Path, tmp_path: Path) -> None:
    summary = engine.scan([corpus], tmp_path / "i2", options=OPTIONS, workers=2, batch=97)
    assert summary.shards > 2
    assert dump_tables(tmp_path / "i2") == dump_tables(clean_index)


def test_dask_local_cluster_identical(corpus: Path, clean_index: Path, tmp_path: Path) -> None:
    import dask
    import dask.distributed  # its config defaults in place before the set below: leaving
    # the set restores the config as it was, and would drop the defaults loaded inside it

    # Worker processes forked from a server, as Dask's own test suite starts them: the one
    # the clean index's fixture started, with brson, pyarrow and Dask imported
    # (tests/scan/conftest.py), instead of a fresh interpreter importing them for each.
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        summary = engine.scan(
            [corpus], tmp_path / "dask", options=OPTIONS, workers=2, engine="dask", batch=128
        )
    assert summary.engine == "dask" and summary.scanned == summary.files
    assert dump_tables(tmp_path / "dask") == dump_tables(clean_index)


def test_sigkill_then_rerun_identical(corpus: Path, clean_index: Path, tmp_path: Path) -> None:
    index = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "brson",
        "--max-size",
        str(MAX_SIZE),
        "scan",
        str(corpus),
        "-o",
        str(index),
        "--batch",
        "40",
    ]
    # Its own process group, so the kill takes the worker processes with it.
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    shards = index / "shards"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if shards.is_dir() and len(os.listdir(shards)) >= 6:  # the empty shard + 5
                break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.02)
        else:
            raise AssertionError("no shard committed in time")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL
    committed = len(os.listdir(shards)) - 1
    assert 5 <= committed < len(dump_tables(clean_index)["files"]) // 40  # truly mid-way
    summary = engine.scan([corpus], index, options=OPTIONS, workers=2)
    assert summary.unchanged >= 5 * 40  # the committed shards' files were kept, not redone
    assert summary.unchanged + summary.scanned == summary.files
    assert dump_tables(index) == dump_tables(clean_index)


def test_dask_scheduler_address(fixtures_dir: Path, tmp_path: Path) -> None:
    """--scheduler: a running cluster's address (here a LocalCluster started by the test)."""
    import logging

    from dask.distributed import LocalCluster

    library = fixtures_dir / "validate"
    local = engine.scan([library], tmp_path / "local", options=OPTIONS, batch=9)
    # The worker a thread of this process: the point is a scheduler reached by its address
    # over TCP (the worker processes are test_dask_local_cluster_identical's).
    with LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        protocol="tcp://",
        dashboard_address=":0",  # any free port: None is the default 8787, taken by a parallel test
        silence_logs=logging.ERROR,
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        remote = engine.scan(
            [library],
            tmp_path / "remote",
            options=OPTIONS,
            engine="dask",
            scheduler=cluster.scheduler_address,
            batch=9,
        )
    assert remote.scanned == local.scanned == local.files > 30
    assert dump_tables(tmp_path / "remote") == dump_tables(tmp_path / "local")


def test_scheduler_without_dask_refused_before_any_work(corpus: Path, tmp_path: Path) -> None:
    """A scheduler address for the local engine is a usage error, said before the index
    folder is made, not after the corpus was walked."""
    with pytest.raises(engine.ScanError, match="--scheduler is for --engine dask"):
        engine.scan([corpus], tmp_path / "idx", options=OPTIONS, scheduler="tcp://127.0.0.1:1")
    assert not (tmp_path / "idx").exists()
