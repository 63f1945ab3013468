"""The suite's two depths: the default (`make test`), and exhaustive sweeps on request.

The default runs every sample, fixture, operation, engine and guard, but samples the sweeps
that repeat one code path many times: a structured spread of slots instead of every slot,
fewer generated examples, fuzz slices and scaling guards at the smallest sizes that still
show what they guard.  ``BRSON_EXHAUSTIVE=1`` (``make test-exhaustive``) runs every sweep in
full: every slot of every sample, the full example counts, the long fuzz slices.
"""

from __future__ import annotations

import os

EXHAUSTIVE = os.environ.get("BRSON_EXHAUSTIVE", "").strip().lower() in {"1", "true", "yes"}


def examples(full: int, floor: int = 25) -> int:
    """A property test's example count: ``full`` when exhaustive, else a quarter of it (at
    least ``floor``, never more than ``full``).  The examples are derandomized (the
    ``brson`` hypothesis profile), so the default run is the same subset every time."""
    return full if EXHAUSTIVE else min(full, max(floor, full // 4))


def sweep(full: int, default: int) -> int:
    """A sweep's size (fuzz slice, input count): ``full`` when exhaustive, else ``default``."""
    return full if EXHAUSTIVE else default
