"""Writer variety: from each real sample, the variants that other writers produce.

Real files come from more writers than the engine's default export: other Brotli settings,
every integer as int64 (NeosVR, some generators), ``Type`` as int64 only, generic arguments
with or without a space after the comma, NeosVR's type-name strings instead of a ``Types``
table, ``ParentReference`` holding the parent's ID, no ``VersionNumber``/``FeatureFlags``, the
``Persistant-ID`` spelling and a null persistent ID, keys and component types brson does not
know.  Each variant changes one thing, so a failure names the convention that broke.

The generator reads and writes with pymongo's ``bson`` and the ``brotli`` module, not with
brson, and is deterministic (same samples, same bytes), so a build is kept for the next test
process while its inputs stay the same (:data:`CACHE`).  ``python -m conformance.writers OUT``
(from ``tests/``) writes the variants into OUT to look at them.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import re
import shutil
import struct
import sys
import tempfile
import uuid
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import brotli
import bson
import lz4
from bson.int64 import Int64

from brson import codecs, container
from brson.codecs import Codec
from brson.container import pack, unpack

#: What the samples folder holds that the matrix reads (MANIFEST.md and the like are skipped).
ARCHIVE_SUFFIXES = (".brson", ".7zbson", ".lz4bson", ".bson")
PACKAGE_SUFFIX = ".resonitepackage"
_SEQUENTIAL = re.compile(r"([0-9a-f]{8})-0000-0000-0000-000000000000\Z")


@dataclass(frozen=True)
class Sample:
    """One file of the matrix: its name, its bytes, and where it comes from."""

    name: str
    data: bytes
    #: The real file it is, or is derived from.
    origin: str
    #: The writer convention it stands for ("" for a real file as found).
    variant: str = ""

    @property
    def package(self) -> bool:
        return self.name.lower().endswith(PACKAGE_SUFFIX)


# -- reading the real files ----------------------------------------------------------------------


def main_tree(package: bytes) -> tuple[str, bytes]:
    """The main tree's asset name and archive bytes (through ``R-Main.record``)."""
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        record = json.loads(archive.read("R-Main.record"))
        name = str(record["assetUri"]).rpartition("/")[2]
        return name, archive.read(f"Assets/{name}")


def real_samples(folder: Path) -> list[Sample]:
    """Every archive and package in ``folder`` (globbed: a new file joins with no code
    change), and the main tree of each package as an archive of its own unless the folder
    holds the same bytes already."""
    found = sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and p.name.lower().endswith((*ARCHIVE_SUFFIXES, PACKAGE_SUFFIX))
    )
    out = [Sample(p.name, p.read_bytes(), p.name) for p in found]
    have = {hashlib.sha256(s.data).digest() for s in out}
    for sample in list(out):
        if sample.package:
            _, data = main_tree(sample.data)
            if hashlib.sha256(data).digest() not in have:
                stem = sample.name[: -len(PACKAGE_SUFFIX)]
                out.append(Sample(f"{stem}.main.brson", data, sample.name, "main tree"))
    return out


def document_bson(sample: Sample) -> bytes:
    """The BSON bytes of an archive or of a package's main tree (the container layer only)."""
    data = main_tree(sample.data)[1] if sample.package else sample.data
    name = "main.brson" if sample.package else sample.name
    return unpack(data, name)[1]


def decoded(sample: Sample) -> dict[str, Any]:
    """The document of an archive or of a package's main tree, int64 kept as ``Int64``."""
    return bson.decode(document_bson(sample))  # type: ignore[no-any-return]


# -- the document walkers --------------------------------------------------------------------


def slots(doc: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(slot, parent), parents first."""
    stack: list[tuple[dict[str, Any], dict[str, Any] | None]] = [(doc["Object"], None)]
    while stack:
        slot, parent = stack.pop()
        yield slot, parent
        stack.extend((child, slot) for child in reversed(slot.get("Children") or []))


def components(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for slot, _ in slots(doc):
        yield from slot["Components"]["Data"]
    yield from doc.get("Assets") or []


def _copy(doc: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a decoded document, through pymongo's C codec (``copy.deepcopy`` was most
    of the corpus's build time); every value comes back with its BSON type."""
    return bson.decode(bson.encode(doc))  # type: ignore[no-any-return]


def _map_values(value: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(value, dict):
        return {k: _map_values(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_values(v, fn) for v in value]
    return fn(value)


def _renamed_key(d: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """The same dict with one key renamed in place (key order is part of the format)."""
    return {(new if k == old else k): v for k, v in d.items()}


def _fresh_ids(doc: dict[str, Any], seed: str) -> Iterator[str]:
    """IDs unused in the document, in its style: the next sequential numbers in a Resonite
    file, random GUIDs (seeded) in a NeosVR one."""
    seen: set[str] = set()

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                visit(v)
        elif isinstance(value, list):
            for v in value:
                visit(v)
        elif isinstance(value, str) and len(value) == 36 and value.count("-") == 4:
            seen.add(value.lower())

    visit(doc)
    numbers = [int(m.group(1), 16) for s in seen if (m := _SEQUENTIAL.match(s))]
    if numbers and len(numbers) * 2 > len(seen):
        n = max(numbers)
        while True:
            n += 1
            yield f"{n:08x}-0000-0000-0000-000000000000"
    rng = random.Random(seed)
    while True:
        candidate = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if candidate not in seen:
            seen.add(candidate)
            yield candidate


# -- the variants: each a function document -> document (None: does not apply) --------------


def every_int64(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Every integer int64, as NeosVR's writer and some generators store them."""

    def widen(v: Any) -> Any:
        return Int64(v) if type(v) is int else v

    return _map_values(doc, widen)  # type: ignore[no-any-return]


def type_int64(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Only the component ``Type`` index int64 (mar_AimConstraint's writer does this)."""
    out = _copy(doc)
    for component in components(out):
        if type(component.get("Type")) is int:
            component["Type"] = Int64(component["Type"])
    return out


def _generic_commas(name: str, spaced: bool) -> str:
    """The separators between generic arguments, with or without a space after the comma."""
    out, depth, i = [], 0, 0
    while i < len(name):
        ch = name[i]
        depth += ch == "<"
        depth -= ch == ">"
        out.append(ch)
        if ch == "," and depth > 0:
            while i + 1 < len(name) and name[i + 1] == " ":
                i += 1
            if spaced:
                out.append(" ")
        i += 1
    return "".join(out)


def _type_names(doc: dict[str, Any], rename: Callable[[str], str]) -> dict[str, Any]:
    out = _copy(doc)
    if isinstance(out.get("Types"), list):
        out["Types"] = [rename(t) if isinstance(t, str) else t for t in out["Types"]]
    if isinstance(out.get("TypeVersions"), dict):
        out["TypeVersions"] = {rename(k): v for k, v in out["TypeVersions"].items()}
    for component in components(out):
        if isinstance(component.get("Type"), str):
            component["Type"] = rename(component["Type"])
    return out


def generic_spaced(doc: dict[str, Any]) -> dict[str, Any] | None:
    """``A<B, C>``: a space after each comma between generic arguments."""
    return _type_names(doc, lambda t: _generic_commas(t, True))


def generic_bare(doc: dict[str, Any]) -> dict[str, Any] | None:
    """``A<B,C>``: the engine's own spelling."""
    return _type_names(doc, lambda t: _generic_commas(t, False))


def string_types(doc: dict[str, Any]) -> dict[str, Any] | None:
    """NeosVR's form: each component's ``Type`` is its type-name string, no ``Types``."""
    table = doc.get("Types")
    if not isinstance(table, list):
        return None
    out = _copy(doc)
    for component in components(out):
        component["Type"] = table[int(component["Type"])]
    del out["Types"]
    return out


_PRIMITIVES = {
    "bool": "System.Boolean",
    "int": "System.Int32",
    "float": "System.Single",
    "long": "System.Int64",
    "double": "System.Double",
    "string": "System.String",
}
_QUALIFIER = ", Version=1.0.0.0, Culture=neutral, PublicKeyToken=null"


def _clr(text: str, i: int = 0) -> tuple[str, str, int]:
    """``(CLR name, assembly, end)`` of the engine's name at ``text[i:]``: ``[Asm]Ns.A<x>+B``
    becomes ``Ns.A`1+B[[x, Asm2, Version=...]]`` (.NET puts a nested generic type's arguments
    after its last segment, the arity on the segment declaring them)."""
    assembly = ""
    if text.startswith("[", i):
        end = text.index("]", i)
        assembly, i = text[i + 1 : end], end + 1
    segments, args = [], []
    while True:
        start = i
        while i < len(text) and text[i] not in "<>,+?":
            i += 1
        ident, count = text[start:i].strip(), 0
        if text.startswith("<", i):
            i += 1
            while True:
                arg, arg_assembly, i = _clr(text, i)
                args.append(f"[{arg}, {arg_assembly}{_QUALIFIER}]")
                count += 1
                if text.startswith(">", i):
                    i += 1
                    break
                i += 1  # the comma
        segments.append(f"{ident}`{count}" if count else ident)
        if not text.startswith("+", i):
            break
        i += 1
    suffix = ""
    while text.startswith("?", i):
        suffix, i = suffix + "?", i + 1
    if len(segments) == 1 and "." not in segments[0]:
        segments[0] = _PRIMITIVES.get(segments[0], f"Elements.Core.{segments[0]}")
        assembly = assembly or (
            "mscorlib" if segments[0].startswith("System.") else "Elements.Core"
        )
    name = "+".join(segments) + (f"[{','.join(args)}]" if args else "") + suffix
    return name, assembly or "FrooxEngine", i


def clr_names(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Type names as strings in .NET's assembly-qualified form, as some writers store them:
    ``FrooxEngine.ValueField`1[[Elements.Core.float3, Elements.Core, Version=...]]``, and a
    nested generic ``…FieldDriveBase`1+Proxy[[…]]``."""
    out = string_types(doc)
    if out is None or not any("<" in str(c.get("Type")) for c in components(out)):
        return None
    return _type_names(out, lambda t: _clr(t)[0])


def parent_id(doc: dict[str, Any]) -> dict[str, Any] | None:
    """``ParentReference`` holding the parent slot's ID (some third-party generators)."""
    out = _copy(doc)
    for slot, parent in slots(out):
        if parent is not None and "ParentReference" in slot:
            slot["ParentReference"] = parent["ID"]
    return out


def no_version(doc: dict[str, Any]) -> dict[str, Any] | None:
    """No ``VersionNumber`` nor ``FeatureFlags`` (older writers, hand-made files)."""
    return {k: v for k, v in doc.items() if k not in ("VersionNumber", "FeatureFlags")}


def persistant_spelling(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Slots' ``Persistent-ID`` spelt ``Persistant-ID`` (mar_AimConstraint), or back."""
    out = _copy(doc)

    def swap(slot: dict[str, Any]) -> dict[str, Any]:
        if "Persistent-ID" in slot:
            slot = _renamed_key(slot, "Persistent-ID", "Persistant-ID")
        elif "Persistant-ID" in slot:
            slot = _renamed_key(slot, "Persistant-ID", "Persistent-ID")
        if isinstance(slot.get("Children"), list):
            slot["Children"] = [swap(child) for child in slot["Children"]]
        return slot

    out["Object"] = swap(out["Object"])
    return out


def persistent_null(doc: dict[str, Any]) -> dict[str, Any] | None:
    """A null persistent ID on every slot (mar_AimConstraint's ``Persistant-ID: null``)."""
    out = _copy(doc)
    for slot, _ in slots(out):
        for key in ("Persistent-ID", "Persistant-ID"):
            if key in slot:
                slot[key] = None
    return out


UNKNOWN_TYPE = "[SomeMod]SomeMod.Components.Unknown<[FrooxEngine]FrooxEngine.Slot,float3>"


def unknown_keys(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Keys brson does not know, at every level a newer writer could add them."""
    out = _copy(doc)
    ids = _fresh_ids(out, "unknown-keys")
    out["x-Extra"] = {"Note": "written by a newer tool", "Count": Int64(3)}
    for n, (slot, _) in enumerate(slots(out)):
        if n % 3 == 0:
            slot["x-SlotExtra"] = {"ID": next(ids), "Data": 1.5}
    for n, component in enumerate(components(out)):
        if n % 4 == 0:
            component["x-ComponentExtra"] = True
            component["Data"]["x-FieldExtra"] = {"ID": next(ids), "Data": [1, Int64(2), 3.0]}
    return out


def unknown_component(doc: dict[str, Any]) -> dict[str, Any] | None:
    """A component whose type no engine build defines (a mod's), on the root and on the
    first leaf, with a reference to the root slot."""
    out = _copy(doc)
    ids = _fresh_ids(out, "unknown-component")
    if isinstance(out.get("Types"), list):
        out["Types"] = [*out["Types"], UNKNOWN_TYPE]
        type_value: Any = len(out["Types"]) - 1
    else:
        type_value = UNKNOWN_TYPE
    root = out["Object"]
    leaf = next(s for s, _ in slots(out) if not s.get("Children"))
    for slot in dict.fromkeys([id(root), id(leaf)]):
        target = root if slot == id(root) else leaf
        target["Components"]["Data"].append(
            {
                "Type": type_value,
                "Data": {
                    "ID": next(ids),
                    "persistent-ID": next(ids),
                    "UpdateOrder": {"ID": next(ids), "Data": 0},
                    "Enabled": {"ID": next(ids), "Data": True},
                    "Target": {"ID": next(ids), "Data": root["ID"]},
                    "Offset": {"ID": next(ids), "Data": [0.0, 1.0, 0.0]},
                    "Mode": {"ID": next(ids), "Data": "Something"},
                },
            }
        )
    return out


DOCUMENT_VARIANTS: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    "int64": every_int64,
    "type-int64": type_int64,
    "generic-spaced": generic_spaced,
    "generic-bare": generic_bare,
    "string-types": string_types,
    "clr-names": clr_names,
    "parent-id": parent_id,
    "no-version": no_version,
    "persistant-spelling": persistant_spelling,
    "persistent-null": persistent_null,
    "unknown-keys": unknown_keys,
    "unknown-component": unknown_component,
}

#: Brotli settings other writers use (the engine's own: quality 9, window 16).  brson reads every
#: setting through one path (``brson.codecs.brotli_engine.decompress``: the stream's own header
#: carries the window, the quality leaves no trace), so each setting is written for one
#: document only: quality 1 for the largest (its stream is the one over the decoder's 64 KiB
#: input step, so it also crosses that), the others for the smallest (quality 11 of the
#: largest would take most of the corpus's build, in every test process).  The documents' own
#: paths are the real files' cells.
BROTLI_SETTINGS = {"brotli-q5w22": (5, 22), "brotli-q11w24": (11, 24), "brotli-q1w10": (1, 10)}
#: The settings written for the largest document (the rest: for the smallest).
BROTLI_ON_LARGEST = {"brotli-q1w10"}


# -- writing ---------------------------------------------------------------------------------


def frdt_brotli(bson_bytes: bytes, quality: int = 9, window: int = 16) -> bytes:
    """An FrDT Brotli archive written without brson: magic, int32 version 0, kind 3."""
    return (
        b"FrDT"
        + struct.pack("<i", 0)
        + b"\x03"
        + brotli.compress(bson_bytes, quality=quality, lgwin=window)
    )


def _like(sample: Sample, bson_bytes: bytes) -> bytes:
    """Archive bytes holding ``bson_bytes`` in the sample's own container: a package with the
    new main tree, else the same codec and framing."""
    if sample.package:
        return _repackaged(sample.data, bson_bytes)
    container = unpack(sample.data, sample.name)[0]
    if container.codec is Codec.BROTLI:
        return frdt_brotli(bson_bytes)
    return pack(bson_bytes, container.codec, legacy=container.legacy)


def _repackaged(package: bytes, bson_bytes: bytes) -> bytes:
    """The package with its main tree replaced: the new tree under its own sha256, the record
    pointing at it, every other entry as it was."""
    old_name, _ = main_tree(package)
    tree = frdt_brotli(bson_bytes)
    new_name = hashlib.sha256(tree).hexdigest()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            name = info.filename
            if name == "R-Main.record":
                data = data.replace(old_name.encode(), new_name.encode())
            elif name == f"Assets/{old_name}":
                name, data = f"Assets/{new_name}", tree
            entry = zipfile.ZipInfo(name, date_time=info.date_time)
            entry.compress_type = info.compress_type
            dst.writestr(entry, data)
    return out.getvalue()


def _named(sample: Sample, variant: str) -> str:
    for suffix in (PACKAGE_SUFFIX, *ARCHIVE_SUFFIXES):
        if sample.name.lower().endswith(suffix):
            stem = sample.name[: -len(suffix)]
            return f"{stem}~{variant}{sample.name[len(stem) :]}"
    return f"{sample.name}~{variant}"


def variants(real: list[Sample]) -> list[Sample]:
    """Every variant of every distinct document among ``real``; a variant that changes
    nothing for a document (int64 of an all-int64 file) is left out.  Documents are taken
    from packages first (their variants stay packages, assets and all), and a file whose
    document a package holds already gives no variants of its own.  Each Brotli setting is
    written for one document (:data:`BROTLI_SETTINGS`)."""
    out: list[Sample] = []
    seen: set[bytes] = set()
    ordered = sorted(real, key=lambda s: (not s.package, s.name))
    documents: list[tuple[Sample, bytes]] = []
    for sample in ordered:
        doc = decoded(sample)
        original = bson.encode(doc)
        digest = hashlib.sha256(original).digest()
        if digest in seen:
            continue
        seen.add(digest)
        documents.append((sample, original))
        for variant, make in DOCUMENT_VARIANTS.items():
            changed = make(doc)
            if changed is None:
                continue
            data = bson.encode(changed)
            if data != original:
                out.append(
                    Sample(_named(sample, variant), _like(sample, data), sample.name, variant)
                )
        stem = sample.name.rsplit(".", 1)[0]
        out.append(Sample(f"{stem}~headerless.bson", original, sample.name, "headerless"))
    if documents:
        by_size = sorted(documents, key=lambda d: len(d[1]))
        for variant, (quality, window) in BROTLI_SETTINGS.items():
            sample, original = by_size[-1] if variant in BROTLI_ON_LARGEST else by_size[0]
            name = f"{sample.name.rsplit('.', 1)[0]}~{variant}.brson"
            out.append(Sample(name, frdt_brotli(original, quality, window), sample.name, variant))
    files = {hashlib.sha256(s.data).digest() for s in real}
    # (a variant a real file is already: mar_AimConstraint is written at quality 5, window 22)
    return [s for s in out if hashlib.sha256(s.data).digest() not in files]


def corpus(folder: Path) -> list[Sample]:
    """The whole matrix's files: the real ones, then their variants (from :data:`CACHE` when
    it holds this build's)."""
    real = real_samples(folder)
    key = _fingerprint(real)
    made = _cached(key)
    if made is None:
        made = variants(real)
        _keep(key, made)
    return real + made


# -- the corpus kept between test processes --------------------------------------------------

#: Where the variants are kept, beside the bytecode caches (git-ignored): building them takes
#: about a second of CPU, most of it compression, and every process that collects the matrix
#: needs their names (the warm-up collection, each pytest-xdist worker, the next run).
CACHE = Path(__file__).resolve().parent / "__pycache__" / "corpus"


def _fingerprint(real: list[Sample]) -> str:
    """What the variants' bytes follow from: the real files, this generator, brson's container
    and codec code it reads and writes with, and the interpreter's and compressors' versions."""
    digest = hashlib.sha256(f"{sys.version}\0{brotli.__version__}\0{lz4.__version__}".encode())
    code = [Path(__file__), *(p for m in (codecs, container) for p in _sources(m))]
    for path in code:
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for sample in real:
        digest.update(sample.name.encode() + b"\0" + hashlib.sha256(sample.data).digest())
    return digest.hexdigest()[:32]


def _sources(package: ModuleType) -> list[Path]:
    return sorted(Path(package.__file__).parent.glob("*.py"))


def _cached(key: str) -> list[Sample] | None:
    """The variants kept under ``key``, each file's bytes checked against the manifest's
    sha256; None when any is missing or differs."""
    folder = CACHE / key
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        out = [
            Sample(e["name"], (folder / e["name"]).read_bytes(), e["origin"], e["variant"])
            for e in manifest
        ]
        digests = [e["sha256"] for e in manifest]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if [hashlib.sha256(s.data).hexdigest() for s in out] != digests:
        return None
    return out


def _keep(key: str, made: list[Sample]) -> None:
    """Write the variants under ``key`` (whole or not at all: a folder renamed into place, over
    a damaged one), and drop the builds of other keys.  A tree that cannot be written keeps
    nothing."""
    manifest = [
        {
            "name": s.name,
            "origin": s.origin,
            "variant": s.variant,
            "sha256": hashlib.sha256(s.data).hexdigest(),
        }
        for s in made
    ]
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".new-", dir=CACHE))
        for sample in made:
            (staging / sample.name).write_bytes(sample.data)
        (staging / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        shutil.rmtree(CACHE / key, ignore_errors=True)
        try:
            staging.rename(CACHE / key)
        except OSError:  # another process kept the same build first
            shutil.rmtree(staging, ignore_errors=True)
        for other in CACHE.iterdir():
            if other.name != key and not other.name.startswith(".new-"):
                shutil.rmtree(other, ignore_errors=True)
    except OSError:
        return


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m conformance.writers OUT_DIR", file=sys.stderr)
        return 2
    here = Path(__file__).resolve().parents[2].parent / "shared" / "samples"
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for sample in corpus(here):
        (out / sample.name).write_bytes(sample.data)
        print(f"{sample.name}  ({sample.variant or 'real'}, from {sample.origin})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
