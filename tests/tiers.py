"""The suite's two depths: the default (`make test`), and exhaustive sweeps on request.

The default runs every sample, fixture, operation, engine and guard, but samples the sweeps
that repeat one code path many times: a structured spread of slots instead of every slot,
fewer generated examples and mutated copies (every real document, fewer mutations of each),
the conformance matrix's writer variants each on one document per operation (a covering
design: every operation meets every variant, every variant every document), fuzz slices and
scaling guards at the smallest sizes that still fail on the quadratic code they guard.
``BRSON_EXHAUSTIVE=1`` (``make test-exhaustive``) runs every sweep in full: every slot of
every sample, the full example counts, every variant of every document for every operation,
the long fuzz slices.

Under ASan + UBSan (scripts/sanitize.sh sets ``BRSON_SANITIZE=1``) the check is a memory or
undefined-behaviour fault, which shows on the first input that reaches the faulty C line, and
the tests' own Python runs several times slower (every object its own heap block): the
property tests there run a sixteenth of their examples and the loops that feed C mutated
copies of real data the ``sanitized`` sample of them that ``sweep`` is given.
"""

from __future__ import annotations

import os

EXHAUSTIVE = os.environ.get("BRSON_EXHAUSTIVE", "").strip().lower() in {"1", "true", "yes"}
SANITIZED = os.environ.get("BRSON_SANITIZE", "").strip() == "1"


def examples(full: int, floor: int = 25) -> int:
    """A property test's example count: ``full`` when exhaustive, else a quarter of it (at
    least ``floor``, never more than ``full``).  The examples are derandomized (the
    ``brson`` hypothesis profile), so the default run is the same subset every time.  Under
    the sanitizers, a sixteenth (at least 10)."""
    if EXHAUSTIVE:
        return full
    if SANITIZED:
        return min(full, max(10, full // 16))
    return min(full, max(floor, full // 4))


def sweep(full: int, default: int, sanitized: int | None = None) -> int:
    """A sweep's size (fuzz slice, input count): ``full`` when exhaustive, else ``default``,
    or ``sanitized`` (when given) under the sanitizers."""
    if EXHAUSTIVE:
        return full
    return sanitized if SANITIZED and sanitized is not None else default
