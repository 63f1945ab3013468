"""BR1xx: reading the file: container header, codec, decompression, trailing bytes, BSON framing.

Reading goes through the same layers as :func:`brson.loads` (``container.unpack``, then the
BSON framing check), but every refusal becomes a finding instead of an exception, and a
document without ``Object`` is still handed on (the document rules report that, next to
everything else wrong with the file).
"""

from __future__ import annotations

import os

from brson.codecs import limits
from brson.container import is_package_name, unpack
from brson.document import bsondoc
from brson.errors import (
    BrsonError,
    CodecError,
    ContainerError,
    DocumentError,
    LimitError,
    PackageError,
)
from brson.fileio import FileError, read_bytes
from brson.model.tree import DataTree
from brson.ops.validate.document import NOT_MODELLED
from brson.ops.validate.findings import ERROR, WARNING, Findings, rule

FILE = rule(
    "BR101",
    ERROR,
    "file cannot be read",
    "Missing, a directory, or no permission: nothing else can be checked.",
    "`brson.fileio.read_bytes`",
    unreadable=True,
)
HEADER = rule(
    "BR102",
    ERROR,
    "container header invalid",
    "No `FrDT` magic and no recognisable legacy codec, an FrDT version other than 0, an "
    "unknown compression kind, a truncated header, or an empty file: the engine refuses it.",
    "format notes §1; fixtures `empty`, `header_only`, `version1`, `kind9`, `noise`",
    unreadable=True,
)
CODEC = rule(
    "BR103",
    ERROR,
    "compressed data corrupt or truncated",
    "The Brotli/LZMA/LZ4 stream does not decode to the end.",
    "fixtures `truncated*`, `noise_frdt`",
    unreadable=True,
)
LIMIT = rule(
    "BR104",
    ERROR,
    "decompressed size over the limit",
    "A decompression bomb, or a file larger than `--max-size` (default 4 GiB): refused "
    "before the memory is allocated.",
    "fixtures `bomb*`",
    unreadable=True,
)
TRAILING = rule(
    "BR105",
    ERROR,
    "trailing bytes",
    "Bytes after the compressed stream or after the BSON document: the engine reads exactly "
    "one document and fails on the rest.",
    "format notes §1 (one BSON document, trailing bytes are an error); fixtures `trailing_*`",
    unreadable=True,
)
BSON = rule(
    "BR106",
    ERROR,
    "BSON malformed",
    "The payload is not one well-formed BSON document (length prefix, element framing, "
    "UTF-8 keys and strings, nesting).",
    "fixtures `length_lie`, `not_bson`",
    unreadable=True,
)
PACKAGE = rule(
    "BR107",
    ERROR,
    "package malformed",
    "A `.resonitepackage` without a record or main tree, with a hash mismatch, escaping "
    "entry names or oversized entries.",
    "`brson.package`; docs/package.md",
    unreadable=True,
)
EXTENSION = rule(
    "BR108",
    WARNING,
    "extension disagrees with the content",
    "The engine picks the reader by extension: a `.lz4bson` holding LZMA data fails to "
    "import even though brson reads it.",
    "format notes §1 (how the engine picks a reader); fixtures `misnamed*`",
)
LZ4_FRAME = rule(
    "BR109",
    WARNING,
    "LZ4 frame instead of the engine's chunk framing",
    "Resonite writes (and reads) the chunked framing of its lz4net fork; the LZ4 frame "
    "format comes from other tools and only a development build of the engine read it.",
    "format notes §1 (LZ4); fixture `tiny_frame.lz4bson`",
)
PACKAGE_CONSISTENCY = rule(
    "BR110",
    WARNING,
    "package inconsistent",
    "An asset missing from `assetManifest`, a manifest entry without its asset, metadata "
    "for an absent asset, or an asset whose name is not a sha256: the engine imports it, "
    "but the package does not describe itself correctly.",
    "`brson.package` warnings; docs/package.md",
)


def report_error(findings: Findings, exc: BrsonError, file: str | None = None) -> None:
    """A refusal from the container, codec, BSON or package layer as the finding it is."""
    trailing = "trailing bytes" in exc.message
    if isinstance(exc, FileError):
        kind = FILE
    elif isinstance(exc, PackageError):
        kind = PACKAGE
    elif isinstance(exc, LimitError):
        kind = LIMIT
    elif isinstance(exc, CodecError):
        kind = TRAILING if trailing else CODEC
    elif isinstance(exc, ContainerError):
        kind = HEADER
    elif isinstance(exc, DocumentError):
        kind = TRAILING if trailing else BSON
    else:
        kind = NOT_MODELLED
    message, where = exc.message, findings.file or file
    if exc.file and where and exc.file != where:  # inside a package: name the entry
        message = f"{exc.file.removeprefix(where + '!')}: {message}"
    findings.add(kind, message, path=exc.path, offset=exc.offset, file=where or exc.file)


def read(
    source: str | os.PathLike[str] | bytes,
    findings: Findings,
    *,
    name: str | None = None,
    max_size: int = limits.DEFAULT_MAX_SIZE,
) -> DataTree | None:
    """The data tree of a file or of archive bytes, or None when it cannot be read (the
    reason is in ``findings``)."""
    try:
        if isinstance(source, bytes | bytearray | memoryview):
            return _from_bytes(bytes(source), findings, name, max_size)
        path = os.fspath(source)
        if is_package_name(path):
            return _from_package(path, findings, max_size)
        return _from_bytes(read_bytes(path, max_size), findings, path, max_size)
    except BrsonError as exc:
        report_error(findings, exc, name)
        return None


def _from_bytes(data: bytes, findings: Findings, name: str | None, max_size: int) -> DataTree:
    container, bson_bytes = unpack(data, name, max_size)
    bsondoc.check_framing(bson_bytes)
    tree = DataTree(bson_bytes, container, name)
    for warning in container.warnings:
        findings.add(EXTENSION, warning, offset=0)
    if container.lz4_framing == "frame":
        findings.add(
            LZ4_FRAME,
            "the payload is an LZ4 frame; Resonite reads lz4net chunks",
            offset=container.header_size,
        )
    return tree


def _from_package(path: str, findings: Findings, max_size: int) -> DataTree:
    from brson import package  # only needed for packages

    pkg = package.load_package(path, max_size=max_size)
    tree = pkg.tree
    container = tree.container
    for warning in pkg.warnings:
        findings.add(PACKAGE_CONSISTENCY, warning, file=path)
    if container is not None:
        known = set(pkg.warnings)  # a list lookup per warning was quadratic
        for warning in container.warnings:
            if warning not in known:
                findings.add(EXTENSION, f"main tree: {warning}")
        if container.lz4_framing == "frame":
            findings.add(LZ4_FRAME, "the main tree is an LZ4 frame; Resonite reads lz4net chunks")
    return tree
