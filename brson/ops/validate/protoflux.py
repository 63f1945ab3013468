"""BR7xx: ProtoFlux connections only the data can prove wrong.

The walk hands this family every component; it keeps the ProtoFlux ones (their type names a
ProtoFlux assembly: one table lookup per type index, not per component) and, at the end,
hands them to the graph model's builder as the walk meets them (:class:`brson.flux.model.Builder`,
which keeps of a node only the members that can connect, not its decoded document), and the
model's issues are the findings.  So the rules of what a connection is live once, in
:mod:`brson.flux`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from brson.flux import Issue
from brson.flux.catalog import is_helper, is_node
from brson.flux.model import (
    HELPER_WITHOUT_NODE,
    IMPULSE_NOT_NODE,
    INPUT_NOT_OUTPUT,
    NODE_WITHOUT_SLOT,
    Builder,
    NodeRead,
    SlotKey,
)
from brson.model.slot import Slot
from brson.model.typename import TypeName, is_type_name
from brson.ops.validate.context import ComponentInfo, Context, Family, is_int
from brson.ops.validate.findings import WARNING, Rule, rule

INPUT_NOT_OUTPUT_RULE = rule(
    "BR701",
    WARNING,
    "ProtoFlux input reads no node output",
    "A node's value input holds the ID of the node it reads (its one output) or of that "
    "node's output member (`Unpack_Float3.Y`). An input naming another component or field is "
    "a connection the engine cannot make: it drops it on load and the input reads its default.",
    "every value input of the real samples names a node or a node's output (docs/protoflux.md)",
)
IMPULSE_NOT_NODE_RULE = rule(
    "BR702",
    WARNING,
    "ProtoFlux impulse to no node",
    "An impulse or call (`Next`, `If.OnTrue`, `Sequence.Calls[i]`) holds the ID of the node it "
    "continues to. Naming something else, or nothing in the file, ends the flow there.",
    "every impulse of mar_coresys (36) names a node (docs/protoflux.md)",
)
NODE_WITHOUT_SLOT_RULE = rule(
    "BR703",
    WARNING,
    "ProtoFlux node on no slot",
    "A node lives on a slot of its own, which gives its place on the canvas and its group; a "
    "node component in the root `Assets` has none, and the engine cannot place or run it.",
    "every node of the real samples (256) is the one node of its slot (docs/protoflux.md)",
)
HELPER_WITHOUT_NODE_RULE = rule(
    "BR704",
    WARNING,
    "ProtoFlux helper without its node",
    "A proxy, drive or store (`FieldDriveBase<T>+Proxy`, `…+Store`) names the node on its own "
    "slot in `Node`. Naming no node, or one on another slot, leaves the drive or the stored "
    "value attached to nothing.",
    "every proxy, drive and store of the real samples (21) names its slot's node",
)

_RULES: dict[str, Rule] = {
    INPUT_NOT_OUTPUT: INPUT_NOT_OUTPUT_RULE,
    IMPULSE_NOT_NODE: IMPULSE_NOT_NODE_RULE,
    NODE_WITHOUT_SLOT: NODE_WITHOUT_SLOT_RULE,
    HELPER_WITHOUT_NODE: HELPER_WITHOUT_NODE_RULE,
}


def _protoflux(name: str) -> bool:
    parsed = TypeName.parse(name)
    return is_node(parsed) or is_helper(parsed)


class ProtoFluxRules(Family):
    def __init__(self) -> None:
        self.builder: Builder | None = None
        self.indices: set[int] = set()
        self.names: dict[str, bool] = {}

    def root(self, ctx: Context) -> None:
        self.indices = {i for i, name in enumerate(ctx.type_names) if _protoflux(name)}

    def component(self, ctx: Context, info: ComponentInfo) -> None:
        raw = info.doc.get("Type")
        keep = False
        if is_int(raw):
            keep = raw in self.indices
        elif isinstance(raw, str) and is_type_name(raw):
            known = self.names.get(raw)
            keep = self.names[raw] = _protoflux(raw) if known is None else known
        if keep:
            self.add(ctx, info.slot, info.doc)

    def _builder(self, ctx: Context) -> Builder:
        if self.builder is None:
            census = ctx.census
            self.builder = Builder(
                ctx.tree,
                issues_only=True,
                referenced=None if census is None else census.defined_values,
            )
        return self.builder

    def add(self, ctx: Context, slot: SlotKey, doc: dict[str, Any]) -> None:
        """Hand a ProtoFlux component (decoded) to the model's builder."""
        self._builder(ctx).add(slot, doc)

    def node_mask(self, ctx: Context) -> bytes:
        """A byte per Types index: whether its components are nodes."""
        builder = self._builder(ctx)
        return bytes(builder.is_node(index) for index in range(len(ctx.type_names)))

    def rows_adder(
        self, ctx: Context, slot_of: Callable[[int], Slot]
    ) -> Callable[[Sequence[SlotKey], Sequence[NodeRead | None], Callable[[int], Any]], None]:
        """What takes runs of ProtoFlux components on rows of a slot table, each a node read
        from its bytes (``_fieldsc.nodes``) or None (decoded when asked): the builder's
        :meth:`~Builder.add_nodes`, which makes a row's slot (``slot_of``) only for an issue."""
        builder = self._builder(ctx)
        builder.slot_of = slot_of
        return builder.add_nodes

    def finish(self, ctx: Context) -> None:
        if self.builder is None:
            return
        model = self.builder.finish()
        for issue in model.issues:
            ctx.add(_RULES[issue.kind], issue.detail, path=_path(issue), element=issue.component)


def _path(issue: Issue) -> str:
    head = issue.slot.display_path() if issue.slot is not None else "<Assets>"
    member = f".{issue.member}" if issue.member is not None else ""
    return f"{head}:{issue.label}{member}"
