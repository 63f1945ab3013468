"""``brson merge``: a three-way merge by element ID, and git's merge driver.

``brson merge BASE OURS THEIRS -o OUT`` writes the merge; ``brson merge --git %O %A %B %P`` is
git's merge-driver form: the result replaces %A (atomically), exit 0 when clean, 1 on a
conflict with %A left as it was.  Conflicts are listed one a line and nothing is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brson import api
from brson.cli.common import (
    EXIT_FINDINGS,
    STDIO,
    State,
    check_output,
    output_codec,
    outputs,
    progress,
    say,
    write_output,
)
from brson.codecs import Codec
from brson.container import is_package_name
from brson.errors import BrsonError
from brson.fileio import read_bytes, write_atomic
from brson.model.tree import DataTree
from brson.ops.applier import Conflict
from brson.ops.merge import merge_assets, merge_documents
from brson.package import Package, dumps_package, loads_package

app = typer.Typer()

#: A zip's first bytes: a package, whatever the file is called (git's %A has no extension).
_ZIP = b"PK\x03\x04"


class _Input:
    """One side of the merge: its tree, and the package around it when it is one."""

    def __init__(self, path: Path, name: Path) -> None:
        self.path = path
        data = read_bytes(path, State.max_size)
        self.data = data
        self.package: Package | None = None
        try:
            if is_package_name(name) or data.startswith(_ZIP):
                self.package = loads_package(data, name=str(path), max_size=State.max_size)
                self.tree: DataTree = self.package.tree
            else:
                # The name the user knows picks a headerless file's codec (git's temporary
                # files have none).
                self.tree = api.loads(data, name=str(name), max_size=State.max_size)
            self.bson = self.tree.to_bson()
        except BrsonError as exc:
            exc.file = str(path)  # the file read, not the name that picked its codec
            raise


@app.command()
def merge(
    base: Annotated[Path, typer.Argument(metavar="BASE", help="The common ancestor.")],
    ours: Annotated[Path, typer.Argument(metavar="OURS", help="Our version.")],
    theirs: Annotated[Path, typer.Argument(metavar="THEIRS", help="Their version.")],
    pathname: Annotated[
        Path | None,
        typer.Argument(
            metavar="[PATH]",
            help="With --git: the file's path in the repository (git's %P), for messages and "
            "to tell its format.",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Where the merge goes (never an input); - for stdout."),
    ] = None,
    git: Annotated[
        bool,
        typer.Option(
            "--git",
            help="git's merge-driver form (%O %A %B %P): the result replaces OURS (%A).",
        ),
    ] = False,
) -> None:
    """Merge THEIRS' changes since BASE into OURS, element by element (IDs).

    Edits to different elements, or to different members of one, combine; the same change on
    both sides is taken once.  The same member changed both ways, an element removed on one
    side and edited on the other, one side referring to an element the other removed, or the
    same new ID added twice differently are conflicts: listed one a line, nothing written,
    exit 1.  Packages merge their main tree and the union of their assets."""
    if git:
        if output is not None:
            raise typer.BadParameter("--git writes into OURS (%A); -o is not used with it")
        target = ours
    else:
        if pathname is not None:
            raise typer.BadParameter("PATH is git's %P, given with --git only")
        if output is None:
            raise typer.BadParameter("give -o OUTPUT (or --git to write into OURS)")
        check_output(output, base, ours, theirs, binary=True)
        target = output
    name = pathname if pathname is not None else ours
    shown = str(name)
    with progress(f"reading {base}", total=4) as bar:
        sides = []
        for path in (base, ours, theirs):
            bar.stage(f"reading {path}")
            sides.append(_Input(path, name if git else path))
        base_in, ours_in, theirs_in = sides
        bar.stage("merging by element ID")
        result = merge_documents(base_in.bson, ours_in.bson, theirs_in.bson)
        conflicts = list(result.conflicts)
        assets = None
        if ours_in.package is not None and theirs_in.package is not None:
            assets, more = merge_assets(ours_in.package.assets, theirs_in.package.assets)
            conflicts += more
    if conflicts or result.bson is None:
        _report(conflicts, shown)
        raise typer.Exit(EXIT_FINDINGS)
    if git and result.bson == ours_in.bson and _same_assets(ours_in, assets):
        say(f"merged {shown}: theirs added nothing to ours")
        return
    with outputs():
        _write(result.bson, ours_in, theirs_in, assets, target, git)
    say(f"merged {shown} -> {target}")


def _same_assets(side: _Input, assets: dict[str, bytes] | None) -> bool:
    return assets is None or (side.package is not None and set(side.package.assets) == set(assets))


def _report(conflicts: list[Conflict], shown: str) -> None:
    say(f"{len(conflicts)} conflict(s) merging {shown}; nothing written:")
    for conflict in conflicts:
        say(f"CONFLICT {conflict}")


def _write(
    bson: bytes,
    ours: _Input,
    theirs: _Input,
    assets: dict[str, bytes] | None,
    target: Path,
    git: bool,
) -> None:
    """In OURS' framing: its package record and entries, or its codec and header form (an
    output's extension may pick another codec, as ``convert``'s does).  A merge that is OURS
    is OURS' own bytes."""
    container = ours.tree.container
    own = container.codec if container is not None else Codec.BROTLI
    chosen = own if git else output_codec(None, str(target), own)
    unchanged = bson == ours.bson and chosen is own
    if ours.package is not None:
        package = ours.package
        held = assets if assets is not None else dict(package.assets.items())
        if unchanged and set(held) == set(package.assets):
            data = ours.data
        else:
            metadata = dict(theirs.package.metadata) if theirs.package is not None else {}
            metadata.update(package.metadata)
            tree = DataTree(bson, container, str(target))
            data = dumps_package(tree, package.record, held, metadata=metadata, extra=package.extra)
    elif unchanged:
        data = ours.data
    else:
        legacy = bool(container and container.legacy) and chosen is not Codec.BROTLI
        data = api.dumps(DataTree(bson, container, str(target)), chosen, legacy=legacy)
    if str(target) == STDIO:
        write_output(target, data)
    else:
        write_atomic(target, data)
