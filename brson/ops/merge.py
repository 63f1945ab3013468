"""Three-way merge of data trees by element ID: what ``brson merge`` and git's merge driver run.

The merge is the engine's patches composed: ``merge(base, ours, theirs)`` is
``apply(apply(base, patch(base, ours)), patch(base, theirs))`` byte for byte.  A change
applies where OURS still holds BASE's value or already holds THEIRS'; anything else is a
conflict and nothing is merged (docs/editing.md lists the kinds).  Packages merge their main
trees this way and their assets as a union.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from brson.ops.applier import Conflict, apply_bytes
from brson.ops.patch import element_patch

#: How the applier's words read in a merge: the patch is THEIRS' changes, the target is OURS.
_WORDS = (("by the patch", "by theirs"), ("the patch", "theirs"), ("the target", "ours"))


@dataclass
class Merged:
    """A merge's result: the merged document's BSON (None when there were conflicts)."""

    bson: bytes | None
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.conflicts


def merge_documents(base: bytes, ours: bytes, theirs: bytes) -> Merged:
    """Merge two documents' BSON made from ``base``."""
    if theirs in (base, ours):
        return Merged(ours)
    if ours == base:
        return Merged(theirs)
    patch_ours = element_patch(base, ours)
    patch_theirs = element_patch(base, theirs)
    if patch_ours is None or patch_theirs is None:
        return Merged(
            None,
            [
                Conflict(
                    "document",
                    None,
                    "<root>",
                    "both sides changed a document that cannot be matched by element ID "
                    "(missing or duplicate IDs, or not a slot tree)",
                )
            ],
        )
    result = apply_bytes(ours, patch_theirs)
    conflicts = [_in_merge_words(c) for c in result.conflicts]
    conflicts += _dangling(patch_ours, patch_theirs, "theirs", "ours")
    conflicts += _dangling(patch_theirs, patch_ours, "ours", "theirs")
    if conflicts:
        return Merged(None, conflicts)
    return Merged(result.bson)


def merge_assets(
    ours: Mapping[str, bytes], theirs: Mapping[str, bytes]
) -> tuple[dict[str, bytes], list[Conflict]]:
    """The union of two packages' assets; a name both hold with different bytes conflicts."""
    merged = dict(ours.items())
    conflicts: list[Conflict] = []
    for name in theirs:
        data = theirs[name]
        if name not in merged:
            merged[name] = data
        elif merged[name] != data:
            conflicts.append(
                Conflict("asset", None, name, "ours and theirs hold different bytes under it")
            )
    return merged, conflicts


def _in_merge_words(conflict: Conflict) -> Conflict:
    message = conflict.message
    for said, meant in _WORDS:
        message = message.replace(said, meant)
    return Conflict(conflict.kind, conflict.id, conflict.path, message, conflict.key)


def _dangling(
    removing: dict[str, Any], referring: dict[str, Any], referrer: str, remover: str
) -> list[Conflict]:
    """References ``referring``'s side made to elements ``removing``'s side removed."""
    gone = _removed_ids(removing) - _removed_ids(referring)
    if not gone:
        return []
    out: list[Conflict] = []
    for kind, record, key, made in _new_references(referring):
        for target in sorted(made & gone):
            out.append(
                Conflict(
                    kind,
                    record.get("id"),
                    str(record.get("path", "")),
                    f"{referrer} refers to {target}, which {remover} removed",
                    key,
                )
            )
    return out


def _records(patch: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for kind, name in (("slot", "slots"), ("component", "components")):
        for record in patch.get(name) or []:
            yield kind, record
    root = patch.get("root")
    if isinstance(root, dict):
        yield "root", {"id": None, "path": "<root>", **root}


def _removed_ids(patch: dict[str, Any]) -> set[str]:
    """Every element ID the patch's side removed: removed slots and components with their
    members, and members or list elements dropped from a changed element."""
    out: set[str] = set()
    for _, record in _records(patch):
        if record.get("op") == "remove":
            out |= _strings(record.get("doc"))[0]
        for change in record.get("changes") or []:
            if "old" in change:
                before = _strings(change["old"])[0]
                after = _strings(change["new"])[0] if "new" in change else set()
                out |= before - after
    return out


def _new_references(
    patch: dict[str, Any],
) -> Iterator[tuple[str, dict[str, Any], str | None, set[str]]]:
    """Per added element or changed key: the strings it holds that it did not hold before
    (IDs are strings; which strings are references is for the removed side to say)."""
    for kind, record in _records(patch):
        if record.get("op") == "add":
            yield kind, record, None, _strings(record.get("doc"))[1]
        for change in record.get("changes") or []:
            if "new" in change:
                before = _strings(change.get("old"))[1]
                key = ".".join(str(k) for k in change.get("key") or [])
                yield kind, record, key, _strings(change["new"])[1] - before


def _strings(value: Any) -> tuple[set[str], set[str]]:
    """(IDs defined: strings under an ``ID`` key; other strings: what may be a reference)
    in a value of the JSON form (iterative: values nest as deep as BSON allows)."""
    defined: set[str] = set()
    held: set[str] = set()
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, inner in item.items():
                if key == "ID" and type(inner) is str:
                    defined.add(inner)
                else:
                    stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)
        elif type(item) is str:  # (a str subclass such as bson's Code is no ID)
            held.add(item)
    return defined, held


__all__ = ["Merged", "merge_assets", "merge_documents"]
