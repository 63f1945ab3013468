"""How much a decompressor may produce before brson calls the input a bomb.

Every codec streams its output and checks this limit as it goes, so a small file that claims
(or actually expands to) gigabytes is refused without the memory ever being allocated.
"""

from __future__ import annotations

from brson.errors import LimitError

#: Default ceiling on a decompressed BSON document: generous for real worlds (the largest
#: exported worlds are hundreds of MiB) while stopping gigabyte bombs.
DEFAULT_MAX_SIZE = 4 * 1024**3

#: Output is produced in steps of this size so the limit is checked before memory grows.
STEP = 1 << 20


def check(total: int, max_size: int, what: str = "decompressed data") -> None:
    """Raise LimitError when ``total`` bytes exceed ``max_size``."""
    if total > max_size:
        raise LimitError(
            f"{what} exceeds the limit of {max_size} bytes (raise it with max_size=... "
            "or --max-size if the file is trusted)"
        )
