"""The conformance matrix: every file (real samples, packages' main trees, writer variants) x
every operation, through the real CLI in-process (``brson.cli.app.main``) or the API.

Invariants, not snapshots: exit codes as documented; every output reloads; an output has no
validate error its input did not have; untouched values keep their BSON type and width; type
tables and type indices agree; counts add up; each report matches the file written.  The
expected side comes from :mod:`conformance.oracle` (pymongo's view of the bytes), not from
brson's model.  docs/conformance.md describes each operation's checks.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import bson
import pytest

import brson
from brson.cli.app import main
from brson.codecs import Codec
from brson.container import MAGIC, Container, unpack
from brson.errors import GraphError
from brson.godot import loads as variant_loads
from brson.ops.diff import diff
from brson.ops.extract import extract
from brson.ops.validate import Severity, validate
from brson.package import load_package
from tests.tiers import EXHAUSTIVE

from .conftest import CORPUS, Check
from .oracle import View, file_view, is_guid, type_table_problems, typed, view
from .writers import BROTLI_SETTINGS, Sample, decoded, document_bson, slots

pytestmark = pytest.mark.slow  # every operation on every sample and writer variant: minutes of CPU

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
    return _codes(found, Severity.ERROR), _codes(found, Severity.WARNING)


def _codes(found: list[Any], severity: Severity) -> frozenset[str]:
    return frozenset(f.code for f in found if f.severity == severity)


@functools.cache
def source_view(path: Path) -> View:
    return file_view(path)


def archive_suffix(path: Path) -> str:
    """The output name's suffix for an edit of this input: the same kind of file."""
    return ".resonitepackage" if path.suffix == ".resonitepackage" else path.suffix


def no_new_errors(
    check: Check, src: Path, out: Path | brson.DataTree, allowed: frozenset[str] = frozenset()
) -> None:
    before = findings_of(src)[0]
    found = validate(out)
    after = _codes(found, Severity.ERROR)
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


# -- the operations ------------------------------------------------------------------------------


def test_info(path: Path, sample: Sample, check: Check, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "info", "--json", path)
    check(code == OK, f"exit {code}: {err}")
    row = json.loads(out)[0]
    v = source_view(path)
    check(row["slots"] == len(v.slots), f"slots {row['slots']} != {len(v.slots)}")
    on_slots = sum(1 for c in v.holder.values() if c is not None)
    check(row["components"] == on_slots, f"components {row['components']} != {on_slots}")
    check(row["assets"] == len(v.components) - on_slots, "assets count")
    check(row["types"] == v.type_count(), f"types {row['types']} != {v.type_count()}")
    check(row["engine_version"] == v.doc.get("VersionNumber"), "engine version")
    check(row["uncompressed_size"] == len(source_bson(path)), "uncompressed size is the BSON's")
    check((row["package"] is not None) == sample.package, "package described iff a package")
    code, out, _ = run(capsys, "info", path)
    check(code == OK and str(len(v.slots)) in out, "text form")


def _flatten(node: dict[str, Any], out: list[dict[str, Any]]) -> None:
    out.append(node)
    for child in node.get("children", []):
        _flatten(child, out)


def test_tree(path: Path, check: Check, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "tree", "--json", "--components", path)
    check(code == OK, f"exit {code}: {err}")
    nodes: list[dict[str, Any]] = []
    _flatten(json.loads(out)[0]["root"], nodes)
    v = source_view(path)
    check([n["id"] for n in nodes] == v.slot_order, "slots in file order, by ID")
    check([n["name"] for n in nodes] == [v.slots[s][0] for s in v.slot_order], "slot names")
    listed = [(c["id"], c["type"]) for n in nodes for c in n["components"]]
    expected = [(c, v.components[c][0]) for c in v.component_order if v.holder[c] is not None]
    check(listed == expected, "components: IDs and full type names, in order")
    code, out, err = run(capsys, "tree", "--json", "--depth", "1", path)
    check(code == OK, f"--depth exit {code}: {err}")
    top = json.loads(out)[0]["root"]
    shown = 1 + len(top.get("children", []))
    hidden = sum(c.get("hidden_children", 0) for c in top.get("children", []))
    hidden += top.get("hidden_children", 0)
    check(shown <= len(v.slots), "--depth shows no more slots than there are")
    code, out, err = run(capsys, "tree", "--components", path)
    check(code == OK, f"text --components exit {code}: {err}")
    check(hidden >= 0, "hidden counts")


def test_refs(path: Path, check: Check, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "refs", "--json", path)
    check(code == OK, f"exit {code}: {err}")
    [data] = json.loads(out)
    v = source_view(path)
    counts = data["counts"]
    check(
        counts["internal"] == len(v.internal), f"internal {counts['internal']} != {len(v.internal)}"
    )
    check(
        counts["external"] == len(v.external), f"external {counts['external']} != {len(v.external)}"
    )
    check(counts["internal"] + counts["external"] == counts["references"], "counts add up")
    check(counts["ids"] == len(v.defined), f"IDs defined {counts['ids']} != {len(v.defined)}")
    check(counts["referenced_ids"] == len(set(v.internal)), "referenced IDs")
    check(sorted(data["external_ids"]) == sorted(set(v.external)), "external IDs")
    check(len(data["references"]) == counts["references"], "one entry per reference")
    kinds = Counter(r["kind"] for r in data["references"])
    check(kinds["internal"] == counts["internal"], "entries' kinds match the counts")


def test_json(path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]) -> None:
    form = tmp_path / "x.json"
    code, _, err = run(capsys, "to-json", path, "-o", form)
    check(code == OK, f"to-json exit {code}: {err}")
    text = form.read_text()
    ints64 = sum(1 for t in _leaves(typed(source_view(path).doc)) if t[0] == "int64")
    check(text.count("$numberLong") == ints64, "every int64 and only those as $numberLong")
    out = tmp_path / "y.brson"
    code, _, err = run(capsys, "from-json", form, "-o", out)
    check(code == OK, f"from-json exit {code}: {err}")
    check(bson_of(out) == source_bson(path), "to-json | from-json gives the same BSON bytes")


def _leaves(t: Any) -> list[Any]:
    if t[0] in ("doc",):
        return [x for _, v in t[1] for x in _leaves(v)]
    if t[0] == "array":
        return [x for v in t[1] for x in _leaves(v)]
    return [t]


CONVERSIONS = [
    (c, legacy) for c in Codec for legacy in (False, True) if not (legacy and c is Codec.BROTLI)
]
#: The files whose container differs (the real files, the headerless and Brotli-settings
#: variants) convert to every codec and framing; a document variant, whose container is its
#: origin's, to one (LZ4, FrDT) and back: the codecs take the tree's BSON whatever convention
#: it holds, which every document variant's round trip still checks byte for byte.
CONTAINER_VARIANTS = ("", "main tree", "headerless", *BROTLI_SETTINGS)


def test_convert(
    path: Path, sample: Sample, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    source = source_bson(path)
    data = path.read_bytes()
    engine_brotli = path.suffix == ".brson" and source_container(path).codec is Codec.BROTLI
    every = sample.variant in CONTAINER_VARIANTS
    for codec, legacy in CONVERSIONS if every else [(Codec.LZ4, False)]:
        mid = tmp_path / f"mid-{codec.label}-{legacy}{EXT[codec]}"
        args = ["convert", path, mid, "--legacy" if legacy else "--frdt"]
        code, _, err = run(capsys, *args)
        check(code == OK, f"convert to {codec.label} legacy={legacy}: exit {code}: {err}")
        written = mid.read_bytes()
        check(written.startswith(MAGIC) != legacy, "framing as asked")
        container, payload = unpack(written, mid.name)
        check(container.codec is codec, f"codec {container.codec} != {codec}")
        check(payload == source, f"{codec.label}: same BSON")
        back = tmp_path / f"back-{codec.label}-{legacy}.brson"
        code, _, err = run(capsys, "convert", mid, back)
        check(code == OK, f"convert back: exit {code}: {err}")
        check(bson_of(back) == source, "back: same BSON")
        if engine_brotli and _engine_settings(data):
            check(back.read_bytes() == data, "back to Brotli: the engine's bytes")
    if path.suffix != ".resonitepackage":  # no option: OUT keeps IN's framing (Brotli: always FrDT)
        own = source_container(path)
        same = tmp_path / f"same{EXT[own.codec]}"
        code, _, err = run(capsys, "convert", path, same)
        check(code == OK, f"convert to its own codec: exit {code}: {err}")
        check(
            unpack(same.read_bytes(), same.name)[0].legacy == own.legacy,
            f"convert kept the framing (legacy={own.legacy})",
        )
    package = tmp_path / "as.resonitepackage"
    code, _, err = run(capsys, "convert", path, package)
    named = re.findall(r"@packdb:///([0-9a-f]{64})", str(source_view(path).doc))
    if named and not path.name.endswith(".resonitepackage"):
        check(code == BAD and not package.exists(), f"no package to take assets from: {err}")
    else:
        check(code == OK, f"convert to a package: exit {code}: {err}")
        check(bson_of(package) == source, "the package holds the same tree")
        check(set(named) <= set(load_package(package).assets), "and the assets it names")


@functools.cache
def _engine_settings(data: bytes) -> bool:
    """Whether a Brotli archive is compressed as the engine does (quality 9, window 16);
    asked once an input (a compression at quality 9), not once a conversion."""
    import brotli

    _, payload = unpack(data, "x.brson")
    return bool(data[9:] == brotli.compress(payload, quality=9, lgwin=16))


# -- extract --------------------------------------------------------------------------------------


def _extract_checks(
    check: Check,
    src: View,
    tree: brson.DataTree,
    slot_id: str,
    mode: str,
    report: Any,
    errors_before: frozenset[str],
) -> None:
    data = tree.to_bson()
    again = brson.loads(brson.dumps(tree, codec="lz4"))
    check(again.to_bson() == data, "the result writes and reloads")
    v = view(bson.decode(data))
    check(v.slot_order[0] == slot_id or report.new_ids, "the result's root is the slot")
    problems = type_table_problems(v, trimmed=True)
    check(not problems, f"type table: {problems}")
    check(report.slots == len(v.slots), f"report slots {report.slots} != {len(v.slots)}")
    # The report counts the NeosVR root assets among the components (info counts them apart).
    check(
        report.components == len(v.components),
        f"report components {report.components} != {len(v.components)}",
    )
    check(report.types == v.type_count(), f"report types {report.types} != {v.type_count()}")
    if mode == "keep":
        # The subtree's own slots (a holder of copied dependencies is new: its fresh ID may
        # be one a slot left behind had, which is no reference of the result).
        subtree = _subtree(src, slot_id)
        slots_untouched(check, src, v, frozenset({(slot_id, "ParentReference")}), subtree)
    for cid, (name, width, data_typed) in v.components.items():
        if cid in src.components:
            check(src.components[cid][0] == name, f"{cid}: type name kept")
            check(src.components[cid][1] == width, f"{cid}: Type width kept")
            if mode == "keep":
                check(src.components[cid][2] == data_typed, f"{cid}: Data kept with widths")
    if src.table is not None and v.table is not None:
        dropped = set(src.table) - set(v.table)
        check(set(report.types_dropped) == dropped, "the report's dropped types are the file's")
    for copied in report.copied:
        check(copied.id in v.components, f"copied component {copied.id} is in the result")
    targets = {e.target for e in report.external}
    for value in v.external:
        check(mode == "keep" and value in targets, f"{value} leaves the subtree unreported")
    if mode == "null":
        check(not v.external, "null mode leaves no reference outside")
    found = validate(tree)
    new = _codes(found, Severity.ERROR) - errors_before - ({"BR402"} if mode == "keep" else set())
    check(
        not new,
        f"new validate errors {sorted(new)}: "
        + "; ".join(str(f) for f in found if f.code in new)[:400],
    )


#: How many slots of a writer variant are extracted through the API in an exhaustive run
#: (real files: all of them).
VARIANT_SLOTS = 30
#: Slots drawn at random (seeded by the file's name) on top of the structured spread: a real
#: file's, a variant's.
RANDOM_SLOTS = (6, 2)


def _ids(value: Any, defined: set[str], referenced: set[str]) -> None:
    """The IDs ``value`` defines (``ID`` and ``*-ID`` keys) and those it references, its
    children slots and its link to its parent excluded."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("Children", "ParentReference"):
                continue
            if is_guid(item):
                (defined if key == "ID" or str(key).endswith("-ID") else referenced).add(item)
            else:
                _ids(item, defined, referenced)
    elif isinstance(value, list):
        for item in value:
            if is_guid(item):
                referenced.add(item)
            else:
                _ids(item, defined, referenced)


def extract_spread(src: View, name: str, real: bool) -> list[str]:
    """The slots whose extraction takes each path, instead of every slot: the root, a middle
    slot and the deepest leaf (:func:`picks`), the first slot holding ProtoFlux, the first
    naming a root asset, the first with references to another slot's elements or to no
    element of the file (keep, null and fail differ), the first with references only to its
    own, and a seeded random draw."""
    owner: dict[str, str] = {}
    own: dict[str, tuple[set[str], set[str]]] = {}
    for slot, _ in slots(src.doc):
        defined: set[str] = set()
        referenced: set[str] = set()
        _ids(slot, defined, referenced)
        own[slot["ID"]] = (defined, referenced)
        owner.update(dict.fromkeys(defined, slot["ID"]))
    assets: set[str] = set()
    _ids(src.doc.get("Assets") or [], assets, set())
    chosen = list(dict.fromkeys(picks(src).values()))
    firsts: dict[str, str] = {}
    for sid in src.slot_order:
        defined, referenced = own[sid]
        outside = referenced - defined
        if any("ProtoFlux" in src.components[c][0] for c in defined if c in src.components):
            firsts.setdefault("protoflux", sid)
        if outside & assets:
            firsts.setdefault("asset", sid)
        if outside - assets:
            firsts.setdefault("leaving", sid)
        elif referenced & defined:
            firsts.setdefault("inside", sid)
    chosen += [s for s in firsts.values() if s not in chosen]
    rest = [s for s in src.slot_order if s not in chosen]
    draw = RANDOM_SLOTS[0] if real else RANDOM_SLOTS[1]
    chosen += random.Random(name).sample(rest, min(draw, len(rest)))
    return chosen


def test_extract(
    path: Path, sample: Sample, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each --external mode through the API on a structured spread of slots
    (:func:`extract_spread`; BRSON_EXHAUSTIVE=1: every slot of a real file, an even spread
    of :data:`VARIANT_SLOTS` of a variant's); through the CLI the root, a middle slot and the
    deepest leaf of a real file, the middle slot of a variant (all three when exhaustive)."""
    tree = brson.load(path)
    src = source_view(path)
    errors_before = findings_of(path)[0]
    every = list(tree.walk())
    real = sample.variant in ("", "main tree")
    if not EXHAUSTIVE:
        wanted = set(extract_spread(src, sample.name, real))
        every = [s for s in every if s.id in wanted]
        check(len(every) == len(wanted), "every slot of the spread is in the tree")
    elif not real:
        every = every[:: -(-len(every) // VARIANT_SLOTS)]
    for slot in every:
        kept = extract(tree, slot, "keep")
        _extract_checks(check, src, kept.tree, slot.id, "keep", kept.report, errors_before)
        nulled = extract(tree, slot, "null")
        _extract_checks(check, src, nulled.tree, slot.id, "null", nulled.report, errors_before)
        check(len(nulled.report.external) == len(kept.report.external), "same references")
        try:
            failed = extract(tree, slot, "fail")
            check(not kept.report.external, "fail mode wrote a subtree with external references")
            check(failed.tree.to_bson() == kept.tree.to_bson(), "fail mode = keep when none leave")
        except GraphError:
            check(bool(kept.report.external), "fail mode failed with no external reference")
    check(not tree.modified, "extracting leaves the source unmodified")
    through_cli = picks(src)
    if not (real or EXHAUSTIVE):  # the API checked this convention on each slot above
        through_cli = {"middle": through_cli["middle"]}
    for which, slot_id in through_cli.items():
        for mode in ("keep", "null", "fail"):
            out = tmp_path / f"{which}-{mode}{path.suffix if not sample.package else '.brson'}"
            code, stdout, err = run(
                capsys, "extract", path, "--slot", slot_id, "--external", mode, "--json", "-o", out
            )
            if code == BAD:
                check(mode == "fail" and "leave" in err and not out.exists(), f"exit 2: {err}")
                check(err.count("\n") == 1, "one error line")
                continue
            check(code == OK, f"extract {which} {mode}: exit {code}: {err}")
            report = json.loads(stdout)
            v = output_ok(check, path, out, {"BR402"} if mode == "keep" else set())
            check(report["slots"] == len(v.slots), "CLI report slots = file")
            check(report["types"] == v.type_count(), "CLI report types = file")
            check(not type_table_problems(v, trimmed=True), "CLI result's types trimmed")
        if sample.package:
            out = tmp_path / f"{which}.resonitepackage"
            code, stdout, err = run(
                capsys, "extract", path, "--slot", slot_id, "--package", "--json", "-o", out
            )
            check(code == OK, f"--package: exit {code}: {err}")
            package = load_package(out)
            wanted = set(
                re.findall(
                    r"packdb:///([0-9a-f]{64})",
                    json.dumps(decoded(Sample(out.name, out.read_bytes(), "")), default=str),
                )
            )
            check(set(package.assets) == wanted, "the package holds exactly the assets named")
            check(
                sorted(json.loads(stdout)["package_assets"]) == sorted(package.assets),
                "the report lists the package's assets",
            )
            no_new_errors(check, path, out, {"BR402"})


# -- edits ---------------------------------------------------------------------------------------


def _edited(path: Path, tmp_path: Path, stem: str) -> Path:
    return tmp_path / f"{stem}{archive_suffix(path)}"


def test_rename(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    src = source_view(path)
    target = picks(src)["middle"]
    out = _edited(path, tmp_path, "renamed")
    code, stdout, err = run(capsys, "rename", path, target, "Renamed by conformance", "-o", out)
    check(code == OK, f"exit {code}: {err}")
    v = output_ok(check, path, out)
    check(v.slots[target][0] == "Renamed by conformance", "the slot has its new name")
    check(v.slot_order == src.slot_order, "no slot added, removed or moved")
    untouched(check, src, v)
    slots_untouched(check, src, v, frozenset({(target, "Name")}))
    changes = diff(brson.load(path), brson.load(out))
    check([c.id for c in changes.slots_renamed] == [target], "diff: that one rename")
    check(len(list(changes.lines())) == 1, f"diff: nothing else {list(changes.lines())[:5]}")
    check("Renamed by conformance" in stdout, "the message names the new path")


def test_move(path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]) -> None:
    src = source_view(path)
    chosen = picks(src)
    leaf, root = chosen["leaf"], chosen["root"]
    out = _edited(path, tmp_path, "moved")
    if leaf == root:
        code, _, err = run(capsys, "move", path, leaf, "--to", root, "-o", out)
        check(code == BAD and err.count("\n") == 1, f"moving the root into itself: {err}")
        return
    code, _, err = run(capsys, "move", path, leaf, "--to", root, "-o", out)
    check(code == OK, f"exit {code}: {err}")
    v = output_ok(check, path, out)
    check(v.slots[leaf][1] == root, "the slot's parent is the root")
    check(sorted(v.slot_order) == sorted(src.slot_order), "the same slots")
    untouched(check, src, v)
    before, after = src.slot_fields(), v.slot_fields()
    for sid, fields in before.items():
        moved_link = sid == leaf and "ParentReference" in fields
        for key, value in fields.items():
            if moved_link and key == "ParentReference":
                new = after[sid].get(key)
                check(
                    new is None or new.typed != ("str", src.slots[leaf][1]),
                    "ParentReference no longer names the old parent",
                )
                continue
            check(after[sid].get(key) == value, f"slot {sid} {key} kept")
    changes = diff(brson.load(path), brson.load(out))
    check([c.id for c in changes.slots_moved] == [leaf], "diff: that one move")
    # Reorder: the root's last child first.
    children = [sid for sid in src.slot_order if src.slots[sid][1] == root]
    if len(children) > 1:
        reordered = _edited(path, tmp_path, "reordered")
        code, _, err = run(capsys, "move", path, children[-1], "--index", "0", "-o", reordered)
        check(code == OK, f"--index 0: exit {code}: {err}")
        r = output_ok(check, path, reordered)
        now = [sid for sid in r.slot_order if r.slots[sid][1] == root]
        check(now == [children[-1], *children[:-1]], "the last child is first, the rest in order")
        untouched(check, src, r)
        changes = diff(brson.load(path), brson.load(reordered))
        check(
            [c.id for c in changes.children_reordered] == [root] and not changes.slots_moved,
            f"diff: the root's children reordered, nothing moved: {list(changes.lines())[:4]}",
        )


def _settable(src: View) -> list[tuple[str, str, str, Any]]:
    """(component ID, field, kind, new text) for one field of each scalar kind in the file."""
    wanted: dict[str, tuple[str, str, str, Any]] = {}
    for cid in src.component_order:
        if src.holder[cid] is None:
            continue
        for key, (kind, tagged) in _data_fields(src.components[cid][2].typed):
            if key in ("ID", "persistent-ID", "UpdateOrder", "Enabled"):
                continue
            if kind == "str" and (is_guid(tagged) or str(tagged).startswith("@")):
                continue  # a reference or a URI: not free text
            if kind not in wanted and kind in ("int32", "int64", "double", "bool", "str"):
                text = {"int32": "7", "int64": "7", "double": "2.5", "str": "conformance"}.get(
                    kind, "false" if tagged else "true"
                )
                wanted[kind] = (cid, key, kind, text)
    return list(wanted.values())


def _data_fields(data: Any) -> list[tuple[str, tuple[str, Any]]]:
    """(field, typed Data) of a component's Data members."""
    out = []
    for key, value in data[1]:
        if value[0] == "doc":
            inner = dict(value[1])
            if "Data" in inner and "ID" in inner and inner["Data"][0] != "doc":
                out.append((key, inner["Data"]))
    return out


def test_set(path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]) -> None:
    src = source_view(path)
    tree = brson.load(path)
    by_id = {c.id: c for c in tree.components()}
    for n, (cid, key, kind, text) in enumerate(_settable(src)):
        component = by_id[cid]
        slot = component.slot
        assert slot is not None
        same = [c for c in slot.components if str(c.type) == str(component.type)]
        target = f"{slot.id}:{component.type}[{same.index(component)}].{key}"
        out = _edited(path, tmp_path, f"set{n}")
        code, _, err = run(capsys, "set", path, target, text, "-o", out)
        check(code == OK, f"set {kind} {target}: exit {code}: {err}")
        v = output_ok(check, path, out)
        new = dict(_data_fields(v.components[cid][2].typed))[key]
        check(new[0] == kind, f"{key}: a {kind} stays a {kind} (now {new[0]})")
        untouched(check, src, v, skip={cid})
    slot_id = picks(src)["leaf"]
    out = _edited(path, tmp_path, "setpos")
    code, _, err = run(capsys, "set", path, f"{slot_id}.Position", "1,2,3", "-o", out)
    check(code == OK, f"set Position: exit {code}: {err}")
    v = output_ok(check, path, out)
    position = v.slot_fields()[slot_id]["Position"].typed
    values = dict(position[1])["Data"][1]
    check([t[0] for t in values] == ["double"] * 3, f"Position stays doubles: {values}")
    untouched(check, src, v)


def test_delete(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    src = source_view(path)
    chosen = picks(src)
    leaf = chosen["leaf"]
    left_unused: list[set[str]] = []
    out = _edited(path, tmp_path, "deleted")
    if leaf == chosen["root"]:
        code, _, err = run(capsys, "delete", path, leaf, "-o", out)
        check(code == BAD and err.count("\n") == 1, f"deleting the root: {err}")
    else:
        code, stdout, err = run(capsys, "delete", path, leaf, "--json", "-o", out)
        check(code == OK, f"exit {code}: {err}")
        report = json.loads(stdout)
        v = output_ok(check, path, out)
        gone = src.defined - v.defined
        check(report["ids"] == len(gone), f"report ids {report['ids']} != {len(gone)} gone")
        check(leaf not in v.slots and len(v.slots) == len(src.slots) - 1, "one leaf fewer")
        dangling = [x for x in src.values if x in gone]
        check(
            len(report["references"]) == len(dangling) - _inside(src, leaf, dangling),
            "every reference into it reported",
        )
        check(not [x for x in v.values if x in gone], "references to it nulled")
        untouched(check, src, v, skip={c for c in src.components if _refers(src, c, gone)})
        left_unused.append(
            _pruned(check, capsys, path, tmp_path, _unused(v) - _unused(src), src, leaf)
        )
    # The other reference policies: report keeps the values (dangling), fail refuses.
    if leaf != chosen["root"]:
        kept = _edited(path, tmp_path, "deleted-report")
        code, stdout, err = run(
            capsys, "delete", path, leaf, "--references", "report", "--json", "-o", kept
        )
        check(code == OK, f"--references report: exit {code}: {err}")
        reported = json.loads(stdout)["references"]
        output_ok(check, path, kept, frozenset({"BR402"}))
        refused = _edited(path, tmp_path, "deleted-fail")
        code, _, err = run(capsys, "delete", path, leaf, "--references", "fail", "-o", refused)
        check(code == (BAD if reported else OK), f"--references fail: exit {code}: {err}")
        check(refused.exists() != bool(reported), "nothing written when it fails")
    # One component: the first on the middle slot.
    middle = chosen["middle"]
    on = [c for c in src.component_order if src.holder[c] == middle]
    if not on:
        _no_unused(check, left_unused)
        return
    cid = on[0]
    name = src.components[cid][0]
    same = [c for c in on if src.components[c][0] == name]
    out = _edited(path, tmp_path, "uncomponent")
    code, stdout, err = run(
        capsys, "delete", path, middle, "-c", f"{name}[{same.index(cid)}]", "--json", "-o", out
    )
    check(code == OK, f"delete -c {name}: exit {code}: {err}")
    v = output_ok(check, path, out)
    check(cid not in v.components, "the component is gone")
    check(len(v.components) == len(src.components) - 1, "only that one")
    left_unused.append(
        _pruned(
            check,
            capsys,
            path,
            tmp_path,
            _unused(v) - _unused(src),
            src,
            middle,
            "-c",
            f"{name}[{same.index(cid)}]",
        )
    )
    _no_unused(check, left_unused)


def _pruned(
    check: Check,
    capsys: pytest.CaptureFixture[str],
    path: Path,
    tmp_path: Path,
    left: set[str],
    src: View,
    selector: str,
    *extra: str,
) -> set[str]:
    """The same delete with --prune-types: it drops exactly the types the default run left
    unused (the default keeps Types so untouched components keep their bytes); returns what
    the pruned output still leaves unused that the input did not."""
    out = _edited(path, tmp_path, "pruned-component" if extra else "pruned-slot")
    code, stdout, err = run(
        capsys, "delete", path, selector, *extra, "--prune-types", "--json", "-o", out
    )
    check(code == OK, f"--prune-types: exit {code}: {err}")
    if code != OK:
        return set()
    check(
        sorted(json.loads(stdout)["types_pruned"]) == sorted(left),
        "--prune-types drops exactly the types only the removed elements used",
    )
    pv = output_ok(check, path, out)
    return _unused(pv) - _unused(src)


def _no_unused(check: Check, left_unused: list[set[str]]) -> None:
    """Checked last: with --prune-types a delete leaves no type unused that was used before
    (issue 11 defect 8; the default keeps them, as BR303 information, for byte identity)."""
    for unused in left_unused:
        check(not unused, f"types left in Types with no component: {sorted(unused)}")


def _unused(v: View) -> set[str]:
    return set(v.table or ()) - v.used_types


def _subtree(v: View, slot_id: str) -> set[str]:
    """The IDs of a slot and its descendants."""
    below = {slot_id}
    for sid in v.slot_order:
        if v.slots[sid][1] in below:
            below.add(sid)
    return below


def _inside(src: View, slot_id: str, values: list[str]) -> int:
    """How many of ``values`` sit inside the deleted slot itself (they go with it)."""
    doc_slot = next(
        s
        for s, _ in __import__("conformance.writers", fromlist=["slots"]).slots(src.doc)
        if s["ID"] == slot_id
    )
    inner = view(
        {"Object": doc_slot, "Types": src.table} if src.table is not None else {"Object": doc_slot}
    )
    return sum(1 for x in inner.values if x in values)


def _refers(src: View, cid: str, ids: set[str]) -> bool:
    text = repr(src.components[cid][2].typed)
    return any(i in text for i in ids)


@functools.cache
def _legacy(path: Path) -> bool:
    return brson.load(path).legacy


def _donor(sample: Sample, corpus_dir: Path) -> Path:
    """The file to import from: the first real sample of another origin and the same
    generation (brson refuses NeosVR <-> Resonite imports, with one line and exit 2), else
    the file itself."""
    legacy = _legacy(corpus_dir / sample.name)
    for other in CORPUS:
        if other.variant or other.origin == sample.origin or other.package != sample.package:
            continue
        if _legacy(corpus_dir / other.name) == legacy:
            return corpus_dir / other.name
    return corpus_dir / sample.name


def test_import(
    path: Path,
    sample: Sample,
    corpus_dir: Path,
    tmp_path: Path,
    check: Check,
    capsys: pytest.CaptureFixture[str],
) -> None:
    donor = _donor(sample, corpus_dir)
    dv = source_view(donor)
    chosen = picks(dv)["middle"]
    src = source_view(path)
    out = _edited(path, tmp_path, "imported")
    code, stdout, err = run(capsys, "import", path, donor, "--slot", chosen, "--json", "-o", out)
    check(code == OK, f"import from {donor.name}: exit {code}: {err}")
    report = json.loads(stdout)
    v = output_ok(check, path, out)
    check(len(v.slots) == len(src.slots) + report["slots"], "slots add up")
    check(len(v.components) == len(src.components) + report["components"], "components add up")
    new_ids = v.defined - src.defined
    check(len(new_ids) == report["ids"], f"{report['ids']} fresh IDs reported, {len(new_ids)} new")
    check(src.defined <= v.defined, "every ID of the file kept")
    untouched(check, src, v)
    added = set(v.table or ()) - set(src.table or ())
    check(sorted(added) == sorted(report["types_added"]), "types added as reported")
    imported = [c for c in v.component_order if c not in src.components]
    below = {chosen}
    for s in dv.slot_order:
        if dv.slots[s][1] in below:
            below.add(s)
    donated = [c for c in dv.component_order if dv.holder[c] in below]
    # Components referenced from outside come along too (extract's dependencies).
    got = Counter(v.components[c][:2] for c in imported if v.holder[c] is not None)
    want = Counter(dv.components[c][:2] for c in donated)
    check(not want - got, f"each imported component keeps its type and Type width: {want - got}")


def test_renumber(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    src = source_view(path)
    a, b = _edited(path, tmp_path, "renumbered-a"), _edited(path, tmp_path, "renumbered-b")
    code, stdout, err = run(capsys, "renumber", path, "-o", a)
    check(code == OK, f"exit {code}: {err}")
    run(capsys, "renumber", path, "-o", b)
    check(bson_of(a) == bson_of(b), "deterministic")
    v = output_ok(check, path, a)
    check(len(v.defined) == len(src.defined), "as many IDs")
    check(
        all(re.fullmatch(r"[0-9a-f]{8}-0000-0000-0000-000000000000", i) for i in v.defined),
        "every ID sequential",
    )
    check(
        [v.slots[s][0] for s in v.slot_order] == [src.slots[s][0] for s in src.slot_order],
        "the same slots in the same order",
    )
    check(
        [v.components[c][0] for c in v.component_order]
        == [src.components[c][0] for c in src.component_order],
        "the same components",
    )
    check(
        len(v.internal) == len(src.internal) and len(v.external) == len(src.external),
        "references still resolve",
    )
    check(str(len(v.defined)) in stdout or "renumbered" in stdout, "the message counts IDs")


#: Dynamic variable components (docs: brson/ops/variables.py), by short name.
VARIABLE_TYPES = {
    "DynamicValueVariable",
    "DynamicReferenceVariable",
    "DynamicTypeVariable",
    "DynamicField",
    "DynamicReference",
    "DynamicTypeField",
}


def _short_type(name: str) -> str:
    """``DynamicField`` from ``[FrooxEngine]FrooxEngine.DynamicField<colorX>`` or NeosVR's
    ``FrooxEngine.DynamicField`1[[BaseX.color, BaseX, …]]``."""
    head = re.sub(r"^\[[^\]]*\]", "", name)
    head = re.split(r"[<`\[]", head, maxsplit=1)[0]
    return head.rpartition("+")[2].rpartition(".")[2]


def test_vars(path: Path, check: Check, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "vars", "--json", path)
    check(code == OK, f"exit {code}: {err}")
    found = json.loads(out)
    src = source_view(path)
    expected = [
        c
        for c in src.component_order
        if src.holder[c] is not None
        and _short_type(src.components[c][0]) in VARIABLE_TYPES
        and any(k == "VariableName" for k, _ in src.components[c][2].typed[1])
    ]
    check([v["component_id"] for v in found] == expected, "every variable component, in order")
    for var in found:
        check(var["component_id"] in src.components, "a variable is a component of the file")
        check("Dynamic" in src.components[var["component_id"]][0], "of a dynamic variable type")
    code, _, err = run(capsys, "vars", path)
    check(code == OK, f"text exit {code}: {err}")


def test_set_var(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "vars", "--json", path)
    found = json.loads(out)
    names = Counter(v["name"] for v in found)
    simple = [
        v
        for v in found
        if names[v["name"]] == 1
        and v["kind"] == "value"
        and isinstance(v["value"], bool | int | float | str)
        and v["name"]
    ]
    out_path = _edited(path, tmp_path, "setvar")
    if not simple:
        code, _, err = run(capsys, "set-var", path, "no/such/variable=1", "-o", out_path)
        check(code == BAD and err.count("\n") == 1, f"unknown variable: exit {code}: {err}")
        check(not out_path.exists(), "nothing written")
        return
    var = simple[0]
    value = var["value"]
    text = {bool: "true" if not value else "false", int: "5", float: "0.25", str: "conformance"}[
        type(value)
    ]
    code, _, err = run(capsys, "set-var", path, f"{var['name']}={text}", "-o", out_path)
    check(code == OK, f"set-var {var['name']}: exit {code}: {err}")
    src = source_view(path)
    v = output_ok(check, path, out_path)
    untouched(check, src, v, skip={var["component_id"]})
    before = dict(_data_fields(src.components[var["component_id"]][2].typed))
    after = dict(_data_fields(v.components[var["component_id"]][2].typed))
    changed = [k for k in before if before[k] != after.get(k)]
    check(len(changed) == 1, f"one field changed: {changed}")
    check(all(before[k][0] == after[k][0] for k in changed), "its width kept")


#: Real files written by the engine's own export: validate --strict must pass on them.
ENGINE_WRITTEN = ("orange3134_", "mar_coresys")


def test_validate(
    path: Path, sample: Sample, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "validate", "--format", "json", path)
    report = json.loads(out)
    api = validate(path)
    errors = [f for f in api if f.severity == Severity.ERROR]
    warnings = [f for f in api if f.severity == Severity.WARNING]
    check(code == (FINDINGS if errors else OK), f"exit {code} with {len(errors)} errors: {err}")
    listed = (
        [f["code"] for file in report["files"] for f in file["findings"]]
        if "files" in report
        else None
    )
    if listed is not None:
        check(sorted(listed) == sorted(f.code for f in api), "JSON report = API findings")
    code, _, _ = run(capsys, "validate", "--strict", path)
    check(code == (FINDINGS if errors or warnings else OK), "--strict fails on warnings too")
    code, out, _ = run(capsys, "validate", "--format", "github", path)
    check(out.count("::") >= len(errors) + len(warnings), "one annotation per finding")
    if sample.variant == "clr-names":  # .NET's form, nested generics included, parses
        check(
            not [f for f in api if f.code == "BR305"],
            "CLR type names are well-formed: "
            + "; ".join(str(f) for f in api if f.code == "BR305")[:600],
        )
        check("Culture=" not in json.dumps(report), "no assembly qualifier in a path or message")
    engine = sample.name.startswith(ENGINE_WRITTEN) and sample.variant in ("", "main tree")
    if engine:
        check(
            not errors and not warnings,
            "validate --strict is clean on the engine's own export: "
            + "; ".join(str(f) for f in errors + warnings)[:600],
        )
        outputs = []
        for suffix in (".lz4bson", ".7zbson", ".bson", ".brson"):
            outputs.append(tmp_path / f"converted{suffix}")
            run(capsys, "convert", path, outputs[-1])
        for mode in ("null", "keep"):
            outputs.append(tmp_path / f"extracted-{mode}.brson")
            middle = picks(source_view(path))["middle"]
            run(capsys, "extract", path, "--slot", middle, "--external", mode, "-o", outputs[-1])
        if sample.package:
            outputs.append(tmp_path / "repacked.resonitepackage")
            run(
                capsys,
                "rename",
                path,
                picks(source_view(path))["root"],
                "Repacked",
                "-o",
                outputs[-1],
            )
        for out in outputs:
            code, text, _ = run(capsys, "validate", "--strict", out)
            check(code == OK, f"validate --strict on the engine export's {out.name}: {text[-600:]}")


def test_diff(
    path: Path,
    sample: Sample,
    corpus_dir: Path,
    tmp_path: Path,
    check: Check,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "diff", path, path)
    check(code == OK, f"a file equals itself: exit {code}: {err}")
    origin = corpus_dir / sample.origin
    if origin != path:
        same = source_bson(origin) == source_bson(path)
        code, out, err = run(capsys, "diff", origin, path)
        check(
            code == (OK if same else FINDINGS),
            f"against its origin (same BSON: {same}): {out[:300]}",
        )
    other = tmp_path / "other.lz4bson"
    run(capsys, "convert", path, other)
    code, out, err = run(capsys, "diff", "--json", path, other)
    check(code == OK and json.loads(out)["equal"], f"codec makes no difference: {out[:300]} {err}")
    renamed = _edited(path, tmp_path, "r")
    slot = picks(source_view(path))["leaf"]
    run(capsys, "rename", path, slot, "Another name", "-o", renamed)
    code, out, err = run(capsys, "diff", "--json", path, renamed)
    report = json.loads(out)
    check(code == FINDINGS and not report["equal"], "a rename is a difference (exit 1)")
    check([s["id"] for s in report["slots_renamed"]] == [slot], "exactly the rename")


def _scene_checks(check: Check, tscn: str, godot: int, slots: int) -> None:
    header = tscn.splitlines()[0]
    check(header.startswith("[gd_scene") and f"format={godot - 1}" in header, f"header {header}")
    nodes = re.findall(
        r'^\[node name="((?:[^"\\]|\\.)*)"(?: type="(\w+)")?(?: parent="((?:[^"\\]|\\.)*)")?',
        tscn,
        re.M,
    )
    check(len(nodes) == slots, f"one node per slot: {len(nodes)} != {slots}")
    paths: set[str] = set()
    for n, (name, _, parent) in enumerate(nodes):
        if n == 0:
            check(parent == "", "the first node is the root")
            paths.add(".")
            continue
        check(parent in paths, f"node {name!r}: parent {parent!r} is an earlier node")
        paths.add(name if parent == "." else f"{parent}/{name}")
    subs = set(re.findall(r'^\[sub_resource type="\w+" id=("?[\w]+"?)\]', tscn, re.M))
    used = set(re.findall(r"SubResource\(\s*(\"?[\w]+\"?)\s*\)", tscn))
    check(used <= subs, f"every SubResource used is defined: {sorted(used - subs)[:5]}")


def _export(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str], godot: int
) -> None:
    src = source_view(path)
    scene, variant = tmp_path / "scene.tscn", tmp_path / "tree.bin"
    code, _, err = run(
        capsys, "export-godot", path, "-o", scene, "--godot", godot, "--variant", variant
    )
    check(code == OK, f"exit {code}: {err}")
    _scene_checks(check, scene.read_text(encoding="utf-8"), godot, len(src.slots))
    value = variant_loads(variant.read_bytes(), godot=godot)
    stack, seen = [value["root"]], []
    while stack:
        item = stack.pop()
        seen.append(item)
        stack.extend(reversed(item["children"]))
    check(
        [(n["id"], n["name"]) for n in seen] == [(s, src.slots[s][0]) for s in src.slot_order],
        "the Variant reloads with every slot: IDs and names in order",
    )
    check(
        [[c["id"] for c in n["components"]] for n in seen]
        == [[c for c in src.component_order if src.holder[c] == s] for s in src.slot_order],
        "and every component, by ID",
    )
    check(
        len(value["assets"]) == len(src.components) - sum(1 for h in src.holder.values() if h),
        "and the root assets",
    )
    middle = picks(src)["middle"]
    part = tmp_path / "part.tscn"
    code, _, err = run(capsys, "export-godot", path, "-o", part, "--godot", godot, "--slot", middle)
    check(code == OK, f"--slot: exit {code}: {err}")
    below = {middle}
    for s in src.slot_order:
        if src.slots[s][1] in below:
            below.add(s)
    _scene_checks(check, part.read_text(encoding="utf-8"), godot, len(below))


def test_export_godot3(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    _export(path, tmp_path, check, capsys, 3)


def test_export_godot4(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    _export(path, tmp_path, check, capsys, 4)


# -- never writing over an input -----------------------------------------------------------------


def _writers(victim: Path, other: Path, slot: str) -> list[list[object]]:
    """Every command that writes, with ``victim`` as its output (``other``: a scratch path)."""
    return [
        ["convert", "IN", victim],
        ["to-json", "IN", "-o", victim],
        ["extract", "IN", "--slot", slot, "-o", victim],
        ["rename", "IN", slot, "X", "-o", victim],
        ["move", "IN", slot, "--index", "0", "-o", victim],
        ["set", "IN", f"{slot}.Name", "X", "-o", victim],
        ["delete", "IN", slot, "-o", victim],
        ["renumber", "IN", "-o", victim],
        ["set-var", "IN", "no/such=1", "-o", victim],
        ["import", "IN", "IN", "--slot", slot, "-o", victim],
    ]


def _godot_writers(victim: Path, other: Path, slot: str) -> list[list[object]]:
    return [
        ["export-godot", "IN", "-o", victim],
        ["export-godot", "IN", "-o", other, "--variant", victim],
    ]


def _spellings(tmp_path: Path, source: Path) -> dict[str, tuple[Path, Path]]:
    """The input copied into the test's folder, and outputs naming it in several ways:
    (input path as given, output path)."""
    own = tmp_path / f"in{archive_suffix(source)}"
    own.write_bytes(source.read_bytes())
    link = tmp_path / f"link{own.suffix}"
    link.symlink_to(own.name)
    return {
        "same": (own, own),
        "dot": (own, Path(os.path.relpath(own))),
        "symlink": (own, link),
    }


def _refuses(
    check: Check,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    path: Path,
    commands: Any,
    hard_link: bool,
) -> None:
    slot = picks(source_view(path))["leaf"]
    original = path.read_bytes()
    if hard_link:
        own = tmp_path / f"in{archive_suffix(path)}"
        own.write_bytes(original)
        twin = tmp_path / f"twin{own.suffix}"
        twin.hardlink_to(own)
        cases = {"hard link": (own, twin)}
    else:
        cases = _spellings(tmp_path, path)
    for spelling, (src, victim) in cases.items():
        for command in commands(victim, tmp_path / "other.tscn", slot):
            args = [src if a == "IN" else a for a in command]
            code, _, err = run(capsys, *args)
            check(src.read_bytes() == original, f"{command[0]} -> {spelling}: the input changed")
            check(code == BAD, f"{command[0]} -> {spelling}: exit {code}, not a refusal")
            check(err.strip() and "Traceback" not in err, f"an error message, no traceback: {err}")


def test_no_overwrite(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    """No command writes over its input: the same path, a ./ spelling or a symlink to it."""
    _refuses(check, capsys, tmp_path, path, _writers, hard_link=False)


def test_no_overwrite_godot(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    """export-godot's scene and Variant outputs never replace the archive read."""
    _refuses(check, capsys, tmp_path, path, _godot_writers, hard_link=False)


def test_no_overwrite_hard_link(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output that is a hard link to the input is the input too."""
    _refuses(
        check,
        capsys,
        tmp_path,
        path,
        lambda v, o, s: _writers(v, o, s) + _godot_writers(v, o, s),
        hard_link=True,
    )


def test_type_names(path: Path, check: Check) -> None:
    """Every type name of the file parses and prints back identically, has a short name
    free of generic syntax, and finds its components by full and short name alike (the
    model's matcher and the edit selectors agree)."""
    from brson.model.typename import TypeName

    src = source_view(path)
    for name in sorted(src.used_types | set(src.table or ())):
        parsed = TypeName.parse(name)
        check(str(parsed) == name, f"{name!r} prints back as {str(parsed)!r}")
        short = parsed.name or ""
        check(short and not set(short) & set("<>[], "), f"{name!r}: short name {short!r}")


def test_find_component(path: Path, check: Check) -> None:
    """Every component is found on its slot by its full name, and by its name without
    assembly and namespace but with its generic arguments (the README promises both), by the
    model's matcher and the edit selectors alike."""
    from brson.ops.selectors import component_on

    tree = brson.load(path)
    for slot in tree.walk():
        for component in slot.components:
            full = str(component.type)
            found = slot.find_component(full)
            check(found is not None and str(found.type) == full, f"find_component({full!r})")
            check(component_on(slot, f"{full}[0]") is not None, f"edit selector {full!r}")
            head = full.split("<", 1)
            generic = re.sub(r"^(\[[^\]]*\])?([\w`]+\.)*", "", head[0])
            if len(head) == 2 and generic:
                named = f"{generic}<{head[1]}"  # DynamicField<[FrooxEngine]FrooxEngine.Slot>
                found = slot.find_component(named)
                check(found is not None, f"find_component({named!r}) (README: namespaced names)")
                check(component_on(slot, f"{named}[0]") is not None, f"edit selector {named!r}")


def test_export_gltf(
    path: Path, sample: Sample, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    """A binary glTF that reloads: GLB framing, one node per slot in tree order with the
    slot's ID, the report's counts equal to the file's, every index in range; a package's
    own assets are found.  (The Khronos validator, Blender and Godot checks are in tests/gltf.)"""
    import struct

    src = source_view(path)
    out = tmp_path / "scene.glb"
    code, stdout, err = run(capsys, "export-gltf", path, "-o", out, "--json")
    check(code == OK, f"exit {code}: {err}")
    report = json.loads(stdout)
    data = out.read_bytes()
    magic, version, length = struct.unpack_from("<4sII", data)
    check((magic, version, length) == (b"glTF", 2, len(data)), "GLB header")
    size, kind = struct.unpack_from("<I4s", data, 12)
    check(kind == b"JSON", "the JSON chunk first")
    doc = json.loads(data[20 : 20 + size])
    binary = b""
    if 20 + size < len(data):
        bsize, bkind = struct.unpack_from("<I4s", data, 20 + size)
        check(bkind == b"BIN\x00", "then the BIN chunk")
        binary = data[28 + size : 28 + size + bsize]
    nodes = doc.get("nodes", [])
    order: list[str] = []
    stack = list(reversed(doc["scenes"][doc.get("scene", 0)]["nodes"]))
    while stack:
        node = nodes[stack.pop()]
        order.append(node.get("extras", {}).get("resonite_id"))
        stack.extend(reversed(node.get("children", [])))
    check(order == src.slot_order, "one node per slot, in tree order, with its ID")
    check(report["nodes"] == len(nodes), "report: nodes")
    for key in ("meshes", "materials", "textures", "images", "skins"):
        check(report[key] == len(doc.get(key, [])), f"report: {key}")
    for part in doc.get("bufferViews", []):
        end = part.get("byteOffset", 0) + part["byteLength"]
        check(end <= len(binary), "buffer view in range")
    for accessor in doc.get("accessors", []):
        check(accessor.get("bufferView", 0) < len(doc.get("bufferViews", [])), "accessor's view")
    if sample.package:
        missing = [w for w in report["warnings"] if "packdb" in w and "not available" in w]
        check(not missing, f"the package's assets are used: {missing[:2]}")
