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


class Budget:
    """One run's allowance of bytes decompressed, read or allocated from counts in its inputs,
    shared by everything the run reads: a package of many assets, each under the limit on
    its own, cannot add up past it (five 1 GiB meshes under a 4 GiB limit). A reader asks
    for :attr:`remaining` as its own limit before it allocates, then :meth:`charge`\\ s what
    it took."""

    __slots__ = ("max_size", "used", "what")

    def __init__(self, max_size: int = DEFAULT_MAX_SIZE, what: str = "data read") -> None:
        self.max_size = max_size
        self.what = what
        self.used = 0

    @property
    def remaining(self) -> int:
        return max(self.max_size - self.used, 0)

    def charge(self, size: int) -> None:
        """Count ``size`` more bytes; LimitError (nothing counted) when they do not fit."""
        check(self.used + size, self.max_size, f"{self.what} in this run")
        self.used += size
