"""BSON element framing: every element's size by its type, and the deep check that no element
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
#: Types whose payload starts with an int32 byte count of what follows (+ subtype for binary).
LENGTH_PREFIXED = {0x02: 4, 0x0D: 4, 0x0E: 4, 0x05: 5}
#: Binary subtype 2 ("old binary") holds a second int32 length the decoder reads.
_OLD_BINARY = 2


#: :func:`first_overrun`'s answer for a document nested deeper than its ``max_depth``.
TOO_DEEP = -2


def first_overrun_py(buf: bytes, max_depth: int) -> int:
    """The offset of the first element (in byte order, at any depth) whose bytes do not lie
    inside the document holding it, or of the document itself when ``buf`` is not exactly one
    document; -1 when every element is framed; :data:`TOO_DEEP` at the first document nested
    more than ``max_depth`` levels (the decoder refuses those too, having read no further: so
    a caller that tries each level of a deep tree pays what the decoder would, not the whole
    buffer each time).  One pass, no recursion (a stack of the enclosing documents' ends)."""
    size = len(buf)
    if size < 5 or _I32.unpack_from(buf, 0)[0] != size or buf[size - 1] != 0:
        return 0
    find = buf.find
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
        key_end = find(b"\x00", pos + 1, last)
        if key_end < 0:
            return pos
        vstart = key_end + 1
        fixed = FIXED.get(etype)
        if fixed is not None:
            vend = vstart + fixed
        elif etype == 0x0B:  # regex: two C strings
            p = find(b"\x00", vstart, last)
            p = find(b"\x00", p + 1, last) if p >= 0 else -1
            if p < 0:
                return pos
            vend = p + 1
        elif vstart + 4 > last:
            return pos
        else:
            n = unpack(buf, vstart)[0]
            if etype == 0x03 or etype == 0x04:
                vend = vstart + n
                if n < 5 or vend > last or buf[vend - 1] != 0:
                    return pos
                if len(ends) >= max_depth:
                    return TOO_DEEP
                ends.append(last)
                pos, last = vstart + 4, vend - 1
                continue
            if etype == 0x0F:  # code with scope: total size, string, scope document
                vend = vstart + n
                if n < 14 or vend > last:
                    return pos
                text = unpack(buf, vstart + 4)[0]
                scope = vstart + 8 + text
                if text < 1 or scope + 5 > vend or unpack(buf, scope)[0] != vend - scope:
                    return pos
                if buf[vend - 1] != 0:
                    return pos
                if len(ends) >= max_depth:
                    return TOO_DEEP
                ends.append(last)
                pos, last = scope + 4, vend - 1
                continue
            if n < (1 if etype != 0x05 else 0):
                return pos
            if etype == 0x0C:  # DBPointer: string + 12 bytes
                vend = vstart + 4 + n + 12
            elif etype in LENGTH_PREFIXED:
                vend = vstart + LENGTH_PREFIXED[etype] + n
                if etype == 0x05 and buf[vstart + 4] == _OLD_BINARY and n < 4:
                    return pos
            else:
                return pos
        if vend > last:
            return pos
        pos = vend


if TYPE_CHECKING:
    from brson._speedups import _rawc
else:
    _rawc = load("_rawc")
#: The same check in C when it was built (a pass at memory speed before every decode).
first_overrun = _rawc.first_overrun if _rawc is not None else first_overrun_py
