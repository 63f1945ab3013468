"""The conformance matrix's read-only reports on every file: info, tree, refs, vars,
validate, diff, and the type names the model parses and matches (see :mod:`conformance.checks`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import brson
from brson.ops.validate import Severity, validate

from .checks import FINDINGS, OK, picks, run, source_bson, source_view, tree_checked_before
from .conftest import Check
from .writers import Sample

pytestmark = pytest.mark.slow  # every operation on every sample and writer variant: minutes of CPU


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
        # Converted and extracted archives depend on the tree alone: once a document.
        again = tree_checked_before(path)
        for suffix in () if again else (".lz4bson", ".7zbson", ".bson", ".brson"):
            outputs.append(tmp_path / f"converted{suffix}")
            run(capsys, "convert", path, outputs[-1])
        for mode in () if again else ("null", "keep"):
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
    renamed = tmp_path / "r.lz4bson"  # LZ4: the codec makes no difference (checked above)
    slot = picks(source_view(path))["leaf"]
    run(capsys, "rename", path, slot, "Another name", "-o", renamed)
    code, out, err = run(capsys, "diff", "--json", path, renamed)
    report = json.loads(out)
    check(code == FINDINGS and not report["equal"], "a rename is a difference (exit 1)")
    check([s["id"] for s in report["slots_renamed"]] == [slot], "exactly the rename")


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
