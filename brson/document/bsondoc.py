"""BSON bytes <-> Python documents through pymongo, keeping every bit.

pymongo already preserves what the format needs: key order (dicts), int64 as ``Int64`` (plain
``int`` encodes as int32 when it fits), doubles as floats with their exact bits.  This module
adds the checks the engine implies (one document, no trailing bytes) and turns pymongo's
exceptions into :class:`DocumentError` with an offset.
"""

from __future__ import annotations

import struct
from typing import Any

import bson as _bson
from bson.codec_options import CodecOptions
from bson.errors import BSONError, InvalidBSON
from bson.raw_bson import RawBSONDocument

from brson.document.framing import TOO_DEEP, first_overrun
from brson.errors import DocumentError

_INT32 = struct.Struct("<i")
OPTIONS: CodecOptions[dict[str, Any]] = CodecOptions(document_class=dict)
_RAW_OPTIONS: CodecOptions[RawBSONDocument] = CodecOptions(document_class=RawBSONDocument)
#: pymongo turns any sub-document holding ``$ref`` and ``$id`` into a DBRef (re-ordering its
#: keys on the way back); documents that may hold one take a slower path that keeps dicts.
_DBREF_MARK = b"$ref\x00"
#: Deeper than this is refused rather than risking the interpreter's recursion limit.
MAX_DEPTH = 900


#: How many ``$`` :func:`holds_dbref_mark` looks at one by one before searching for the mark:
#: at least this many, and one per :data:`_DOLLAR_SPAN` bytes of a bigger buffer.
_DOLLARS = 1000
#: Per bytes because ``memchr`` of ``$`` is several times faster than the 5-byte search and a
#: big world holds many ``$``; bounded so a buffer full of ``$`` costs at most one Python step
#: per 4 KiB before the plain search.
_DOLLAR_SPAN = 4096


def holds_dbref_mark(buf: bytes) -> bool:
    """Whether a ``$ref`` key may be in ``buf`` (its bytes ``$ref\0`` occur).  Not ``in``:
    ``$`` is rare in data trees and found by ``memchr``, faster than the 5-byte search; past
    :data:`_DOLLARS` of them the plain search decides."""
    at = buf.find(b"$")
    for _ in range(max(_DOLLARS, len(buf) // _DOLLAR_SPAN)):
        if at < 0:
            return False
        if buf.startswith(_DBREF_MARK, at):
            return True
        at = buf.find(b"$", at + 1)
    return at >= 0 and buf.find(_DBREF_MARK, at) >= 0


def decode_bytes(data: bytes, *, unmarked: bool = False) -> dict[str, Any]:
    """pymongo's decoder (C speed), minus its DBRef conversion; exceptions are pymongo's,
    except that its C decoder reports nesting past the interpreter's recursion limit as
    invalid BSON: that is a RecursionError here, so callers say "too deep", not "malformed"
    (a valid tree a few hundred slots deep is not malformed).  ``unmarked``: the caller
    knows no key of ``data`` is ``$ref`` (:func:`holds_dbref_mark` is false for the bytes
    its elements come from), so the search for one is skipped.  A buffer holding an element
    that runs past its document is refused (:mod:`brson.document.framing`: the decoder would
    read past the buffer)."""
    bad = first_overrun(data, MAX_DEPTH)
    if bad == TOO_DEEP:
        raise RecursionError(f"documents nested deeper than {MAX_DEPTH} levels")
    if bad >= 0:
        raise InvalidBSON(f"element at offset {bad} runs past its document")
    try:
        if unmarked or _DBREF_MARK not in data:
            return _bson.decode(data, OPTIONS)
        return _plain(_bson.decode(data, _RAW_OPTIONS))  # type: ignore[no-any-return]
    except BSONError as exc:
        if "maximum recursion depth" in str(exc):
            raise RecursionError(str(exc)) from None
        raise


def _plain(value: Any, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        raise RecursionError
    if isinstance(value, RawBSONDocument):
        return {key: _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item, depth + 1) for item in value]
    return value


def check_framing(data: bytes | memoryview) -> None:
    """The payload must be exactly one BSON document: length prefix = size, NUL at the end."""
    if len(data) < 5:
        raise DocumentError(f"a BSON document needs at least 5 bytes, got {len(data)}", offset=0)
    (length,) = _INT32.unpack_from(data, 0)
    if length < 5:
        raise DocumentError(f"invalid BSON document length {length}", offset=0)
    if length > len(data):
        raise DocumentError(
            f"truncated BSON: document declares {length} bytes, {len(data)} present", offset=0
        )
    if length < len(data):
        raise DocumentError(
            f"{len(data) - length} trailing bytes after the BSON document", offset=length
        )
    if data[length - 1] != 0:
        raise DocumentError("BSON document does not end with a NUL byte", offset=length - 1)


def decode(data: bytes | memoryview) -> dict[str, Any]:
    """Decode one whole BSON document (after :func:`check_framing`)."""
    check_framing(data)
    return decode_or_refuse(bytes(data))


def decode_or_refuse(data: bytes, offset: int | None = None) -> dict[str, Any]:
    """:func:`decode_bytes`, its refusals as one :class:`DocumentError` (at ``offset``, where
    ``data`` starts in the caller's buffer)."""
    try:
        return decode_bytes(data)
    except (BSONError, ValueError, OverflowError) as exc:
        raise DocumentError(f"malformed BSON ({exc})", offset=offset) from None
    except RecursionError:
        raise DocumentError("BSON nesting too deep to decode", offset=offset) from None


def encode(doc: Any) -> bytes:
    """Encode a document; refuses values BSON cannot hold."""
    try:
        return _bson.encode(doc)
    except (BSONError, TypeError, ValueError, OverflowError) as exc:
        raise DocumentError(f"cannot encode as BSON ({exc})") from None
    except RecursionError:
        raise DocumentError("document nesting too deep to encode") from None
