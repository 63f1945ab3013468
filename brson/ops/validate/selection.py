"""Which rules a run reports: ruff-style ``select`` / ``ignore`` and a lowest severity.

A selector is a rule code or a prefix of one (``BR``, ``BR3``, ``BR30``, ``BR301``), or
``ALL``.  A rule is reported when the longest selector in ``select`` that matches it is longer
than the longest one in ``ignore`` that does (as ruff decides: the more specific wins, so
``select=BR3, ignore=BR301`` drops one rule and ``select=BR301, ignore=BR3`` keeps just it).
An empty ``select`` means every rule.

Findings that say a file could not be read at all (the ``unreadable`` rules) are always kept:
a file that was never checked cannot be called clean, so ignoring them would turn exit 2 into
a pass (ruff does the same with syntax errors).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from brson.ops.validate.findings import RULES, Finding, Severity

#: Severities from the lowest up, for ``min_severity``.
SEVERITY_ORDER = (Severity.INFO, Severity.WARNING, Severity.ERROR)

#: The selector that matches every rule.
ALL = "ALL"


class UnknownRuleError(ValueError):
    """A selector that names no rule (a typo would otherwise select or ignore nothing)."""


def check_selector(selector: str) -> str:
    """The selector, upper-cased, or UnknownRuleError if it is no rule code nor a prefix of one."""
    text = selector.strip().upper()
    if text == ALL or (text.startswith("BR") and any(c.startswith(text) for c in RULES)):
        return text
    raise UnknownRuleError(
        f"{selector!r} is no rule code nor a prefix of one (BR, BR3, BR301; or ALL); "
        "docs/validation.md lists the rules"
    )


def _match(code: str, selectors: Iterable[str]) -> int:
    """Length of the longest selector matching ``code``; -1 when none does."""
    best = -1
    for selector in selectors:
        if selector == ALL:
            best = max(best, 0)
        elif code.startswith(selector):
            best = max(best, len(selector))
    return best


@dataclass(frozen=True)
class Selection:
    """The rules and severities a run reports."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    min_severity: Severity = Severity.INFO

    @classmethod
    def of(
        cls,
        select: Iterable[str] = (),
        ignore: Iterable[str] = (),
        min_severity: Severity | str = Severity.INFO,
    ) -> Selection:
        """Checked and normalized; UnknownRuleError names a selector that matches no rule."""
        return cls(
            tuple(check_selector(s) for s in select),
            tuple(check_selector(s) for s in ignore),
            Severity(min_severity),
        )

    def enables(self, code: str) -> bool:
        """Whether findings of rule ``code`` are reported."""
        rule = RULES[code]
        if rule.unreadable:
            return True
        if SEVERITY_ORDER.index(rule.severity) < SEVERITY_ORDER.index(self.min_severity):
            return False
        selected = _match(code, self.select) if self.select else 0
        return selected > _match(code, self.ignore)

    def rules(self) -> list[str]:
        """The codes this selection reports, sorted."""
        return sorted(code for code in RULES if self.enables(code))

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        return [f for f in findings if self.enables(f.code)]
