"""Types of the compiled JSON form reader's walk (brson/_speedups/_formreadc.c)."""

from collections.abc import Callable
from typing import Any

def untag_restore(
    doc: dict[str, Any],
    root: str | None,
    elements: dict[str, str | None] | None,
    from_tag: Callable[[dict[str, Any]], Any],
    document_of: Callable[[dict[str, Any]], dict[str, Any]],
    /,
) -> tuple[int, int, int, list[str], int, list[str]] | None: ...
