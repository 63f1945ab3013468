"""Index BSON bytes without decoding them: where each element of a document starts and ends.

This is what makes loading cheaper than decoding everything (the approach of the Rust ``frdt``
crate): a document is indexed one level at a time, sub-documents are skipped by their length
prefix, and values are decoded only when asked for.  Editing re-assembles a document from the
original element bytes plus newly encoded ones, so untouched elements stay byte-identical.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Sequence
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

import bson as _bson
from bson.errors import BSONError

from brson._speedups import load
from brson.document.bsondoc import decode_or_refuse
from brson.document.framing import COUNTED, FIXED, first_overrun, value_end
from brson.errors import DocumentError

_I32 = struct.Struct("<i")
_I64 = struct.Struct("<q")
_F64 = struct.Struct("<d")

DOUBLE = 0x01
STRING = 0x02
DOCUMENT = 0x03
ARRAY = 0x04
BOOL = 0x08
NULL = 0x0A
INT32 = 0x10
INT64 = 0x12
#: The values each integer element holds (a value outside int32 must be written as int64).
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


#: One indexed element: (type, element start, value start, value end).
Element = tuple[int, int, int, int]


def index_py(buf: bytes, start: int, end: int) -> dict[str, Element]:
    """Index the elements of the document spanning ``buf[start:end]``, keys in file order:
    sub-documents are skipped by their length prefix, and :func:`value_end` keeps hostile
    lengths inside the document."""
    out: dict[str, Element] = {}
    pos = start + 4
    last = end - 1
    find = buf.find
    while pos < last:
        etype = buf[pos]
        key_end = find(b"\x00", pos + 1, last)
        if key_end < 0:
            raise DocumentError("element key runs past the document end", offset=pos)
        try:
            key = buf[pos + 1 : key_end].decode()
        except UnicodeDecodeError:
            raise DocumentError("element key is not UTF-8", offset=pos) from None
        vstart = key_end + 1
        vend = value_end(buf, etype, vstart, last)
        if vend < 0:
            raise _refusal(buf, etype, key, pos, vstart, last)
        if key in out:
            raise DocumentError(f"duplicate key {key!r}", offset=pos)
        out[key] = (etype, pos, vstart, vend)
        pos = vend
    if pos != last:
        raise DocumentError("elements overrun the document end", offset=pos)
    return out


def _refusal(buf: bytes, etype: int, key: str, pos: int, vstart: int, last: int) -> DocumentError:
    """Why :func:`value_end` refused the element at ``pos``, for :func:`index_py` to raise."""
    if etype not in FIXED and etype not in COUNTED and etype != 0x0B:
        return DocumentError(f"unknown BSON element type 0x{etype:02x}", offset=pos)
    if etype in (DOCUMENT, ARRAY) and vstart + 4 <= last:
        n = _I32.unpack_from(buf, vstart)[0]
        return DocumentError(f"sub-document {key!r} has invalid length {n}", offset=pos)
    return DocumentError(f"element {key!r} is truncated or runs past the document end", offset=pos)


#: A document's key layout: (element header bytes, key, type) per element, in order.
Layout = tuple[tuple[bytes, str, int], ...]


def layout_of(idx: dict[str, Element]) -> Layout:
    """The layout of an indexed document, to index look-alike documents faster."""
    return tuple(
        (bytes((etype,)) + key.encode() + b"\x00", key, etype)
        for key, (etype, _, _, _) in idx.items()
    )


def index_as_py(buf: bytes, start: int, end: int, layout: Layout) -> dict[str, Element] | None:
    """Index a document expected to have ``layout`` (same keys, types, order), or None.

    Slots written by the engine all share one layout, so checking each element header with
    one ``startswith`` instead of finding and decoding its key halves the cost of a walk.
    Any difference returns None and the caller falls back to :func:`index`.
    """
    out: dict[str, Element] = {}
    pos = start + 4
    last = end - 1
    startswith = buf.startswith
    for header, key, etype in layout:
        if not startswith(header, pos):
            return None
        vstart = pos + len(header)
        # The types a layout of the engine's holds (C's index_as reads only these too).
        if etype != 0x02 and etype != 0x03 and etype != 0x04 and etype not in FIXED:
            return None
        vend = value_end(buf, etype, vstart, last)
        if vend < 0:
            return None
        out[key] = (etype, pos, vstart, vend)
        pos = vend
    return out if pos == last else None


def index_like(
    buf: bytes, start: int, end: int, layout: Layout
) -> tuple[dict[str, Element], Layout]:
    """Index a document expecting ``layout`` (:func:`index_as`), else fully; with the layout
    to expect of the next one (slots written by one writer share theirs)."""
    idx = index_as(buf, start, end, layout)
    if idx is None:
        idx = index(buf, start, end)
        layout = layout_of(idx)
    return idx, layout


def member_data_py(buf: bytes, start: int, end: int) -> Element | None:
    """The ``Data`` element of a member in the engine's ``{"ID": str, "Data": x}`` layout,
    found at its fixed place without indexing the document; None for any other layout.

    Most documents in a data tree are members (~40 a slot): this costs a few byte compares,
    where an index is a dict of two tuples per member.
    """
    if end - start > 21 and buf.startswith(b"\x02ID\x00", start + 4):
        n = _I32.unpack_from(buf, start + 8)[0]
        data_at = start + 12 + n
        if n > 0 and data_at + 6 <= end and buf[data_at - 1] == 0:
            if not buf.startswith(b"Data\x00", data_at + 1):
                return None
            etype = buf[data_at]
            vstart = data_at + 6
            # Not value_end: the ends are only compared with the member's own end (as C's
            # do_member_data does), and the value's index refuses a bad sub-document later.
            vend = -1
            if etype == 0x03 or etype == 0x04:
                if vstart + 4 <= end:
                    vend = vstart + _I32.unpack_from(buf, vstart)[0]
            elif etype == 0x02:
                if vstart + 4 <= end:
                    vend = vstart + 4 + _I32.unpack_from(buf, vstart)[0]
            elif etype in FIXED:
                vend = vstart + FIXED[etype]
            if vend == end - 1 and vend > vstart - (etype == 0x0A):
                return (etype, data_at, vstart, vend)
    return None


def member_index_py(buf: bytes, start: int, end: int) -> dict[str, Element]:
    """Index a member document; O(1) for the engine's ``{"ID": str, "Data": x}`` layout
    (:func:`member_data`), anything else through :func:`index`."""
    data = member_data_py(buf, start, end)
    if data is not None:
        return {"ID": (0x02, start + 4, start + 8, data[1]), "Data": data}
    return index_py(buf, start, end)


def array_items_py(buf: bytes, start: int, end: int) -> list[Element]:
    """The elements of an array document, in order (keys "0", "1", ... are not kept).

    Arrays of documents (children, components, list members) take a short loop that only
    reads each length prefix; other arrays go through :func:`index`.
    """
    out: list[Element] = []
    pos = start + 4
    last = end - 1
    find = buf.find
    unpack = _I32.unpack_from
    while pos < last:
        if buf[pos] != 0x03:
            return list(index_py(buf, start, end).values())
        key_end = find(b"\x00", pos + 1, last)
        vstart = key_end + 1
        if key_end < 0 or vstart + 4 > last:
            raise DocumentError("array element is truncated", offset=pos)
        n = unpack(buf, vstart)[0]
        vend = vstart + n
        if n < 5 or vend > last or buf[vend - 1] != 0:
            raise DocumentError(f"array element has invalid length {n}", offset=pos)
        out.append((0x03, pos, vstart, vend))
        pos = vend
    if pos != last:
        raise DocumentError("elements overrun the array end", offset=pos)
    return out


def component_index_py(buf: bytes, start: int, end: int) -> dict[str, Element]:
    """Index a component; O(1) for the engine's ``{"Type": int32, "Data": {...}}`` layout."""
    if (
        end - start > 25
        and buf[start + 4] == 0x10
        and buf[start + 5 : start + 10] == b"Type\x00"
        and buf[start + 14] == 0x03
        and buf[start + 15 : start + 20] == b"Data\x00"
    ):
        vstart = start + 20
        n = _I32.unpack_from(buf, vstart)[0]
        if vstart + n == end - 1 and n >= 5 and buf[end - 2] == 0:
            return {
                "Type": (0x10, start + 4, start + 10, start + 14),
                "Data": (0x03, start + 14, vstart, vstart + n),
            }
    return index_py(buf, start, end)


# -- the compiled accelerator --------------------------------------------------------------
# The six functions above, in C (brson/_speedups/_rawc.c), when it was built and
# BRSON_PURE_PYTHON is not set. C answers every input the Python function
# accepts with an equal value and hands everything else (hostile lengths, offsets outside the
# buffer, keys that are not UTF-8, unexpected argument types) to the Python function, which
# answers or raises the precise error: errors have one source, and the pure path is the
# reference the differential tests (tests/document/test_rawc.py) hold C to.
if TYPE_CHECKING:
    from brson._speedups import _rawc
else:
    _rawc = load("_rawc")
ACCELERATED: bool = _rawc is not None
"""Whether the C functions are in use (the extension imported and BRSON_PURE_PYTHON unset)."""

if _rawc is not None:
    _rawc.set_fallbacks(
        index_py, index_as_py, member_data_py, member_index_py, array_items_py, component_index_py
    )
    index = _rawc.index
    index_as = _rawc.index_as
    member_data = _rawc.member_data
    member_index = _rawc.member_index
    array_items = _rawc.array_items
    component_index = _rawc.component_index
else:
    index = index_py
    index_as = index_as_py
    member_data = member_data_py
    member_index = member_index_py
    array_items = array_items_py
    component_index = component_index_py

#: A component element as written: ``Type`` (an int32 or int64 index into ``Types``, or a
#: NeosVR type-name string) directly followed by its ``Data`` document. The one byte-level
#: statement of that shape; scans of serialized subtrees (extract) use these, never their own.
#: Each starts with the literal key and checks the element type behind it, so the matcher
#: skips to ``Type\x00`` at memchr speed (8x faster over a world than a leading type byte,
#: which it tries at every offset); a match starts at the key, the groups are the same.
#: The index's two widths, each behind its element type (groups 1 and 2).
_TYPE_INDEX = rb"(?<=\x10Type\x00)(.{4})|(?<=\x12Type\x00)(.{8})"
COMPONENT_TYPE_INDEX = re.compile(rb"Type\x00(?:" + _TYPE_INDEX + rb")\x03Data\x00", re.DOTALL)
COMPONENT_TYPE_NAME = re.compile(
    rb"Type\x00(?<=\x02Type\x00).{4}([^\x00]*)\x00\x03Data\x00", re.DOTALL
)
#: :data:`COMPONENT_TYPE_INDEX`'s matches, the same ones (see :func:`component_types`), and
#: ``(b"", b"")`` at each ``\x02Type\x00`` none of them covers, where a name may start: the
#: name pattern's scan is skipped where none does.
_TYPE_INDEX_OR_NAME = re.compile(
    rb"Type\x00(?:(?:" + _TYPE_INDEX + rb")\x03Data\x00|(?<=\x02Type\x00))", re.DOTALL
)
_NO_INDEX = (b"", b"")


def component_types(data: bytes, spans: Iterable[tuple[int, int]]) -> tuple[set[int], set[bytes]]:
    """The ``Type`` indices (:func:`type_index_values`) and names (raw) that
    :data:`COMPONENT_TYPE_INDEX` and :data:`COMPONENT_TYPE_NAME` find in the documents
    ``data[start:end]``, each scanned alone, where it lies (copying a closure's hundreds of
    MB of pieces to scan them cost more than the scan); the indices by :func:`type_scan_py`
    (in C when built), the names only where it saw that one may start."""
    listed = list(spans)
    scanned = _rawc.type_scan(data, listed) if _rawc is not None else None
    indices, maybe_named = scanned if scanned is not None else type_scan_py(data, listed)
    names: set[bytes] = set()
    if maybe_named:
        find = COMPONENT_TYPE_NAME.findall
        names.update(chain.from_iterable(find(data, start + 1, end) for start, end in listed))
    return indices, names


def type_scan_py(data: bytes, spans: list[tuple[int, int]]) -> tuple[set[int], bool]:
    """The ``Type`` indices :data:`COMPONENT_TYPE_INDEX` finds in the documents
    ``data[start:end]``, each scanned alone, and whether :data:`COMPONENT_TYPE_NAME` may
    find a name in them (False: it finds none), in one scan.  The reference of
    ``brson._speedups._rawc.type_scan``.

    Alone: a scan from ``start + 1`` to ``end`` is the scan of the slice, because no match
    starts at a slice's first byte (its look-behind has no byte before it), and a match from
    the next one on reads no byte before ``start``.

    One scan: the extra branch takes ``Type\x00`` only, which holds no second ``T``: it hides
    no index match (each starts at a ``Type\x00``), and the branches' look-behinds exclude
    each other, so the index matches are the same.  A name match starts at a
    ``\x02Type\x00``: where no index match covers it, the extra branch matches there; inside
    an index match its ``T`` is one of the index's free bytes and its NUL four bytes on,
    which only 8 free bytes leave room for (the ``\x03Data`` after 4 holds none), so a wide
    index may hide a name too."""
    starts = [start + 1 for start, _ in spans]
    ends = [end for _, end in spans]
    found = set(chain.from_iterable(map(_TYPE_INDEX_OR_NAME.findall, repeat(data), starts, ends)))
    maybe_named = _NO_INDEX in found
    found.discard(_NO_INDEX)
    return type_index_values(found), maybe_named or any(wide for _, wide in found)


def component_type_indices(data: bytes | memoryview) -> list[tuple[int, int, int]]:
    """Every component ``Type`` index in serialized bytes: (value offset, width, index).
    Both widths: the engine writes int32, other writers int64 (mar_AimConstraint.pg.brson)."""
    found = []
    for match in COMPONENT_TYPE_INDEX.finditer(data):
        if match.group(1) is not None:
            found.append((match.start(1), 4, _I32.unpack_from(data, match.start(1))[0]))
        else:
            found.append((match.start(2), 8, _I64.unpack_from(data, match.start(2))[0]))
    return found


def type_index_values(found: Iterable[tuple[bytes, bytes]]) -> set[int]:
    """The indices of :data:`COMPONENT_TYPE_INDEX`'s ``findall`` groups (collected from many
    pieces, repeats dropped first: a closure's thousands of components name a few dozen
    types), by :func:`component_type_indices`' reading: group 1 int32, else group 2 int64."""
    return {_I32.unpack(narrow)[0] if narrow else _I64.unpack(wide)[0] for narrow, wide in found}


def set_type_index(out: bytearray, offset: int, width: int, value: int) -> None:
    """Overwrite a ``Type`` index in place, keeping the width it was written with."""
    (_I32 if width == 4 else _I64).pack_into(out, offset, value)


def int32_bytes(value: int) -> bytes:
    return _I32.pack(value)


def string_value(text: bytes) -> bytes:
    """A string element's value for UTF-8 ``text`` holding no NUL: its length, then it."""
    return _I32.pack(len(text) + 1) + text + b"\x00"


def without_element(buf: bytes, start: int, end: int, elem: Element | None) -> bytes:
    """The document ``buf[start:end]`` with ``elem`` (one of its elements, or None) left
    out, as a new document's bytes: a slot's own fields without its ``Children``, which
    validate and export-godot decode in one call without the subtree.  Copied once (slices
    of a view, joined)."""
    if elem is None:
        return buf[start:end]
    view = memoryview(buf)
    head, tail = view[start + 4 : elem[1]], view[elem[3] : end]
    return b"".join((int32_bytes(4 + len(head) + len(tail)), head, tail))


def int32_at(buf: bytes, pos: int) -> int:
    value: int = _I32.unpack_from(buf, pos)[0]
    return value


def int64_at(buf: bytes, pos: int) -> int:
    value: int = _I64.unpack_from(buf, pos)[0]
    return value


def scalar(buf: bytes, elem: Element) -> Any:
    """Decode one element's value (any type) from the raw bytes."""
    etype, pos, vstart, vend = elem
    if etype == STRING:
        try:
            return buf[vstart + 4 : vend - 1].decode()
        except UnicodeDecodeError:
            raise DocumentError("string is not UTF-8", offset=vstart) from None
    if etype == INT32:
        return _I32.unpack_from(buf, vstart)[0]
    if etype == NULL:
        return None
    if etype == BOOL:
        return buf[vstart] != 0
    if etype == DOUBLE:
        return _F64.unpack_from(buf, vstart)[0]
    # Everything else (int64 as Int64, documents, arrays, rare types) through pymongo.
    key_len = vstart - pos - 2
    wrapped = _I32.pack(4 + 1 + key_len + 1 + (vend - vstart) + 1) + buf[pos:vend] + b"\x00"
    return next(iter(decode_or_refuse(wrapped, pos).values()))


def decode_doc(buf: bytes, start: int, end: int) -> dict[str, Any]:
    """Decode a whole sub-document with pymongo (C speed)."""
    return decode_or_refuse(buf[start:end], start)


def encode_element(key: str, value: Any) -> bytes:
    """Element bytes (type, key, value) for a Python value, through pymongo's encoder."""
    try:
        return _bson.encode({key: value})[4:-1]
    except (BSONError, TypeError, ValueError, OverflowError) as exc:
        raise DocumentError(f"cannot encode {key!r} as BSON ({exc})") from None


def element_header(etype: int, key: str) -> bytes:
    return bytes((etype,)) + key.encode() + b"\x00"


def assemble(elements: Sequence[bytes | memoryview]) -> bytes:
    """A document from element bytes (copied once: a length put in front of the joined body
    copied it twice more, which for a slot holding many components' bytes was most of it)."""
    return b"".join(document_parts(elements))


def document_parts(elements: Sequence[bytes | memoryview]) -> list[bytes | memoryview]:
    """A document from element bytes as pieces still to join (its length, the elements, its
    terminator): documents nested in one another written with one copy of their bytes."""
    return [_I32.pack(sum(map(len, elements)) + 5), *elements, b"\x00"]


# -- a component's fields in one pass (Component.fields) -------------------------------------

#: One member-shaped element of a ``Data`` document: (key, document start, document end, the
#: member's ``Data`` element when it has the engine layout, else None).
FieldElement = tuple[str, int, int, Element | None]


def component_fields(buf: bytes, start: int, end: int) -> list[FieldElement]:
    """The sub-documents of a component's ``Data`` document (``buf[start:end]``), each with
    its ``Data`` element when it is a member in the engine's layout (:func:`member_data`), in
    file order: one index, no dict looked up per member.  Raises :class:`DocumentError` as
    :func:`index` does."""
    data = member_data
    return [
        (key, elem[2], elem[3], data(buf, elem[2], elem[3]))
        for key, elem in index(buf, start, end).items()
        if elem[0] == DOCUMENT
    ]


# -- a member's value (Member.value) ----------------------------------------------------------

#: Arrays of 1 to 10 doubles (vectors, quaternions, colors: a sixth of a world's member
#: values), by size in bytes: one struct reading the length, each item's header and each
#: double, and the headers they must have.
_DOUBLE_ARRAYS = {
    5 + 11 * n: (struct.Struct("<i" + "3sd" * n), tuple(b"\x01%d\x00" % i for i in range(n)))
    for n in range(1, 11)
}


def value(buf: bytes, elem: Element) -> Any:
    """:func:`scalar`, with an array of doubles read by one struct instead of pymongo's
    decoder (the same floats, bit for bit: both read the little-endian doubles as they are)."""
    if elem[0] == ARRAY:
        shape = _DOUBLE_ARRAYS.get(elem[3] - elem[2])
        if shape is not None and buf[elem[3] - 1] == 0:
            items = shape[0].unpack_from(buf, elem[2])
            if items[1::2] == shape[1]:
                return list(items[2::2])
    return scalar(buf, elem)


# -- a whole document's framing ---------------------------------------------------------------


def check_elements(buf: bytes) -> None:
    """Every element of every nested document within its document, each sub-document's length
    and closing NUL right (:func:`brson.document.framing.first_overrun`, no depth limit): a
    tree is read lazily, so a length that lies in a part no command looked at would otherwise
    be copied as it is into a file that no reader accepts.  Raises :class:`DocumentError`
    naming the offset."""
    bad = first_overrun(buf, len(buf))
    if bad == 0:
        raise DocumentError("malformed document (length prefix or end)", offset=0)
    if bad > 0:
        raise DocumentError("element runs past its document or has an invalid length", offset=bad)
