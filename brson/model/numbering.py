"""New IDs in a file's own style, and deterministic renumbering.

Resonite numbers IDs sequentially (a counter written as a .NET ``Guid`` of its little-endian
bytes, new ones above the highest ID-shaped value, so nothing is reused); NeosVR keeps random
GUIDs (docs/editing.md, "New IDs").  Renumbering rewrites every ID in the sequential style, in
the order definitions appear in the bytes, so the same input always gives the same bytes.  IDs
are fixed-length strings, so it is a substitution in the BSON bytes: no length changes.

Which strings count as IDs is the model's rule (:func:`brson.model.ids.forms.defines_id`);
like the model's byte index, the scan reads string elements straight from the bytes (see the
caveat in :mod:`brson.model.ids.index`).
"""

from __future__ import annotations

import operator
import random
import sys
import uuid
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain

from brson.model.ids.forms import (
    DEFINITION,
    ID_ELEMENT,
    ID_VALUE,
    ID_VALUE_SPLIT,
    NARROW_SEQUENTIAL,
    RANDOM_DEFINITION,
    SEQUENTIAL,
    WIDE_SEQUENTIAL,
    defines_id,
)
from brson.model.ids.scan import (
    FRAGMENT_JOIN,
    id_values,
    ids_from_elements,
    ids_in_bytes_py,
    numbered_id_elements,
)
from brson.model.tree import DataTree

#: Largest counter the sequential style can hold: the first three groups (64 bits).
_SEQUENTIAL_LIMIT = 1 << 64


#: Counters up to 32 bits fill only the first group (every file seen).
_NARROW_LIMIT = 0xFFFFFFFF
_NARROW_FORM = "%08x-0000-0000-0000-000000000000"


def sequential_id(number: int) -> str:
    """The ID Resonite writes for counter ``number`` (``0x143`` -> ``00000143-0000-…``)."""
    if 0 <= number <= _NARROW_LIMIT:
        return _NARROW_FORM % number
    if not 0 <= number < _SEQUENTIAL_LIMIT:
        raise ValueError(f"sequential ID counter {number} out of range")
    return (
        f"{number & 0xFFFFFFFF:08x}-{(number >> 32) & 0xFFFF:04x}-"
        f"{number >> 48:04x}-0000-000000000000"
    )


def sequential_number(element_id: str) -> int | None:
    """The counter of a sequential-style ID, or None for any other GUID (random ones)."""
    match = SEQUENTIAL.fullmatch(element_id)
    if match is None:
        return None
    low, mid, high = match.groups()
    return int(low, 16) | int(mid, 16) << 32 | int(high, 16) << 48


def scan(data: bytes) -> Iterator[tuple[str, str, int]]:
    """``(key, id, offset)`` of every ID-shaped string element of a BSON document, in order."""
    text = data.decode("latin-1")
    for match in ID_ELEMENT.finditer(text):
        yield match.group(1), match.group(2), match.start()


def id_elements(data: bytes) -> list[tuple[str, str]]:
    """``(key, id)`` of every ID-shaped string element, in order (the fast form of scan)."""
    return ID_ELEMENT.findall(data.decode("latin-1"))


def defined_ids(data: bytes) -> list[str]:
    """IDs defined in a BSON document (``ID``, ``…-ID``, ``ParentReference`` keys), in order."""
    return [value for key, value in id_elements(data) if defines_id(key)]


def is_sequential(defined: Iterable[str], default: bool) -> bool:
    """Whether a file numbers its IDs Resonite's way (every definition sequential)."""
    # The pattern's own fullmatch as the test (no Python call per ID: extract checks every
    # copied component's).
    remaining = iter(defined)
    first = next(remaining, None)
    if first is None:
        return default
    full = SEQUENTIAL.fullmatch
    return full(first) is not None and all(map(full, remaining))


#: Fixed-width lower-case hex: comparing the groups high to low compares the numbers.
_COUNTER_ORDER = operator.itemgetter(slice(14, 18), slice(9, 13), slice(None, 8))


def highest_number(values: Iterable[str]) -> int:
    """The highest counter among sequential-style values (-1 when there is none)."""
    best = max(filter(SEQUENTIAL.fullmatch, values), key=_COUNTER_ORDER, default=None)
    number = sequential_number(best) if best is not None else None
    return -1 if number is None else number


def numbered_ids_in_bytes(data: bytes) -> tuple[set[str], list[str], bool, int]:
    """:func:`brson.model.ids.ids_in_bytes` of a fragment, with :func:`is_sequential` of its
    definitions (True when it has none) and, when that holds, :func:`highest_number` of all
    its IDs (else -1: random-style IDs need no counter).  Extract's closure needs them for
    every copied component; the compiled scan answers the last two in its pass."""
    found = numbered_id_elements(data)
    if found is None:
        return numbered_ids_in_bytes_py(data)
    others, parents, values, highest, sequential = found
    defined, values = ids_from_elements(others, parents, values)
    return defined, values, sequential, highest


def numbered_ids_in_bytes_py(data: bytes) -> tuple[set[str], list[str], bool, int]:
    """:func:`numbered_ids_in_bytes` by the forms patterns (without the compiled scan)."""
    defined, values = ids_in_bytes_py(data)
    sequential = is_sequential(defined, default=True)
    highest = highest_number(chain(defined, values)) if sequential else -1
    return defined, values, sequential, highest


#: Bytes of fragments :func:`fragments_values` scans in one call (the joined copy is held
#: while it is scanned).
_FRAGMENTS_CHUNK = 1 << 22

#: Whether fragments define IDs, their other ID-shaped values in order, every definition
#: sequential, and the highest counter when that holds (else -1).
FragmentsValues = tuple[bool, list[str], bool, int]


def fragments_values(buf: bytes, spans: Sequence[tuple[int, int]]) -> FragmentsValues:
    """What extract's closure reads of the components it copies (``buf[start:end]`` each),
    taken together: :func:`numbered_ids_in_bytes` of each, merged.  The compiled scan reads
    chunks of them joined by :data:`FRAGMENT_JOIN` in one call, counting their definitions
    instead of listing them; a chunk with definitions under ``ParentReference`` (a link is a
    fragment's own: :func:`ids_from_elements`) goes a fragment at a time."""
    parts: list[FragmentsValues] = []
    # Joined from views: a slice of each fragment first copied the closure twice.
    view = memoryview(buf)
    at = 0
    while at < len(spans):
        stop, size = at, 0
        while stop < len(spans) and (stop == at or size < _FRAGMENTS_CHUNK):
            size += spans[stop][1] - spans[stop][0]
            stop += 1
        chunk = spans[at:stop]
        at = stop
        found = id_values(FRAGMENT_JOIN.join([view[start:end] for start, end in chunk]))
        if found is not None and not found[1]:
            parts.append((found[0] > 0, found[2], found[4], found[3]))
            continue
        for start, end in chunk:
            defined, values, sequential, highest = numbered_ids_in_bytes(buf[start:end])
            parts.append((bool(defined), values, sequential, highest))
    return _merged(parts)


def fragments_values_py(buf: bytes, spans: Sequence[tuple[int, int]]) -> FragmentsValues:
    """:func:`fragments_values` by the forms patterns, a fragment at a time (the reference
    the compiled pass is tested against)."""
    parts: list[FragmentsValues] = []
    for start, end in spans:
        defined, values, sequential, highest = numbered_ids_in_bytes_py(buf[start:end])
        parts.append((bool(defined), values, sequential, highest))
    return _merged(parts)


def _merged(parts: Iterable[FragmentsValues]) -> FragmentsValues:
    """Fragments' answers as one: a counter is only needed (and only kept) when every
    definition of every fragment is sequential."""
    defines, sequential, highest = False, True, -1
    values: list[str] = []
    for some, more, style, top in parts:
        defines = defines or some
        values += more
        sequential = sequential and style
        highest = max(highest, top)
    return defines, values, sequential, highest if sequential else -1


class FreshIds:
    """A source of IDs unique in one file, in that file's style.

    Take one per tree and keep it for a series of edits (building it scans the tree's bytes
    once); every ID it hands out is added to ``taken``.  ``rng`` makes random-style IDs
    reproducible (tests); by default they come from :func:`uuid.uuid4`.
    """

    def __init__(
        self, taken: Iterable[str], sequential: bool, rng: random.Random | None = None
    ) -> None:
        self.taken = set(taken)
        self.sequential = sequential
        self.rng = rng
        self.issued: list[str] = []
        self.next = highest_number(self.taken) + 1

    @classmethod
    def for_tree(cls, tree: DataTree, rng: random.Random | None = None) -> FreshIds:
        """Scan the tree's bytes (regular expressions only: a 50 MB world takes ~1 s)."""
        text = tree.to_bson().decode("latin-1")
        sequential = RANDOM_DEFINITION.search(text) is None and (
            not tree.legacy or DEFINITION.search(text) is not None
        )
        if not sequential:
            return cls(set(ID_VALUE.findall(text)), False, rng)
        # New numbers start above every value, so none can collide: no set of them needed.
        fresh = cls((), True, rng)
        if WIDE_SEQUENTIAL.search(text) is None:  # every counter below 2**32 (all files)
            low = max(NARROW_SEQUENTIAL.findall(text), default=None)
            fresh.next = int(low, 16) + 1 if low is not None else 0
        else:
            fresh.next = highest_number(ID_VALUE.findall(text)) + 1
        return fresh

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        while True:
            if self.sequential:
                value = sequential_id(self.next)
                self.next += 1
            elif self.rng is not None:
                value = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
            else:
                value = str(uuid.uuid4())
            if value not in self.taken:
                if not self.sequential:  # sequential ones only grow: none comes twice
                    self.taken.add(value)
                self.issued.append(value)
                return value

    def __call__(self) -> str:
        return next(self)

    def take(self, count: int) -> list[str]:
        """The next ``count`` IDs, as ``count`` calls of ``next`` give them; sequential ones
        made in one go (thousands of new slots draw ten each)."""
        if not self.sequential or self.taken or count <= 0:
            return [next(self) for _ in range(count)]
        numbers = range(self.next, self.next + count)
        if numbers[0] >= 0 and numbers[-1] <= _NARROW_LIMIT:  # a call per ID was most of it
            values = _narrow_ids(numbers)
        else:
            values = list(map(sequential_id, numbers))
        self.next += count
        self.issued += values
        return values


#: :data:`_NARROW_FORM`'s fixed part after the counter's eight hex digits.
_NARROW_TAIL = _NARROW_FORM.removeprefix("%08x")


def _narrow_ids(numbers: range) -> list[str]:
    """``_NARROW_FORM % n`` of each number (all in 0..2**32-1), made in bulk: their
    big-endian bytes as hex, eight digits apart, split and joined around the fixed tail (a
    format per ID was most of what drawing a big holder's IDs cost)."""
    counters = array("I", numbers)
    if counters.itemsize != 4:
        return list(map(_NARROW_FORM.__mod__, numbers))
    if sys.byteorder == "little":
        counters.byteswap()
    digits = counters.tobytes().hex(" ", 4)
    return (digits.replace(" ", _NARROW_TAIL + " ") + _NARROW_TAIL).split(" ")


def renumber_map(data: bytes, start: int = 0) -> dict[str, str]:
    """Old ID -> new sequential ID for every ID defined in ``data``, in document order.

    A definition seen again (a third-party ``ParentReference`` naming the parent, or a
    duplicate) keeps its first number.  Numbers equal to an ID-shaped value that names nothing
    are skipped, since such values are left alone and must not start naming something.
    """
    text = data.decode("latin-1")
    defined = dict.fromkeys(eid for _, eid in DEFINITION.findall(text))
    dangling = set(ID_VALUE.findall(text)).difference(defined)
    count = len(defined)
    end = start + count
    if end <= 0x100000000 and not any(
        (n := sequential_number(v)) is not None and start <= n < end for v in dangling
    ):
        # The common case, in C: numbers start..end-1, none taken by a stray value.
        news = [f"{n:08x}-0000-0000-0000-000000000000" for n in range(start, end)]
        return dict(zip(defined, news, strict=True))
    mapping: dict[str, str] = {}
    number = start
    for old in defined:
        new = sequential_id(number)
        while new in dangling:
            number += 1
            new = sequential_id(number)
        mapping[old] = new
        number += 1
    return mapping


def rewrite(data: bytes, mapping: Mapping[str, str]) -> bytes:
    """``data`` with every ID-shaped string value in ``mapping`` replaced (same length)."""
    for old, new in mapping.items():
        if len(old) != 36 or len(new) != 36:
            raise ValueError(f"IDs must be 36 characters: {old!r} -> {new!r}")

    parts = ID_VALUE_SPLIT.split(data.decode("latin-1"))
    get = mapping.get
    parts[1::2] = [get(value, value) for value in parts[1::2]]
    return "".join(parts).encode("latin-1")


def renumber(tree: DataTree, start: int = 0) -> DataTree:
    """A copy of ``tree`` with every ID renumbered sequentially in document order.

    Deterministic and idempotent: renumbering the result gives the same bytes.  References
    follow their targets; ID-shaped values that name nothing are left as they are.  The copy
    keeps the tree's container (so :func:`brson.dump` writes the same codec).
    """
    data = tree.to_bson()
    return DataTree(rewrite(data, renumber_map(data, start)), tree.container, tree.source)
