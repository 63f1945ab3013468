"""``brson scan`` (a library into an index) and ``brson query`` (SQL or named reports on it)."""

from __future__ import annotations

import csv
import datetime
import decimal
import enum
import io
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.cells import cell_len
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from brson.cli.common import State, check_folder_output, interactive, stderr, stdout
from brson.scan import engine as scan_engine
from brson.scan import query as scan_query
from brson.scan.extract import Options
from brson.scan.reports import REPORTS

app = typer.Typer()


class Engine(enum.StrEnum):
    LOCAL = "local"
    DASK = "dask"


class Format(enum.StrEnum):
    TABLE = "table"
    JSON = "json"
    CSV = "csv"


@app.command()
def scan(
    paths: Annotated[
        list[Path],
        typer.Argument(metavar="PATH", help="Folders (recursive), globs, archives, packages."),
    ],
    output: Annotated[Path, typer.Option("-o", "--output", help="The index folder.")],
    workers: Annotated[int, typer.Option("--workers", help="Worker processes.")] = 1,
    engine: Annotated[Engine, typer.Option("--engine", help="local or dask.")] = Engine.LOCAL,
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", help="Dask scheduler address (default: a LocalCluster)."),
    ] = None,
    refs: Annotated[bool, typer.Option("--refs", help="Also index every reference.")] = False,
    slots: Annotated[bool, typer.Option("--slots", help="Also index every slot.")] = False,
    validate: Annotated[
        bool, typer.Option("--validate/--no-validate", help="Record validate findings.")
    ] = True,
    batch: Annotated[
        int, typer.Option("--batch", help="Files per shard (commit unit).")
    ] = scan_engine.DEFAULT_BATCH,
    compact: Annotated[
        bool,
        typer.Option("--compact", help="Then rewrite the live rows as one shard (fast queries)."),
    ] = False,
) -> None:
    """Index a library: every archive's facts, components, types, assets and findings into
    Parquet shards and a DuckDB database (docs/scan.md). Re-running skips unchanged files."""
    check_folder_output(output)
    options = Options(validate=validate, refs=refs, slots=slots, max_size=State.max_size)
    with _Bar() as bar:
        summary = scan_engine.scan(
            [str(p) for p in paths],
            output,
            options=options,
            workers=workers,
            engine=engine.value,
            scheduler=scheduler,
            batch=batch,
            progress=bar.update,
            compact=compact,
        )
    for path, problem in summary.failures:
        stderr.print(f"brson: {path}: {problem}", markup=False)
    unnamed = summary.failed - len(summary.failures)
    if unnamed > 0:
        stderr.print(
            f"brson: … and {unnamed} more file(s) failed (brson query {output} --report broken)",
            markup=False,
        )
    rate = summary.files_per_second
    compacted = summary.extra.get("compacted_shards")
    note = f"; compacted {compacted} shard(s) into 1" if compacted is not None else ""
    stderr.print(
        f"brson scan: {summary.files} file(s): {summary.scanned} scanned, "
        f"{summary.unchanged} unchanged, {summary.failed} failed, {summary.deleted} deleted; "
        f"{summary.shards} shard(s), {summary.rows} row(s) in {summary.seconds:.1f} s "
        f"({rate:.0f} files/s){note} -> {output}",
        markup=False,
    )


class _Bar:
    """Files/s, ETA and failures on a terminal; nothing in pipes or CI."""

    def __init__(self) -> None:
        self.progress: Progress | None = None
        self.task: Any = None

    def __enter__(self) -> _Bar:
        if interactive():
            self.progress = Progress(
                TextColumn("scanning"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]:.0f} files/s, {task.fields[failed]} failed"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=stderr,
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("scan", total=None, rate=0.0, failed=0)
        return self

    def update(self, summary: scan_engine.Summary) -> None:
        if self.progress is None:
            return
        done = summary.scanned + summary.unchanged
        self.progress.update(
            self.task,
            total=summary.files,
            completed=done,
            rate=done / summary.seconds if summary.seconds else 0.0,
            failed=summary.failed,
        )

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


@app.command()
def query(
    index: Annotated[Path, typer.Argument(help="An index folder made by brson scan.")],
    sql: Annotated[
        str | None,
        typer.Argument(metavar="[SQL|TEXT]", help="SQL, or the TEXT of --report search."),
    ] = None,
    report: Annotated[
        str | None,
        typer.Option("--report", help=f"A named report: {', '.join(REPORTS)}."),
    ] = None,
    output_format: Annotated[
        Format, typer.Option("--format", help="table, json or csv.")
    ] = Format.TABLE,
) -> None:
    """Query an index read-only: SQL over the tables (files, components, types, assets,
    findings, slots, refs) or a named report."""
    State.input = str(index)
    if report is not None:
        result = scan_query.run(index, report=report, text=sql)
    else:
        result = scan_query.run(index, sql)
    if output_format is Format.JSON:
        records = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
        sys.stdout.write(json.dumps(records, indent=2, ensure_ascii=False, default=_plain) + "\n")
    elif output_format is Format.CSV:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(result.columns)
        for row in result.rows:
            writer.writerow([_cell(v) for v in row])
        sys.stdout.write(buffer.getvalue())
    else:
        cells = [[_cell(v) for v in values] for values in result.rows]
        if stdout.is_terminal:
            table = Table(*result.columns, show_lines=False)
            for line in cells:
                table.add_row(*(Text(cell) for cell in line))  # data, never markup
            stdout.print(table)
        else:
            sys.stdout.write(plain_table(result.columns, cells))
        stdout.print(f"{len(result.rows)} row(s)", markup=False)


def plain_table(columns: list[str], rows: list[list[str]]) -> str:
    """The table for a pipe or a file: every value whole (a terminal's table fits its width,
    which a pipe has none of: rich cut every table to 80 columns), columns aligned by the
    cells they take, control characters escaped so each row stays one line."""
    lines = [[_one_line(text) for text in row] for row in [columns, *rows]]
    widths = [max(cell_len(line[n]) for line in lines) for n in range(len(columns))]
    out = []
    for line in lines:
        padded = [
            text + " " * (width - cell_len(text)) for text, width in zip(line, widths, strict=True)
        ]
        out.append("  ".join(padded).rstrip() + "\n")
    return "".join(out)


def _one_line(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _plain(value: Any) -> Any:
    """JSON for what DuckDB returns beyond JSON's types."""
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, default=_plain)
    return str(value)
