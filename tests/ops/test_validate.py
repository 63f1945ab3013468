"""Validation: each broken fixture shows its rule, the real samples pass, and nothing crashes.

The fixtures (``fixtures/validate/``) are made by editing a real export's decoded document one
way each; their manifest (in the generator) says which codes each must report, all of them, so
a rule that fires too often fails here as surely as one that does not fire.
"""

from __future__ import annotations

import copy
import importlib.util
import math
import struct
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import bson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brson
from brson.document import raw
from brson.model.component import Component
from brson.ops.validate import RULES, Finding, Severity, unreadable, validate
from tests.tiers import examples

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
VALIDATE_FIXTURES = PROJECT_ROOT / "fixtures" / "validate"


def _generator() -> ModuleType:
    path = VALIDATE_FIXTURES / "make_validate_fixtures.py"
    spec = importlib.util.spec_from_file_location("make_validate_fixtures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


GEN = _generator()


def codes(findings: list[Finding]) -> set[str]:
    return {f.code for f in findings}


def with_severity(findings: list[Finding], *levels: Severity) -> list[Finding]:
    return [f for f in findings if f.severity in levels]


# --------------------------------------------------------------------------------------------
# One fixture per rule.


@pytest.mark.parametrize("fixture", GEN.FIXTURES + GEN.CLEAN, ids=lambda f: f.name)
def test_fixture_reports_exactly_its_codes(fixture: Any) -> None:
    path = VALIDATE_FIXTURES / fixture.name
    findings = validate(path)
    assert codes(findings) == fixture.codes, [str(f) for f in findings]
    for finding in findings:
        assert finding.severity == RULES[finding.code].severity
        assert finding.file == str(path)
        assert finding.message
    assert unreadable(findings) == any(RULES[c].unreadable for c in fixture.codes)


def test_every_rule_has_its_fixture() -> None:
    named = [f.rule for f in GEN.FIXTURES]
    assert sorted(named) == sorted(RULES), "one fixture per rule, named after it"
    for fixture in GEN.FIXTURES:
        assert fixture.rule in fixture.codes


def test_committed_fixtures_are_what_the_generator_makes() -> None:
    made = dict(GEN.build())
    stale = [name for name, data in made.items() if (VALIDATE_FIXTURES / name).read_bytes() != data]
    assert not stale, f"run `python fixtures/validate/make_validate_fixtures.py`: {stale}"
    on_disk = {
        str(p.relative_to(VALIDATE_FIXTURES))
        for p in VALIDATE_FIXTURES.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert on_disk == set(made) | {
        "make_validate_fixtures.py",
        "base/orange3134_AvatarRootIdentification.brson",
    }
    assert sum(len(d) for d in made.values()) < 300_000


def test_unreadable_rules_are_the_reading_ones() -> None:
    """Exit code 2 belongs to files that could not be read: container, codec, size, trailing
    bytes, BSON, package, and a tree the model cannot hold."""
    assert {c for c, r in RULES.items() if r.unreadable} == {
        "BR101",
        "BR102",
        "BR103",
        "BR104",
        "BR105",
        "BR106",
        "BR107",
        "BR209",
    }


def test_rules_are_documented() -> None:
    """docs/validation.md carries the table generated from the registry, unchanged."""
    from brson.ops.validate.findings import rules_markdown

    text = (PROJECT_ROOT / "docs" / "validation.md").read_text()
    assert rules_markdown() in text, "regenerate the rule table in docs/validation.md"


# --------------------------------------------------------------------------------------------
# Real samples: no errors, no warnings; the engine's own quirks are info.

#: What the engine itself writes that a rule mentions (see docs/validation.md).
SAMPLE_INFO = {
    "orange3134_AvatarRootIdentification": {"BR303"},  # an unused SlotGizmo type
    "orange3134_loading_standin": {"BR502"},  # a slot hidden by scale 0
    "redx_5ce7cdf5": set(),
    "mar_coresys": {"BR303"},  # an unused SlotGizmo type
    # Another writer (a generator): parent-ID ParentReferences, int64 FeatureFlags values and
    # zero quaternions on ProtoFlux node slots are warnings that describe it truly.
    "mar_AimConstraint.pg": {"BR303", "BR406", "BR504", "BR604"},
}
#: Files the engine wrote with its own settings: no error or warning may fire on them.
NOT_ENGINE_EXPORTS = {"mar_AimConstraint.pg"}


def real_files() -> list[Any]:
    files = sorted(SAMPLES.glob("*.*bson")) + sorted(SAMPLES.glob("*.resonitepackage"))
    files += sorted((PROJECT_ROOT / "fixtures" / "real").glob("*"))
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="no real samples"))]
    return [pytest.param(p, id=p.name) for p in files]


@pytest.mark.parametrize("path", real_files())
def test_real_samples_validate_clean(path: Path) -> None:
    findings = validate(path)
    assert not with_severity(findings, Severity.ERROR), [str(f) for f in findings]
    if path.stem not in NOT_ENGINE_EXPORTS:
        assert not with_severity(findings, Severity.WARNING), [str(f) for f in findings]
    assert codes(findings) == SAMPLE_INFO[path.stem]


@pytest.mark.parametrize("path", real_files())
def test_samples_in_every_codec_validate_alike(path: Path) -> None:
    """Same findings whatever the codec (the headerless form is a NeosVR framing, so a
    Resonite tree written that way adds BR607 and nothing else)."""
    tree = brson.load(path)
    expected = codes(validate(tree))
    for codec in ("brotli", "lzma", "lz4", "none"):
        assert codes(validate(brson.dumps(tree, codec=codec), name=f"x.{codec}")) == expected
    legacy = codes(validate(brson.dumps(tree, codec="lzma", legacy=True), name="x.7zbson"))
    assert legacy == expected | (set() if tree.legacy else {"BR607"})


def test_tree_path_and_bytes_give_the_same_findings() -> None:
    path = VALIDATE_FIXTURES / "BR401_duplicate_id.brson"
    by_path = validate(path)
    by_tree = validate(brson.load(path))
    by_bytes = validate(path.read_bytes(), name=str(path))
    assert by_path == by_tree == by_bytes
    assert by_path[0].path is not None and by_path[0].path.endswith("GetActiveUserSelf.Tag")


# --------------------------------------------------------------------------------------------
# One pass, in-memory edits, paths.


def test_every_problem_of_a_file_in_one_pass() -> None:
    doc = copy.deepcopy(GEN.resonite_base())
    slots = GEN.slots(doc)
    slots[2]["Position"]["Data"] = [math.inf, 0.0, 0.0]  # BR501
    slots[3]["Rotation"]["Data"] = [0.0, 0.0, 0.0, 0.0]  # BR504
    GEN.components(doc)[0]["Type"] = 999  # BR301
    slots[4]["Tag"]["Data"] = GEN.UNDEFINED_SEQUENTIAL  # BR402
    slots[5]["Tag"]["ID"] = slots[6]["Tag"]["ID"]  # BR401
    doc["Extra"] = 1  # BR203
    findings = validate(GEN.archive(doc), name="many.brson")
    assert codes(findings) == {"BR501", "BR504", "BR301", "BR402", "BR401", "BR203"}
    paths = {f.code: f.path for f in findings}
    assert paths["BR501"] == brson.loads(GEN.archive(doc)).find_all("GetActiveUserSelf")[0].path
    assert paths["BR301"] == "Avatar Root Identification:#999"


def test_dbref_shaped_members_read_as_the_model_reads_them() -> None:
    """A document holding ``$ref`` (pymongo's DBRef shape) in a component: the walk that
    decodes slots in one call and the model's path (an edited tree) find the same."""
    doc = copy.deepcopy(GEN.resonite_base())
    data = GEN.components(doc)[0]["Data"]
    data["Odd"] = {"$ref": "x", "$id": 1}
    data["Member"] = {"ID": GEN.UNDEFINED_SEQUENTIAL, "Data": {"$id": 2, "$ref": "y"}}
    blob = GEN.archive(doc)
    by_bytes = validate(blob, name="dbref.brson")
    tree = brson.loads(blob)
    tree.root.touch()
    assert tree.modified
    by_model = validate(tree, name="dbref.brson")
    assert by_bytes == by_model
    assert [f.code for f in by_bytes] == ["BR207"]
    assert "'Odd'" in by_bytes[0].message


def test_edits_through_the_model_are_validated() -> None:
    """A tree edited in memory is checked as it is now (its ID index rebuilt from nodes)."""
    tree = brson.load(VALIDATE_FIXTURES / "clean_resonite.brson")
    assert validate(tree) == []
    slots = list(tree.walk())
    slots[2].position = (float("nan"), 0.0, 0.0)
    tag = slots[3].member("Tag")
    assert tag is not None
    tag.value = GEN.UNDEFINED_SEQUENTIAL
    other = slots[4].member("Tag")
    assert other is not None
    other.set("ID", slots[5].member("Tag").id)  # type: ignore[union-attr]
    looped = slots[6].member("Tag")
    assert looped is not None
    looped.value = looped.id
    findings = validate(tree)
    assert codes(findings) == {"BR501", "BR402", "BR401", "BR405"}
    by_code = {f.code: f for f in findings}
    assert by_code["BR501"].path == slots[2].path
    assert by_code["BR402"].path == slots[3].path + ".Tag"
    assert by_code["BR402"].element == GEN.UNDEFINED_SEQUENTIAL
    assert slots[4].path + ".Tag" in by_code["BR401"].message
    assert by_code["BR405"].path == slots[6].path + ".Tag"


def test_a_removed_component_leaves_its_references_dangling() -> None:
    tree = brson.load(VALIDATE_FIXTURES / "clean_resonite.brson")
    graph_target = None
    for slot in tree.walk():
        for component in slot.components:
            if any(tree.resolve(str(m.value)) is component for m in _members(tree)):
                graph_target = (slot, component)
                break
        if graph_target:
            break
    assert graph_target is not None
    slot, victim = graph_target
    member = slot.components_member
    assert member is not None
    items = member.child_nodes("Data", Component)
    assert items is not None
    member.set("Data", [c for c in items if c is not victim])
    findings = validate(tree)
    assert codes(findings) >= {"BR402"}
    assert all(f.element == victim.id for f in findings if f.code == "BR402")


def _members(tree: brson.DataTree) -> list[brson.Member]:
    return [m for c in tree.components() for m in c.fields.values() if isinstance(m.value, str)]


# --------------------------------------------------------------------------------------------
# Hostile shapes: depth, cycles, mutations.


def _element(key: str, value: Any) -> bytes:
    return raw.encode_element(key, value)


def nested_slots(depth: int) -> bytes:
    """A chain of ``depth`` slots as BSON, assembled innermost first (no recursion anywhere,
    where an encoder of nested dicts would hit Python's recursion limit)."""
    child = b""
    for level in reversed(range(depth)):
        n = 4 * level
        guid = [f"{n + k:08x}-0000-0000-0000-000000000000" for k in range(4)]
        children = raw.element_header(raw.ARRAY, "Children") + raw.assemble(
            [raw.element_header(raw.DOCUMENT, "0") + child] if child else []
        )
        child = raw.assemble(
            [
                _element("ID", guid[0]),
                _element("Components", {"ID": guid[1], "Data": []}),
                _element("Name", {"ID": guid[2], "Data": f"level {level}"}),
                _element("ParentReference", guid[3]),
                children,
            ]
        )
    return raw.assemble(
        [
            _element("VersionNumber", "2026.1.1.1"),
            _element("FeatureFlags", {}),
            _element("Types", []),
            _element("TypeVersions", {}),
            raw.element_header(raw.DOCUMENT, "Object") + child,
        ]
    )


def test_thousands_of_levels_validate_iteratively() -> None:
    data = brson.dumps(nested_slots(3000), codec="none")
    assert validate(data, name="deep.bson") == []
    tree = brson.loads(data, name="deep.bson")  # a NaN position at the bottom: found, named
    bottom = list(tree.walk())[-1]
    bottom.set(
        "Position", {"ID": "ffffffff-0000-0000-0000-000000000000", "Data": [math.nan, 0.0, 0.0]}
    )
    found = validate(tree)
    assert codes(found) == {"BR501"}
    assert found[0].path is not None and found[0].path.endswith("level 2999")


def test_parent_reference_cycles_are_findings_not_hangs() -> None:
    doc = copy.deepcopy(GEN.resonite_base())
    parent = GEN.slots(doc)[1]
    first, second = parent["Children"][0], parent["Children"][1]
    first["ParentReference"], second["ParentReference"] = second["ID"], first["ID"]
    findings = validate(GEN.archive(doc), name="cycle.brson")
    assert codes(findings) == {"BR404", "BR407"}
    loop = [f for f in findings if f.code == "BR404"]
    assert len(loop) == 1 and "GetActiveUserSelf" in loop[0].message


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_files_give_findings_never_exceptions(data: st.DataObject) -> None:
    """Flipped bytes, cut files and spliced junk: validate returns findings (errors when the
    file is unreadable), and nothing escapes."""
    original = bson.encode(GEN.resonite_base())
    mutated = bytearray(original)
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(mutated) - 1))
        mutated[at] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        mutated = mutated[: data.draw(st.integers(0, len(mutated)))]
    findings = validate(bytes(mutated), name="mutated.bson")
    assert all(isinstance(f, Finding) for f in findings)
    if unreadable(findings):
        assert with_severity(findings, Severity.ERROR)


def test_doubles_that_are_not_finite_are_reported_with_their_bits() -> None:
    """Infinity and every NaN bit pattern count as non-finite."""
    odd_nan = struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000001))[0]
    doc = copy.deepcopy(GEN.resonite_base())
    GEN.slots(doc)[2]["Scale"]["Data"] = [odd_nan, 1.0, 1.0]
    GEN.slots(doc)[3]["Position"]["Data"] = [0.0, -math.inf, 0.0]
    findings = validate(GEN.archive(doc), name="nan.brson")
    assert [f.code for f in findings] == ["BR501", "BR501"]


@pytest.mark.parametrize("edited", [False, True])
def test_parent_reference_repeating_a_member_or_component_id_is_a_duplicate(
    edited: bool,
) -> None:
    """A ParentReference is an ID of its own: equal to a member's or a component's ID, two
    elements share one ID (BR401). Only a slot's ID there is a link (BR406/BR407)."""
    doc = copy.deepcopy(GEN.resonite_base())
    parent = GEN.slots(doc)[1]
    first, second = parent["Children"][0], parent["Children"][1]
    first["ParentReference"] = first["Name"]["ID"]
    second["ParentReference"] = second["Components"]["Data"][0]["Data"]["ID"]
    if edited:  # through the model: the ID index is built from the nodes, not the bytes
        tree = brson.loads(GEN.archive(doc), name="dup.brson")
        tree.root.name = str(tree.root.name)
        assert tree.modified
        findings = validate(tree)
    else:
        findings = validate(GEN.archive(doc), name="dup.brson")
    assert codes(findings) - {"BR303"} == {"BR401"}
    where = "/".join(s["Name"]["Data"] for s in (doc["Object"], parent))
    got = {f.element: (f.path, f.message) for f in findings if f.code == "BR401"}
    first_path = f"{where}/{first['Name']['Data']}"
    second_path = f"{where}/{second['Name']['Data']}"
    assert got.keys() == {first["Name"]["ID"], second["Components"]["Data"][0]["Data"]["ID"]}
    assert got[first["Name"]["ID"]] == (
        f"{first_path}.ParentReference",
        f"ID {first['Name']['ID']} is defined 2 times: {first_path}.ParentReference; "
        f"{first_path}.Name",
    )
    path, message = got[second["Components"]["Data"][0]["Data"]["ID"]]
    assert path == f"{second_path}.ParentReference" and message.endswith(
        f"{second_path}:ObjectEquals"
    )
