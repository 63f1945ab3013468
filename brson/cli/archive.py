"""Commands on whole archives: info, convert, to-json, from-json."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from brson import api
from brson.cli.common import State, codec_option, human_size, print_json, stderr, stdout
from brson.document import bson as bson_doc
from brson.document import jsonform
from brson.fileio import read_bytes, write_atomic
from brson.model.tree import DataTree

app = typer.Typer()


def summary(tree: DataTree, path: str) -> dict[str, Any]:
    """The facts ``info`` reports, as plain data."""
    container = tree.container
    slots = 0
    components = 0
    for slot in tree.walk():
        slots += 1
        components += len(slot.components)
    assets = len(tree.assets)
    out: dict[str, Any] = {"file": path}
    if container is not None:
        out.update(
            container="legacy (headerless)" if container.legacy else "FrDT",
            codec=container.codec.label,
            version=container.version,
            lz4_framing=container.lz4_framing,
            compressed_size=container.header_size + container.compressed_size,
            uncompressed_size=container.uncompressed_size,
            ratio=round(container.ratio, 3),
            warnings=list(container.warnings),
        )
    out.update(
        generation="neosvr" if tree.legacy else "resonite",
        engine_version=tree.version_number,
        feature_flags=tree.feature_flags,
        types=len(tree.types) if not tree.legacy else len({str(c.type) for c in tree.components()}),
        type_versions=len(tree.type_versions),
        slots=slots,
        components=components + assets,
        assets=assets,
        root=tree.root.name,
    )
    return out


@app.command()
def info(
    files: Annotated[list[Path], typer.Argument(help="Archives or packages.")],
    json_out: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Container, codec, sizes, engine version, feature flags and element counts."""
    rows = []
    for path in files:
        tree = api.load(path, max_size=State.max_size)
        rows.append(summary(tree, str(path)))
        for warning in tree.container.warnings if tree.container else ():
            stderr.print(f"brson: warning: {path}: {warning}")
    if json_out:
        print_json(rows)
        return
    for row in rows:
        stdout.print(f"[bold]{row['file']}[/bold]")
        for key, value in row.items():
            if key in ("file", "warnings"):
                continue
            if key == "feature_flags":
                value = ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
            elif key in ("compressed_size", "uncompressed_size"):
                value = f"{value} ({human_size(value)})"
            stdout.print(f"  {key.replace('_', ' '):<18} {value if value is not None else '-'}")


@app.command()
def convert(
    src: Annotated[Path, typer.Argument(help="Input archive.")],
    dst: Annotated[Path, typer.Argument(help="Output archive (its extension picks the codec).")],
    codec: Annotated[
        str | None, typer.Option(help="brotli, lzma, lz4 or none (default: from DST).")
    ] = None,
    legacy: Annotated[bool, typer.Option(help="Write a headerless NeosVR-style file.")] = False,
) -> None:
    """Re-compress an archive; an unmodified Brotli file converts to itself byte for byte."""
    tree = api.load(src, max_size=State.max_size)
    api.dump(tree, dst, codec_option(codec) or api.codec_for_name(str(dst)), legacy=legacy)


@app.command("to-json")
def to_json(
    src: Annotated[Path, typer.Argument(help="Input archive.")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here.")] = None,
    compact: Annotated[bool, typer.Option(help="One line instead of indented.")] = False,
) -> None:
    """The lossless JSON form (int64 as $numberLong, exact doubles); see docs/json-form.md."""
    tree = api.load(src, max_size=State.max_size)
    text = jsonform.dumps(tree.decoded(), indent=None if compact else 1) + "\n"
    if output is None:
        stdout.file.write(text)
    else:
        write_atomic(output, text.encode())


@app.command("from-json")
def from_json(
    src: Annotated[Path, typer.Argument(help="JSON form written by to-json.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Archive to write.")],
    codec: Annotated[str | None, typer.Option(help="brotli, lzma, lz4 or none.")] = None,
    legacy: Annotated[bool, typer.Option(help="Write a headerless NeosVR-style file.")] = False,
) -> None:
    """Build an archive from the JSON form; byte-identical BSON to the original."""
    try:
        doc = jsonform.loads(read_bytes(src))
    except api.BrsonError as exc:
        raise exc.in_file(str(src)) from None
    data = bson_doc.encode(doc)
    chosen = codec_option(codec) or api.codec_for_name(str(output)) or api.Codec.BROTLI
    api.dump(data, output, chosen, legacy=legacy)
