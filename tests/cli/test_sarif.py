"""``brson validate --format sarif`` and ``--sarif FILE``: SARIF 2.1.0 for GitHub code scanning,
checked against the official schema shipped in tests/data (issue 18)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from brson.cli.app import main
from brson.ops.validate import RULES
from brson.ops.validate.sarif import SARIF_SCHEMA, artifact_uri

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DATA = PROJECT_ROOT / "tests" / "data"
FIX = PROJECT_ROOT / "fixtures" / "validate"
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
VALIDATOR = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.FormatChecker())


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def check_sarif(log: dict[str, Any]) -> None:
    errors = sorted(VALIDATOR.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def test_the_shipped_schemas_are_the_published_ones() -> None:
    """Byte for byte what tests/data/README.md says was taken from the registries."""
    readme = (DATA / "README.md").read_text()
    for name in ("sarif-schema-2.1.0.json", "github-action.schema.json"):
        digest = hashlib.sha256((DATA / name).read_bytes()).hexdigest()
        assert f"{digest}  {name}" in readme, name
    assert SCHEMA["$id"] == SARIF_SCHEMA
    assert SCHEMA["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_every_rule_fixture_gives_a_valid_log(capsys: pytest.CaptureFixture[str]) -> None:
    """One run over every fixture (all rule families, unreadable files, packages)."""
    code, out, err = run(capsys, "validate", FIX, "--format", "sarif")
    assert code == 2 and err == ""
    log = json.loads(out)
    check_sarif(log)
    assert log["version"] == "2.1.0" and log["$schema"] == SARIF_SCHEMA
    [sarif_run] = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "brson"
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted(RULES)  # every rule was selected
    names = [r["name"] for r in rules]
    assert len(set(names)) == len(names) and all(
        re.fullmatch(r"[A-Z][A-Za-z0-9]+", n) for n in names
    )
    assert rules[sorted(RULES).index("BR401")]["name"] == "DuplicateId"
    found = {r["ruleId"] for r in sarif_run["results"]}
    assert {code for code in RULES if code != "BR101"} <= found  # BR101: a directory
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for result in sarif_run["results"]:
        rule = rules[result["ruleIndex"]]
        assert rule["id"] == result["ruleId"]
        assert result["level"] == levels[RULES[result["ruleId"]].severity]
        assert rule["defaultConfiguration"]["level"] == result["level"]
        [location] = result["locations"]
        uri = location["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith(artifact_uri(str(FIX)) + "/")
        assert location["physicalLocation"]["region"] == {"startLine": 1}
    assert sarif_run["invocations"][0]["exitCode"] == 2


def test_real_samples_give_a_valid_log(capsys: pytest.CaptureFixture[str]) -> None:
    if not SAMPLES.is_dir():
        pytest.skip("real samples not found")
    code, out, _ = run(capsys, "validate", SAMPLES, "--format", "sarif")
    assert code == 0
    log = json.loads(out)
    check_sarif(log)
    results = log["runs"][0]["results"]
    with_path = [r for r in results if "logicalLocations" in r["locations"][0]]
    assert with_path, "findings inside the tree name their slot path"
    name = with_path[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
    assert with_path[0]["message"]["text"].startswith(name + ": ")


def test_selection_and_cap_reach_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    files = [FIX / "BR401_duplicate_id.brson", FIX / "BR402_dangling_reference.brson"]
    code, out, _ = run(
        capsys, "validate", *files, "--format", "sarif", "--select", "BR40", "--max-findings", "1"
    )
    assert code == 1
    log = json.loads(out)
    check_sarif(log)
    sarif_run = log["runs"][0]
    # the selected rules, and those saying a file is unreadable (never deselected)
    assert [r["id"] for r in sarif_run["tool"]["driver"]["rules"]] == [
        c for c in sorted(RULES) if c.startswith("BR40") or RULES[c].unreadable
    ]
    assert [r["ruleId"] for r in sarif_run["results"]] == ["BR401"]
    assert sarif_run["properties"]["omitted"] == 1


def test_sarif_file_beside_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The Action's call: annotations on stdout and a SARIF file, from one run."""
    bad = FIX / "BR401_duplicate_id.brson"
    target = tmp_path / "out" / "brson.sarif"
    target.parent.mkdir()
    code, out, _ = run(capsys, "validate", bad, "--format", "github", "--sarif", target)
    assert code == 1
    assert out.startswith(f"::error file={bad},title=BR401::")
    log = json.loads(target.read_text())
    check_sarif(log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["BR401"]
    # --statistics shortens what is printed, not the log
    code, out, _ = run(capsys, "validate", bad, "--statistics", "--sarif", target)
    assert out.splitlines()[0] == "1  BR401  error    duplicate ID"
    assert [r["ruleId"] for r in json.loads(target.read_text())["runs"][0]["results"]] == ["BR401"]


def test_sarif_file_never_overwrites_an_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "world.brson"
    victim.write_bytes((FIX / "clean_resonite.brson").read_bytes())
    code, _, err = run(capsys, "validate", victim, "--sarif", victim)
    assert code == 2 and "never writes over its inputs" in err
    assert victim.read_bytes() == (FIX / "clean_resonite.brson").read_bytes()


@pytest.mark.parametrize(
    ("name", "uri"),
    [
        ("worlds/a b.brson", "worlds/a%20b.brson"),
        ("100%.brson", "100%25.brson"),
        ("./x/#1.brson", "x/%231.brson"),
    ],
)
def test_artifact_uris_are_uri_references(name: str, uri: str) -> None:
    assert artifact_uri(name) == uri
    assert artifact_uri("/abs/a b.brson") == "file:///abs/a%20b.brson"
