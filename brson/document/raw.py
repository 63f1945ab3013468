"""Index BSON bytes without decoding them: where each element of a document starts and ends.

This is what makes loading cheaper than decoding everything (the approach of the Rust ``frdt``
crate): a document is indexed one level at a time, sub-documents are skipped by their length
prefix, and values are decoded only when asked for.  Editing re-assembles a document from the
original element bytes plus newly encoded ones, so untouched elements stay byte-identical.
"""

from __future__ import annotations

import struct
from typing import Any

import bson as _bson
from bson.errors import BSONError

from brson.document.bson import OPTIONS
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

#: Fixed payload sizes of the element types that have one.
_FIXED = {0x01: 8, 0x06: 0, 0x07: 12, 0x08: 1, 0x09: 8, 0x0A: 0, 0x10: 4, 0x11: 8, 0x12: 8,
          0x13: 16, 0x7F: 0, 0xFF: 0}
#: Types whose payload starts with an int32 byte count of what follows (+ subtype for binary).
_LENGTH_PREFIXED = {0x02: 4, 0x0D: 4, 0x0E: 4, 0x05: 5}

#: One indexed element: (type, element start, value start, value end).
Element = tuple[int, int, int, int]


def doc_end(buf: bytes, start: int, limit: int) -> int:
    """End offset of the document at ``start``; DocumentError if it does not fit in ``limit``."""
    if start + 5 > limit:
        raise DocumentError("truncated document", offset=start)
    length: int = _I32.unpack_from(buf, start)[0]
    end = start + length
    if length < 5 or end > limit:
        raise DocumentError(f"document length {length} does not fit", offset=start)
    if buf[end - 1] != 0:
        raise DocumentError("document does not end with NUL", offset=end - 1)
    return end


def index(buf: bytes, start: int, end: int) -> dict[str, Element]:
    """Index the elements of the document spanning ``buf[start:end]``, keys in file order."""
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
        size = _FIXED.get(etype)
        if size is not None:
            vend = vstart + size
        elif etype in (DOCUMENT, ARRAY):
            vend = doc_end(buf, vstart, last)
        elif etype in _LENGTH_PREFIXED:
            if vstart + 4 > last:
                raise DocumentError("truncated string length", offset=vstart)
            (n,) = _I32.unpack_from(buf, vstart)
            if n < 0:
                raise DocumentError(f"negative length {n}", offset=vstart)
            vend = vstart + _LENGTH_PREFIXED[etype] + n
        elif etype == 0x0F:  # code with scope: total length prefix
            (n,) = _I32.unpack_from(buf, vstart)
            vend = vstart + n
        elif etype == 0x0B:  # regex: two C strings
            p = find(b"\x00", vstart, last)
            p = find(b"\x00", p + 1, last) if p >= 0 else -1
            if p < 0:
                raise DocumentError("truncated regex", offset=vstart)
            vend = p + 1
        elif etype == 0x0C:  # DBPointer: string + 12 bytes
            (n,) = _I32.unpack_from(buf, vstart)
            vend = vstart + 4 + n + 12
        else:
            raise DocumentError(f"unknown BSON element type 0x{etype:02x}", offset=pos)
        if vend > last or vend <= pos:
            raise DocumentError(f"element {key!r} runs past the document end", offset=pos)
        if key in out:
            raise DocumentError(f"duplicate key {key!r}", offset=pos)
        out[key] = (etype, pos, vstart, vend)
        pos = vend
    if pos != last:
        raise DocumentError("elements overrun the document end", offset=pos)
    return out


def array_items(buf: bytes, start: int, end: int) -> list[Element]:
    """The elements of an array document, in order (keys are "0", "1", ... and not kept)."""
    return list(index(buf, start, end).values())


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
    try:
        return next(iter(_bson.decode(wrapped, OPTIONS).values()))
    except (BSONError, ValueError, OverflowError) as exc:
        raise DocumentError(f"malformed value ({exc})", offset=pos) from None
    except RecursionError:
        raise DocumentError("value nesting too deep", offset=pos) from None


def decode_doc(buf: bytes, start: int, end: int) -> dict[str, Any]:
    """Decode a whole sub-document with pymongo (C speed)."""
    try:
        return _bson.decode(buf[start:end], OPTIONS)
    except (BSONError, ValueError, OverflowError) as exc:
        raise DocumentError(f"malformed document ({exc})", offset=start) from None
    except RecursionError:
        raise DocumentError("document nesting too deep", offset=start) from None


def encode_element(key: str, value: Any) -> bytes:
    """Element bytes (type, key, value) for a Python value, through pymongo's encoder."""
    try:
        return _bson.encode({key: value})[4:-1]
    except (BSONError, TypeError, ValueError, OverflowError) as exc:
        raise DocumentError(f"cannot encode {key!r} as BSON ({exc})") from None


def element_header(etype: int, key: str) -> bytes:
    return bytes((etype,)) + key.encode() + b"\x00"


def assemble(elements: list[bytes]) -> bytes:
    """A document from element bytes."""
    body = b"".join(elements)
    return _I32.pack(len(body) + 5) + body + b"\x00"
