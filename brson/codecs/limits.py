"""How much a decompressor may produce before brson calls the input a bomb.

Every codec streams its output and checks this limit as it goes, so a small file that claims
(or actually expands to) gigabytes is refused without the memory ever being allocated.
"""

from __future__ import annotations

import io

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


class Output:
    """A decompressor's output, checked against the limit as it grows and handed over as one
    ``bytes`` without a second copy.

    Why not ``b"".join`` of the steps (or ``bytes`` of a bytearray): both hold the whole
    output twice at the end, so reading an archive peaked at 1.9x its BSON (measured on a
    50 MiB world) before anything was parsed.  :class:`io.BytesIO` grows one buffer in place
    and ``getvalue`` hands that buffer over when it is exactly full: 1.08x.
    """

    __slots__ = ("_buffer", "_max_size", "_what", "total")

    def __init__(self, max_size: int, what: str = "decompressed data") -> None:
        self._buffer = io.BytesIO()
        self._max_size = max_size
        self._what = what
        self.total = 0

    def reserve(self, size: int) -> None:
        """Refuse, before decoding, a step that would take the output past the limit."""
        check(self.total + size, self._max_size, self._what)

    def write(self, chunk: bytes | bytearray | memoryview) -> None:
        self.total += len(chunk)
        check(self.total, self._max_size, self._what)
        self._buffer.write(chunk)

    def value(self) -> bytes:
        return self._buffer.getvalue()
