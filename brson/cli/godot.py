"""``brson export-godot``: a Slot tree as a Godot scene (TSCN) and/or one binary Variant."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brson.assets.store import AssetStore
from brson.cli.common import (
    STDIO,
    AssetsOption,
    FileArg,
    Source,
    State,
    SubtreeOption,
    check_output,
    progress,
    say,
    stderr,
    writes_outputs,
)
from brson.cli.common import note as say_note
from brson.collector import paused_gc
from brson.errors import BrsonError
from brson.fileio import same_file, write_atomic
from brson.godot import export
from brson.godot.stream import stream_scene
from brson.godot.tscn import FORMAT
from brson.model.slot import Slot

app = typer.Typer()


@app.command("export-godot")
@writes_outputs
def export_godot(
    src: FileArg,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Scene to write (.tscn); - for stdout.")
    ] = None,
    godot: Annotated[
        int, typer.Option("--godot", help="Engine version: 3 (TSCN format=2) or 4 (format=3).")
    ] = 4,
    slot: SubtreeOption = None,
    variant: Annotated[
        Path | None,
        typer.Option(
            "--variant",
            help="Also write the tree as one binary Variant (bytes2var / bytes_to_var reads it); "
            "- for stdout.",
        ),
    ] = None,
    gltf: Annotated[
        bool,
        typer.Option(
            "--gltf",
            help="Godot 4: also write OUT.glb (brson export-gltf) and show its real meshes in "
            "the scene, loaded at run time.",
        ),
    ] = False,
    assets: AssetsOption = None,
) -> None:
    """Bring a Slot tree to Godot: nodes with transforms, primitive meshes, metadata."""
    if godot not in FORMAT:
        raise typer.BadParameter(
            f"{godot} is not a supported version (use 3 or 4)", param_hint="--godot"
        )
    if output is None and variant is None:
        raise typer.BadParameter("nothing to write: give -o OUT.tscn and/or --variant OUT.bin")
    if gltf and (godot != 4 or output is None or str(output) == STDIO):
        raise typer.BadParameter(
            "--gltf needs --godot 4 and -o OUT.tscn (a file: OUT.glb goes beside it)",
            param_hint="--gltf",
        )
    check_output(output, src)
    check_output(variant, src, binary=True, option="--variant")
    if gltf and output is not None:
        check_output(output.with_suffix(".glb"), src)
    if (
        output is not None
        and variant is not None
        and (output.resolve() == variant.resolve() or same_file(output, variant))
    ):
        raise typer.BadParameter("-o and --variant name the same file", param_hint="--variant")
    source = Source(src)
    tree = source.tree
    try:
        top = tree.select(slot) if slot is not None else tree.root
        if output is not None:
            glb = output.with_suffix(".glb") if gltf else None
            with progress("exporting slots") as bar:
                scene = stream_scene(
                    tree,
                    godot,
                    top,
                    on_slot=bar.advance,
                    gltf=glb.name if glb else None,
                    assets=AssetStore(source.package, assets or []) if godot == 3 else None,
                    max_size=State.max_size,
                )
            if glb is not None:
                _write_glb(source, top, glb, assets or [])
            # In pieces: the scene's text is larger than the tree's BSON (docs/performance.md).
            # The collector paused: the pieces are strings, made and let go (no cycles), and
            # collections over the tree's nodes meanwhile only traverse the heap again.
            with paused_gc():
                write_atomic(output, (piece.encode("utf-8") for piece in scene.tscn_chunks()))
            for note in scene.notes:
                say_note(f"brson: note: {note}")
            say(
                f"{output}: {scene.node_count} nodes ({scene.meshes} with a mesh, "
                f"{scene.materials} materials), Godot {godot} (format={FORMAT[godot]})"
            )
        if variant is not None:
            data = export.export_variant(tree, godot, top)
            write_atomic(variant, data)
            say(f"{variant}: {len(data)} bytes, Godot {godot} Variant")
    except BrsonError as exc:
        raise exc.in_file(str(src)) from None


def _write_glb(source: Source, top: Slot, path: Path, assets: list[Path]) -> None:
    """The subtree's meshes as glTF for the scene's loader node (the scene root places it)."""
    try:  # numpy and Pillow come with the optional extra: brson[gltf]
        from brson.gltf.export import export_gltf
    except ImportError as exc:
        raise BrsonError(
            f"--gltf needs the gltf extra (pip install 'brson[gltf]'): {exc}"
        ) from None
    store = AssetStore(source.package, assets)
    document, report = export_gltf(
        source.tree, top, assets=store, place_top=False, max_size=State.max_size
    )
    document.save(path)
    for warning in report.warnings:
        stderr.print(f"brson: warning: {warning}", markup=False)
    say(f"{path}: {report.meshes} meshes, {report.materials} materials")
