"""A component's field values read leniently: a missing or wrongly typed field is None, for
exporters that fall back to the engine's defaults instead of refusing a whole scene."""

from __future__ import annotations

from typing import Any

from brson.model import Component, Member


def field_member(component: Component, key: str) -> Member | None:
    try:
        return component[key]
    except KeyError:
        return None


def field_value(component: Component, key: str) -> Any:
    member = field_member(component, key)
    return member.value if member is not None else None


def field_text(component: Component, key: str) -> str | None:
    """An enum or string field's text; None for anything else (a hostile document or list in
    an enum field must not reach a set lookup: it is unhashable)."""
    value = field_value(component, key)
    return value if type(value) is str else None


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def field_number(component: Component, key: str) -> float | None:
    value = field_value(component, key)
    return float(value) if _is_number(value) else None


def field_numbers(component: Component, key: str, count: int) -> list[float] | None:
    """The first ``count`` numbers of a vector/quaternion/color field."""
    value = field_value(component, key)
    if isinstance(value, list) and len(value) >= count and all(map(_is_number, value[:count])):
        return [float(v) for v in value[:count]]
    return None
