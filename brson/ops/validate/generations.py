"""BR6xx: NeosVR (legacy) and Resonite conventions mixed up in one file.

The generation is told by the ``Types`` table (Resonite) or its absence (NeosVR).  Integer
widths are checked on the fields whose width is known for each generation (format notes §2):
NeosVR writes every integer as int64; Resonite writes ``Type``, ``UpdateOrder``, feature flag
and type-version values as int32 and ``OrderOffset`` as int64.  A tool that loses the width
loses it everywhere, so these fields catch it.  Width findings are counted per file (one
finding each, naming the first place) rather than repeated per value.
"""

from __future__ import annotations

from bson.int64 import Int64

from brson.model.typename import TypeName, is_type_name
from brson.ops.validate.context import (
    ComponentInfo,
    Context,
    Family,
    SlotInfo,
    is_int,
    member_data,
)
from brson.ops.validate.findings import ERROR, WARNING, Rule, rule

INDEX_IN_LEGACY = rule(
    "BR601",
    ERROR,
    "type index in a NeosVR file",
    "A component `Type` is an integer but the file has no `Types` table to index: NeosVR "
    "files name each component's type inline.",
    "format notes §3; `redx_5ce7cdf5.7zbson`",
)
NAME_IN_RESONITE = rule(
    "BR602",
    ERROR,
    "type name in a Resonite file",
    "A component `Type` is a type-name string in a file with a `Types` table: Resonite "
    "reads `Type` as an index there.",
    "format notes §3; both Resonite samples",
)
RESONITE_WIDTH = rule(
    "BR604",
    WARNING,
    "integer width differs from Resonite's",
    "Resonite writes `Type`, `UpdateOrder`, `FeatureFlags` and `TypeVersions` values as "
    "int32 and `OrderOffset` as int64; another width means a tool lost the distinction.",
    "format notes §2; both Resonite samples",
)
LEGACY_TYPE_NAME = rule(
    "BR605",
    WARNING,
    "NeosVR-style name in a Resonite Types table",
    "Resonite type names start with their assembly (`[FrooxEngine]FrooxEngine.Slot`); a "
    "bare `FrooxEngine.Slot` is the NeosVR form, which the Resonite type table does not "
    "resolve.",
    "format notes §3 (type names); every name of both Resonite samples",
)
RESONITE_KEYS_IN_LEGACY = rule(
    "BR606",
    WARNING,
    "Resonite root keys without a Types table",
    "`VersionNumber`/`FeatureFlags` belong to Resonite files, which always have `Types`; "
    "with inline type names the file mixes both generations.",
    "format notes §3 (root keys)",
)
RESONITE_HEADERLESS = rule(
    "BR607",
    WARNING,
    "Resonite tree without the FrDT header",
    "Resonite always writes the `FrDT` header; a headerless (NeosVR-style) file holding a "
    "Resonite tree comes from another tool, and the engine only reads it by extension.",
    "format notes §1",
)


class _Tally:
    """Counts one kind of width finding, keeping the first place it was seen."""

    def __init__(self, rule: Rule, what: str) -> None:
        self.rule = rule
        self.what = what
        self.count = 0
        self.first: str | None = None

    def note(self, where: str) -> None:
        if not self.count:
            self.first = where
        self.count += 1

    def report(self, ctx: Context) -> None:
        if self.count:
            ctx.add(self.rule, f"{self.count} {self.what} (first at {self.first})", path=self.first)


class GenerationRules(Family):
    def __init__(self) -> None:
        self.tallies: dict[str, _Tally] = {}

    def _tally(self, key: str, rule: Rule, what: str) -> _Tally:
        tally = self.tallies.get(key)
        if tally is None:
            tally = self.tallies[key] = _Tally(rule, what)
        return tally

    def root(self, ctx: Context) -> None:
        tree = ctx.tree
        if ctx.legacy:
            present = [key for key in ("VersionNumber", "FeatureFlags") if key in tree]
            if present:
                ctx.add(
                    RESONITE_KEYS_IN_LEGACY, f"{' and '.join(present)} present but no Types table"
                )
        else:
            for index, name in enumerate(ctx.type_names):
                parsed = TypeName.parse(name)
                if parsed.opaque is None and parsed.assembly is None:
                    ctx.add(LEGACY_TYPE_NAME, f"Types[{index}] {name!r} has no [Assembly] prefix")
            if tree.container is not None and tree.container.legacy:
                ctx.add(
                    RESONITE_HEADERLESS,
                    "a Resonite tree (Types table) in a headerless legacy container",
                )
        for key in ("FeatureFlags", "TypeVersions"):
            values = tree.get(key)
            if not isinstance(values, dict):
                continue
            for name, value in values.items():
                tally = self._width(ctx, value, resonite_int32=True)
                if tally is not None:
                    tally.note(f"{key}[{name!r}]")

    def slot(self, ctx: Context, info: SlotInfo) -> None:
        if "OrderOffset" in info.fields:
            is_member, value = member_data(info.fields["OrderOffset"])
            tally = self._width(ctx, value, resonite_int32=False) if is_member else None
            if tally is not None:
                tally.note(info.path + ".OrderOffset")

    def component(self, ctx: Context, info: ComponentInfo) -> None:
        raw_type = info.doc.get("Type")
        if not ctx.legacy and type(raw_type) is int:
            # The usual Resonite component: an int32 index (right width, no mix-up), and an
            # int32 UpdateOrder or none.
            member = info.data.get("UpdateOrder")
            if not (isinstance(member, dict) and "ID" in member) or type(member.get("Data")) is int:
                return
        if ctx.legacy and is_int(raw_type):
            ctx.add(
                INDEX_IN_LEGACY,
                f"Type is the index {raw_type} but the file has no Types table",
                path=info.path,
                element=info.id,
            )
        elif not ctx.legacy and is_type_name(raw_type):
            ctx.add(
                NAME_IN_RESONITE,
                f"Type is the name {raw_type!r} in a file with a Types table",
                path=info.path,
                element=info.id,
            )
        else:
            tally = self._width(ctx, raw_type, resonite_int32=True)
            if tally is not None:
                tally.note(info.path + " (Type)")
        data = info.data
        is_member, value = member_data(data.get("UpdateOrder"))
        tally = self._width(ctx, value, resonite_int32=True) if is_member else None
        if tally is not None:
            tally.note(info.path + ".UpdateOrder")

    def counted(self, count: int) -> bool:
        """Count ``count`` more int64 values where Resonite writes int32 (a slot the compiled
        pass read), when their finding already has its first place; False otherwise (the
        slot is then read in full, which notes that place)."""
        tally = self.tallies.get("int64")
        if tally is None or not tally.count:
            return False
        tally.count += count
        return True

    def _width(self, ctx: Context, value: object, *, resonite_int32: bool) -> _Tally | None:
        """The tally a value of the wrong width belongs to (None when its width is right)."""
        # NeosVR files have no width rule: the redx sample is int64 throughout, a 2022 export
        # mixes int32 UpdateOrder/TypeVersions/RenderQueue with int64 OrderOffset, and the
        # engine widens every int32 on reading (format notes §2). BR603 said otherwise; retired.
        if not is_int(value) or ctx.legacy:
            return None
        if resonite_int32 and isinstance(value, Int64):
            return self._tally("int64", RESONITE_WIDTH, "int64 values where Resonite writes int32")
        elif not resonite_int32 and not isinstance(value, Int64):
            return self._tally("int32", RESONITE_WIDTH, "int32 values where Resonite writes int64")
        return None

    def finish(self, ctx: Context) -> None:
        for tally in self.tallies.values():
            tally.report(ctx)
