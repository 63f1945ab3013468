"""How ``scan`` and ``query`` print: a table read in a pipe or a file keeps every value
whole, and a scan names each file it could not read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from brson.cli.app import main

PROJECT_ROOT = Path(__file__).resolve().parents[2]
GOOD = PROJECT_ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"
BAD = PROJECT_ROOT / "fixtures" / "not_bson.brson"


@pytest.fixture
def index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    """An index of a folder holding one good and one unreadable archive; the scan's stderr."""
    library = tmp_path / "library"
    library.mkdir()
    shutil.copy(GOOD, library / "good.brson")
    shutil.copy(BAD, library / "bad.brson")
    assert main(["scan", str(library), "-o", str(tmp_path / "index"), "--no-validate"]) == 0
    return tmp_path / "index", capsys.readouterr().err


def test_scan_names_the_file_that_failed(index: tuple[Path, str]) -> None:
    _, err = index
    lines = err.splitlines()
    assert "1 failed" in lines[-1]
    bad = [line for line in lines if "bad.brson" in line]
    assert len(bad) == 1 and bad[0].startswith("brson: ") and "bson error: truncated" in bad[0]


def test_query_table_in_a_pipe_is_not_cut(
    index: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = index
    wide = "x" * 300
    sql = f"SELECT '{wide}' AS wide, 'last column' AS tail, 'a[red]b' AS markup"
    assert main(["query", str(folder), sql]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["wide", "tail", "markup"]
    assert lines[1] == f"{wide}  last column  a[red]b"
    assert lines[2] == "1 row(s)"


def test_query_table_escapes_line_breaks(
    index: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = index
    assert main(["query", str(folder), "SELECT 'a' || chr(10) || 'b' AS v, 'é漢' AS w"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["v     w", "a\\nb  é漢"]
