"""Patches: what ``brson diff A B --json`` carries so ``brson apply`` can turn A into B.

The pieces: :mod:`brson.ops.engine` cuts a document into elements keyed by ID and says when
two values are the same; :mod:`brson.ops.patchform` is the patch's JSON form (its docstring
describes it); :mod:`brson.ops.applier` applies a patch to another file.  This module makes a
patch and checks it, and is the API callers import.
"""

from __future__ import annotations

from typing import Any, Protocol

from brson.collector import paused_gc
from brson.document import bsondoc, jsonform
from brson.errors import BrsonError
from brson.ops.applier import ApplyResult, Conflict, apply_bytes, apply_patch, merge_ids
from brson.ops.engine import Undecomposable, cut_pair
from brson.ops.patchform import FORMAT, PatchError, read_patch, sha256, structural


class HasBson(Protocol):
    def to_bson(self) -> bytes: ...


def make_patch(a: HasBson | bytes, b: HasBson | bytes) -> dict[str, Any]:
    """The patch that turns ``a`` into ``b`` (trees, or documents' BSON; JSON-able).  Checked
    before it is returned: applied to ``a`` it gives ``b``'s BSON byte for byte, else the
    patch replaces the whole document."""
    bytes_a = a if isinstance(a, bytes) else a.to_bson()
    bytes_b = b if isinstance(b, bytes) else b.to_bson()
    return finish_patch(bytes_a, bytes_b, _body(bytes_a, bytes_b))


def _body(bytes_a: bytes, bytes_b: bytes) -> dict[str, Any] | None:
    """The element changes, when both documents cut exactly by ID."""
    if bytes_a == bytes_b:
        return None
    try:
        with paused_gc():  # many small long-lived objects, no cycles
            pa, pb = cut_pair(bytes_a, bytes_b)
            return structural(pa, pb) if pa.exact and pb.exact else None
    except (Undecomposable, BrsonError):
        return None


def finish_patch(bytes_a: bytes, bytes_b: bytes, body: dict[str, Any] | None) -> dict[str, Any]:
    """The patch from its element changes (:func:`brson.ops.patchform.structural` of both
    documents cut exactly; None when they could not be), checked: applied to A it must give
    B's BSON byte for byte, else the patch replaces the whole document."""
    patch = checked_patch(bytes_a, bytes_b, body)
    if patch is not None:
        return patch
    base = {"format": FORMAT, "base": sha256(bytes_a), "result": sha256(bytes_b)}
    return {**base, "replace": jsonform.to_jsonable(bsondoc.decode(bytes_b))}


def checked_patch(
    bytes_a: bytes, bytes_b: bytes, body: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The patch by element ID when applying it to A gives B byte for byte, else None (the
    documents can only be replaced whole)."""
    base = {"format": FORMAT, "base": sha256(bytes_a), "result": sha256(bytes_b)}
    if bytes_a == bytes_b:
        return base
    if body is None:
        return None
    patch = {**base, **body}
    try:
        result = apply_bytes(bytes_a, patch)
    except BrsonError:  # a value the JSON form cannot carry
        return None
    return patch if result.bson == bytes_b else None


def element_patch(a: HasBson | bytes, b: HasBson | bytes) -> dict[str, Any] | None:
    """:func:`make_patch` by element ID, or None where it would replace the whole document
    (what a merge needs to know, without the replacement's JSON form)."""
    bytes_a = a if isinstance(a, bytes) else a.to_bson()
    bytes_b = b if isinstance(b, bytes) else b.to_bson()
    return checked_patch(bytes_a, bytes_b, _body(bytes_a, bytes_b))


__all__ = [
    "FORMAT",
    "ApplyResult",
    "Conflict",
    "PatchError",
    "apply_patch",
    "element_patch",
    "finish_patch",
    "make_patch",
    "merge_ids",
    "read_patch",
]
