"""diff sees a component's Type index change width (int32 <-> int64), as it does for every
other value: a writer that widened the indices changed the file (found by the conformance
matrix: diff called such a file equal to its original)."""

from __future__ import annotations

from pathlib import Path

import bson
from conformance.writers import Sample, decoded, type_int64

import brson
from brson.ops.diff import diff

STANDIN = "orange3134_loading_standin.brson"


def test_type_width_is_a_change(samples_dir: Path) -> None:
    path = samples_dir / STANDIN
    original = brson.load(path)
    doc = type_int64(decoded(Sample(path.name, path.read_bytes(), path.name)))
    widened = brson.loads(bson.encode(doc), name="w.bson")
    changes = diff(original, widened)
    count = sum(1 for _ in original.components())
    assert len(changes.values) == count
    assert all(v.path.endswith("(Type)") for v in changes.values)
    assert not diff(original, brson.loads(brson.dumps(original, codec="lz4"))).values
