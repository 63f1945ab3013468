"""``brson scan`` and ``brson query`` from the command line: formats, one-line errors, exit
codes, read-only queries, folders that are not indexes left alone."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from brson.cli.app import main
from brson.scan.schema import TABLES, arrow_schema, ddl
from tests.scan.conftest import PROJECT_ROOT


@pytest.fixture(scope="module")
def small_index(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    index = tmp_path_factory.mktemp("small") / "index"
    assert main(["scan", str(fixtures_dir / "real"), "-o", str(index)]) == 0
    return index


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_scan_and_query_formats(
    capsys: pytest.CaptureFixture[str], fixtures_dir: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    code, out, err = run(capsys, "scan", fixtures_dir / "validate", "-o", index, "--workers", "2")
    assert code == 0 and out == ""
    *named, summary = err.splitlines()  # each file that failed, then the summary
    assert summary.startswith("brson scan: ") and f", {len(named)} failed," in summary
    assert named and all(line.startswith("brson: ") for line in named)
    code, out, _ = run(capsys, "query", index, "--report", "versions", "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert rows and set(rows[0]) == {"generation", "engine_version", "files"}
    code, out, _ = run(capsys, "query", index, "SELECT path, status FROM files", "--format", "csv")
    parsed = list(csv.reader(io.StringIO(out)))
    assert parsed[0] == ["path", "status"] and len(parsed) > 10
    code, out, _ = run(capsys, "query", index, "--report", "broken")
    assert code == 0 and "row(s)" in out
    code, out, _ = run(capsys, "query", index, "--report", "search", "clean", "--format", "json")
    assert any(r["path"].endswith("clean_resonite.brson") for r in json.loads(out))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["query", "{index}", "SELECT nope FROM files"], "query failed"),
        (["query", "{index}", "COPY files TO '{tmp}/out.csv'"], "query failed"),  # read-only
        (["query", "{index}", "--report", "nope"], "no report 'nope'"),
        (["query", "{index}", "--report", "search"], "needs a TEXT"),
        (["query", "{tmp}/none"], "no such index"),
        (["scan", "{tmp}/missing", "-o", "{tmp}/i"], "no such file or directory"),
        (["scan", "{fixtures}", "-o", "{fixtures}/tiny.brson"], "is not a folder"),
        (["scan", "{fixtures}", "-o", "{fixtures}/real"], "is not a brson index"),
    ],
)
def test_errors_are_one_line(
    capsys: pytest.CaptureFixture[str],
    small_index: Path,
    fixtures_dir: Path,
    tmp_path: Path,
    args: list[str],
    message: str,
) -> None:
    index = small_index
    before = sorted(p.name for p in (fixtures_dir / "real").iterdir())
    values = {"index": str(index), "tmp": str(tmp_path), "fixtures": str(fixtures_dir)}
    code, out, err = run(capsys, *[a.format(**values) for a in args])
    assert code == 2, (out, err)
    assert message in err and err.startswith("brson: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert sorted(p.name for p in (fixtures_dir / "real").iterdir()) == before  # untouched


def test_quiet_in_a_pipe(fixtures_dir: Path, tmp_path: Path) -> None:
    """No progress bar or control codes when stderr is not a terminal: the summary only."""
    result = subprocess.run(
        [sys.executable, "-m", "brson", "scan", str(fixtures_dir / "real"), "-o", tmp_path / "i"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout == "" and result.stderr.count("\n") == 1
    assert "\x1b" not in result.stderr


def test_second_scan_of_a_locked_index_is_refused(
    capsys: pytest.CaptureFixture[str], fixtures_dir: Path, tmp_path: Path
) -> None:
    import fcntl

    index = tmp_path / "index"
    assert main(["scan", str(fixtures_dir / "real"), "-o", str(index)]) == 0
    with open(index / ".lock", "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        code, _, err = run(capsys, "scan", fixtures_dir / "real", "-o", index)
    assert code == 2 and "another scan is writing this index" in err


def test_committed_ddl_is_current() -> None:
    assert (PROJECT_ROOT / "docs" / "scan-tables.sql").read_text() == ddl()


def test_parquet_schemas_match_the_tables() -> None:
    for table, columns in TABLES.items():
        assert arrow_schema(table).names == [c.name for c in columns]


def test_index_killed_before_its_marker_is_still_an_index(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    """What a first scan killed at its start leaves (lock, empty shards/) is taken back."""
    index = tmp_path / "index"
    (index / "shards").mkdir(parents=True)
    (index / ".lock").write_bytes(b"")
    assert main(["scan", str(fixtures_dir / "real"), "-o", str(index)]) == 0
    assert (index / "brson-index.json").exists()
