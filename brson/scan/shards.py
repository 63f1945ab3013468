"""Shards: one batch of files, every table as one Parquet file, committed by one rename.

Layout of an index directory::

    INDEX/brson-index.json        what the index is (format, options of the last scan)
    INDEX/brson.duckdb            the views over the shards (brson.scan.index)
    INDEX/shards/SSSSSS-BBBBBB/   committed shards: files.parquet, components.parquet, ...
    INDEX/tmp/SSSSSS-BBBBBB/      shards being written (a killed scan leaves some; removed)

A worker writes a batch's tables into ``tmp/<shard>/`` and fsyncs them; the coordinator
commits the shard by renaming the directory into ``shards/`` (one ``rename``: atomic on a
POSIX filesystem).  A kill at any moment leaves each shard either committed whole or absent,
so a re-run neither loses nor duplicates rows.  Shard names sort by scan then batch number;
a later shard's rows for a file supersede an earlier one's (the views pick the latest).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from brson.fileio import fsync_path
from brson.scan.deps import need
from brson.scan.extract import Options, Rows, Task, scan_file
from brson.scan.schema import TABLES

SHARDS = "shards"
TMP = "tmp"
#: The empty shard every index starts with, so every table's glob matches at least one file.
EMPTY = "000000-000000"


@dataclass(frozen=True)
class BatchResult:
    """What a worker reports back: counts only, never rows (memory stays flat)."""

    shard: str | None  # None: every file was unchanged, nothing written
    scanned: int
    unchanged: int
    failed: int
    rows: int
    seconds: float
    #: The first :data:`FAILURES_NAMED` files that failed, each with why (path, problem).
    failures: tuple[tuple[str, str], ...] = ()


#: Failed files a scan names (the CLI lists them); the index's ``broken`` report has them all.
FAILURES_NAMED = 20


def shard_name(scan: int, batch: int) -> str:
    return f"{scan:06d}-{batch:06d}"


def scan_batch(index: str, shard: str, tasks: Sequence[Task], options: Options) -> BatchResult:
    """Scan ``tasks`` and write their rows as shard ``shard`` under ``index/tmp``; the
    coordinator commits it (:func:`commit`).  Runs in a worker (process pool or Dask)."""
    started = time.perf_counter()
    rows = Rows()
    unchanged = failed = 0
    failures: list[tuple[str, str]] = []
    for task in tasks:
        status = scan_file(task, options, rows)
        unchanged += status == "unchanged"
        if status == "error":
            failed += 1
            if len(failures) < FAILURES_NAMED:
                row = rows.tables["files"][-1]  # the failed file's own row, just added
                failures.append(
                    (row["path"], f"{row['error_layer']} error: {row['error_message']}")
                )
    scanned = len(tasks) - unchanged
    if not scanned:
        return BatchResult(None, 0, unchanged, 0, 0, time.perf_counter() - started)
    total = write_shard(Path(index), shard, rows)
    return BatchResult(
        shard, scanned, unchanged, failed, total, time.perf_counter() - started, tuple(failures)
    )


def write_shard(index: Path, shard: str, rows: Rows) -> int:
    """Every table of ``rows`` (empty ones too) as ``tmp/<shard>/<table>.parquet``."""
    pa = need("pyarrow")
    pq = need("pyarrow.parquet")
    from brson.scan.schema import arrow_schema

    folder = index / TMP / shard
    if folder.exists():  # left by a killed attempt at the same shard
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    total = 0
    for table in TABLES:
        items = rows.tables.get(table, [])
        for item in items:
            item["shard"] = shard
        total += len(items)
        arrow = pa.Table.from_pylist(items, schema=arrow_schema(table))
        target = folder / f"{table}.parquet"
        pq.write_table(arrow, target, compression="zstd")
        fsync_path(target)
    fsync_path(folder)
    return total


def commit(index: Path, shard: str) -> None:
    """Make a written shard part of the index: one atomic rename, then the folder synced."""
    os.rename(index / TMP / shard, index / SHARDS / shard)
    fsync_path(index / SHARDS)


def committed(index: Path) -> list[str]:
    """Committed shard names, oldest first."""
    folder = index / SHARDS
    if not folder.is_dir():
        return []
    return sorted(entry.name for entry in os.scandir(folder) if entry.is_dir(follow_symlinks=False))


def clear_tmp(index: Path) -> None:
    """Remove shards a killed scan left half-written (called under the index lock)."""
    folder = index / TMP
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
