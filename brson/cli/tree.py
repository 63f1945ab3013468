"""Commands that show the model: ``tree`` (the Slot tree), ``refs`` (the reference graph) and
``schema`` (JSON Schema of the document models and of the JSON form)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text
from rich.tree import Tree

from brson._speedups import load
from brson.cli.common import (
    FilesArg,
    JsonList,
    check_folder_output,
    end_inputs,
    expand_inputs,
    for_each_input,
    load_tree,
    note,
    outputs,
    progress,
    stdout,
)
from brson.errors import BrsonError, ModelError
from brson.fileio import FileError, write_atomic
from brson.graph.refs import RECORD_KEYS, RecordParts, ReferenceListing, Row
from brson.model import Component, Slot
from brson.model.typename import TypeName

if TYPE_CHECKING:
    from brson._speedups import _jsonformc
else:
    # refs --json's records in C (None when not built or BRSON_PURE_PYTHON): records_py is
    # its reference (tests/cli/test_refs_records.py).
    _jsonformc = load("_jsonformc")
#: Whether refs --json writes its records in C.
RECORDS_ACCELERATED: bool = _jsonformc is not None

app = typer.Typer()

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


# -- tree ---------------------------------------------------------------------------------
@app.command("tree")
def tree_command(
    files: FilesArg,
    depth: Annotated[
        int | None, typer.Option("--depth", min=0, help="Show slots down to this depth (root 0).")
    ] = None,
    components: Annotated[
        bool, typer.Option("--components", help="List each slot's components.")
    ] = False,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json",
            help="A list, one {file, root} per file; root is nested objects: id, name, "
            "components [{id, type}], children (hidden_children counts what --depth cut).",
        ),
    ] = False,
) -> None:
    """The Slot tree: names and IDs, optionally components (short type names). With several
    files, each tree follows its file's name."""
    paths = expand_inputs(files)
    entries: list[str] = []
    shown = 0

    def one(file: Path) -> None:
        nonlocal shown
        with _about(file):
            tree = load_tree(file)
            if json_out:
                entry = {"file": str(file), "root": slot_json(tree.root, depth)}
                try:  # serialized here, so a tree too deep for JSON names its file
                    entries.append(json.dumps(entry, indent=2, ensure_ascii=False))
                except RecursionError:
                    raise ModelError("the slot tree is too deep for JSON output") from None
                return
            # Made whole before any of it is written: a file failing half-way shows nothing.
            shape: Tree | list[str] = (
                _rich_tree(tree.root, depth, components)
                if stdout.is_terminal
                else _plain_lines(tree.root, depth, components)
            )
        if len(paths) > 1:
            stdout.file.write(("\n" if shown else "") + f"{file}:\n")
        shown += 1
        if isinstance(shape, Tree):
            stdout.print(shape)
        else:
            out = stdout.file
            for line in shape:
                out.write(line + "\n")

    failed = for_each_input(paths, one)
    if json_out:
        # The list print_json would write, from the entries already serialized (indented by
        # "\n" alone: JSON escapes it in strings, unlike U+2028 or U+0085, which splitlines
        # and so textwrap.indent would break inside a slot name).
        body = ",\n".join("  " + text.replace("\n", "\n  ") for text in entries)
        stdout.file.write(f"[\n{body}\n]\n" if entries else "[]\n")
    end_inputs(failed)


@contextmanager
def _about(file: Path) -> Iterator[None]:
    """Errors found lazily, after loading (a bad type index), still name the file."""
    try:
        yield
    except BrsonError as exc:
        raise exc.in_file(str(file)) from None


def slot_json(root: Slot, depth: int | None = None) -> dict[str, Any]:
    """The ``tree --json`` object of a slot and its subtree (built without recursion)."""
    top = _slot_entry(root)
    stack: list[tuple[Slot, dict[str, Any], int]] = [(root, top, 0)]
    while stack:
        slot, entry, level = stack.pop()
        kids = slot.children
        if depth is not None and level >= depth:
            if kids:
                entry["hidden_children"] = len(kids)
            continue
        for child in kids:
            child_entry = _slot_entry(child)
            entry["children"].append(child_entry)
            stack.append((child, child_entry, level + 1))
    return top


def _slot_entry(slot: Slot) -> dict[str, Any]:
    return {
        "id": slot.id,
        "name": slot.name,
        "components": [{"id": c.id, "type": str(c.type)} for c in slot.components],
        "children": [],
    }


def short_type(name: TypeName) -> str:
    """``ValueField<Slot>`` for ``[FrooxEngine]FrooxEngine.ValueField<[FrooxEngine]…Slot>``."""
    return name.short


def _component_label(component: Component) -> str:
    return f"{short_type(component.type)}  {component.id}"


def _plain_lines(root: Slot, depth: int | None, components: bool) -> list[str]:
    lines: list[str] = []
    stack: list[tuple[Slot, int]] = [(root, 0)]
    while stack:
        slot, level = stack.pop()
        indent = "  " * level
        lines.append(f"{indent}{slot.name}  {slot.id}")
        if components:
            lines.extend(f"{indent}  : {_component_label(c)}" for c in slot.components)
        kids = slot.children
        if depth is not None and level >= depth:
            if kids:
                lines.append(f"{indent}  … {len(kids)} more")
            continue
        stack.extend((child, level + 1) for child in reversed(kids))
    return lines


def _rich_tree(root: Slot, depth: int | None, components: bool) -> Tree:
    def label(slot: Slot) -> Text:
        text = Text(str(slot.name), style="bold" if slot.active is not False else "dim")
        text.append(f"  {slot.id}", style="dim")
        return text

    top = Tree(label(root))
    stack: list[tuple[Slot, Tree, int]] = [(root, top, 0)]
    while stack:
        slot, node, level = stack.pop()
        if components:
            for component in slot.components:
                node.add(Text(_component_label(component), style="cyan"))
        kids = slot.children
        if depth is not None and level >= depth:
            if kids:
                node.add(Text(f"… {len(kids)} more", style="dim"))
            continue
        branches = [(child, node.add(label(child))) for child in kids]
        stack.extend((child, branch, level + 1) for child, branch in reversed(branches))
    return top


# -- refs ---------------------------------------------------------------------------------
@app.command()
def refs(
    files: FilesArg,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json",
            help="A list, one {file, counts, external_ids, references} per file.",
        ),
    ] = False,
) -> None:
    """References: every ID-shaped value, internal (names an element of the file) or
    external (names nothing here; kept as is)."""
    listed = JsonList() if json_out else None

    def one(file: Path) -> None:
        with _about(file), progress(f"reading {file}", total=3) as bar:
            tree = load_tree(file)
            tree.drop_stored_payload()  # never written back: only its BSON is read
            bar.stage("indexing IDs and references")
            listing = ReferenceListing(tree)
            bar.stage(f"locating {len(listing)} references")
            if listed is not None:
                # All of the entry that can fail, before any of it is written; its text is
                # then encoded straight to the output, never held whole.
                table = listing.table()
                bar.advance()
                head = entry_head(file, listing.counts(), listing.external_ids())
            else:
                rows = listing.rows()
                bar.advance()
        if listed is not None:
            del tree, listing  # only the table is written: the tree's buffer goes first
            listed.add(chain((head,), records_text(table), (entry_end(bool(table)),)))
            return
        _print_refs(file, listing.counts(), rows)

    failed = for_each_input(expand_inputs(files), one)
    if listed is not None:
        listed.close()
    end_inputs(failed)


def entry_head(file: Path, counts: dict[str, int], external_ids: list[str]) -> str:
    """The start of one file's ``{file, counts, external_ids, references}`` as
    ``json.dumps(indent=2, ensure_ascii=False)`` writes it in the list of files, up to its
    ``references``' items (:func:`records_text`; :func:`entry_end` closes it)."""
    head = {"file": str(file), "counts": counts, "external_ids": external_ids}
    text = json.dumps(head, indent=2, ensure_ascii=False)[:-2]  # without "\n}"
    return "\n".join("  " + line for line in text.split("\n")) + ',\n    "references": ['


def entry_end(references: bool) -> str:
    """The end of :func:`entry_head`'s entry after its references' parts (whether it had
    any)."""
    return "\n    ]\n  }" if references else "]\n  }"


#: Records encoded a write: a few hundred KiB of text, never the whole listing's.
RECORDS_A_WRITE = 512
#: A record's layout in a file's entry: the text before each of its seven values, then its
#: end, as ``json.dumps(indent=2)`` lays out a :data:`~brson.graph.refs.RECORD_KEYS` object
#: at that depth.
RECORD_LAYOUT = tuple(
    (
        "      {\n"
        + ",\n".join(f"        {json.encoder.encode_basestring(key)}: %s" for key in RECORD_KEYS)
        + "\n      }"
    ).split("%s")
)
#: Between two records.
RECORD_SEPARATOR = ",\n"


def records_text(records: Iterable[RecordParts]) -> Iterator[str]:
    """References' records (:data:`~brson.graph.refs.RecordParts`) as the indenting encoder
    writes them in a file's entry (:func:`entry_head`), :data:`RECORDS_A_WRITE` at a time
    (the first part starting with the newline after the list's ``[``), made as they are
    written: the compiled writer (``_jsonformc.records``) where it is sure of a batch, else
    :func:`records_py`, one format per record (the indenting encoder is pure Python, a call
    per value, and was most of a listing's time)."""
    quoted = _QuotedParts()
    lead = "\n"
    items = iter(records)
    while batch := list(islice(items, RECORDS_A_WRITE)):
        text = None
        if _jsonformc is not None:
            text = _jsonformc.records(batch, RECORD_LAYOUT, RECORD_SEPARATOR)
        yield lead + (text if text is not None else records_py(batch, quoted))
        lead = RECORD_SEPARATOR


class _QuotedParts:
    """What :func:`records_py` quotes once and writes many times."""

    __slots__ = ("few", "paths")

    def __init__(self) -> None:
        self.few = _Quoted()  # the kinds: a few values
        self.paths = _Quoted(opened=False)  # the paths' texts: a type's few fields


def records_py(records: list[RecordParts], quoted: _QuotedParts | None = None) -> str:
    """The text of a batch of :func:`records_text` (the compiled writer's reference):
    ``from`` and ``target`` are their two parts escaped apart (JSON escapes character by
    character), each path's once, a source's anchor once a run."""
    encode = json.encoder.encode_basestring  # what ensure_ascii=False writes strings with
    template = "%s".join(RECORD_LAYOUT).replace("%s", "%s%s", 1)  # from: anchor, path
    quoted = quoted or _QuotedParts()
    few, paths = quoted.few, quoted.paths
    last, anchor = None, ""
    out: list[str] = []
    for head, tail, kind, member_id, target_id, internal, at, at_tail, at_kind in records:
        if head is not last:  # a run's records share their anchor's text
            last, anchor = head, encode(head)[:-1]
        out.append(
            template
            % (
                anchor,
                paths[tail],
                few[kind],
                "null" if member_id is None else encode(member_id),
                encode(target_id),
                few[internal],
                "null" if at is None else encode(at)[:-1] + paths[at_tail],
                few[at_kind],
            )
        )
    return RECORD_SEPARATOR.join(out)


class _Quoted(dict[str | None, str]):
    """Each value as JSON (null for None), quoted on first use; without its opening quote
    unless ``opened`` (the end of a string whose start is written before it)."""

    def __init__(self, opened: bool = True) -> None:
        super().__init__()
        self.cut = 0 if opened else 1

    def __missing__(self, value: str | None) -> str:
        encode = json.encoder.encode_basestring
        text = self[value] = "null" if value is None else encode(value)[self.cut :]
        return text


def _print_refs(file: Path, counts: dict[str, int], rows: list[Row]) -> None:
    out = stdout.file
    out.write(
        f"{file}: {counts['references']} references, {counts['internal']} internal "
        f"(to {counts['referenced_ids']} of {counts['ids']} IDs), {counts['external']} "
        f"external (to {counts['external_ids']} IDs)\n"
    )
    for start in range(0, len(rows), 4096):  # a few large writes, not one per line
        out.write(
            "".join(
                f"{source} -> {target_id} {'(external)' if target is None else target}\n"
                for source, target_id, target in rows[start : start + 4096]
            )
        )


# -- schema -------------------------------------------------------------------------------
def json_schemas() -> dict[str, dict[str, Any]]:
    """File stem -> JSON Schema: the pydantic document models and the JSON form."""
    from brson.model.documents import SCHEMA_MODELS  # pydantic: for this command only
    from brson.model.jsonform_schema import SCHEMA as JSONFORM_SCHEMA
    from brson.ops.validate.report import report_schema

    out: dict[str, dict[str, Any]] = {}
    for stem, model in SCHEMA_MODELS.items():
        out[stem] = {"$schema": JSON_SCHEMA_DIALECT, **model.model_json_schema()}
    out["jsonform"] = JSONFORM_SCHEMA
    out["validate-report"] = report_schema()
    return out


def schema_text(schema: dict[str, Any]) -> str:
    """Deterministic text: sorted keys, two-space indent, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@app.command()
def schema(
    output: Annotated[Path, typer.Option("-o", "--output", help="Directory to write into.")],
) -> None:
    """Write JSON Schema files: the document models (datatree, slot, component, member),
    the lossless JSON form written by to-json (jsonform) and the report of validate --format
    json (validate-report)."""
    check_folder_output(output)
    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FileError(f"cannot create the directory ({exc.strerror})", file=str(output)) from None
    with outputs():  # every schema, or none
        for stem, content in json_schemas().items():
            target = output / f"{stem}.schema.json"
            write_atomic(target, schema_text(content).encode())
            note(f"wrote {target}")
