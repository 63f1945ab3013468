"""A file that cannot be read or parsed is a row with its error, never the end of the scan."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from brson.scan import engine, extract
from brson.scan.extract import Options, Rows, Task
from tests.scan.conftest import OPTIONS, sql


@pytest.mark.slow
def test_broken_and_hostile_files_are_error_rows(clean_index: Path, corpus: Path) -> None:
    rows = sql(clean_index)("SELECT path, status, error_layer, error_message FROM files")
    by_path = {path: rest for path, *rest in rows}
    assert len(by_path) == len(rows)
    for folder in ("broken", "hostile"):
        for path in sorted((corpus / folder).iterdir()):
            status, layer, message = by_path[str(path)]
            if status == "ok":  # a bit flip in a value the scan does not read
                assert path.name.startswith("flip"), path
                continue
            assert status == "error" and layer and message, path


def test_unreadable_paths(tmp_path: Path) -> None:
    library = tmp_path / "lib"
    library.mkdir()
    (library / "dangling.brson").symlink_to(library / "missing.brson")
    (library / "folder.brson").mkdir()  # a folder with an archive's name: walked into
    (library / "folder.brson" / "inner.lz4bson").write_bytes(b"\x00" * 10)
    summary = engine.scan([library], tmp_path / "index", options=OPTIONS)
    assert (summary.files, summary.failed) == (2, 2)
    rows = dict(
        sql(tmp_path / "index")("SELECT path, error_layer FROM files WHERE status = 'error'")
    )
    assert rows[str(library / "dangling.brson")] == "file"


def test_internal_error_is_a_row(monkeypatch: pytest.MonkeyPatch, fixtures_dir: Path) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(extract, "_describe", boom)
    out = Rows()
    path = str(fixtures_dir / "tiny.brson")
    assert extract.scan_file(Task(path, None, None), Options(), out) == "error"
    (row,) = out.tables["files"]
    assert row["error_layer"] == "internal" and row["error_message"] == "RuntimeError: a bug"


def test_recursion_is_contained(monkeypatch: pytest.MonkeyPatch, fixtures_dir: Path) -> None:
    def deep(*args: object, **kwargs: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(extract, "_describe", deep)
    out = Rows()
    path = str(fixtures_dir / "tiny.brson")
    assert extract.scan_file(Task(path, None, None), Options(), out) == "error"
    assert os.path.basename(out.tables["files"][0]["path"]) == "tiny.brson"


def test_fifo_is_an_error_row_not_a_hang(tmp_path: Path) -> None:
    library = tmp_path / "lib"
    library.mkdir()
    os.mkfifo(library / "pipe.brson")
    summary = engine.scan([library], tmp_path / "index", options=OPTIONS)
    assert (summary.files, summary.failed) == (1, 1)
    ((message,),) = sql(tmp_path / "index")("SELECT error_message FROM files")
    assert "not a regular file" in message


def test_file_name_not_utf8(tmp_path: Path, fixtures_dir: Path) -> None:
    """A name Python holds as lone surrogates is stored escaped, read by its real bytes, and
    recognised as unchanged on the next scan."""
    library = tmp_path / "lib"
    library.mkdir()
    raw = os.path.join(os.fsencode(library), b"caf\xe9.brson")
    with open(raw, "wb") as handle:
        handle.write((fixtures_dir / "tiny.brson").read_bytes())
    index = tmp_path / "index"
    summary = engine.scan([library], index, options=OPTIONS)
    assert (summary.files, summary.failed) == (1, 0)
    ((path, status),) = sql(index)("SELECT path, status FROM files")
    assert path.endswith("caf\\xe9.brson") and status == "ok"
    again = engine.scan([library], index, options=OPTIONS)
    assert (again.unchanged, again.deleted) == (1, 0)
