"""What every cell of the conformance matrix shares: the CLI run in-process
(``brson.cli.app.main``), each input's facts (computed once a process), the invariants every
written file gets, and the slots an operation picks.

Invariants, not snapshots: exit codes as documented; every output reloads; an output has no
validate error its input did not have; untouched values keep their BSON type and width; type
tables and type indices agree; counts add up; each report matches the file written.  The
expected side comes from :mod:`conformance.oracle` (pymongo's view of the bytes), not from
brson's model.  docs/conformance.md describes each operation's checks.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path
from typing import Any

import bson
import pytest

import brson
from brson.cli.app import main
from brson.codecs import Codec
from brson.container import Container, unpack
from brson.ops.validate import Severity, validate
from brson.package import load_package
from tests.tiers import EXHAUSTIVE

from .conftest import CORPUS, Check
from .oracle import View, file_view, type_table_problems, view
from .writers import Sample, decoded, document_bson

#: Exit codes (README): success, findings, bad input.
OK, FINDINGS, BAD = 0, 1, 2
EXT = {Codec.BROTLI: ".brson", Codec.LZMA: ".7zbson", Codec.LZ4: ".lz4bson", Codec.NONE: ".bson"}


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def bson_of(path: Path) -> bytes:
    """The BSON an archive or a package's main tree holds (container layer only)."""
    return bson.encode(decoded(Sample(path.name, path.read_bytes(), path.name)))


@functools.cache
def source_bson(path: Path) -> bytes:
    """:func:`bson_of` an input (read-only for the whole session), once a process."""
    return bson_of(path)


@functools.cache
def source_container(path: Path) -> Container:
    """An input's container (codec and framing), unpacked once a process."""
    return unpack(path.read_bytes(), path.name)[0]


@functools.cache
def findings_of(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(error codes, warning codes) that validate reports for an input."""
    found = validate(path)
    return codes(found, Severity.ERROR), codes(found, Severity.WARNING)


def codes(found: list[Any], severity: Severity) -> frozenset[str]:
    return frozenset(f.code for f in found if f.severity == severity)


@functools.cache
def source_view(path: Path) -> View:
    return file_view(path)


def document_seen_before(name: str) -> bool:
    """Whether a file before this one in the matrix holds the same document (a package and
    its main tree, an archive and the package holding it, a headerless or Brotli-settings
    copy): what an operation does with the tree alone, that file's cell did already."""
    return name in _documents_seen_before()


@functools.cache
def _documents_seen_before() -> frozenset[str]:
    """The names :func:`document_seen_before` is true of: every document read once a process."""
    seen: set[bytes] = set()
    found: set[str] = set()
    for sample in CORPUS:
        digest = hashlib.sha256(document_bson(sample)).digest()
        if digest in seen:
            found.add(sample.name)
        seen.add(digest)
    return frozenset(found)


def tree_checked_before(path: Path) -> bool:
    """Whether the default run gives this input the operation's one main run only: an earlier
    file holds its document (:func:`document_seen_before`), and that file's cell ran every
    variation of the operation on it, which depends on the tree alone; what this file adds is
    its container, read and written by the main run.  BRSON_EXHAUSTIVE=1: every variation
    again."""
    return not EXHAUSTIVE and document_seen_before(path.name)


def archive_suffix(path: Path) -> str:
    """The output name's suffix for an edit of this input: the same kind of file."""
    return ".resonitepackage" if path.suffix == ".resonitepackage" else path.suffix


def no_new_errors(
    check: Check, src: Path, out: Path | brson.DataTree, allowed: frozenset[str] = frozenset()
) -> None:
    before = findings_of(src)[0]
    found = validate(out)
    after = codes(found, Severity.ERROR)
    new = after - before - allowed
    check(
        not new,
        f"validate errors the input did not have: {sorted(new)}: "
        + "; ".join(str(f) for f in found if f.code in new)[:600],
    )


def output_ok(check: Check, src: Path, out: Path, allowed: frozenset[str] = frozenset()) -> View:
    """The checks every written file gets: reloads (brson and the oracle), type table
    consistent, no new validate error."""
    tree = brson.load(out)
    check(sum(1 for _ in tree.walk()) >= 1, "output reloads with a root slot")
    written = Sample(out.name, out.read_bytes(), out.name)
    if out.suffix == ".resonitepackage":
        payload = document_bson(written)
        package = load_package(out)
        named = {m.decode() for m in re.findall(rb"packdb:///([0-9a-f]{64})", payload)}
        check(
            named <= set(package.assets),
            f"the package holds its assets: {named - set(package.assets)}",
        )
    else:
        after, payload = unpack(written.data, out.name)
        if src.suffix == out.suffix:
            before = source_container(src)
            check(
                (before.codec, before.legacy) == (after.codec, after.legacy),
                f"the input's codec and framing kept: {after.codec} legacy={after.legacy}",
            )
    v = view(bson.decode(payload))
    problems = type_table_problems(v)
    check(not problems, f"type table: {problems}")
    no_new_errors(check, src, out, allowed)
    return v


def untouched(check: Check, a: View, b: View, skip: frozenset[str] = frozenset()) -> None:
    """Every component in both views, except ``skip``, keeps its type name, the width of its
    Type element and its Data (every value's BSON type and width)."""
    same = [c for c in a.components if c in b.components and c not in skip]
    for cid in same:
        ta, tb = a.components[cid], b.components[cid]
        check(ta[0] == tb[0], f"component {cid}: type {ta[0]!r} became {tb[0]!r}")
        check(ta[1] == tb[1], f"component {cid}: Type element {ta[1]} became {tb[1]}")
        check(ta[2] == tb[2], f"component {cid}: Data changed (value or width)")


def slots_untouched(
    check: Check,
    a: View,
    b: View,
    skip: frozenset[tuple[str, str]] = frozenset(),
    only: set[str] | None = None,
) -> None:
    """Every slot in both views (of ``only``, when given) keeps every field (unknown keys
    included) with its BSON type, except the (slot ID, key) pairs in ``skip``."""
    before, after = a.slot_fields(), b.slot_fields()
    for sid in before.keys() & after.keys() & (only if only is not None else before.keys()):
        for key, value in before[sid].items():
            if (sid, key) not in skip:
                check(after[sid].get(key) == value, f"slot {sid}: {key} kept")
        extra = set(after[sid]) - set(before[sid])
        check(not extra, f"slot {sid}: keys added {sorted(extra)}")


def picks(v: View) -> dict[str, str]:
    """Deterministic slots to operate on: the root, a middle slot (a child of the root with
    descendants, else any child), and the deepest, last leaf."""
    root = v.slot_order[0]
    children = [s for s in v.slot_order if v.slots[s][1] == root]
    parents = {p for _, p in v.slots.values()}
    middle = next((c for c in children if c in parents), children[0] if children else root)
    depth: dict[str, int] = {root: 0}
    for s in v.slot_order[1:]:
        depth[s] = depth[v.slots[s][1]] + 1  # type: ignore[index]
    leaves = [s for s in v.slot_order if s not in parents]
    leaf = max(leaves, key=lambda s: (depth[s], v.slot_order.index(s)))
    return {"root": root, "middle": middle, "leaf": leaf}


def edited(path: Path, tmp_path: Path, stem: str) -> Path:
    return tmp_path / f"{stem}{archive_suffix(path)}"


def subtree(v: View, slot_id: str) -> set[str]:
    """The IDs of a slot and its descendants."""
    below = {slot_id}
    for sid in v.slot_order:
        if v.slots[sid][1] in below:
            below.add(sid)
    return below


def data_fields(data: Any) -> list[tuple[str, tuple[str, Any]]]:
    """(field, typed Data) of a component's Data members."""
    out = []
    for key, value in data[1]:
        if value[0] == "doc":
            inner = dict(value[1])
            if "Data" in inner and "ID" in inner and inner["Data"][0] != "doc":
                out.append((key, inner["Data"]))
    return out
