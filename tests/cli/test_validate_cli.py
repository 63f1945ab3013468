"""``brson validate``: exit codes, the three output formats, the committed report schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from brson.cli.app import main
from brson.cli.tree import schema_text
from brson.ops.validate.report import ValidateReport, report_schema

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
FIX = PROJECT_ROOT / "fixtures" / "validate"
CLEAN = FIX / "clean_resonite.brson"
ERROR = FIX / "BR401_duplicate_id.brson"  # one error
WARNING = FIX / "BR402_dangling_reference.brson"  # one warning
INFO = FIX / "BR303_unused_type.brson"  # one info
UNREADABLE = FIX / "BR103_truncated.brson"


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["validate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("files", "strict", "expected"),
    [
        ([CLEAN], False, 0),
        ([INFO], True, 0),  # info never fails a run
        ([WARNING], False, 0),
        ([WARNING], True, 1),
        ([ERROR], False, 1),
        ([CLEAN, ERROR], False, 1),
        ([UNREADABLE], False, 2),
        ([ERROR, UNREADABLE, CLEAN], False, 2),  # unreadable wins over findings
        ([FIX / "BR101_directory.brson"], False, 2),
        ([FIX / "no-such-file.brson"], False, 2),
    ],
)
def test_exit_codes(
    capsys: pytest.CaptureFixture[str], files: list[Path], strict: bool, expected: int
) -> None:
    args = [*files, "--strict"] if strict else files
    code, out, err = run(capsys, *args)
    assert code == expected, out + err
    assert err == ""  # findings are output, not errors


def test_real_samples_pass(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(SAMPLES.glob("*.*bson")) + sorted(SAMPLES.glob("*.resonitepackage"))
    if not files:
        pytest.skip("no real samples")
    code, out, _ = run(capsys, *files)
    assert code == 0
    assert out.splitlines()[-1].startswith(f"{len(files)} file(s): 0 error(s)")
    # What the engine wrote with its own settings passes --strict; the generator's file
    # (mar_AimConstraint.pg.brson, MANIFEST.md) only has warnings that describe it truly.
    engine = [f for f in files if not f.name.endswith(".pg.brson")]
    code, out, _ = run(capsys, *engine, "--strict")
    assert code == 0, out
    assert out.splitlines()[-1].startswith(f"{len(engine)} file(s): 0 error(s), 0 warning(s)")


def test_text_lists_every_finding_then_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, CLEAN, ERROR, UNREADABLE)
    lines = out.splitlines()
    assert lines[0] == f"{CLEAN}: ok"
    assert lines[1].startswith(f"{ERROR}: error BR401: Avatar Root Identification/")
    assert lines[2].startswith(f"{UNREADABLE}: error BR103: truncated Brotli stream")
    # The per-rule summary, most frequent first, then the totals.
    assert lines[3:5] == [
        "1  BR103  error    compressed data corrupt or truncated",
        "1  BR401  error    duplicate ID",
    ]
    assert lines[5] == "3 file(s): 2 error(s), 0 warning(s), 0 info, 1 unreadable"
    assert code == 2


def test_github_annotations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, ERROR, WARNING, INFO, "--format", "github")
    lines = out.splitlines()
    assert lines[0].startswith(f"::error file={ERROR},title=BR401::Avatar Root Identification/")
    assert lines[1].startswith(f"::warning file={WARNING},title=BR402::")
    assert lines[2].startswith(f"::notice file={INFO},title=BR303::Types[19] ")
    assert lines[3:6] == [
        "1  BR303  info     type listed but unused",
        "1  BR401  error    duplicate ID",
        "1  BR402  warning  dangling reference",
    ]
    assert lines[6].startswith("brson validate: 3 file(s), 1 error(s), 1 warning(s), 1 info")
    assert code == 1


def test_github_escapes_what_would_break_a_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "a,b:c%.brson"
    odd.write_bytes(UNREADABLE.read_bytes())
    _, out, _ = run(capsys, odd, "--format", "github")
    assert out.startswith(f"::error file={tmp_path}/a%2Cb%3Ac%25.brson,title=BR103::")


def test_json_report_matches_its_schema_model(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, CLEAN, WARNING, UNREADABLE, "--format", "json", "--strict")
    data = json.loads(out)
    report = ValidateReport.model_validate(data)
    assert report.exit_code == code == 2
    assert report.strict is True
    assert report.summary.model_dump() == {
        "errors": 1,
        "warnings": 1,
        "info": 0,
        "files": 3,
        "unreadable": 1,
        "by_rule": {"BR103": 1, "BR402": 1},
        "omitted": 0,
    }
    assert [f.readable for f in report.files] == [True, True, False]
    finding = data["files"][1]["findings"][0]
    assert finding["code"] == "BR402" and finding["severity"] == "warning"
    assert finding["element"] == "0000ffff-0000-0000-0000-000000000000"
    assert data["rules"] == {
        "BR103": "compressed data corrupt or truncated",
        "BR402": "dangling reference",
    }
    assert set(data) == set(report_schema()["properties"])


def test_committed_schema_is_the_generated_one() -> None:
    committed = (PROJECT_ROOT / "schemas" / "validate-report.schema.json").read_text()
    assert committed == schema_text(report_schema()), "run `make schemas`"


def test_runs_as_a_module_for_pre_commit() -> None:
    """The pre-commit hook's entry point: the installed command, exit code passed through."""
    result = subprocess.run(
        [sys.executable, "-m", "brson", "validate", str(ERROR)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "BR401" in result.stdout
    hooks = (PROJECT_ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "entry: brson validate" in hooks
