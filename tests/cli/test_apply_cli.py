"""``brson apply`` and ``--in-place``: the diff's JSON applied to A writes B byte for byte (the
archive file itself, in A's codec and framing); conflicts exit 1 and write nothing; edits can
replace their FILE atomically."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest

import brson
from brson.cli.app import main
from brson.package import load_package

STANDIN = "orange3134_loading_standin.brson"
ARCHIVES = [
    "orange3134_loading_standin.brson",
    "orange3134_AvatarRootIdentification.brson",
    "mar_AimConstraint.pg.brson",
    "redx_5ce7cdf5.7zbson",
]
PACKAGES = [
    "orange3134_loading_standin.resonitepackage",
    "orange3134_AvatarRootIdentification.resonitepackage",
    "mar_coresys.resonitepackage",
]


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def first_child(path: Path) -> str:
    tree = brson.load(path)
    slot = tree.root.children[0]
    assert slot.id is not None
    return slot.id


def make_b(capsys: pytest.CaptureFixture[str], a: Path, b: Path) -> None:
    """B: A with its first child renamed and deactivated, by two edit commands."""
    middle = b.with_name("middle" + b.suffix)
    assert run(capsys, "rename", a, first_child(a), "Renamed", "-o", middle)[0] == 0
    assert run(capsys, "set", middle, f"{first_child(a)}.Active", "false", "-o", b)[0] == 0


def _ids(path: Path) -> dict[str, str]:
    """IDs the edit scenarios need: the root, a leaf, a slot with components, and the short
    type name of that slot's first component."""
    tree = brson.load(path)
    leaf = next(s for s in reversed(list(tree.walk())) if not s.children)
    owner = next(s for s in tree.walk() if s.components and s.parent is not None)
    return {
        "root": str(tree.root.id),
        "leaf": str(leaf.id),
        "owner": str(owner.id),
        "type": owner.components[0].type_label,
    }


#: Edit commands making B from A, with the edit kinds they cover.
SCENARIOS: dict[str, list[list[str]]] = {
    "rename+set": [["rename", "{first}", "Renamed"], ["set", "{first}.Active", "false"]],
    "move": [["move", "{leaf}", "--to", "{root}", "--index", "0"]],
    "delete-slot": [["delete", "{leaf}"]],
    "delete-component+types": [["delete", "{owner}", "-c", "{type}[0]", "--prune-types"]],
    "import": [["import", "{standin}", "--slot", "UserIconMat", "--parent", "{first}"]],
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("name", ARCHIVES + PACKAGES)
def test_every_cli_edit_kind(
    samples_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    scenario: str,
) -> None:
    """B made by the edit commands; diff --json applied to A gives B's file (archives) or
    main tree (packages) byte for byte."""
    a = samples_dir / name
    donor = samples_dir / "orange3134_loading_standin.resonitepackage"  # assets come along
    values = {**_ids(a), "first": first_child(a), "standin": str(donor)}
    if scenario == "import" and brson.load(a).legacy:
        # A Resonite subtree is never grafted into a NeosVR file: one clear error, no output.
        out = tmp_path / f"refused{a.suffixes[-1]}"
        args = [part.format(**values) for part in SCENARIOS["import"][0][1:]]
        code, _, err = run(capsys, "import", a, *args, "-o", out)
        assert code == 2 and "into a NeosVR (legacy) one" in err and "Traceback" not in err
        assert err.count("\n") == 1 and not out.exists()
        return
    current, suffix = a, a.suffixes[-1]
    for step, command in enumerate(SCENARIOS[scenario]):
        nxt = tmp_path / f"step{step}{suffix}"
        args = [command[0], current, *[part.format(**values) for part in command[1:]], "-o", nxt]
        code, _, err = run(capsys, *args)
        assert code == 0, err
        current = nxt
    b = current
    patch = tmp_path / "ab.json"
    code, text, _ = run(capsys, "diff", a, b, "--json")
    assert code == 1
    assert "replace" not in json.loads(text)["patch"]
    patch.write_text(text)
    out = tmp_path / f"out{suffix}"
    more = ["--assets-from", str(donor)] if name in PACKAGES else []
    code, text, err = run(capsys, "apply", a, patch, "-o", out, *more)
    assert (code, err) == (0, "") and "byte-identical to the diff's B" in text
    if name in PACKAGES:
        assert brson.load(out).to_bson() == brson.load(b).to_bson()
        assert set(load_package(out).assets) == set(load_package(b).assets)
    else:
        assert out.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("name", ARCHIVES + PACKAGES)
def test_apply_diff_to_a_writes_b(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    a = samples_dir / name
    b = tmp_path / f"b{''.join(a.suffixes[-1:])}"
    make_b(capsys, a, b)
    code, diff_json, _ = run(capsys, "diff", a, b, "--json")
    assert code == 1
    assert "patch" in json.loads(diff_json)
    patch = tmp_path / "ab.json"
    patch.write_text(diff_json)
    out = tmp_path / f"out{b.suffix}"
    code, text, err = run(capsys, "apply", a, patch, "-o", out)
    assert (code, err) == (0, ""), err
    assert "byte-identical to the diff's B" in text
    if name in PACKAGES:  # a zip: the main tree's BSON is B's; the assets are kept
        assert brson.load(out).to_bson() == brson.load(b).to_bson()
        assert set(load_package(out).assets) == set(load_package(b).assets)
    else:
        assert out.read_bytes() == b.read_bytes()


def test_conflict_exit_1_nothing_written(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = samples_dir / STANDIN
    b, c = tmp_path / "b.brson", tmp_path / "c.brson"
    make_b(capsys, a, b)
    slot_id = first_child(a)
    run(capsys, "rename", a, slot_id, "Other", "-o", c)
    patch = tmp_path / "ab.json"
    patch.write_text(run(capsys, "diff", a, b, "--json")[1])
    out = tmp_path / "out.brson"
    code, text, err = run(capsys, "apply", c, patch, "-o", out)
    assert code == 1 and err == ""
    assert not out.exists()
    lines = text.splitlines()
    assert lines[0] == f"1 conflict(s) applying {patch} to {c}:"
    assert lines[1].startswith(f"  slot {slot_id} (")
    assert '/Other) Name.Data: expected "' in lines[1]
    assert lines[-1] == "nothing written"
    code, text, _ = run(capsys, "apply", c, patch, "-o", out, "--json")
    report = json.loads(text)
    assert code == 1 and report["output"] is None
    [conflict] = report["conflicts"]
    assert (conflict["kind"], conflict["id"], conflict["key"]) == ("slot", slot_id, "Name.Data")


def test_apply_json_report_and_stdin(
    samples_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a = samples_dir / STANDIN
    b = tmp_path / "b.brson"
    make_b(capsys, a, b)
    diff_json = run(capsys, "diff", a, b, "--json")[1]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(diff_json.encode())))
    out = tmp_path / "out.brson"
    code, text, _ = run(capsys, "apply", a, "-", "-o", out, "--json")
    assert code == 0
    assert json.loads(text) == {
        "output": str(out),
        "applied": 1,  # one element: the slot renamed and deactivated
        "conflicts": [],
        "identical_to_b": True,
    }


def test_bad_patch_is_one_line(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = samples_dir / STANDIN
    for content, expected in (
        ("{not json", "invalid JSON"),
        ('{"equal": true}', "not a patch"),
        ('{"patch": {"format": "brson-patch/1", "slots": 3}}', "slots in the patch is not a list"),
    ):
        patch = tmp_path / "p.json"
        patch.write_text(content)
        code, out, err = run(capsys, "apply", a, patch, "-o", tmp_path / "o.brson")
        assert code == 2 and out == ""
        assert expected in err and str(patch) in err and len(err.splitlines()) == 1


def test_in_place(samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work = tmp_path / "work.brson"
    shutil.copy(samples_dir / STANDIN, work)
    slot_id = first_child(work)
    code, _, err = run(capsys, "rename", work, slot_id, "InPlace", "--in-place")
    assert (code, err) == (0, "")
    assert brson.load(work).root.children[0].name == "InPlace"
    assert [p.name for p in tmp_path.iterdir()] == ["work.brson"]  # no temporary left
    code, _, err = run(capsys, "rename", work, slot_id, "x", "--in-place", "-o", tmp_path / "o")
    assert code == 2 and "not both" in err
    code, _, err = run(capsys, "rename", work, slot_id, "x")
    assert code == 2 and "--in-place" in err
    # apply in place: A becomes B
    b = tmp_path / "b.brson"
    shutil.copy(samples_dir / STANDIN, tmp_path / "a.brson")
    make_b(capsys, tmp_path / "a.brson", b)
    patch = tmp_path / "ab.json"
    patch.write_text(run(capsys, "diff", tmp_path / "a.brson", b, "--json")[1])
    code, _, err = run(capsys, "apply", tmp_path / "a.brson", patch, "-i")
    assert (code, err) == (0, "")
    assert (tmp_path / "a.brson").read_bytes() == b.read_bytes()


def test_in_place_never_takes_the_other_input(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work.brson"
    shutil.copy(samples_dir / STANDIN, work)
    code, _, err = run(capsys, "apply", work, work, "--in-place")
    assert code == 2 and "is an input of this command" in err


@pytest.mark.parametrize(
    "args",
    [
        ["set", "{f}", "Visual.Active", "false"],
        ["rename", "{f}", "Visual", "Renamed"],
        ["move", "{f}", "UserIconMat", "--to", "LoadingStandin - Thumbnail v1.3.1"],
        ["delete", "{f}", "Visual"],
        ["set-var", "{f}", "RedprintPack/Name=x", "--all"],
        ["renumber", "{f}"],
        ["import", "{f}", "{other}", "--slot", "UserIconMat"],
    ],
    ids=lambda args: args[0],
)
def test_every_edit_command_in_place(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    work = tmp_path / "work.brson"
    shutil.copy(samples_dir / STANDIN, work)
    before = work.read_bytes()
    other = samples_dir / STANDIN
    argv = [a.format(f=work, other=other) for a in args]
    code, _, err = run(capsys, *argv, "--in-place")
    assert (code, err) == (0, "")
    assert work.read_bytes() != before
    brson.load(work)  # a whole archive, not a partial one
    assert [p.name for p in tmp_path.iterdir()] == ["work.brson"]


def test_package_assets_the_patch_does_not_carry(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """B names an asset FILE's package lacks: one error line naming it, unless --assets-from
    gives a package holding it."""
    a = samples_dir / "mar_coresys.resonitepackage"
    donor = samples_dir / "orange3134_loading_standin.resonitepackage"
    b = tmp_path / "b.resonitepackage"
    run(capsys, "import", a, donor, "--slot", "UserIconMat", "-o", b)
    patch = tmp_path / "ab.json"
    patch.write_text(run(capsys, "diff", a, b, "--json")[1])
    out = tmp_path / "out.resonitepackage"
    code, _, err = run(capsys, "apply", a, patch, "-o", out)
    assert code == 2 and not out.exists()
    assert err.startswith(f"brson: {a}: package error: ") and len(err.splitlines()) == 1
    code, _, err = run(capsys, "apply", a, patch, "-o", out, "--assets-from", b)
    assert (code, err) == (0, "")
    assert set(load_package(out).assets) == set(load_package(b).assets)
