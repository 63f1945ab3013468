"""The lossless JSON form of a BSON document: readable, and exact on the way back.

Plain JSON where the value is unambiguous, tags where it is not (``$numberLong`` for int64,
``$numberDouble`` for NaN and infinities, ``$document`` for a document whose first key starts
with ``$``, doubles always with a ``.`` or exponent in Python's shortest round-trip repr);
docs/json-form.md has the table.  The document may be preceded by ``"$container"``, the
archive it was read from (:func:`container_record`): not part of the document (whose ``$``
keys are always tagged), it lets ``from-json`` write the archive back the way it was framed.
"""

from __future__ import annotations

import functools
import json
import math
import re
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from bson import json_util
from bson.errors import BSONError
from bson.int64 import Int64

from brson._speedups import load
from brson.codecs import Codec
from brson.container import Container
from brson.document import numberrecord, raw
from brson.document.bsondoc import decode_bytes, holds_dbref_mark
from brson.document.numberrecord import NUMBERS_KEY
from brson.document.raw import INT32_MAX, INT32_MIN
from brson.errors import DocumentError

_DEFAULT_NAN_BITS = struct.pack("<d", math.nan)


def _float_to_json(value: float) -> Any:
    if math.isnan(value):
        bits = struct.pack("<d", value)
        tagged: dict[str, str] = {"$numberDouble": "NaN"}
        if bits != _DEFAULT_NAN_BITS:
            tagged["$bits"] = bits[::-1].hex()
        return tagged
    if math.isinf(value):
        return {"$numberDouble": "Infinity" if value > 0 else "-Infinity"}
    return value


def to_jsonable(value: Any) -> Any:
    """Turn a decoded BSON value into plain JSON-able data (iteratively safe for depth)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, Int64):
        return {"$numberLong": str(int(value))}
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _float_to_json(value)
    if isinstance(value, dict):
        out = {key: to_jsonable(item) for key, item in value.items()}
        if out and next(iter(out)).startswith("$"):
            return {"$document": out}  # never read back as a tag
        return out
    if isinstance(value, list):
        return [to_jsonable(item) for item in value]
    return json.loads(json_util.dumps(value, json_options=json_util.CANONICAL_JSON_OPTIONS))


def from_jsonable(value: Any) -> Any:
    """Inverse of :func:`to_jsonable`."""
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return value if INT32_MIN <= value <= INT32_MAX else Int64(value)
    if isinstance(value, list):
        return [from_jsonable(item) for item in value]
    if isinstance(value, dict):
        keys = list(value)
        if keys and keys[0].startswith("$"):
            return _from_tag(value)
        return {key: from_jsonable(item) for key, item in value.items()}
    raise DocumentError(f"unexpected JSON value {value!r}")


def _from_tag(value: dict[str, Any]) -> Any:
    first = next(iter(value))
    if first == "$document":
        inner = value["$document"]
        if len(value) != 1 or not isinstance(inner, dict):
            raise DocumentError("$document must be the only key and hold an object")
        return {key: from_jsonable(item) for key, item in inner.items()}
    if first == "$numberLong" and len(value) == 1:
        try:
            return Int64(int(value[first]))
        except (TypeError, ValueError):
            raise DocumentError(f"bad $numberLong {value[first]!r}") from None
    if first == "$numberDouble" and set(value) <= {"$numberDouble", "$bits"}:
        if "$bits" in value:
            try:
                return struct.unpack("<d", bytes.fromhex(value["$bits"])[::-1])[0]
            except (TypeError, ValueError, struct.error):
                raise DocumentError(f"bad $bits {value['$bits']!r}") from None
        try:
            return float(value[first])
        except (TypeError, ValueError):
            raise DocumentError(f"bad $numberDouble {value[first]!r}") from None
    try:
        return json_util.loads(json.dumps(value), json_options=json_util.CANONICAL_JSON_OPTIONS)
    except Exception as exc:  # json_util raises many types for unknown tags
        raise DocumentError(f"unknown tagged JSON value {first!r} ({exc})") from None


#: The first top-level key, when present: the container the document was read from.
CONTAINER_KEY = "$container"
_FRAMINGS = ("frdt", "legacy")


def container_record(container: Container) -> dict[str, Any]:
    """What ``to-json`` records of an archive's container: its framing (``frdt`` or the
    headerless NeosVR ``legacy``), codec and, for LZ4, its stream layout.  Compression
    settings are not recorded: brson writes each codec one way (Brotli as the engine does)."""
    record: dict[str, Any] = {"framing": container.framing, "codec": container.codec.label}
    if container.lz4_framing is not None:
        record["lz4_framing"] = container.lz4_framing
    return record


def read_container_record(value: Any) -> tuple[Codec, bool]:
    """``(codec, legacy)`` from a ``$container`` record; DocumentError when it is not one."""
    if not isinstance(value, dict) or value.get("framing") not in _FRAMINGS:
        raise DocumentError(
            f"{CONTAINER_KEY} must be an object with framing {' or '.join(_FRAMINGS)}"
        )
    try:
        codec = Codec.parse(str(value.get("codec")))
    except ValueError as exc:
        raise DocumentError(f"{CONTAINER_KEY}: {exc}") from None
    return codec, value["framing"] == "legacy"


def dumps(
    doc: dict[str, Any],
    indent: int | None = 1,
    container: dict[str, Any] | None = None,
    numbers: bool = False,
) -> str:
    """The JSON form as text; ``container`` (a :func:`container_record`) goes first, and
    with ``numbers`` the :data:`NUMBERS_KEY` record last.

    Without ``numbers``: what ``json.dumps(to_jsonable(doc), indent=indent,
    ensure_ascii=False)`` wrote, character for character, without building the tagged copy
    first (:class:`_Renderer`)."""
    out: list[str] = []
    renderer = _Renderer(indent, out)
    renderer.numbers = numbers
    renderer.document(doc, container)
    return "".join(out)


def write_bson(
    data: bytes,
    write: Callable[[str], object],
    indent: int | None = 1,
    container: dict[str, Any] | None = None,
    chunk: int | None = None,
    numbers: bool = False,
) -> None:
    """Write the JSON form of the BSON document ``data`` through ``write``, in chunks.

    The text is what :func:`dumps` of the decoded document gives, but the document is never
    decoded whole: sub-documents of at most :data:`_CHUNK` bytes are decoded by pymongo's C
    decoder one at a time and rendered, bigger ones are walked element by element (a stack,
    not recursion), so memory stays near the BSON size whatever the tree's size or depth."""
    _check_length(data)
    renderer = _Renderer(indent, [])
    renderer.flush_to = write
    renderer.numbers = numbers
    if chunk is not None:  # tests walk small documents too
        renderer.chunk = chunk
    renderer.bson_document(data, container)
    renderer.flush()


#: Nesting (BSON documents and arrays, the top document being 1) the JSON form accepts: the
#: depth the recursive converter it replaced reached under Python's default recursion limit
#: (measured: a 493-level document converted, 494 did not), kept so the same archives convert.
MAX_DEPTH = 493
#: Sub-documents up to this size are decoded by pymongo in one call (C speed); bigger ones are
#: walked element by element so the decoded objects in memory stay small.
_CHUNK = 1 << 16
_FLUSH_PARTS = 1 << 12
#: A piece of the number record this long is written out at once.
_FLUSH_TEXT = 1 << 16
#: Distinct keys whose JSON text is kept (field names repeat; hostile input may not).
_KEY_CACHE = 1 << 14
_I32 = struct.Struct("<i")
_TOO_DEEP = "document nesting too deep for the JSON form"
#: The compiled renderer's pieces of text (characters, at least).
_PIECE = 1 << 18

# The renderer in C (brson/_speedups/_jsonformc.c; None when not built or BRSON_PURE_PYTHON):
# it renders what it checked it renders as the Python path below does, which renders or
# refuses the rest (tests/document/test_jsonformc.py).
if TYPE_CHECKING:
    from brson._speedups import _jsonformc
else:
    _jsonformc = load("_jsonformc")
ACCELERATED: bool = _jsonformc is not None


#: One element of a big container: (key, type, element start, value start, value end).
_Elem = tuple[str, int, int, int, int]
_CONTAINERS = (raw.DOCUMENT, raw.ARRAY)


def _elements(data: bytes, start: int, end: int, is_dict: bool, limit: int) -> list[_Elem] | None:
    """The elements of a container worth walking (bigger than ``limit``); None for a small
    one or one the indexer refuses (pymongo then decodes it whole, as before)."""
    if end - start <= limit:
        return None
    try:
        if is_dict:
            return [(key, *elem) for key, elem in raw.index(data, start, end).items()]
        return [("", *elem) for elem in raw.array_items(data, start, end)]
    except DocumentError:  # duplicate keys, damage: whatever pymongo makes of it
        return None


def _decode(
    data: bytes, start: int, end: int, wrap: bool = False, unmarked: bool = False
) -> dict[str, Any]:
    """pymongo's decoding of ``data[start:end]``: a document, or (``wrap``) a run of its
    elements, made a document of their own (copied once). ``unmarked``: ``data`` holds no
    ``$ref`` key (searched once for the whole document, not again in every run); a run
    ending in the bytes ``$ref`` is still searched, as before, since its closing NUL makes
    the mark."""
    if unmarked and data.endswith(b"$ref", start, end):
        unmarked = False
    if wrap:
        chunk = b"".join((_I32.pack(end - start + 5), memoryview(data)[start:end], b"\x00"))
    else:
        chunk = data[start:end]
    try:
        return decode_bytes(chunk, unmarked=unmarked)
    except (BSONError, ValueError, OverflowError) as exc:
        raise DocumentError(f"malformed document ({exc})", offset=start) from None
    except RecursionError:
        raise DocumentError(_TOO_DEEP, offset=start) from None


def _element_id(data: bytes, children: list[_Elem]) -> str | None:
    """The ``ID`` of a big document when it is a string (it is an element then, the rule
    :meth:`_Renderer.items` applies to small ones)."""
    for key, etype, pos, _, vend in children:
        if key == "ID":
            if etype != raw.STRING:
                return None
            ident: str = _decode(data, pos, vend, True, True)["ID"]
            return ident
    return None


def _check_length(data: bytes) -> None:
    if len(data) < 5 or _I32.unpack_from(data, 0)[0] != len(data) or data[-1] != 0:
        raise DocumentError("malformed document (length prefix or end)", offset=0)


@functools.cache
def _separators(indent: int | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Per depth: what starts a container's first item and each further item (json.dumps'
    layout: a newline and ``indent`` spaces per level, or one line with ``", "``)."""
    levels = 2 * MAX_DEPTH + 4  # every level may also be a $document wrapper
    if indent is None:
        return ("",) * levels, (", ",) * levels
    first = tuple("\n" + " " * (indent * d) for d in range(levels))
    return first, tuple("," + line for line in first)


@functools.cache
def _closers(indent: int | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Per depth: what ends an object, an array (its last item's newline, then the bracket)."""
    first = _separators(indent)[0]
    return tuple(line + "}" for line in first), tuple(line + "]" for line in first)


class _Renderer:
    """The JSON form's text of decoded values, appended to ``out`` piece by piece.

    One explicit stack instead of recursion (trees are thousands of levels deep), the tags
    written from templates, strings through json's C encoder and numbers through the reprs
    json.dumps itself uses, so the text is json.dumps' own."""

    def __init__(self, indent: int | None, out: list[str]) -> None:
        self.indent = indent
        self.out = out
        self.flush_to: Callable[[str], object] | None = None
        self.first, self.next = _separators(indent)
        self.chunk = _CHUNK
        self.closers = _closers(indent)
        self.keys: dict[str, str] = {}
        self.unmarked = False
        #: Write the :data:`NUMBERS_KEY` record after the document.
        self.numbers = False
        #: The types of the numbers outside every element, and the record's text of each
        #: element (an object whose ``ID`` is a string) closed so far (``numberrecord``):
        #: written as each element closes, so only the open ones' types are held.
        self.root_scope: list[str] = []
        self.closed = numberrecord.Elements(self.next[3])
        #: Whether :meth:`bson_document` may hand the document to the C renderer.
        self.compiled = ACCELERATED

    def wraps(self, first_key: str, keys: Iterable[str]) -> bool:
        """Whether the document goes into ``{"$document": ...}``: its first key looks like a
        tag, or (with the record) one of its keys is the record's."""
        return first_key.startswith("$") or (self.numbers and NUMBERS_KEY in keys)

    def record(self, depth: int) -> None:
        """The ``,"$numbers": {...}`` item closing the top-level object (with ``numbers``)."""
        if self.numbers:
            self.out.append(f"{self.next[depth + 1]}{encode_basestring(NUMBERS_KEY)}: ")
            root = "".join(self.root_scope)
            self.closed.write(self.piece, root, self.first, self.next, depth + 1)

    def piece(self, text: str) -> None:
        """Append ``text`` and write the output out when it is long (the number record's
        pieces: the record is not held twice, as pieces and as their text joined)."""
        self.out.append(text)
        if len(text) > _FLUSH_TEXT:
            self.flush()

    def flush(self) -> None:
        if self.flush_to is not None and self.out:
            self.flush_to("".join(self.out))
            self.out.clear()

    def document(self, doc: dict[str, Any], container: dict[str, Any] | None) -> None:
        """A whole (decoded) document, with its ``$container`` record first."""
        items: list[tuple[str, Any]] = []
        if container is not None:
            items.append((CONTAINER_KEY, container))
        if doc and self.wraps(next(iter(doc)), doc):
            items.append(("$document", doc))
            self.out.append("{")
            self.items(items, True, 0, 0, True, dollar_ok=True)
            self.record(0)
            self.out.append(self.first[0] + "}")
        elif items or (doc and self.numbers):
            self.out.append("{")
            self.items(items, True, 0, 0, True, dollar_ok=True)
            self.items(doc.items(), True, 0, 1, not items)
            self.record(0)
            self.out.append(self.first[0] + "}")
        else:  # an empty document has no numbers: no record either
            self.value(doc, 0, 1)

    def value(self, value: Any, depth: int, nesting: int) -> None:
        """One value at ``depth`` (its brackets' indentation), a container at ``nesting``."""
        self.items([value], False, depth - 1, nesting - 1, True, bare=True)

    def items(
        self,
        items: Iterable[Any],
        is_dict: bool,
        depth: int,
        nesting: int,
        first: bool,
        dollar_ok: bool = False,
        bare: bool = False,
        scope: list[str] | None = None,
    ) -> None:
        """The items of a container at ``depth`` (nesting ``nesting``), brackets not included:
        ``(key, value)`` pairs when ``is_dict``, values otherwise. ``first``: no item of the
        container was written yet. ``dollar_ok``: the root's own ``$container`` /
        ``$document`` keys, written as they are. ``bare``: one value with no separator.
        ``scope``: where the type of each number outside a nested element goes (default: the
        document's own)."""
        out = self.out
        append = out.append
        firsts, nexts = self.first, self.next
        close_dict, close_list = self.closers
        enc = encode_basestring
        keys = self.keys
        frepr = float.__repr__
        irepr = int.__repr__
        str_, float_, bool_, int_, dict_, list_ = str, float, bool, int, dict, list
        flush_to = self.flush_to
        close = self.closed.add
        stack: list[tuple[Iterator[Any], bool, int, int, str, list[str], str | None]] = [
            (
                iter(items),
                is_dict,
                depth,
                nesting,
                "",
                self.root_scope if scope is None else scope,
                None,
            )
        ]
        while stack:
            it, is_dict, d, n, _, sig, _ = stack[-1]
            mark = sig.append
            first_head = firsts[d + 1] if not bare or len(stack) > 1 else ""
            next_head = nexts[d + 1]
            for x in it:
                if is_dict:
                    k, v = x
                    key = keys.get(k)
                    if key is None:
                        key = enc(k) + ": "
                        if len(keys) < _KEY_CACHE:
                            keys[k] = key
                    head = (first_head if first else next_head) + key
                else:
                    v = x
                    head = first_head if first else next_head
                first = False
                t = type(v)
                if t is str_:
                    append(head + enc(v))
                elif t is float_:
                    mark("d")
                    if v - v == 0.0:
                        append(head + frepr(v))
                    else:
                        append(head + self.rendered(_float_to_json(v), d + 1))
                elif t is dict_ or t is list_:
                    if n >= MAX_DEPTH:
                        raise DocumentError(_TOO_DEEP)
                    if not v:
                        append(head + ("{}" if t is dict_ else "[]"))
                        continue
                    if t is list_:
                        append(head + "[")
                        stack.append((iter(v), False, d + 1, n + 1, close_list[d + 1], sig, None))
                    else:
                        inner = sig
                        ident = v.get("ID")
                        if type(ident) is str_ and (not dollar_ok or len(stack) > 1):
                            inner = []  # an element (not the root): its numbers are its own
                        else:
                            ident = None
                        for k0 in v:  # noqa: B007  (the first key, without iter + next)
                            break
                        if k0[:1] != "$" or (dollar_ok and len(stack) == 1):
                            append(head + "{")
                            closer = close_dict[d + 1]
                            stack.append(
                                (iter(v.items()), True, d + 1, n + 1, closer, inner, ident)
                            )
                        else:  # {"$document": {...}}: never read back as a tag
                            append(head + "{" + firsts[d + 2] + '"$document": {')
                            closer = close_dict[d + 2] + close_dict[d + 1]
                            stack.append(
                                (iter(v.items()), True, d + 2, n + 1, closer, inner, ident)
                            )
                    first = True
                    break
                elif t is bool_:
                    append(head + ("true" if v else "false"))
                elif t is int_:
                    mark("i")
                    append(head + irepr(v))
                elif v is None:
                    append(head + "null")
                elif t is Int64:
                    number = irepr(v)
                    append(f'{head}{{{firsts[d + 2]}"$numberLong": "{number}"{firsts[d + 1]}}}')
                else:
                    append(head + self.rendered(to_jsonable(v), d + 1))
            else:
                _, _, _, _, closer, sig, ident = stack.pop()
                append(closer)
                if ident is not None:
                    close(ident, sig)
                first = False
                if len(out) > _FLUSH_PARTS and flush_to is not None:
                    flush_to("".join(out))
                    out.clear()

    def bson_document(self, data: bytes, container: dict[str, Any] | None) -> None:
        """The JSON form of a whole BSON document (see :func:`write_bson`)."""
        if self.compiled and self.compiled_document(data, container):
            return
        self.unmarked = not holds_dbref_mark(data)
        elements = _elements(data, 0, len(data), True, self.chunk)
        if elements is None:  # small, or what the walk refuses: pymongo decides, as before
            self.document(_decode(data, 0, len(data)), container)
            return
        firsts, nexts = self.first, self.next
        self.out.append("{")
        first = True
        if container is not None:
            self.items([(CONTAINER_KEY, container)], True, 0, 0, True)
            first = False
        if elements and self.wraps(elements[0][0], (elem[0] for elem in elements)):
            self.out.append((firsts[1] if first else nexts[1]) + '"$document": {')
            self.walk(data, elements, True, 1, 1, firsts[1] + "}")
        else:
            self.walk(data, elements, True, 0, 1, "", first)
        self.record(0)
        self.out.append(firsts[0] + "}")

    def compiled_document(self, data: bytes, container: dict[str, Any] | None) -> bool:
        """The document's items through the C renderer (its top object and records are written
        here); False, with nothing written, when C leaves the document to the Python path."""
        if _jsonformc is None or type(data) is not bytes:
            return False
        try:
            if not (keys := raw.index(data, 0, len(data))):
                return False
        except DocumentError:
            return False
        wrap, first = self.wraps(next(iter(keys)), keys), container is None
        indent = -1 if self.indent is None else self.indent
        items = _jsonformc.renderer(data, indent, wrap, first or wrap, self.numbers, self.next[3])
        if items is None:
            return False
        firsts, nexts = self.first, self.next
        self.out.append("{")
        if container is not None:
            self.items([(CONTAINER_KEY, container)], True, 0, 0, True)
        if wrap:
            self.out.append((firsts[1] if first else nexts[1]) + '"$document": {')
        while text := items.render(_PIECE):
            self.out.append(text)
            self.flush()
        if wrap:
            self.out.append(firsts[1] + "}")
        root, pieces = items.record()
        self.root_scope.append(root)
        self.closed.extend(pieces)
        self.record(0)
        self.out.append(firsts[0] + "}")
        return True

    def walk(
        self,
        data: bytes,
        elements: list[_Elem],
        is_dict: bool,
        depth: int,
        nesting: int,
        closer: str,
        first: bool = True,
    ) -> None:
        """Write the items of a big container (and its closer): runs of small elements are
        decoded in one pymongo call each, big sub-documents walked in turn (a stack)."""
        out = self.out
        append = out.append
        firsts, nexts = self.first, self.next
        limit = self.chunk
        stack: list[list[Any]] = [
            [elements, 0, is_dict, depth, nesting, closer, self.root_scope, None]
        ]
        while stack:
            frame = stack[-1]
            elements, i, is_dict, d, n, closer, sig, _ = frame
            count = len(elements)
            while i < count:
                j, size = i, 0
                while j < count:
                    elem = elements[j]
                    if elem[1] in _CONTAINERS and elem[4] - elem[3] > limit:
                        break
                    size += elem[4] - elem[2]
                    j += 1
                    if size > limit:
                        break
                if j > i:
                    run = _decode(data, elements[i][2], elements[j - 1][4], True, self.unmarked)
                    values = run.items() if is_dict else run.values()
                    self.items(values, is_dict, d, n, first, scope=sig)
                    first = False
                    i = j
                    continue
                key, etype, pos, vstart, vend = elements[i]
                i += 1
                children = _elements(data, vstart, vend, etype == raw.DOCUMENT, limit)
                if children is None:  # refused by the walk: pymongo decodes it (or says why)
                    run = _decode(data, pos, vend, True, self.unmarked)
                    values = run.items() if is_dict else run.values()
                    self.items(values, is_dict, d, n, first, scope=sig)
                    first = False
                    continue
                if n >= MAX_DEPTH:
                    raise DocumentError(_TOO_DEEP)
                head = firsts[d + 1] if first else nexts[d + 1]
                if is_dict:
                    head += encode_basestring(key) + ": "
                first = True
                frame[1] = i
                if etype == raw.ARRAY:
                    append(head + "[")
                    stack.append([children, 0, False, d + 1, n + 1, firsts[d + 1] + "]", sig, None])
                    break
                ident = _element_id(data, children)
                inner = sig if ident is None else []
                if children[0][0].startswith("$"):
                    append(head + "{" + firsts[d + 2] + '"$document": {')
                    wrapper = firsts[d + 2] + "}" + firsts[d + 1] + "}"
                    stack.append([children, 0, True, d + 2, n + 1, wrapper, inner, ident])
                else:
                    append(head + "{")
                    closer = firsts[d + 1] + "}"
                    stack.append([children, 0, True, d + 1, n + 1, closer, inner, ident])
                break
            else:
                _, _, _, _, _, closer, sig, ident = stack.pop()
                append(closer)
                if ident is not None:
                    self.closed.add(ident, sig)
                first = False
                if len(out) > _FLUSH_PARTS:
                    self.flush()

    def rendered(self, form: Any, depth: int) -> str:
        """Plain JSON data (a tag, an Extended JSON value) as json.dumps writes it at
        ``depth``: its lines shifted right (no JSON string holds a raw newline)."""
        text = json.dumps(form, indent=self.indent, ensure_ascii=False, allow_nan=False)
        return text.replace("\n", self.first[depth]) if self.indent is not None else text


#: Nesting (objects and arrays, the outermost being 1) any JSON read from a file may have: the
#: JSON form of a :data:`MAX_DEPTH`-deep document with a tagged value (``{"$numberLong": ..}``)
#: innermost. Deeper JSON is refused when read, so nothing after the reader (the patch's
#: value conversion, glTF's node walk, a recursive encoder) meets a depth near the stack's.
MAX_JSON_DEPTH = MAX_DEPTH + 1


def parse_json(text: str | bytes, *, limit_nesting: bool = True) -> Any:
    """``json.loads`` for untrusted text, failing only with ``ValueError``: syntax, encoding,
    an integer literal past Python's 4,300-digit limit (a plain ValueError), nesting deeper
    than :data:`MAX_JSON_DEPTH` and nesting deep enough to exhaust the stack while parsing (a
    RecursionError) all become one kind of error. Every reader of JSON from a file (the JSON
    form, package records, asset metadata, patches, glTF) goes through here.

    ``limit_nesting=False`` skips the depth walk for a caller whose every later step is
    iterative or bounded by its own depth check: the JSON form's (:func:`_untag`, then the
    BSON encoder's refusal)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("JSON nesting too deep") from None
    if limit_nesting:
        _check_nesting(value)
    return value


def _check_nesting(value: Any) -> None:
    """Refuse ``value`` when it nests deeper than :data:`MAX_JSON_DEPTH`: one level at a time,
    every container looked at once, no recursion."""
    dict_, list_ = dict, list
    level = [value] if type(value) in (dict_, list_) else []
    depth = 0
    while level:
        depth += 1
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"JSON nesting too deep (over {MAX_JSON_DEPTH} levels)")
        deeper = []
        for container in level:
            items = container.values() if type(container) is dict_ else container
            deeper += [item for item in items if type(item) is dict_ or type(item) is list_]
        level = deeper


def loads(text: str | bytes) -> dict[str, Any]:
    """The document of a JSON form (a ``$container`` record is read past)."""
    return loads_archive(text)[0]


def loads_archive(text: str | bytes) -> tuple[dict[str, Any], tuple[Codec, bool] | None]:
    """The document and, when recorded, its container's ``(codec, legacy)``."""
    form = loads_form(text)
    return form.doc, form.container


@dataclass
class Form:
    """A parsed JSON form: the document, its container's ``(codec, legacy)`` when recorded,
    and what the :data:`NUMBERS_KEY` record restored (None: the form has no record)."""

    doc: dict[str, Any]
    container: tuple[Codec, bool] | None
    numbers: numberrecord.Restored | None


#: ``-0`` outside a string or a longer number: jq 1.6's spelling of the double -0.0.
_MINUS_ZERO = re.compile(r"-0(?![0-9.eE])")
_MINUS_ZERO_BYTES = re.compile(rb"-0(?![0-9.eE])")


def _int_or_minus_zero(text: str) -> int | float:
    """A JSON integer literal; ``-0`` is no int32 (to-json writes 0): a tool's -0.0."""
    return -0.0 if text == "-0" else int(text)


def _parse_form(text: str | bytes) -> Any:
    """:func:`parse_json` without its depth walk (every later step of the form is iterative or
    bounded by its own depth check), reading ``-0`` as -0.0 when the text holds one (the hook
    costs time on every integer, so only then)."""
    if isinstance(text, str):
        found = _MINUS_ZERO.search(text) is not None
    else:
        found = _MINUS_ZERO_BYTES.search(text) is not None
    if not found:
        return parse_json(text, limit_nesting=False)
    try:
        return json.loads(text, parse_int=_int_or_minus_zero)
    except RecursionError:  # as parse_json says it
        raise ValueError("JSON nesting too deep") from None


def loads_form(text: str | bytes) -> Form:
    """The document, its container record and its number record, applied.

    The tags are replaced in place in what ``json.loads`` built (:func:`_untag`), not copied
    into a second tree as :func:`from_jsonable` does: the document is the parsed JSON."""
    try:
        raw = _parse_form(text)
    except ValueError as exc:
        raise DocumentError(f"invalid JSON ({exc})") from None
    del text  # the caller may pass its only reference (from-json's biggest buffer)
    if not isinstance(raw, dict):
        raise DocumentError("the JSON form of a data tree must be an object")
    container = None
    if raw and next(iter(raw)) == CONTAINER_KEY:
        container = read_container_record(raw.pop(CONTAINER_KEY))
    record = raw.pop(NUMBERS_KEY, None) if NUMBERS_KEY in raw else numberrecord.ABSENT
    if raw and next(iter(raw)).startswith("$"):
        doc = _from_tag(raw) if next(iter(raw)) != "$document" else _document_of(raw)
        if not isinstance(doc, dict):
            raise DocumentError("the JSON form of a data tree must be an object")
    else:
        doc = raw
    restored = numberrecord.untag_restore(doc, record, _untag, _from_tag, _document_of)
    return Form(doc, container, restored)


def decode_text(data: bytes) -> str:
    """JSON bytes as text, the way ``json.loads`` reads bytes (UTF-8, -16 or -32, a BOM
    skipped), so a caller can let go of the bytes before parsing."""
    try:
        return data.decode(json.detect_encoding(data), "surrogatepass")
    except ValueError as exc:
        raise DocumentError(f"invalid JSON ({exc})") from None


def _document_of(value: dict[str, Any]) -> dict[str, Any]:
    """The object a ``{"$document": {...}}`` wrapper holds."""
    inner = value["$document"]
    if len(value) != 1 or not isinstance(inner, dict):
        raise DocumentError("$document must be the only key and hold an object")
    return inner


def _untag(doc: dict[str, Any]) -> None:
    """:func:`from_jsonable` in place and without recursion, for parsed JSON: every tagged
    object below ``doc`` replaced by its value, ``$document`` wrappers by what they hold, in
    document order (of several bad tags, the first is the one reported). Plain integers are
    left as they are: pymongo writes one outside int32 as int64, the width from_jsonable's
    Int64 gives it, and refuses one outside int64 either way."""
    dict_, list_ = dict, list
    # A dict's values are replaced through its keys and a list's through its positions: one
    # loop for both (assigning an existing key does not change the dict's size).
    stack: list[tuple[Any, Iterator[tuple[Any, Any]]]] = [(doc, iter(doc.items()))]
    while stack:
        container, items = stack[-1]
        for key, value in items:
            t = type(value)
            if t is dict_:
                if value:
                    for first in value:  # noqa: B007  (the first key)
                        break
                    if first[:1] == "$":
                        if first == "$document":
                            value = container[key] = _document_of(value)
                        else:
                            container[key] = _from_tag(value)
                            continue
                stack.append((value, iter(value.items())))
                break
            if t is list_:
                stack.append((value, enumerate(value)))
                break
        else:
            stack.pop()
