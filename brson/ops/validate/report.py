"""The report of a run over several files: what ``brson validate --format json`` prints.

The JSON Schema in ``schemas/validate-report.schema.json`` is generated from these models by
:func:`report_schema` (``make schemas`` rewrites it; a test keeps the committed file equal).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field
from pydantic_core import PydanticSerializationError

from brson.ops.validate.findings import RULES, Finding, Severity

#: Bumped when the report's shape changes incompatibly.
REPORT_VERSION = 1

#: Exit codes: nothing at the failing level, findings at it, a file that could not be read.
EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


class Counts(BaseModel):
    errors: int = 0
    warnings: int = 0
    info: int = 0

    def add(self, finding: Finding) -> None:
        if finding.severity is Severity.ERROR:
            self.errors += 1
        elif finding.severity is Severity.WARNING:
            self.warnings += 1
        else:
            self.info += 1


class FileReport(BaseModel):
    """The findings of one file, in the order they were found."""

    file: str
    readable: bool = Field(description="False when a finding says the file could not be read.")
    counts: Counts
    findings: list[Finding]


class Summary(Counts):
    files: int = 0
    unreadable: int = 0
    by_rule: dict[str, int] = Field(
        default_factory=dict, description="Number of findings of each rule code that occurs."
    )
    omitted: int = Field(
        default=0,
        description="Findings counted here but not listed in files (--max-findings).",
    )


class ValidateReport(BaseModel):
    """``brson validate --format json``: every file's findings and the resulting exit code."""

    version: int = Field(default=REPORT_VERSION, description="Version of this report's shape.")
    strict: bool = Field(description="Whether warnings fail the run (--strict).")
    exit_code: int = Field(description="0 clean, 1 findings at the failing level, 2 unreadable.")
    summary: Summary
    files: list[FileReport]
    rules: dict[str, str] = Field(
        default_factory=dict, description="Title of every rule code that occurs."
    )


def file_report(file: str, findings: list[Finding]) -> FileReport:
    counts = Counts()
    for finding in findings:
        counts.add(finding)
    readable = not any(RULES[f.code].unreadable for f in findings)
    return FileReport(file=file, readable=readable, counts=counts, findings=findings)


def build_report(files: list[FileReport], *, strict: bool = False) -> ValidateReport:
    summary = Summary(files=len(files))
    codes: set[str] = set()
    for item in files:
        summary.errors += item.counts.errors
        summary.warnings += item.counts.warnings
        summary.info += item.counts.info
        summary.unreadable += not item.readable
        for finding in item.findings:
            codes.add(finding.code)
            summary.by_rule[finding.code] = summary.by_rule.get(finding.code, 0) + 1
    if summary.unreadable:
        code = EXIT_UNREADABLE
    elif summary.errors or (strict and summary.warnings):
        code = EXIT_FINDINGS
    else:
        code = EXIT_OK
    summary.by_rule = dict(sorted(summary.by_rule.items()))
    rules = {c: RULES[c].title for c in sorted(codes)}
    return ValidateReport(strict=strict, exit_code=code, summary=summary, files=files, rules=rules)


def capped(report: ValidateReport, limit: int | None) -> ValidateReport:
    """The report listing at most ``limit`` findings (the first ones, file by file); the counts,
    the per-rule numbers and the exit code still cover them all, and ``summary.omitted`` says
    how many are not listed (``--max-findings``: a big world can have thousands)."""
    if limit is None:
        return report
    left = limit
    files: list[FileReport] = []
    omitted = 0
    for item in report.files:
        kept = item.findings[: max(left, 0)]
        left -= len(kept)
        omitted += len(item.findings) - len(kept)
        files.append(item.model_copy(update={"findings": kept}))
    summary = report.summary.model_copy(update={"omitted": omitted})
    return report.model_copy(update={"files": files, "summary": summary})


def report_json(report: ValidateReport) -> str:
    """The report as ``--format json`` prints it: ``json.dumps(report.model_dump(mode="json"),
    indent=2, ensure_ascii=False)`` and a newline, written by pydantic's serializer.  Why:
    with an indent, ``json`` encodes in Python (several times slower on thousands of
    findings).  The text is the same: the report holds strings, integers,
    booleans and nulls, which both write alike (two-space indent, ``": "``, non-ASCII as is,
    the same escapes).  Text pydantic refuses (a lone surrogate, as in a file name that is
    not UTF-8) goes through ``json`` as before."""
    try:
        return report.model_dump_json(indent=2) + "\n"
    except PydanticSerializationError:
        return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def report_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`ValidateReport` (``make schemas`` writes it with the
    document schemas)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **ValidateReport.model_json_schema(),
    }
