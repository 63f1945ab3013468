"""Types of the compiled Godot 3 and 4 metadata writer (brson/_speedups/_tscnc.c)."""

from collections.abc import Sequence
from typing import Any

def value(buf: bytes, etype: int, start: int, end: int, godot: int) -> str | None: ...
def slot(buf: bytes, start: int, end: int, godot: int) -> str | None: ...
def components(
    types: tuple[str | None, ...], buf: bytes, start: int, end: int, godot: int
) -> str | None: ...
def reals(numbers: Sequence[float], godot: int) -> str | None: ...
def head(
    buf: bytes, start: int, end: int
) -> tuple[Any, Any, Any, Any, Any, Any, Any, tuple[int, ...] | None] | None: ...
def node(
    buf: bytes,
    start: int,
    end: int,
    godot: int,
    types: tuple[str, ...] | None,
    head: tuple[Any, ...],
    name: str,
    parent: str,
    kind: str,
    extra: str | None,
    last: bool,
) -> str | None: ...
