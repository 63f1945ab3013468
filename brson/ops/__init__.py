"""Operations on data trees: extract, edit, validate, diff (each in its own module).

Importing this package installs the operations behind the model's editing shortcuts
(``Slot.add_child``, ``DataTree.extract``, ...; see :mod:`brson.model.editing`).
"""

from __future__ import annotations

from typing import Any

from brson.model import editing
from brson.model.tree import Component, DataTree, Slot
from brson.ops import edit, extract, ids


class _Operations:
    """:class:`brson.model.editing.Editor`, by this layer's functions."""

    def add_slot(self, parent: Slot, name: str, **options: Any) -> Slot:
        return edit.add_slot(parent, name, **options)

    def add_component(
        self, slot: Slot, type_name: str, fields: dict[str, Any] | None, **options: Any
    ) -> Component:
        return edit.add_component(slot, type_name, fields, **options)

    def move(self, slot: Slot, parent: Slot | None, index: int | None) -> None:
        edit.move(slot, parent, index)

    def delete(self, slot: Slot, references: str) -> editing.Removal:
        return edit.delete(slot, references)

    def remove_component(self, component: Component, references: str) -> editing.Removal:
        return edit.remove_component(component, references)

    def renumber(self, tree: DataTree) -> DataTree:
        return ids.renumber(tree)

    def extract(self, tree: DataTree, slot: Slot | str, **options: Any) -> DataTree:
        return extract.extract(tree, slot, **options).tree


editing.install(_Operations())
