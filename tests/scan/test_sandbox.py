"""``brson query`` stays locked: statements that would turn DuckDB's file system, network or
extensions back on, or reach them another way, fail with one error (docs/scan.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brson.scan import engine
from brson.scan import query as scan_query
from brson.scan.deps import ScanError
from tests.conftest import FIXTURES

LOCKED = [
    "ATTACH '{tmp}/other.duckdb' AS other",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SELECT * FROM 'https://example.com/x.csv'",
    "SET enable_external_access = true; SELECT * FROM read_text('/etc/passwd')",
    "RESET enable_external_access; SELECT * FROM read_text('/etc/passwd')",
    "SET allowed_directories = ['/']; SELECT * FROM read_text('/etc/passwd')",
    "SET python_enable_replacements = true",
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sandbox") / "index"
    engine.scan([FIXTURES / "tiny.brson"], out)
    return out


@pytest.mark.parametrize("sql", LOCKED)
def test_locked(index: Path, tmp_path: Path, sql: str) -> None:
    with pytest.raises(ScanError, match="query failed"):
        scan_query.run(index, sql.format(tmp=tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_a_query_may_change_only_its_own_catalog(index: Path) -> None:
    """Tables and views a query makes live in its in-memory database, gone when it ends."""
    made = scan_query.run(index, "CREATE TABLE t AS SELECT 1 AS a; DROP VIEW files; FROM t")
    assert made.rows == [(1,)]
    assert scan_query.run(index, "SELECT count(*) FROM files").rows == [(1,)]


@pytest.mark.parametrize("sql", [" ", "\n\t", "-- a comment only", ";"])
def test_sql_of_no_statement_is_one_error(index: Path, sql: str) -> None:
    """A query of blanks or a comment (the sql fuzz target's first finding: DuckDB returns no
    cursor) is a query error, not an AttributeError."""
    with pytest.raises(ScanError, match="query failed"):
        scan_query.run(index, sql)
