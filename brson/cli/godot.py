"""``brson export-godot``: a Slot tree as a Godot scene (TSCN) and/or one binary Variant."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brson import api
from brson.cli.common import State, progress, stderr, stdout
from brson.errors import BrsonError
from brson.fileio import write_atomic
from brson.godot import export
from brson.godot.tscn import FORMAT
from brson.ops.extract import select

app = typer.Typer()


@app.command("export-godot")
def export_godot(
    src: Annotated[Path, typer.Argument(help="Archive or .resonitepackage to read.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Scene to write (.tscn).")
    ] = None,
    godot: Annotated[
        int, typer.Option("--godot", help="Engine version: 3 (TSCN format=2) or 4 (format=3).")
    ] = 4,
    slot: Annotated[
        str | None,
        typer.Option("--slot", "-s", help="Export only this slot's subtree: a name, ID or path."),
    ] = None,
    variant: Annotated[
        Path | None,
        typer.Option(
            "--variant",
            help="Also write the tree as one binary Variant (bytes2var / bytes_to_var reads it).",
        ),
    ] = None,
) -> None:
    """Bring a Slot tree to Godot: nodes with transforms, primitive meshes, metadata."""
    if godot not in FORMAT:
        raise typer.BadParameter(
            f"{godot} is not a supported version (use 3 or 4)", param_hint="--godot"
        )
    if output is None and variant is None:
        raise typer.BadParameter("nothing to write: give -o OUT.tscn and/or --variant OUT.bin")
    tree = api.load(src, max_size=State.max_size)
    try:
        top = select(tree, slot) if slot is not None else tree.root
        if output is not None:
            with progress("exporting slots") as bar:
                scene = export.export_scene(tree, godot, top, on_slot=bar.advance)
            write_atomic(output, scene.tscn().encode("utf-8"))
            for note in scene.notes:
                stderr.print(f"brson: note: {note}", markup=False)
            stdout.print(
                f"{output}: {len(scene.nodes)} nodes ({scene.meshes} with a mesh, "
                f"{scene.materials} materials), Godot {godot} (format={FORMAT[godot]})",
                markup=False,
            )
        if variant is not None:
            data = export.export_variant(tree, godot, top)
            write_atomic(variant, data)
            stdout.print(f"{variant}: {len(data)} bytes, Godot {godot} Variant", markup=False)
    except BrsonError as exc:
        raise exc.in_file(str(src)) from None
