"""The one walk over a tree that feeds every rule family.

Each slot's own keys are decoded once, each component is decoded once (pymongo, C speed:
this is also what proves its BSON well-formed), and every family sees the same decoded values.
Nothing here is recursive, so a tree thousands of slots deep walks like a flat one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from brson.collector import paused_gc
from brson.errors import BrsonError
from brson.model.tree import DataTree, Slot
from brson.ops.validate.container import report_error
from brson.ops.validate.context import ComponentInfo, Context, Family, SlotInfo
from brson.ops.validate.document import DocumentRules, assets_of, children_of, components_of
from brson.ops.validate.findings import Findings
from brson.ops.validate.generations import GenerationRules
from brson.ops.validate.references import ReferenceRules
from brson.ops.validate.transforms import TransformRules
from brson.ops.validate.typetable import TypeRules

FAMILIES: tuple[type[Family], ...] = (
    DocumentRules,
    TypeRules,
    ReferenceRules,
    TransformRules,
    GenerationRules,
)

#: Slot keys the walk descends into rather than decoding as values.
_STRUCTURE = ("Children", "Components")


def _hooks(families: list[Family], name: str) -> list[Callable[..., None]]:
    """The bound hooks the families actually override (no calls to no-ops per element)."""
    base = getattr(Family, name)
    return [getattr(f, name) for f in families if getattr(type(f), name) is not base]


def check_tree(tree: DataTree, findings: Findings) -> None:
    """Run every rule on a tree, adding to ``findings``.  A part of the document that turns
    out unreadable while walking (malformed BSON deep inside) ends the walk with its finding."""
    families = [cls() for cls in FAMILIES]
    # Many short-lived decoded values, no cycles: the collector only costs here.
    with paused_gc():
        try:
            ctx = Context(tree, findings)
            for hook in _hooks(families, "root"):
                hook(ctx)
            slot_hooks = _hooks(families, "slot")
            component_hooks = _hooks(families, "component")
            if tree.child_node("Object", Slot) is not None:
                _walk(ctx, tree.root, slot_hooks, component_hooks)
            for component in assets_of(ctx):
                info = ComponentInfo(ctx, component, component.decoded(), None)
                for hook in component_hooks:
                    hook(ctx, info)
            for hook in _hooks(families, "finish"):
                hook(ctx)
        except BrsonError as exc:
            report_error(findings, exc)


def _walk(
    ctx: Context,
    root: Slot,
    slot_hooks: list[Callable[..., None]],
    component_hooks: list[Callable[..., None]],
) -> None:
    stack = [root]
    while stack:
        slot = stack.pop()
        fields: dict[str, Any] = {key: slot.get(key) for key in slot if key not in _STRUCTURE}
        info = SlotInfo(slot, fields)
        for hook in slot_hooks:
            hook(ctx, info)
        for component in components_of(ctx, slot):
            component_info = ComponentInfo(ctx, component, component.decoded(), slot)
            for hook in component_hooks:
                hook(ctx, component_info)
        stack.extend(reversed(children_of(ctx, slot)))
