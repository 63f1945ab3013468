"""Edit commands: ``set``, ``rename``, ``move``, ``delete``, ``vars``, ``set-var``,
``renumber``, ``import`` and ``apply``.  Each reads FILE and writes OUTPUT (never FILE itself)
or, with ``--in-place``, replaces FILE atomically; whatever it did not touch stays
byte-identical.  The Python API (:mod:`brson.model.edit`, :mod:`brson.ops.patch`) does more."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from brson import api
from brson.cli.common import (
    EXIT_FINDINGS,
    STDIO,
    CodecOption,
    FileArg,
    JsonOption,
    Source,
    State,
    check_output,
    output_codec,
    outputs,
    print_json,
    progress,
    read_input,
    save_package,
    say,
)
from brson.codecs import Codec
from brson.container import is_package_name
from brson.document import jsonform
from brson.model import DataTree, Slot, edit
from brson.model.numbering import renumber
from brson.ops import importing, variables
from brson.ops.patch import PatchError, apply_patch, read_patch
from brson.ops.selectors import component_on, field_at
from brson.ops.textvalues import parse_text

app = typer.Typer()

Output = Annotated[
    Path | None,
    typer.Option(
        "-o", "--output", help="Archive to write (never FILE; see --in-place); - for stdout."
    ),
]
InPlace = Annotated[
    bool,
    typer.Option(
        "--in-place",
        "-i",
        help="Replace FILE itself, atomically (a temporary file renamed over it: an "
        "interrupted run leaves the old FILE, never a partial one).",
    ),
]
SlotArg = Annotated[
    str, typer.Argument(metavar="SELECTOR", help="The slot: a name, a path or an ID.")
]


class ReferencePolicy(StrEnum):
    null = "null"
    report = "report"
    fail = "fail"


class ImportExternal(StrEnum):
    null = "null"
    fail = "fail"


# -- reading and writing ---------------------------------------------------------------------
def _save(
    tree: DataTree,
    source: Source,
    output: Path,
    codec: str | None,
    more: list[Source] | None = None,
) -> None:
    """Write the tree: an archive in OUTPUT's (or FILE's) codec and framing, or a package
    holding the assets the tree names (from FILE's package and any ``more`` packages);
    ``-`` is standard output."""
    with outputs():
        if is_package_name(output):
            packages = [p.package for p in [source, *(more or [])] if p.package is not None]
            save_package(tree, output, packages)
            return
        container = source.tree.container
        chosen = output_codec(
            codec, str(output), container.codec if container is not None else Codec.BROTLI
        )
        legacy = bool(container and container.legacy) and chosen is not Codec.BROTLI
        api.dump(tree, output, chosen, legacy=legacy)


def _destination(src: Path, output: Path | None, in_place: bool, *others: Path) -> Path:
    """Where an edit goes: ``-o OUTPUT`` (never an input), or FILE itself with ``--in-place``
    (written atomically by :func:`brson.fileio.write_atomic`, like every output)."""
    if in_place:
        if output is not None:
            raise typer.BadParameter("give -o OUTPUT or --in-place, not both")
        if str(src) == STDIO:
            raise typer.BadParameter("--in-place needs a FILE, not standard input")
        check_output(src, *others)
        return src
    if output is None:
        raise typer.BadParameter("give -o OUTPUT (or --in-place to replace FILE)")
    check_output(output, src, *others, binary=True)
    return output


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def _say(text: str) -> None:
    say(text)


# -- commands --------------------------------------------------------------------------------
@app.command("set")
def set_field(
    src: FileArg,
    target: Annotated[
        str,
        typer.Argument(
            metavar="TARGET",
            help="SLOT.FIELD (a slot member: Name, Active, Position…), SLOT:COMPONENT.FIELD or "
            "SLOT.COMPONENT.FIELD; FIELD[i] for a list element. SLOT is a name, path or ID.",
        ),
    ],
    value: Annotated[
        str,
        typer.Argument(
            metavar="VALUE",
            help="The new value, read as the field's current kind: true/false, 42, 1.5, "
            "'1,2,3', '#ff0000' or '1,0,0,1' for colours, an element ID, null; or the "
            "JSON form set prints ('[0, 1, 0]', '[1, 1, 1, 1, \"sRGB\"]').",
        ),
    ],
    output: Output = None,
    in_place: InPlace = False,
    type_hint: Annotated[
        str | None,
        typer.Option(
            "--type",
            help="Read VALUE as this type (bool, int, long, float, float3, colorX, "
            "string, Uri…) when the field's current value does not tell.",
        ),
    ] = None,
    codec: CodecOption = None,
) -> None:
    """Set one field's value."""
    output = _destination(src, output, in_place)
    source = Source(src)
    tree = source.tree
    member = field_at(tree, target)
    old = member.value
    parsed = parse_text(value, member.get("Data"), type_hint, tree=tree, where=target)
    edit.set_value(member, parsed)
    _save(tree, source, output, codec)
    _say(f"{target}: {_show(old)} -> {_show(member.value)}")


@app.command("rename")
def rename_slot(
    src: FileArg,
    selector: SlotArg,
    name: Annotated[str, typer.Argument(metavar="NEWNAME", help="Its new name.")],
    output: Output = None,
    in_place: InPlace = False,
    codec: CodecOption = None,
) -> None:
    """Rename a slot."""
    output = _destination(src, output, in_place)
    source = Source(src)
    slot = source.tree.select(selector)
    before = slot.path
    edit.rename(slot, name)
    _save(source.tree, source, output, codec)
    _say(f"renamed {before!r} -> {slot.path!r}")


@app.command("move")
def move_slot(
    src: FileArg,
    selector: Annotated[
        str, typer.Argument(metavar="SELECTOR", help="The slot to move: a name, path or ID.")
    ],
    output: Output = None,
    in_place: InPlace = False,
    to: Annotated[
        str | None,
        typer.Option("--to", help="The new parent slot (default: where it is, to reorder)."),
    ] = None,
    index: Annotated[
        int | None,
        typer.Option(
            help="Its position among the parent's children (0 first, -1 last; default last)."
        ),
    ] = None,
    codec: CodecOption = None,
) -> None:
    """Re-parent a slot or reorder it among its siblings; its subtree keeps its bytes."""
    if to is None and index is None:
        raise typer.BadParameter("give --to PARENT, --index N or both")
    output = _destination(src, output, in_place)
    source = Source(src)
    slot = source.tree.select(selector)
    parent = source.tree.select(to) if to is not None else None
    edit.move(slot, parent, index)
    _save(source.tree, source, output, codec)
    _say(f"moved to {slot.path!r}")


@app.command("delete")
def delete_element(
    src: FileArg,
    selector: SlotArg,
    output: Output = None,
    in_place: InPlace = False,
    component: Annotated[
        str | None,
        typer.Option(
            "--component",
            "-c",
            help="Remove this component of the slot instead (type name, Type[n] for the n-th).",
        ),
    ] = None,
    references: Annotated[
        ReferencePolicy,
        typer.Option(
            help="Values elsewhere naming what is removed: null them (as the engine does), "
            "report them and keep them, or fail."
        ),
    ] = ReferencePolicy.null,
    prune_types: Annotated[
        bool,
        typer.Option(
            "--prune-types",
            help="Also drop the Types entries only the removed components used (re-writes "
            "the components whose type index moves; default keeps the table, so untouched "
            "components stay byte-identical).",
        ),
    ] = False,
    codec: CodecOption = None,
    json_out: JsonOption = False,
) -> None:
    """Delete a slot with its subtree, or one component; report the references it leaves."""
    output = _destination(src, output, in_place)
    source = Source(src)
    tree = source.tree
    slot = tree.select(selector)
    with progress("deleting"):
        if component is not None:
            victim = component_on(slot, component)
            kinds = [victim.type_index]
            removal = edit.remove_component(victim, references.value)
        else:
            kinds = [c.type_index for s in slot.walk() for c in s.components]
            removal = edit.delete(slot, references.value)
    pruned = tree.drop_unused_types({k for k in kinds if isinstance(k, int)}) if prune_types else []
    _save(tree, source, output, codec)
    if json_out:
        print_json({"output": str(output), **removal.to_dict(), "types_pruned": pruned})
        return
    _say(f"deleted {removal.path!r} ({removal.ids} IDs) -> {output}")
    if pruned:
        _say(f"  {len(pruned)} type(s) no longer used dropped from Types")
    if removal.references:
        action = removal.references[0].action
        _say(f"  {len(removal.references)} reference(s) to it {action}:")
        for ref in removal.references:
            _say(f"    {ref.where} -> {ref.target_path}")


@app.command("vars")
def list_vars(
    src: FileArg,
    json_out: JsonOption = False,
) -> None:
    """List dynamic variables: name, type, value, slot."""
    tree = Source(src).tree
    found = variables.variables(tree)
    if json_out:
        print_json([v.to_dict() for v in found])
        return
    if not found:
        _say("no dynamic variables")
        return
    rows = []
    for var in found:
        kind = var.type or var.kind
        if var.kind not in ("value", "type"):
            kind += f" ({var.kind})"
        rows.append((var.name, kind, _show(var.value), var.slot))
    widths = [max(len(row[n]) for row in rows) for n in range(2)]
    for name, kind, value, slot in rows:
        _say(f"{name:<{widths[0]}}  {kind:<{widths[1]}}  {value}  @ {slot}")


@app.command("set-var")
def set_var(
    src: FileArg,
    assignments: Annotated[
        list[str],
        typer.Argument(
            metavar="NAME=VALUE",
            help="NAME=VALUE pairs; VALUE is read as the variable's type (true, 42, 1.5, "
            "'1,2,3', '#ff0000', an element ID, null).",
        ),
    ],
    output: Output = None,
    in_place: InPlace = False,
    slot: Annotated[
        str | None,
        typer.Option("--slot", "-s", help="Only variables on slots this selector matches."),
    ] = None,
    every: Annotated[
        bool,
        typer.Option(
            "--all", help="Set every variable of that name (default: a name must be unique)."
        ),
    ] = False,
    codec: CodecOption = None,
) -> None:
    """Set dynamic variables (templates' parameters)."""
    output = _destination(src, output, in_place)
    source = Source(src)
    changes = []
    for assignment in assignments:
        name, sep, text = assignment.partition("=")
        if not sep or not name:
            raise typer.BadParameter(f"{assignment!r} is not NAME=VALUE")
        old = [v.value for v in variables.find(source.tree, name, slot)]
        done = variables.set_text(source.tree, name, text, slot=slot, every=every)
        changes += [(v, before) for v, before in zip(done, old, strict=False)]
    _save(source.tree, source, output, codec)
    for var, before in changes:
        _say(f"{var.name}: {_show(before)} -> {_show(var.value)}  ({var.slot})")


@app.command("renumber")
def renumber_ids(
    src: FileArg,
    output: Output = None,
    in_place: InPlace = False,
    codec: CodecOption = None,
) -> None:
    """Rewrite every ID in Resonite's sequential style, in document order: the same input
    always gives the same bytes; references follow."""
    output = _destination(src, output, in_place)
    source = Source(src)
    result = renumber(source.tree)
    _save(result, source, output, codec)
    _say(f"renumbered {len(result.ids)} IDs -> {output}")


@app.command("import")
def import_subtree(
    src: FileArg,
    other: Annotated[
        Path, typer.Argument(metavar="OTHER", help="Archive or package to import from.")
    ],
    slot: Annotated[
        str,
        typer.Option("--slot", "-s", help="The slot of OTHER to import: a name, a path or an ID."),
    ],
    output: Output = None,
    in_place: InPlace = False,
    parent: Annotated[
        str | None,
        typer.Option("--parent", "-p", help="Where in FILE it goes (default: the root)."),
    ] = None,
    index: Annotated[
        int | None, typer.Option(help="Its position among the parent's children (default last).")
    ] = None,
    external: Annotated[
        ImportExternal,
        typer.Option(help="References that leave the imported subtree: null them or fail."),
    ] = ImportExternal.null,
    codec: CodecOption = None,
    json_out: JsonOption = False,
) -> None:
    """Copy a subtree of OTHER into FILE: fresh IDs, types merged, assets along."""
    output = _destination(src, output, in_place, other)
    source = Source(src)
    donor = Source(other)
    target_parent: Slot | None = source.tree.select(parent) if parent is not None else None
    with progress("importing"):
        result = importing.import_slot(
            source.tree, donor.tree, slot, target_parent, index=index, external=external.value
        )
    _save(source.tree, source, output, codec, [donor])
    report = result.report
    if json_out:
        print_json({"output": str(output), **report.to_dict()})
        return
    _say(
        f"imported {report.source!r} -> {report.target!r} ({report.slots} slots, "
        f"{report.components} components, {report.ids} new IDs) -> {output}"
    )
    if report.types_added:
        _say(f"  {len(report.types_added)} type(s) added")
    if report.assets:
        _say(f"  {report.assets} asset(s) taken along")
    for ref in report.external:
        _say(f"  nulled: {ref.where} -> {ref.target_path or ref.target}")
    if report.feature_flags_missing:
        _say(
            "  warning: the source lacks feature flags this file has: "
            + ", ".join(report.feature_flags_missing)
        )


__all__ = ["app"]


@app.command("apply")
def apply_patch_file(
    src: FileArg,
    patch_file: Annotated[
        Path,
        typer.Argument(
            metavar="PATCH",
            help="The output of 'brson diff A B --json' (- for standard input).",
        ),
    ],
    output: Output = None,
    in_place: InPlace = False,
    assets_from: Annotated[
        list[Path] | None,
        typer.Option(
            "--assets-from",
            metavar="PKG",
            help="A package to take assets from when the result names assets FILE's package "
            "lacks (B itself, say: the patch carries the tree, not asset files); repeatable.",
        ),
    ] = None,
    codec: CodecOption = None,
    json_out: JsonOption = False,
) -> None:
    """Apply the changes from A to B (a 'brson diff A B --json' output) to FILE.

    Applied to A itself, the result is B byte for byte.  On another file each change applies
    where FILE still holds A's value (or already B's); anything else is a conflict, reported by
    element ID and path, exit 1, and nothing is written."""
    output = _destination(src, output, in_place, patch_file, *(assets_from or []))
    source = Source(src)
    donors = [Source(path) for path in assets_from or []]
    State.input = str(src)  # errors naming no file are FILE's, not the last donor's
    try:
        patch = read_patch(jsonform.parse_json(read_input(patch_file)))
    except ValueError as exc:
        raise PatchError(f"invalid JSON ({exc})", file=str(patch_file)) from None
    except PatchError as exc:
        raise exc.in_file(str(patch_file)) from None
    try:
        with progress("applying"):
            result = apply_patch(source.tree, patch)
    except PatchError as exc:  # a malformed part met while applying
        raise exc.in_file(str(patch_file)) from None
    if result.bson is None:
        if json_out:
            print_json(
                {
                    "output": None,
                    "applied": result.applied,
                    "conflicts": [c.to_dict() for c in result.conflicts],
                }
            )
        else:
            _say(f"{len(result.conflicts)} conflict(s) applying {patch_file} to {src}:")
            for conflict in result.conflicts:
                _say(f"  {conflict}")
            _say("nothing written")
        raise typer.Exit(EXIT_FINDINGS)
    tree = DataTree(result.bson, source.tree.container, str(src))
    _save(tree, source, output, codec, donors)
    if json_out:
        print_json(
            {
                "output": str(output),
                "applied": result.applied,
                "conflicts": [],
                "identical_to_b": result.matches_result,
            }
        )
        return
    same = " (byte-identical to the diff's B)" if result.matches_result else ""
    _say(f"applied {result.applied} change(s) -> {output}{same}")
