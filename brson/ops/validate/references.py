"""BR4xx: IDs and references: duplicates, dangling and external references, loops.

An unmodified tree's IDs are counted from its bytes (:class:`IdCensus`: whether every
definition is distinct, the other ID-shaped values and which of them are defined), with no
index; an edited tree, or one where some ID is defined twice, goes through the ID index
(``tree.ids``), which also says where each duplicate is.  The walk adds what only the slot
structure knows: each slot's ``ParentReference`` against its real parent.  Locations are
worked out only for what is reported.

``ParentReference`` is an ID of its own in engine files (the slot's parent-link element), so it
takes part in the duplicate check.  Third-party generators write the parent's ID there
instead; that is reported once per file (BR406) rather than as a duplicate of every parent.
"""

from __future__ import annotations

import itertools
import re

from brson.model.ids.forms import ID_HEAD, is_guid
from brson.model.ids.locate import Location, located
from brson.model.ids.scan import IdCensus, own_definitions
from brson.model.slot import SLOT_MEMBERS, Slot
from brson.model.tree import DataTree
from brson.ops.validate.context import (
    ComponentInfo,
    Context,
    Family,
    SlotInfo,
    all_guids,
    kind_of,
)
from brson.ops.validate.findings import ERROR, INFO, WARNING, rule

DUPLICATE_ID = rule(
    "BR401",
    ERROR,
    "duplicate ID",
    "Two elements define the same ID (a `ParentReference` counts: it is the ID of the "
    "slot's parent link). References to it are ambiguous and the engine's ID translation "
    "binds them to whichever element it meets last.",
    "format notes §3 (IDs are unique); no real sample repeats an ID",
)
DANGLING = rule(
    "BR402",
    WARNING,
    "dangling reference",
    "A value in the file's own ID numbering that names no element of the file. The engine "
    "nulls it on import, so the link (a material, a drive target) is lost; engine exports "
    "never contain one (they null such references themselves).",
    "format notes §3; no real sample has one; `extract --external keep` writes them",
)
EXTERNAL = rule(
    "BR403",
    INFO,
    "external or textual GUID",
    "A GUID-shaped value outside the file's ID numbering (a random GUID in a renumbered "
    "Resonite file): a reference into a world or user the archive does not hold, or a GUID "
    "kept as text. Reported so it can be checked; nothing in the file resolves it.",
    "Resonite renumbers every ID it exports (`xxxxxxxx-0000-0000-0000-000000000000`)",
)
PARENT_LOOP = rule(
    "BR404",
    ERROR,
    "ParentReference loop",
    "Slots whose `ParentReference` values name each other (or the slot itself) declare a "
    "parent chain that never reaches the root; readers that trust `ParentReference` hang "
    "or reject the tree.",
    "a hostile-input requirement: cycles are findings, never hangs",
)
SELF_REFERENCE = rule(
    "BR405",
    WARNING,
    "member references itself",
    "A member whose `Data` is its own ID: a drive or reference pointing at itself, which "
    "the engine either rejects or evaluates in a loop.",
    "no real sample has one",
)
PARENT_ID_AS_LINK = rule(
    "BR406",
    WARNING,
    "ParentReference holds the parent's ID",
    "Third-party generators write the parent slot's ID as `ParentReference`; the engine "
    "writes a fresh ID there, so the parent's ID is then defined twice as far as the "
    "engine's ID translation goes. brson reads both forms.",
    "format notes §3 (ParentReference); every slot of every real sample has an ID of its own",
)
PARENT_MISMATCH = rule(
    "BR407",
    WARNING,
    "ParentReference names another slot",
    "`ParentReference` names a slot that is not the one whose `Children` hold this slot: "
    "the two ways of telling the parent disagree.",
    "format notes §3 (the parent is the slot whose Children holds it)",
)
BAD_ID = rule(
    "BR408",
    ERROR,
    "ID not a GUID",
    "Every `ID` (and `…-ID`, `ParentReference`) is a GUID string; the engine parses it and "
    "fails on anything else.",
    "format notes §3 (IDs are GUID strings)",
)

#: Resonite's renumbered IDs: a counter in the first group, zeros elsewhere.
_SEQUENTIAL = re.compile(r"[0-9a-fA-F]{8}-0000-0000-0000-000000000000\Z")
#: A member's ``ID`` element holding a GUID (45 bytes with the GUID and its NUL), and the
#: start of its ``Data`` element holding one.
_DATA_HEAD = b"\x02Data\x00\x25\x00\x00\x00"
#: The start of a ``ParentReference`` element holding an ID.
_PARENT_HEAD = b"\x02ParentReference\x00"
#: How many definitions decide whether a file uses Resonite's renumbered IDs.
_STYLE_SAMPLE = 1000
#: Locations listed in one duplicate-ID message.
_LISTED = 5


def _check_id(ctx: Context, value: object, what: str, where: SlotInfo | ComponentInfo) -> bool:
    """Report an ID-defining value that is a string but not a GUID; True when it is one."""
    if is_guid(value):
        return True
    if value is not None:  # absent or null: the shape rules say whether that matters
        shown = repr(value[:60]) if type(value) is str else kind_of(value)
        ctx.add(BAD_ID, f"{what} is {shown}, not a GUID", path=where.path)
    return False


class ReferenceRules(Family):
    def __init__(self) -> None:
        #: Slot ID -> the first slot defining it.
        self.slots: dict[str, Slot] = {}
        #: (slot, its ParentReference) for every slot that has one.
        self.links: list[tuple[Slot, str]] = []
        #: The tree's IDs counted from its bytes (None: the ID index decides).
        self.census: IdCensus | None = None

    def slot(self, ctx: Context, info: SlotInfo) -> None:
        fields = info.fields
        slot = info.slot
        slot_id = fields.get("ID")
        parent_link = fields.get("ParentReference")
        # The usual slot, every ID a GUID: one match for all of them (a check each cost 10x).
        ids = [value for value in (slot_id, parent_link) if value is not None]
        if fields.get("Persistent-ID") is not None:
            ids.append(fields["Persistent-ID"])
        for key in SLOT_MEMBERS:
            member = fields.get(key)
            if isinstance(member, dict) and "ID" in member:
                ids.append(member["ID"])
        # Only a link that names some definition can name a slot, and only a referenced slot
        # ID can be named (the census's parent links are references): the rest is not kept.
        referenced = ctx.referenced
        if all_guids(ids):
            if slot_id is not None and referenced(slot_id):
                self.slots.setdefault(slot_id, slot)
            if parent_link is not None and referenced(parent_link):
                self.links.append((slot, parent_link))
            return
        if isinstance(slot_id, str) and is_guid(slot_id):
            if referenced(slot_id):
                self.slots.setdefault(slot_id, slot)
        else:
            _check_id(ctx, slot_id, "slot ID", info)
        if _check_id(ctx, parent_link, "ParentReference", info) and referenced(str(parent_link)):
            self.links.append((slot, str(parent_link)))
        _check_id(ctx, fields.get("Persistent-ID"), "Persistent-ID", info)
        for key in SLOT_MEMBERS:
            member = fields.get(key)
            if isinstance(member, dict) and "ID" in member:
                _check_id(ctx, member["ID"], f"{key} member ID", info)

    def keep(self, slot: Slot, slot_id: str | None, link: str | None) -> None:
        """What :meth:`slot` keeps of a slot the compiled pass found clean: its ID and its
        ``ParentReference`` where some reference names them (the pass checked that)."""
        if slot_id is not None:
            self.slots.setdefault(slot_id, slot)
        if link is not None:
            self.links.append((slot, link))

    def component(self, ctx: Context, info: ComponentInfo) -> None:
        for what, value in info.scan_fields()[1]:
            _check_id(ctx, value, what, info)

    def root(self, ctx: Context) -> None:
        # Before the walk, so the census's passing memory is not added to the walk's.
        tree = ctx.tree
        if not tree.modified and tree.ids_if_built is None:
            self.census = ctx.census = IdCensus.scan(tree, _STYLE_SAMPLE)

    def finish(self, ctx: Context) -> None:
        parent_links = self._parent_links(ctx)
        tree = ctx.tree
        census = self.census
        if census is None:
            self._finish_by_index(ctx, parent_links)
            return
        # Every definition distinct: no duplicate and no ParentReference shadowing another
        # definition (the index reads such a link as a value only when an ID repeats).
        defined = census.defined_values
        dangling = [
            (Location(tree=tree, offset=at), value)
            for at, value in census.values
            if value not in defined
        ]
        selves = _self_references_at(tree, census.values)
        shadowed = self._shadowing_links_at(tree, census)
        wanted = [loc for loc, _ in dangling] + [loc for _, loc in selves]
        wanted += [loc for _, link, other in shadowed for loc in (link, other)]
        where = located(tree, wanted)
        _report_shadowed(ctx, shadowed, where)
        _report_values(ctx, dangling, selves, where, _renumbered(census.first))

    def _finish_by_index(self, ctx: Context, parent_links: set[int]) -> None:
        """The reference checks over the tree's ID index (an edited tree, or one whose IDs
        may repeat)."""
        tree = ctx.tree
        ids = tree.ids
        defined = ids.defined
        dangling = [(loc, value) for loc, value in ids.values if value not in defined]
        duplicates = list(ids.duplicates.values())
        selves = _self_references(ctx)
        shadowed = self._shadowing_links(tree)
        # Everything reported is located in one walk, not one descent per finding.
        wanted = [loc for dup in duplicates for loc in dup.locations]
        wanted += [loc for loc, _ in dangling] + [loc for _, loc in selves]
        wanted += [loc for _, link, other in shadowed for loc in (link, other)]
        where = located(tree, wanted)
        _report_shadowed(ctx, shadowed, where)
        for dup in duplicates:
            places = [
                where[id(loc)]
                for loc in dup.locations
                if not (
                    where[id(loc)].path == ("ParentReference",)
                    and id(where[id(loc)].slot) in parent_links
                )
            ]
            if len(places) > 1:
                described = [_where(loc) or "<unknown>" for loc in places[:_LISTED]]
                more = f" and {len(places) - _LISTED} more" if len(places) > _LISTED else ""
                ctx.add(
                    DUPLICATE_ID,
                    f"ID {dup.element_id} is defined {len(places)} times: "
                    + "; ".join(described)
                    + more,
                    path=described[0],
                    element=dup.element_id,
                )
        _report_values(ctx, dangling, selves, where, _renumbered(defined))

    def _shadowing_links_at(
        self, tree: DataTree, census: IdCensus
    ) -> list[tuple[str, Location, Location]]:
        """:meth:`_shadowing_links` from the census: its values hold the links (at their
        ``ParentReference`` elements); the other definitions are found in one pass."""
        suspects = {value for _, value in self.links if value not in self.slots}
        if not suspects:
            return []
        buf = tree.buffer
        links = [
            (at, value)
            for at, value in census.values
            if value in suspects and buf.startswith(_PARENT_HEAD, at)
        ]
        if not links:
            return []
        others = own_definitions(tree, {value for _, value in links})
        return [
            (value, Location(tree=tree, offset=at), Location(tree=tree, offset=others[value]))
            for at, value in links
            if value in others
        ]

    def _shadowing_links(self, tree: DataTree) -> list[tuple[str, Location, Location]]:
        """ParentReferences whose value is the ID of a member or component: (the ID, the
        link, the other definition); the caller keeps those located at a ParentReference.
        The ID index reads a ParentReference repeating another ID as a link (third-party
        files write the parent's ID there), so it is no duplicate there; unless that ID is a
        slot's (BR406/BR407), it is one: two elements, one ID."""
        suspects = {value for _, value in self.links if value not in self.slots}
        if not suspects:
            return []
        ids = tree.ids
        out = []
        for location, value in ids.values:
            # Most suspects are engine-style links that a member references: those values
            # are not at a ParentReference, and looking up their definitions is not free.
            if value in suspects and location.may_be_key("ParentReference"):
                other = ids.defined.get(value)
                if other is not None:
                    out.append((value, location, other))
        return out

    def _parent_links(self, ctx: Context) -> set[int]:
        """Check ParentReference against the real parents; the ``id()`` of each slot whose
        ParentReference names another slot (not a definition of its own)."""
        linked: set[int] = set()
        declared: dict[int, tuple[Slot, Slot]] = {}
        parent_style: list[Slot] = []
        for slot, value in self.links:
            target = self.slots.get(value)
            if target is None:
                continue
            linked.add(id(slot))
            if target is slot.parent:
                parent_style.append(slot)
                continue
            declared[id(slot)] = (slot, target)
            if target is not slot:
                ctx.add(
                    PARENT_MISMATCH,
                    f"ParentReference names the slot {target.path!r}, not its parent",
                    path=slot.path,
                    element=value,
                )
        if parent_style:
            ctx.add(
                PARENT_ID_AS_LINK,
                f"{len(parent_style)} slot(s) hold their parent's ID as ParentReference "
                f"instead of an ID of their own (first: {parent_style[0].path})",
                path=parent_style[0].path,
            )
        _loops(ctx, declared)
        return linked


def _loops(ctx: Context, declared: dict[int, tuple[Slot, Slot]]) -> None:
    """Follow declared parents (ParentReference where it names a slot, else the real parent)
    from every slot that declares one and report each loop once.  Linear: a slot is entered
    at most once over all starts."""
    done: set[int] = set()
    for start, _ in declared.values():
        chain: list[Slot] = []
        on_chain: dict[int, int] = {}
        node: Slot | None = start
        while node is not None and id(node) not in done:
            if id(node) in on_chain:
                loop = chain[on_chain[id(node)] :]
                names = " -> ".join(s.display_path() for s in loop[:_LISTED])
                more = " -> …" if len(loop) > _LISTED else ""
                ctx.add(
                    PARENT_LOOP,
                    f"the ParentReference chain loops: {names}{more} -> {loop[0].display_path()}",
                    path=loop[0].display_path(),
                    element=loop[0].id,
                )
                break
            on_chain[id(node)] = len(chain)
            chain.append(node)
            link = declared.get(id(node))
            node = link[1] if link is not None else node.parent
        done.update(on_chain)


def _report_shadowed(
    ctx: Context, shadowed: list[tuple[str, Location, Location]], where: dict[int, Location]
) -> None:
    """A ParentReference naming a member or component: its ID defined twice (BR401), when
    the link is a slot's own ``ParentReference``."""
    for value, link, other in shadowed:
        if where[id(link)].path == ("ParentReference",):
            pair = [
                _where(where[id(link)]) or "<unknown>",
                _where(where[id(other)]) or "<unknown>",
            ]
            ctx.add(
                DUPLICATE_ID,
                f"ID {value} is defined 2 times: " + "; ".join(pair),
                path=pair[0],
                element=value,
            )


def _renumbered(defined: object) -> bool:
    """Whether the file uses Resonite's renumbered IDs (judged on a sample of definitions)."""
    sample = list(itertools.islice(iter(defined), _STYLE_SAMPLE))  # type: ignore[call-overload]
    if not sample:
        return False
    sequential = sum(1 for element_id in sample if _SEQUENTIAL.match(element_id))
    return sequential >= 0.99 * len(sample)


def _report_values(
    ctx: Context,
    dangling: list[tuple[Location, str]],
    selves: list[tuple[str, Location]],
    where: dict[int, Location],
    renumbered: bool,
) -> None:
    """Dangling (or external) values, then members referencing themselves."""
    for loc, value in dangling:
        if renumbered and not _SEQUENTIAL.match(value):
            ctx.add(
                EXTERNAL,
                f"{value} is not an ID of this file nor in its numbering",
                path=_where(where[id(loc)]),
                element=value,
            )
        else:
            ctx.add(
                DANGLING,
                f"references {value}, which no element of the file has",
                path=_where(where[id(loc)]),
                element=value,
            )
    for element_id, loc in selves:
        ctx.add(
            SELF_REFERENCE,
            "the member's Data is its own ID",
            path=_where(where[id(loc)]),
            element=element_id,
        )


def _self_references_at(
    tree: DataTree, values: list[tuple[int, str]]
) -> list[tuple[str, Location]]:
    """Members ``{"ID": X, "Data": X}`` among ``(offset, value)`` of an unmodified tree: a
    value found at byte offset ``o`` is one exactly when the 45 bytes before it are the
    member's ``ID`` element holding the same GUID (the engine writes ``ID`` first)."""
    buf = tree.buffer
    out = []
    for at, value in values:
        if (
            at >= 45
            and buf.startswith(_DATA_HEAD, at)
            and buf[at - 45 : at] == ID_HEAD + value.encode() + b"\x00"
        ):
            out.append((value, Location(tree=tree, offset=at - 45)))
    return out


def _self_references(ctx: Context) -> list[tuple[str, Location]]:
    """Members ``{"ID": X, "Data": X}``: a value whose own member defines the same ID.

    Checked per ID-shaped value, not per member: in an unmodified tree a value found at byte
    offset ``o`` is such a member exactly when the 45 bytes before it are the member's ``ID``
    element holding the same GUID (the engine writes ``ID`` first); an edited tree's index
    knows both locations and they are compared."""
    tree = ctx.tree
    ids = tree.ids
    out = []
    if not tree.modified:
        located_values = [(loc.offset, value) for loc, value in ids.values]
        return _self_references_at(tree, [(at, v) for at, v in located_values if at is not None])
    for location, value in ids.values:
        path = location.path
        if path and path[-1] == "Data":
            defined = ids.where(value)
            if (
                defined is not None
                and defined.anchor is location.anchor
                and defined.path == path[:-1]
            ):
                out.append((value, defined))
    return out


def _where(location: Location) -> str | None:
    text = location.describe()
    return None if text == "<unknown>" else text
