"""Outputs get the permissions a plain ``open(path, "w")`` gives, not ``mkstemp``'s 0o600."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from brson.fileio import write_atomic

from .support import SAMPLES, run_cli


@pytest.fixture
def umask_027() -> Iterator[None]:
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_file_follows_the_umask(tmp_path: Path, umask_027: None) -> None:
    write_atomic(tmp_path / "a.bin", b"x")
    assert _mode(tmp_path / "a.bin") == 0o640


def test_replaced_file_keeps_its_mode(tmp_path: Path, umask_027: None) -> None:
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")
    target.chmod(0o604)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new" and _mode(target) == 0o604


def test_cli_outputs_and_exported_assets_are_readable(tmp_path: Path, umask_027: None) -> None:
    package = SAMPLES / "orange3134_loading_standin.resonitepackage"
    out = tmp_path / "visual.resonitepackage"
    assert run_cli(["extract", str(package), "--slot", "Visual", "-o", str(out)])[0] == 0
    assert run_cli(["assets", str(package), "-o", str(tmp_path / "assets")])[0] == 0
    written = [out, *sorted((tmp_path / "assets").iterdir())]
    assert len(written) == 3
    assert {_mode(path) for path in written} == {0o640}
