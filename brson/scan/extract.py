"""One file to rows: the pure function every engine runs, in a worker process.

It never raises on bad input: a file that cannot be read or parsed is one ``files`` row with
``status = 'error'`` and the layer and message of the refusal, so one hostile file never ends
a scan of a million.  An unexpected exception (a bug) is recorded the same way, with layer
``internal``, for the same reason; ``brson validate`` on that file shows the rest.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from brson import api
from brson.assets import parse_url
from brson.codecs import limits
from brson.container import is_package_name
from brson.errors import BrsonError
from brson.fileio import read_bytes
from brson.graph.refs import ReferenceGraph
from brson.model import Component, DataTree, Member
from brson.model.typename import TypeName
from brson.ops.validate import Severity, validate
from brson.package import Assets, loads_package

Row = dict[str, Any]


@dataclass(frozen=True)
class Options:
    """What a scan records; stored with the index, and a change rescans every file."""

    validate: bool = True
    refs: bool = False
    slots: bool = False
    max_size: int = limits.DEFAULT_MAX_SIZE

    def as_dict(self) -> dict[str, Any]:
        return {
            "validate": self.validate,
            "refs": self.refs,
            "slots": self.slots,
            "max_size": self.max_size,
        }


@dataclass(frozen=True)
class Task:
    """A file to scan.  ``known_sha256`` is the indexed hash when size and mtime are unchanged:
    the worker hashes the bytes and skips the file when they are the same."""

    path: str
    size: int | None
    mtime_ns: int | None
    known_sha256: str | None = None
    #: The path as stored in the tables, when it differs from ``path`` (a file name that is
    #: not UTF-8, see :func:`brson.scan.corpus.display`).
    name: str | None = None


@dataclass
class Rows:
    """The rows of some files, per table."""

    tables: dict[str, list[Row]] = field(default_factory=dict)

    def add(self, table: str, row: Row) -> None:
        self.tables.setdefault(table, []).append(row)


def scan_file(task: Task, options: Options, out: Rows) -> str:
    """Add the rows of one file to ``out``; returns its status: ``ok``, ``error`` or
    ``unchanged`` (nothing added)."""
    started = time.perf_counter()
    path = task.name or task.path
    row: Row = {
        "path": path,
        "size": task.size,
        "mtime_ns": task.mtime_ns,
        "kind": "package" if is_package_name(path) else "archive",
        "status": "ok",
    }
    children = Rows()
    try:
        # Refused before reading: a FIFO or a device (a read that blocks or never ends), a
        # file over --max-size (a 100 GiB sparse file must not be read until memory runs out).
        data = read_bytes(task.path, options.max_size)
        sha = hashlib.sha256(data).hexdigest()
        if task.known_sha256 is not None and sha == task.known_sha256:
            return "unchanged"
        row["sha256"] = sha
        row["size"] = len(data)
        _parse(data, task.path, path, row, options, children)
    except BrsonError as exc:
        read = "sha256" in row  # validate ran: its findings say why, with a rule code
        return _failed(row, exc, started, out, children if options.validate and read else None)
    except (Exception, RecursionError) as exc:  # a bug must not end the scan either
        row["status"] = "error"
        row["error_layer"] = "internal"
        row["error_message"] = f"{type(exc).__name__}: {exc}"[:2000]
        row["seconds"] = time.perf_counter() - started
        out.add("files", row)
        return "error"
    row["seconds"] = time.perf_counter() - started
    out.add("files", row)
    for table, rows in children.tables.items():
        out.tables.setdefault(table, []).extend(rows)
    return "ok"


def _failed(
    row: Row, exc: BrsonError, started: float, out: Rows, findings: Rows | None = None
) -> str:
    row["status"] = "error"
    row["error_layer"] = exc.layer
    row["error_message"] = exc.message[:2000]
    if findings is not None:
        # The findings of an unreadable file say the same thing with a rule code (BR1xx).
        for table in ("findings",):
            out.tables.setdefault(table, []).extend(findings.tables.get(table, []))
        _count_findings(row, findings.tables.get("findings", []))
    row["seconds"] = time.perf_counter() - started
    out.add("files", row)
    return "error"


def _parse(data: bytes, real: str, path: str, row: Row, options: Options, out: Rows) -> None:
    """``real``: the file's path on disk; ``path``: as the tables store it."""
    if options.validate:
        # validate reads the file itself (its container rules need the raw bytes and, for a
        # package, the zip); parsing again costs ~5% of validating.
        source: bytes | str = real if is_package_name(path) else data
        findings = validate(source, name=path, max_size=options.max_size)
        for finding in findings:
            out.add(
                "findings",
                {
                    "path": path,
                    "rule": finding.code,
                    "severity": str(finding.severity),
                    "slot_path": finding.path,
                    "message": finding.message[:2000],
                    "offset": finding.offset,
                },
            )
        _count_findings(row, out.tables.get("findings", []))
    held: Assets | None = None
    if is_package_name(path):
        package = loads_package(data, name=path, max_size=options.max_size)
        tree = package.tree
        row["package_assets"] = len(package.assets)
        if isinstance(package.assets, Assets):
            held = package.assets
    else:
        tree = api.loads(data, name=path, max_size=options.max_size)
    _describe(tree, path, row, options, out, held)


def _count_findings(row: Row, findings: list[Row]) -> None:
    row["errors"] = sum(1 for f in findings if f["severity"] == Severity.ERROR)
    row["warnings"] = sum(1 for f in findings if f["severity"] == Severity.WARNING)


def _describe(
    tree: DataTree, path: str, row: Row, options: Options, out: Rows, held: Assets | None
) -> None:
    container = tree.container
    if container is not None:
        row["container"] = container.framing
        row["codec"] = container.codec.name.lower()
        row["lz4_framing"] = container.lz4_framing
    row["engine_version"] = tree.version_number
    row["generation"] = "neosvr" if tree.legacy else "resonite"
    root = tree.root
    row["root_name"] = root.name if isinstance(root.name, str) else None
    row["tree_sha256"] = hashlib.sha256(tree.to_bson()).hexdigest()
    listed = tree.types  # raises ModelError on a malformed table: the file is an error row
    used: Counter[str] = Counter()
    parsed: dict[str, TypeName] = {str(t): t for t in listed}
    slots = components = assets = 0
    for slot in tree.walk():
        slots += 1
        slot_path = slot.display_path()
        on_slot = slot.components
        components += len(on_slot)
        if options.slots:
            parent = slot.parent
            out.add(
                "slots",
                {
                    "path": path,
                    "slot_id": slot.id,
                    "parent_id": parent.id if parent is not None else None,
                    "slot_path": slot_path,
                    "name": slot.name if isinstance(slot.name, str) else None,
                    "depth": slot.depth,
                    "components": len(on_slot),
                },
            )
        for component in on_slot:
            type_name = component.type
            text = str(type_name)
            parsed.setdefault(text, type_name)
            used[text] += 1
            _component_rows(component, type_name, text, slot.id, slot_path, path, out)
            assets += _asset_rows(component, text, slot_path, path, out, held)
    for component in tree.assets:  # NeosVR root Assets
        components += 1
        type_name = component.type
        text = str(type_name)
        parsed.setdefault(text, type_name)
        used[text] += 1
        _component_rows(component, type_name, text, None, "<Assets>", path, out)
        assets += _asset_rows(component, text, "<Assets>", path, out, held)
    for text, type_name in parsed.items():
        out.add(
            "types",
            {
                "path": path,
                "type": text,
                "type_full_name": type_name.full_name,
                "type_name": type_name.name,
                "assembly": type_name.assembly,
                "components": used[text],
            },
        )
    row.update(slots=slots, components=components, types=len(parsed), assets=assets)
    if options.refs:
        for ref in ReferenceGraph.build(tree):
            out.add(
                "refs",
                {
                    "path": path,
                    "source": ref.describe(),
                    "member_id": ref.member_id,
                    "target_id": ref.target_id,
                    "internal": ref.internal,
                },
            )


def _component_rows(
    component: Component,
    type_name: TypeName,
    text: str,
    slot_id: str | None,
    slot_path: str,
    path: str,
    out: Rows,
) -> None:
    out.add(
        "components",
        {
            "path": path,
            "slot_id": slot_id,
            "slot_path": slot_path,
            "component_id": component.id,
            "type": text,
            "type_full_name": type_name.full_name,
            "type_name": type_name.name,
        },
    )


def _asset_rows(
    component: Component,
    text: str,
    slot_path: str,
    path: str,
    out: Rows,
    held: Assets | None,
) -> int:
    """One row per asset URL in the component's fields (list elements too)."""
    count = 0
    for key, member in component.fields.items():
        for label, value in _values(key, member):
            parsed = parse_url(value)
            if parsed is None:
                continue
            size = None
            if held is not None and parsed.scheme == "packdb" and parsed.name in held:
                size = held.size(parsed.name)
            url = value[1:] if value.startswith("@") else value
            out.add(
                "assets",
                {
                    "path": path,
                    "url": url,
                    "scheme": parsed.scheme,
                    "hash": parsed.name,
                    "ext": parsed.ext,
                    "component_id": component.id,
                    "component_type": text,
                    "member": label,
                    "slot_path": slot_path,
                    "size": size,
                },
            )
            count += 1
    return count


def _values(key: str, member: Member) -> list[tuple[str, str]]:
    """The string values of a field: its Data, or each element's for a list field."""
    value = member.value
    if isinstance(value, str):
        return [(key, value)]
    if isinstance(value, list):
        return [(f"{key}[{i}]", item) for i, item in enumerate(value) if isinstance(item, str)]
    return []
