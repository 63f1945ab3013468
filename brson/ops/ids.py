"""New IDs in a file's own style, and deterministic renumbering.

Two styles exist in real files:

* Resonite renumbers every ID on export: a counter written as a .NET ``Guid`` made from the
  counter's little-endian bytes, so the first group holds the low 32 bits
  (``00000143-0000-0000-0000-000000000000``) and a counter past 2**32 would carry into the
  second group, then the third (that carry is .NET's Guid layout applied to the counter; no
  sample is big enough to show it).  New elements continue above the highest such value
  already present, references that name nothing included, so nothing is ever reused.
* NeosVR files keep the engine's random GUIDs; new elements get random (version 4) GUIDs.

Renumbering rewrites every ID of a tree in the sequential style, numbered in document order
(the order definitions appear in the BSON bytes), so the same input always gives the same
bytes.  IDs are fixed-length strings, so it is a substitution in the BSON bytes: no document
length changes, and everything that is not an ID stays byte-identical.

Which strings count as IDs and which as references is the model's rule
(:func:`brson.model.ids.defines_id`); like the model's byte index, the scan reads string
elements straight from the bytes (see the caveat in :mod:`brson.model.ids`).
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Iterable, Iterator, Mapping

from brson.model.ids import defines_id
from brson.model.tree import DataTree

_GUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
#: A BSON string element whose value is ID-shaped: key, value (latin-1 text of the bytes,
#: one character a byte, so match offsets are byte offsets).
_GUID_ELEMENT = re.compile(
    "\x02([\x20-\x7e]{1,64})\x00\x25\x00\x00\x00(" + _GUID + ")\x00"
)
#: Largest counter the sequential style can hold: the first three groups (64 bits).
_SEQUENTIAL_LIMIT = 1 << 64


def sequential_id(number: int) -> str:
    """The ID Resonite writes for counter ``number`` (``0x143`` -> ``00000143-0000-…``)."""
    if not 0 <= number < _SEQUENTIAL_LIMIT:
        raise ValueError(f"sequential ID counter {number} out of range")
    return str(uuid.UUID(bytes_le=number.to_bytes(16, "little")))


def sequential_number(element_id: str) -> int | None:
    """The counter of a sequential-style ID, or None for any other GUID (random ones)."""
    try:
        number = int.from_bytes(uuid.UUID(element_id).bytes_le, "little")
    except ValueError:
        return None
    if number >= _SEQUENTIAL_LIMIT or sequential_id(number) != element_id:
        return None
    return number


def scan(data: bytes) -> Iterator[tuple[str, str, int]]:
    """``(key, id, offset)`` of every ID-shaped string element of a BSON document, in order."""
    text = data.decode("latin-1")
    for match in _GUID_ELEMENT.finditer(text):
        yield match.group(1), match.group(2), match.start()


def defined_ids(data: bytes) -> list[str]:
    """IDs defined in a BSON document (``ID``, ``…-ID``, ``ParentReference`` keys), in order."""
    return [value for key, value, _ in scan(data) if defines_id(key)]


def all_ids(data: bytes) -> set[str]:
    """Every ID-shaped value in a BSON document, definitions and references alike."""
    return {value for _, value, _ in scan(data)}


def is_sequential(defined: Iterable[str], default: bool) -> bool:
    """Whether a file numbers its IDs Resonite's way (every definition sequential)."""
    seen = False
    for element_id in defined:
        seen = True
        if sequential_number(element_id) is None:
            return False
    return seen or default


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
        numbers = [n for n in map(sequential_number, self.taken) if n is not None]
        self.next = max(numbers, default=-1) + 1

    @classmethod
    def for_tree(cls, tree: DataTree, rng: random.Random | None = None) -> FreshIds:
        data = tree.to_bson()
        defined = defined_ids(data)
        return cls(all_ids(data), is_sequential(defined, default=not tree.legacy), rng)

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
                self.taken.add(value)
                self.issued.append(value)
                return value

    def __call__(self) -> str:
        return next(self)


def renumber_map(data: bytes, start: int = 0) -> dict[str, str]:
    """Old ID -> new sequential ID for every ID defined in ``data``, in document order.

    A definition seen again (a third-party ``ParentReference`` naming the parent, or a
    duplicate) keeps its first number.  Numbers equal to an ID-shaped value that names nothing
    are skipped, since such values are left alone and must not start naming something.
    """
    found = list(scan(data))
    defined: dict[str, None] = {}
    for key, value, _ in found:
        if defines_id(key):
            defined.setdefault(value, None)
    dangling = {value for _, value, _ in found if value not in defined}
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
    """``data`` with every ID-shaped string element in ``mapping`` replaced (same length)."""
    for old, new in mapping.items():
        if len(old) != 36 or len(new) != 36:
            raise ValueError(f"IDs must be 36 characters: {old!r} -> {new!r}")
    out = bytearray(data)
    for key, value, offset in scan(data):
        replacement = mapping.get(value)
        if replacement is not None and replacement != value:
            at = offset + len(key) + 6  # type byte, key, NUL, int32 length
            out[at : at + 36] = replacement.encode("ascii")
    return bytes(out)


def renumber(tree: DataTree, start: int = 0) -> DataTree:
    """A copy of ``tree`` with every ID renumbered sequentially in document order.

    Deterministic and idempotent: renumbering the result gives the same bytes.  References
    follow their targets; ID-shaped values that name nothing are left as they are.  The copy
    keeps the tree's container (so :func:`brson.dump` writes the same codec).
    """
    data = tree.to_bson()
    return DataTree(rewrite(data, renumber_map(data, start)), tree.container, tree.source)


__all__ = [
    "FreshIds",
    "all_ids",
    "defined_ids",
    "is_sequential",
    "renumber",
    "renumber_map",
    "rewrite",
    "scan",
    "sequential_id",
    "sequential_number",
]
