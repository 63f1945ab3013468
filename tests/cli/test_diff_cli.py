"""``brson diff``: exit 0 when equal (across codecs and packages), 1 when not; text and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import brson
from brson.cli.app import main

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
STANDIN = SAMPLES / "orange3134_loading_standin.brson"


@pytest.fixture
def standin() -> Path:
    if not STANDIN.is_file():
        pytest.skip("real samples not present")
    return STANDIN


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["diff", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_equal_across_codecs_and_package(
    standin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lzma = tmp_path / "standin.7zbson"
    brson.dump(brson.load(standin), lzma)
    assert run(capsys, standin, lzma) == (0, "", "")
    package = SAMPLES / "orange3134_loading_standin.resonitepackage"
    assert run(capsys, lzma, package) == (0, "", "")


def test_an_edit_is_listed_and_exits_1(
    standin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = brson.load(standin)
    slot = list(tree.walk())[1]
    slot.name = "Edited"
    edited = tmp_path / "edited.lz4bson"
    brson.dump(tree, edited)
    code, out, err = run(capsys, standin, edited)
    assert (code, err) == (1, "")
    assert out == f'~ slot {slot.path}: renamed from "Visual" to "Edited"\n'
    code, out, _ = run(capsys, standin, edited, "--json")
    data = json.loads(out)
    assert code == 1 and data["equal"] is False
    assert data["slots_renamed"][0]["new"] == "Edited"


def test_unreadable_input_is_exit_2(standin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = PROJECT_ROOT / "fixtures" / "validate" / "BR103_truncated.brson"
    code, out, err = run(capsys, standin, broken)
    assert code == 2 and out == ""
    assert str(broken) in err and "codec error" in err
