"""``brson extract`` prints a summary by default (counts, closure size, external references by
kind), the lists with ``-v``, everything with ``--json``; a closure much larger than the
subtree is warned about on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brson.cli.app import main
from brson.ops.extract import CLOSURE_WARNING_MIN, ExtractReport

CORESYS = "mar_coresys.resonitepackage"
#: ``.../Settings Copier - (162 Nodes)/ButtonEvents``: 1 slot, 2 components, 114 copied along.
BUTTON_EVENTS = "00000139-0000-0000-0000-000000000000"


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_summary_is_short_and_warns_about_the_closure(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = samples_dir / CORESYS, tmp_path / "x.brson"
    code, text, err = run(capsys, "extract", src, "-s", BUTTON_EVENTS, "-o", out)
    assert code == 0
    lines = text.splitlines()
    assert len(lines) == 5, text
    assert lines[0].startswith("extracted '") and lines[0].endswith(f"/ButtonEvents' -> {out}")
    assert lines[1].startswith("  ") and " slots, " in lines[1] and " types (" in lines[1]
    assert lines[1].endswith(" assets")
    assert lines[2] == (
        "  closure: 114 referenced component(s) copied along to the 1-slot, 2-component subtree"
    )
    assert lines[3] == "  1 reference(s) leave the subtree (kept): 1 to slots outside"
    assert lines[4] == "  (-v lists them, --json gives the full report)"
    warnings = err.splitlines()
    assert warnings[0] == (
        "brson: warning: the closure is much larger than the subtree: 114 component(s) copied "
        "along for a subtree of 1 slot(s) and 2 component(s) (--no-dependencies leaves them "
        "out)"
    )
    # A package's asset, named by the subtree, cannot go into a bare archive: said, not dropped.
    assert len(warnings) == 2 and warnings[1].startswith(
        "brson: warning: 1 package asset(s) the subtree names are left behind"
    )
    assert "--package" in warnings[1]


def test_verbose_lists_everything(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = samples_dir / CORESYS, tmp_path / "x.brson"
    code, text, _ = run(capsys, "extract", src, "-s", BUTTON_EVENTS, "-o", out, "-v")
    assert code == 0
    assert "  114 referenced component(s) copied along:" in text
    assert len(text.splitlines()) > 114


def test_json_has_the_full_report_and_the_summary_fields(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = samples_dir / CORESYS, tmp_path / "x.brson"
    code, text, err = run(capsys, "extract", src, "-s", BUTTON_EVENTS, "-o", out, "--json")
    assert code == 0 and "much larger" in err
    report = json.loads(text)
    assert len(report["copied"]) == 114 and len(report["external"]) == 1
    assert (report["subtree_slots"], report["subtree_components"]) == (1, 2)
    assert report["external_by_kind"] == {"slot": 1}
    assert report["closure_warning"].startswith("the closure is much larger")


def test_no_warning_without_dependencies(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = samples_dir / CORESYS, tmp_path / "x.brson"
    args = ("extract", src, "-s", BUTTON_EVENTS, "-o", out, "--no-dependencies")
    code, text, err = run(capsys, *args)
    assert code == 0 and err == ""
    assert "closure: 0 referenced component(s)" in text
    assert "reference(s) leave the subtree (kept): " in text and "to components left" in text


@pytest.mark.parametrize(
    ("copied", "subtree", "warned"),
    [
        (CLOSURE_WARNING_MIN - 1, 1, False),  # few: never
        (CLOSURE_WARNING_MIN, 1, True),
        (50, 50, False),  # no more than the subtree has
        (51, 50, True),
    ],
)
def test_closure_warning_rule(copied: int, subtree: int, warned: bool) -> None:
    report = ExtractReport(slot="S", slot_id=None, subtree_slots=1, subtree_components=subtree)
    report.copied = [None] * copied  # type: ignore[list-item]  # only counted
    assert (report.closure_warning is not None) is warned
