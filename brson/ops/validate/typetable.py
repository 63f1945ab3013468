"""BR3xx: component types: indices into ``Types``, the table itself, ``TypeVersions``."""

from __future__ import annotations

from collections import Counter

from brson.model.typename import TypeName, is_type_name
from brson.ops.validate.context import ComponentInfo, Context, Family, is_int, kind_of
from brson.ops.validate.findings import ERROR, INFO, WARNING, rule

INDEX_RANGE = rule(
    "BR301",
    ERROR,
    "type index out of range",
    "A component's `Type` must index the `Types` table; the engine cannot tell what the "
    "component is.",
    "format notes §3 (Component); `Component.type`",
)
TYPE_VALUE = rule(
    "BR302",
    ERROR,
    "Type neither an index nor a name",
    "`Type` is an integer index (Resonite) or a type-name string (NeosVR); a double, bool, "
    "null or document names nothing.",
    "format notes §3 (Component)",
)
UNUSED = rule(
    "BR303",
    INFO,
    "type listed but unused",
    "A `Types` entry no component uses. The engine writes these itself (a non-persistent "
    "component such as `SlotGizmo` registers its type before being skipped), so it is "
    "harmless. brson's edits keep the table as it was (removing an entry re-writes every "
    "component whose index moves), so this is information, not a problem; an extract trims "
    "unused entries, and `brson delete --prune-types` / `DataTree.drop_unused_types()` do on "
    "request.",
    "`orange3134_AvatarRootIdentification.brson` lists an unused `SlotGizmo`",
)
DUPLICATE = rule(
    "BR304",
    WARNING,
    "type listed twice",
    "The same type name at two indices of `Types`: the engine writes each type once, and "
    "tools matching types by name or index disagree about such files.",
    "every real sample lists each type once",
)
UNPARSED = rule(
    "BR305",
    WARNING,
    "type name unknown-looking",
    "A type name that does not follow `[Assembly]Namespace.Type<args>` (or NeosVR's "
    "`Namespace.Type`): empty, unbalanced brackets, stray characters. It is kept verbatim, "
    "but no engine type has such a name.",
    "`brson.model.typename` grammar; every name in the real samples parses",
)
TYPE_VERSION_UNUSED = rule(
    "BR306",
    INFO,
    "TypeVersions entry for a type no component uses",
    "Versions matter only for the types present; a stray entry is left over from an edit.",
    "every `TypeVersions` entry of the real samples names a type in use",
)


class TypeRules(Family):
    def __init__(self) -> None:
        self.used_indices: set[int] = set()
        self.used_names: set[str] = set()

    def root(self, ctx: Context) -> None:
        names = ctx.type_names
        for name, count in Counter(names).items():
            if count > 1:
                ctx.add(DUPLICATE, f"{name!r} appears {count} times in Types")
        for index, name in enumerate(names):
            if TypeName.parse(name).opaque is not None:
                ctx.add(UNPARSED, f"Types[{index}] {name!r} is not a well-formed type name")

    def component(self, ctx: Context, info: ComponentInfo) -> None:
        if "Type" not in info.doc:
            return  # the document rules report it
        raw_type = info.doc["Type"]
        if is_int(raw_type):
            if ctx.legacy or not ctx.types_ok:
                return  # an index without a table: a generation mix-up (BR601)
            index = int(raw_type)
            if 0 <= index < len(ctx.type_names):
                self.used_indices.add(index)
            else:
                ctx.add(
                    INDEX_RANGE,
                    f"Type index {index} is out of range (Types has {len(ctx.type_names)})",
                    path=info.path,
                    element=info.id,
                )
        elif is_type_name(raw_type):
            if not ctx.legacy:
                return  # a name where an index belongs: a generation mix-up (BR602)
            self.used_names.add(raw_type)
            if TypeName.parse(raw_type).opaque is not None:
                ctx.add(
                    UNPARSED,
                    f"Type {raw_type!r} is not a well-formed type name",
                    path=info.path,
                    element=info.id,
                )
        else:
            ctx.add(TYPE_VALUE, f"Type is {kind_of(raw_type)}", path=info.path, element=info.id)

    def finish(self, ctx: Context) -> None:
        names = ctx.type_names
        for index, name in enumerate(names):
            if index not in self.used_indices:
                ctx.add(UNUSED, f"Types[{index}] {name!r} is used by no component")
        used = self.used_names | {names[i] for i in self.used_indices}
        versions = ctx.tree.get("TypeVersions")
        if isinstance(versions, dict):
            for name in versions:
                if name not in used:
                    ctx.add(
                        TYPE_VERSION_UNUSED, f"TypeVersions names {name!r}, which no component uses"
                    )
