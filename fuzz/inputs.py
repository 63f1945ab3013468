"""Fuzz targets for the inputs that are not bytes of an archive: folder arguments and SQL.

``folders``: the input bytes build a small folder (regular files, FIFOs, symlinks to ``..``,
to ``/dev/zero``, to each other, dangling ones), which then goes through the CLI's folder and
glob expansion, scan's corpus walk and the one reader every command uses.  Contract: each
ends (a symlink loop or a FIFO must not hang it: the harness's per-input bound makes a hang a
finding), raises nothing but :class:`BrsonError`, and lists every file once, inside the
folder.

``sql``: the input bytes are a query string run by ``brson query`` on a real index (made once
by ``brson scan`` of a fixture).  Contract: a result or a :class:`BrsonError`, and the index
folder and its parent exactly as they were (no file written, none changed).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from brson.errors import BrsonError

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "fixtures" / "tiny.brson"
#: Limit for the reader in ``folders`` (a fuzzed file is a few bytes; /dev/zero is endless).
MAX_READ = 1 << 16
#: Entries one input may create.
MAX_ENTRIES = 24

_LINKS = ("..", ".", "/dev/zero", "/dev/null", "missing", "../..", "d0", "f0.brson", "d0/..")
_NAMES = ("f0.brson", "f1.7zbson", "x.lz4bson", ".hidden.brson", "d0", "d1", "p.brson", "n.txt")


def build_folder(data: bytes, top: Path) -> None:
    """Entries under ``top`` from ``data``: each pair of bytes is one (kind, name) choice."""
    made = 0
    for i in range(0, len(data) - 1, 2):
        if made >= MAX_ENTRIES:
            break
        kind, pick = data[i], data[i + 1]
        depth = pick >> 6  # up to three folders deep, inside what was made
        parent = top.joinpath(*["d0"] * depth)
        name = _NAMES[pick % len(_NAMES)]
        path = parent / name
        with contextlib.suppress(OSError):
            parent.mkdir(parents=True, exist_ok=True)
            if os.path.lexists(path):
                continue
            choice = kind % 5
            if choice == 0:
                path.write_bytes(data[i : i + 1 + kind % 17])
            elif choice == 1:
                os.mkfifo(path)
            elif choice == 2:
                os.symlink(_LINKS[kind % len(_LINKS)], path)
            elif choice == 3:
                path.mkdir()
            else:
                path.write_bytes(TINY.read_bytes())
            made += 1


def _patterns(top: Path, data: bytes) -> list[str]:
    tail = data[-1] if data else 0
    shapes = ("**", "**/*.brson", "*", "d?/**/*", "**/d0/*.brson", "[dp]*/**", "*/*/*")
    return [str(top), str(top / shapes[tail % len(shapes)])]


def run_folders(data: bytes) -> None:
    from brson.cli.common import expand_inputs
    from brson.fileio import read_bytes
    from brson.scan import corpus

    top = Path(tempfile.mkdtemp(prefix="brson-fuzz-"))
    try:
        build_folder(data, top)
        for pattern in _patterns(top, data):
            try:
                found = expand_inputs([Path(pattern)])
            except BrsonError:
                continue
            keys = [os.path.abspath(p) for p in found]
            assert len(keys) == len(set(keys)), f"a file listed twice: {keys}"
            for path in keys:
                assert path.startswith(str(top)), f"outside the folder: {path}"
                with contextlib.suppress(BrsonError):
                    read_bytes(path, MAX_READ)
            with contextlib.suppress(BrsonError):
                corpus.walk([pattern])
    finally:
        shutil.rmtree(top, ignore_errors=True)


def folder_seeds() -> list[bytes]:
    return [
        bytes([4, 0]),  # one good archive
        bytes([4, 0, 1, 6, 2, 2, 7, 4]),  # an archive, a FIFO, a link to /dev/zero, a folder
        bytes([3, 4, 0, 68, 9, 68, 1, 132, 2, 4]),  # a folder with a loop and a FIFO inside
        bytes([2, 4, 11, 5, 20, 68]) + b"*",  # links to . and .. and across
        bytes(range(40)),
    ]


#: The index this process made, and the process: a forked child inherits the list, and must
#: not remove its parent's folder.
_INDEX: list[tuple[int, Path]] = []
#: Scan for the index in this process, not in a child: for a process whose ``__main__`` the
#: scan's worker pool can import again (a test run sets it; a harness's may not be importable).
SCAN_IN_PROCESS = False


def _index() -> Path:
    """A real index, made once per process in a temporary folder (see :func:`remove_index`)."""
    if not _INDEX:
        parent = Path(tempfile.mkdtemp(prefix="brson-fuzz-sql-"))
        index = parent / "index"
        _INDEX.append((os.getpid(), index))
        atexit.register(remove_index)
        try:
            if SCAN_IN_PROCESS:
                from brson.scan import engine

                engine.scan([TINY], index)
            else:
                command = [sys.executable, "-m", "brson", "scan", str(TINY), "-o", str(index)]
                subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        except BaseException:
            remove_index()
            raise
    return _INDEX[0][1]


def remove_index() -> Path | None:
    """Remove the folder of the index :func:`_index` made in this process; returns it (None
    when this process made none).  Also registered as an exit handler, which is not enough
    alone: a process that libFuzzer ends, or that is killed, exits without running it, so
    whoever runs the target calls this when done (the test suite, after its last query)."""
    if not _INDEX or _INDEX[0][0] != os.getpid():
        return None
    folder = _INDEX.pop()[1].parent
    shutil.rmtree(folder, ignore_errors=True)
    return folder


def _state(folder: Path) -> str:
    """Every entry under the index's parent folder with its size, mode and content hash."""
    lines = []
    for path in sorted(folder.parent.rglob("*")):
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        lines.append(f"{path} {info.st_mode:o} {info.st_size} {digest}")
    return "\n".join(lines)


def run_sql(data: bytes) -> None:
    from brson.scan import query

    index = _index()
    # A working folder of its own: the checkout's may change under other jobs (make test runs
    # its steps side by side), which is no finding.
    work = index.parent / "work"
    work.mkdir(exist_ok=True)
    before = _state(index)
    with contextlib.chdir(work), contextlib.suppress(BrsonError):
        query.run(index, data.decode("utf-8", "replace").replace("\0", " "))
    assert _state(index) == before, "a query changed the index folder"
    assert not any(work.iterdir()), "a query wrote into the working folder"


def sql_seeds() -> list[bytes]:
    statements = [
        "SELECT * FROM files",
        "SELECT type_name, count(*) FROM components GROUP BY ALL",
        "SELECT * FROM raw_files JOIN findings USING (path)",
        "COPY (SELECT 1) TO 'x.csv'",
        "COPY files TO 'brson-index.json'",
        "EXPORT DATABASE 'exported'",
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('brson-index.json')",
        "ATTACH 'other.duckdb'",
        "INSTALL httpfs; LOAD httpfs",
        "SET enable_external_access = true; SELECT * FROM glob('/*')",
        "PRAGMA database_list",
        "CREATE TABLE t AS SELECT * FROM files; DROP VIEW files",
        "SELECT * FROM range(3) t(i) WHERE i > 0",
    ]
    return [s.encode() for s in statements]
