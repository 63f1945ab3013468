"""The index's tables, written once: column names, SQL types and what each column means.

The Parquet schemas (:func:`arrow_schema`), the DDL in ``docs/scan-tables.sql`` (:func:`ddl`, a
test checks the committed file is current) and the tables docs/scan.md points to come from
:data:`TABLES`, so the three cannot drift apart.  Every table has ``path`` (the file, absolute)
and ``shard`` (the shard that wrote the row; the views hide it, see :mod:`brson.scan.index`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brson.scan.deps import need


@dataclass(frozen=True)
class Column:
    name: str
    sql: str  # VARCHAR, BIGINT, INTEGER, DOUBLE, BOOLEAN
    doc: str


def _c(name: str, sql: str, doc: str) -> Column:
    return Column(name, sql, doc)


_PATH = _c("path", "VARCHAR", "the archive or package file (absolute path)")
_SHARD = _c("shard", "VARCHAR", "the shard that wrote the row (bookkeeping; hidden by the views)")

TABLES: dict[str, tuple[Column, ...]] = {
    "files": (
        _PATH,
        _c("size", "BIGINT", "file size in bytes"),
        _c("mtime_ns", "BIGINT", "modification time, ns since the epoch"),
        _c("sha256", "VARCHAR", "sha256 of the file's bytes"),
        _c("kind", "VARCHAR", "archive or package"),
        _c("container", "VARCHAR", "frdt or legacy (headerless NeosVR framing)"),
        _c("codec", "VARCHAR", "none, lz4, lzma or brotli (a package: its main tree's)"),
        _c("lz4_framing", "VARCHAR", "chunks (the engine's) or frame, for LZ4"),
        _c("engine_version", "VARCHAR", "VersionNumber of the writing engine"),
        _c("generation", "VARCHAR", "resonite (a Types table) or neosvr"),
        _c("root_name", "VARCHAR", "name of the root slot (the item's name)"),
        _c("tree_sha256", "VARCHAR", "sha256 of the main tree's BSON: equal trees, any codec"),
        _c("slots", "BIGINT", "slots in the tree"),
        _c("components", "BIGINT", "components on slots and in the root Assets"),
        _c("types", "BIGINT", "distinct component types"),
        _c("assets", "BIGINT", "asset URLs the tree references"),
        _c("package_assets", "BIGINT", "assets the package holds besides the main tree"),
        _c("errors", "BIGINT", "validate findings of severity error (null: --no-validate)"),
        _c("warnings", "BIGINT", "validate findings of severity warning"),
        _c("status", "VARCHAR", "ok, error (could not be parsed) or deleted (gone from disk)"),
        _c("error_layer", "VARCHAR", "the layer that refused the file: file, container, ..."),
        _c("error_message", "VARCHAR", "why it was refused"),
        _c("seconds", "DOUBLE", "time spent on the file (the one column that varies by run)"),
        _SHARD,
    ),
    "components": (
        _PATH,
        _c("slot_id", "VARCHAR", "ID of the component's slot (null: root Assets)"),
        _c("slot_path", "VARCHAR", "the slot's path, bounded (…/ and the tail when long)"),
        _c("component_id", "VARCHAR", "the component's ID"),
        _c("type", "VARCHAR", "type name as written ([Assembly]Namespace.Type<args>)"),
        _c("type_full_name", "VARCHAR", "namespace-qualified name without assembly and args"),
        _c("type_name", "VARCHAR", "short name (MeshRenderer)"),
        _SHARD,
    ),
    "types": (
        _PATH,
        _c("type", "VARCHAR", "type name as written"),
        _c("type_full_name", "VARCHAR", "namespace-qualified name"),
        _c("type_name", "VARCHAR", "short name"),
        _c("assembly", "VARCHAR", "assembly ([FrooxEngine]); null in NeosVR names"),
        _c("components", "BIGINT", "components of this type in the file (0: listed, unused)"),
        _SHARD,
    ),
    "assets": (
        _PATH,
        _c("url", "VARCHAR", "the URL as stored (without the leading @)"),
        _c("scheme", "VARCHAR", "packdb, resdb (neosdb too) or local"),
        _c("hash", "VARCHAR", "sha256 for packdb/resdb, file name for local"),
        _c("ext", "VARCHAR", "extension in the URL (.png), may be empty"),
        _c("component_id", "VARCHAR", "the component holding the URL"),
        _c("component_type", "VARCHAR", "its type name as written"),
        _c("member", "VARCHAR", "the field holding it (URL, Materials[0] for list elements)"),
        _c("slot_path", "VARCHAR", "the component's slot path (bounded)"),
        _c("size", "BIGINT", "asset size when the package holds it, else null"),
        _SHARD,
    ),
    "findings": (
        _PATH,
        _c("rule", "VARCHAR", "validate rule code (BR401), docs/validation.md"),
        _c("severity", "VARCHAR", "error, warning or info"),
        _c("slot_path", "VARCHAR", "where in the tree"),
        _c("message", "VARCHAR", "the finding"),
        _c("offset", "BIGINT", "byte offset, for container/codec/BSON rules"),
        _SHARD,
    ),
    "slots": (
        _PATH,
        _c("slot_id", "VARCHAR", "the slot's ID"),
        _c("parent_id", "VARCHAR", "its parent's ID (null for the root)"),
        _c("slot_path", "VARCHAR", "path (bounded)"),
        _c("name", "VARCHAR", "name"),
        _c("depth", "BIGINT", "0 for the root"),
        _c("components", "BIGINT", "components on the slot"),
        _SHARD,
    ),
    "refs": (
        _PATH,
        _c("source", "VARCHAR", "where the reference sits (Slot/Path:Component.Field)"),
        _c("member_id", "VARCHAR", "ID of the member holding it"),
        _c("target_id", "VARCHAR", "the ID it names"),
        _c("internal", "BOOLEAN", "true when an element of the same file has that ID"),
        _SHARD,
    ),
}

#: Tables written only when asked (``--slots``, ``--refs``): large, one row per slot/reference.
OPTIONAL = ("slots", "refs")

_ARROW = {
    "VARCHAR": "string",
    "BIGINT": "int64",
    "INTEGER": "int32",
    "DOUBLE": "float64",
    "BOOLEAN": "bool_",
}


def arrow_schema(table: str) -> Any:
    """The pyarrow schema of ``table`` (imported here: the worker writes Parquet)."""
    pa = need("pyarrow")
    return pa.schema([pa.field(c.name, getattr(pa, _ARROW[c.sql])()) for c in TABLES[table]])


def ddl() -> str:
    """``CREATE TABLE`` statements for every table, each column commented (docs/scan-tables.sql)."""
    out = [
        "-- The tables of a brson scan index (generated from brson/scan/schema.py by",
        "-- `brson.scan.schema.ddl()`; tests/scan/test_cli.py checks it is current).",
        "-- Stored as Parquet shards; brson.duckdb has one view per table over them, without",
        "-- the shard column and with only each file's current rows (docs/scan.md).",
        "",
    ]
    for name, columns in TABLES.items():
        optional = " (only with --slots)" if name == "slots" else ""
        optional = " (only with --refs)" if name == "refs" else optional
        out.append(f"-- {name}{optional}")
        out.append(f"CREATE TABLE {name} (")
        width = max(len(c.name) for c in columns)
        for i, column in enumerate(columns):
            comma = "," if i < len(columns) - 1 else ""
            out.append(f"    {column.name.ljust(width)} {column.sql}{comma}  -- {column.doc}")
        out.append(");")
        out.append("")
    return "\n".join(out)
