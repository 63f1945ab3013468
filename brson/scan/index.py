"""The index directory: its marker, its lock, the state of the last scan and the DuckDB views.

``brson.duckdb`` holds no rows, only views over the Parquet shards; each view shows, for every
file, the rows of the latest shard that wrote it (a re-scan supersedes, a ``deleted`` row in a
later shard hides a removed file's rows).  Rewriting the database is cheap, so every scan ends
by writing it anew (temp + rename): a moved index is fixed by scanning it again.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brson.fileio import LockedError, exclusive_lock, read_bytes, write_atomic
from brson.scan import shards
from brson.scan.deps import ScanError, need
from brson.scan.extract import Options, Rows
from brson.scan.schema import TABLES


def connect(path: str, *, read_only: bool = False) -> Any:
    """A DuckDB connection without DuckDB's own progress bar (it draws one on stdout for
    queries over ~2 s, into the JSON or CSV a user is piping)."""
    duckdb = need("duckdb")
    con = duckdb.connect(path, read_only=read_only)
    con.execute("SET enable_progress_bar = false")
    return con


#: A marker is a few hundred bytes; anything far larger is not ours.
_MARKER_LIMIT = 1 << 20
MARKER = "brson-index.json"
DB = "brson.duckdb"
LOCK = ".lock"
FORMAT = "brson-scan-index"
VERSION = 1


@dataclass(frozen=True)
class Known:
    """A file as the index last saw it."""

    size: int | None
    mtime_ns: int | None
    sha256: str | None


def _marker(root: Path) -> dict[str, Any] | None:
    path = root / MARKER
    if not path.exists():
        return None
    try:
        data = json.loads(read_bytes(path, _MARKER_LIMIT))
    except ValueError:
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ScanError(f"{MARKER} is not a brson index marker", file=str(root))
    return data


def check_index(root: Path) -> dict[str, Any]:
    """The marker of an existing index, or ScanError (for ``query``)."""
    if not root.is_dir():
        raise ScanError("no such index (run brson scan first)", file=str(root))
    marker = _marker(root)
    if marker is None or not (root / DB).exists():
        raise ScanError("not a brson index (no brson-index.json or brson.duckdb)", file=str(root))
    return marker


@contextlib.contextmanager
def writing(root: Path) -> Iterator[dict[str, Any] | None]:
    """Hold the index for writing: refuse a folder that is something else (never overwrite
    a user's files), create a new index, and lock it against a second scan. Yields the old
    marker (None for a new index)."""
    if root.exists() and not root.is_dir():
        raise ScanError("exists and is not a folder; an index is a folder", file=str(root))
    if _GLOB_CHARS & set(str(root)):
        raise ScanError("an index path cannot contain * ? or [ (DuckDB reads it as a glob)")
    marker = _marker(root) if root.exists() else None
    if marker is None and root.exists() and not all(map(_ours, root.iterdir())):
        raise ScanError(
            "exists, is not empty and is not a brson index; choose a new folder", file=str(root)
        )
    try:
        root.mkdir(parents=True, exist_ok=True)
        (root / shards.SHARDS).mkdir(exist_ok=True)
    except OSError as exc:
        raise ScanError(f"cannot create the index ({exc.strerror})", file=str(root)) from None
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(exclusive_lock(root / LOCK))
        except LockedError:
            raise ScanError("another scan is writing this index", file=str(root)) from None
        if marker is None:  # an index from now on, whatever happens next ("mixed" options)
            write_marker(root, None)
        shards.clear_tmp(root)
        if shards.EMPTY not in shards.committed(root):
            shards.write_shard(root, shards.EMPTY, Rows())
            shards.commit(root, shards.EMPTY)
        yield marker


_GLOB_CHARS = frozenset("*?[")


def _ours(entry: Path) -> bool:
    """What a scan killed before its marker was written can have left in a new index."""
    return entry.name in (LOCK, shards.SHARDS, shards.TMP) or entry.name.startswith(f".{MARKER}.")


def next_scan(root: Path) -> int:
    """The number of this scan: one more than any committed shard's."""
    numbers = [int(name.split("-", 1)[0]) for name in shards.committed(root)]
    return max(numbers, default=0) + 1


def known_files(root: Path) -> dict[str, Known]:
    """Every file the index holds now (deleted ones excluded), read from the shards."""
    duckdb = need("duckdb")
    con = connect(":memory:")
    try:
        rows = con.execute(
            f"SELECT path, size, mtime_ns, sha256 FROM ({_current_sql(root)}) "
            "WHERE status <> 'deleted'"
        ).fetchall()
    except duckdb.Error as exc:
        raise ScanError(f"the index's shards cannot be read: {exc}", file=str(root)) from None
    finally:
        con.close()
    return {path: Known(size, mtime, sha) for path, size, mtime, sha in rows}


def write_marker(root: Path, options: Options | None) -> None:
    """``options``: those every row was made with, None while rows of two option sets mix."""
    data = {
        "format": FORMAT,
        "version": VERSION,
        "options": options.as_dict() if options is not None else None,
    }
    write_atomic(root / MARKER, (json.dumps(data, indent=2) + "\n").encode())


def write_deleted(root: Path, shard: str, paths: list[str]) -> None:
    """Mark removed files deleted: a shard of ``files`` rows with status ``deleted``."""
    rows = Rows()
    for path in paths:
        rows.add("files", {"path": path, "status": "deleted"})
    shards.write_shard(root, shard, rows)
    shards.commit(root, shard)


def _glob(root: Path, table: str) -> str:
    text = str(root.absolute() / shards.SHARDS / "*" / f"{table}.parquet")
    return "'" + text.replace("'", "''") + "'"


def _current_sql(root: Path) -> str:
    """Each file's latest ``files`` row (with its shard)."""
    return (
        f"SELECT * FROM read_parquet({_glob(root, 'files')}) "
        "QUALIFY row_number() OVER (PARTITION BY path ORDER BY shard DESC) = 1"
    )


def view_sql(root: Path) -> list[str]:
    """The statements that define the views: ``raw_<table>`` over every shard's Parquet
    file, then :func:`derived_views` over those."""
    out = [
        f"CREATE VIEW raw_{table} AS SELECT * FROM read_parquet({_glob(root, table)})"
        for table in TABLES
    ]
    return out + derived_views()


def derived_views() -> list[str]:
    """The views over ``raw_<table>``: ``files`` (deleted files included, with that status),
    every other table restricted to the live files' current shard.  ``brson query`` defines
    them itself over its own ``raw_<table>`` (:mod:`brson.scan.query`), never trusting the
    views a ``brson.duckdb`` holds."""
    out = [
        "CREATE VIEW live AS SELECT path, shard FROM raw_files "
        "QUALIFY row_number() OVER (PARTITION BY path ORDER BY shard DESC) = 1 "
        "AND status <> 'deleted'",
        "CREATE VIEW files AS SELECT * EXCLUDE (shard) FROM raw_files "
        "QUALIFY row_number() OVER (PARTITION BY path ORDER BY shard DESC) = 1",
    ]
    for table in TABLES:
        if table == "files":
            continue
        out.append(
            f"CREATE VIEW {table} AS SELECT t.* EXCLUDE (shard) FROM raw_{table} t "
            "JOIN live USING (path, shard)"
        )
    return out


def shard_files(root: Path, table: str) -> list[str]:
    """Every committed shard's Parquet file of ``table``: only real folders and regular files
    inside ``shards/`` (a symlink or a FIFO planted in a hostile index is not read)."""
    out = []
    for name in shards.committed(root):
        folder = root / shards.SHARDS / name
        target = folder / f"{table}.parquet"
        try:
            if folder.is_symlink() or not stat.S_ISREG(os.lstat(target).st_mode):
                continue
        except OSError:
            continue
        out.append(str(target))
    return out


def write_database(root: Path) -> None:
    """Write ``brson.duckdb`` anew (temp + rename: a reader never sees a half-made one)."""
    tmp = root / shards.TMP / DB
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    con = connect(str(tmp))
    try:
        for statement in view_sql(root):
            con.execute(statement)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    os.replace(tmp, root / DB)


def compact(root: Path) -> int:
    """Rewrite the live rows as one new shard and drop the shards it supersedes; returns how
    many shards were dropped.  Safe to kill at any point: the compacted shard is committed
    (one rename) before anything is removed, and old shards go oldest first, each by a rename
    out of ``shards/`` (a file's latest row among those left is always its true latest, so a
    deleted file cannot come back).  Deleted files' rows are dropped for good."""
    shard = shards.shard_name(next_scan(root), 0)
    folder = root / shards.TMP / shard
    folder.mkdir(parents=True)
    old = [name for name in shards.committed(root) if name != shards.EMPTY]
    con = connect(":memory:")
    try:
        for statement in view_sql(root):
            con.execute(statement.replace("CREATE VIEW", "CREATE TEMP VIEW"))
        for table, columns in TABLES.items():
            names = ", ".join(
                f"'{shard}' AS shard" if c.name == "shard" else f'"{c.name}"' for c in columns
            )
            source = "files WHERE status <> 'deleted'" if table == "files" else table
            target = str(folder / f"{table}.parquet").replace("'", "''")
            con.execute(
                f"COPY (SELECT {names} FROM {source}) TO '{target}' "
                "(FORMAT parquet, COMPRESSION zstd)"
            )
    finally:
        con.close()
    shards.commit(root, shard)
    for name in old:  # oldest first
        os.rename(root / shards.SHARDS / name, root / shards.TMP / f"old-{name}")
        shutil.rmtree(root / shards.TMP / f"old-{name}")
    return len(old)
