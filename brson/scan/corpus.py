"""Which files a scan reads: directories (recursively), globs and files named directly.

In a directory, only files with an archive or package extension are taken (a library folder
holds thumbnails and notes too); a file named on the command line is scanned whatever its
name, as every other command reads it.  The result is sorted and without repeats, so the
same arguments give the same batches.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from brson.container import EXTENSIONS, PACKAGE_SUFFIX
from brson.fileio import GLOB_CHARS, FileError, glob_paths

#: What a directory walk takes: every archive extension the container layer knows, and packages.
SUFFIXES = (*EXTENSIONS, PACKAGE_SUFFIX)


@dataclass(frozen=True)
class Entry:
    path: str  # absolute, not resolved (a symlinked file keeps the name it was found by)
    size: int | None
    mtime_ns: int | None

    @property
    def name(self) -> str:
        """The path as the index stores it (see :func:`display`)."""
        return display(self.path)


def display(path: str) -> str:
    """A path as text every table can hold: a file name that is not UTF-8 (Python keeps its
    bytes as lone surrogates, which Parquet and DuckDB refuse) gets ``\\xNN`` escapes; any
    other path is itself."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return path


def is_archive_name(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def walk(paths: Iterable[str | os.PathLike[str]]) -> list[Entry]:
    """Every file the arguments name, sorted by path; FileError for an argument naming
    nothing (a typo must not look like an empty library)."""
    found: dict[str, Entry] = {}
    for arg in paths:
        text = os.fspath(arg)
        if os.path.isdir(text):
            for entry in _tree(text):
                found.setdefault(entry.path, entry)
        elif os.path.lexists(text):
            entry = _entry(os.path.abspath(text))
            found.setdefault(entry.path, entry)
        elif GLOB_CHARS & set(text):
            for match in glob_paths(text):
                if os.path.isdir(match):
                    for entry in _tree(match):
                        found.setdefault(entry.path, entry)
                else:
                    entry = _entry(os.path.abspath(match))
                    found.setdefault(entry.path, entry)
        else:
            raise FileError("no such file or directory", file=text)
    return [found[key] for key in sorted(found)]


def _tree(folder: str) -> Iterator[Entry]:
    """Archives under ``folder``; symlinked folders are not followed (no cycles), unreadable
    folders are skipped (their files cannot be scanned anyway)."""
    for parent, dirs, files in os.walk(os.path.abspath(folder)):
        dirs.sort()
        for name in sorted(files):
            if is_archive_name(name):
                yield _entry(os.path.join(parent, name))


def _entry(path: str) -> Entry:
    try:
        info = os.stat(path)
    except OSError:
        return Entry(path, None, None)
    return Entry(path, info.st_size, info.st_mtime_ns)
