"""Reading an index: SQL or a named report over its shards, in a sandbox.

A query is text from anyone (a script, a web form around the CLI), and the index folder may
come from anyone too, so neither is trusted:

- the connection is an in-memory DuckDB that never opens ``brson.duckdb``: the views a
  crafted one holds could read any file.  The ``raw_<table>`` relations are the shards'
  Parquet files read by pyarrow (only regular files inside ``shards/``:
  :func:`brson.scan.index.shard_files`), and the tables are brson's own views over them;
- before the query runs, DuckDB's file system, network and extension loading are switched
  off and its configuration is locked, so ``COPY ... TO``, ``EXPORT DATABASE``, ``ATTACH``,
  ``read_csv('/etc/passwd')`` or ``INSTALL httpfs`` fail with a permission error, and no
  statement can switch them back on.  What a query may change is its own in-memory
  catalog, gone when it ends.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brson.scan import index
from brson.scan.deps import ScanError, need
from brson.scan.reports import report_sql
from brson.scan.schema import TABLES, arrow_schema


@dataclass(frozen=True)
class Result:
    columns: list[str]
    rows: list[tuple[Any, ...]]


#: Set, in this order, before a query runs; the last one makes them final.
LOCKDOWN = (
    "SET enable_progress_bar = false",  # DuckDB draws it on stdout, into piped JSON or CSV
    "SET python_enable_replacements = false",  # no Python variable read as a table
    "SET autoinstall_known_extensions = false",
    "SET autoload_known_extensions = false",
    "SET allow_community_extensions = false",
    "SET enable_external_access = false",  # no file, no URL, no extension from disk
    "SET lock_configuration = true",
)


def run(
    root: str | os.PathLike[str],
    sql: str | None = None,
    *,
    report: str | None = None,
    text: str | None = None,
) -> Result:
    """Run ``sql``, or the named ``report`` (with ``text`` for ``search``), on an index."""
    duckdb = need("duckdb")
    folder = Path(root)
    index.check_index(folder)
    params: list[str] = []
    if report is not None:
        sql, params = report_sql(report, text)
    if not sql:
        raise ScanError("give SQL or --report NAME")
    try:
        con = sandbox(folder)
    except duckdb.Error as exc:
        raise ScanError(f"cannot open the index: {_first_line(exc)}", file=str(folder)) from None
    try:
        cursor = con.execute(sql, params)
        if cursor is None:  # SQL of nothing but blanks or comments: DuckDB runs no statement
            raise ScanError("query failed: the SQL holds no statement", file=str(folder))
        columns = [d[0] for d in cursor.description or []]
        rows = cursor.fetchall()
    except duckdb.Error as exc:
        raise ScanError(f"query failed: {_first_line(exc)}", file=str(folder)) from None
    finally:
        con.close()
    return Result(columns, rows)


def sandbox(folder: Path) -> Any:
    """An in-memory connection with the index's tables and nothing else reachable."""
    duckdb = need("duckdb")
    dataset = need("pyarrow.dataset")
    con = duckdb.connect(":memory:")
    try:
        for table in TABLES:
            files = index.shard_files(folder, table)
            source = dataset.dataset(files, schema=arrow_schema(table), format="parquet")
            con.register(f"raw_{table}", source)
        for statement in index.derived_views():
            con.execute(statement.replace("CREATE VIEW", "CREATE TEMP VIEW"))
        for statement in LOCKDOWN:
            con.execute(statement)
    except BaseException:
        con.close()
        raise
    return con


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
