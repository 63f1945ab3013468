"""The C ID scan's hash table stays linear on IDs chosen to collide in it.

Its first hash is public and keeps the engine's sequential IDs in neighbouring slots: a file
can pick each ID's first group so that every ID lands on one slot, and the probes then grew
with the square of the count (100k such IDs: validate 11.6 s against 1.15 s for random IDs).
The table counts its probes and, past a budget per find, rebuilds itself with a hash keyed by
the interpreter's per-process random key.  The guard counts probes (``_idscanc.probes()``) at
n, 2n and 4n, as tests/regressions/test_issue12_scaling.py counts lines: never wall-clock.
"""

from __future__ import annotations

import random

import bson
import pytest

from brson._speedups import built
from brson.model.ids import scan as idscan
from tests.regressions.test_issue12_scaling import GROWTH

IDSCANC = built("_idscanc")
# Called directly, so the guard runs under BRSON_PURE_PYTHON too (the switch only keeps
# brson's own modules from using it).
pytestmark = pytest.mark.skipif(IDSCANC is None, reason="brson._speedups._idscanc is not built")

_M64 = (1 << 64) - 1


def public_hash(rest: bytes) -> int:
    """The first hash's mix of an ID's bytes after the first group (``guid_hash`` in
    brson/_speedups/_idscanc.c); its slot is the first group's number plus the low 32 bits."""
    h = 0x9E3779B97F4A7C15
    for i in (0, 8, 16):
        h = ((h ^ int.from_bytes(rest[i : i + 8], "little")) * 0xBF58476D1CE4E5B9) & _M64
        h = ((h << 31) | (h >> 33)) & _M64
    h ^= int.from_bytes(rest[24:28], "little")
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & _M64
    return h ^ (h >> 31)


def colliding_ids(n: int, seed: int = 14) -> list[str]:
    """``n`` distinct GUIDs whose first-hash slot is the same at every table size."""
    rng = random.Random(seed)
    ids = []
    for _ in range(n):
        h = rng.getrandbits(112).to_bytes(14, "big").hex()
        rest = f"-{h[:4]}-{h[4:8]}-{h[8:12]}-{h[12:24]}"
        counter = (0x1234 - public_hash(rest.encode())) & 0xFFFFFFFF
        ids.append(f"{counter:08x}{rest}")
    return ids


def random_ids(n: int, seed: int = 14) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        h = rng.getrandbits(128).to_bytes(16, "big").hex()
        out.append(f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}")
    return out


def world(ids: list[str]) -> bytes:
    """A document defining each ID and referring to it (what validate's census, refs and
    extract's lookups read)."""
    return bson.encode({"Object": [{"ID": i, "Target": i} for i in ids]})


def work(ids: list[str]) -> tuple[int, int]:
    """Probes of one scan (as idscan.scan_ids makes it) and one lookup of every ID; and which
    hash the table ended with."""
    assert IDSCANC is not None
    buf = world(ids)
    shape = (idscan._PREFIX, idscan._NAMES, idscan._SUFFIX)
    before = IDSCANC.probes()
    found = IDSCANC.scan(buf, [(0, len(buf))], 0, *shape)
    assert found is not None
    count, _repeated, _first, _refs, targets, table = found
    assert count == len(targets) == len(ids)
    for i in ids:
        assert IDSCANC.lookup(buf, table, i.encode(), idscan._PREFIX) in (None, targets[i])
    return IDSCANC.probes() - before, int.from_bytes(table[-4:], "little")


def test_colliding_ids_cost_linear_probes() -> None:
    n = 3000
    (w1, seeded1), (w2, _), (w4, seeded4) = (work(colliding_ids(k)) for k in (n, 2 * n, 4 * n))
    assert seeded1 == seeded4 == 1  # the IDs do collide in the public hash: it gave up on them
    assert w4 - w2 <= GROWTH * (w2 - w1), (w1, w2, w4)
    assert w4 < 40 * 4 * n, (w1, w2, w4)  # a few probes an ID, not thousands


def test_random_and_sequential_ids_keep_the_public_hash() -> None:
    """The engine's sequential IDs and random ones stay on the hash that keeps neighbours
    together (the seeded one costs a cache miss per ID)."""
    n = 12000
    sequential = [f"{i:08x}-0000-0000-0000-000000000000" for i in range(1, n + 1)]
    for ids in (random_ids(n), sequential):
        probes, seeded = work(ids)
        assert seeded == 0
        assert probes < 8 * 3 * n
