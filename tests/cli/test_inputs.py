"""Folders and globs for every command that takes several files (validate, info, tree, refs);
``tree`` and ``refs`` take several files and their ``--json`` is a list, one object per file
(issue 18: ``brson validate samples/`` and ``'samples/*.brson'`` failed with BR101)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from brson.cli.app import main
from brson.cli.common import expand_inputs, is_archive_name
from brson.container import EXTENSIONS, PACKAGE_SUFFIX

PROJECT_ROOT = Path(__file__).resolve().parents[2]
REAL = PROJECT_ROOT / "fixtures" / "real"
STANDIN = REAL / "orange3134_loading_standin.brson"
FIX = PROJECT_ROOT / "fixtures" / "validate"
BROKEN = FIX / "BR401_duplicate_id.brson"


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """worlds/: archives of every extension at two depths, a package, and what is no archive
    (a README, a hidden folder, a hidden file)."""
    root = tmp_path / "worlds"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / ".git").mkdir()
    shutil.copy(STANDIN, root / "b.brson")
    shutil.copy(STANDIN, root / "sub" / "a.bson.brson")
    shutil.copy(FIX / "clean_neos.7zbson", root / "sub" / "deeper" / "neos.7zbson")
    shutil.copy(STANDIN, root / ".git" / "hidden.brson")
    shutil.copy(STANDIN, root / ".hidden.brson")
    (root / "README.md").write_text("not an archive")
    (root / "notes.json").write_text("{}")
    package = PROJECT_ROOT / "fixtures" / "demo" / "orange3134_loading_standin.resonitepackage"
    shutil.copy(package, root / "sub" / "Thing.RESONITEPACKAGE")
    return root


def test_archive_names_come_from_the_container_layer() -> None:
    for extension in EXTENSIONS:
        assert is_archive_name(f"x{extension}") and is_archive_name(f"X{extension.upper()}")
    assert is_archive_name(f"x{PACKAGE_SUFFIX}")
    assert not is_archive_name("x.json") and not is_archive_name("brson")


def test_a_folder_stands_for_its_archives(folder: Path) -> None:
    found = [p.relative_to(folder).as_posix() for p in expand_inputs([folder])]
    assert found == [
        "b.brson",
        "sub/Thing.RESONITEPACKAGE",
        "sub/a.bson.brson",
        "sub/deeper/neos.7zbson",
    ]


def test_globs_files_and_duplicates(folder: Path) -> None:
    assert expand_inputs([folder / "*.brson"]) == [folder / "b.brson"]
    deep = expand_inputs([Path(f"{folder}/**/*.brson"), Path(f"{folder}/**/*.7zbson")])
    assert [p.name for p in deep] == ["b.brson", "a.bson.brson", "neos.7zbson"]
    # a glob takes what it matches, as a shell would (hidden names excepted)
    assert [p.name for p in expand_inputs([folder / "*"])] == [
        "README.md",
        "b.brson",
        "notes.json",
        "Thing.RESONITEPACKAGE",
        "a.bson.brson",
        "neos.7zbson",
    ]
    # named twice, or named and inside a named folder: once, at its first place
    twice = expand_inputs([folder / "b.brson", folder, folder / "b.brson"])
    assert twice[0] == folder / "b.brson" and len(twice) == 4
    # a folder holding no archive stays itself, so the command reports it
    empty = folder / "empty"
    empty.mkdir()
    assert expand_inputs([empty]) == [empty]
    # a missing plain name is left for the command to report
    assert expand_inputs([folder / "missing.brson"]) == [folder / "missing.brson"]


def test_validate_a_folder_and_a_quoted_glob(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "validate", folder)
    assert out.splitlines()[-1].startswith("4 file(s): 0 error(s)")
    assert code == 0
    shutil.copy(BROKEN, folder / "sub" / "broken.brson")
    code, out, _ = run(capsys, "validate", f"{folder}/**/*.brson")
    assert code == 1
    assert out.splitlines()[-1].startswith("3 file(s): 1 error(s)")
    assert f"{folder}/sub/broken.brson: error BR401" in out


def test_a_glob_matching_nothing_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("validate", "info", "tree", "refs"):
        code, out, err = run(capsys, command, tmp_path / "*.brson")
        assert code == 2 and out == "", command
        assert err.strip() == f"brson: {tmp_path}/*.brson: file error: no file matches this pattern"


def test_an_empty_folder_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", tmp_path)
    assert code == 2 and f"{tmp_path}: error BR101" in out
    code, out, err = run(capsys, "info", tmp_path)
    assert code == 2 and "is a directory" in err and len(err.splitlines()) == 1


def test_info_tree_refs_json_are_lists_one_per_file(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = [str(p) for p in expand_inputs([folder])]
    for command in ("info", "tree", "refs"):
        code, out, err = run(capsys, command, folder, "--json")
        assert code == 0, err
        data = json.loads(out)
        assert isinstance(data, list) and [d["file"] for d in data] == expected, command
        code, out, _ = run(capsys, command, STANDIN, "--json")
        data = json.loads(out)
        assert isinstance(data, list) and len(data) == 1 and data[0]["file"] == str(STANDIN)
    code, out, _ = run(capsys, "tree", STANDIN, folder / "b.brson", "--json", "--depth", "0")
    [first, second] = json.loads(out)
    assert first["root"] == second["root"] and first["root"]["hidden_children"] > 0


def test_tree_and_refs_text_with_several_files(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, one, _ = run(capsys, "tree", STANDIN)
    assert code == 0 and not one.startswith(str(STANDIN))  # one file: as before, no heading
    code, out, _ = run(capsys, "tree", STANDIN, folder / "b.brson")
    assert code == 0
    assert out == f"{STANDIN}:\n{one}\n{folder / 'b.brson'}:\n{one}"
    code, out, _ = run(capsys, "refs", folder / "*.brson", STANDIN)
    assert code == 0
    heads = [line for line in out.splitlines() if " references, " in line]
    assert [h.split(":")[0] for h in heads] == [str(folder / "b.brson"), str(STANDIN)]


def test_a_bad_file_among_several_stops_with_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.brson"
    bad.write_bytes(b"FrDT nonsense")
    for command in ("tree", "refs", "info"):
        code, _, err = run(capsys, command, STANDIN, bad, "--json")
        assert code == 2 and str(bad) in err and len(err.strip().splitlines()) == 1
