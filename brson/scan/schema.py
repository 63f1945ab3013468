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


_PATH = Column("path", "VARCHAR", "the archive or package file (absolute path)")
_SHARD = Column(
    "shard", "VARCHAR", "the shard that wrote the row (bookkeeping; hidden by the views)"
)

#: A table's name on a line of its own, then a line a column: its name, SQL type and meaning.
_SPEC = """
files
    size           BIGINT  file size in bytes
    mtime_ns       BIGINT  modification time, ns since the epoch
    sha256         VARCHAR sha256 of the file's bytes
    kind           VARCHAR archive or package
    container      VARCHAR frdt or legacy (headerless NeosVR framing)
    codec          VARCHAR none, lz4, lzma or brotli (a package: its main tree's)
    lz4_framing    VARCHAR chunks (the engine's) or frame, for LZ4
    engine_version VARCHAR VersionNumber of the writing engine
    generation     VARCHAR resonite (a Types table) or neosvr
    root_name      VARCHAR name of the root slot (the item's name)
    tree_sha256    VARCHAR sha256 of the main tree's BSON: equal trees, any codec
    slots          BIGINT  slots in the tree
    components     BIGINT  components on slots and in the root Assets
    types          BIGINT  distinct component types
    assets         BIGINT  asset URLs the tree references
    package_assets BIGINT  assets the package holds besides the main tree
    errors         BIGINT  validate findings of severity error (null: --no-validate)
    warnings       BIGINT  validate findings of severity warning
    status         VARCHAR ok, error (could not be parsed) or deleted (gone from disk)
    error_layer    VARCHAR the layer that refused the file: file, container, ...
    error_message  VARCHAR why it was refused
    seconds        DOUBLE  time spent on the file (the one column that varies by run)
components
    slot_id        VARCHAR ID of the component's slot (null: root Assets)
    slot_path      VARCHAR the slot's path, bounded (…/ and the tail when long)
    component_id   VARCHAR the component's ID
    type           VARCHAR type name as written ([Assembly]Namespace.Type<args>)
    type_full_name VARCHAR namespace-qualified name without assembly and args
    type_name      VARCHAR short name (MeshRenderer)
types
    type           VARCHAR type name as written
    type_full_name VARCHAR namespace-qualified name
    type_name      VARCHAR short name
    assembly       VARCHAR assembly ([FrooxEngine]); null in NeosVR names
    components     BIGINT  components of this type in the file (0: listed, unused)
assets
    url            VARCHAR the URL as stored (without the leading @)
    scheme         VARCHAR packdb, resdb (neosdb too) or local
    hash           VARCHAR sha256 for packdb/resdb, file name for local
    ext            VARCHAR extension in the URL (.png), may be empty
    component_id   VARCHAR the component holding the URL
    component_type VARCHAR its type name as written
    member         VARCHAR the field holding it (URL, Materials[0] for list elements)
    slot_path      VARCHAR the component's slot path (bounded)
    size           BIGINT  asset size when the package holds it, else null
findings
    rule           VARCHAR validate rule code (BR401), docs/validation.md
    severity       VARCHAR error, warning or info
    slot_path      VARCHAR where in the tree
    message        VARCHAR the finding
    offset         BIGINT  byte offset, for container/codec/BSON rules
slots
    slot_id        VARCHAR the slot's ID
    parent_id      VARCHAR its parent's ID (null for the root)
    slot_path      VARCHAR path (bounded)
    name           VARCHAR name
    depth          BIGINT  0 for the root
    components     BIGINT  components on the slot
refs
    source         VARCHAR where the reference sits (Slot/Path:Component.Field)
    member_id      VARCHAR ID of the member holding it
    target_id      VARCHAR the ID it names
    internal       BOOLEAN true when an element of the same file has that ID
"""


def _tables(spec: str) -> dict[str, tuple[Column, ...]]:
    """:data:`_SPEC` read: every table between its ``path`` and ``shard`` columns."""
    tables: dict[str, list[Column]] = {}
    columns: list[Column] = []
    for line in spec.strip().splitlines():
        if line.startswith(" "):
            name, sql, doc = line.split(maxsplit=2)
            columns.append(Column(name, sql, doc))
        else:
            columns = tables[line] = [_PATH]
    return {name: (*columns, _SHARD) for name, columns in tables.items()}


TABLES = _tables(_SPEC)

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
