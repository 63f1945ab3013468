"""The conformance matrix's guard on every kind of container: no command that writes ever
writes over its input, however the output names it (see :mod:`conformance.checks`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .checks import BAD, archive_suffix, picks, run, source_view
from .conftest import Check

pytestmark = pytest.mark.slow  # every operation on every sample and writer variant: minutes of CPU


def _writers(victim: Path, other: Path, slot: str) -> list[list[object]]:
    """Every command that writes, with ``victim`` as its output (``other``: a scratch path)."""
    return [
        ["convert", "IN", victim],
        ["to-json", "IN", "-o", victim],
        ["extract", "IN", "--slot", slot, "-o", victim],
        ["rename", "IN", slot, "X", "-o", victim],
        ["move", "IN", slot, "--index", "0", "-o", victim],
        ["set", "IN", f"{slot}.Name", "X", "-o", victim],
        ["delete", "IN", slot, "-o", victim],
        ["renumber", "IN", "-o", victim],
        ["set-var", "IN", "no/such=1", "-o", victim],
        ["import", "IN", "IN", "--slot", slot, "-o", victim],
    ]


def _godot_writers(victim: Path, other: Path, slot: str) -> list[list[object]]:
    return [
        ["export-godot", "IN", "-o", victim],
        ["export-godot", "IN", "-o", other, "--variant", victim],
    ]


def _spellings(tmp_path: Path, source: Path) -> dict[str, tuple[Path, Path]]:
    """The input copied into the test's folder, and outputs naming it in several ways:
    (input path as given, output path)."""
    own = tmp_path / f"in{archive_suffix(source)}"
    own.write_bytes(source.read_bytes())
    link = tmp_path / f"link{own.suffix}"
    link.symlink_to(own.name)
    return {
        "same": (own, own),
        "dot": (own, Path(os.path.relpath(own))),
        "symlink": (own, link),
    }


def _refuses(
    check: Check,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    path: Path,
    commands: Any,
    hard_link: bool,
) -> None:
    slot = picks(source_view(path))["leaf"]
    original = path.read_bytes()
    if hard_link:
        own = tmp_path / f"in{archive_suffix(path)}"
        own.write_bytes(original)
        twin = tmp_path / f"twin{own.suffix}"
        twin.hardlink_to(own)
        cases = {"hard link": (own, twin)}
    else:
        cases = _spellings(tmp_path, path)
    for spelling, (src, victim) in cases.items():
        for command in commands(victim, tmp_path / "other.tscn", slot):
            args = [src if a == "IN" else a for a in command]
            code, _, err = run(capsys, *args)
            check(src.read_bytes() == original, f"{command[0]} -> {spelling}: the input changed")
            check(code == BAD, f"{command[0]} -> {spelling}: exit {code}, not a refusal")
            check(err.strip() and "Traceback" not in err, f"an error message, no traceback: {err}")


def test_no_overwrite(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    """No command writes over its input: the same path, a ./ spelling or a symlink to it."""
    _refuses(check, capsys, tmp_path, path, _writers, hard_link=False)


def test_no_overwrite_godot(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    """export-godot's scene and Variant outputs never replace the archive read."""
    _refuses(check, capsys, tmp_path, path, _godot_writers, hard_link=False)


def test_no_overwrite_hard_link(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output that is a hard link to the input is the input too."""
    _refuses(
        check,
        capsys,
        tmp_path,
        path,
        lambda v, o, s: _writers(v, o, s) + _godot_writers(v, o, s),
        hard_link=True,
    )
