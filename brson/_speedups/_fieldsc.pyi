"""Types of validate's compiled per-field loop (brson/_speedups/_fieldsc.c); context.py
calls it."""

from typing import Any

def guids(values: list[Any], table: bytes, shape: bytes) -> bool: ...
def scan_all(
    datas: list[dict[str, Any]], table: bytes, shape: bytes, id_key: str, suffix: str
) -> list[list[str]] | None: ...
def slots(
    buf: bytes,
    rows: bytes,
    table: bytes,
    shape: bytes,
    members: tuple[tuple[bytes, int], ...],
    names: tuple[bytes, ...],
    ntypes: int,
    flux: bytes,
    referenced: set[str],
    /,
) -> tuple[
    bytes, bytes, bytes, list[tuple[int, str | None, str | None]], list[tuple[int, int]], bytes
]: ...
def nodes(
    buf: bytes,
    spans: bytes,
    table: bytes,
    shape: bytes,
    names: tuple[bytes, bytes, bytes],
    mask: bytes,
    referenced: set[str],
    /,
) -> list[tuple[int, str, list[tuple[str, str | None, str | list[str | None] | None]]] | None]: ...
