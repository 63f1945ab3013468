"""``brson validate`` rule selection as ruff does it (``--select``, ``--ignore``,
``--min-severity``), ``--max-findings``, ``--statistics``, the per-rule summary, and the
settings in ``pyproject.toml`` ``[tool.brson.validate]`` (issue 18)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brson.cli.app import main
from brson.ops.validate import RULES, Selection, UnknownRuleError, validate
from brson.ops.validate.findings import Severity

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FIX = PROJECT_ROOT / "fixtures" / "validate"
ERROR = FIX / "BR401_duplicate_id.brson"  # one error
WARNING = FIX / "BR402_dangling_reference.brson"  # one warning
INFO = FIX / "BR303_unused_type.brson"  # one info
UNREADABLE = FIX / "BR103_truncated.brson"
THREE = [ERROR, WARNING, INFO]


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def codes(out: str) -> list[str]:
    """Rule codes of the findings in a text report, in order."""
    return [
        line.split()[2].rstrip(":") for line in out.splitlines() if ": " in line and " BR" in line
    ]


# -- the selection itself (ops layer, reusable by the API) -------------------------------------
@pytest.mark.parametrize(
    ("select", "ignore", "enabled", "disabled"),
    [
        ((), (), ["BR101", "BR303", "BR401", "BR607"], []),
        (("BR4",), (), ["BR401", "BR408"], ["BR303", "BR501"]),
        (("BR3", "BR401"), (), ["BR301", "BR401"], ["BR402"]),
        (("BR4",), ("BR403",), ["BR401", "BR402"], ["BR403"]),
        # The more specific wins, either way round (ruff's rule).
        (("BR403",), ("BR4",), ["BR403"], ["BR401", "BR402"]),
        (("ALL",), ("BR6",), ["BR401"], ["BR601", "BR607"]),
        ((), ("BR",), [], ["BR401", "BR303"]),
        (("br40",), (), ["BR401", "BR408"], ["BR410" if "BR410" in RULES else "BR501"]),
    ],
)
def test_selection_prefixes_and_specificity(
    select: tuple[str, ...], ignore: tuple[str, ...], enabled: list[str], disabled: list[str]
) -> None:
    chosen = Selection.of(select, ignore)
    for code in enabled:
        assert chosen.enables(code), code
    for code in disabled:
        assert not chosen.enables(code), code


def test_unreadable_rules_cannot_be_ignored() -> None:
    """A file that was never checked cannot pass: BR103 stays, like ruff's syntax errors."""
    chosen = Selection.of(ignore=["BR1"], min_severity="error")
    assert chosen.enables("BR103") and RULES["BR103"].unreadable
    assert not chosen.enables("BR108")  # a BR1 warning that does not make the file unreadable
    assert [f.code for f in validate(UNREADABLE, selection=chosen)] == ["BR103"]


def test_min_severity() -> None:
    warning_up = Selection.of(min_severity=Severity.WARNING)
    assert warning_up.enables("BR401") and warning_up.enables("BR402")
    assert not warning_up.enables("BR303")
    errors = Selection.of(min_severity="error")
    assert errors.rules() == sorted(
        c for c, r in RULES.items() if r.severity == "error" or r.unreadable
    )


@pytest.mark.parametrize("bad", ["BR9", "BR4011", "E501", "", "XX"])
def test_a_selector_that_names_no_rule_is_refused(bad: str) -> None:
    with pytest.raises(UnknownRuleError, match="no rule code"):
        Selection.of(select=[bad])


def test_api_validate_takes_a_selection() -> None:
    assert [f.code for f in validate(ERROR)] == ["BR401"]
    assert validate(ERROR, selection=Selection.of(ignore=["BR401"])) == []


# -- the command line -------------------------------------------------------------------------
def test_select_and_ignore_change_findings_and_exit_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "validate", *THREE)
    assert code == 1 and codes(out) == ["BR401", "BR402", "BR303"]
    code, out, _ = run(capsys, "validate", *THREE, "--ignore", "BR401")
    assert code == 0 and codes(out) == ["BR402", "BR303"]
    assert f"{ERROR}: ok" in out.splitlines()
    code, out, _ = run(capsys, "validate", *THREE, "--select", "BR3,BR401")
    assert code == 1 and codes(out) == ["BR401", "BR303"]
    code, out, _ = run(capsys, "validate", *THREE, "--select", "BR3", "--select", "br402")
    assert code == 0 and codes(out) == ["BR402", "BR303"]
    code, out, _ = run(capsys, "validate", *THREE, "--select", "BR4", "--ignore", "BR401")
    assert code == 0 and codes(out) == ["BR402"]
    # --strict fails on warnings, but only on those selected
    code, _, _ = run(capsys, "validate", WARNING, "--strict")
    assert code == 1
    code, _, _ = run(capsys, "validate", WARNING, "--strict", "--ignore", "BR402")
    assert code == 0


def test_min_severity_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", *THREE, "--min-severity", "warning")
    assert code == 1 and codes(out) == ["BR401", "BR402"]
    code, out, _ = run(capsys, "validate", *THREE, "--min-severity", "error", "--format", "json")
    data = json.loads(out)
    assert data["summary"]["by_rule"] == {"BR401": 1}
    assert (data["summary"]["warnings"], data["summary"]["info"]) == (0, 0)


def test_unknown_selector_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "validate", ERROR, "--select", "BR9")
    assert code == 2 and out == ""
    assert "'BR9' is no rule code nor a prefix of one" in err and "--select" in err


def test_max_findings_lists_some_and_counts_all(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", *THREE, "--max-findings", "1")
    lines = out.splitlines()
    assert code == 1  # the exit code covers every finding
    assert codes(out) == ["BR401"]
    assert lines[1] == (
        "… 2 more finding(s) not listed (--max-findings); every one is counted below"
    )
    assert lines[-1] == "3 file(s): 1 error(s), 1 warning(s), 1 info"
    # a file whose findings were cut is not "ok"
    assert not any(line.endswith(": ok") for line in lines)
    code, out, _ = run(capsys, "validate", *THREE, "--max-findings", "1", "--format", "json")
    data = json.loads(out)
    assert data["summary"]["omitted"] == 2 and data["summary"]["errors"] == 1
    assert [len(f["findings"]) for f in data["files"]] == [1, 0, 0]
    assert [f["counts"] for f in data["files"]][1] == {"errors": 0, "warnings": 1, "info": 0}
    code, out, _ = run(capsys, "validate", *THREE, "--max-findings", "0", "--format", "github")
    assert not out.startswith("::") and "2 not listed" not in out and "3 not listed" in out


def test_statistics_and_the_per_rule_summary(capsys: pytest.CaptureFixture[str]) -> None:
    files = [ERROR, ERROR.with_name("BR404_parent_reference_loop.brson"), WARNING, INFO]
    code, out, _ = run(capsys, "validate", *files, "--statistics")
    assert code == 1
    assert out.splitlines() == [
        "1  BR303  info     type listed but unused",
        "1  BR401  error    duplicate ID",
        "1  BR402  warning  dangling reference",
        "1  BR404  error    ParentReference loop",
        "4 file(s): 2 error(s), 1 warning(s), 1 info",
    ]


def test_per_rule_summary_orders_by_count(capsys: pytest.CaptureFixture[str]) -> None:
    mixed = PROJECT_ROOT.parent / "shared" / "samples" / "mar_AimConstraint.pg.brson"
    if not mixed.exists():
        pytest.skip("real samples not found")
    code, out, _ = run(capsys, "validate", mixed, "--statistics")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["43", "BR504"]
    counts = [int(line.split()[0]) for line in lines[:-1]]
    assert counts == sorted(counts, reverse=True)


def test_quiet_prints_findings_only(capsys: pytest.CaptureFixture[str]) -> None:
    clean = FIX / "clean_resonite.brson"
    code, out, _ = run(capsys, "-q", "validate", clean, ERROR)
    assert code == 1
    assert codes(out) == ["BR401"] and len(out.splitlines()) == 1
    code, out, _ = run(capsys, "--quiet", "validate", clean)
    assert code == 0 and out == ""


# -- settings in pyproject.toml -----------------------------------------------------------------
def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n{table}')
    sub = tmp_path / "worlds" / "deep"
    sub.mkdir(parents=True)
    return sub


def test_settings_are_found_upward_and_options_override_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = _project(
        tmp_path,
        '[tool.brson.validate]\nignore = ["BR401"]\nmin-severity = "warning"\nstrict = true\n',
    )
    # A pyproject.toml without the table in between is passed over, as ruff does.
    (sub.parent / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    monkeypatch.chdir(sub)
    code, out, _ = run(capsys, "validate", *THREE)
    assert codes(out) == ["BR402"] and code == 1  # strict from the settings
    code, out, _ = run(capsys, "validate", *THREE, "--no-strict")
    assert codes(out) == ["BR402"] and code == 0
    code, out, _ = run(capsys, "validate", *THREE, "--ignore", "BR402")  # replaces the setting
    assert codes(out) == ["BR401"] and code == 1
    code, out, _ = run(capsys, "validate", *THREE, "--min-severity", "info")
    assert codes(out) == ["BR402", "BR303"]
    code, out, _ = run(capsys, "validate", *THREE, "--isolated")
    assert codes(out) == ["BR401", "BR402", "BR303"] and code == 1
    code, _, err = run(capsys, "-v", "validate", *THREE)
    assert err.startswith(f"brson: settings from {tmp_path / 'pyproject.toml'}; ")
    assert "severity warning and above; 3 file(s)" in err


def test_settings_from_an_explicit_file_and_max_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "elsewhere.toml"
    config.write_text('[tool.brson.validate]\nselect = ["BR4", "BR3"]\nmax-findings = 1\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "validate", *THREE, "--config", config)
    assert codes(out) == ["BR401"] and "2 more finding(s)" in out
    code, out, _ = run(capsys, "validate", *THREE, "--config", config, "--max-findings", "5")
    assert codes(out) == ["BR401", "BR402", "BR303"]
    code, out, _ = run(capsys, "validate", *THREE, "--config", config, "--select", "BR3")
    assert codes(out) == ["BR303"] and code == 0


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[tool.brson.validate]\nselct = ["BR4"]\n', "has no setting 'selct'"),
        ('[tool.brson.validate]\nselect = "BR4"\n', "select must be a list of rule codes"),
        ('[tool.brson.validate]\nselect = ["BR9"]\n', "select: 'BR9' is no rule code"),
        ('[tool.brson.validate]\nmin-severity = "loud"\n', "min-severity must be"),
        ("[tool.brson.validate]\nmax-findings = -1\n", "max-findings must be"),
        ("[tool.brson.validate\n", "not valid TOML"),
    ],
)
def test_bad_settings_are_one_line_naming_the_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    table: str,
    message: str,
) -> None:
    (tmp_path / "pyproject.toml").write_text(table)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "validate", ERROR)
    assert code == 2 and out == ""
    assert message in err and str(tmp_path / "pyproject.toml") in err
    assert len(err.strip().splitlines()) == 1


def test_readme_settings_block_works_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for doc, heading in (("README.md", "### Choosing rules"), ("docs/validation.md", "```toml")):
        text = (PROJECT_ROOT / doc).read_text()
        start = text.index(heading)
        block = text[text.index("```toml\n", start) + 8 :]
        block = block[: block.index("```")]
        project = tmp_path / doc.replace("/", "_")
        project.mkdir()
        (project / "pyproject.toml").write_text(block)
        monkeypatch.chdir(project)
        code, out, err = run(capsys, "validate", *THREE, FIX / "BR403_external_guid.brson")
        assert err == "", doc
        # ignore BR403, warnings and up, strict: BR401 and BR402 reported, exit 1
        assert codes(out) == ["BR401", "BR402"] and code == 1, doc
