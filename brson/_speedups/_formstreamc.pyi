"""Types of the compiled JSON form reader (brson/_speedups/_formstreamc.c)."""

from mmap import mmap

def read(
    text: bytes | mmap, release: bool = False, /
) -> (
    tuple[
        bytes,
        tuple[int, int] | None,
        tuple[int, int, int, list[tuple[int, str]], int, list[tuple[int, str]]],
    ]
    | None
): ...
