"""Types of the C walk of ComponentSpans (brson/_speedups/_spansc.c); spans.py calls it."""

from array import array

def walk(buf: bytes, start: int, end: int, names: bool = False, /) -> tuple[bytes, ...] | None: ...
def paths(
    buf: bytes,
    start: int,
    end: int,
    offsets: list[int],
    chains: bool,
    slot: bool,
    /,
) -> list[tuple[int, tuple[str | int, ...], tuple[tuple[int, int, int, int], ...]]] | None: ...
def table(buf: bytes, start: int, end: int, /) -> tuple[bytes, bytes, list[str | None]] | None: ...
def numbers_at(
    starts: array[int], ends: array[int], offsets: list[int | None], /
) -> list[int | None] | None: ...
def runs(
    buf: bytes,
    columns: tuple[array[int], ...],
    offsets: list[int],
    mode: int,
    first: int,
    stop: int,
    /,
) -> (
    list[
        tuple[
            int,
            int,
            int | None,
            int,
            int,
            list[tuple[int, tuple[str | int, ...], tuple[tuple[int, int, int, int], ...]]] | None,
        ]
    ]
    | None
): ...
