"""The conformance matrix's edits on every file: rename, move, set, delete, import, renumber and
set-var, each output checked against its input (see :mod:`conformance.checks`).  A file holding
a document an earlier file holds (a package's main tree, a headerless copy) gets each edit's
main run, which reads and writes its container, not the variations that depend on the tree
alone (:func:`conformance.checks.tree_checked_before`).
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import brson
from brson.model.numbering import renumber
from brson.ops.diff import diff
from tests.tiers import EXHAUSTIVE

from .checks import (
    BAD,
    OK,
    bson_of,
    data_fields,
    edited,
    output_ok,
    picks,
    run,
    slots_untouched,
    source_view,
    tree_checked_before,
    untouched,
)
from .conftest import CORPUS, Check
from .oracle import View, is_guid, view
from .writers import Sample, slots

pytestmark = pytest.mark.slow  # every operation on every sample and writer variant: minutes of CPU


def test_rename(
    path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    src = source_view(path)
    target = picks(src)["middle"]
    out = edited(path, tmp_path, "renamed")
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
    out = edited(path, tmp_path, "moved")
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
    if len(children) > 1 and not tree_checked_before(path):
        reordered = edited(path, tmp_path, "reordered")
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
        for key, (kind, tagged) in data_fields(src.components[cid][2].typed):
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


#: The files on which set writes every kind of value found: the real files and the variant
#: whose convention is the values' width.  On the other writer variants the convention is the
#: document's shape, its keys or its type names, which the set reads the same whatever the
#: value's kind: the first kind found (and Position) there, every kind with BRSON_EXHAUSTIVE=1.
EVERY_KIND = ("", "main tree", "int64")


def test_set(
    path: Path, sample: Sample, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    src = source_view(path)
    tree = brson.load(path)
    by_id = {c.id: c for c in tree.components()}
    settable = _settable(src)
    once = tree_checked_before(path)  # then one kind, when there is one, and no Position
    if once or not (EXHAUSTIVE or sample.variant in EVERY_KIND):
        settable = settable[:1]
    for n, (cid, key, kind, text) in enumerate(settable):
        component = by_id[cid]
        slot = component.slot
        assert slot is not None
        same = [c for c in slot.components if str(c.type) == str(component.type)]
        target = f"{slot.id}:{component.type}[{same.index(component)}].{key}"
        out = edited(path, tmp_path, f"set{n}")
        code, _, err = run(capsys, "set", path, target, text, "-o", out)
        check(code == OK, f"set {kind} {target}: exit {code}: {err}")
        v = output_ok(check, path, out)
        new = dict(data_fields(v.components[cid][2].typed))[key]
        check(new[0] == kind, f"{key}: a {kind} stays a {kind} (now {new[0]})")
        untouched(check, src, v, skip={cid})
    if once and settable:
        return
    slot_id = picks(src)["leaf"]
    out = edited(path, tmp_path, "setpos")
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
    out = edited(path, tmp_path, "deleted")
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
        if tree_checked_before(path):  # the variations below depend on the tree alone
            return
        left_unused.append(
            _pruned(check, capsys, path, tmp_path, _unused(v) - _unused(src), src, leaf)
        )
    # The other reference policies: report keeps the values (dangling), fail refuses.
    if leaf != chosen["root"]:
        kept = edited(path, tmp_path, "deleted-report")
        code, stdout, err = run(
            capsys, "delete", path, leaf, "--references", "report", "--json", "-o", kept
        )
        check(code == OK, f"--references report: exit {code}: {err}")
        reported = json.loads(stdout)["references"]
        output_ok(check, path, kept, frozenset({"BR402"}))
        refused = edited(path, tmp_path, "deleted-fail")
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
    out = edited(path, tmp_path, "uncomponent")
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
    out = edited(path, tmp_path, "pruned-component" if extra else "pruned-slot")
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


def _inside(src: View, slot_id: str, values: list[str]) -> int:
    """How many of ``values`` sit inside the deleted slot itself (they go with it)."""
    doc_slot = next(s for s, _ in slots(src.doc) if s["ID"] == slot_id)
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
    out = edited(path, tmp_path, "imported")
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
    a = edited(path, tmp_path, "renumbered")
    code, stdout, err = run(capsys, "renumber", path, "-o", a)
    check(code == OK, f"exit {code}: {err}")
    if not tree_checked_before(path):  # the IDs a tree is given depend on the tree alone
        # A second run on a second reading, through the API the command calls: the same BSON
        # (no second compression of the whole tree to compare what was compressed).
        check(bson_of(a) == renumber(brson.load(path)).to_bson(), "deterministic")
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
    out_path = edited(path, tmp_path, "setvar")
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
    before = dict(data_fields(src.components[var["component_id"]][2].typed))
    after = dict(data_fields(v.components[var["component_id"]][2].typed))
    changed = [k for k in before if before[k] != after.get(k)]
    check(len(changed) == 1, f"one field changed: {changed}")
    check(all(before[k][0] == after[k][0] for k in changed), "its width kept")
