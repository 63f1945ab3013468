"""``brson validate``: every problem of every file, as text, JSON or GitHub annotations."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from brson.cli.common import State, print_json, stdout, track
from brson.ops.validate import validate as run_validation
from brson.ops.validate.findings import Finding, Severity
from brson.ops.validate.report import FileReport, ValidateReport, build_report, file_report

app = typer.Typer()


class Format(enum.StrEnum):
    TEXT = "text"
    JSON = "json"
    GITHUB = "github"


#: GitHub workflow command per severity.
_ANNOTATION = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


@app.command()
def validate(
    files: Annotated[list[Path], typer.Argument(help="Archives or packages.")],
    output_format: Annotated[
        Format,
        typer.Option(
            "--format",
            help="text, json (schemas/validate-report.schema.json) "
            "or github (workflow annotations).",
        ),
    ] = Format.TEXT,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
) -> None:
    """Check archives: container, codec, BSON, tree shape, types, IDs and references,
    transforms, generation mix-ups (docs/validation.md). Exit 0 clean, 1 errors (--strict:
    or warnings), 2 a file could not be read."""
    reports: list[FileReport] = []
    for path in track(files, "validating", total=len(files)):
        findings = run_validation(path, max_size=State.max_size)
        reports.append(file_report(str(path), findings))
    report = build_report(reports, strict=strict)
    if output_format is Format.JSON:
        print_json(report.model_dump(mode="json"))
    elif output_format is Format.GITHUB:
        _github(report)
    else:
        _text(report)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


def _text(report: ValidateReport) -> None:
    for item in report.files:
        if not item.findings:
            stdout.print(f"{item.file}: ok", markup=False)
        for finding in item.findings:
            stdout.print(_line(item.file, finding), markup=False)
    s = report.summary
    unreadable = f", {s.unreadable} unreadable" if s.unreadable else ""
    stdout.print(
        f"{s.files} file(s): {s.errors} error(s), {s.warnings} warning(s), {s.info} info"
        f"{unreadable}",
        markup=False,
    )


def _line(file: str, finding: Finding) -> str:
    at = f" {finding.path}:" if finding.path else ""
    offset = f" (offset {finding.offset})" if finding.offset is not None else ""
    return (
        f"{finding.file or file}: {finding.severity} {finding.code}:{at} {finding.message}{offset}"
    )


def _github(report: ValidateReport) -> None:
    """One workflow command per finding: ``::error file=F,title=BR401::message``."""
    for item in report.files:
        for finding in item.findings:
            at = f"{finding.path}: " if finding.path else ""
            offset = f" (offset {finding.offset})" if finding.offset is not None else ""
            stdout.file.write(
                f"::{_ANNOTATION[finding.severity]} file={_property(item.file)},"
                f"title={_property(finding.code)}::{_data(at + finding.message + offset)}\n"
            )
    s = report.summary
    stdout.file.write(
        f"brson validate: {s.files} file(s), {s.errors} error(s), {s.warnings} warning(s), "
        f"{s.info} info, {s.unreadable} unreadable\n"
    )


def _data(text: str) -> str:
    """Escape a workflow command's message (GitHub's escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """Escape a workflow command's property value (GitHub's escapeProperty)."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")
