"""The report's records of :func:`brson.ops.extract.extract`: the components it copies
along and the references that leave the result.

Each copy's ID, type and places are read from the source, and the values pointing into it
from the result, on first use and for every copy at once; so are the places of the references
that leave: the summary a user sees by default only counts them, and describing each one was
a tenth of an extract whose closure is most of a world.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from brson.model import Component, DataTree
from brson.model.component import leading_data_id
from brson.model.ids.index import IdIndex
from brson.model.ids.locate import TypeLabels, described, located
from brson.model.ids.scan import ids_in_bytes
from brson.model.spans import ASSETS, ComponentSpans

#: Name of the slot (a child of the new root) holding copied dependencies.
HOLDER_NAME = "Extracted Dependencies"


class CopiedComponent:
    """A component from outside the subtree copied into the result.

    ``referenced_by`` (the values in the result that point into it) is worked out on first
    use, for every copy at once, from the result (the summary a user sees by default never
    shows it).  An extract's records read their ID, type and places from the source the
    same way (:class:`CopyRecords`).
    """

    __slots__ = ("_id", "_n", "_pending", "_referrers", "_source", "_target", "_type")

    def __init__(
        self,
        id: str | None,
        type: str,
        source: str,
        target: str,
        referenced_by: list[str] | None = None,
    ) -> None:
        self._id = id
        self._type = type
        self._source: str | tuple[str] = source
        self._target: str | tuple[str, str] = target
        self._referrers = _given(referenced_by) if referenced_by is not None else None
        #: Its row in the records it is read with (:meth:`read_later`), until it is read.
        self._n = 0
        self._pending: CopyRecords | None = None

    @classmethod
    def read_later(
        cls, records: CopyRecords, referrers: Referrers, count: int
    ) -> list[CopiedComponent]:
        """Rows ``0 .. count - 1`` of ``records``, each read on first use of any: made
        without :meth:`__init__`'s arguments (a big closure copies hundreds of thousands of
        components, and the summary only counts them)."""
        new = cls.__new__
        out: list[CopiedComponent] = []
        append = out.append
        for n in range(count):
            record = new(cls)
            record._n = n  # noqa: SLF001  (its own class)
            record._pending = records  # noqa: SLF001  (its own class)
            record._referrers = referrers  # noqa: SLF001  (its own class)
            append(record)
        return out

    def _read(self) -> None:
        pending = self._pending
        if pending is not None:
            self._pending = None
            self._id, self._type, self._source, self._target = pending.row(self._n)

    @property
    def id(self) -> str | None:
        self._read()
        return self._id

    @property
    def type(self) -> str:
        self._read()
        return self._type

    @property
    def source(self) -> str:
        """Where it lived in the source (``Root/Materials:PBS_Metallic``; ``<Assets>:…`` for
        NeosVR root assets)."""
        self._read()
        source = self._source
        return source if isinstance(source, str) else f"{source[0]}:{self._type}"

    @property
    def target(self) -> str:
        """Where it is in the result."""
        self._read()
        target = self._target
        if isinstance(target, str):
            return target
        return f"{target[0]}/{HOLDER_NAME}/{target[1]}:{self._type}"

    @property
    def referenced_by(self) -> list[str]:
        """The values in the result that point into it (paths in the result)."""
        return self._referrers.of(self._n) if self._referrers is not None else []

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "source": self.source,
            "target": self.target,
            "referenced_by": list(self.referenced_by),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CopiedComponent):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # compared by value, like the dataclass was

    def __repr__(self) -> str:
        return (
            f"CopiedComponent(id={self.id!r}, type={self.type!r}, source={self.source!r}, "
            f"target={self.target!r})"
        )


#: A copy's record as read: ID, type label, and its source and target (texts, or the parts
#: shared by the copies of one slot).
Row = tuple[str | None, str, str | tuple[str], str | tuple[str, str]]


class CopyRecords:
    """The records of an extract's copies (component numbers in the source's spans, in their
    order in the result: the holder's, then the root ``Assets``), all read on first use of
    any: each ID and type label in place from its bytes (a node made only for what they do
    not say), each slot's path and name once per slot."""

    def __init__(
        self,
        spans: ComponentSpans,
        buf: bytes,
        numbers: list[int],
        root_name: str,
        referrers: Referrers,
    ) -> None:
        self._unread: tuple[ComponentSpans, bytes] | None = (spans, buf)
        self._numbers = numbers
        self._root_name = root_name
        self._rows: list[Row] = []
        self.records = CopiedComponent.read_later(self, referrers, len(numbers))

    def row(self, n: int) -> Row:
        if self._unread is not None:
            self._rows = self._read(*self._unread)
            self._unread = None
            self._numbers = []
        return self._rows[n]

    def _read(self, spans: ComponentSpans, buf: bytes) -> list[Row]:
        labels = TypeLabels(_type_label)
        rows: list[Row] = []
        # Copies come grouped by slot (walk order): its path and name are read once per slot.
        last, slot_path, slot_name = ASSETS, "", ""
        for number in self._numbers:
            start, end = spans.span(number)
            slot = spans.slot_of(number)
            type_text = labels.at(buf, (start, end), partial(spans.component, number))
            element_id = leading_data_id(buf, start, end)
            if element_id is None:
                element_id = spans.component(number).id
            if slot == ASSETS:
                source = f"<Assets>:{type_text}"
                rows.append((element_id, type_text, source, source))
                continue
            if slot != last:
                last, slot_path, slot_name = slot, spans.slot_path(slot), spans.slot_name(slot)
            # The slot's path and name shared by its copies (a string per copy was a tenth
            # of a big extract's peak).
            rows.append((element_id, type_text, (slot_path,), (self._root_name, slot_name)))
        return rows


def _type_label(component: Component) -> str:
    return component.type_label


def _given(lists: list[str]) -> Referrers:
    """Referrers known already (a report built by hand)."""
    made = Referrers(0, 0)
    made.lists = [lists]
    return made


class Referrers:
    """The values in an extract's result that point into each copied component, worked out
    on first use from the result (copies in order: the holder's components, then the root
    ``Assets``), by the model's index of it."""

    def __init__(self, on_slots: int, on_assets: int) -> None:
        self.on_slots = on_slots
        self.on_assets = on_assets
        self.result: DataTree | None = None
        self.lists: list[list[str]] | None = None

    def of(self, n: int) -> list[str]:
        if self.lists is None:
            self.lists = self._find()
        return self.lists[n]

    def _find(self) -> list[list[str]]:
        tree = self.result
        count = self.on_slots + self.on_assets
        if tree is None or count == 0:
            return [[] for _ in range(count)]
        copies: list[Component] = []
        if self.on_slots:
            holder = tree.root.children[-1]
            copies += [c for kid in holder.children for c in kid.components]
        copies += tree.assets[len(tree.assets) - self.on_assets :] if self.on_assets else []
        owner: dict[str, int] = {}
        for n, component in enumerate(copies):
            for element_id in ids_in_bytes(component.to_bson())[0]:
                owner[element_id] = n
        lists: list[list[str]] = [[] for _ in range(count)]
        index = IdIndex.build(tree)
        pointing = [(loc, owner[value]) for loc, value in index.values if value in owner]
        where = located(tree, [loc for loc, _ in pointing])
        for loc, which in pointing:
            found = where[id(loc)]
            anchor = found.anchor
            if isinstance(anchor, Component) and anchor.id == copies[which].id:
                continue  # the copy pointing into itself
            lists[which].append(found.describe())
        return lists


class ExternalReference:
    """A value in the result naming an element that did not come along.

    ``where`` and ``target_path`` are described on first use, for every such value of an
    extract at once (:class:`ExternalPlaces`); ``kind`` is known from the spans alone.
    """

    __slots__ = ("_n", "_places", "_target_path", "_where", "action", "kind", "target")

    def __init__(
        self,
        where: str,
        target: str,
        target_path: str | None,
        kind: str,
        action: str,
    ) -> None:
        self._where = where
        self.target = target
        self._target_path = target_path
        #: ``slot`` (a slot outside the subtree or one of its fields), ``component`` (not
        #: copied: ``copy_dependencies=False``) or ``missing`` (not in the file: world,
        #: users…).
        self.kind = kind
        #: ``kept`` or ``nulled``.
        self.action = action
        #: The places this one is described with (its row ``_n``, :meth:`described_later`),
        #: until it is read.
        self._places: ExternalPlaces | None = None
        self._n = 0

    @classmethod
    def described_later(
        cls, targets: list[str], kinds: list[str], action: str, places: ExternalPlaces
    ) -> list[ExternalReference]:
        """One per target, in order (row ``n`` of ``places``), each described on first use of
        any: made without :meth:`__init__`'s arguments (a big closure leaves tens of
        thousands, and the summary only counts them)."""
        new = cls.__new__
        out: list[ExternalReference] = []
        append = out.append
        for n, (target, kind) in enumerate(zip(targets, kinds, strict=True)):
            reference = new(cls)
            reference.target = target
            reference.kind = kind
            reference.action = action
            reference._places = places  # noqa: SLF001  (its own class)
            reference._n = n  # noqa: SLF001  (its own class)
            append(reference)
        return out

    def _read(self) -> None:
        places = self._places
        if places is not None:
            self._places = None
            self._where, self._target_path = places.row(self._n)

    @property
    def where(self) -> str:
        """The value's path in the result (``Avatar/Body:MeshRenderer.Materials[0]``)."""
        self._read()
        return self._where

    @property
    def target_path(self) -> str | None:
        """The target's path in the source; None when the source does not define it."""
        self._read()
        return self._target_path

    def to_dict(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "target": self.target,
            "target_path": self.target_path,
            "kind": self.kind,
            "action": self.action,
        }

    def _key(self) -> tuple[str, str, str | None, str, str]:
        return (self.where, self.target, self.target_path, self.kind, self.action)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExternalReference):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"ExternalReference(where={self.where!r}, target={self.target!r}, "
            f"target_path={self.target_path!r}, kind={self.kind!r}, action={self.action!r})"
        )


def target_kinds(spans: ComponentSpans | None, targets: list[int | None]) -> list[str]:
    """:attr:`ExternalReference.kind` of each target (the offset of its definition in the
    source, None: not in the file): held by a component, by a slot, or missing; by bisection
    over the spans, with no description."""
    if spans is None:
        return ["missing"] * len(targets)
    in_slots = spans.in_slots
    return [
        "missing"
        if target is None
        else "component"
        if number is not None
        else "slot"
        if in_slots(target)
        else "missing"
        for target, number in zip(targets, spans.numbers_at(targets), strict=True)
    ]


class ExternalPlaces:
    """Where each reference leaving an extract's result lies (offsets in ``result``, a tree
    over the result's bytes) and where its target is defined (offsets in the source's
    ``spans``, None: nowhere), described on first use of any, for all at once."""

    def __init__(
        self,
        spans: ComponentSpans | None,
        targets: list[int | None],
        offsets: list[int],
        result: DataTree,
    ) -> None:
        self._unread: tuple[ComponentSpans | None, list[int | None], list[int]] | None = (
            spans,
            targets,
            offsets,
        )
        #: The tree the offsets are in (set again when the result is made over the same bytes).
        self.result: DataTree | None = result
        self._rows: list[tuple[str, str | None]] = []

    def row(self, n: int) -> tuple[str, str | None]:
        self.read()
        return self._rows[n]

    def read(self) -> None:
        """Describe every place now (before an edit moves the result's bytes)."""
        if self._unread is None:
            return
        spans, targets, offsets = self._unread
        assert self.result is not None
        self._unread = None
        there = (
            _described(spans, [o for o in targets if o is not None]) if spans is not None else {}
        )
        here = _described(ComponentSpans(self.result), offsets)
        self.result = None
        for offset, target in zip(offsets, targets, strict=True):
            where = here.get(offset, "<unknown>")
            self._rows.append((where, there.get(target) if target is not None else None))


def _described(spans: ComponentSpans, offsets: list[int]) -> dict[int, str]:
    """Offset -> :meth:`Location.describe` of each element start in ``spans``' tree that
    leads somewhere (:func:`brson.model.ids.locate.described`; the kinds come from
    :func:`target_kinds`)."""
    return {offset: text for offset, text, _ in described(spans, offsets)}


__all__ = [
    "HOLDER_NAME",
    "CopiedComponent",
    "CopyRecords",
    "ExternalPlaces",
    "ExternalReference",
    "Referrers",
    "target_kinds",
]
