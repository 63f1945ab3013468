"""One pass over an unmodified tree's bytes for its IDs: what the ID census (validate), the
reference scan (refs) and definition lookups (extract) need, from the patterns of
:mod:`brson.model.ids.forms`.

The pure-Python path runs those patterns (``DEFINED_ID_BYTES``, ``REFERENCE_BYTES``) with
``re``; the compiled path (``brson/_speedups/_idscanc.c``) finds the same elements in one pass
and keeps the definitions in a hash table (no Python object per definition).  C answers None
for anything it is not sure of, and the Python path answers.
"""

from __future__ import annotations

import itertools
import operator
from array import array
from bisect import bisect_left
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brson._speedups import load
from brson.collector import paused_gc
from brson.model.ids.forms import (
    DEFINED_ID_BYTES,
    DEFINING_KEY_NAMES,
    DEFINING_KEY_SUFFIX,
    DEFINITION,
    DEFINITION_BYTES,
    ID_VALUE_PREFIX,
    REFERENCE,
    REFERENCE_BYTES,
    SEQUENTIAL_TAIL,
)

if TYPE_CHECKING:
    from brson._speedups import _idscanc
    from brson.model.tree import DataTree
else:
    _idscanc = load("_idscanc")
ACCELERATED: bool = _idscanc is not None
"""Whether :func:`scan_ids` runs the C scan (the extension built and BRSON_PURE_PYTHON unset;
a scan made by C answers its lookups in C either way)."""

#: The element shape C matches, from forms (the one statement of it).
_PREFIX = ID_VALUE_PREFIX.encode("latin-1")
_NAMES = tuple(name.encode("latin-1") for name in DEFINING_KEY_NAMES)
_SUFFIX = DEFINING_KEY_SUFFIX.encode("latin-1")
_TAIL = SEQUENTIAL_TAIL.encode("latin-1")
#: The longest key :data:`DEFINED_ID_BYTES` matches (``…-ID`` keys: 62 characters and ``-ID``).
_LONGEST_KEY = 65

Spans = Sequence[tuple[int, int]]


class IdScan:
    """The IDs of ``buf[lo:hi]`` for each span (an unmodified tree's ``Object`` and
    ``Assets``), as the forms patterns find them."""

    __slots__ = (
        "_buf",
        "_defined",
        "_packed",
        "_spans",
        "_table",
        "_targets",
        "count",
        "first",
        "references",
        "repeated",
    )

    def __init__(
        self,
        buf: bytes,
        spans: Spans,
        count: int,
        repeated: bool,
        first: list[str],
        references: list[tuple[int, str]],
        targets: dict[str, int] | None,
        table: bytes | None,
        defined: list[list[bytes]] | None,
    ) -> None:
        self._buf = buf
        self._spans = list(spans)
        #: How many elements define an ID (repeats counted; parent links, references then,
        #: not).
        self.count = count
        #: Whether some ID is defined twice, parent links aside when references are listed
        #: (the index works out the duplicates and where they are).
        self.repeated = repeated
        #: The first definitions in byte order (at most the ``sample`` asked for).
        self.first = first
        #: ``(offset, ID)`` of every ID-shaped string element defining no ID, in byte order
        #: (a parent link, :func:`repeated_links`, defines none).
        self.references = references
        self._targets = targets
        self._table = table
        self._defined = defined
        self._packed: array[int] | None = None

    def referenced(self) -> set[str]:
        """The referenced IDs that some element defines."""
        if self._targets is not None:
            return set(self._targets)
        assert self._defined is not None
        named = {value.encode() for _, value in self.references}
        found = named.intersection(itertools.chain.from_iterable(self._defined))
        return {value.decode() for value in found}

    def targets(self) -> dict[str, int]:
        """Each referenced ID some element defines -> offset of its first definition, in
        the definitions' byte order."""
        if self._targets is None:
            self._targets = self._python_targets()
        return self._targets

    def _python_targets(self) -> dict[str, int]:
        assert self._defined is not None
        buf = self._buf
        wanted = {value.encode() for _, value in self.references}
        targets: dict[str, int] = {}
        for (lo, hi), ids in zip(self._spans, self._defined, strict=True):
            for value in ids:
                if value not in wanted or value.decode() in targets:
                    continue
                offset = _definition_of(buf, value, lo, hi)
                if offset >= 0:
                    targets[value.decode()] = offset
                    lo = offset + 1
        return targets

    def offset(self, element_id: str) -> int | None:
        """Where ``element_id`` is first defined (the offset of its string element)."""
        text = element_id.encode()
        if self._table is not None and _idscanc is not None:
            found = _idscanc.lookup(self._buf, self._table, text, _PREFIX)
            if found is not None:
                return None if found < 0 else found
        return self._python_offset(text)

    def offsets(self, element_ids: Iterable[str]) -> list[int | None]:
        """:meth:`offset` of each ID (a Python call per lookup was most of the time a big
        closure spent on its hundreds of thousands)."""
        ids = list(element_ids)
        found = None
        if self._table is not None and _idscanc is not None:
            found = _idscanc.lookups(self._buf, self._table, ids, _PREFIX)
        if found is None:
            return [self.offset(element_id) for element_id in ids]
        if -1 in found:  # what C was unsure of
            return [
                self._python_offset(ids[n].encode()) if offset == -1 else offset
                for n, offset in enumerate(found)
            ]
        return found

    def _python_offset(self, text: bytes) -> int | None:
        if self._packed is None:
            self._packed = pack_definitions(self._buf, self._spans)
        return packed_offset(self._buf, self._packed, text)


def _clamped(buf: bytes, spans: Spans) -> list[tuple[int, int]]:
    """The spans within ``buf``, as ``re`` and C read them: ``bytes.find`` (the lookups)
    would read a negative bound from the end."""
    size = len(buf)
    return [(min(max(lo, 0), size), min(max(hi, 0), size)) for lo, hi in spans]


def scan_ids(buf: bytes, spans: Spans, sample: int = 0, references: bool = True) -> IdScan:
    """The IDs of an unmodified tree's ``Object`` and ``Assets`` spans of ``buf``; without
    ``references`` (definition lookups only) the references are not listed, and
    :meth:`IdScan.targets` is empty."""
    spans = _clamped(buf, spans)
    if ACCELERATED:
        found = _idscanc.scan(buf, list(spans), sample, _PREFIX, _NAMES, _SUFFIX, references)
        if found is not None:
            count, repeated, first, listed, targets, table = found
            return IdScan(buf, spans, count, repeated, first, listed, targets, table, None)
    return scan_ids_py(buf, spans, sample, references)


def id_elements(data: bytes) -> tuple[list[str], list[str], list[str]] | None:
    """A fragment's ``(definitions not under ParentReference, those under it, other
    ID-shaped values)`` in byte order, by the C scan (None without it, or when it is unsure):
    what :func:`brson.model.ids.ids_in_bytes` reads, without its two regex passes."""
    if not ACCELERATED or type(data) is not bytes:
        return None
    return _idscanc.elements(data, _PREFIX, _NAMES, _SUFFIX)


def numbered_id_elements(
    data: bytes,
) -> tuple[list[str], list[str], list[str], int, bool] | None:
    """:func:`id_elements` with the highest sequential counter among all of them (-1 when
    there is none or some definition is not sequential) and whether every definition is
    sequential, from the same C pass: what extract's closure asks of every copied component
    (:func:`brson.model.numbering.numbered_ids_in_bytes` in Python)."""
    if not ACCELERATED or type(data) is not bytes:
        return None
    return _idscanc.elements(data, _PREFIX, _NAMES, _SUFFIX, _TAIL)


def references_to(buf: bytes, spans: Spans, wanted: Iterable[str]) -> list[tuple[int, str]]:
    """``(offset, ID)`` of every element :data:`REFERENCE_BYTES` matches in the spans of
    ``buf`` whose ID is one of ``wanted`` (the str of ``wanted`` itself), in byte order: by
    the C scan, which makes no object for the references not asked about (most of them),
    else by :func:`references_to_py`."""
    ids = list(wanted)
    if ACCELERATED and type(buf) is bytes:
        spans = _clamped(buf, spans)
        found = _idscanc.references_to(buf, spans, ids, _PREFIX, _NAMES, _SUFFIX)
        if found is not None:
            return found
    return references_to_py(buf, spans, ids)


def references_to_py(buf: bytes, spans: Spans, wanted: Iterable[str]) -> list[tuple[int, str]]:
    """:func:`references_to` by the forms pattern (the reference C is tested against)."""
    # Looked up by their bytes (an ID-shaped value is ASCII): most values found are not
    # wanted, and decoding each one first was most of the loop.
    named = {value.encode(): value for value in wanted if value.isascii()}.get
    out: list[tuple[int, str]] = []
    with paused_gc():
        for lo, hi in spans:
            for match in REFERENCE_BYTES.finditer(buf, lo, hi):
                value = named(match[2])
                if value is not None:
                    out.append((match.start(), value))
    return out


#: A byte no ID element holds (not a key's printable character, a type byte, a prefix, GUID
#: or terminating NUL byte): fragments joined by it scan as each alone, no match across a join.
FRAGMENT_JOIN = b"\xff"


def id_values(data: bytes) -> tuple[int, list[str], list[str], int, bool] | None:
    """:func:`numbered_id_elements` with the definitions not under ``ParentReference``
    counted, not listed, by the C scan (None without it, or when it is unsure): what extract's
    closure asks of the components it copies, whose member IDs (most of their IDs) it never
    reads."""
    if not ACCELERATED or type(data) is not bytes:
        return None
    return _idscanc.values(data, _PREFIX, _NAMES, _SUFFIX, _TAIL)


def definition_lookups(buf: bytes, spans: Spans) -> IdScan:
    """An :class:`IdScan` for :meth:`IdScan.offset` only (its counts and lists are empty):
    the compiled scan's hash table, else no scan at all, since ``offset`` packs the
    definitions on its first call and a Python scan would find and sort them for nothing."""
    if ACCELERATED:
        return scan_ids(buf, spans, references=False)
    # Nothing scanned: whether an ID repeats is not known (so it may).
    return IdScan(buf, _clamped(buf, spans), 0, True, [], [], None, None, None)


def scan_ids_py(buf: bytes, spans: Spans, sample: int = 0, references: bool = True) -> IdScan:
    """:func:`scan_ids` by the forms patterns (the reference C is tested against)."""
    spans = _clamped(buf, spans)
    with paused_gc():  # a million small objects, no cycles
        found = [
            (match.start(), match[2].decode())
            for lo, hi in (spans if references else ())
            for match in REFERENCE_BYTES.finditer(buf, lo, hi)
        ]
        defined = [DEFINED_ID_BYTES.findall(buf, lo, hi) for lo, hi in spans]
        ids: list[bytes] = list(itertools.chain.from_iterable(defined))
        first = [element_id.decode() for element_id in ids[:sample]]
        # Sorted, a repeat sits next to itself; the engine writes IDs about in sequence, so
        # the sort mostly merges long runs (cheaper than a set of them).
        ids.sort()
        repeated = any(map(operator.eq, ids, itertools.islice(ids, 1, None)))
        count = len(ids)
        del ids
        if repeated and references:
            links = _parent_links(buf, spans)
            if links is not None:
                count, repeated, first, found = links.applied(found, sample)
    return IdScan(buf, spans, count, repeated, first, found, None, None, defined)


@dataclass
class _Links:
    """The parent links of a scan whose IDs repeat (:func:`repeated_links`): the
    definitions left and the links' ``(offset, ID)``."""

    kept: list[str]
    links: list[tuple[int, str]]

    def applied(
        self, found: list[tuple[int, str]], sample: int
    ) -> tuple[int, bool, list[str], list[tuple[int, str]]]:
        """``(count, repeated, first, references)`` with the links read as references."""
        kept = self.kept
        references = sorted(found + self.links)
        return len(kept), len(set(kept)) != len(kept), kept[:sample], references


def _parent_links(buf: bytes, spans: Spans) -> _Links | None:
    """A ``ParentReference`` defining an ID another key defines is a link to it (the
    parent's ID, as third-party generators write it), a reference: the ID index's rule
    (``IdIndex._scan_bytes``).  None when there is no such link."""
    parent = DEFINING_KEY_NAMES[1].encode("latin-1")
    definitions = [
        (match.start(), match[1], match[2].decode())
        for lo, hi in spans
        for match in DEFINITION_BYTES.finditer(buf, lo, hi)
    ]
    others = {value for _, key, value in definitions if key != parent}
    links = [(at, value) for at, key, value in definitions if key == parent and value in others]
    if not links:
        return None
    kept = [value for _, key, value in definitions if key != parent or value not in others]
    return _Links(kept, links)


#: :func:`pack_definitions` packs 32 bits of an ID's hash above its offset into one int, to
#: sort both at once in C and keep them in one array.
_OFFSET_BITS = 32
_LOW = (1 << _OFFSET_BITS) - 1


def pack_definitions(buf: bytes, spans: Spans) -> array[int]:
    """Every definition as ``(hash << 32) | offset``, sorted: 8 bytes an ID, bisected by
    :func:`packed_offset` (the first definition of an ID sorts first)."""
    packed: list[int] = []
    with paused_gc():
        for lo, hi in spans:
            packed += [
                (hash(match[2]) & _LOW) << _OFFSET_BITS | match.start()
                for match in DEFINITION_BYTES.finditer(buf, lo, hi)
            ]
        packed.sort()
    return array("Q", packed)


def packed_offset(buf: bytes, packed: array[int], text: bytes) -> int | None:
    """The first definition of the ID ``text`` in a :func:`pack_definitions` table; IDs
    sharing the hash are told apart by reading the definition at each candidate offset."""
    low = (hash(text) & _LOW) << _OFFSET_BITS
    at = bisect_left(packed, low)
    while at < len(packed) and packed[at] >> _OFFSET_BITS == low >> _OFFSET_BITS:
        offset = packed[at] & _LOW
        match = DEFINITION_BYTES.match(buf, offset)
        if match is not None and match[2] == text:
            return offset
        at += 1
    return None


def _definition_of(buf: bytes, value: bytes, lo: int, hi: int) -> int:
    """Offset of the first element in ``buf[lo:hi]`` defining the ID ``value`` (-1 if none):
    a search for its text, each find confirmed by the definition pattern at its element's
    start (a key has no byte 0x02, so the last one before the text is the element's type)."""
    needle = _PREFIX + value + b"\x00"
    at = buf.find(needle, lo, hi)
    while at >= 0:
        start = buf.rfind(b"\x02", max(lo, at - _LONGEST_KEY - 1), at)
        if start >= 0:
            match = DEFINED_ID_BYTES.match(buf, start, hi)
            if match is not None and match.end() == at + len(needle):
                return start
        at = buf.find(needle, at + 1, hi)
    return -1


# -- a tree's IDs from its bytes -----------------------------------------------------------
def definition_offsets(tree: DataTree, wanted: Container[str] | None = None) -> dict[str, int]:
    """ID -> offset of its (first) definition in an unmodified tree, in one regex pass
    (only the ``wanted`` IDs when given): locating definitions one search at a time scans the
    whole buffer each."""
    buf = tree.buffer
    offsets: dict[str, int] = {}
    with paused_gc():
        for lo, hi in id_spans(tree):
            for match in DEFINITION_BYTES.finditer(buf, lo, hi):
                element_id = match.group(2).decode("latin-1")
                if wanted is None or element_id in wanted:
                    offsets.setdefault(element_id, match.start())
    return offsets


def own_definitions(tree: DataTree, wanted: Container[str]) -> dict[str, int]:
    """:func:`definition_offsets` of the ``wanted`` IDs, ``ParentReference`` elements left
    out: where an ID that parent links name is defined itself (the ID index's definition of
    it, :func:`repeated_links`)."""
    buf = tree.buffer
    parent = DEFINING_KEY_NAMES[1].encode("latin-1")
    offsets: dict[str, int] = {}
    for lo, hi in id_spans(tree):
        for match in DEFINITION_BYTES.finditer(buf, lo, hi):
            element_id = match.group(2).decode("latin-1")
            if match.group(1) != parent and element_id in wanted:
                offsets.setdefault(element_id, match.start())
    return offsets


class DefinitionTable:
    """ID -> offset of its first definition in an unmodified tree, for many lookups.

    Lookups of many IDs (extract's closure, the index's own definitions once a few were
    searched for) need only "where is this ID defined", not the full index's string and
    location per ID: the compiled scan's hash table answers them, and without it one sorted
    array of (hash, offset), 8 bytes an ID, searched by bisection (IDs sharing the hash are
    told apart by reading the definition at each candidate offset).
    """

    def __init__(self, tree: DataTree) -> None:
        #: With the compiled scan, its hash table answers (packing the offsets takes a Python
        #: step per definition, several times as long); without it the packed array.
        self._scan = definition_lookups(tree.buffer, id_spans(tree))

    def offset(self, element_id: str) -> int | None:
        """Where ``element_id`` is first defined (the offset of its string element)."""
        return self._scan.offset(element_id)

    def offsets(self, element_ids: Iterable[str]) -> list[int | None]:
        """:meth:`offset` of each ID."""
        return self._scan.offsets(element_ids)

    @property
    def repeated(self) -> bool:
        """Whether some ID may be defined twice: when not, :meth:`offset` is an ID's only
        definition."""
        return self._scan.repeated


def ids_in_bytes(data: bytes) -> tuple[set[str], list[str]]:
    """``(IDs defined, other ID-shaped values)`` in a BSON fragment (a component's bytes), by
    the rules :class:`IdIndex` applies to an unmodified tree, without building a tree for it:
    extracting copies tens of thousands of components, and a tree per copy cost most of it."""
    elements = id_elements(data)
    return ids_in_bytes_py(data) if elements is None else ids_from_elements(*elements)


def ids_from_elements(
    others: list[str], parents: list[str], values: list[str]
) -> tuple[set[str], list[str]]:
    """:func:`ids_in_bytes` from the compiled scan's definitions (not under / under
    ``ParentReference``) and other values, each in byte order."""
    if not parents:
        return set(others), values
    named = set(others)
    # a ParentReference repeating another key's definition is a link (repeated_links)
    values += [eid for eid in parents if eid in named]
    named.update(parents)
    return named, values


def ids_in_bytes_py(data: bytes) -> tuple[set[str], list[str]]:
    """:func:`ids_in_bytes` by the forms patterns (the reference the C path is tested
    against)."""
    text = data.decode("latin-1")
    found: list[tuple[str, str]] = DEFINITION.findall(text)
    values = [match.group(2) for match in REFERENCE.finditer(text)]
    links = repeated_links(found)
    values += [eid for key, eid in found if key == "ParentReference" and eid in links]
    defined = {eid for key, eid in found if key != "ParentReference" or eid not in links}
    return defined, values


def repeated_links(found: list[tuple[str, str]]) -> set[str]:
    """IDs a ``ParentReference`` repeats from another key's definition, in ``(key, ID)``
    definitions: third-party generators write the parent's ID there, which is a reference to
    the parent, not a second definition (engine files never repeat an ID)."""
    others = {element_id for key, element_id in found if key != "ParentReference"}
    return {eid for key, eid in found if key == "ParentReference" and eid in others}


# -- every reference from the bytes, for listing them all ----------------------------------
@dataclass
class ReferenceScan:
    """What listing every reference of an unmodified tree needs, from its bytes alone."""

    #: How many IDs the tree defines (``len(IdIndex.defined)``).
    defined: int
    #: ``(offset of the value's string element, ID)`` of every reference, in byte order
    #: (``IdIndex.values``).
    references: list[tuple[int, str]]
    #: Each ID that a reference names and the tree defines -> offset of its definition.
    definitions: dict[str, int]


def scan_references(tree: DataTree) -> ReferenceScan | None:
    """The references of an unmodified tree and where their targets are defined, from one
    :func:`~brson.model.ids.scan.scan_ids` pass over the bytes.

    What :class:`IdIndex` and :func:`definition_offsets` give together, for a reader that lists
    every reference once, without a string per definition or a second scan.  A
    ``ParentReference`` holding another element's ID is a reference, as the index reads it.
    None when an ID is still defined twice: such a file goes through the index's rules.
    """
    found = scan_ids(tree.buffer, id_spans(tree))
    if found.repeated:
        return None
    return ReferenceScan(found.count, found.references, found.targets())


@dataclass
class IdCensus:
    """What checking a tree's references needs of its IDs, from its bytes, without an index.

    :class:`IdIndex` keeps a string per ID and a :class:`Location` per ID-shaped value (~65 a
    slot); a check of references needs only whether every definition is distinct, the values
    with their offsets, which of them some definition names, and the first definitions (the
    numbering style).  Parent links are values, as the index reads them; when an ID still
    repeats, :meth:`scan` gives None and the caller needs the full index.  Unmodified trees
    only: the bytes are the tree.
    """

    #: ``(offset, ID)`` of every ID-shaped string element that defines no ID, in byte order
    #: (:attr:`IdIndex.values` of the same tree, as offsets).
    values: list[tuple[int, str]]
    #: The values that some element defines.
    defined_values: set[str]
    #: The first definitions in byte order (at most the ``sample`` asked for).
    first: list[str]
    #: How many IDs the tree defines.
    count: int

    @classmethod
    def scan(cls, tree: DataTree, sample: int = 0) -> IdCensus | None:
        """Count an unmodified tree's IDs; None when some definition repeats (parent links
        aside)."""
        found = scan_ids(tree.buffer, id_spans(tree), sample)
        if found.repeated:
            return None
        return cls(
            values=found.references,
            defined_values=found.referenced(),
            first=found.first,
            count=found.count,
        )


def id_spans(tree: DataTree) -> list[tuple[int, int]]:
    """The spans of the root's ``Object`` and ``Assets``: where IDs are defined and used."""
    root = tree.element_index()
    return [(e[1], e[3]) for key, e in root.items() if key in ("Object", "Assets")]
