"""``brson validate``: every problem of every file, as text, JSON, GitHub annotations or SARIF;
which rules to report (``--select`` / ``--ignore`` / ``--min-severity``, or the settings in
``pyproject.toml``), how many findings to list and a per-rule summary."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated

import typer

from brson.cli.common import (
    STDIO,
    State,
    check_output,
    expand_inputs,
    report_console,
    stderr,
    track,
    write_output,
)
from brson.cli.config import ConfigError, ValidateSettings, find_config, load_settings
from brson.ops.validate import validate as run_validation
from brson.ops.validate.findings import RULES, Finding, Severity
from brson.ops.validate.report import (
    Counts,
    FileReport,
    ValidateReport,
    build_report,
    capped,
    file_report,
    report_json,
)
from brson.ops.validate.sarif import sarif_log
from brson.ops.validate.selection import Selection, UnknownRuleError

app = typer.Typer()


class Format(enum.StrEnum):
    TEXT = "text"
    JSON = "json"
    GITHUB = "github"
    SARIF = "sarif"


class Level(enum.StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


#: GitHub workflow command per severity.
_ANNOTATION = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _codes(values: list[str] | None) -> list[str] | None:
    """``--select BR3,BR401 --select BR5``: comma-separated and repeatable, as in ruff."""
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@app.command()
def validate(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE",
            help="Archives or packages; folders (recursive, by extension) and globs name the "
            "archives in them.",
        ),
    ],
    output_format: Annotated[
        Format,
        typer.Option(
            "--format",
            help="text, json (schemas/validate-report.schema.json), github (workflow "
            "annotations) or sarif (SARIF 2.1.0, for GitHub code scanning).",
        ),
    ] = Format.TEXT,
    strict: Annotated[
        bool | None,
        typer.Option("--strict/--no-strict", help="Fail on warnings too.", show_default=False),
    ] = None,
    select: Annotated[
        list[str] | None,
        typer.Option(
            "--select",
            metavar="CODES",
            help="Report only these rules: codes or prefixes (BR3, BR401), comma-separated, "
            "repeatable; ALL for every rule.",
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore",
            metavar="CODES",
            help="Do not report these rules (codes or prefixes). The more specific of --select "
            "and --ignore wins. Unreadable-file rules are always reported.",
        ),
    ] = None,
    min_severity: Annotated[
        Level | None,
        typer.Option("--min-severity", help="Report findings of this severity and above."),
    ] = None,
    max_findings: Annotated[
        int | None,
        typer.Option(
            "--max-findings",
            min=0,
            metavar="N",
            help="List at most N findings; the summary and exit code still count them all.",
        ),
    ] = None,
    statistics: Annotated[
        bool,
        typer.Option(
            "--statistics", help="Only the number of findings of each rule, then the summary."
        ),
    ] = False,
    sarif_file: Annotated[
        Path | None,
        typer.Option(
            "--sarif",
            metavar="FILE",
            help="Also write a SARIF 2.1.0 log to FILE (annotations and code scanning in one "
            "run); - puts it alone on stdout, and the report on stderr.",
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="Read settings from this pyproject.toml instead of the nearest one.",
        ),
    ] = None,
    isolated: Annotated[
        bool, typer.Option("--isolated", help="Ignore every settings file.")
    ] = False,
) -> None:
    """Check archives: container, codec, BSON, tree shape, types, IDs and references,
    transforms, generation mix-ups (docs/validation.md). Settings come from tool.brson.validate
    in the nearest pyproject.toml (this folder or above); options override them. Exit 0 clean,
    1 errors (--strict: or warnings), 2 a file could not be read."""
    settings = _settings(config, isolated)
    selection = Selection.of(
        select=_selectors(select, settings.select, "--select", settings),
        ignore=_selectors(ignore, settings.ignore, "--ignore", settings),
        min_severity=min_severity or settings.min_severity or Severity.INFO,
    )
    strict = bool(settings.strict) if strict is None else strict
    limit = max_findings if max_findings is not None else settings.max_findings
    paths = expand_inputs(files)
    check_output(sarif_file, *paths, option="--sarif")
    if State.verbose:
        _say_settings(settings, selection, len(paths))

    reports: list[FileReport] = []
    for path in track(paths, "validating", total=len(paths)):
        findings = run_validation(path, max_size=State.max_size, selection=selection)
        reports.append(file_report(str(path), findings))
    full = build_report(reports, strict=strict)
    # --statistics lists no finding in the report shown; a SARIF log keeps them (up to the cap),
    # since code scanning has no use for counts alone.
    listed = capped(full, limit)
    report = capped(full, 0) if statistics else listed

    if sarif_file is not None:
        write_output(sarif_file, _sarif_text(listed, selection))
    # With --sarif -, stdout holds the SARIF log alone: the report goes to stderr (a SARIF
    # report, the same log, is not written twice).
    if output_format is Format.JSON:
        report_console().file.write(report_json(report))
    elif output_format is Format.SARIF:
        if str(sarif_file) != STDIO:
            report_console().file.write(_sarif_text(listed, selection).decode())
    elif output_format is Format.GITHUB:
        _github(report, statistics)
    else:
        _text(report, statistics)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


def _selectors(
    given: list[str] | None, configured: list[str] | None, option: str, settings: ValidateSettings
) -> list[str]:
    """The option's codes if given, else the setting's; each checked against the rules (a
    typo must not silently select or ignore nothing)."""
    codes = _codes(given) or [] if given is not None else configured or []
    try:
        Selection.of(select=codes)
    except UnknownRuleError as exc:
        if given is not None:
            raise typer.BadParameter(str(exc), param_hint=f"'{option}'") from None
        key = option.removeprefix("--")
        raise ConfigError(
            f"[tool.brson.validate] {key}: {exc}", file=str(settings.source)
        ) from None
    return codes


def _settings(config: Path | None, isolated: bool) -> ValidateSettings:
    if isolated:
        return ValidateSettings()
    try:
        found = config if config is not None else find_config()
    except OSError as exc:  # the current directory is gone
        raise ConfigError(f"cannot look for settings ({exc.strerror})") from None
    return load_settings(found)


def _say_settings(settings: ValidateSettings, selection: Selection, files: int) -> None:
    source = f"settings from {settings.source}" if settings.source else "no settings file"
    enabled = len(selection.rules())
    stderr.print(
        f"brson: {source}; {enabled} of {len(RULES)} rules, severity {selection.min_severity} "
        f"and above; {files} file(s)",
        markup=False,
    )


def _sarif_text(report: ValidateReport, selection: Selection) -> bytes:
    from brson import __version__

    log = sarif_log(report, tool_version=__version__, rules=selection.rules())
    return (json.dumps(log, indent=2, ensure_ascii=False) + "\n").encode()


def _text(report: ValidateReport, statistics: bool) -> None:
    quiet = State.quiet
    console = report_console()
    for item in report.files:
        if item.counts == Counts() and not quiet and not statistics:
            console.print(f"{item.file}: ok", markup=False)
        for finding in item.findings:
            console.print(_line(item.file, finding), markup=False)
    if quiet:
        return
    s = report.summary
    if s.omitted and not statistics:
        console.print(
            f"… {s.omitted} more finding(s) not listed (--max-findings); every one is counted "
            "below",
            markup=False,
        )
    for line in _rule_lines(report):
        console.print(line, markup=False)
    unreadable = f", {s.unreadable} unreadable" if s.unreadable else ""
    console.print(
        f"{s.files} file(s): {s.errors} error(s), {s.warnings} warning(s), {s.info} info"
        f"{unreadable}",
        markup=False,
    )


def _rule_lines(report: ValidateReport) -> list[str]:
    """The per-rule summary: count, code, severity and title, most frequent first."""
    by_rule = report.summary.by_rule
    if not by_rule:
        return []
    width = len(str(max(by_rule.values())))
    ordered = sorted(by_rule.items(), key=lambda item: (-item[1], item[0]))
    return [
        f"{count:>{width}}  {code}  {RULES[code].severity:<7}  {RULES[code].title}"
        for code, count in ordered
    ]


def _line(file: str, finding: Finding) -> str:
    at = f" {finding.path}:" if finding.path else ""
    offset = f" (offset {finding.offset})" if finding.offset is not None else ""
    return (
        f"{finding.file or file}: {finding.severity} {finding.code}:{at} {finding.message}{offset}"
    )


def _github(report: ValidateReport, statistics: bool) -> None:
    """One workflow command per finding: ``::error file=F,title=BR401::message``."""
    out = report_console().file
    for item in report.files:
        for finding in item.findings:
            at = f"{finding.path}: " if finding.path else ""
            offset = f" (offset {finding.offset})" if finding.offset is not None else ""
            out.write(
                f"::{_ANNOTATION[finding.severity]} file={_property(item.file)},"
                f"title={_property(finding.code)}::{_data(at + finding.message + offset)}\n"
            )
    if State.quiet:
        return
    for line in _rule_lines(report):
        out.write(line + "\n")
    s = report.summary
    omitted = f", {s.omitted} not listed (--max-findings)" if s.omitted and not statistics else ""
    out.write(
        f"brson validate: {s.files} file(s), {s.errors} error(s), {s.warnings} warning(s), "
        f"{s.info} info, {s.unreadable} unreadable{omitted}\n"
    )


def _data(text: str) -> str:
    """Escape a workflow command's message (GitHub's escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """Escape a workflow command's property value (GitHub's escapeProperty)."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")
