"""``brson diff``: what changed between two archives, keyed by element IDs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brson import api
from brson.cli.common import EXIT_FINDINGS, State, print_json, progress, stdout
from brson.cli.gitdiff import GIT_EXTERNAL_COUNTS, external_diff
from brson.errors import BrsonError
from brson.model.tree import DataTree
from brson.ops.diff import add_connections, compared
from brson.ops.diff import diff as diff_trees
from brson.ops.patch import finish_patch

app = typer.Typer()


@app.command()
def diff(
    a: Annotated[Path, typer.Argument(help="The old archive (any codec, or a package).")],
    b: Annotated[Path | None, typer.Argument(help="The new archive.")] = None,
    git_args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[GIT ARGS]",
            help="With --git-external: the rest of git's external-diff arguments.",
            show_default=False,
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    git_external: Annotated[
        bool,
        typer.Option(
            "--git-external",
            help="Take git's external-diff arguments (PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE "
            "NEW-HEX NEW-MODE, as diff.<driver>.command and GIT_EXTERNAL_DIFF pass them; also "
            "recognised without this option by their count) and exit 0 on a difference.",
        ),
    ] = False,
) -> None:
    """Slots added/removed/moved/renamed, components added/removed, member values changed,
    type table changes. Exit 0 when the trees are equal (whatever their codecs), 1 when not."""
    given = [str(a), *([] if b is None else [str(b)]), *(git_args or [])]
    if git_external or len(given) in GIT_EXTERNAL_COUNTS:
        external_diff(given, lambda old, new: diff_trees(_loaded(old), _loaded(new)).lines())
        return
    if b is None or git_args:
        raise typer.BadParameter("give two archives A and B (or git's arguments, --git-external)")
    with progress(f"reading {a}", total=4 if json_out else 3) as bar:
        tree_a = _loaded(a)
        bar.stage(f"reading {b}")
        tree_b = _loaded(b)
        bar.stage("comparing the trees by element ID")
        bytes_a, bytes_b = tree_a.to_bson(), tree_b.to_bson()
        result, body, touched = compared(bytes_a, bytes_b)
        add_connections(result, tree_a, tree_b, touched)
        bar.advance()
        if json_out:
            bar.stage("checking the patch (applied to A it must give B)")
            # The summary keys, then ``patch``: what ``brson apply`` needs to turn A into B
            # byte for byte, from the same element changes the summary was rendered from
            # (new values and documents in the JSON form; docs/editing.md).
            data = {**result.to_dict(), "patch": finish_patch(bytes_a, bytes_b, body)}
    if json_out:
        print_json(data)
    else:
        for line in result.lines():
            stdout.print(line, markup=False)
    if not result.equal:
        raise typer.Exit(EXIT_FINDINGS)


def _loaded(path: Path) -> DataTree:
    """A tree whose type table is checked now, so an error names the file it is in (diff reads
    two; what it finds later could be in either)."""
    tree = api.load(path, max_size=State.max_size)
    try:
        tree.types  # noqa: B018 -- raises ModelError for a malformed table
    except BrsonError as exc:
        raise exc.in_file(str(path)) from None
    return tree
