-- The tables of a brson scan index (generated from brson/scan/schema.py by
-- `brson.scan.schema.ddl()`; tests/scan/test_cli.py checks it is current).
-- Stored as Parquet shards; brson.duckdb has one view per table over them, without
-- the shard column and with only each file's current rows (docs/scan.md).

-- files
CREATE TABLE files (
    path           VARCHAR,  -- the archive or package file (absolute path)
    size           BIGINT,  -- file size in bytes
    mtime_ns       BIGINT,  -- modification time, ns since the epoch
    sha256         VARCHAR,  -- sha256 of the file's bytes
    kind           VARCHAR,  -- archive or package
    container      VARCHAR,  -- frdt or legacy (headerless NeosVR framing)
    codec          VARCHAR,  -- none, lz4, lzma or brotli (a package: its main tree's)
    lz4_framing    VARCHAR,  -- chunks (the engine's) or frame, for LZ4
    engine_version VARCHAR,  -- VersionNumber of the writing engine
    generation     VARCHAR,  -- resonite (a Types table) or neosvr
    root_name      VARCHAR,  -- name of the root slot (the item's name)
    tree_sha256    VARCHAR,  -- sha256 of the main tree's BSON: equal trees, any codec
    slots          BIGINT,  -- slots in the tree
    components     BIGINT,  -- components on slots and in the root Assets
    types          BIGINT,  -- distinct component types
    assets         BIGINT,  -- asset URLs the tree references
    package_assets BIGINT,  -- assets the package holds besides the main tree
    errors         BIGINT,  -- validate findings of severity error (null: --no-validate)
    warnings       BIGINT,  -- validate findings of severity warning
    status         VARCHAR,  -- ok, error (could not be parsed) or deleted (gone from disk)
    error_layer    VARCHAR,  -- the layer that refused the file: file, container, ...
    error_message  VARCHAR,  -- why it was refused
    seconds        DOUBLE,  -- time spent on the file (the one column that varies by run)
    shard          VARCHAR  -- the shard that wrote the row (bookkeeping; hidden by the views)
);

-- components
CREATE TABLE components (
    path           VARCHAR,  -- the archive or package file (absolute path)
    slot_id        VARCHAR,  -- ID of the component's slot (null: root Assets)
    slot_path      VARCHAR,  -- the slot's path, bounded (…/ and the tail when long)
    component_id   VARCHAR,  -- the component's ID
    type           VARCHAR,  -- type name as written ([Assembly]Namespace.Type<args>)
    type_full_name VARCHAR,  -- namespace-qualified name without assembly and args
    type_name      VARCHAR,  -- short name (MeshRenderer)
    shard          VARCHAR  -- the shard that wrote the row (bookkeeping; hidden by the views)
);

-- types
CREATE TABLE types (
    path           VARCHAR,  -- the archive or package file (absolute path)
    type           VARCHAR,  -- type name as written
    type_full_name VARCHAR,  -- namespace-qualified name
    type_name      VARCHAR,  -- short name
    assembly       VARCHAR,  -- assembly ([FrooxEngine]); null in NeosVR names
    components     BIGINT,  -- components of this type in the file (0: listed, unused)
    shard          VARCHAR  -- the shard that wrote the row (bookkeeping; hidden by the views)
);

-- assets
CREATE TABLE assets (
    path           VARCHAR,  -- the archive or package file (absolute path)
    url            VARCHAR,  -- the URL as stored (without the leading @)
    scheme         VARCHAR,  -- packdb, resdb (neosdb too) or local
    hash           VARCHAR,  -- sha256 for packdb/resdb, file name for local
    ext            VARCHAR,  -- extension in the URL (.png), may be empty
    component_id   VARCHAR,  -- the component holding the URL
    component_type VARCHAR,  -- its type name as written
    member         VARCHAR,  -- the field holding it (URL, Materials[0] for list elements)
    slot_path      VARCHAR,  -- the component's slot path (bounded)
    size           BIGINT,  -- asset size when the package holds it, else null
    shard          VARCHAR  -- the shard that wrote the row (bookkeeping; hidden by the views)
);

-- findings
CREATE TABLE findings (
    path      VARCHAR,  -- the archive or package file (absolute path)
    rule      VARCHAR,  -- validate rule code (BR401), docs/validation.md
    severity  VARCHAR,  -- error, warning or info
    slot_path VARCHAR,  -- where in the tree
    message   VARCHAR,  -- the finding
    offset    BIGINT,  -- byte offset, for container/codec/BSON rules
    shard     VARCHAR  -- the shard that wrote the row (bookkeeping; hidden by the views)
);

-- slots (only with --slots)
CREATE TABLE slots (
    path       VARCHAR,  -- the archive or package file (absolute path)
    slot_id    VARCHAR,  -- the slot's ID
    parent_id  VARCHAR,  -- its parent's ID (null for the root)
    slot_path  VARCHAR,  -- path (bounded)
    name       VARCHAR,  -- name
    depth      BIGINT,  -- 0 for the root
    components BIGINT,  -- components on the slot
    shard      VARCHAR  -- the shard that wrote the row (bookkeeping; hidden by the views)
);

-- refs (only with --refs)
CREATE TABLE refs (
    path      VARCHAR,  -- the archive or package file (absolute path)
    source    VARCHAR,  -- where the reference sits (Slot/Path:Component.Field)
    member_id VARCHAR,  -- ID of the member holding it
    target_id VARCHAR,  -- the ID it names
    internal  BOOLEAN,  -- true when an element of the same file has that ID
    shard     VARCHAR  -- the shard that wrote the row (bookkeeping; hidden by the views)
);
