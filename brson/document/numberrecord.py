"""The JSON form's record of number types, and how ``from-json`` restores them.

JSON tools that re-print numbers lose BSON's double/int32 distinction (jq 1.6 prints ``1.0`` as
``1``), so ``to-json`` ends the form with each element's signature (the type of each of its own
numbers, ``d`` or ``i``, keyed by element ID), which every JSON tool passes through, and
``from-json`` gives each element's numbers their recorded types back:

    "$numbers": {"root": "ii", "elements": [["ID1A00", "ddd"], ["ID1A04", "i"], ...]}

Restoring is per element, so an edited value keeps its element's type; what cannot be
restored without guessing is reported, never decided silently (:class:`Restored`).
docs/json-form.md ("The number record") has the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from brson._speedups import load
from brson.errors import DocumentError

# The reader's walk in C (brson/_speedups/_formreadc.c), when it was built and
# BRSON_PURE_PYTHON is not set: the form's tags replaced and :func:`restore` applied in one
# walk, with the same replacements, counts and reports as the two passes it stands for
# (tests/document/test_formreadc.py holds it to them).
if TYPE_CHECKING:
    from brson._speedups import _formreadc
else:
    _formreadc = load("_formreadc")

#: The record's key: the last key of the top-level object (after the document's keys, or after
#: ``$document`` when the document is wrapped, which to-json does when the document itself has
#: a key of this name).
NUMBERS_KEY = "$numbers"
DOUBLE, INT32 = "d", "i"
_SIGNATURE_CHARS = frozenset(DOUBLE + INT32)

Signature = str | None


class Elements:
    """The record's ``elements`` list as text, one ``["ID", "ddd"]`` pair per element holding
    numbers, added as each element closes: a big world's record costs its text, not an
    object per element. ``separator`` goes between pairs (the form's layout at their depth)."""

    _COMPACT = 4096

    def __init__(self, separator: str) -> None:
        self.separator = separator
        self.pairs: list[str] = []
        self.chunks: list[str] = []

    def add(self, ident: str, types: list[str]) -> None:
        if types:
            self.pairs.append(f'[{encode_basestring(ident)}, "{"".join(types)}"]')
            if len(self.pairs) >= self._COMPACT:
                self.chunks.append(self.separator.join(self.pairs))
                self.pairs.clear()

    def extend(self, pieces: list[str]) -> None:
        """Pairs already written as text (the C renderer's), each piece whole pairs joined by
        :attr:`separator`, after those added so far."""
        if self.pairs:
            self.chunks.append(self.separator.join(self.pairs))
            self.pairs.clear()
        self.chunks += [piece for piece in pieces if piece]

    def write(
        self,
        append: Callable[[str], object],
        root: str,
        first: tuple[str, ...],
        next_: tuple[str, ...],
        depth: int,
    ) -> None:
        """The record object at ``depth`` (its keys one level in), laid out as the form
        (``first`` / ``next_`` start a container's first / further items at each depth), in
        pieces: the pairs' text is not copied into one string, and each piece is let go of
        once handed to ``append`` (which may write it out)."""
        if self.pairs:
            self.chunks.append(self.separator.join(self.pairs))
            self.pairs.clear()
        chunks, self.chunks = self.chunks, []
        chunks.reverse()
        written = bool(chunks)
        append(f'{{{first[depth + 1]}"root": "{root}"{next_[depth + 1]}"elements": [')
        lead = first[depth + 2]
        while chunks:
            append(lead + chunks.pop())
            lead = self.separator
        append((first[depth + 1] if written else "") + "]" + first[depth] + "}")


def read(value: Any) -> tuple[str, dict[str, Signature]]:
    """``(root, elements)`` of a record (an ID listed twice with different types: None);
    DocumentError for anything else."""
    if not isinstance(value, dict) or set(value) != {"root", "elements"}:
        raise DocumentError(f'{NUMBERS_KEY} must be an object with "root" and "elements"')
    root, pairs = value["root"], value["elements"]
    if not isinstance(root, str) or not _signature(root) or not isinstance(pairs, list):
        raise DocumentError(f"{NUMBERS_KEY}: root must be a signature, elements a list")
    elements: dict[str, Signature] = {}
    for pair in pairs:
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and isinstance(pair[0], str)
            and isinstance(pair[1], str)
            and _signature(pair[1])
        ):
            raise DocumentError(f"{NUMBERS_KEY}: bad element entry {str(pair)[:80]!r}")
        ident, signature = pair
        known = elements.get(ident, signature)
        elements[ident] = signature if known == signature else None
    return root, elements


def _signature(value: str) -> bool:
    return set(value) <= _SIGNATURE_CHARS


#: How many element IDs a report names (the counts cover all of them).
SHOWN = 5


@dataclass
class Restored:
    """What :func:`restore` did and what it left as written."""

    #: Integers turned back into the doubles they were.
    doubles: int = 0
    #: Numbers written with a '.' where the record says int32: kept as doubles (the JSON says
    #: so explicitly), reported.
    widened: int = 0
    #: Integers in elements the record does not know (added after to-json): kept as int32.
    unknown: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    #: Integers in elements whose numbers changed in count and held both types, or whose ID
    #: was recorded twice with different types: which were doubles cannot be told. Kept.
    ambiguous: int = 0
    ambiguous_ids: list[str] = field(default_factory=list)

    def notes(self) -> list[str]:
        """One line per kind of thing done or left, for from-json's stderr."""
        out = []
        if self.doubles:
            out.append(
                f"{self.doubles} number(s) written as integers restored as doubles from "
                f"{NUMBERS_KEY} (a JSON tool dropped their '.0')"
            )
        if self.widened:
            out.append(f"{self.widened} int32 value(s) written as doubles kept as doubles")
        if self.unknown:
            out.append(
                f"{self.unknown} integer(s) in element(s) {NUMBERS_KEY} does not list "
                f"({_named(self.unknown_ids)}) written as int32; write a float field's "
                'value as 1.0 or {"$numberDouble": "1"}'
            )
        if self.ambiguous:
            out.append(
                f"{self.ambiguous} integer(s) in element(s) whose numbers changed "
                f"({_named(self.ambiguous_ids)}) written as int32: which were doubles "
                'cannot be told; write doubles as {"$numberDouble": "1"}'
            )
        return out


def _named(ids: list[str]) -> str:
    shown = ", ".join(ids[:SHOWN])
    return shown + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")


#: A number's place: its container and its key or index there.
_Place = tuple[Any, Any]


def restore(doc: dict[str, Any], record: Any) -> Restored:
    """Give the numbers of ``doc`` (parsed and untagged) the types ``record`` holds, in place."""
    root, elements = read(record)
    done = Restored()
    for ident, places in _scopes(doc):
        signature = root if ident is None else elements.get(ident, "")
        if ident is not None and ident not in elements:
            _unknown(ident, places, done)
        else:
            _apply(ident, signature, places, done)
    return done


#: What the form's record is when it has none (its key is absent).
ABSENT: Any = object()


def untag_restore(
    doc: dict[str, Any],
    record: Any,
    untag: Callable[[dict[str, Any]], None],
    from_tag: Callable[[dict[str, Any]], Any],
    document_of: Callable[[dict[str, Any]], dict[str, Any]],
) -> Restored | None:
    """``untag(doc)`` (the JSON form's tags replaced, ``from_tag`` and ``document_of`` reading
    each), then :func:`restore` unless ``record`` is :data:`ABSENT`: in one walk in C when it
    was built. An integer the record makes a double must fit one."""
    try:
        if _formreadc is None:
            untag(doc)
            return None if record is ABSENT else restore(doc, record)
        if record is ABSENT:
            _formreadc.untag_restore(doc, None, None, from_tag, document_of)
            return None
        try:
            root, elements = read(record)
        except DocumentError:  # the tags' errors first, as the two passes report them
            _formreadc.untag_restore(doc, None, None, from_tag, document_of)
            raise
        done = _formreadc.untag_restore(doc, root, elements, from_tag, document_of)
    except OverflowError as exc:
        raise DocumentError(f"{NUMBERS_KEY}: a number recorded as a double ({exc})") from None
    assert done is not None
    return Restored(*done)


def _apply(ident: str | None, signature: Signature, places: list[_Place], done: Restored) -> None:
    if signature is not None and len(signature) == len(places):
        for kind, (holder, key) in zip(signature, places, strict=True):
            value = holder[key]
            if kind == DOUBLE and type(value) is int:
                holder[key] = float(value)
                done.doubles += 1
            elif kind == INT32 and type(value) is float:
                done.widened += 1
        return
    if signature and set(signature) == {DOUBLE}:  # grown or shrunk, but only doubles: still
        for holder, key in places:
            if type(holder[key]) is int:
                holder[key] = float(holder[key])
                done.doubles += 1
        return
    ints = sum(1 for holder, key in places if type(holder[key]) is int)
    if signature and set(signature) == {INT32}:
        done.widened += len(places) - ints
    elif ints:
        done.ambiguous += ints
        done.ambiguous_ids.append("(outside elements)" if ident is None else ident)


def _unknown(ident: str, places: list[_Place], done: Restored) -> None:
    ints = sum(1 for holder, key in places if type(holder[key]) is int)
    if ints:
        done.unknown += ints
        done.unknown_ids.append(ident)


def _scopes(doc: dict[str, Any]) -> Iterator[tuple[str | None, list[_Place]]]:
    """Each element's ID (``None`` for the numbers outside every element) with the places of
    its own numbers in document order: the walk to-json's writer makes (an object whose
    ``ID`` is a string starts an element, the top-level object does not)."""
    root: list[_Place] = []
    found: list[tuple[str | None, list[_Place]]] = [(None, root)]
    stack: list[tuple[Iterator[tuple[Any, Any]], Any, list[_Place]]] = [
        (iter(doc.items()), doc, root)
    ]
    while stack:
        it, holder, places = stack[-1]
        for key, value in it:
            t = type(value)
            if t is int or t is float:
                places.append((holder, key))
            elif t is dict:
                inner = places
                ident = value.get("ID")
                if type(ident) is str:
                    inner = []
                    found.append((ident, inner))
                stack.append((iter(value.items()), value, inner))
                break
            elif t is list:
                stack.append((enumerate(value), value, places))
                break
        else:
            stack.pop()
    return iter(found)
