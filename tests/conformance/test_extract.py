"""The conformance matrix's extract on every file: each --external mode on a structured spread
of slots through the API, and through the CLI (see :mod:`conformance.checks`).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import bson
import pytest

import brson
from brson.errors import GraphError
from brson.ops.extract import extract
from brson.ops.validate import Severity, validate
from brson.package import load_package
from tests.tiers import EXHAUSTIVE

from .checks import (
    BAD,
    OK,
    codes,
    document_seen_before,
    findings_of,
    no_new_errors,
    output_ok,
    picks,
    run,
    slots_untouched,
    source_view,
    subtree,
)
from .conftest import Check
from .oracle import View, is_guid, type_table_problems, view
from .writers import Sample, decoded, slots

pytestmark = pytest.mark.slow  # every operation on every sample and writer variant: minutes of CPU


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
        own = subtree(src, slot_id)
        slots_untouched(check, src, v, frozenset({(slot_id, "ParentReference")}), own)
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
    new = codes(found, Severity.ERROR) - errors_before - ({"BR402"} if mode == "keep" else set())
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
    of :data:`VARIANT_SLOTS` of a variant's), once a document: the API takes the tree, so a
    second file holding the same document would repeat it exactly; through the CLI each
    mode on the middle slot (BRSON_EXHAUSTIVE=1: on the root and the deepest leaf too): the
    CLI hands the slot to the extraction the API part checked on every slot of the spread,
    so what the CLI adds (the selector, the mode, the written file, its report, exit 2 with
    nothing written) takes the same path whichever slot it is given."""
    tree = brson.load(path)
    src = source_view(path)
    errors_before = findings_of(path)[0]
    every = list(tree.walk())
    real = sample.variant in ("", "main tree")
    if not EXHAUSTIVE and document_seen_before(sample.name):
        every = []
    elif not EXHAUSTIVE:
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
    if not EXHAUSTIVE:
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
