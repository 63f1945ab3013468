"""What a validation run reports: findings, and the registry of rules that produce them.

Rule codes are stable (``BR`` + family digit + two digits) so CI configurations, annotations and
bug reports can name them; a rule is never renumbered, only retired.  Each rule carries its
severity and the reason it exists, and ``docs/validation.md`` is generated from this registry
(:func:`rules_markdown`), so the documentation cannot drift from what the code checks.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from brson.errors import MESSAGE_LIMIT, PATH_LIMIT, bounded


class Severity(enum.StrEnum):
    """``error``: the engine cannot load the file, or loads something other than what was
    written; ``warning``: it loads, but something is lost on import or a tool mixed up the
    conventions; ``info``: worth knowing, and written by the engine itself."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


#: The severities by their own names, for the rule definitions of every family.
ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True)
class Rule:
    code: str
    severity: Severity
    title: str
    why: str
    #: Where the rule comes from: a real sample, the engine's source, the format notes.
    evidence: str
    #: Findings of this rule mean the file could not be read at all (exit code 2).
    unreadable: bool = False


#: Every rule by code, in registration order (families register on import).
RULES: dict[str, Rule] = {}


def rule(
    code: str,
    severity: Severity,
    title: str,
    why: str,
    evidence: str,
    *,
    unreadable: bool = False,
) -> Rule:
    """Register a rule; each code exactly once."""
    if code in RULES:
        raise ValueError(f"rule {code} registered twice")
    made = Rule(code, severity, title, why, evidence, unreadable)
    RULES[code] = made
    return made


class Finding(BaseModel):
    """One problem found in one file."""

    model_config = ConfigDict(frozen=True)

    code: str = Field(pattern=r"^BR[1-9][0-9]{2}$", description="Stable rule code, e.g. BR401.")
    severity: Severity
    message: str
    path: str | None = Field(
        default=None,
        description="Where in the tree: slot path, then ':Component' and '.field[index]'.",
    )
    file: str | None = None
    offset: int | None = Field(
        default=None,
        description="Byte offset in the layer the rule is about: the file for container "
        "rules, the compressed payload for codec rules, the BSON document otherwise.",
    )
    element: str | None = Field(default=None, description="The ID the finding is about.")

    @property
    def rule(self) -> Rule:
        return RULES[self.code]

    def __str__(self) -> str:
        where = f"{self.file}: " if self.file else ""
        at = f"{self.path}: " if self.path else ""
        offset = f" (offset {self.offset})" if self.offset is not None else ""
        return f"{where}{self.severity} {self.code}: {at}{self.message}{offset}"


class Findings:
    """Collects the findings of one file; rules add to it, never raise."""

    def __init__(self, file: str | None = None) -> None:
        self.file = file
        self.items: list[Finding] = []

    def add(
        self,
        rule: Rule,
        message: str,
        *,
        path: str | None = None,
        offset: int | None = None,
        element: str | None = None,
        file: str | None = None,
    ) -> None:
        self.items.append(
            Finding(
                code=rule.code,
                severity=rule.severity,
                message=bounded(message, MESSAGE_LIMIT),  # a report grows with its findings
                path=None if path is None else bounded(path, PATH_LIMIT),
                file=file or self.file,
                offset=offset,
                element=element,
            )
        )

    @property
    def unreadable(self) -> bool:
        return any(RULES[f.code].unreadable for f in self.items)


def rules_markdown() -> str:
    """The rule table of ``docs/validation.md`` (kept equal to it by a test)."""
    lines = [
        "| code | severity | what | why | evidence |",
        "|---|---|---|---|---|",
    ]
    for item in sorted(RULES.values(), key=lambda r: r.code):
        title = item.title + (" (file unreadable: exit 2)" if item.unreadable else "")
        evidence = f"{item.evidence}; fixture `{item.code}_*`"
        lines.append(f"| `{item.code}` | {item.severity} | {title} | {item.why} | {evidence} |")
    return "\n".join(lines) + "\n"
