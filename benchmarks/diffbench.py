"""``diff`` of two versions of a world: the second version, and the operation the CLI runs.

:func:`make_edited` writes a world's "next version": about 1% of its slots edited, spread over
the whole tree, a quarter each of the four edits users make (rename a slot, change a float
member, remove a component, add a child slot).  Deterministic: the same input gives the same
bytes (new IDs come from the file's sequential counter).  :func:`op_diff` is what
``brson diff A B`` does, without the printing: load both, diff, render every line.

``python benchmarks/diffbench.py benchmarks/worlds/world-10000.brson`` writes
``world-10000.edited.brson`` beside it and prints the diff's size and CPU time.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

#: One slot in this many is edited; the edit cycles through the four kinds.
EVERY = 100
#: Offset into each stretch of EVERY slots (not 0: the root is not edited).
OFFSET = 37
MAX_SIZE = 4 << 30


def make_edited(path: Path, out: Path) -> Path:
    """Write ``path``'s tree with ~1% of its slots edited to ``out`` (codec from its name)."""
    import brson
    from brson.model.numbering import FreshIds
    from brson.model.slot import Slot

    tree = brson.load(path, max_size=MAX_SIZE)
    fresh = FreshIds.for_tree(tree, rng=random.Random(14))
    chosen: list[tuple[int, Slot]] = [
        (i, slot) for i, slot in enumerate(tree.walk()) if i % EVERY == OFFSET
    ]
    for n, (i, slot) in enumerate(chosen):
        kind = n % 4
        if kind == 0:
            slot.name = f"{slot.name} (edited {i})"
        elif kind == 1:
            _change_float(slot)
        elif kind == 2:
            _remove_component(slot)
        else:
            slot.add_child(f"added {i}", ids=fresh)
    brson.dump(tree, out)
    return out


def _change_float(slot: object) -> None:
    """Add 0.5 to the first float member of the slot's components (its Position if none)."""
    from brson.model.slot import Slot

    assert isinstance(slot, Slot)
    for component in slot.components:
        for member in component.fields.values():
            value = member.value
            if type(value) is float:
                member.value = value + 0.5
                return
    x, y, z = slot.position
    slot.position = (x + 0.5, y, z)


def _remove_component(slot: object) -> None:
    """Drop the slot's last component from its ``Components`` list.

    Straight through the model (``Node.set``), not ``Component.remove``: that one snapshots
    and indexes the whole tree per call to null references, which at 100k slots would make
    preparing the file take an hour.  References to the component are left dangling, as a
    file edited by another tool may have them; the diff does not follow references.
    """
    from brson.model.component import Component
    from brson.model.slot import Slot

    assert isinstance(slot, Slot)
    member = slot.components_member
    if member is None:
        return
    items = member.child_nodes("Data", Component)
    if not items:
        return
    member.set("Data", items[:-1])


def op_diff(a: Path, b: Path) -> int:
    """``brson diff A B``: load both (checking each type table), diff, render the lines.
    Returns the number of changes (lines)."""
    import brson
    from brson.ops.diff import diff

    tree_a = brson.load(a, max_size=MAX_SIZE)
    tree_a.types  # noqa: B018 -- the CLI checks each table on reading
    tree_b = brson.load(b, max_size=MAX_SIZE)
    tree_b.types  # noqa: B018
    return sum(1 for _ in diff(tree_a, tree_b).lines())


def _main(argv: list[str]) -> int:
    path = Path(argv[0])
    edited = path.with_name(path.name.replace(".", ".edited.", 1))
    if not edited.exists():
        make_edited(path, edited)
    times = []
    for _ in range(3):
        start = time.process_time()
        changes = op_diff(path, edited)
        times.append(time.process_time() - start)
    print(f"{edited.name}: {changes} changes, diff best of 3: {min(times):.3f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
