"""What the model's editing shortcuts need from the operations layer, stated as a protocol.

``Slot.add_child``, ``Slot.move``, ``Slot.remove``, ``Component.remove``, ``DataTree.extract``
and ``DataTree.renumber`` are carried out by :mod:`brson.ops` (new IDs, reference nulling and
dependency closure need the reference graph, which sits above the model).  Rather than import
upward, the model names the operations here and :mod:`brson.ops` installs them when imported.
The first shortcut used imports it by name if nothing has yet (``import brson`` no longer does:
start-up would pay for the operations every command and script may never use).  The results of
a removal are model facts, so they are defined here.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from brson.errors import ModelError

if TYPE_CHECKING:
    from brson.model.tree import Component, DataTree, Slot


@dataclass(frozen=True)
class DanglingReference:
    """A value that named a removed element."""

    #: Path of the value (``Root/Body:MeshRenderer.Materials[0]``).
    where: str
    #: The ID it holds, and what that ID named before the removal.
    target: str
    target_path: str
    #: ``kept`` or ``nulled``.
    action: str
    #: ID of the slot or component holding the value.
    holder: str | None = None


@dataclass
class Removal:
    """What a delete or component removal took away and what it left pointing at nothing."""

    path: str
    #: How many IDs went with it (its own, its members', its descendants').
    ids: int
    references: list[DanglingReference] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Editor(Protocol):
    """The operations behind the shortcuts (:mod:`brson.ops` provides them)."""

    def add_slot(self, parent: Slot, name: str, **options: Any) -> Slot: ...

    def add_component(
        self, slot: Slot, type_name: str, fields: dict[str, Any] | None, **options: Any
    ) -> Component: ...

    def move(self, slot: Slot, parent: Slot | None, index: int | None) -> None: ...

    def delete(self, slot: Slot, references: str) -> Removal: ...

    def remove_component(self, component: Component, references: str) -> Removal: ...

    def renumber(self, tree: DataTree) -> DataTree: ...

    def extract(self, tree: DataTree, slot: Slot | str, **options: Any) -> DataTree: ...


_installed: list[Editor] = []

#: The package that installs the operations when imported: named, not imported statically, so
#: the model never depends on the layer above it (the layers contract sees no such import).
OPERATIONS = "brson.ops"


def install(editor: Editor) -> None:
    """Called by :mod:`brson.ops` on import."""
    _installed[:] = [editor]


def editor() -> Editor:
    """The installed operations, importing :data:`OPERATIONS` on first use."""
    if not _installed:
        importlib.import_module(OPERATIONS)
    if not _installed:
        raise ModelError(f"editing a tree needs brson's operations: {OPERATIONS} installed none")
    return _installed[0]
