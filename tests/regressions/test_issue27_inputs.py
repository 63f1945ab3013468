"""Hostile input to ``scan``, ``query``, folder arguments and the viewer: SQL that writes or
reads files, a crafted index, FIFOs, devices, symlink loops and sparse giants in a library, a
slot chain thousands deep, and idle connections to the view server.

Commands that could hang or exhaust memory on a regression run in a child process with a
timeout and an address-space limit, so a regression fails the test instead of the machine."""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bson
import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import brson
from brson.codecs import limits
from brson.errors import LimitError
from brson.fileio import read_bytes
from brson.model.ids.forms import GUID
from brson.scan import engine
from brson.scan import query as scan_query
from brson.scan.deps import ScanError
from brson.scan.extract import Options
from brson.scan.schema import arrow_schema
from brson.view import ViewData, ViewServer
from brson.view.bundle import static_bundle
from brson.view.server import MAX_CONNECTIONS
from tests.conftest import FIXTURES, PROJECT_ROOT
from tests.regressions.test_issue12_scaling import (
    STANDIN,
    _linear,
    _lines,
    _path_characters,
    encode_deep,
)

TINY = FIXTURES / "tiny.brson"
VIEW_CODE = str(Path(brson.__file__).resolve().parent / "view") + os.sep
#: Seconds a child command may take before it counts as hung.
HANG = 120
#: The address space a child may use: a read of /dev/zero or of a sparse giant ends at once.
MEMORY = 3 << 30


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def brson_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "brson", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=HANG,
        preexec_fn=_limited,
        cwd=PROJECT_ROOT,
    )


# -- query: read-only for real --------------------------------------------------------------
@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real index of the module: each test gets a copy of it (a scan is a quarter of a
    second of CPU, several times a query's)."""
    out = tmp_path_factory.mktemp("scanned") / "index"
    engine.scan([TINY], out, options=Options())
    return out


@pytest.fixture
def index(scanned: Path, tmp_path: Path) -> Path:
    """A test's own copy of the index, which it may break."""
    out = tmp_path / "index"
    shutil.copytree(scanned, out, symlinks=True)
    return out


def _marker(index: Path) -> bytes:
    return (index / "brson-index.json").read_bytes()


HOSTILE_SQL = [
    "COPY (SELECT 1) TO '{tmp}/written.csv'",
    "COPY (SELECT 1) TO '{index}/brson-index.json'",
    "COPY files TO '{index}/shards/000000-000000/files.parquet' (FORMAT parquet)",
    "EXPORT DATABASE '{tmp}/exported'",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('{index}/brson-index.json')",
    "SELECT * FROM glob('/*')",
    "SET lock_configuration = false; SELECT * FROM read_text('/etc/passwd')",
]


@pytest.mark.slow
@pytest.mark.parametrize("sql", HOSTILE_SQL)
def test_query_cannot_touch_files_or_the_network(index: Path, tmp_path: Path, sql: str) -> None:
    before = _marker(index)
    with pytest.raises(ScanError, match="query failed"):
        scan_query.run(index, sql.format(tmp=tmp_path, index=index))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index"]
    assert _marker(index) == before
    assert scan_query.run(index, "SELECT count(*) FROM files").rows == [(1,)]


def test_query_never_trusts_the_views_of_a_crafted_index(index: Path) -> None:
    """``brson.duckdb`` is the index's file, so anyone who made the index wrote its views."""
    db = index / "brson.duckdb"
    db.unlink()
    con = duckdb.connect(str(db))
    con.execute("CREATE VIEW files AS SELECT content AS path FROM read_text('/etc/passwd')")
    con.execute("CREATE VIEW evil AS SELECT * FROM read_text('/etc/passwd')")
    con.close()
    paths = scan_query.run(index, "SELECT path FROM files").rows
    assert paths == [(str(TINY),)]
    with pytest.raises(ScanError, match="query failed"):
        scan_query.run(index, "SELECT * FROM evil")


def test_query_reads_only_regular_shard_files(index: Path, tmp_path: Path) -> None:
    """A shard that is a symlink to a folder elsewhere, or a FIFO planted as a shard's
    Parquet file, is not read: the rows come from the index's own files only."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    row = {"path": "/elsewhere/x.brson", "status": "ok", "shard": "999999-000001"}
    pq.write_table(
        pa.Table.from_pylist([row], schema=arrow_schema("files")), elsewhere / "files.parquet"
    )
    (index / "shards" / "999999-000001").symlink_to(elsewhere)
    planted = index / "shards" / "999999-000002"
    planted.mkdir()
    os.mkfifo(planted / "files.parquet")
    result = brson_cli("query", index, "SELECT path FROM files", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [{"path": str(TINY)}]


# -- folder arguments: FIFOs, devices and symlink loops ---------------------------------------
@pytest.fixture
def folder(tmp_path: Path) -> Path:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.brson").write_bytes(TINY.read_bytes())
    os.mkfifo(lib / "b.brson")
    (lib / "z.brson").symlink_to("/dev/zero")
    (lib / "loop").symlink_to("..")
    (lib / "sub").mkdir()
    (lib / "sub" / "up").symlink_to("../..")
    return lib


def test_validate_of_a_folder_names_each_special_file(folder: Path) -> None:
    result = brson_cli("validate", folder)
    assert result.returncode == 2, result.stderr
    lines = result.stdout.splitlines()
    assert f"{folder / 'a.brson'}: ok" in lines
    assert any(f"{folder / 'b.brson'}:" in line and "a FIFO" in line for line in lines)
    assert any(f"{folder / 'z.brson'}:" in line and "character device" in line for line in lines)
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("name", "kind"), [("z.brson", "character device"), ("b.brson", "FIFO")])
def test_info_of_a_special_file_is_one_line(folder: Path, name: str, kind: str) -> None:
    result = brson_cli("info", folder / name)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and name in result.stderr and kind in result.stderr


def test_a_glob_through_symlink_loops_ends(folder: Path) -> None:
    result = brson_cli("validate", f"{folder}/**/*.brson")
    assert result.returncode == 2, result.stderr
    assert f"{folder / 'a.brson'}: ok" in result.stdout.splitlines()
    assert "loop" not in result.stdout and "up/" not in result.stdout


def test_a_glob_never_enters_a_symlinked_folder_it_matches(tmp_path: Path) -> None:
    """The folders fuzz target's finding: ``lib/**`` matched ``d0 -> ../..`` and scan (and
    every multi-file command) then walked the folder the link points at, the whole disk."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.brson").write_bytes(TINY.read_bytes())
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.brson").write_bytes(TINY.read_bytes())
    (lib / "d0").symlink_to("../outside")
    (lib / "f.brson").symlink_to(lib / "a.brson")
    from brson.cli.common import expand_inputs
    from brson.fileio import glob_paths
    from brson.scan import corpus

    assert glob_paths(f"{lib}/**") == [str(lib / "a.brson"), str(lib / "f.brson")]
    assert glob_paths(f"{lib}/*") == [str(lib / "a.brson"), str(lib / "f.brson")]
    for pattern in (f"{lib}/**", f"{lib}/*", f"{lib}/d?"):
        found = [str(p) for p in expand_inputs([Path(pattern)])] if "d?" not in pattern else []
        walked = [e.path for e in corpus.walk([pattern])]
        assert not any("secret" in p for p in found + walked), (pattern, found, walked)


def test_a_sparse_giant_is_refused_before_reading(tmp_path: Path) -> None:
    huge = tmp_path / "huge.brson"
    with open(huge, "wb") as handle:
        handle.truncate(100 << 30)
    with pytest.raises(LimitError, match="over the limit"):
        read_bytes(huge, limits.DEFAULT_MAX_SIZE)
    result = brson_cli("info", huge)
    assert result.returncode == 2 and "over the limit" in result.stderr


# -- scan: one bad file is one error row -------------------------------------------------------
def _library(tmp_path: Path, sparse: int) -> Path:
    """A good archive and a sparse file of ``sparse`` bytes (zeros: nothing on disk)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.brson").write_bytes(TINY.read_bytes())
    with open(lib / "huge.brson", "wb") as handle:
        handle.truncate(sparse)
    return lib


def test_scan_of_a_sparse_giant_is_an_error_row(tmp_path: Path) -> None:
    lib = _library(tmp_path, 100 << 30)
    out = tmp_path / "index"
    summary = engine.scan([lib], out, options=Options())
    assert (summary.files, summary.failed) == (2, 1)
    assert (out / "brson.duckdb").is_file()
    rows = scan_query.run(out, "SELECT path, status, error_layer FROM files ORDER BY path").rows
    assert rows == [(str(lib / "a.brson"), "ok", None), (str(lib / "huge.brson"), "error", "limit")]


def test_max_size_covers_the_file_itself(tmp_path: Path) -> None:
    out = tmp_path / "index"
    engine.scan([_library(tmp_path, 1 << 20)], out, options=Options(max_size=64 << 10))
    ((layer, message),) = scan_query.run(
        out, "SELECT error_layer, error_message FROM files WHERE status = 'error'"
    ).rows
    assert layer == "limit" and f"the file is {1 << 20} bytes" in message


# -- the viewer: linear in depth ---------------------------------------------------------------
def _unique_chain(depth: int, bare: bool = False) -> bytes:
    """A chain of ``depth`` copies of a real slot, each level's IDs its own (references
    within a level still resolve): depth is the only thing that grows.  Names are long, as
    in issue 12's guards, so a bounded display path reads one level, not a hundred.
    ``bare``: the copies without their components (each level still has its findings)."""
    doc = bson.decode(brson.load(STANDIN).to_bson())
    leaf = {k: v for k, v in doc["Object"]["Children"][0].items() if k != "Children"}
    if bare:
        leaf["Components"] = dict(leaf["Components"], Data=[])
    node = doc["Object"]

    def renumbered(value: Any, level: int) -> Any:
        if isinstance(value, dict):
            return {k: renumbered(v, level) for k, v in value.items()}
        if isinstance(value, list):
            return [renumbered(v, level) for v in value]
        if isinstance(value, str) and GUID.match(value):
            return f"{level:08x}{value[8:]}"
        return value

    for i in range(depth):
        child = dict(renumbered(leaf, i + 1), Children=[])
        child["Name"] = {
            "ID": f"{i + 1:08x}-name-0000-0000-000000000000",
            "Data": f"{i:05d}" + "x" * 1000,
        }
        child["ParentReference"] = node["ID"]
        node["Children"] = [child]
        node = child
    return encode_deep(doc)


def _deep_view(tmp_path: Path, n: int, bare: bool = False) -> ViewData:
    path = tmp_path / f"deep{n}.bson"
    path.write_bytes(_unique_chain(n, bare))
    return ViewData.open(path)


def _deepest(n: int) -> str:
    return "0" + ".0" * n


@pytest.mark.slow
def test_reveal_is_linear_in_depth(tmp_path: Path) -> None:
    """``/api/reveal`` of the deepest slot: one descent, and an answer without keys (a key
    is as long as its depth; listing each level's children with theirs was depth squared)."""
    sizes: dict[int, int] = {}

    def lines(n: int) -> int:
        data = _deep_view(tmp_path, n)
        answer: list[dict[str, object]] = []
        count = _lines(lambda: answer.append(data.reveal(_deepest(n))))
        sizes[n] = len(json.dumps(answer[0]))
        assert len(answer[0]["lists"]) == n  # type: ignore[arg-type]
        return count

    _linear(lines, 100, "reveal: lines")
    _linear(sizes.__getitem__, 100, "reveal: answer characters")


@pytest.mark.slow  # exports at four depths: about 2 s of CPU
def test_static_export_is_linear_in_depth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--html`` of a chain: every slot found once by the walk, not by a descent from the
    root each; each slot's findings looked up, not filtered from all; no full slot path
    made per slot.  Counted in the viewer's own lines: the model locates an ID's element by
    a descent from the root (``brson.model.ids.locate.locate``), O(depth) a lookup, which is the
    model's to make linear.  The slots are bare: a slot's inspector of typed component
    fields is thousands of lines, beside which a descent or a filter of the findings per
    slot grew the count by only 2.3 at depth 32 and 64; bare, each grows it by 2.7 at 48."""
    paths: dict[int, int] = {}

    def lines(n: int) -> int:
        data = _deep_view(tmp_path, n, bare=True)
        with _path_characters(monkeypatch) as made:
            count = _lines(lambda: static_bundle(data), VIEW_CODE)
        paths[n] = made[0]
        return count

    _linear(lines, 48, "--html: lines")
    _linear(paths.__getitem__, 48, "--html: path characters")


# -- the view server: bounded connections ------------------------------------------------------
@pytest.fixture
def server() -> Iterator[ViewServer]:
    running = ViewServer(ViewData.open(TINY))
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.server_close()


def test_idle_connections_do_not_pile_up_threads(server: ViewServer) -> None:
    before = threading.active_count()
    idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(100)]
    try:
        idle[-1].settimeout(HANG)
        busy = idle[-1].recv(100)  # one over the bound: answered and closed at once
        assert busy.startswith(b"HTTP/1.1 503"), busy
        assert threading.active_count() - before <= MAX_CONNECTIONS
    finally:
        for sock in idle:
            sock.close()


def test_a_silent_connection_is_closed(tmp_path: Path) -> None:
    running = ViewServer(ViewData.open(TINY), idle_seconds=0.2)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    try:
        with socket.create_connection(("127.0.0.1", running.port)) as sock:
            sock.settimeout(HANG)
            assert sock.recv(100) == b""  # closed by the server, not by this timeout
    finally:
        running.shutdown()
        running.server_close()
