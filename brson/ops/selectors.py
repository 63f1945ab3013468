"""Elements named in text, as the command line and the API's shortcuts name them: a component
on a slot (``MeshRenderer``, ``MeshRenderer[1]``) and a member (``SLOT:COMPONENT.FIELD``).

Type names are matched by the model's one rule (:meth:`Component.is_type`), so the CLI, the
API and validate agree on what ``MeshRenderer`` means.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from brson.errors import ModelError, SelectorError
from brson.model import Component, DataTree, Member, Slot

_INDEXED = re.compile(r"(.*)\[(-?\d+)\]\Z", re.DOTALL)


def component_on(slot: Slot, spec: str) -> Component:
    """The component of a type on a slot: ``MeshRenderer``, a full name, ``Type[1]`` for the
    second of that type."""
    indexed = _INDEXED.match(spec)
    name, nth = (indexed.group(1), int(indexed.group(2))) if indexed else (spec, None)
    found = [c for c in slot.components if c.is_type(name)]
    if not found:
        have = ", ".join(sorted({c.type_label for c in slot.components})) or "none"
        raise SelectorError(f"no {name!r} component on this slot (it has: {have})", path=slot.path)
    if nth is None:
        if len(found) > 1:
            raise SelectorError(
                f"{len(found)} {name!r} components on this slot; pick one "
                f"with {name}[0] .. {name}[{len(found) - 1}]",
                path=slot.path,
            )
        return found[0]
    if not -len(found) <= nth < len(found):
        raise SelectorError(
            f"{spec!r}: the slot has {len(found)} {name!r} component(s)", path=slot.path
        )
    return found[nth]


def field_at(tree: DataTree, target: str) -> Member:
    """The member a textual target names: ``SLOT.FIELD`` (a slot member: ``Name``,
    ``Position``…), ``SLOT:COMPONENT.FIELD`` or ``SLOT.COMPONENT.FIELD`` (a component field;
    the short form takes a dot-free type name), with ``FIELD[i]`` for a list element.  SLOT is
    a selector (name, path or ID); slot names containing dots work, each split is tried."""
    found: list[tuple[str, Callable[[], Member]]] = []
    errors: list[str] = []
    for slot_part, component_part, field_part in _splits(target):
        try:
            slot = tree.find(slot_part)
        except SelectorError as exc:
            errors.append(exc.message)
            continue
        if slot is None:
            continue
        found.append((slot_part, _field_getter(slot, component_part, field_part)))
    resolved: list[Member] = []
    for _, getter in found:
        try:
            resolved.append(getter())
        except (SelectorError, ModelError) as exc:
            errors.append(exc.message)
    if len(resolved) == 1:
        return resolved[0]
    if len(resolved) > 1:
        raise SelectorError(
            f"{target!r} can be read {len(resolved)} ways; use "
            "SLOT:COMPONENT.FIELD with a full slot path"
        )
    if errors:
        raise SelectorError(f"{target!r}: {errors[0]}")
    raise SelectorError(
        f"no slot matches the start of {target!r} (SLOT.FIELD, "
        "SLOT:COMPONENT.FIELD or SLOT.COMPONENT.FIELD)"
    )


def _splits(target: str) -> list[tuple[str, str | None, str]]:
    out: list[tuple[str, str | None, str]] = []
    for n, char in enumerate(target):
        if char == ":":
            head, rest = target[:n], target[n + 1 :]
            component, dot, field_name = rest.rpartition(".")
            if dot and component and field_name:
                out.append((head, component, field_name))
    dots = [n for n, char in enumerate(target) if char == "."]
    for n in dots:
        head, rest = target[:n], target[n + 1 :]
        if "." not in rest:
            out.append((head, None, rest))
        else:
            component, _, field_name = rest.partition(".")
            if "." not in field_name:
                out.append((head, component, field_name))
    return out


def _field_getter(slot: Slot, component: str | None, field_name: str) -> Callable[[], Member]:
    def get() -> Member:
        indexed = _INDEXED.match(field_name)
        name, nth = (indexed.group(1), int(indexed.group(2))) if indexed else (field_name, None)
        if component is None:
            member = slot.member(name) if name not in ("Children", "Components") else None
            if member is None or member.id is None:
                raise SelectorError(f"the slot has no member {name!r}", path=slot.path)
        else:
            owner = component_on(slot, component)
            if name not in owner:
                have = ", ".join(owner.fields) or "none"
                raise SelectorError(
                    f"{component} has no field {name!r} (it has: {have})", path=slot.path
                )
            member = owner[name]
        if nth is None:
            return member
        elements = member.elements
        if elements is None or not -len(elements) <= nth < len(elements):
            count = len(elements) if elements is not None else 0
            raise SelectorError(f"{field_name!r}: the list has {count} element(s)", path=slot.path)
        return elements[nth]

    return get
