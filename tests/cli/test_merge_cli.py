"""``brson merge``: the three-file form and git's merge-driver form on real samples (clean
merges written in OURS' framing, conflicts listed with nothing written and exit 1, bad input
exit 2), packages, and a real ``git merge`` through the driver."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import brson
from brson.cli.app import main
from brson.ops.applier import apply_bytes
from brson.ops.patch import make_patch
from brson.package import load_package

STANDIN = "orange3134_loading_standin.brson"
LEGACY = "redx_5ce7cdf5.7zbson"
PACKAGE = "orange3134_loading_standin.resonitepackage"


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _ids(path: Path) -> tuple[str, str]:
    """Two slots in different places: the first after the root, and the last."""
    slots = list(brson.load(path).walk())
    first, second = slots[1].id, slots[-1].id
    assert first is not None and second is not None
    return first, second


def _sides(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sample: Path, theirs_slot: int = 1
) -> tuple[Path, Path, Path]:
    suffix = "".join(sample.suffixes[-1:])
    base = tmp_path / f"base{suffix}"
    shutil.copyfile(sample, base)
    ids = _ids(base)
    ours, theirs = tmp_path / f"ours{suffix}", tmp_path / f"theirs{suffix}"
    assert run(capsys, "rename", base, ids[0], "Ours", "-o", ours)[0] == 0
    assert run(capsys, "rename", base, ids[theirs_slot], "Theirs", "-o", theirs)[0] == 0
    return base, ours, theirs


@pytest.mark.parametrize("name", [STANDIN, LEGACY])
def test_clean_merge_in_ours_framing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, samples_dir: Path, name: str
) -> None:
    base, ours, theirs = _sides(capsys, tmp_path, samples_dir / name)
    out = tmp_path / f"out{base.suffix}"
    code, _, err = run(capsys, "merge", base, ours, theirs, "-o", out)
    assert code == 0, err
    merged = brson.load(out)
    first, second = _ids(base)
    names = {s.id: s.name for s in merged.walk()}
    assert (names[first], names[second]) == ("Ours", "Theirs")
    expected = apply_bytes(
        brson.load(ours).to_bson(), make_patch(brson.load(base), brson.load(theirs))
    )
    assert merged.to_bson() == expected.bson
    # OURS' framing: a headerless legacy file stays one, Brotli stays Brotli.
    container, own = merged.container, brson.load(ours).container
    assert container is not None and own is not None
    assert (container.codec, container.legacy) == (own.codec, own.legacy)


def test_merge_equal_to_ours_is_ours_bytes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, samples_dir: Path
) -> None:
    base, ours, _ = _sides(capsys, tmp_path, samples_dir / STANDIN)
    out = tmp_path / "out.brson"
    assert run(capsys, "merge", base, ours, base, "-o", out)[0] == 0
    assert out.read_bytes() == ours.read_bytes()


def test_conflict_lists_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, samples_dir: Path
) -> None:
    base, ours, theirs = _sides(capsys, tmp_path, samples_dir / STANDIN, theirs_slot=0)
    out = tmp_path / "out.brson"
    code, out_text, err = run(capsys, "merge", base, ours, theirs, "-o", out)
    assert code == 1
    lines = [line for line in (out_text + err).splitlines() if line.startswith("CONFLICT ")]
    assert len(lines) == 1 and _ids(base)[0] in lines[0] and "Name.Data" in lines[0]
    assert not out.exists()


def test_git_form_writes_into_ours_or_leaves_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, samples_dir: Path
) -> None:
    base, ours, theirs = _sides(capsys, tmp_path, samples_dir / STANDIN)
    # git's temporary files have no extension: %P names the file.
    o, a, b = (tmp_path / n for n in (".merge_file_O", ".merge_file_A", ".merge_file_B"))
    for src, dst in ((base, o), (ours, a), (theirs, b)):
        shutil.copyfile(src, dst)
    assert run(capsys, "merge", "--git", o, a, b, "world/standin.brson")[0] == 0
    names = {s.id: s.name for s in brson.loads(a.read_bytes(), name="x.brson").walk()}
    first, second = _ids(base)
    assert (names[first], names[second]) == ("Ours", "Theirs")
    clash = tmp_path / "clash.brson"
    assert run(capsys, "rename", base, _ids(base)[0], "Theirs", "-o", clash)[0] == 0
    shutil.copyfile(clash, b)
    shutil.copyfile(ours, a)
    before = a.read_bytes()
    code, out_text, err = run(capsys, "merge", "--git", o, a, b, "world/standin.brson")
    assert code == 1 and "CONFLICT" in out_text + err
    assert a.read_bytes() == before


def test_packages_merge_tree_and_assets(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, samples_dir: Path
) -> None:
    base, ours, theirs = _sides(capsys, tmp_path, samples_dir / PACKAGE)
    out = tmp_path / "out.resonitepackage"
    code, _, err = run(capsys, "merge", base, ours, theirs, "-o", out)
    assert code == 0, err
    merged = load_package(out)
    first, second = _ids(base)
    names = {s.id: s.name for s in merged.tree.walk()}
    assert (names[first], names[second]) == ("Ours", "Theirs")
    assert set(merged.assets) == set(load_package(base).assets)
    for name in merged.assets:
        assert merged.assets[name] == load_package(base).assets[name]


@pytest.mark.parametrize("content", [b"", b"not an archive at all", b"FrDT\x00\x00\x00\x00\x03xx"])
def test_bad_input_is_one_error_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, samples_dir: Path, content: bytes
) -> None:
    base, ours, _ = _sides(capsys, tmp_path, samples_dir / STANDIN)
    bad = tmp_path / "bad.brson"
    bad.write_bytes(content)
    out = tmp_path / "out.brson"
    code, _, err = run(capsys, "merge", base, ours, bad, "-o", out)
    assert code == 2
    assert "bad.brson" in err and "Traceback" not in err
    assert not out.exists()


# -- real git ------------------------------------------------------------------------------------
def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(repo),
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=check
    )


def _repo(tmp_path: Path, sample: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / ".gitattributes").write_text("*.brson merge=brson\n")
    driver = f"{sys.executable} -m brson merge --git %O %A %B %P"
    _git(repo, "config", "merge.brson.driver", driver)
    shutil.copyfile(sample, repo / "world.brson")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    return repo


def _branch_edit(repo: Path, branch: str, start: str, slot: str, name: str) -> None:
    _git(repo, "checkout", "-q", "-b", branch, start)
    code = main(["rename", str(repo / "world.brson"), slot, name, "--in-place"])
    assert code == 0
    _git(repo, "commit", "-q", "-am", f"{branch}: {name}")


def _merge_branches(tmp_path: Path, sample: Path, same: bool) -> tuple[Path, str, int, bytes]:
    """A repo whose branches ``ours`` and ``theirs`` renamed two slots (or the same one),
    ``git merge theirs`` run on ``ours``: (repo, git's output, its exit code, ours' bytes)."""
    repo = _repo(tmp_path, sample)
    first, second = _ids(repo / "world.brson")
    _branch_edit(repo, "ours", "main", first, "Ours")
    _branch_edit(repo, "theirs", "main", first if same else second, "Theirs")
    _git(repo, "checkout", "-q", "ours")
    ours_bytes = (repo / "world.brson").read_bytes()
    done = _git(repo, "merge", "--no-edit", "theirs", check=False)
    return repo, done.stdout + done.stderr, done.returncode, ours_bytes


def test_real_git_merges_different_elements_clean(tmp_path: Path, samples_dir: Path) -> None:
    repo, output, code, _ = _merge_branches(tmp_path, samples_dir / STANDIN, same=False)
    assert code == 0, output
    first, second = _ids(samples_dir / STANDIN)
    names = {s.id: s.name for s in brson.load(repo / "world.brson").walk()}
    assert (names[first], names[second]) == ("Ours", "Theirs")
    assert _git(repo, "status", "--porcelain").stdout == ""


def test_real_git_same_member_both_ways_conflicts(tmp_path: Path, samples_dir: Path) -> None:
    repo, output, code, ours_bytes = _merge_branches(tmp_path, samples_dir / STANDIN, same=True)
    assert code != 0
    assert "CONFLICT" in output
    # git leaves ours in the working file (the driver wrote nothing) and marks it unmerged.
    assert (repo / "world.brson").read_bytes() == ours_bytes
    assert _git(repo, "status", "--porcelain").stdout.startswith("UU world.brson")
