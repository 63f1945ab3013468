"""Validate archives: every problem of a file in one pass, each with a stable rule code.

``validate(path)`` reads the file itself, so a broken container, codec or BSON payload is a
finding (with its rule code) like any other; ``validate(tree)`` checks a tree already loaded
(or edited in memory).  Rules live in one module per family (``BR1xx`` container and codec,
``BR2xx`` document shape, ``BR3xx`` types, ``BR4xx`` IDs and references, ``BR5xx``
transforms, ``BR6xx`` generation mix-ups, ``BR7xx`` ProtoFlux connections);
``docs/validation.md`` lists them all.
"""

from __future__ import annotations

import os

from brson.codecs import limits
from brson.model.tree import DataTree
from brson.ops.validate import container
from brson.ops.validate.findings import RULES, Finding, Findings, Rule, Severity
from brson.ops.validate.report import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, ValidateReport
from brson.ops.validate.selection import Selection, UnknownRuleError
from brson.ops.validate.walk import check_tree


def validate(
    source: DataTree | str | os.PathLike[str] | bytes,
    *,
    name: str | None = None,
    max_size: int = limits.DEFAULT_MAX_SIZE,
    selection: Selection | None = None,
) -> list[Finding]:
    """Every finding for a tree, a file (archive or ``.resonitepackage``) or archive bytes.

    ``name`` is the file name to report (and, for bytes, the extension that picks a legacy
    codec).  ``selection`` keeps the findings of some rules only (``Selection.of(select=
    ["BR4"], ignore=["BR403"], min_severity="warning")``, as ``brson validate --select``).
    Never raises on bad input: what cannot be read is a finding too.
    """
    if isinstance(source, DataTree):
        findings = Findings(name or source.source)
        check_tree(source, findings)
    else:
        file = name if name is not None or isinstance(source, bytes) else os.fspath(source)
        findings = Findings(file)
        tree = container.read(source, findings, name=name, max_size=max_size)
        if tree is not None:
            check_tree(tree, findings)
    return findings.items if selection is None else selection.apply(findings.items)


def unreadable(findings: list[Finding]) -> bool:
    """Whether these findings say the file could not be read at all."""
    return any(RULES[f.code].unreadable for f in findings)


__all__ = [
    "EXIT_FINDINGS",
    "EXIT_OK",
    "EXIT_UNREADABLE",
    "RULES",
    "Finding",
    "Rule",
    "Selection",
    "Severity",
    "UnknownRuleError",
    "ValidateReport",
    "unreadable",
    "validate",
]
