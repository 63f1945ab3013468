"""``brson assets``: what a ``.resonitepackage`` carries, and exporting it."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Annotated, Any

import typer

from brson.cli.common import (
    JsonOption,
    State,
    check_folder_output,
    human_size,
    outputs,
    print_json,
    stderr,
    stdout,
    track,
)
from brson.errors import PackageError
from brson.fileio import write_atomic
from brson.package import check_entry_name, load_package, packdb_references, sniff_kind

app = typer.Typer()


@app.command()
def assets(
    src: Annotated[Path, typer.Argument(help="A .resonitepackage.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Export every asset into this folder.")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """List a package's assets (hash, size, kind, which components use them); export them."""
    check_folder_output(output, src)
    if src.is_file() and not zipfile.is_zipfile(src):
        raise PackageError(
            "not a .resonitepackage: assets lists the files a package (a zip) carries; a "
            "bare archive names its assets by URL only (see brson refs)",
            file=str(src),
        )
    package = load_package(src, max_size=State.max_size)
    for warning in package.warnings:
        stderr.print(f"brson: warning: {src}: {warning}", markup=False)
    used_by = packdb_references(package.tree)
    main_bytes = package.main_bytes
    rows: list[dict[str, Any]] = []
    names = [package.main, *package.assets]
    blobs: dict[str, bytes] = {}
    for name in track(names, "reading assets", total=len(names)):
        if name == package.main:
            continue
        blobs[name] = package.assets[name]
    for name in names:
        meta = package.metadata.get(name)
        if name == package.main:
            size = len(main_bytes)
            kind, ext = "data tree (main)", ".brson"
        else:
            size = len(blobs[name])
            kind, ext = sniff_kind(blobs[name])
            if meta is not None:
                kind = meta.kind
        rows.append(
            {
                "hash": name,
                "bytes": size,
                "kind": kind,
                "file": name + ext,
                "used_by": used_by.get(name, []),
            }
        )
    if output is not None:
        with outputs():  # every asset, or none
            _export({package.main: main_bytes, **blobs}, rows, output)
    if json_out:
        print_json(
            {
                "file": str(src),
                "record": package.record.get("name"),
                "assets": rows,
                "warnings": package.warnings,
            }
        )
        return
    stdout.print(f"{src}: {len(rows)} asset(s)", markup=False)
    for row in rows:
        stdout.print(
            f"  {row['hash']}  {human_size(row['bytes']):>10}  {row['kind']}", markup=False
        )
        for where in row["used_by"]:
            stdout.print(f"      used by {where}", markup=False)
    if output is not None:
        stdout.print(f"exported to {output}", markup=False)


def _export(blobs: dict[str, bytes], rows: list[dict[str, Any]], folder: Path) -> None:
    """Write each asset as ``folder/<hash><ext>``; a name that would land elsewhere is refused."""
    folder.mkdir(parents=True, exist_ok=True)
    root = os.path.realpath(folder)
    for row in rows:
        name = row["file"]
        check_entry_name(name)
        target = os.path.realpath(os.path.join(root, name))
        if os.path.dirname(target) != root:
            raise PackageError(f"asset name {name!r} would be written outside {folder}")
        write_atomic(target, blobs[row["hash"]])
