"""``brson extract``: one slot's subtree as a new archive or ``.resonitepackage``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from brson import api
from brson.cli.common import (
    Source,
    check_output,
    output_codec,
    print_json,
    progress,
    stderr,
    stdout,
)
from brson.codecs import Codec
from brson.container import is_package_name
from brson.errors import PackageError
from brson.model.tree import DataTree
from brson.ops.extract import PHASES, ExtractReport, extract
from brson.package import SUFFIX, new_record, packdb_names, write_package

app = typer.Typer()


class ExternalPolicy(StrEnum):
    keep = "keep"
    null = "null"
    fail = "fail"


@app.command("extract")
def extract_subtree(
    src: Annotated[Path, typer.Argument(help="Archive or .resonitepackage to read.")],
    slot: Annotated[
        str, typer.Option("--slot", "-s", help="Slot to extract: a name, an ID or a path.")
    ],
    output: Annotated[Path, typer.Option("-o", "--output", help="Archive to write.")],
    codec: Annotated[
        str | None,
        typer.Option(help="brotli, lzma, lz4 or none (default: from OUTPUT, else the source's)."),
    ] = None,
    external: Annotated[
        ExternalPolicy,
        typer.Option(
            help="References to what cannot come along (slots outside, world, "
            "users): keep them, null them, or fail."
        ),
    ] = ExternalPolicy.keep,
    package: Annotated[
        bool,
        typer.Option(
            "--package",
            help="Write a .resonitepackage with the assets the subtree "
            "names (implied by a .resonitepackage OUTPUT).",
        ),
    ] = False,
    dependencies: Annotated[
        bool,
        typer.Option(
            "--dependencies/--no-dependencies",
            help="Copy referenced components from outside the subtree.",
        ),
    ] = True,
    legacy: Annotated[
        bool | None,
        typer.Option(
            "--legacy/--frdt", help="Headerless NeosVR framing or FrDT (default: as the source)."
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Write SLOT's subtree as a new archive: only the types it uses, the components it
    references copied along, every reference that leaves it reported."""
    check_output(output, src)
    as_package = is_package_name(output)
    if package and not as_package:
        # Resonite and brson tell a package by its extension: a zip named .brson would be
        # unreadable to both (brson reads the name as a codec).
        raise typer.BadParameter(
            f"--package writes a zip: name the output *{SUFFIX}", param_hint="'-o'"
        )
    source = Source(src)
    source_package, tree = source.package, source.tree
    for warning in tree.container.warnings if tree.container else ():
        stderr.print(f"brson: warning: {src}: {warning}", markup=False)
    with progress("extracting", total=len(PHASES)) as bar:
        result = extract(tree, slot, external.value, dependencies, progress=lambda _: bar.advance())
    name = result.tree.root.name
    name = name if isinstance(name, str) else slot
    assets: list[str] = []
    if as_package:
        if source_package is not None:
            out = source_package.for_tree(result.tree, name=name)
            out.save(output)
            assets = list(out.assets)
        else:
            wanted = packdb_names(result.tree.to_bson())
            if wanted:
                raise PackageError(
                    f"the subtree names package assets ({', '.join(wanted)}) but {src} is not "
                    "a package to take them from",
                    file=str(src),
                )
            write_package(output, result.tree, new_record(name))
    else:
        chosen = output_codec(codec, str(output), _source_codec(tree))
        if legacy is None:
            legacy = bool(tree.container and tree.container.legacy) and chosen is not Codec.BROTLI
        api.dump(result.tree, output, chosen, legacy=legacy)
    _print_report(result.report, str(output), assets, json_out)


def _source_codec(tree: DataTree) -> Codec:
    return tree.container.codec if tree.container is not None else Codec.BROTLI


def _print_report(report: ExtractReport, output: str, assets: list[str], json_out: bool) -> None:
    if json_out:
        data: dict[str, Any] = {"output": output, **report.to_dict(), "package_assets": assets}
        print_json(data)
        return
    out = stdout
    out.print(f"extracted {report.slot!r} -> {output}", markup=False)
    dropped = f" ({len(report.types_dropped)} dropped)" if report.types_dropped else ""
    out.print(
        f"  {report.slots} slots, {report.components} components, {report.types} types{dropped}",
        markup=False,
    )
    if report.copied:
        out.print(f"  {len(report.copied)} referenced component(s) copied along:", markup=False)
        for copied in report.copied:
            out.print(f"    {copied.source} -> {copied.target}", markup=False)
    if report.external:
        action = report.external[0].action
        out.print(
            f"  {len(report.external)} reference(s) leave the subtree ({action}):", markup=False
        )
        for ref in report.external:
            target = ref.target_path or f"{ref.target} (not in the file)"
            out.print(f"    {ref.where} -> {target}", markup=False)
    if assets:
        out.print(f"  {len(assets)} package asset(s): {', '.join(assets)}", markup=False)
