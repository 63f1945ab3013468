"""What every command shares: the console, options, error reporting and progress."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from brson.codecs import Codec, limits

T = TypeVar("T")

#: Exit codes: success, findings (validate/diff), bad input or usage.
EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2

stdout = Console(highlight=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False, soft_wrap=True)


class State:
    debug = False
    max_size = limits.DEFAULT_MAX_SIZE


def interactive() -> bool:
    """Progress bars only for a person at a terminal, never in CI or pipes."""
    return sys.stderr.isatty() and not os.environ.get("CI")


@contextmanager
def progress(description: str, total: int | None = None) -> Iterator[Any]:
    """A rich progress bar on a terminal; a silent stand-in otherwise."""
    if not interactive():
        yield _Silent()
        return
    with Progress(
        TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}"),
        TimeElapsedColumn(), console=stderr, transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield _Bound(bar, task)


class _Silent:
    def advance(self, n: int = 1) -> None:
        pass


class _Bound:
    def __init__(self, bar: Progress, task: Any) -> None:
        self.bar, self.task = bar, task

    def advance(self, n: int = 1) -> None:
        self.bar.advance(self.task, n)


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    with progress(description, total) as bar:
        for item in items:
            yield item
            bar.advance()


def codec_option(value: str | None) -> Codec | None:
    if value is None:
        return None
    try:
        return Codec.parse(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"
