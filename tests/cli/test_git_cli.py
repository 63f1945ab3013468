"""git integration with real git (Debian's ``git``; ``make test`` installs it): ``brson git
install`` in a repository and ``--global``, then ``git diff``, ``git log -p`` and ``git blame``
on two committed versions of a real sample, edited with brson's own ``set``; the external-diff
form; and ``uninstall`` leaving every file as it was.

Every git command runs with HOME in the test's folder and no system config, so nothing of the
machine's own git setup is read or written.  git runs brson as a program (the textconv), from
the command ``install`` wrote: ``python -m brson`` of this interpreter when no ``brson`` is on
PATH, the bare ``brson`` when one is."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brson import load
from brson.cli.app import main
from brson.cli.git import ATTRIBUTE_LINES, MARKER, MARKER_NO_EOL

SAMPLE = "orange3134_AvatarRootIdentification.brson"
PACKAGE = "orange3134_loading_standin.resonitepackage"
ROOT = "Avatar Root Identification"


@pytest.fixture
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """HOME in tmp_path, no system config, and a PATH with git but no brson (brson's own
    commands run in this process and read the same environment)."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git not installed (make test installs Debian's git)")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": os.path.dirname(git),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Tester",
        "GIT_AUTHOR_EMAIL": "tester@example.com",
        "GIT_COMMITTER_NAME": "Tester",
        "GIT_COMMITTER_EMAIL": "tester@example.com",
        "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z",
        "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
        "LC_ALL": "C.UTF-8",
    }
    for key in (
        "XDG_CONFIG_HOME",
        "GIT_CONFIG_GLOBAL",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_EXTERNAL_DIFF",
    ):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return dict(os.environ)


def git(repo: Path, *args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def brson(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(tmp_path: Path, git_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main", env=git_env)
    monkeypatch.chdir(path)
    return path


def two_versions(
    repo: Path, samples_dir: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Commit the sample, then a version whose root Position brson set changed."""
    shutil.copy(samples_dir / SAMPLE, repo / "avatar.brson")
    git(repo, "add", ".", env=env)
    git(repo, "commit", "-q", "-m", "avatar as exported", env=env)
    code, _, err = brson(capsys, "set", "avatar.brson", f"{ROOT}.Position", "[1,2,3]", "-i")
    assert code == 0, err
    git(repo, "commit", "-q", "-a", "-m", "move the avatar root", env=env)


def test_install_writes_the_attributes_and_the_drivers(
    repo: Path, git_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert brson(capsys, "git", "install")[0] == 0
    text = (repo / ".gitattributes").read_text()
    assert text == "\n".join([MARKER, *ATTRIBUTE_LINES]) + "\n"
    for name in ("a.brson", "b.7zbson", "c.lz4bson", "d.bson", "e.resonitepackage"):
        assert git(repo, "check-attr", "diff", "merge", "--", name, env=git_env) == (
            f"{name}: diff: brson\n{name}: merge: brson\n"
        )
    python = f"{sys.executable} -m brson"  # no brson on PATH: this interpreter
    assert git(repo, "config", "diff.brson.textconv", env=git_env) == f"{python} show --textconv\n"
    assert git(repo, "config", "merge.brson.driver", env=git_env) == (
        f"{python} merge --git %O %A %B %P\n"
    )
    assert git(repo, "config", "merge.brson.name", env=git_env).strip()


@pytest.mark.slow  # git runs brson (a Python start) per textconv
def test_git_diff_log_and_blame_read_the_textconv_lines(
    repo: Path, samples_dir: Path, git_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert brson(capsys, "git", "install")[0] == 0
    two_versions(repo, samples_dir, git_env, capsys)
    changed = ["-  Position = [0.0, 0.0, 0.0]", "+  Position = [1.0, 2.0, 3.0]"]

    diff = git(repo, "diff", "HEAD~1", "HEAD", env=git_env).splitlines()
    assert [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")] == (
        changed
    )
    assert f" slot {ROOT}" in diff  # the slot header is context

    log = git(repo, "log", "-p", "-1", env=git_env)
    assert "    move the avatar root" in log
    assert all(line in log.splitlines() for line in changed)
    assert "Binary files" not in log

    new = git(repo, "rev-parse", "HEAD", env=git_env).strip()
    old = git(repo, "rev-parse", "HEAD~1", env=git_env).strip()
    blame = git(repo, "blame", "-s", "avatar.brson", env=git_env).splitlines()
    by_text = {line.split(") ", 1)[1]: line.split(" ", 1)[0].lstrip("^") for line in blame}
    assert new.startswith(by_text["  Position = [1.0, 2.0, 3.0]"])
    assert old.startswith(by_text[f"slot {ROOT}"])
    assert old.startswith(by_text["  Rotation = [0.0, 0.0, 0.0, 1.0]"])


@pytest.mark.slow  # git runs brson (a Python start) per textconv
def test_an_unreadable_archive_does_not_stop_git_log(
    repo: Path, git_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """git stops a whole `log -p` at a failing textconv; --textconv shows the reason as the
    file's one line instead, without the temporary file's name (the same text every run)."""
    assert brson(capsys, "git", "install")[0] == 0
    (repo / "bad.brson").write_bytes(b"FrDT\x00\x00\x00\x00\x03garbage")
    git(repo, "add", ".", env=git_env)
    git(repo, "commit", "-q", "-m", "a corrupt archive", env=git_env)
    log = git(repo, "log", "-p", env=git_env)
    line = "+brson show: codec error: corrupt Brotli stream (brotli: decoder failed)"
    assert line in log.splitlines()
    assert git(repo, "log", "-p", env=git_env) == log
    # without --textconv, show keeps its rule: one error line naming the file, exit 2
    code, out, err = brson(capsys, "show", "bad.brson")
    assert (code, out) == (2, "") and err.startswith("brson: bad.brson: codec error")


@pytest.mark.slow  # git runs brson (a Python start) per textconv
def test_a_package_in_git_diffs_as_text(
    repo: Path, samples_dir: Path, git_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert brson(capsys, "git", "install")[0] == 0
    shutil.copy(samples_dir / PACKAGE, repo / "standin.resonitepackage")
    git(repo, "add", ".", env=git_env)
    git(repo, "commit", "-q", "-m", "one", env=git_env)
    root = load(repo / "standin.resonitepackage").root.name
    code, _, err = brson(
        capsys, "set", "standin.resonitepackage", f"{root}.Position", "[0,5,0]", "-i"
    )
    assert code == 0, err
    diff = git(repo, "diff", env=git_env).splitlines()
    assert "+  Position = [0.0, 5.0, 0.0]" in diff
    assert not any(line.startswith(("+package-asset", "-package-asset")) for line in diff)


@pytest.mark.slow  # git runs brson (a Python start) per textconv
def test_diff_command_prints_brson_diff_and_exits_0(
    repo: Path, samples_dir: Path, git_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The external-diff form: git passes 7 arguments and stops at a non-zero exit."""
    assert brson(capsys, "git", "install", "--diff-command")[0] == 0
    two_versions(repo, samples_dir, git_env, capsys)
    out = git(repo, "diff", "HEAD~1", "HEAD", env=git_env)
    assert f"~ {ROOT}.Position: [0.0, 0.0, 0.0] -> [1.0, 2.0, 3.0]" in out.splitlines()
    assert out.startswith("diff --brson a/avatar.brson b/avatar.brson\n")
    # --no-ext-diff: the textconv line diff again; log -p keeps it without --ext-diff
    plain = git(repo, "diff", "--no-ext-diff", "HEAD~1", "HEAD", env=git_env)
    assert "+  Position = [1.0, 2.0, 3.0]" in plain.splitlines()
    # an added file: every line of its text, marked
    shutil.copy(samples_dir / SAMPLE, repo / "copy.brson")
    git(repo, "add", "copy.brson", env=git_env)
    added = git(repo, "diff", "--cached", env=git_env).splitlines()
    assert added[0] == "diff --brson a/copy.brson b/copy.brson"
    assert f"+ slot {ROOT}" in added
    # GIT_EXTERNAL_DIFF, with the arguments recognised by their count
    env = dict(git_env, GIT_EXTERNAL_DIFF=f"{sys.executable} -m brson diff")
    subprocess.run(["git", "config", "--unset", "diff.brson.command"], cwd=repo, env=env)
    out = git(repo, "diff", "HEAD~1", "HEAD", env=env)
    assert f"~ {ROOT}.Position: [0.0, 0.0, 0.0] -> [1.0, 2.0, 3.0]" in out.splitlines()
    # a rename with an edit: git passes 9 arguments, the new path eighth
    git(repo, "reset", "-q", "--hard", env=git_env)
    git(repo, "mv", "avatar.brson", "moved.brson", env=git_env)
    code, _, err = brson(capsys, "set", "moved.brson", f"{ROOT}.Position", "[1,2,4]", "-i")
    assert code == 0, err
    git(repo, "add", "moved.brson", env=git_env)
    out = git(repo, "diff", "--cached", "-M1%", "HEAD", env=env).splitlines()
    assert out[0] == "diff --brson a/avatar.brson b/moved.brson", out
    assert f"~ {ROOT}.Position: [1.0, 2.0, 3.0] -> [1.0, 2.0, 4.0]" in out


def test_external_form_for_an_unmerged_path_and_a_wrong_count(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """git passes only the path of an unmerged file; any count but 1, 7 or 9 is a usage
    error (exit 2), never taken for two archives."""
    assert main(["diff", "--git-external", "x.brson"]) == 0
    assert capfd.readouterr().out == "* Unmerged path x.brson\n"
    assert main(["diff", "--git-external", "a.brson", "b.brson", "c"]) == 2
    assert "7 or 9 arguments" in capfd.readouterr().err


def test_install_twice_adds_nothing_and_uninstall_restores_every_byte(
    repo: Path, git_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    attributes = repo / ".gitattributes"
    config = repo / ".git" / "config"
    for before in ("*.png binary\n# mine\n", "*.png binary", ""):
        if before:
            attributes.write_text(before)
        else:
            attributes.unlink()
        original_config = config.read_bytes()
        assert brson(capsys, "git", "install", "--diff-command")[0] == 0
        once = (attributes.read_bytes(), config.read_bytes())
        assert brson(capsys, "git", "install", "--diff-command")[0] == 0
        assert (attributes.read_bytes(), config.read_bytes()) == once
        assert attributes.read_text().startswith(before)
        no_eol = before and not before.endswith("\n")
        assert (MARKER_NO_EOL if no_eol else MARKER) in once[0].decode()
        assert brson(capsys, "git", "uninstall")[0] == 0
        assert config.read_bytes() == original_config
        if before:
            assert attributes.read_text() == before
        else:
            assert not attributes.exists()
        assert brson(capsys, "git", "uninstall")[0] == 0  # nothing left to remove: no error


def test_lines_a_user_wrote_are_kept(
    repo: Path, git_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """An attribute line already there is not added again, and uninstall leaves it."""
    mine = f"# by hand\n{ATTRIBUTE_LINES[0]}\n"
    (repo / ".gitattributes").write_text(mine)
    assert brson(capsys, "git", "install")[0] == 0
    text = (repo / ".gitattributes").read_text()
    assert text.count(ATTRIBUTE_LINES[0]) == 1
    assert all(line in text.splitlines() for line in ATTRIBUTE_LINES)
    assert brson(capsys, "git", "uninstall")[0] == 0
    assert (repo / ".gitattributes").read_text() == mine


@pytest.mark.slow  # git runs brson (a Python start) per textconv
def test_global_install_uses_git_s_own_files(
    tmp_path: Path,
    samples_dir: Path,
    git_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--global: git config --global (~/.gitconfig) and git's default global attributes file,
    ~/.config/git/attributes (no core.attributesFile needed); with a brson on PATH, the bare
    command name, which git then finds on PATH itself."""
    home = Path(git_env["HOME"])
    bindir = Path(sys.executable).parent
    if not (bindir / "brson").exists():
        pytest.skip("no brson script beside this interpreter (not an installed environment)")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{git_env['PATH']}")
    env = dict(os.environ)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Someone\n")
    before = gitconfig.read_bytes()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # --global needs no repository
    assert brson(capsys, "git", "install", "--global")[0] == 0
    attributes = home / ".config" / "git" / "attributes"
    assert attributes.read_text() == "\n".join([MARKER, *ATTRIBUTE_LINES]) + "\n"
    assert "textconv = brson show --textconv" in gitconfig.read_text()
    # any repository now reads archives as text
    repo = tmp_path / "any"
    repo.mkdir()
    git(repo, "init", "-q", env=env)
    monkeypatch.chdir(repo)
    two_versions(repo, samples_dir, env, capsys)
    assert "+  Position = [1.0, 2.0, 3.0]" in git(repo, "log", "-p", "-1", env=env).splitlines()
    assert brson(capsys, "git", "uninstall", "--global")[0] == 0
    assert gitconfig.read_bytes() == before
    assert not attributes.exists()


def test_global_install_follows_core_attributes_file(
    tmp_path: Path, git_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    home = Path(git_env["HOME"])
    git(tmp_path, "config", "--global", "core.attributesFile", "~/my-attributes", env=git_env)
    (home / "my-attributes").write_text("*.psd binary\n")
    assert brson(capsys, "git", "install", "--global")[0] == 0
    assert (home / "my-attributes").read_text().startswith("*.psd binary\n" + MARKER)
    assert not (home / ".config" / "git" / "attributes").exists()
    assert brson(capsys, "git", "uninstall", "--global")[0] == 0
    assert (home / "my-attributes").read_text() == "*.psd binary\n"


def test_outside_a_repository_is_one_error_line(
    tmp_path: Path,
    git_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    code, _, err = brson(capsys, "git", "install")
    assert code == 2
    assert err.count("\n") == 1 and "git error" in err and "repository" in err, err
    assert not (outside / ".gitattributes").exists()


@pytest.mark.slow  # git runs brson (a Python start) per textconv
def test_the_readme_excerpt_is_what_git_log_prints(
    repo: Path, samples_dir: Path, git_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's `git log -p` excerpt, made again: the same package, edit and commit (its
    author and date fixed); every line but the commit and blob hashes must match."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Keeping Resonite content in git", 1)[1]
    excerpt = section.split("```\ncommit ", 1)[1].split("```", 1)[0]
    expected = ("commit " + excerpt).splitlines()
    assert brson(capsys, "git", "install")[0] == 0
    shutil.copy(samples_dir / "mar_coresys.resonitepackage", repo / "coresys.resonitepackage")
    git(repo, "add", ".", env=git_env)
    git(repo, "commit", "-q", "-m", "Core Systems as exported", env=git_env)
    field = "000003b2-0000-0000-0000-000000000000:ValueInput<int>.Value"
    code, _, err = brson(capsys, "set", "coresys.resonitepackage", field, "2", "-i")
    assert code == 0, err
    env = dict(
        git_env,
        GIT_AUTHOR_NAME="Ada",
        GIT_AUTHOR_EMAIL="ada@example.com",
        GIT_AUTHOR_DATE="2026-11-27T14:00:00Z",
    )
    git(repo, "commit", "-q", "-a", "-m", "Settings Copier: search two levels deep", env=env)
    printed = git(repo, "log", "-p", "-1", env=env).splitlines()[: len(expected)]

    def unhashed(lines: list[str]) -> list[str]:
        return [line for line in lines if not line.startswith(("commit ", "index "))]

    assert unhashed(printed) == unhashed(expected)
