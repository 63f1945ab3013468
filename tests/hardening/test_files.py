"""No data lost: a killed writer leaves the old file, and inputs are only ever read.

Killing: a child process rewrites a 64 MiB archive in a loop through ``brson.dump`` (which
goes through ``write_atomic``) and is SIGKILLed at varying moments, several of them while its
temporary file is being filled.  The destination must then hold the old bytes or the complete
new ones, and anything else left in the folder must be a hidden ``.tmp`` file that no reader
would take for the destination.

Reading: every command that takes an input file runs with a Python audit hook watching the
input's path; it may be opened for reading only (no write/append/create/truncate mode or flag)
and never renamed, replaced, removed, truncated, chmod-ed or touched.  The file is read-only
on disk too, and its bytes and mtime must be unchanged afterwards.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import bson
import pytest

import brson
from brson.container import unpack

from .support import PROJECT_ROOT, SAMPLES, _doc, _string, run_cli

pytestmark = pytest.mark.slow  # writers of a 64 MiB archive killed at five moments

WRITER = """
import sys
import brson

dest, size = sys.argv[1], int(sys.argv[2])
pad = b"x" * size
doc = (len(pad) + 15).to_bytes(4, "little")  # {"pad": "xxx..."}, built without copies
data = doc + b"\\x02pad\\x00" + (len(pad) + 1).to_bytes(4, "little") + pad + b"\\x00\\x00"
print("ready", flush=True)
while True:
    brson.dump(data, dest, codec="none")
"""
#: Large enough that writing it takes most of the loop's time (a kill mostly lands while the
#: temporary file is filled), small enough that building it is cheap.
SIZE = 64 << 20


def _leftovers_are_hidden_temp_files(folder: Path, dest: Path) -> None:
    assert dest.exists()
    for entry in folder.iterdir():
        if entry == dest:
            continue
        assert entry.name.startswith(f".{dest.name}.") and entry.name.endswith(".tmp"), entry


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.2, 0.5, "during-temp"])
def test_writer_killed_mid_write_leaves_the_old_file(tmp_path: Path, delay: Any) -> None:
    dest = tmp_path / "world.bson"
    old = brson.dumps(_doc(_string("old", "previous content")), "none")
    dest.write_bytes(old)
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(dest), str(SIZE)],
        stdout=subprocess.PIPE,
        cwd=PROJECT_ROOT,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        if delay == "during-temp":  # wait until the temporary file is being filled
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
                    break
                time.sleep(0.001)  # not a busy loop: the writer needs the CPU
            else:
                pytest.fail("the writer never created its temporary file")
        else:
            time.sleep(delay)
        assert proc.poll() is None, "the writer died on its own"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    data = dest.read_bytes()
    if data != old:  # a write that completed before the kill: all of it
        assert len(data) == 9 + SIZE + 15 and data[:4] == b"FrDT", len(data)
        _, document = unpack(data, dest.name)  # the test document has no Object: not a tree
        assert len(bson.decode(document)["pad"]) == SIZE
    _leftovers_are_hidden_temp_files(tmp_path, dest)


# -- inputs are read-only ------------------------------------------------------------------------
_WATCH: dict[str, Any] = {"paths": set(), "events": []}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_CHANGING = {
    "os.rename",
    "os.replace",
    "os.remove",
    "os.unlink",
    "os.truncate",
    "os.chmod",
    "os.chown",
    "os.utime",
    "os.rmdir",
    "shutil.move",
    "shutil.rmtree",
}


def _hook(event: str, args: tuple[Any, ...]) -> None:
    paths = _WATCH["paths"]
    if not paths or not (event == "open" or event in _CHANGING):
        return
    touched = [a for a in args if isinstance(a, str | bytes | os.PathLike)]
    for arg in touched:
        try:
            name = os.path.realpath(os.fsdecode(arg))
        except (TypeError, ValueError):
            continue
        if name in paths:
            _WATCH["events"].append((event, args))


sys.addaudithook(_hook)


@contextlib.contextmanager
def watching(path: Path) -> Any:
    _WATCH["paths"] = {os.path.realpath(path)}
    _WATCH["events"] = []
    try:
        yield _WATCH["events"]
    finally:
        _WATCH["paths"] = set()


def _assert_read_only(events: list[tuple[str, tuple[Any, ...]]]) -> None:
    assert events, "the input was never opened (is the hook watching the right path?)"
    for event, args in events:
        assert event == "open", (event, args)
        _, mode, flags = args
        if mode is not None:
            assert not set(str(mode)) & set("wax+"), (event, args)
        if isinstance(flags, int):
            assert not flags & _WRITE_FLAGS, (event, args)


def _samples() -> list[Path]:
    found = sorted(SAMPLES.glob("*.brson")) + sorted(SAMPLES.glob("*.7zbson"))
    found += sorted(SAMPLES.glob("*.resonitepackage"))
    return found or sorted((PROJECT_ROOT / "fixtures").glob("tiny.*"))


COMMANDS = [
    ["info", "{f}"],
    ["info", "{f}", "--json"],
    ["tree", "{f}", "--json"],
    ["refs", "{f}"],
    ["validate", "{f}"],
    ["to-json", "{f}", "-o", "{o}/x.json"],
    ["diff", "{f}", "{f}"],
    ["convert", "{f}", "{o}/x.lz4bson"],
    ["export-godot", "{f}", "-o", "{o}/x.tscn"],
    ["vars", "{f}"],
    ["rename", "{f}", "{root}", "renamed", "-o", "{o}/r.brson"],
    ["extract", "{f}", "-s", "{root}", "-o", "{o}/e.brson"],
    ["view", "{f}", "--html", "{o}/v.html"],
]


@pytest.mark.parametrize("sample", _samples(), ids=lambda p: p.name)
def test_inputs_are_opened_read_only_and_left_unchanged(tmp_path: Path, sample: Path) -> None:
    src = tmp_path / sample.name
    src.write_bytes(sample.read_bytes())
    src.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)  # 0o444
    before = (src.read_bytes(), src.stat().st_mtime_ns, src.stat().st_mode)
    digest = hashlib.sha256(before[0]).hexdigest()
    root = brson.load(src).root.name
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for argv in COMMANDS:
        args = [a.format(f=src, o=out_dir, root=root) for a in argv]
        with watching(src) as events:
            code, _, err = run_cli(args)
        assert code in (0, 1), (args, err)
        _assert_read_only(events)
    with watching(src) as events:
        tree = brson.load(src)
        list(tree.walk())
        from brson.ops.validate import validate

        validate(src)
    _assert_read_only(events)
    after = (src.read_bytes(), src.stat().st_mtime_ns, src.stat().st_mode)
    assert hashlib.sha256(after[0]).hexdigest() == digest
    assert after[1:] == before[1:]


def test_no_module_writes_files_except_through_write_atomic() -> None:
    """Every output goes through ``brson.fileio.write_atomic``: no other module opens a file
    for writing (a static guard, so a new writer cannot bypass the atomic rename)."""
    offenders = []
    for path in sorted((PROJECT_ROOT / "brson").rglob("*.py")):
        if path.name == "fileio.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if any(s in code for s in (".write_bytes(", ".write_text(", "os.open(")) or (
                "open(" in code and any(m in code for m in ('"w', "'w", '"a', "'a", '"x'))
            ):
                offenders.append(f"{path.relative_to(PROJECT_ROOT)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
