"""``brson show``: a file as stable, line-oriented text, for reading and for git's ``textconv``
(``brson git install`` sets it up; docs in the README, "Keeping Resonite content in git")."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from typing import Annotated, Any

import typer

from brson.cli.common import FileArg, Source, State
from brson.errors import BrsonError
from brson.model import DataTree
from brson.ops.textform import escaped, hashed_if_long, tree_lines, value_text
from brson.package import Package, sha256_hex

app = typer.Typer()

#: Record keys left out: the main tree's hash (it changes with every edit, and the tree is
#: shown) and the asset manifest (the asset lines show each asset's size and hash).
_RECORD_SHOWN_ELSEWHERE = frozenset({"assetUri", "assetManifest"})
#: Lines per write: a few large writes, not one per line.
_BATCH = 4096


@app.command()
def show(
    file: FileArg,
    textconv: Annotated[
        bool,
        typer.Option(
            "--textconv",
            help="As git's textconv: a file brson cannot read is shown as one line saying why "
            "(exit 0), so git log -p goes on past it (git stops at a failing textconv).",
        ),
    ] = False,
) -> None:
    """The file as text, one line per slot, component and field: the same bytes always give the
    same text (no IDs, timestamps or file names; references shown as the path of what they
    name), so `git diff`, `git log -p` and `git blame` can read archives (textconv). A package
    shows its record, its main tree, and each asset's size and sha256."""
    try:
        source = Source(file)
        write_lines(show_lines(source.tree, source.package))
    except BrsonError as exc:
        if not textconv:
            raise
        # The reason without the file name: git hands over a temporary copy whose name
        # changes on every run, and the text must stay the same for the same bytes.
        exc.file = None
        State.input = None
        write_lines([f"brson show: {exc}"])


def show_lines(tree: DataTree, package: Package | None = None) -> Iterator[str]:
    """Every section of ``brson show``, in order."""
    if package is not None:
        yield from _record_lines(package.record)
    yield from tree_lines(tree)
    if package is not None:
        yield from _asset_lines(package)


def _record_lines(record: dict[str, Any]) -> Iterator[str]:
    for key in sorted(record):
        if key not in _RECORD_SHOWN_ELSEWHERE:
            yield f"record.{escaped(key)} = {value_text(record[key])}"


def _asset_lines(package: Package) -> Iterator[str]:
    """Each asset (sorted by name): size and sha256 of its bytes, read and checked now, and
    its metadata with sorted keys (JSON objects have no meaningful order)."""
    for name in sorted(package.assets):
        data = package.assets[name]
        yield f"package-asset {escaped(name)} {len(data)} bytes sha256 {sha256_hex(data)}"
        meta = package.metadata.get(name)
        if meta is not None:
            parsed = meta.data
            text = (
                hashed_if_long(json.dumps(parsed, ensure_ascii=False, sort_keys=True))
                if parsed is not None
                else f"<{len(meta.raw)} bytes that are not JSON, sha256 {sha256_hex(meta.raw)}>"
            )
            yield f"  metadata.{escaped(meta.kind)} = {text}"


def write_lines(lines: Iterable[str]) -> None:
    """Streamed to stdout as UTF-8 whatever the locale (git reads textconv output as bytes)."""
    out = sys.stdout.buffer
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= _BATCH:
            out.write(("\n".join(batch) + "\n").encode("utf-8", "backslashreplace"))
            batch.clear()
    if batch:
        out.write(("\n".join(batch) + "\n").encode("utf-8", "backslashreplace"))
    out.flush()
