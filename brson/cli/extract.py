"""``brson extract``: one slot's subtree as a new archive or ``.resonitepackage``."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from brson import api
from brson.cli.common import (
    ArchiveOutput,
    CodecOption,
    FileArg,
    JsonOption,
    LegacyOption,
    Source,
    check_output,
    output_codec,
    print_json,
    progress,
    say,
    stderr,
    writes_outputs,
)
from brson.codecs import Codec
from brson.container import PACKAGE_SUFFIX, is_package_name
from brson.errors import PackageError
from brson.model.tree import DataTree
from brson.ops.extract import PHASES, ExtractReport, extract

if TYPE_CHECKING:  # the package reader and writer are imported where a package is read or written
    from brson.package import Package

app = typer.Typer()


class ExternalPolicy(StrEnum):
    keep = "keep"
    null = "null"
    fail = "fail"


@app.command("extract")
@writes_outputs
def extract_subtree(
    src: FileArg,
    slot: Annotated[
        str, typer.Option("--slot", "-s", help="Slot to extract: a name, an ID or a path.")
    ],
    output: ArchiveOutput,
    codec: CodecOption = None,
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
    legacy: LegacyOption = None,
    json_out: JsonOption = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="The full report: every component copied along, every reference that leaves.",
        ),
    ] = False,
) -> None:
    """Write SLOT's subtree as a new archive: only the types it uses, the components it
    references copied along, every reference that leaves it reported (a summary; the full
    report with -v or --json)."""
    check_output(output, src, binary=True)
    as_package = is_package_name(output)
    if package and not as_package:
        # Resonite and brson tell a package by its extension: a zip named .brson would be
        # unreadable to both (brson reads the name as a codec).
        raise typer.BadParameter(
            f"--package writes a zip: name the output *{PACKAGE_SUFFIX}", param_hint="'-o'"
        )
    source = Source(src)
    source_package, tree = source.package, source.tree
    tree.drop_stored_payload()  # the source is read, never written back
    for warning in tree.container.warnings if tree.container else ():
        stderr.print(f"brson: warning: {src}: {warning}", markup=False)
    with progress("extracting", total=len(PHASES)) as bar:
        result = extract(tree, slot, external.value, dependencies, progress=lambda _: bar.advance())
    name = result.tree.root.name
    name = name if isinstance(name, str) else slot
    assets: list[str] = []
    left: list[str] = []
    if as_package:
        from brson.package import new_record, packdb_names, write_package

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
        left = _assets_left_behind(result.tree, source_package)
    # Assets: the package's the subtree names, and NeosVR root Assets (asset providers).
    asset_count = len(assets) + len(result.tree.assets)
    _print_report(result.report, str(output), assets, json_out, verbose, asset_count, left)


def _assets_left_behind(subtree: DataTree, source: Package | None) -> list[str]:
    """The source package's assets the subtree names: a bare archive cannot hold them, so the
    result names files that are not there (Resonite shows a missing texture, a silent mesh)."""
    if source is None:
        return []
    from brson.package import packdb_names

    return [name for name in packdb_names(subtree.to_bson()) if name in source.assets]


def _source_codec(tree: DataTree) -> Codec:
    return tree.container.codec if tree.container is not None else Codec.BROTLI


def _print_report(
    report: ExtractReport,
    output: str,
    assets: list[str],
    json_out: bool,
    verbose: bool = False,
    asset_count: int = 0,
    left: list[str] | None = None,
) -> None:
    """A few lines by default (a 5-slot subtree of a big world used to print thousands: one per
    reference leaving it); the lists with ``-v``, everything with ``--json``.  ``left``: the
    source package's assets the subtree names that a bare archive could not take along."""
    warning = report.closure_warning
    if warning:
        stderr.print(f"brson: warning: {warning} (--no-dependencies leaves them out)", markup=False)
    if left:
        shown = ", ".join(left[:3]) + (f", … {len(left) - 3} more" if len(left) > 3 else "")
        stderr.print(
            f"brson: warning: {len(left)} package asset(s) the subtree names are left behind "
            f"({shown}): {output} is a bare archive; write a package to keep them "
            f"(--package, with an output named *{PACKAGE_SUFFIX})",
            markup=False,
        )
    if json_out:
        data: dict[str, Any] = {"output": output, **report.to_dict(), "package_assets": assets}
        data["package_assets_left_behind"] = left or []
        print_json(data)
        return
    say(f"extracted {report.slot!r} -> {output}")
    dropped = f" ({len(report.types_dropped)} dropped)" if report.types_dropped else ""
    say(
        f"  {report.slots} slots, {report.components} components, {report.types} types"
        f"{dropped}, {asset_count} assets"
    )
    say(
        f"  closure: {len(report.copied)} referenced component(s) copied along to the "
        f"{report.subtree_slots}-slot, {report.subtree_components}-component subtree"
    )
    if report.external:
        kinds = report.external_by_kind()
        action = report.external[0].action
        parts = ", ".join(
            f"{kinds[kind]} to {_KIND_LABEL.get(kind, kind)}" for kind in sorted(kinds)
        )
        say(f"  {len(report.external)} reference(s) leave the subtree ({action}): {parts}")
    else:
        say("  no reference leaves the subtree")
    if assets and not verbose:  # the names a package now holds: short, and asked for often
        more = f", … {len(assets) - 3} more" if len(assets) > 3 else ""
        say(f"  {len(assets)} package asset(s): {', '.join(assets[:3])}{more}")
    if not verbose:
        if report.copied or report.external:
            say("  (-v lists them, --json gives the full report)")
        return
    if report.copied:
        say(f"  {len(report.copied)} referenced component(s) copied along:")
        for copied in report.copied:
            say(f"    {copied.source} -> {copied.target}")
    if report.external:
        say(f"  {len(report.external)} reference(s) leave the subtree:")
        for ref in report.external:
            target = ref.target_path or f"{ref.target} (not in the file)"
            say(f"    {ref.where} -> {target}")
    if assets:
        say(f"  {len(assets)} package asset(s): {', '.join(assets)}")


#: How the summary names each kind of external reference target.
_KIND_LABEL = {
    "slot": "slots outside",
    "component": "components left outside",
    "missing": "IDs not in the file (world, users)",
}
