"""BSON element framing: every element's size by its type (:func:`value_end`, the Python
statement of ``value_end`` in brson/_speedups/_bsonwire.h), and the deep check that no element
at any depth runs past the document holding it.

Why the deep check: pymongo's C decoder bounds a nested element's reads by the buffer it was
handed, not by the document that holds the element, so a fixed-size value near the end of a
buffer (an array's last double retyped to a 12-byte ObjectId) is read past the buffer's end.
:func:`brson.document.bsondoc.decode_bytes`, the one way brson hands bytes to that decoder,
refuses such a buffer first (:func:`first_overrun`).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from brson._speedups import load

_I32 = struct.Struct("<i")

#: Fixed payload sizes of the element types that have one.
FIXED = {
    0x01: 8,
    0x06: 0,
    0x07: 12,
    0x08: 1,
    0x09: 8,
    0x0A: 0,
    0x10: 4,
    0x11: 8,
    0x12: 8,
    0x13: 16,
    0x7F: 0,
    0xFF: 0,
}
#: Types whose payload starts with an int32 count: (bytes before what it counts, its least
#: value).  A string counts its NUL; binary has a subtype byte first; a DBPointer is a string
#: and 12 bytes; a sub-document, an array and code with scope count themselves.
COUNTED = {
    0x02: (4, 1),
    0x0D: (4, 0),
    0x0E: (4, 0),
    0x05: (5, 0),
    0x0C: (16, 0),
    0x0F: (0, 0),
    0x03: (0, 5),
    0x04: (0, 5),
}
#: Binary subtype 2 ("old binary") holds a second int32 length the decoder reads.
_OLD_BINARY = 2


def value_end(buf: bytes, etype: int, vstart: int, last: int) -> int:
    """The end of the value of type ``etype`` starting at ``vstart``, in a document whose
    terminator is at ``last``; -1 for a type BSON does not define or a size that is refused
    (too small, past ``last``, a sub-document not closed by a NUL)."""
    fixed = FIXED.get(etype)
    if fixed is not None:
        vend = vstart + fixed
    elif etype == 0x0B:  # regex: two C strings
        p = buf.find(b"\x00", vstart, last)
        p = buf.find(b"\x00", p + 1, last) if p >= 0 else -1
        if p < 0:
            return -1
        vend = p + 1
    else:
        counted = COUNTED.get(etype)
        if counted is None or vstart + 4 > last:
            return -1
        n = _I32.unpack_from(buf, vstart)[0]
        if n < counted[1]:
            return -1
        vend = vstart + counted[0] + n
        if vend <= last and (etype == 0x03 or etype == 0x04) and buf[vend - 1] != 0:
            return -1
    return vend if vend <= last else -1


#: :func:`first_overrun`'s answer for a document nested deeper than its ``max_depth``.
TOO_DEEP = -2


def first_overrun_py(buf: bytes, max_depth: int) -> int:
    """The offset of the first element (in byte order, at any depth) whose bytes do not lie
    inside the document holding it, or of the document itself when ``buf`` is not exactly one
    document; -1 when every element is framed; :data:`TOO_DEEP` at the first document nested
    more than ``max_depth`` levels (the decoder refuses those too, having read no further: so
    a caller that tries each level of a deep tree pays what the decoder would, not the whole
    buffer each time).  One pass, no recursion (a stack of the enclosing documents' ends).
    Stricter than :func:`value_end` where pymongo's decoder reads more: code with scope's
    parts, code, symbol and DBPointer strings (at least their NUL), old binary's inner length."""
    size = len(buf)
    if size < 5 or _I32.unpack_from(buf, 0)[0] != size or buf[size - 1] != 0:
        return 0
    unpack = _I32.unpack_from
    ends: list[int] = []  # the terminators of the enclosing documents
    pos, last = 4, size - 1
    while True:
        if pos == last:
            if not ends:
                return -1
            pos, last = last + 1, ends.pop()
            continue
        etype = buf[pos]
        key_end = buf.find(b"\x00", pos + 1, last)
        if key_end < 0:
            return pos
        vstart = key_end + 1
        vend = value_end(buf, etype, vstart, last)
        if vend < 0:
            return pos
        if etype == 0x03 or etype == 0x04 or etype == 0x0F:
            inner = vstart
            if etype == 0x0F:  # code with scope: total size, string, scope document
                text = unpack(buf, vstart + 4)[0] if vend - vstart >= 14 else 0
                inner = vstart + 8 + text
                if text < 1 or inner + 5 > vend or unpack(buf, inner)[0] != vend - inner:
                    return pos
                if buf[vend - 1] != 0:
                    return pos
            if len(ends) >= max_depth:
                return TOO_DEEP
            ends.append(last)
            pos, last = inner + 4, vend - 1
            continue
        if etype in _DECODED_AS_STRING and unpack(buf, vstart)[0] < 1:
            return pos
        if etype == 0x05 and buf[vstart + 4] == _OLD_BINARY and unpack(buf, vstart)[0] < 4:
            return pos
        pos = vend


#: Element types whose value pymongo decodes as a string (at least its NUL).
_DECODED_AS_STRING = frozenset((0x0C, 0x0D, 0x0E))


if TYPE_CHECKING:
    from brson._speedups import _rawc
else:
    _rawc = load("_rawc")
#: The same check in C when it was built (a pass at memory speed before every decode).
first_overrun = _rawc.first_overrun if _rawc is not None else first_overrun_py
