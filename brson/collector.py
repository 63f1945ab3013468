"""Pausing Python's cyclic garbage collector around bulk passes over a tree.

Why: a pass over a big world (indexing every ID, locating every reference, validating,
counting for ``info``, extracting, exporting) creates hundreds of thousands of small
long-lived objects and no garbage cycles.  Collections triggered along the way only traverse
the growing heap again, and on a big heap that costs more per object (cache misses): on a
world of 500 MB of BSON, counting slots and components took nearly twice as long with the
collector on as with it paused.  Only code that runs no user callbacks inside may pause it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the collector for the block; restore it (only if it was on) afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def drop_cycles() -> None:
    """Free the reference cycles made since the last collection while the collector is
    paused: nodes point at their owners, so a tree of nodes built and let go (a slot written
    out, a temporary view of some bytes) is garbage only a collection frees.  Collects the
    youngest generation only: what was allocated since, not the long-lived heap."""
    gc.collect(0)


def skip_exit_collection() -> None:
    """Spare a process about to exit its final full collection: the interpreter's shutdown
    collects every generation, traversing everything the command made (a fifth of a second
    after exporting a big world) only to free memory the exit frees anyway.  Frozen objects are
    not collected.  Only for the console command, right before it exits: in a process that
    goes on, what is frozen would never be freed."""
    gc.freeze()


#: ``threshold2`` while full collections are deferred: more young collections than any walk
#: makes, so the oldest generation is never examined until the threshold is restored.
_NEVER = 1 << 30
#: How many deferrals are open, and the ``threshold2`` the first one found (walks can be
#: nested or interleaved: only the last one to end restores it).
_deferrals = 0
_saved_threshold2 = 0
#: Walks in several threads count and restore under it (``+=`` on a global is not atomic;
#: re-entrant: a collection inside may close an abandoned walk).
_deferral_lock = threading.RLock()


@contextmanager
def deferred_full_collections() -> Iterator[None]:
    """Let the collector run its young collections but no full one for the block.

    Why: a walk keeps every slot and component it hands out (their identity is what edits,
    the ID index and references hold on to), and CPython starts a full collection each time
    the objects that survived grow by a quarter of the old generation.  On a big world that
    was half of a walk's time, and the passes over a heap that keeps growing made a walk's
    cost grow faster than the tree (16x for 10x the slots).  Young collections still free
    the cycles a user's loop makes; what survives them waits for the one full pass that
    follows the block (the old threshold, restored here, triggers it at the next young
    collection).  Unlike :func:`paused_gc` this may wrap code that runs user callbacks: the
    collector stays on."""
    global _deferrals, _saved_threshold2
    with _deferral_lock:
        if _deferrals == 0:
            first, second, third = gc.get_threshold()
            _saved_threshold2 = third
            gc.set_threshold(first, second, _NEVER)
        _deferrals += 1
    try:
        yield
    finally:
        with _deferral_lock:
            _deferrals -= 1
            if _deferrals == 0:
                first, second, third = gc.get_threshold()
                if third == _NEVER:  # unless someone set thresholds of their own meanwhile
                    gc.set_threshold(first, second, _saved_threshold2)
