"""``.resonitepackage``: the zip Resonite exports an item as (reader and writer side by side).

Layout (docs/package.md has the evidence)::

    R-Main.record                    JSON record; assetUri = packdb:///<sha256 of the main tree>
    Assets/<sha256>                  the main data tree (FrDT Brotli) and every dependent asset
    Metadata/<sha256>.<kind>         JSON facts about an asset (bitmap, cubemap, mesh, shader)

A package comes from strangers, so reading treats it as hostile: entry names that would escape
a folder, duplicated names, sizes beyond the limit (declared or actual, streamed), a missing
record or main tree, and content whose sha256 is not its name are errors (:class:`PackageError`).
Inconsistencies that leave every byte readable (an asset missing from ``assetManifest`` or a
manifest entry without its asset, metadata for an absent asset) are warnings: the engine
imports such packages, and refusing them would leave the user with no tool to fix them.

Writing keeps a package consistent by construction: asset names are the sha256 of their bytes,
``assetUri`` and ``assetManifest`` are recomputed, the record keeps its key order, and the file
is written atomically.  Assets are read lazily (a package can carry hundreds of MiB of
textures that a ``brson info`` never needs).
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import os
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from brson.codecs import Codec, limits
from brson.container import PACKAGE_SUFFIX
from brson.document.jsonform import parse_json
from brson.errors import BrsonError, LimitError, PackageError
from brson.fileio import read_bytes, write_atomic
from brson.lazymap import LazyMapping
from brson.model.archive import read_archive, write_archive
from brson.model.tree import DataTree

SUFFIX = PACKAGE_SUFFIX
MAIN_RECORD = "R-Main.record"
ASSETS_DIR = "Assets/"
METADATA_DIR = "Metadata/"
#: The scheme of URLs naming an asset inside the package (stored in BSON with a leading ``@``).
PACKDB = "packdb:///"

_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
#: A packdb URL stored as a BSON string element: ``\x02 key \x00 int32 "@packdb:///name"``.
#: (``@@`` marks a literal string that merely starts with ``@``, so it does not match.)
_PACKDB_URL = re.compile(rb"@packdb:///([^\x00?#/]+)")
#: Longest member key looked back over to find a packdb URL's element (real keys: ``Data``).
_MAX_KEY = 256


def _packdb_elements(data: bytes) -> Iterator[tuple[int, re.Match[bytes]]]:
    """Each ``@packdb:///name`` that starts a BSON string value: found by its literal text,
    then checked backwards (a key's terminating NUL, then the int32 length that ends exactly
    at the string's own NUL). A pattern that scanned a key forward from every ``\x02`` byte
    was quadratic on a run of them (a 940-byte package took 23 s)."""
    for match in _PACKDB_URL.finditer(data):
        start = match.start()
        if start < 5 or data[start - 5] != 0:
            continue
        length = int.from_bytes(data[start - 4 : start], "little", signed=True)
        end = start + length - 1
        if length > 0 and end < len(data) and data[end] == 0:
            # The element's type byte: the nearest 0x02 before a NUL-free key (keys are short;
            # the look-back is bounded, so the scan stays linear).
            key_end = start - 5
            floor = max(0, key_end - _MAX_KEY)
            head = data.rfind(b"\x02", floor, key_end)
            if head >= 0 and data.find(b"\x00", head + 1, key_end) < 0:
                yield head, match


#: What Python's zipfile and its decompressors raise on a corrupt or unsupported zip
#: (encrypted entries raise RuntimeError, unknown versions/methods NotImplementedError).
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    lzma.LZMAError,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    RuntimeError,
)
#: Reads are streamed in steps of this size so a lying entry cannot allocate past the limit.
_CHUNK = 1 << 20


class PackageLimitError(PackageError, LimitError):
    """A package entry would expand past the limit (a zip bomb): both a package error and a
    limit error, so either ``except`` catches it."""

    layer = "package"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def packdb_url(name: str) -> str:
    """The URL string as stored in a data tree (``@`` marks a URI in the BSON)."""
    return f"@{PACKDB}{name}"


@dataclass(frozen=True)
class AssetMetadata:
    """One ``Metadata/<name>.<kind>`` entry; the bytes are kept as written (the engine's JSON
    has its own spelling, e.g. ``assetIdenfitier``, that a re-dump must not "fix")."""

    kind: str
    raw: bytes

    @property
    def data(self) -> Any:
        try:
            return parse_json(self.raw)
        except ValueError:
            return None


class _Zip:
    """The package's zip, opened once; every read is bounded and hash-checked."""

    def __init__(self, data: bytes, path: str, max_size: int) -> None:
        self.path = path
        self.max_size = max_size
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except _ZIP_ERRORS as exc:
            raise PackageError(f"not a readable zip ({exc})", file=path) from None
        self.entries: dict[str, zipfile.ZipInfo] = {}
        declared = 0
        for info in infos:
            name = info.filename
            if name.endswith("/"):  # not info.is_dir(): an empty name breaks it (fuzz)
                continue
            check_entry_name(name, path)
            if name in self.entries:
                raise PackageError(f"the zip holds {name!r} twice", file=path)
            if info.file_size > max_size:
                raise PackageLimitError(
                    f"entry {name!r} declares {info.file_size} bytes, over the limit of "
                    f"{max_size} (raise it with max_size=... or --max-size if trusted)",
                    file=path,
                )
            declared += info.file_size
            self.entries[name] = info
        if declared > max_size:
            raise PackageLimitError(
                f"the entries declare {declared} bytes in all, over the limit of {max_size} "
                "(raise it with max_size=... or --max-size if trusted)",
                file=path,
            )

    def read(self, name: str) -> bytes:
        info = self.entries[name]
        cap = min(info.file_size, self.max_size)
        out = bytearray()
        try:
            with self.zip.open(info) as handle:
                while True:
                    chunk = handle.read(_CHUNK)
                    if not chunk:
                        break
                    out += chunk
                    if len(out) > cap:
                        raise PackageLimitError(
                            f"entry {name!r} expands past its declared size ({cap} bytes)",
                            file=self.path,
                        )
        except BrsonError:
            raise
        except _ZIP_ERRORS as exc:
            raise PackageError(f"cannot read {name!r} ({exc})", file=self.path) from None
        return bytes(out)


def check_entry_name(name: str, where: str | None = None) -> None:
    """Refuse a path that could land outside a target folder (zip slip)."""
    parts = name.split("/")
    if (
        not name
        or name.startswith(("/", "\\"))
        or "\\" in name
        or "\x00" in name
        or re.match(r"[A-Za-z]:", name)
        or any(part in ("", ".", "..") for part in parts)
    ):
        raise PackageError(f"entry name {name!r} could escape its folder; refusing it", file=where)


class Assets(LazyMapping[bytes]):
    """Asset name -> bytes, read from the zip on first access and checked against the name."""

    def __init__(self, source: _Zip | None, names: Iterable[str]) -> None:
        super().__init__(names)
        self._source = source

    def _make(self, name: str) -> bytes:
        if self._source is None:
            raise KeyError(name)
        data = self._source.read(ASSETS_DIR + name)
        verify_asset(name, data, self._source.path)
        return data

    def size(self, name: str) -> int:
        """The asset's size without reading it (the zip's declared size)."""
        if name in self._made:
            return len(self._made[name])
        if self._source is None or name not in self:
            raise KeyError(name)
        return self._source.entries[ASSETS_DIR + name].file_size


def verify_asset(name: str, data: bytes, where: str | None) -> None:
    if _SHA256.match(name) and sha256_hex(data) != name:
        raise PackageError(
            f"asset {name} does not match its sha256 ({sha256_hex(data)}): corrupt or tampered",
            file=where,
        )


@dataclass
class Package:
    """A loaded package: the record, its main data tree, and the other entries."""

    record: dict[str, Any]
    tree: DataTree
    #: The dependent assets (every ``Assets/`` entry except the main tree), read lazily.
    assets: Mapping[str, bytes]
    #: Asset name -> its ``Metadata/`` entry.
    metadata: dict[str, AssetMetadata] = field(default_factory=dict)
    #: Entries brson does not interpret (other records…), kept to be written back.
    extra: dict[str, bytes] = field(default_factory=dict)
    #: The asset name of the main tree (sha256 of its archive bytes).
    main: str = ""
    path: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: The main tree's archive bytes as stored (empty for a package built in memory).
    main_bytes: bytes = b""

    def save(self, path: str | os.PathLike[str]) -> None:
        write_package(
            path, self.tree, self.record, self.assets, metadata=self.metadata, extra=self.extra
        )

    def for_tree(self, tree: DataTree, name: str | None = None) -> Package:
        """A package for another tree made from this one's content (an extracted slot): the
        assets the tree's ``packdb:///`` URLs name with their metadata, and this record
        (renamed when ``name`` is given).  Other entries describe the whole item; not kept."""
        wanted = packdb_names(tree.to_bson())
        missing = [n for n in wanted if n not in self.assets]
        if missing:
            raise PackageError(
                "the tree names assets this package does not hold: " + ", ".join(missing),
                file=self.path,
            )
        record = dict(self.record)
        if name is not None:
            record["name"] = name
        assets = {n: self.assets[n] for n in wanted}
        metadata = {n: self.metadata[n] for n in wanted if n in self.metadata}
        return Package(record, tree, assets, metadata, {}, "", None, [])


def load_package(
    path: str | os.PathLike[str], *, max_size: int = limits.DEFAULT_MAX_SIZE
) -> Package:
    """Read a package file (see :func:`loads_package`)."""
    name = os.fspath(path)
    return loads_package(read_bytes(name, max_size), name=name, max_size=max_size)


def loads_package(
    data: bytes, *, name: str = "<package>", max_size: int = limits.DEFAULT_MAX_SIZE
) -> Package:
    """Read a package from bytes: record and main tree now, other assets on access."""
    source = _Zip(data, name, max_size)
    entries = source.entries
    if MAIN_RECORD not in entries:
        raise PackageError(f"no {MAIN_RECORD} in the package", file=name)
    record = _parse_record(source.read(MAIN_RECORD), name)
    uri = record.get("assetUri")
    if not isinstance(uri, str) or not uri.startswith(PACKDB):
        raise PackageError(
            f"{MAIN_RECORD} assetUri is {uri!r}, not a {PACKDB}<sha256> URL", file=name
        )
    main = uri[len(PACKDB) :]
    if ASSETS_DIR + main not in entries:
        raise PackageError(f"the main data tree Assets/{main} is missing", file=name)
    main_bytes = source.read(ASSETS_DIR + main)
    verify_asset(main, main_bytes, name)
    tree = read_archive(main_bytes, f"{name}!{ASSETS_DIR}{main}", max_size)

    warnings: list[str] = []
    names: list[str] = []
    metadata: dict[str, AssetMetadata] = {}
    extra: dict[str, bytes] = {}
    for entry in entries:
        if entry.startswith(ASSETS_DIR) and "/" not in entry[len(ASSETS_DIR) :]:
            asset = entry[len(ASSETS_DIR) :]
            if asset != main:
                names.append(asset)
            if not _SHA256.match(asset):
                warnings.append(f"asset name {asset!r} is not a sha256; not verified")
        elif entry.startswith(METADATA_DIR) and "." in entry[len(METADATA_DIR) :]:
            asset, _, kind = entry[len(METADATA_DIR) :].partition(".")
            metadata[asset] = AssetMetadata(kind, source.read(entry))
        elif entry != MAIN_RECORD:
            extra[entry] = source.read(entry)
    assets = Assets(source, names)
    warnings += _manifest_warnings(record, assets, metadata, main)
    if warnings and tree.container is not None:
        tree.container = replace(tree.container, warnings=(*tree.container.warnings, *warnings))
    return Package(record, tree, assets, metadata, extra, main, name, warnings, main_bytes)


def new_record(name: str, when: datetime | None = None) -> dict[str, Any]:
    """A record for a new package, keys in the engine's order (``assetUri`` and
    ``assetManifest`` are filled in when it is written)."""
    moment = (when or datetime.now(UTC)).astimezone(UTC)
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond:06d}0Z"
    return {
        "id": "R-Main",
        "ownerId": None,
        "assetUri": None,
        "version": {
            "globalVersion": 0,
            "localVersion": 0,
            "lastModifyingUserId": None,
            "lastModifyingMachineId": None,
        },
        "name": name,
        "description": None,
        "recordType": "object",
        "ownerName": None,
        "tags": None,
        "path": None,
        "thumbnailUri": None,
        "lastModificationTime": stamp,
        "creationTime": stamp,
        "firstPublishTime": None,
        "isDeleted": False,
        "isPublic": False,
        "isForPatrons": False,
        "isListed": False,
        "isReadOnly": False,
        "visits": 0,
        "rating": 0,
        "randomOrder": 0,
        "submissions": None,
        "assetManifest": [],
        "migrationMetadata": None,
    }


def _parse_record(data: bytes, where: str) -> dict[str, Any]:
    try:
        record = parse_json(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise PackageError(f"{MAIN_RECORD} is not JSON ({exc})", file=where) from None
    if not isinstance(record, dict):
        raise PackageError(f"{MAIN_RECORD} is not a JSON object", file=where)
    return record


def _manifest_warnings(
    record: dict[str, Any], assets: Assets, metadata: Mapping[str, AssetMetadata], main: str
) -> list[str]:
    out = []
    manifest = record.get("assetManifest")
    listed: dict[str, Any] = {}
    if isinstance(manifest, list):
        for item in manifest:
            if isinstance(item, dict) and isinstance(item.get("hash"), str):
                listed[item["hash"]] = item.get("bytes")
    elif manifest is not None:
        out.append("assetManifest is not a list")
    for name, size in listed.items():
        if name not in assets:
            out.append(f"assetManifest lists {name} but the package does not hold it")
        elif isinstance(size, int) and size != assets.size(name):
            out.append(
                f"assetManifest says {name} has {size} bytes, the package holds {assets.size(name)}"
            )
    for name in assets:
        if name not in listed:
            out.append(f"asset {name} is not in assetManifest")
    for name in metadata:
        if name not in assets and name != main:
            out.append(f"Metadata for {name} names no asset in the package")
    return out


#: Leading bytes of the file kinds packages carry, for naming exports and listings.
_MAGIC = (
    (b"FrDT", "data tree", ".brson"),
    (b"\x89PNG\r\n\x1a\n", "png", ".png"),
    (b"\xff\xd8\xff", "jpeg", ".jpg"),
    (b"GIF8", "gif", ".gif"),
    (b"OggS", "ogg", ".ogg"),
    (b"fLaC", "flac", ".flac"),
    (b"glTF", "glb", ".glb"),
    (b"PK\x03\x04", "zip", ".zip"),
)


def sniff_kind(data: bytes) -> tuple[str, str]:
    """(kind, file extension) of an asset from its first bytes; ("data", "") when unknown."""
    for magic, kind, ext in _MAGIC:
        if data.startswith(magic):
            return kind, ext
    if data[:4] == b"RIFF" and data[8:12] in (b"WEBP", b"WAVE"):
        return ("webp", ".webp") if data[8:12] == b"WEBP" else ("wav", ".wav")
    return "data", ""


# -- references from the tree ---------------------------------------------------------------
def packdb_names(bson_bytes: bytes) -> list[str]:
    """Asset names the tree's ``@packdb:///`` URLs name, in first-use order."""
    seen: dict[str, None] = {}
    for _, match in _packdb_elements(bson_bytes):
        seen.setdefault(match.group(1).decode("utf-8", "replace"), None)
    return list(seen)


def packdb_references(tree: DataTree) -> dict[str, list[str]]:
    """Asset name -> where the tree names it (``Slot/Path:Component.Field``), in file order."""
    from brson.model.ids.locate import Location, locate

    if tree.modified:
        tree = DataTree(tree.to_bson())
    out: dict[str, list[str]] = {}
    for head, match in _packdb_elements(tree.buffer):
        name = match.group(1).decode("utf-8", "replace")
        found = locate(tree, head)
        where = Location(*found).describe() if found else "<unknown>"
        out.setdefault(name, []).append(where)
    return out


# -- writing --------------------------------------------------------------------------------
def write_package(
    path: str | os.PathLike[str],
    tree: DataTree,
    record: Mapping[str, Any],
    assets: Mapping[str, bytes] | Iterable[bytes] = (),
    *,
    metadata: Mapping[str, AssetMetadata] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> None:
    """Write a consistent package atomically (see :func:`dumps_package`)."""
    name = os.fspath(path)
    try:
        data = dumps_package(tree, record, assets, metadata=metadata, extra=extra)
    except BrsonError as exc:
        raise exc.in_file(name) from None
    write_atomic(name, data)


def dumps_package(
    tree: DataTree,
    record: Mapping[str, Any],
    assets: Mapping[str, bytes] | Iterable[bytes] = (),
    *,
    metadata: Mapping[str, AssetMetadata] | None = None,
    extra: Mapping[str, bytes] | None = None,
) -> bytes:
    """Package bytes: the main tree as FrDT Brotli, ``assets`` named by their sha256.

    ``assets`` given as a mapping must already be keyed by sha256 (a different name would
    leave the tree's ``packdb:///`` URLs pointing nowhere, so it is refused, not renamed);
    every asset the tree names must be given.  The record's ``assetUri`` and
    ``assetManifest`` are recomputed; other keys keep their values and order.
    """
    main_bytes = write_archive(tree, Codec.BROTLI)
    main = sha256_hex(main_bytes)
    blobs: dict[str, bytes] = {}
    if isinstance(assets, Mapping):
        for key in assets:
            data = assets[key]
            digest = sha256_hex(data)
            if key != digest:
                raise PackageError(f"asset {key!r} is not named by its sha256 ({digest})")
            blobs[digest] = data
    else:
        for data in assets:
            blobs[sha256_hex(data)] = data
    blobs.pop(main, None)
    missing = [n for n in packdb_names(tree.to_bson()) if n not in blobs and n != main]
    if missing:
        raise PackageError("the tree names assets that were not given: " + ", ".join(missing))

    out_record = dict(record)
    out_record["assetUri"] = PACKDB + main
    order = [
        item.get("hash") for item in record.get("assetManifest") or [] if isinstance(item, dict)
    ]
    names = [n for n in order if n in blobs] + [n for n in blobs if n not in order]
    out_record["assetManifest"] = [{"hash": n, "bytes": len(blobs[n])} for n in names]

    stamp = _timestamp(out_record.get("lastModificationTime"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:

        def put(entry: str, data: bytes, compress: bool = True) -> None:
            check_entry_name(entry)
            info = zipfile.ZipInfo(entry, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)

        for asset in names:  # dependent assets first, as the engine writes them
            put(ASSETS_DIR + asset, blobs[asset], _worth_deflating(blobs[asset]))
            meta = (metadata or {}).get(asset)
            if meta is not None:
                put(f"{METADATA_DIR}{asset}.{meta.kind}", meta.raw)
        put(ASSETS_DIR + main, main_bytes, _worth_deflating(main_bytes))
        main_meta = (metadata or {}).get(main)  # only while the tree is unchanged
        if main_meta is not None:
            put(f"{METADATA_DIR}{main}.{main_meta.kind}", main_meta.raw)
        for entry, data in (extra or {}).items():
            put(entry, data)
        text = json.dumps(out_record, ensure_ascii=False, separators=(",", ":"))
        put(MAIN_RECORD, text.encode("utf-8"))
    return buffer.getvalue()


def _worth_deflating(data: bytes) -> bool:
    """Store what is already compressed (PNG, Brotli trees): deflate would only grow it."""
    sample = data[: 1 << 16]
    return len(zlib.compress(sample, 6)) < 0.95 * len(sample) if sample else False


def _timestamp(value: object) -> tuple[int, int, int, int, int, int]:
    """Zip entry time from the record (deterministic output), else the zip epoch."""
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value[:19])
            if moment.year >= 1980:
                return (
                    moment.year,
                    moment.month,
                    moment.day,
                    moment.hour,
                    moment.minute,
                    moment.second,
                )
        except ValueError:
            pass
    return (1980, 1, 1, 0, 0, 0)


__all__ = [
    "AssetMetadata",
    "Assets",
    "Package",
    "PackageLimitError",
    "dumps_package",
    "load_package",
    "loads_package",
    "new_record",
    "packdb_names",
    "packdb_references",
    "packdb_url",
    "sniff_kind",
    "write_package",
]
