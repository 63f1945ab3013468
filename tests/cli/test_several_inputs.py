"""One rule for every command that reads several files (info, tree, refs, validate): every
good file is reported, each bad one is named, and the exit code is 2 if any failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brson.cli.app import main

PROJECT_ROOT = Path(__file__).resolve().parents[2]
GOOD = PROJECT_ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"
BAD = PROJECT_ROOT / "fixtures" / "not_bson.brson"

#: What each command prints about GOOD (stdout) in text and in JSON.
COMMANDS = {
    "info": ["info"],
    "info --json": ["info", "--json"],
    "tree": ["tree"],
    "tree --json": ["tree", "--json"],
    "refs": ["refs"],
    "refs --json": ["refs", "--json"],
}


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", list(COMMANDS))
@pytest.mark.parametrize("bad_first", [False, True], ids=["good-bad", "bad-good"])
def test_good_files_reported_bad_ones_named_exit_2(
    name: str, bad_first: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.brson"
    files = [BAD, missing, GOOD] if bad_first else [GOOD, BAD, missing]
    code, out, err = run(capsys, *COMMANDS[name], *files)
    assert code == 2
    alone = run(capsys, *COMMANDS[name], GOOD)
    assert alone[0] == 0
    if name.endswith("--json"):
        assert json.loads(out) == json.loads(alone[1])  # the good file's entry, and only it
    else:
        assert str(GOOD) in out
        assert alone[1].rstrip("\n").split("\n")[-1] in out  # its report, to the end
    lines = err.splitlines()
    assert len(lines) == 2, err  # one line per bad file, naming it
    assert any(line.startswith(f"brson: {BAD}: ") for line in lines)
    assert any(line.startswith(f"brson: {missing}: file error: no such file") for line in lines)


def test_validate_names_the_bad_file_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """validate's report is its findings: an unreadable file is one (BR1xx), named there."""
    code, out, _ = run(capsys, "validate", BAD, GOOD)
    assert code == 2
    assert f"{GOOD}: info BR502" in out and f"{BAD}: error BR106" in out
    code, out, _ = run(capsys, "validate", "--format", "json", BAD, GOOD)
    assert code == 2 and len(json.loads(out)["files"]) == 2
