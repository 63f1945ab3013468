"""One pass over an unmodified tree's bytes for its IDs: what the ID census (validate), the
reference scan (refs) and definition lookups (extract) need, from the patterns of
:mod:`brson.model.idforms`.

The pure-Python path runs those patterns (``DEFINED_ID_BYTES``, ``REFERENCE_BYTES``) with
``re``; the compiled path (``brson/_speedups/_idscanc.c``) finds the same elements in one C pass
and keeps the definitions in a hash table (no Python object per definition, of which a world
has ~65 a slot), so a scan costs a fraction of the two regex passes and the sort of the
IDs.  C answers None for anything it is not sure of and the
Python path answers; ``BRSON_PURE_PYTHON`` (:mod:`brson._speedups`) forces the Python path.
"""

from __future__ import annotations

import itertools
import operator
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from typing import TYPE_CHECKING

from brson._speedups import load
from brson.collector import paused_gc
from brson.model.idforms import (
    DEFINED_ID_BYTES,
    DEFINING_KEY_NAMES,
    DEFINING_KEY_SUFFIX,
    DEFINITION_BYTES,
    ID_VALUE_PREFIX,
    REFERENCE_BYTES,
    SEQUENTIAL_TAIL,
)

if TYPE_CHECKING:
    from brson._speedups import _idscanc
else:
    _idscanc = load("_idscanc")
ACCELERATED: bool = _idscanc is not None
"""Whether :func:`scan_ids` runs the C scan (the extension built and BRSON_PURE_PYTHON unset;
a scan made by C answers its lookups in C either way)."""

#: The element shape C matches, from idforms (the one statement of it).
_PREFIX = ID_VALUE_PREFIX.encode("latin-1")
_NAMES = tuple(name.encode("latin-1") for name in DEFINING_KEY_NAMES)
_SUFFIX = DEFINING_KEY_SUFFIX.encode("latin-1")
_TAIL = SEQUENTIAL_TAIL.encode("latin-1")
#: The longest key :data:`DEFINED_ID_BYTES` matches (``…-ID`` keys: 62 characters and ``-ID``).
_LONGEST_KEY = 65

Spans = Sequence[tuple[int, int]]


class IdScan:
    """The IDs of ``buf[lo:hi]`` for each span (an unmodified tree's ``Object`` and
    ``Assets``), as the idforms patterns find them."""

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
        #: How many elements define an ID (repeats counted).
        self.count = count
        #: Whether some ID is defined twice (the index works out duplicates and parent links).
        self.repeated = repeated
        #: The first definitions in byte order (at most the ``sample`` asked for).
        self.first = first
        #: ``(offset, ID)`` of every ID-shaped string element defining no ID, in byte order.
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
    sequential, from the same C pass: what extract's closure asks of every copied
    component, which took a Python step per ID
    (:func:`brson.model.numbering.numbered_ids_in_bytes`)."""
    if not ACCELERATED or type(data) is not bytes:
        return None
    return _idscanc.elements(data, _PREFIX, _NAMES, _SUFFIX, _TAIL)


def definition_lookups(buf: bytes, spans: Spans) -> IdScan:
    """An :class:`IdScan` for :meth:`IdScan.offset` only (its counts and lists are empty):
    the compiled scan's hash table, else no scan at all, since ``offset`` packs the
    definitions on its first call and a Python scan would find and sort them for nothing."""
    if ACCELERATED:
        return scan_ids(buf, spans, references=False)
    return IdScan(buf, _clamped(buf, spans), 0, False, [], [], None, None, None)


def scan_ids_py(buf: bytes, spans: Spans, sample: int = 0, references: bool = True) -> IdScan:
    """:func:`scan_ids` by the idforms patterns (the reference C is tested against)."""
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
        # Sorted, a repeat sits next to itself.  The engine allocates IDs in sequence and
        # writes them about in that order, so the sort mostly merges long runs: 20 ms for
        # 650k IDs where a set of them took 130 ms and twice the memory.
        ids.sort()
        repeated = any(map(operator.eq, ids, itertools.islice(ids, 1, None)))
        count = len(ids)
        del ids
    return IdScan(buf, spans, count, repeated, first, found, None, None, defined)


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
