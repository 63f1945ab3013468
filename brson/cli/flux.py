"""``brson flux``: the ProtoFlux graphs of an archive as text, JSON, Graphviz DOT or SVG."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated

import typer

from brson.cli.common import (
    STDIO,
    FileArg,
    Source,
    SubtreeOption,
    check_output,
    outputs,
    progress,
)
from brson.errors import BrsonError
from brson.fileio import write_atomic

app = typer.Typer()


class Format(enum.StrEnum):
    TEXT = "text"
    JSON = "json"
    DOT = "dot"
    SVG = "svg"


@app.command("flux")
def flux_command(
    src: FileArg,
    slot: SubtreeOption = None,
    form: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            help="text (a line per graph, node and connection), json, dot (Graphviz), or svg "
            "(drawn by Graphviz's dot, which must be installed).",
        ),
    ] = Format.TEXT,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="File to write; - or none: stdout.")
    ] = None,
) -> None:
    """ProtoFlux nodes and their connections: value inputs, impulses, and the world elements
    a graph reads, writes and drives (docs/protoflux.md)."""
    from brson import flux

    check_output(output, src)
    target = output if output is not None else Path(STDIO)
    source = Source(src)
    try:
        with progress(f"reading the ProtoFlux of {src}") as bar:
            top = source.tree.select(slot) if slot is not None else None
            model = flux.build(source.tree)
            bar.advance()
            if form is Format.TEXT:
                data = "".join(line + "\n" for line in flux.text_lines(model, top)).encode()
            elif form is Format.JSON:
                body = {"file": str(src), **flux.to_json(model, top)}
                data = (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode()
            else:
                dot = flux.to_dot(model, top)
                data = dot.encode() if form is Format.DOT else flux.to_svg(dot)
    except BrsonError as exc:
        raise exc.in_file(str(src)) from None
    with outputs():
        write_atomic(target, data)
