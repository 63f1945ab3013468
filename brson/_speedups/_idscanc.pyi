"""Types of the C ID scan (brson/_speedups/_idscanc.c); ids/scan.py calls it."""

from typing import overload

def scan(
    buf: bytes,
    spans: list[tuple[int, int]],
    sample: int,
    prefix: bytes,
    names: tuple[bytes, ...],
    suffix: bytes,
    references: bool = True,
    /,
) -> tuple[int, bool, list[str], list[tuple[int, str]], dict[str, int], bytes] | None: ...
def probes() -> int: ...
def lookup(buf: bytes, table: bytes, guid: bytes, prefix: bytes) -> int | None: ...
def references_to(
    buf: bytes,
    spans: list[tuple[int, int]],
    wanted: list[str],
    prefix: bytes,
    names: tuple[bytes, ...],
    suffix: bytes,
    /,
) -> list[tuple[int, str]] | None: ...
def lookups(
    buf: bytes, table: bytes, ids: list[str], prefix: bytes, /
) -> list[int | None] | None: ...
@overload
def elements(
    buf: bytes, prefix: bytes, names: tuple[bytes, ...], suffix: bytes, /
) -> tuple[list[str], list[str], list[str]] | None: ...
@overload
def elements(
    buf: bytes, prefix: bytes, names: tuple[bytes, ...], suffix: bytes, tail: bytes, /
) -> tuple[list[str], list[str], list[str], int, bool] | None: ...
def values(
    buf: bytes, prefix: bytes, names: tuple[bytes, ...], suffix: bytes, tail: bytes, /
) -> tuple[int, list[str], list[str], int, bool] | None: ...
