"""What a scan reads: folders (archive extensions only), globs, files named directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from brson.fileio import FileError
from brson.scan import corpus


def test_walk(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("a/x.brson", "a/b/y.LZ4BSON", "a/b/z.resonitepackage", "a/notes.txt", "a/t.png"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "odd.name").write_bytes(b"")
    (tmp_path / "link").symlink_to(tmp_path / "a", target_is_directory=True)
    found = corpus.walk([tmp_path / "a", tmp_path / "odd.name", str(tmp_path / "a" / "*.brson")])
    names = [Path(e.path).relative_to(tmp_path).as_posix() for e in found]
    # Sorted, no repeats, extensions case-insensitive, a file named directly taken whatever
    # its name, symlinked folders not followed.
    assert names == ["a/b/y.LZ4BSON", "a/b/z.resonitepackage", "a/x.brson", "odd.name"]
    everything = [Path(e.path).relative_to(tmp_path).as_posix() for e in corpus.walk([tmp_path])]
    assert everything == names[:3]  # not link/..., and odd.name is no archive name
    assert corpus.walk([tmp_path / "link"])  # a symlink named directly is walked
    assert all(e.size == 0 and e.mtime_ns for e in found)


def test_missing_argument_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="no such file or directory"):
        corpus.walk([tmp_path / "nope"])
    assert corpus.walk([str(tmp_path / "*.brson")]) == []  # a glob may match nothing
