"""``brson diff`` in git's external-diff form (``diff.brson.command``, ``GIT_EXTERNAL_DIFF``).

git runs the command with ``PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE`` (two
more, the new path and a similarity line, for a rename or copy; one, the path, for an
unmerged path).  A side that does not exist (an added or deleted file) is ``/dev/null`` with
mode ``.``.  git stops the whole ``git diff`` when the command exits non-zero, so a difference
exits 0 here, unlike ``brson diff A B``; unreadable input is still an error (exit 2)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain
from pathlib import Path

import typer

from brson.cli.common import Source
from brson.cli.show import show_lines, write_lines
from brson.ops.textform import escaped

#: How many arguments git passes: a change, a rename or copy, an unmerged path.
GIT_EXTERNAL_COUNTS = (7, 9)
_UNMERGED = 1
#: The mode git gives a side that does not exist.
_ABSENT = "."

#: Two files' change lines (``brson diff``'s text form).
Compare = Callable[[Path, Path], Iterable[str]]


def external_diff(args: list[str], compare: Compare) -> None:
    """Print git's header and the change lines for one path; see the module docstring."""
    if len(args) == _UNMERGED:
        write_lines([f"* Unmerged path {escaped(args[0])}"])
        return
    if len(args) not in GIT_EXTERNAL_COUNTS:
        raise typer.BadParameter(
            f"git's external-diff form has 7 or 9 arguments (1 for an unmerged path), not "
            f"{len(args)}: PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE"
        )
    path, old_file, old_hex, old_mode, new_file, new_hex, new_mode = args[:7]
    new_path = args[7] if len(args) == 9 else path
    head = [
        f"diff --brson a/{escaped(path)} b/{escaped(new_path)}",
        f"index {escaped(old_hex[:12])}..{escaped(new_hex[:12])}",
    ]
    if old_mode == _ABSENT:
        head.append(f"new file mode {new_mode}")
        body = _marked("+ ", new_file)
    elif new_mode == _ABSENT:
        head.append(f"deleted file mode {old_mode}")
        body = _marked("- ", old_file)
    else:
        if old_mode != new_mode:
            head.append(f"mode {old_mode} -> {new_mode}")
        body = compare(Path(old_file), Path(new_file))
    write_lines(chain(head, body))


def _marked(mark: str, file: str) -> Iterable[str]:
    """The whole content of an added or deleted file, each line of ``brson show`` marked."""
    source = Source(Path(file))
    return (mark + line for line in show_lines(source.tree, source.package))
