"""The named reports of ``brson query --report``: SQL over the index's views.

Each answers one of the questions library owners ask (docs/scan.md): which items use a
component type, which items hold an asset, which files are the same item, what is broken,
which engine versions wrote the library, where is the item called X.  Files marked deleted
are left out everywhere.  ``search`` takes its text as a bound parameter, never spliced in.
"""

from __future__ import annotations

from dataclasses import dataclass

from brson.scan.deps import ScanError


@dataclass(frozen=True)
class Report:
    sql: str
    doc: str
    needs_text: bool = False


REPORTS: dict[str, Report] = {
    "types": Report(
        """
        SELECT type, any_value(type_name) AS name, count(DISTINCT path) AS items,
               count(*) AS components
        FROM components GROUP BY type ORDER BY items DESC, components DESC, type
        """,
        "items (files) using each component type, and how many components",
    ),
    "assets": Report(
        """
        SELECT hash AS asset, string_agg(DISTINCT scheme, ',' ORDER BY scheme) AS schemes,
               count(DISTINCT path) AS items, count(*) AS refs, max(size) AS size,
               list(DISTINCT path ORDER BY path)[1:5] AS files
        FROM assets GROUP BY hash ORDER BY items DESC, refs DESC, asset
        """,
        "each asset (by hash) and the items referencing it; shared assets first",
    ),
    "duplicates": Report(
        """
        SELECT tree_sha256, count(*) AS files, any_value(root_name) AS name,
               list(path ORDER BY path) AS paths
        FROM files WHERE status = 'ok' GROUP BY tree_sha256 HAVING count(*) > 1
        ORDER BY files DESC, tree_sha256
        """,
        "the same main tree (identical BSON) in several files, whatever codec or package",
    ),
    "broken": Report(
        """
        SELECT path, 'parse' AS kind, error_layer AS what, error_message AS message
        FROM files WHERE status = 'error'
        UNION ALL
        SELECT f.path, 'validate', x.rule, x.message
        FROM findings x JOIN files f USING (path)
        WHERE f.status = 'ok' AND x.severity = 'error'
        ORDER BY path, kind, what, message
        """,
        "files that could not be parsed, and validate errors of those that could",
    ),
    "versions": Report(
        """
        SELECT generation, engine_version, count(*) AS files
        FROM files WHERE status = 'ok' GROUP BY ALL
        ORDER BY files DESC, generation, engine_version NULLS LAST
        """,
        "files per generation and engine version",
    ),
    "search": Report(
        """
        SELECT path, root_name AS name, status FROM files
        WHERE status <> 'deleted'
          AND (contains(lower(root_name), lower($1)) OR contains(lower(path), lower($1)))
        ORDER BY path
        """,
        "files whose item (root slot) name or path contains TEXT, case-insensitively",
        needs_text=True,
    ),
}


def report_sql(name: str, text: str | None) -> tuple[str, list[str]]:
    """The SQL and parameters of a named report, or ScanError naming the known ones."""
    report = REPORTS.get(name)
    if report is None:
        raise ScanError(f"no report {name!r} (reports: {', '.join(REPORTS)})")
    if report.needs_text:
        if not text:
            raise ScanError(f"--report {name} needs a TEXT argument")
        return report.sql, [text]
    if text:
        raise ScanError(f"--report {name} takes no argument (got {text!r})")
    return report.sql, []
