"""A validation report as a SARIF 2.1.0 log, for GitHub code scanning and other SARIF viewers.

One run, tool ``brson`` with every reported rule (code, title, why, default level), one result
per finding.  Archives are binary: a finding's place is its file (``artifactLocation``), its
slot path (a logical location) and, when known, its byte offset as a property, since that
offset is in the layer the rule is about (the compressed payload, the BSON document), not in
the file, so it is no SARIF ``byteOffset``.  GitHub requires a line, so each region is line 1.
Validated in tests against the official schema (tests/data/sarif-schema-2.1.0.json).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from brson.ops.validate.findings import RULES, Finding, Severity
from brson.ops.validate.report import ValidateReport

SARIF_VERSION = "2.1.0"
#: The ``$id`` of the official schema (OASIS TC repository), shipped in tests/data.
SARIF_SCHEMA = (
    "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
)

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def artifact_uri(file: str) -> str:
    """A file name as a URI reference: relative names stay relative (GitHub resolves them
    against the repository root), with ``/`` and percent-escapes; absolute ones are ``file:``."""
    path = Path(file)
    if path.is_absolute():
        return path.as_uri()
    return quote(PurePosixPath(*path.parts).as_posix() if path.parts else file, safe="/")


def _fingerprint(finding: Finding) -> str:
    """Stable across runs and line-free: rule, place and message, hashed."""
    text = "\0".join((finding.code, finding.path or "", finding.element or "", finding.message))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _result(file: str, finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(finding.file or file)},
            "region": {"startLine": 1},
        }
    }
    if finding.path:
        # A slot path, with ':Component' and '.field[i]' when the finding is about one.
        location["logicalLocations"] = [{"fullyQualifiedName": finding.path}]
    properties: dict[str, Any] = {}
    if finding.offset is not None:
        properties["offset"] = finding.offset
    if finding.element is not None:
        properties["element"] = finding.element
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": index[finding.code],
        "level": _LEVEL[finding.severity],
        "message": {
            "text": f"{finding.path}: {finding.message}" if finding.path else finding.message
        },
        "locations": [location],
        "partialFingerprints": {"brsonFinding/v1": _fingerprint(finding)},
    }
    if properties:
        result["properties"] = properties
    return result


def _rule_name(title: str) -> str:
    """A rule's SARIF ``name``, as tools show it: ``DuplicateId``, ``ParentReferenceLoop``."""
    words = re.findall(r"[A-Za-z0-9]+", re.sub(r"'s\b", "", title))
    return "".join(
        w[:1].upper() + w[1:].lower() if w.isupper() and len(w) > 1 else w[:1].upper() + w[1:]
        for w in words
    )


def _rule(code: str) -> dict[str, Any]:
    rule = RULES[code]
    return {
        "id": code,
        "name": _rule_name(rule.title),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.why},
        "help": {
            "text": f"{rule.title}. Why: {rule.why} Evidence: {rule.evidence}. "
            "brson's docs/validation.md lists every rule."
        },
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"tags": ["brson", f"BR{code[2]}xx"], "unreadable": rule.unreadable},
    }


def sarif_log(
    report: ValidateReport, *, tool_version: str, rules: list[str] | None = None
) -> dict[str, Any]:
    """The SARIF log of ``report``.  ``rules``: the codes the run checked (its selection),
    listed in the driver whether or not they found anything; by default every rule that did."""
    codes = sorted(set(rules if rules is not None else ()) | set(report.summary.by_rule))
    index = {code: i for i, code in enumerate(codes)}
    results = [
        _result(item.file, finding, index) for item in report.files for finding in item.findings
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "brson",
                "version": tool_version,
                "rules": [_rule(code) for code in codes],
            }
        },
        "invocations": [
            {
                "executionSuccessful": True,
                "exitCode": report.exit_code,
            }
        ],
        "results": results,
        "properties": {
            "files": report.summary.files,
            "unreadable": report.summary.unreadable,
            "omitted": report.summary.omitted,
            "strict": report.strict,
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
