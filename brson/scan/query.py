"""Reading an index: SQL or a named report over ``brson.duckdb``, opened read-only."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brson.scan import index
from brson.scan.deps import ScanError, need
from brson.scan.reports import report_sql


@dataclass(frozen=True)
class Result:
    columns: list[str]
    rows: list[tuple[Any, ...]]


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
        con = index.connect(str(folder / index.DB), read_only=True)
    except duckdb.Error as exc:
        raise ScanError(f"cannot open the index: {_first_line(exc)}", file=str(folder)) from None
    try:
        cursor = con.execute(sql, params)
        columns = [d[0] for d in cursor.description or []]
        rows = cursor.fetchall()
    except duckdb.Error as exc:
        raise ScanError(f"query failed: {_first_line(exc)}", file=str(folder)) from None
    finally:
        con.close()
    return Result(columns, rows)


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
