"""``brson git install|uninstall``: git's attributes and config for Resonite archives, so
``git diff``, ``git log -p`` and ``git blame`` read them as text (``brson show``) and
``git merge`` merges them by element ID (``brson merge``).

Modelled on nbdime's ``nbdime config-git --enable [--global]``: the drivers are set with
``git config`` (in the repository, or ``--global``), and the attribute lines go to the work
tree's top ``.gitattributes`` or, with ``--global``, to git's global attributes file
(``core.attributesFile`` when set, else git's default ``$XDG_CONFIG_HOME/git/attributes`` or
``~/.config/git/attributes``, which git reads without any setting, so none is made).

Unlike nbdime, uninstalling removes the attribute lines too, and nothing else: install writes
the lines it adds after a marker comment, and uninstall removes exactly that block.  Lines a
user wrote, even identical ones, are never touched; running install twice adds nothing.
"""

from __future__ import annotations

import enum
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from brson.cli.common import note
from brson.errors import BrsonError
from brson.fileio import FileError, write_atomic

app = typer.Typer()

#: The extensions git hands to brson: the archive codecs, raw BSON and packages.
PATTERNS = ("*.brson", "*.7zbson", "*.lz4bson", "*.bson", "*.resonitepackage")
#: The driver name in ``diff=`` / ``merge=`` and in the config sections.
DRIVER = "brson"
ATTRIBUTE_LINES = tuple(f"{pattern} diff={DRIVER} merge={DRIVER}" for pattern in PATTERNS)
#: The comment before the lines install adds.  The variant records that the file did not end
#: with a newline, which install had to add, so uninstall can take it away again.
MARKER = "# brson git install: Resonite archives (brson git uninstall removes this block)"
MARKER_NO_EOL = MARKER + " [no newline at end before]"

#: git's timeout for one ``git config`` call, in seconds: a local command; a hang is a fault.
_GIT_TIMEOUT = 60


class GitError(BrsonError):
    """git is missing, or refused to read or write its config."""

    layer = "git"


class Action(enum.StrEnum):
    INSTALL = "install"
    UNINSTALL = "uninstall"


@app.command("git")
def git_command(
    action: Annotated[Action, typer.Argument(help="install or uninstall.")],
    global_: Annotated[
        bool,
        typer.Option(
            "--global",
            help="For every repository of this user (git config --global and git's global "
            "attributes file) instead of the current one.",
        ),
    ] = False,
    diff_command: Annotated[
        bool,
        typer.Option(
            "--diff-command",
            help="Also set diff.brson.command, so `git diff` prints brson diff's list of "
            "changes instead of a line diff of brson show (git log -p and blame keep the "
            "line diff; --no-ext-diff turns it off for one command).",
        ),
    ] = False,
) -> None:
    """Set up (or remove) git's drivers for *.brson, *.7zbson, *.lz4bson, *.bson and
    *.resonitepackage: `brson show` as the diff textconv (git diff, log -p, blame) and
    `brson merge` as the merge driver. Running it again changes nothing; uninstall removes
    exactly what install added."""
    scope = Scope(global_)
    if action is Action.INSTALL:
        install(scope, diff_command=diff_command)
    else:
        uninstall(scope)


class Scope:
    """Where the settings go: the current repository, or the user's global ones."""

    def __init__(self, global_: bool) -> None:
        self.global_ = global_
        if global_:
            self.top: Path | None = None
            self.attributes = _global_attributes()
        else:
            self.top = Path(_git("rev-parse", "--show-toplevel", what="find the repository"))
            self.attributes = self.top / ".gitattributes"

    def config(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        flag = "--global" if self.global_ else "--local"
        return _run(["config", flag, *args], self.top, check=check, what="write git's config")


def config_values(command: str, diff_command: bool) -> dict[str, str]:
    """The config install writes, key by key."""
    values = {f"diff.{DRIVER}.textconv": f"{command} show --textconv"}
    if diff_command:
        values[f"diff.{DRIVER}.command"] = f"{command} diff --git-external"
    values[f"merge.{DRIVER}.name"] = "brson: three-way merge of Resonite archives by element ID"
    values[f"merge.{DRIVER}.driver"] = f"{command} merge --git %O %A %B %P"
    return values


#: Every key install may write, for uninstall.
_KEYS = (*config_values("brson", True),)


def brson_command() -> str:
    """How git should run brson: ``brson`` when that command is on PATH (as nbdime writes its
    bare command names, so a global setting follows whichever brson the user has), else this
    Python running ``-m brson`` (a venv not on PATH, ``python -m brson git install``).  git
    runs drivers through the shell, so the path is quoted for it."""
    if shutil.which("brson") is not None:
        return "brson"
    return f"{shlex.quote(sys.executable)} -m brson"


def install(scope: Scope, *, diff_command: bool = False) -> None:
    for key, value in config_values(brson_command(), diff_command).items():
        current = scope.config("--get", key, check=False).stdout.rstrip("\n")
        if current != value:
            scope.config(key, value)
    added = add_attribute_lines(scope.attributes)
    where = "global" if scope.global_ else "repository"
    note(f"brson git drivers set in the {where} config; attributes in {scope.attributes}")
    if not added:
        note(f"{scope.attributes} already had the attribute lines")


def uninstall(scope: Scope) -> None:
    for key in _KEYS:
        if scope.config("--get", key, check=False).returncode == 0:
            scope.config("--unset", key)
    for section in (f"diff.{DRIVER}", f"merge.{DRIVER}"):
        # git drops a section with its last key; one left empty by hand goes too.
        if scope.config("--get-regexp", f"^{section}\\.", check=False).returncode != 0:
            done = scope.config("--remove-section", section, check=False)
            if done.returncode != 0 and "no such section" not in done.stderr:
                raise GitError(f"git config --remove-section {section}: {_first(done.stderr)}")
    remove_attribute_lines(scope.attributes)
    note(f"brson git drivers removed; {scope.attributes} has no brson block")


def add_attribute_lines(path: Path) -> bool:
    """Append the lines not yet in ``path`` (as a block after :data:`MARKER`); False when
    every line was there already (written by install or by hand)."""
    text = _read_text(path)
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in ATTRIBUTE_LINES if line not in present]
    if not missing:
        return False
    marker = MARKER
    if text and not text.endswith("\n"):
        text += "\n"
        marker = MARKER_NO_EOL
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        folder = str(path.parent)
        raise FileError(f"cannot create the folder ({exc.strerror})", file=folder) from None
    write_atomic(path, (text + "\n".join([marker, *missing]) + "\n").encode())
    return True


def remove_attribute_lines(path: Path) -> None:
    """Remove every block install wrote: a marker line and the attribute lines right after
    it.  A file left empty that install created goes."""
    text = _read_text(path)
    if MARKER not in text:
        return
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    strip_eol = False
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r\n")
        if line in (MARKER, MARKER_NO_EOL):
            i += 1
            while i < len(lines) and lines[i].rstrip("\r\n") in ATTRIBUTE_LINES:
                i += 1
            strip_eol = line == MARKER_NO_EOL and i == len(lines)
            continue
        kept.append(lines[i])
        i += 1
    result = "".join(kept)
    if strip_eol and result.endswith("\n"):
        result = result[:-1]
    if result:
        write_atomic(path, result.encode())
        return
    try:
        path.unlink()
    except OSError as exc:
        raise FileError(f"cannot remove it emptied ({exc.strerror})", file=str(path)) from None


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise FileError(f"cannot read ({exc.strerror})", file=str(path)) from None


def _global_attributes() -> Path:
    """git's global attributes file, as git itself finds it."""
    found = _run(["config", "--global", "--get", "core.attributesFile"], None, check=False)
    if found.returncode == 0 and found.stdout.strip():
        return Path(os.path.expanduser(found.stdout.strip()))
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg else Path(os.path.expanduser("~")) / ".config"
    return base / "git" / "attributes"


def _git(*args: str, what: str) -> str:
    return _run(list(args), None, check=True, what=what).stdout.strip()


def _run(
    args: list[str], cwd: Path | None, *, check: bool, what: str = "run git"
) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise GitError(f"cannot {what}: git is not installed (or not on PATH)") from None
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"cannot {what}: {exc}") from None
    if check and done.returncode != 0:
        raise GitError(f"cannot {what}: git {args[0]}: {_first(done.stderr)}")
    return done


def _first(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "failed"
