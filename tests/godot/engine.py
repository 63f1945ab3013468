"""Run real Godot engines headless from tests: find the binary, write a project, run a script.

Why like this: the engines are the ground truth for the binary format, and both versions run a
``SceneTree`` script from ``_init()`` in ~0.1-0.3 s.  A runtime error inside ``_init()`` leaves
the engine running forever, so every run is bounded by ``timeout`` and scripts end by writing a
marker file that proves they reached the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

TIMEOUT_SECONDS = 20
DONE_MARKER = "done.txt"


@dataclass(frozen=True)
class EngineRun:
    """What one engine run left behind: its exit code, output, and its project directory."""

    returncode: int
    stdout: str
    stderr: str
    directory: Path

    @property
    def finished(self) -> bool:
        return (self.directory / DONE_MARKER).is_file()

    def read(self, name: str) -> bytes:
        return (self.directory / name).read_bytes()

    def explain(self) -> str:
        return (
            f"engine exit code {self.returncode}\n--- stdout ---\n{self.stdout[-4000:]}\n"
            f"--- stderr ---\n{self.stderr[-4000:]}"
        )


def find_godot3() -> str | None:
    """``$BRSON_GODOT3`` if set, else ``godot3-server`` (Debian's headless 3.2.3) on PATH."""
    explicit = os.environ.get("BRSON_GODOT3")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which("godot3-server")


def find_godot4() -> str | None:
    """``$BRSON_GODOT4`` (a binary or the wrapper written by scripts/get-godot4.sh), if usable."""
    explicit = os.environ.get("BRSON_GODOT4")
    if explicit and os.access(explicit, os.X_OK):
        return explicit
    return None


def require_godot(major: int) -> str:
    """The engine binary for ``major`` (3 or 4), else skip the test (tests/conftest.py makes
    a skip in CI a failure)."""
    if major == 3:
        binary = find_godot3()
        if binary is None:
            pytest.skip("godot3-server not installed (scripts/ensure-godot3.sh installs it)")
        return binary
    binary = find_godot4()
    if binary is None:
        pytest.skip("BRSON_GODOT4 is not set (scripts/get-godot4.sh makes a wrapper for it)")
    return binary


def run_script(
    binary: str,
    major: int,
    body: str,
    files: dict[str, bytes] | None = None,
    keep_in: Path | None = None,
    timeout: int = TIMEOUT_SECONDS,
) -> EngineRun:
    """Run ``body`` (the statements of ``_init()``) in a fresh project and return the result.

    ``body`` may use ``OUT`` (the project directory, with a trailing slash) and the helpers
    ``_save(name, bytes)``, ``_load(name) -> bytes`` and ``_text(name) -> String`` defined
    below; ``files`` are written into the project directory first.
    """
    directory = Path(tempfile.mkdtemp(prefix=f"brson-godot{major}-", dir=keep_in))
    config_version = 4 if major == 3 else 5
    (directory / "project.godot").write_text(f"config_version={config_version}\n")
    for name, data in (files or {}).items():
        (directory / name).write_bytes(data)
    script = (HELPERS3 if major == 3 else HELPERS4).replace("@OUT@", str(directory) + "/")
    script = script.replace("@BODY@", _indent(body))
    (directory / "script.gd").write_text(script, encoding="utf-8")
    command = ["timeout", str(timeout), binary]
    if major == 4:
        command.append("--headless")
    command += ["--path", str(directory), "-s", "script.gd"]
    proc = subprocess.run(command, capture_output=True, text=True, errors="replace", check=False)
    return EngineRun(proc.returncode, proc.stdout, proc.stderr, directory)


def _indent(body: str) -> str:
    return "\n".join("\t" + line if line.strip() else "" for line in body.strip("\n").splitlines())


HELPERS3 = """extends SceneTree

const OUT = "@OUT@"

func _init():
@BODY@
\t_save("done.txt", PoolByteArray([111, 107]))
\tquit()

func _save(name, data):
\tvar f = File.new()
\tif f.open(OUT + name, File.WRITE) == OK:
\t\tf.store_buffer(data)
\t\tf.close()

func _load(name):
\tvar f = File.new()
\tif f.open(OUT + name, File.READ) != OK:
\t\treturn PoolByteArray()
\tvar data = f.get_buffer(f.get_len())
\tf.close()
\treturn data

func _text(name):
\treturn _load(name).get_string_from_utf8()
"""

HELPERS4 = """extends SceneTree

const OUT = "@OUT@"

func _init():
@BODY@
\t_save("done.txt", PackedByteArray([111, 107]))
\tquit()

func _save(name, data):
\tvar f = FileAccess.open(OUT + name, FileAccess.WRITE)
\tif f != null:
\t\tf.store_buffer(data)
\t\tf.close()

func _load(name):
\tvar data = FileAccess.get_file_as_bytes(OUT + name)
\tif data == null:
\t\treturn PackedByteArray()
\treturn data

func _text(name):
\treturn _load(name).get_string_from_utf8()
"""
