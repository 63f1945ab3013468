"""Re-scans: unchanged files are skipped (size, mtime and hash), new and changed ones added,
removed ones marked deleted; the result equals a clean scan of the library as it is now."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from brson.scan import engine
from brson.scan.extract import Options
from tests.scan.conftest import OPTIONS, dump_tables, sql


@pytest.fixture
def library(corpus: Path, tmp_path: Path) -> Path:
    """A small copy of the corpus: 30 items (from two of its folders), a broken file and a
    package."""
    root = tmp_path / "lib"
    root.mkdir()
    items = sorted([*(corpus / "group01").rglob("item*"), *(corpus / "group05").rglob("item*")])
    items = items[:30]
    for n, source in enumerate(items):
        shutil.copy2(source, root / f"{n:02d}{source.suffix}")
    shutil.copy2(corpus / "broken" / "noise0.brson", root / "noise.brson")
    shutil.copy2(next((corpus / "group00").rglob("*.resonitepackage")), root / "p.resonitepackage")
    return root


def live(index: Path) -> dict[str, list[tuple[object, ...]]]:
    """The tables without the rows of deleted files (a clean scan never saw them)."""
    tables = dump_tables(index)
    tables["files"] = [row for row in tables["files"] if "deleted" not in row]
    return tables


@pytest.mark.slow
def test_rescan_skips_adds_and_deletes(library: Path, corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    first = engine.scan([library], index, options=OPTIONS, batch=7)
    assert first.scanned == first.files == 32 and first.failed == 1
    again = engine.scan([library], index, options=OPTIONS, batch=7)
    assert (again.scanned, again.unchanged, again.deleted, again.shards) == (0, 32, 0, 0)

    files = sorted(library.glob("*.*bson"))
    changed, touched, removed = files[0], files[1], files[2]
    other = sorted((corpus / "group02").rglob(f"*{changed.suffix}"))[0]
    changed.write_bytes(other.read_bytes())  # new content (and size, mtime)
    stat = touched.stat()
    os.utime(touched, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # same bytes, new mtime
    removed.unlink()
    added = library / "new.brson"
    shutil.copy2(next((corpus / "group03").rglob("*.brson")), added)

    third = engine.scan([library], index, options=OPTIONS, batch=7)
    assert (third.scanned, third.unchanged, third.deleted) == (3, 29, 1)
    query = sql(index)
    assert query(f"SELECT status FROM files WHERE path = '{removed}'") == [("deleted",)]
    assert query(f"SELECT count(*) FROM components WHERE path = '{removed}'") == [(0,)]
    assert query(f"SELECT count(*) FROM components WHERE path = '{added}'")[0][0] > 0
    assert query("SELECT count(*) FROM files WHERE status <> 'deleted'") == [(32,)]

    clean = engine.scan([library], tmp_path / "clean", options=OPTIONS, batch=5)
    assert clean.files == 32
    assert live(index) == live(tmp_path / "clean")


@pytest.mark.slow
def test_same_size_and_mtime_new_bytes_is_rescanned(library: Path, tmp_path: Path) -> None:
    """The hash decides when size and mtime say nothing changed (a copy with ``cp -p``)."""
    index = tmp_path / "index"
    engine.scan([library], index, options=OPTIONS)
    target = sorted(library.glob("*.*bson"))[0]
    data = bytearray(target.read_bytes())
    stat = target.stat()
    data[len(data) // 2] ^= 0x01  # same size, other bytes
    target.write_bytes(bytes(data))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    summary = engine.scan([library], index, options=OPTIONS)
    assert (summary.scanned, summary.unchanged) == (1, 31)


@pytest.mark.slow  # rescans the library once per option: about 6 s of CPU
def test_other_options_rescan_everything(library: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    engine.scan([library], index, options=OPTIONS)
    assert sql(index)("SELECT count(*) FROM refs") == [(0,)]
    with_refs = Options(max_size=OPTIONS.max_size, refs=True, slots=True)
    summary = engine.scan([library], index, options=with_refs)
    assert summary.scanned == 32
    query = sql(index)
    assert query("SELECT count(*) FROM refs")[0][0] > 100
    assert query("SELECT count(*) FROM slots")[0][0] == query("SELECT sum(slots) FROM files")[0][0]
    assert engine.scan([library], index, options=with_refs).scanned == 0


def test_compact_keeps_the_tables(library: Path, tmp_path: Path) -> None:
    """--compact rewrites the live rows as one shard: same tables, deleted files gone, the
    superseded shards removed; later scans go on from it."""
    index = tmp_path / "index"
    engine.scan([library], index, options=OPTIONS, batch=5)
    victim = sorted(library.glob("*.*bson"))[3]
    victim.unlink()
    engine.scan([library], index, options=OPTIONS, batch=5)
    before = live(index)
    summary = engine.scan([library], index, options=OPTIONS, batch=5, compact=True)
    assert summary.extra["compacted_shards"] == 8  # 7 batches + the deletion shard
    assert sorted(os.listdir(index / "shards")) == ["000000-000000", "000003-000000"]
    assert dump_tables(index) == before  # the deleted file's row is gone with its shards
    added = library / "again.brson"
    shutil.copy2(sorted(library.glob("*.brson"))[0], added)
    assert engine.scan([library], index, options=OPTIONS).scanned == 1
    assert sql(index)(f"SELECT count(*) FROM files WHERE path = '{added}'") == [(1,)]
