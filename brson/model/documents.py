"""Pydantic models of the document shapes: validation on demand and the JSON Schema source.

They describe what the engine writes (and allow every extra key, so unknown fields and unknown
components validate).  They are not how trees are held in memory: :mod:`brson.model.node`
keeps the bytes and decodes lazily; ``Slot.model()``/``Component.model()`` validate into these.
Note: pydantic widens ``Int64`` to ``int``, so round trips go through the tree, never these.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from brson.errors import ModelError


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class MemberDoc(_Open):
    """A field: its own ID and its value (a reference is the target's ID string)."""

    ID: StrictStr
    Data: Any = None


class ComponentDataDoc(_Open):
    """A component's fields; the named ones are present on every component the engine writes.

    Every other field is validated too: a member-shaped one (``{ID, Data}``) becomes a
    :class:`MemberDoc`, anything else (odd internal keys) is kept as it is.
    """

    __pydantic_extra__: dict[str, MemberDoc | Any]

    ID: StrictStr
    persistent_id: StrictStr | None = Field(default=None, alias="persistent-ID")
    UpdateOrder: MemberDoc | None = None
    Enabled: MemberDoc | None = None


class ComponentDoc(_Open):
    """``Type`` is an index into the root ``Types`` (Resonite) or a type name (NeosVR)."""

    Type: StrictInt | StrictStr
    Data: ComponentDataDoc


class ComponentsMember(_Open):
    ID: StrictStr
    Data: list[ComponentDoc]


class SlotDoc(_Open):
    """A slot.  ``ParentReference`` is an ID of its own (the parent link), not the parent's."""

    ID: StrictStr
    Components: ComponentsMember
    Name: MemberDoc
    Tag: MemberDoc | None = None
    Active: MemberDoc | None = None
    persistent_id: StrictStr | None = Field(default=None, alias="Persistent-ID")
    Position: MemberDoc | None = None
    Rotation: MemberDoc | None = None
    Scale: MemberDoc | None = None
    OrderOffset: MemberDoc | None = None
    ParentReference: StrictStr | None = None
    Children: list[SlotDoc] = Field(default_factory=list)


class DataTreeDoc(_Open):
    """The root document of an archive (both generations)."""

    VersionNumber: StrictStr | None = None
    FeatureFlags: dict[str, StrictInt] | None = None
    Types: list[StrictStr] | None = None
    TypeVersions: dict[str, StrictInt] | None = None
    Object: SlotDoc
    Assets: list[ComponentDoc] | None = None


#: The models ``brson schema`` writes, by file stem.
SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "datatree": DataTreeDoc,
    "slot": SlotDoc,
    "component": ComponentDoc,
    "member": MemberDoc,
}


M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], data: dict[str, Any], where: str | None) -> M:
    """A pydantic model of hostile data fails as a ModelError naming the slot, like the rest."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        what = f"{'.'.join(str(p) for p in errors[0]['loc'])} {errors[0]['msg']}" if errors else exc
        raise ModelError(
            f"not a valid {model.__name__.removesuffix('Doc').lower()}: {what}", path=where
        ) from None
