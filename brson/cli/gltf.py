"""``brson export-gltf``: a Slot tree as glTF 2.0 (``.glb``, or ``.gltf`` + ``.bin``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brson.assets.store import AssetStore
from brson.cli.common import (
    AssetsOption,
    FileArg,
    JsonOption,
    Source,
    State,
    SubtreeOption,
    check_output,
    check_package_output,
    print_json,
    progress,
    say,
    stderr,
    writes_outputs,
)
from brson.cli.common import note as say_note
from brson.errors import BrsonError

app = typer.Typer()


@app.command("export-gltf")
@writes_outputs
def export_gltf_command(
    src: FileArg,
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            help="File to write: .glb, or .gltf (with a .bin beside); - for a .glb on stdout.",
        ),
    ],
    slot: SubtreeOption = None,
    assets: AssetsOption = None,
    omit_inactive: Annotated[
        bool,
        typer.Option(
            "--omit-inactive",
            help="Leave inactive slots out (default: keep them, hidden by KHR_node_visibility).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Export meshes, materials, textures, skins and blendshapes as glTF 2.0.

    Example: brson export-gltf avatar.resonitepackage -o avatar.glb --assets ~/resonite-cache
    """
    check_output(output, src, binary=True)
    try:  # numpy and Pillow come with the optional extra: brson[gltf]
        from brson.gltf.export import export_gltf
    except ImportError as exc:
        raise BrsonError(
            f"export-gltf needs the gltf extra (pip install 'brson[gltf]'): {exc}"
        ) from None
    source = Source(src)
    try:
        top = source.tree.select(slot) if slot is not None else source.tree.root
        store = AssetStore(source.package, assets or ())
        with progress("exporting slots") as bar:
            document, report = export_gltf(
                source.tree,
                top,
                assets=store,
                inactive="omit" if omit_inactive else "hide",
                on_slot=bar.advance,
                max_size=State.max_size,
            )
        written = document.save(output)
    except BrsonError as exc:
        raise exc.in_file(str(src)) from None
    if as_json:
        print_json({"files": [str(p) for p in written], **report.as_dict()})
        return
    for warning in report.warnings:
        stderr.print(f"brson: warning: {warning}", markup=False)
    say(
        f"{output}: {report.nodes} nodes ({report.hidden} hidden), {report.meshes} meshes "
        f"({report.vertices} vertices), {report.materials} materials, {report.textures} "
        f"textures, {report.skins} skins ({report.joints} joints), {report.morph_targets} "
        "morph targets"
    )


@app.command("import-gltf")
@writes_outputs
def import_gltf_command(
    src: Annotated[Path, typer.Argument(help="A .glb, or a .gltf with its buffers beside it.")],
    output: Annotated[
        Path,
        typer.Option("-o", "--output", help="The .resonitepackage to write; - for stdout."),
    ],
    name: Annotated[
        str | None, typer.Option("--name", help="Item name (default: the file's stem).")
    ] = None,
) -> None:
    """Turn a static glTF scene into a .resonitepackage: slots, MeshX meshes, PBS materials,
    textures (skins and morph targets are not imported).

    Example: brson import-gltf chair.glb -o chair.resonitepackage
    """
    check_package_output(output, src)
    try:
        from brson.gltf.importer import import_gltf
    except ImportError as exc:
        raise BrsonError(
            f"import-gltf needs the gltf extra (pip install 'brson[gltf]'): {exc}"
        ) from None
    from brson.fileio import read_bytes
    from brson.package import new_record, write_package

    title = name or src.stem
    try:
        data = read_bytes(src, max_size=State.max_size)
        tree, assets, report = import_gltf(data, title, base=src.parent, max_size=State.max_size)
        write_package(output, tree, new_record(title), assets)
    except BrsonError as exc:
        raise exc.in_file(str(src)) from None
    for note in report.notes:
        say_note(f"brson: note: {note}")
    say(
        f"{output}: {report.slots} slots, {report.meshes} meshes, {report.materials} "
        f"materials, {report.textures} textures"
    )
