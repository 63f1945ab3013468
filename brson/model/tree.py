"""The data tree: the root document, what :func:`brson.load` returns; it owns the record of
its edits (identity of what it hands out, and the edits: :mod:`brson.model.overlay`)."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from brson.container import Container
from brson.errors import ModelError, SelectorError
from brson.model import slotmatch
from brson.model.component import Component
from brson.model.ids.forms import ID_HEAD, is_guid
from brson.model.member import Member
from brson.model.node import _NO_VALS, Node
from brson.model.overlay import Edits, detach
from brson.model.slot import Slot
from brson.model.typename import TypeName, is_type_name

if TYPE_CHECKING:
    from brson.model.documents import DataTreeDoc
    from brson.model.ids.index import IdIndex
    from brson.model.ids.scan import DefinitionTable
    from brson.model.spans import SlotTable


class IdRef:
    """An ID defined by a plain string key (``ParentReference``, ``Persistent-ID``, ``_x-ID``)."""

    __slots__ = ("key", "owner")

    def __init__(self, owner: Slot | Component | Member | Node, key: str) -> None:
        self.owner = owner
        self.key = key

    @property
    def id(self) -> str | None:
        value = self.owner.get(self.key)
        return value if isinstance(value, str) else None

    def __repr__(self) -> str:
        return f"IdRef(key={self.key!r}, id={self.id!r})"


Element = Slot | Component | Member | IdRef


class DataTree(Node):
    """The root document; what :func:`brson.load` returns."""

    __slots__ = (
        "_edits",
        "_generation",
        "_ids",
        "_stored",
        "_table_tried",
        "_types",
        "container",
        "slot_table",
        "source",
    )

    def __init__(
        self,
        buf: bytes,
        container: Container | None = None,
        source: str | None = None,
        *,
        stored: memoryview | None = None,
    ) -> None:
        super().__init__(buf, 0, len(buf), None)
        self.container = container
        self.source = source
        self._types: list[TypeName] | None = None
        self._ids: IdIndex | None = None
        #: Counts edits anywhere in the tree (caches derived from content check it).
        self._generation = 0
        self._stored = stored
        #: The table of the original slots (:class:`~brson.model.spans.SlotTable`, the
        #: compiled walk) once a walk made it; None before, or where the compiled walk was not
        #: sure.  The original bytes do not change, so it stays true of every slot that was
        #: not edited.  Read it, never set it (an attribute, not a property: every slot of a
        #: walk reads it).
        self.slot_table: SlotTable | None = None
        self._table_tried = False
        self._edits = Edits(self)

    @property
    def edits(self) -> Edits:
        """Every node an edit changed, with the keys it changed (:mod:`brson.model.overlay`)."""
        return self._edits

    @property
    def ids_if_built(self) -> IdIndex | None:
        """The ID index if it was built since the last edit (an index built before an edit
        is stale: a reference graph compares with this)."""
        return self._ids

    @property
    def generation(self) -> int:
        """How many edits this tree has seen: caches derived from its content check it."""
        return self._generation

    @property
    def stored_payload(self) -> memoryview | None:
        """The compressed payload this tree was read from (after the container header), for
        an unmodified write with the same codec to reuse; None for a tree built in memory."""
        return self._stored

    def drop_stored_payload(self) -> None:
        """Forget the compressed payload (a later unmodified write compresses again): for a
        caller that reads this tree into another and never writes it back (``extract``
        keeps a big world's result beside it, and the payload is a seventh of its BSON)."""
        self._stored = None

    # -- root keys ------------------------------------------------------------------------
    @property
    def legacy(self) -> bool:
        """NeosVR generation: no ``Types`` table, type names inline."""
        return "Types" not in self

    @property
    def version_number(self) -> str | None:
        value = self.get("VersionNumber")
        return value if isinstance(value, str) else None

    @property
    def feature_flags(self) -> dict[str, int]:
        value = self.get("FeatureFlags")
        return dict(value) if isinstance(value, dict) else {}

    @property
    def type_versions(self) -> dict[str, int]:
        value = self.get("TypeVersions")
        return dict(value) if isinstance(value, dict) else {}

    @property
    def types(self) -> list[TypeName]:
        """The type table (Resonite); empty for NeosVR files, whose components name types."""
        if self._types is None:
            names = self.get("Types")
            if names is None:
                self._types = []
            elif not isinstance(names, list) or not all(is_type_name(n) for n in names):
                raise ModelError("Types is not an array of type-name strings")
            else:
                self._types = [TypeName.parse(n) for n in names]
        return self._types

    def type_index(self, name: str | TypeName, add: bool = True) -> int:
        """Index of a type in ``Types``, appended when missing (``add``)."""
        text = str(name)
        names = [str(t) for t in self.types]
        if text in names:
            return names.index(text)
        if not add:
            raise KeyError(text)
        names.append(text)
        self.set("Types", names)
        self._types = None
        return len(names) - 1

    def drop_unused_types(self, candidates: set[int] | None = None) -> list[str]:
        """Remove ``Types`` entries no component uses (only those among ``candidates`` when
        given) and their ``TypeVersions``; returns the names removed.

        Edits do not call this by themselves: removing an entry shifts the index of every
        later type, so every component using one would be re-written, and untouched content
        would no longer come out byte-identical. An unused entry is what the engine writes
        too (``SlotGizmo`` in orange3134_AvatarRootIdentification), so validate reports it as
        information (BR303), not a problem. Call this (or ``brson delete --prune-types``) when
        a trimmed table matters more than a minimal diff; extract always trims."""
        if self.legacy:
            return []
        components = list(self.components())
        used = {i for c in components if type(i := c.type_index) is int}
        names = [str(t) for t in self.types]
        if candidates is None:
            candidates = set(range(len(names)))
        drop = sorted(i for i in candidates if i not in used and 0 <= i < len(names))
        if not drop:
            return []
        gone = set(drop)
        remap: dict[int, int] = {}
        kept: list[str] = []
        for index, name in enumerate(names):
            if index not in gone:
                remap[index] = len(kept)
                kept.append(name)
        for component in components:
            old = component.type_index
            if isinstance(old, int) and old in remap and remap[old] != old:
                component.set_type_index(remap[old])
        self.set("Types", kept)
        self._types = None
        dropped = [names[i] for i in drop]
        versions = self.get("TypeVersions")
        if isinstance(versions, dict) and any(n in versions for n in dropped if n not in kept):
            self.set(
                "TypeVersions",
                {k: v for k, v in versions.items() if k in kept or k not in dropped},
            )
        return dropped

    @property
    def root(self) -> Slot:
        slot = self.child_node("Object", Slot)
        if slot is None:
            raise ModelError("the document has no Object slot")
        slot.tree = self
        return slot

    @property
    def assets(self) -> list[Component]:
        """Components in the root ``Assets`` array (NeosVR asset providers)."""
        items = self.child_nodes("Assets", Component)
        out = []
        for item in items or []:
            if isinstance(item, Component):
                item.tree = self
                out.append(item)
        return out

    # -- navigation -----------------------------------------------------------------------
    def walk(self) -> Iterator[Slot]:
        """Every slot, depth-first, root first."""
        root = self.root
        if not self._table_tried:
            from brson.model.spans import SlotTable

            self._table_tried = True
            self.slot_table = SlotTable.build(self)
        table = self.slot_table
        if table is not None:
            root.enter_table(table, 0)
        return root.walk()

    def components(self) -> Iterator[Component]:
        """Every component on every slot, then the root Assets."""
        for slot in self.walk():
            yield from slot.components
        yield from self.assets

    def find_all(self, selector: str, *, definitions: DefinitionTable | None = None) -> list[Slot]:
        """Slots matching a selector: an ID, a path (``Root/Body/Head``) or a name, exactly;
        else loosely (rich-text tags removed, a path below the root, the start of an ID).  The
        first tier that matches decides: :mod:`brson.model.slotmatch` has the order.

        An ID defined more than once (a broken file) matches every slot holding it, so
        :meth:`find` reports it as ambiguous instead of silently picking the first.

        ``definitions``, a table of this tree's definitions a caller builds anyway, answers
        an ID without a search of the bytes where it shows no ID is defined twice."""
        if is_guid(selector):
            if not self.modified:
                found = self._slot_with_id(selector, definitions)
                if found is not None:
                    return found
            if selector in self.ids.duplicates:
                return [s for s in self.walk() if s.id == selector]
            element = self.resolve(selector)
            return [element] if isinstance(element, Slot) else []
        root = self.root
        return (
            slotmatch.along_path([root], selector)
            or [s for s in root.walk() if s.name == selector]
            or slotmatch.loose_matches(root, selector)
        )

    def _slot_with_id(
        self, element_id: str, definitions: DefinitionTable | None = None
    ) -> list[Slot] | None:
        """The slots an ID names, answered from the bytes when its ``ID`` element occurs at
        most once (one C search instead of building the whole ID index; none with a table of
        definitions that holds no repeat and has the element); None when the index must
        decide (a repeated ID)."""
        from brson.model.ids.locate import Location, element_at

        head = ID_HEAD + element_id.encode() + b"\x00"
        buf = self._buf
        at = -1
        if definitions is not None and not definitions.repeated:
            found = definitions.offset(element_id)
            if found is not None and buf.startswith(head, found):
                at = found
        if at < 0:
            at = buf.find(head)  # then on from there: one pass over the bytes, not count + find
            if at < 0:
                return []
            if buf.find(head, at + 1) >= 0:  # (``head`` cannot overlap itself: one 0x02, first)
                return None
        element = element_at(Location(tree=self, offset=at))
        if element is None:
            return None  # the bytes were inside some string value: let the index decide
        return [element] if isinstance(element, Slot) else []

    def find(self, selector: str, *, definitions: DefinitionTable | None = None) -> Slot | None:
        """The one slot a selector names, or ``None`` when none does (a lookup: test the
        result); SelectorError when several do.  :meth:`select` raises instead of returning
        ``None``, with the names that come close."""
        found = self.find_all(selector, definitions=definitions)
        if len(found) > 1:
            listing = "; ".join(f"{s.path} ({s.id})" for s in found[:10])
            more = f" and {len(found) - 10} more" if len(found) > 10 else ""
            hint = (
                "the ID is defined more than once (a duplicate ID); use a path"
                if is_guid(selector)
                else "use a path or an ID"
            )
            raise SelectorError(f"{selector!r} matches {len(found)} slots: {listing}{more}; {hint}")
        return found[0] if found else None

    def select(
        self, slot_or_selector: Slot | str, *, definitions: DefinitionTable | None = None
    ) -> Slot:
        """The one slot a selector (name, ID, path) names; SelectorError when none does (with
        "did you mean" and the paths of slots whose names come close) or several do.  What
        ``extract``, the edit commands and every ``--slot`` option use; a Slot given is
        checked to belong to this tree."""
        if isinstance(slot_or_selector, Slot):
            if slot_or_selector.tree is not self:
                raise ModelError("that slot belongs to another tree")
            return slot_or_selector
        # SelectorError listing candidates when ambiguous
        slot = self.find(slot_or_selector, definitions=definitions)
        if slot is None:
            hint = _selector_hint(self, slot_or_selector)
            raise SelectorError(f"no slot matches {slot_or_selector!r}{hint}")
        return slot

    # -- IDs ------------------------------------------------------------------------------
    @property
    def ids(self) -> IdIndex:
        """Every element that has an ID (built on first use, dropped on edits)."""
        if self._ids is None:
            from brson.model.ids.index import IdIndex

            self._ids = IdIndex.build(self)
        return self._ids

    def resolve(self, element_id: str) -> Element | None:
        """The element with this ID, or None."""
        return self.ids.resolve(element_id)

    def model(self) -> DataTreeDoc:
        """The whole root document validated into :class:`DataTreeDoc` (every slot, component
        and member decoded: for checking a document, not for walking a large world)."""
        from brson.model.documents import DataTreeDoc, validated

        return validated(DataTreeDoc, self.decoded(), None)

    # -- writing --------------------------------------------------------------------------
    def after_edit(self, edited: Node, key: str | None) -> None:
        self._edits.record(edited, key)
        self._ids = None
        self._types = None
        self._generation += 1

    def discard_edits(self) -> None:
        """Drop every edit: the tree reads and writes as its original bytes again.  Every
        object read from it before is detached (:mod:`brson.model.overlay`): an edit
        through one raises ModelError, and reads give new objects.  Nothing happens to an
        unmodified tree (what it handed out stays valid)."""
        if not self._dirty:
            return
        for value in self._vals.values():
            for node in value if type(value) is list else (value,):
                if isinstance(node, Node):
                    detach(node, "read before its tree's edits were discarded")
        self._vals = _NO_VALS
        self._keys = None
        self._dirty = False
        self._edits.clear()
        self._ids = None
        self._types = None
        self._generation += 1

    def renumber(self) -> DataTree:
        """A copy with every ID renumbered sequentially (see
        :func:`brson.model.numbering.renumber`)."""
        from brson.model.numbering import renumber

        return renumber(self)

    def __repr__(self) -> str:
        kind = "legacy NeosVR" if self.legacy else f"Resonite {self.version_number}"
        return f"DataTree({kind}, source={self.source!r})"


def _selector_hint(tree: DataTree, selector: str) -> str:
    """Paths of slots whose visible name (rich-text tags removed) contains or resembles it.

    Paths are made only for the few slots shown, and bounded (a deep tree of long names)."""
    wanted = selector.lower()
    slots: dict[str, Slot] = {}
    for slot in tree.walk():
        name = slot.name
        if isinstance(name, str):
            slots.setdefault(slotmatch.plain(name).lower()[:_HINT_NAME], slot)
    found = [slot for plain, slot in slots.items() if wanted in plain]
    found += [
        slots[p]
        for p in difflib.get_close_matches(wanted[:_HINT_NAME], list(slots), n=5)
        if slots[p] not in found
    ]
    if not found:
        return ""
    listing = "; ".join(repr(slot.display_path()) for slot in found[:5])
    return f"; did you mean {listing}? (a path or an ID selects exactly)"


#: Characters of a name compared with the selector for the hint (similarity is quadratic
#: in the length of the two texts).
_HINT_NAME = 200
