"""Import into a file whose ParentReference holds the parent's ID (third-party style): the
report counts the fresh IDs the file really holds (found by the conformance matrix)."""

from __future__ import annotations

from pathlib import Path

import bson
from conformance.writers import Sample, decoded, parent_id

import brson
from brson.ops.importing import import_slot

STANDIN = "orange3134_loading_standin.brson"
AVATAR_ROOT = "orange3134_AvatarRootIdentification.brson"


def _linked(path: Path) -> brson.DataTree:
    doc = parent_id(decoded(Sample(path.name, path.read_bytes(), path.name)))
    assert doc is not None
    return brson.loads(bson.encode(doc), name="linked.bson")


def test_report_counts_the_ids_written(samples_dir: Path) -> None:
    tree = _linked(samples_dir / STANDIN)
    donor = brson.load(samples_dir / AVATAR_ROOT)
    before = set(tree.ids.defined)
    result = import_slot(tree, donor, donor.root.children[0])
    written = brson.loads(brson.dumps(tree))
    assert result.slot.parent_reference == tree.root.id  # the file's own link style
    assert result.report.ids == len(set(written.ids.defined) - before)
