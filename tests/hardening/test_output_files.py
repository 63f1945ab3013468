"""Outputs that are not regular files, inputs spelled otherwise, temporaries of killed runs
(issue 11 defect 5; issue 12 defects 7 and 8). Only FIFOs and symlinks in a temporary folder:
never a real device."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from brson import fileio
from brson.cli.app import main

SAMPLE = (
    Path(__file__).resolve().parents[2] / "fixtures" / "real" / "orange3134_loading_standin.brson"
)


def run(*args: str) -> int:
    return main(list(args))


def test_fifo_output_is_written_through_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "out.bin"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    fileio.write_atomic(fifo, b"payload")
    reader.join(10)
    assert got == [b"payload"]
    assert fifo.is_fifo()  # still the FIFO, not a regular file renamed over it


def test_symlink_to_a_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link.brson"
    link.symlink_to(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    fileio.write_atomic(link, b"x" * 100)
    reader.join(10)
    assert got == [b"x" * 100] and link.is_symlink() and fifo.is_fifo()


def test_symlink_to_a_regular_file_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.bin"
    real.write_bytes(b"old")
    link = tmp_path / "link.bin"
    link.symlink_to(real)
    fileio.write_atomic(link, b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"


def test_directory_output_is_refused(tmp_path: Path) -> None:
    with pytest.raises(fileio.FileError, match="is a directory"):
        fileio.write_atomic(tmp_path, b"x")


def test_stale_temporaries_of_dead_writers_are_removed(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".out.brson.{dead_pid}.abc123.tmp"
    fresh = tmp_path / f".out.brson.{dead_pid}.def456.tmp"
    live = tmp_path / f".out.brson.{os.getpid()}.ghi789.tmp"
    foreign = tmp_path / ".out.brson.notapid.tmp"
    for path in (stale, fresh, live, foreign):
        path.write_bytes(b"partial")
    old = time.time() - 3600
    for path in (stale, live, foreign):
        os.utime(path, (old, old))
    fileio.write_atomic(tmp_path / "out.brson", b"done")
    assert not stale.exists()  # ours, old, writer gone
    assert fresh.exists() and live.exists() and foreign.exists()
    assert (tmp_path / "out.brson").read_bytes() == b"done"


@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
def test_no_command_writes_over_an_input(
    tmp_path: Path, spelling: str, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.brson"
    shutil.copy(SAMPLE, src)
    out = {
        "same": src,
        "dot": Path(f"./{src.relative_to(Path.cwd())}") if src.is_relative_to(Path.cwd()) else src,
        "symlink": tmp_path / "link.brson",
        "hardlink": tmp_path / "hard.brson",
    }[spelling]
    if spelling == "symlink":
        out.symlink_to(src)
    if spelling == "hardlink":
        os.link(src, out)
    before = src.read_bytes()
    for args in (
        ["convert", str(src), str(out)],
        ["export-godot", str(src), "-o", str(out)],
        ["export-godot", str(src), "-o", str(tmp_path / "a.tscn"), "--variant", str(out)],
        ["extract", str(src), "--slot", "Visual", "-o", str(out)],
        ["renumber", str(src), "-o", str(out)],
        ["to-json", str(src), "-o", str(out)],
    ):
        assert run(*args) == 2, args
        err = capsys.readouterr().err
        assert "never writes over its inputs" in err and len(err.strip().splitlines()) == 1
    assert src.read_bytes() == before


@pytest.mark.parametrize("existed", [True, False])
def test_output_set_takes_back_its_renames_when_a_later_one_fails(
    tmp_path: Path, existed: bool
) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    if existed:
        first.write_bytes(b"old a")
    with pytest.raises(fileio.FileError, match=r"b\.txt"), fileio.output_set():
        fileio.write_atomic(first, b"new a")
        fileio.write_atomic(second, b"new b")
        second.mkdir()  # staged, then made a folder: the rename over it fails at commit
    assert sorted(p.name for p in tmp_path.iterdir()) == (
        ["a.txt", "b.txt"] if existed else ["b.txt"]
    )
    if existed:
        assert first.read_bytes() == b"old a"  # put back, through the link kept for it


def test_output_set_writes_nothing_when_its_block_raises(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"old")
    with pytest.raises(RuntimeError), fileio.output_set():
        fileio.write_atomic(tmp_path / "a.txt", b"new")
        fileio.write_atomic(tmp_path / "b.txt", b"new")
        raise RuntimeError("a later step failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert (tmp_path / "a.txt").read_bytes() == b"old"


def test_output_set_holds_streams_until_it_commits(tmp_path: Path) -> None:
    sink = io.BytesIO()
    with fileio.output_set({"-": sink}):
        fileio.write_atomic("-", b"data")
        fileio.write_atomic(tmp_path / "a.txt", b"file")
        assert sink.getvalue() == b"" and not (tmp_path / "a.txt").exists()
    assert sink.getvalue() == b"data" and (tmp_path / "a.txt").read_bytes() == b"file"


def test_cli_output_to_a_fifo_is_written_through_once_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command's outputs are staged as one set; a FIFO among them is written when the set
    commits, still through (not replaced by a renamed file)."""
    fifo = tmp_path / "out.brson"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert run("renumber", str(SAMPLE), "-o", str(fifo)) == 0
    reader.join(10)
    assert fifo.is_fifo() and got and got[0][:4] == b"FrDT"
    capsys.readouterr()
