"""Small synthetic worlds with the engine's shapes, for graph tests that need more than the
samples offer: wide and deep trees, many references, lists of references, document-valued
members, references to every kind of element, and optionally external IDs.

Deterministic (seeded); IDs are numbered like the engine's exports.
"""

from __future__ import annotations

import random
from typing import Any

from bson.int64 import Int64

TYPES = [f"[FrooxEngine]FrooxEngine.Comp{i}" for i in range(12)] + [
    "[FrooxEngine]FrooxEngine.ValueField<[FrooxEngine]FrooxEngine.Slot>"
]


def world(slots: int, seed: int = 1, fanout: int = 4, external: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    counter = [1]

    def new_id() -> str:
        counter[0] += 1
        return f"{counter[0]:08x}-0000-0000-0000-000000000000"

    def member(value: Any) -> dict[str, Any]:
        return {"ID": new_id(), "Data": value}

    known: list[str] = []

    def target() -> str:
        if external and rng.random() < external / 100:
            return f"{rng.getrandbits(32):08x}-dead-beef-0000-{rng.getrandbits(48):012x}"
        return rng.choice(known)

    def component() -> dict[str, Any]:
        data: dict[str, Any] = {
            "ID": new_id(),
            "persistent-ID": new_id(),
            "UpdateOrder": member(0),
            "Enabled": member(True),
        }
        known.append(data["ID"])
        for index in range(rng.randint(2, 8)):
            kind = rng.randrange(7)
            value: Any
            if kind == 0:
                value = rng.random()
            elif kind == 1:
                value = [rng.random(), rng.random(), rng.random(), 1.0, "sRGB"]
            elif kind == 2:
                value = f"text {rng.randrange(100)}"
            elif kind == 3:
                value = target()
            elif kind == 4:
                value = [member(target()) for _ in range(rng.randint(0, 3))]
            elif kind == 5:
                value = {"Target": target(), "Method": "Pressed"}
            else:
                value = None
            field = member(value)
            known.append(field["ID"])
            data[f"Field{index}"] = field
        return {"Type": rng.randrange(len(TYPES)), "Data": data}

    def slot(name: str) -> dict[str, Any]:
        out: dict[str, Any] = {"ID": new_id()}
        known.append(out["ID"])
        out["Components"] = {
            "ID": new_id(),
            "Data": [component() for _ in range(rng.randint(0, 4))],
        }
        out.update(
            {
                "Name": member(name),
                "Tag": member(None),
                "Active": member(True),
                "Persistent-ID": new_id(),
                "Position": member([rng.random(), 1.0, 0.0]),
                "Rotation": member([0.0, 0.0, 0.0, 1.0]),
                "Scale": member([1.0, 1.0, 1.0]),
                "OrderOffset": member(Int64(0)),
                "ParentReference": new_id(),
                "Children": [],
            }
        )
        return out

    root = slot("Root")
    queue = [root]
    made = 1
    while made < slots:
        parent = queue.pop(0)
        for _ in range(rng.randint(1, fanout * 2)):
            if made >= slots:
                break
            child = slot(f"Slot{made}")
            parent["Children"].append(child)
            queue.append(child)
            made += 1
    return {
        "VersionNumber": "2025.1.1.1",
        "FeatureFlags": {"ColorManagement": 0},
        "Types": TYPES,
        "TypeVersions": {TYPES[0]: 1},
        "Object": root,
    }
