"""Commands on whole archives: info, convert, to-json, from-json."""

from __future__ import annotations

import mmap
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from brson import api
from brson.cli.common import (
    STDIO,
    ArchiveOutput,
    CodecOption,
    FilesArg,
    LegacyOption,
    Source,
    check_output,
    end_inputs,
    expand_inputs,
    for_each_input,
    human_size,
    load_tree,
    mapped_input,
    note,
    output_codec,
    print_json,
    progress,
    read_input,
    save_package,
    stderr,
    stdout,
    write_output,
)
from brson.codecs import Codec
from brson.collector import paused_gc
from brson.container import is_package_name, pack
from brson.document import bsondoc, formstream, jsonform
from brson.document.numberrecord import Restored
from brson.fileio import atomic_output
from brson.model.transform import restore_transform_doubles
from brson.model.tree import DataTree

app = typer.Typer()


@paused_gc()  # counting walks every slot: a bulk pass (brson.collector)
def summary(tree: DataTree, path: str) -> dict[str, Any]:
    """The facts ``info`` reports, as plain data.

    ``components`` counts the components on slots and ``assets`` the NeosVR root ``Assets``
    apart (19 / 44 / 27 in the redx sample, as its manifest and docs/data-tree.md count them):
    adding the assets into ``components`` made the two numbers overlap."""
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
        components=components,
        assets=assets,
        root=tree.root.name,
    )
    return out


@app.command()
def info(
    files: FilesArg,
    json_out: Annotated[bool, typer.Option("--json", help="A list, one object per file.")] = False,
) -> None:
    """Container, codec, sizes, engine version, feature flags and element counts."""
    rows = []

    def one(path: Path) -> None:
        source = Source(path)
        package, tree = source.package, source.tree
        row = summary(tree, str(path))
        # The sizes and codec are the main tree's; say that it sits in a package.
        row["package"] = (
            None
            if package is None
            else {
                "main": f"Assets/{package.main}",
                "assets": len(package.assets),
                "size": path.stat().st_size,
            }
        )
        for warning in tree.container.warnings if tree.container else ():
            stderr.print(f"brson: warning: {path}: {warning}", markup=False)
        if json_out:
            rows.append(row)
        else:
            _print_info(row)

    failed = for_each_input(expand_inputs(files), one)
    if json_out:
        print_json(rows)
    end_inputs(failed)


def _print_info(row: dict[str, Any]) -> None:
    from rich.text import Text  # only info prints through rich: not at the other commands' start

    # Names and paths are data: a slot called "[/]" must not be read as rich markup.
    stdout.print(Text(str(row["file"]), style="bold"))
    for key, value in row.items():
        if key in ("file", "warnings"):
            continue
        if key == "feature_flags":
            value = ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
        elif key == "package":
            if value is None:
                continue
            value = (
                f"{value['size']} bytes, main tree {value['main']}, "
                f"{value['assets']} other asset(s)"
            )
        elif key in ("compressed_size", "uncompressed_size"):
            value = f"{value} ({human_size(value)})"
        shown = value if value is not None else "-"
        stdout.print(f"  {key.replace('_', ' '):<18} {shown}", markup=False)


@app.command()
def convert(
    src: Annotated[Path, typer.Argument(metavar="IN", help="Input archive.")],
    dst: Annotated[
        Path,
        typer.Argument(
            metavar="OUT", help="Output archive (its extension picks the codec); - for stdout."
        ),
    ],
    codec: CodecOption = None,
    legacy: LegacyOption = None,
) -> None:
    """Re-compress an archive; an unmodified Brotli file converts to itself byte for byte."""
    check_output(dst, src)
    if str(dst) == STDIO:
        _refuse_terminal()
    if is_package_name(dst):  # a package again: the tree and the assets it names
        source = Source(src)
        save_package(source.tree, dst, [source.package] if source.package else [])
        return
    chosen = output_codec(codec, str(dst))
    with progress(f"reading {_sized(src)}", total=2) as bar:
        tree = load_tree(src)
        written = chosen or _own_codec(tree)
        if legacy is None:  # keep IN's framing; Brotli has no headerless form
            legacy = tree.container is not None and tree.container.legacy
            legacy = legacy and written is not Codec.BROTLI
        bar.stage(f"compressing {_bson_size(tree)} of BSON ({written.label})")
        _write_archive(tree, dst, chosen, legacy)
        bar.advance()


def _write_archive(obj: DataTree | bytes, dst: Path, codec: Codec | None, legacy: bool) -> None:
    """To standard output for ``-``, else through ``api.dump`` (atomic, errors name DST)."""
    if str(dst) == STDIO:
        write_output(dst, api.dumps(obj, codec, legacy=legacy))
    else:
        api.dump(obj, dst, codec, legacy=legacy)


def _sized(path: Path) -> str:
    """``NAME (SIZE)`` for progress descriptions (the size when the file has one)."""
    try:
        return f"{path.name} ({human_size(path.stat().st_size)})"
    except OSError:
        return str(path)


def _bson_size(tree: DataTree) -> str:
    container = tree.container
    return human_size(container.uncompressed_size if container else len(tree.to_bson()))


def _own_codec(tree: DataTree) -> Codec:
    return tree.container.codec if tree.container is not None else Codec.BROTLI


def _refuse_terminal() -> None:
    """Archive bytes on a terminal are noise that can upset it; pipe or redirect them."""
    if sys.stdout.isatty():
        raise typer.BadParameter("refusing to write an archive to a terminal (redirect stdout)")


@app.command("to-json")
def to_json(
    src: Annotated[Path, typer.Argument(metavar="FILE", help="Input archive.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write here (default or -: stdout).")
    ] = None,
    compact: Annotated[bool, typer.Option(help="One line instead of indented.")] = False,
    container: Annotated[
        bool,
        typer.Option(
            help='Record FILE\'s framing and codec as a leading "$container" key and the type '
            'of every number as a trailing "$numbers" key, which from-json writes back '
            "(--no-container: the bare document).",
        ),
    ] = True,
) -> None:
    """The lossless JSON form (int64 as $numberLong, exact doubles); see docs/json-form.md."""
    if output is not None:
        check_output(output, src)
    with progress(f"reading {_sized(src)}", total=3) as bar:
        tree = load_tree(src)
        record = (
            jsonform.container_record(tree.container)
            if container and tree.container is not None
            else None
        )
        bar.stage(f"writing {_bson_size(tree)} of BSON as JSON")
        written = _write_form(tree, output, None if compact else 1, record, container)
        bar.stage(f"wrote {human_size(written)} of JSON")
        bar.advance()


@paused_gc()  # pymongo's decoded chunks hold no cycles: a bulk pass (brson.collector)
def _write_form(
    tree: DataTree,
    output: Path | None,
    indent: int | None,
    record: dict[str, Any] | None,
    numbers: bool,
) -> int:
    """Stream the JSON form to OUT (atomically) and return its size in bytes. Standard output
    gets it whole at the end instead: a failure half-way leaves nothing in the pipe."""
    data = tree.to_bson()
    if output is None or str(output) == STDIO:
        chunks: list[str] = []
        jsonform.write_bson(data, chunks.append, indent, record, numbers=numbers)
        chunks.append("\n")
        text = "".join(chunks)
        if output is None:
            stdout.file.write(text)
        else:
            write_output(output, text.encode())
        return len(text.encode())
    size = 0
    with atomic_output(output) as handle:

        def write(text: str) -> None:
            nonlocal size
            size += handle.write(text.encode())

        jsonform.write_bson(data, write, indent, record, numbers=numbers)
        write("\n")
    return size


@app.command("from-json")
def from_json(
    src: Annotated[
        Path, typer.Argument(metavar="FILE", help="JSON form written by to-json; - for stdin.")
    ],
    output: ArchiveOutput,
    codec: CodecOption = None,
    legacy: LegacyOption = None,
) -> None:
    """Build an archive from the JSON form: byte-identical BSON to the original, in the
    framing and codec to-json recorded unless told otherwise."""
    check_output(output, src)
    if str(output) == STDIO:
        _refuse_terminal()
    with progress(f"reading {_sized(src)}", total=4) as bar:
        data, recorded = _read_form(src, bar)
        bar.stage(f"compressing and writing {human_size(len(data))} of BSON")
        if is_package_name(output):
            save_package(DataTree(data), output, [])
            return
        recorded_codec, recorded_legacy = recorded if recorded else (Codec.BROTLI, False)
        chosen = output_codec(codec, str(output), recorded_codec)
        chosen = recorded_codec if chosen is None else chosen
        if legacy is None:  # Brotli has no headerless form: a .brson OUT gets the header
            legacy = recorded_legacy and chosen is not Codec.BROTLI
        _write_encoded(data, output, chosen, legacy)
        bar.advance()


def _read_form(src: Path, bar: Any) -> tuple[bytes, tuple[Codec, bool] | None]:
    """The form's BSON and its recorded container: by the compiled reader straight from the
    text (a file is mapped, its pages let go once read), else by the Python path."""
    with mapped_input(src) as text:
        bar.stage(f"parsing {human_size(len(text))} of JSON")
        try:
            streamed = formstream.read_bson(text, release=isinstance(text, mmap.mmap))
        except api.BrsonError as exc:
            raise exc.in_file(str(src)) from None
        piped = [text] if isinstance(text, bytes) else []
        del text  # the Python path lets go of the bytes before parsing
    if streamed is None:
        return _parse_form(src, bar, piped)
    if streamed.numbers is not None:
        _numbers_notes(src, streamed.numbers)
    bar.stage("encoding BSON: done while parsing")
    return streamed.bson, streamed.container


def _parse_form(src: Path, bar: Any, piped: list[bytes]) -> tuple[bytes, tuple[Codec, bool] | None]:
    """The Python path: ``json.loads``, the tags and number types restored, ``bson.encode``
    (``piped``: the input when it was read already, taken out so only this holds it)."""
    data = piped.pop() if piped else read_input(src)
    try:
        with paused_gc():  # the parsed tree is one big acyclic structure
            text = jsonform.decode_text(data)
            del data  # the bytes go before parsing: the text and the tree are enough
            form = jsonform.loads_form(text)
            del text
    except api.BrsonError as exc:
        raise exc.in_file(str(src)) from None
    doc, recorded = form.doc, form.container
    if form.numbers is not None:
        _numbers_notes(src, form.numbers)
    elif restored := restore_transform_doubles(doc):  # a form without the record
        note(
            f"brson: note: {src}: {restored} slot transform value(s) written as integers "
            "restored as doubles (a JSON tool dropped their '.0'; see docs/json-form.md)"
        )
    del form
    bar.stage("encoding BSON")
    try:
        with paused_gc():
            encoded = bsondoc.encode(doc)
    except api.BrsonError as exc:  # a value BSON cannot hold (a lone surrogate, a huge int)
        raise exc.in_file(str(src)) from None
    return encoded, recorded


def _numbers_notes(src: Path, numbers: Restored) -> None:
    for line in numbers.notes():
        note(f"brson: note: {src}: {line} (see docs/json-form.md)")


def _write_encoded(data: bytes, dst: Path, codec: Codec, legacy: bool) -> None:
    """BSON that pymongo's encoder just wrote from a dict to DST (or standard output for
    ``-``), atomically. Well formed by construction, so not walked document by document
    first, as the bytes of a lazily read tree are before every write (``api.dump``)."""
    try:
        archive = pack(data, codec, legacy)
    except api.BrsonError as exc:
        raise exc.in_file(str(dst)) from None
    write_output(dst, archive)
