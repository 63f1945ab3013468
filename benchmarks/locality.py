"""How far references reach in the slot tree: real files against the synthetic worlds.

An extract's closure (the components its subtree references from elsewhere, and theirs in
turn) is small when references stay near their source and grows with every reference that
reaches across the tree.  This counts, for every reference that resolves inside the file, the
number of tree steps between the source's slot and the target's slot (up to the lowest common
ancestor and down again), so the synthetic worlds' reach can be checked against what the
engine writes.

``python benchmarks/locality.py FILE...`` (default: the shared samples and the 10k world).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import brson
from brson.graph.refs import ReferenceGraph
from brson.model.slot import Slot
from brson.model.tree import DataTree
from brson.package import load_package

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent / "shared" / "samples"
BUCKETS = ("same slot", "1-2 steps", "3-4 steps", "5+ steps", "not under a slot")


def _load(path: Path) -> DataTree:
    if path.suffix == ".resonitepackage":
        return load_package(path).tree
    return brson.load(path, max_size=4 << 30)


def _ancestors(slot: Slot) -> list[Slot]:
    out: list[Slot] = []
    current: Slot | None = slot
    while current is not None:
        out.append(current)
        current = current.parent
    return out


def _steps(source: Slot, target: Slot) -> int:
    up = _ancestors(source)
    down = {id(s): i for i, s in enumerate(_ancestors(target))}
    for i, slot in enumerate(up):
        if id(slot) in down:
            return i + down[id(slot)]
    return len(up) + len(down)  # different roots (Object and Assets)


def _bucket(steps: int) -> str:
    if steps == 0:
        return BUCKETS[0]
    return BUCKETS[1] if steps <= 2 else BUCKETS[2] if steps <= 4 else BUCKETS[3]


def reach(path: Path) -> Counter[str]:
    """Internal references of one file, by tree steps from source slot to target slot."""
    tree = _load(path)
    graph = ReferenceGraph.build(tree)
    counts: Counter[str] = Counter()
    for ref in graph:
        if ref.external:
            continue
        where = graph.where(ref.target_id) if ref.target_id else None
        source, target = ref.slot, where.slot if where is not None else None
        if source is None or target is None:
            counts[BUCKETS[4]] += 1
        else:
            counts[_bucket(_steps(source, target))] += 1
    return counts


def print_reach(paths: list[Path]) -> None:
    """One line a file: its internal references, by reach."""
    print(f"{'file':<46} {'refs':>7}  " + "  ".join(f"{b:>16}" for b in BUCKETS))
    for path in paths:
        counts = reach(path)
        total = sum(counts.values()) or 1
        cells = "  ".join(f"{counts[b]:>7} ({counts[b] / total:5.1%})" for b in BUCKETS)
        print(f"{path.name[:46]:<46} {total:>7}  {cells}")


def main() -> None:
    paths = [Path(p) for p in sys.argv[1:]] or [
        *sorted(p for p in SAMPLES.iterdir() if p.suffix != ".md"),
        HERE / "worlds" / "world-10000.brson",
    ]
    print_reach(paths)


if __name__ == "__main__":
    main()
