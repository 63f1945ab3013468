"""Dynamic variables: the named values templates are parameterised with.

A variable is a component with a ``VariableName`` member (``Space/Name`` or a bare name) that
holds its value (``DynamicValueVariable<T>``, ``DynamicReferenceVariable<T>``,
``DynamicTypeVariable``) or publishes another component's field (``DynamicField<T>`` and
kin: setting the variable sets that field); docs/editing.md ("Dynamic variables") lists
them.  Values are parsed from text by :func:`brson.ops.textvalues.parse_text` with ``T`` as
the type hint, so widths and colour profiles follow the field.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from brson.errors import ModelError, SelectorError
from brson.model import Component, DataTree, Member, Slot
from brson.model.edit import set_value
from brson.ops.textvalues import parse_text

#: Variable component (short generic name) -> (kind, member holding the value or its target).
VARIABLE_TYPES: dict[str, tuple[str, str]] = {
    "DynamicValueVariable": ("value", "Value"),
    "DynamicReferenceVariable": ("reference", "Reference"),
    "DynamicTypeVariable": ("type", "Value"),
    "DynamicField": ("field", "TargetField"),
    "DynamicReference": ("field-reference", "TargetReference"),
    "DynamicTypeField": ("field-type", "TargetField"),
}
_REFERENCE_KINDS = ("reference", "field-reference")
_FIELD_KINDS = ("field", "field-reference", "field-type")


@dataclass
class Variable:
    """One dynamic variable, with the member that holds its value (None when the
    component lacks it or a field variable's target is not in the file)."""

    name: str
    kind: str
    #: The generic argument ``T`` as written (``bool``, ``colorX``,
    #: ``[FrooxEngine]FrooxEngine.Slot``); empty for type variables.
    type: str
    slot: str
    component: Component
    member: Member | None

    @property
    def value(self) -> Any:
        return self.member.value if self.member is not None else None

    @property
    def reference(self) -> bool:
        return self.kind in _REFERENCE_KINDS

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "type": self.type,
            "value": self.value,
            "slot": self.slot,
            "component_id": self.component.id,
            "member_id": self.member.id if self.member is not None else None,
        }


def variables(tree: DataTree) -> list[Variable]:
    """Every dynamic variable, in document order."""
    out = []
    for slot in tree.walk():
        for component in slot.components:
            variable = _variable(tree, component, slot)
            if variable is not None:
                out.append(variable)
    return out


def _variable(tree: DataTree, component: Component, slot: Slot) -> Variable | None:
    try:
        type_name = component.type
    except ModelError:
        return None
    found = VARIABLE_TYPES.get(type_name.simple_name)
    if found is None or "VariableName" not in component:
        return None
    kind, key = found
    name = component["VariableName"].value
    args = type_name.generic_args
    member = component.fields.get(key)
    if member is not None and kind in _FIELD_KINDS:
        target = member.target
        member = target if isinstance(target, Member) else None
    return Variable(
        name if isinstance(name, str) else "",
        kind,
        str(args[0]) if args else "",
        slot.display_path(),  # only for slots holding one: a path is O(depth) to make
        component,
        member,
    )


def find(tree: DataTree, name: str, slot: str | None = None) -> list[Variable]:
    """Variables named ``name`` (on slots matching the ``slot`` selector when given)."""
    found = [v for v in variables(tree) if v.name == name]
    if slot is not None:
        wanted = {id(s) for s in tree.find_all(slot)}
        found = [v for v in found if id(v.component.slot) in wanted]
    return found


def set_text(
    tree: DataTree, name: str, text: str, *, slot: str | None = None, every: bool = False
) -> list[Variable]:
    """Set variable ``name`` from text, parsed as its type.  Several variables of that name
    are an error unless ``every`` (set them all) or ``slot`` narrows to one."""
    found = find(tree, name, slot)
    if not found:
        names = sorted({v.name for v in variables(tree)})
        close = difflib.get_close_matches(name, names, n=5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        where = f" on slot {slot!r}" if slot is not None else ""
        raise SelectorError(f"no dynamic variable named {name!r}{where}{hint}")
    if len(found) > 1 and not every:
        listing = "; ".join(f"{v.slot} ({v.component.id})" for v in found[:10])
        raise SelectorError(
            f"{len(found)} variables are named {name!r}: {listing}; narrow "
            "with a slot selector or set them all"
        )
    parsed = [(v, _parse(tree, v, text)) for v in found]  # all or nothing
    for variable, value in parsed:
        assert variable.member is not None
        set_value(variable.member, value)
    return found


def _parse(tree: DataTree, variable: Variable, text: str) -> Any:
    where = f"{variable.slot}:{variable.name}"
    if variable.member is None:
        raise ModelError(
            f"variable {variable.name!r} has no value to set (its "
            f"{VARIABLE_TYPES[variable.component.type.simple_name][1]} is missing or "
            "names nothing in the file)",
            path=variable.slot,
        )
    if variable.kind in ("type", "field-type"):
        return text  # a type name, stored as its string
    hint = _hint(variable)
    return parse_text(
        text,
        variable.member.get("Data"),
        hint,
        tree=tree,
        reference=variable.reference,
        where=where,
    )


def _hint(variable: Variable) -> str | None:
    args = variable.component.type.generic_args
    if not args:
        return None
    arg = args[0]
    return arg.name + arg.suffix


__all__ = ["VARIABLE_TYPES", "Variable", "find", "set_text", "variables"]
