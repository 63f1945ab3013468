"""Godot's binary Variant format (``var_to_bytes`` / ``bytes_to_var``), Godot 3.x and 4.x.

The encoder reproduces the engine byte for byte, the decoder accepts what the engine accepts;
both follow ``core/io/marshalls.cpp`` of Godot 3.2.3 and 4.6.3 and are checked against the real
engines in ``tests/godot``.  The choices that are not obvious from the format, and why:

* Width: INT is int32 unless the value needs 64 bits, FLOAT is float32 whenever the float32
  round trip is exact (so NaN is always 64-bit and ±inf 32-bit).  That is the engine's rule and
  the only way to be byte-identical with it.  Math types are float32 (``real_t``) and overflow
  to ±inf exactly as the engine's cast does, so values read from 64-bit fields re-encode.
* Both directions are iterative with an explicit stack, so the engine's nesting limit (1024,
  ``Variant::MAX_RECURSION_DEPTH``) is reachable without touching Python's recursion limit.
* Every count read from the data is checked against the bytes that remain *before* anything is
  allocated: a 4-byte header may claim two billion elements.
* Strings: the engine skips a leading UTF-8 byte-order mark and stops at the first NUL when it
  decodes, so such strings would not survive a trip through Godot; the encoder refuses them
  instead of producing bytes that decode to something else.
* ``loads`` refuses trailing bytes (a Python API should not silently ignore garbage); the engine's
  ``bytes_to_var`` ignores them, which is what :func:`loads_prefix` offers.

Everything the codec refuses is a :class:`~brson.errors.VariantError` carrying the byte offset
(decoding) or the value path (encoding).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any, Final

from brson.errors import VariantError
from brson.godot import values as gv
from brson.godot.encode import dumps
from brson.godot.values import VariantType as T
from brson.godot.wire import (
    COUNT_MASK,
    ENCODED_OBJECT_AS_ID,
    FLAG_64,
    FLAG_OBJECT_AS_ID,
    FROM_GODOT3,
    FROM_GODOT4,
    I32,
    INT_TYPES,
    KIND_BUILTIN,
    KIND_CLASS_NAME,
    KIND_MASK,
    KIND_NONE,
    MAX_DEPTH,
    MAX_KEYS_PER_HASH,
    NODEPATH_ABSOLUTE,
    NODEPATH_NEW_FORMAT,
    NODEPATH_OBSOLETE_PROPERTY,
    PACKED_TYPES,
    REAL_TYPES,
    TYPE_MASK,
    TYPED_ARRAY_SHIFT,
    TYPED_DICT_KEY_SHIFT,
    TYPED_DICT_VALUE_SHIFT,
    U32,
    U64,
    UTF8_BOM,
    check_version,
    script_ok,
    short_repr,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_KEYS_PER_HASH",
    "dumps",
    "loads",
    "loads_prefix",
]

# --- decoding ---------------------------------------------------------------------------------

_UNTYPED: Final = gv.ContainerType()
_F_ARRAY: Final = 0
_F_DICT: Final = 1
_F_OBJECT: Final = 2


class _Frame:
    """A container being filled while its children are decoded."""

    __slots__ = (
        "class_name",
        "ctype",
        "frozen",
        "has_key",
        "hashes",
        "items",
        "key",
        "keymap",
        "kind",
        "remaining",
        "vtype",
    )

    def __init__(self, kind: int, remaining: int, frozen: bool) -> None:
        self.kind = kind
        self.remaining = remaining
        self.frozen = frozen
        self.items: Any = None
        self.key: Any = None
        self.has_key = False
        self.keymap: dict[Any, Any] | None = None
        #: Keys seen per hash, for keys other than strings (whose hashes cannot be made to collide).
        self.hashes: dict[int, int] | None = None
        self.ctype: gv.ContainerType | None = None
        self.vtype: gv.ContainerType | None = None
        self.class_name = ""


def _same_godot_key(a: Any, b: Any) -> bool:
    """Whether two Python-equal keys are also the same Godot key (1, 1.0 and True are not).

    Iterative, because keys may nest as deep as the data.
    """
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, float):
            if not (x == y or (math.isnan(x) and math.isnan(y))):
                return False
        elif isinstance(x, tuple):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif isinstance(x, Mapping):
            if len(x) != len(y):
                return False
            pending.extend(zip(x.keys(), y.keys(), strict=True))
            pending.extend(zip(x.values(), y.values(), strict=True))
        elif is_dataclass(x):
            pending.extend((getattr(x, f.name), getattr(y, f.name)) for f in fields(x))
        elif x != y:
            return False
    return True


class _Decoder:
    """One decode pass over ``data`` starting at ``pos``; ``run`` returns the value and end."""

    def __init__(self, data: bytes, pos: int, godot4: bool, allow_objects: bool) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data)
        self.godot4 = godot4
        self.allow_objects = allow_objects
        self.ids = FROM_GODOT4 if godot4 else FROM_GODOT3

    def fail(self, message: str, offset: int | None = None) -> VariantError:
        return VariantError(message, offset=self.pos if offset is None else offset)

    def need(self, size: int, what: str) -> None:
        if size > self.end - self.pos:
            have = self.end - self.pos
            raise self.fail(f"truncated {what}: needs {size} bytes, {have} left")

    def u32(self, what: str) -> int:
        self.need(4, what)
        value: int = U32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return value

    def i32(self, what: str) -> int:
        self.need(4, what)
        value: int = I32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return value

    def u64(self, what: str) -> int:
        self.need(8, what)
        value: int = U64.unpack_from(self.data, self.pos)[0]
        self.pos += 8
        return value

    def unpack(self, code: str, count: int, size: int, what: str) -> tuple[Any, ...]:
        self.need(count * size, what)
        values = struct.unpack_from(f"<{count}{code}", self.data, self.pos)
        self.pos += count * size
        return values

    def string(self, what: str = "string") -> str:
        start = self.pos
        length = self.i32(f"{what} length")
        if length < 0:
            raise self.fail(f"negative {what} length {length}", start)
        self.need(length + (-length % 4), what)
        raw = self.data[self.pos : self.pos + length]
        self.pos += length + (-length % 4)
        # The engine's UTF-8 parser skips a BOM and stops at the first NUL.
        if raw.startswith(UTF8_BOM):
            raw = raw[3:]
        nul = raw.find(b"\x00")
        if nul >= 0:
            raw = raw[:nul]
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.fail(f"{what} is not valid UTF-8 ({exc.reason})", start + 4) from None

    def count(self, raw: int, min_size: int, what: str, start: int) -> int:
        """Refuse counts the remaining bytes cannot hold before anything is allocated."""
        if raw < 0:
            raise self.fail(f"negative {what} count {raw}", start)
        if raw * min_size > self.end - self.pos:
            raise self.fail(
                f"{what} count {raw} needs at least {raw * min_size} bytes, "
                f"{self.end - self.pos} left",
                start,
            )
        return raw

    def container_type(self, kind: int, what: str) -> gv.ContainerType:
        start = self.pos
        if kind == KIND_NONE:
            return _UNTYPED
        if kind == KIND_BUILTIN:
            builtin = self.i32(f"{what} type")
            if not 0 <= builtin < len(T):
                raise self.fail(f"{what} type id {builtin} is not a Variant type", start)
            if builtin == T.OBJECT and not self.allow_objects:
                # What the engine does; it makes re-encoding write the class-name kind as it does.
                return gv.ContainerType.of_class(ENCODED_OBJECT_AS_ID)
            return gv.ContainerType(builtin)
        text = self.string(f"{what} type")
        if kind == KIND_CLASS_NAME:
            return gv.ContainerType.of_class(text)
        if self.allow_objects and not text.startswith("res://"):
            raise self.fail(f"{what} script type {text!r} is not a res:// path", start)
        return gv.ContainerType(T.OBJECT, script=text)

    # Driver -----------------------------------------------------------------------------------

    def run(self) -> tuple[Any, int]:
        stack: list[_Frame] = []
        while True:
            top = stack[-1] if stack else None
            if top is not None and top.kind == _F_OBJECT:
                top.key = self.string("property name")
            if len(stack) > MAX_DEPTH:
                raise self.fail(f"nesting deeper than {MAX_DEPTH} levels")
            frozen = top is not None and (top.frozen or (top.kind == _F_DICT and not top.has_key))
            value, frame = self.one(frozen)
            if frame is not None:
                stack.append(frame)
                continue
            while stack:
                top = stack[-1]
                if top.kind == _F_ARRAY:
                    top.items.append(value)
                elif top.kind == _F_DICT:
                    if not top.has_key:
                        top.key, top.has_key = value, True
                        break
                    self.insert(top, value)
                    top.has_key = False
                else:
                    if self.godot4 and top.key == "script" and not script_ok(value):
                        raise self.fail("object script property is not a res:// path")
                    top.items.append((top.key, value))
                top.remaining -= 1
                if top.remaining > 0:
                    break
                stack.pop()
                value = self.finish(top)
            else:
                return value, self.pos

    def insert(self, frame: _Frame, value: Any) -> None:
        key, items = frame.key, frame.items
        try:
            if type(key) is not str:  # str hashes are keyed (SipHash): no chains to build
                self.count_hash(frame, hash(key))  # before the dict compares along a chain
            present = key in items
        except TypeError:  # pragma: no cover - keys are frozen, this is a safety net
            raise self.fail(f"unhashable dictionary key {type(key).__name__}") from None
        if present:
            if frame.keymap is None:
                frame.keymap = {k: k for k in items}
            if not _same_godot_key(frame.keymap[key], key):
                raise self.fail(
                    f"dictionary keys {short_repr(frame.keymap[key])} and {short_repr(key)} "
                    "are distinct in Godot "
                    "but equal in Python"
                )
        elif frame.keymap is not None:
            frame.keymap[key] = key
        items[key] = value  # a repeated key overwrites in place, as Dictionary::operator[] does

    def count_hash(self, frame: _Frame, key_hash: int) -> None:
        hashes = frame.hashes
        if hashes is None:
            hashes = frame.hashes = {}
        seen = hashes[key_hash] = hashes.get(key_hash, 0) + 1
        if seen > MAX_KEYS_PER_HASH:
            raise self.fail(
                f"dictionary has more than {MAX_KEYS_PER_HASH} keys of one hash "
                "(keys built to collide); refused"
            )

    def finish(self, frame: _Frame) -> Any:
        if frame.kind == _F_ARRAY:
            if frame.ctype is not None:
                return gv.TypedArray(frame.ctype, frame.items)
            return tuple(frame.items) if frame.frozen else frame.items
        if frame.kind == _F_DICT:
            entries = gv.FrozenDict(frame.items) if frame.frozen else frame.items
            if frame.ctype is not None and frame.vtype is not None:
                return gv.TypedDictionary(frame.ctype, frame.vtype, entries)
            return entries
        return gv.Object(frame.class_name, frame.items)

    def one(self, frozen: bool) -> tuple[Any, _Frame | None]:
        """Decode one value, or open a container and return its frame.

        The common kinds come first; this is the decoder's hot path.
        """
        start = self.pos
        if self.end - start < 4:
            raise self.fail(f"truncated header: needs 4 bytes, {self.end - start} left")
        header: int = U32.unpack_from(self.data, start)[0]
        self.pos = start + 4
        tid = header & TYPE_MASK
        kind = self.ids.get(tid)
        if kind is None:
            version = 4 if self.godot4 else 3
            raise self.fail(f"unknown Variant type id {tid} for Godot {version}", start)
        if kind is T.NIL:
            return None, None
        if kind is T.INT:
            if header & FLAG_64:
                return self.unpack("q", 1, 8, "int64")[0], None
            return self.i32("int32"), None
        if kind is T.FLOAT:
            if header & FLAG_64:
                return self.unpack("d", 1, 8, "float64")[0], None
            return self.unpack("f", 1, 4, "float32")[0], None
        if kind is T.STRING:
            return self.string(), None
        if kind is T.ARRAY:
            return self.array(header, frozen, start)
        if kind is T.DICTIONARY:
            return self.dictionary(header, frozen, start)
        if kind is T.BOOL:
            return self.u32("bool") != 0, None
        real = REAL_TYPES.get(kind)
        if real is not None:
            _, n, _, build = real
            if self.godot4 and header & FLAG_64:
                return build(self.unpack("d", n, 8, kind.name)), None
            return build(self.unpack("f", n, 4, kind.name)), None
        ints = INT_TYPES.get(kind)
        if ints is not None:
            _, n, _, build_i = ints
            return build_i(self.unpack("i", n, 4, kind.name)), None
        if kind is T.COLOR:
            return gv.Color(*self.unpack("f", 4, 4, "Color")), None
        if kind is T.STRING_NAME:
            return gv.StringName(self.string()), None
        if kind is T.NODE_PATH:
            return self.node_path(start), None
        if kind is T.RID:
            return gv.RID(self.u64("RID") if self.godot4 else 0), None
        if kind is T.OBJECT:
            return self.object_(header, frozen, start)
        if kind is T.CALLABLE:
            return gv.Callable(), None
        if kind is T.SIGNAL:
            name = self.string("signal name")
            return gv.Signal(name, self.u64("signal object id")), None
        if kind is T.PACKED_BYTE_ARRAY:
            size = self.i32("byte array size")
            if size < 0 or size > self.end - self.pos:
                raise self.fail(
                    f"byte array size {size} exceeds the {self.end - self.pos} bytes left", start
                )
            data = bytes(self.data[self.pos : self.pos + size])
            # The engine does not require the pad after the last byte array in the buffer.
            self.pos = min(self.pos + size + (-size % 4), self.end)
            return data, None
        if kind is T.PACKED_STRING_ARRAY:
            raw = self.i32("string array size")
            # A negative count is an empty array to the engine (its loop never runs).
            n = self.count(max(raw, 0), 4, "string array", start)
            return gv.PackedStringArray(
                [self.string("string array element") for _ in range(n)]
            ), None
        if kind in PACKED_TYPES:
            return self.packed(kind, bool(self.godot4 and header & FLAG_64), start), None
        raise self.fail(f"no decoder for {kind.name}", start)  # pragma: no cover

    def node_path(self, start: int) -> gv.NodePath:
        first = self.u32("NodePath name count")
        if not first & NODEPATH_NEW_FORMAT:
            raise self.fail("NodePath in the old string format, which the engine refuses", start)
        self.need(8, "NodePath header")
        names = first & COUNT_MASK
        subnames = self.u32("NodePath subname count")
        flags = self.u32("NodePath flags")
        if flags & NODEPATH_OBSOLETE_PROPERTY:
            subnames += 1
        total = (names + subnames) & 0xFFFFFFFF  # uint32 arithmetic, as in the engine
        self.count(total, 4, "NodePath string", start)
        parts = [self.string("NodePath name") for _ in range(total)]
        return gv.NodePath(parts[:names], parts[names:], bool(flags & NODEPATH_ABSOLUTE))

    def object_(self, header: int, frozen: bool, start: int) -> tuple[Any, _Frame | None]:
        if header & FLAG_OBJECT_AS_ID:
            return gv.ObjectID(self.u64("object id")), None
        if not self.allow_objects:
            raise self.fail("full object data is unauthorized without allow_objects=True", start)
        class_name = self.string("object class name")
        if not class_name:
            return gv.Object(), None
        raw = self.i32("object property count")
        # A negative count means no properties to the engine (its loop never runs).
        n = self.count(max(raw, 0), 8, "object property", start)
        if n == 0:
            return gv.Object(class_name), None
        frame = _Frame(_F_OBJECT, n, frozen)
        frame.items = []
        frame.class_name = class_name
        return None, frame

    def array(self, header: int, frozen: bool, start: int) -> tuple[Any, _Frame | None]:
        ctype = None
        if self.godot4:
            ctype = self.container_type((header >> TYPED_ARRAY_SHIFT) & KIND_MASK, "array element")
            if not ctype.is_typed:
                ctype = None
        n = self.count(self.u32("array size") & COUNT_MASK, 4, "array element", start)
        frame = _Frame(_F_ARRAY, n, frozen)
        frame.items = []
        frame.ctype = ctype
        if n == 0:
            return self.finish(frame), None
        return None, frame

    def dictionary(self, header: int, frozen: bool, start: int) -> tuple[Any, _Frame | None]:
        ktype = vtype = None
        if self.godot4:
            ktype = self.container_type((header >> TYPED_DICT_KEY_SHIFT) & KIND_MASK, "key")
            vtype = self.container_type((header >> TYPED_DICT_VALUE_SHIFT) & KIND_MASK, "value")
            if not ktype.is_typed and not vtype.is_typed:
                ktype = vtype = None
        n = self.count(self.u32("dictionary size") & COUNT_MASK, 8, "dictionary entry", start)
        frame = _Frame(_F_DICT, n, frozen)
        frame.items = {}
        frame.ctype, frame.vtype = ktype, vtype
        if n == 0:
            return self.finish(frame), None
        return None, frame

    def packed(self, kind: T, wide: bool, start: int) -> Any:
        cls, width, code, real_sized, _, build = PACKED_TYPES[kind]
        size = 8 if code in "qd" else 4
        if real_sized and wide:
            code, size = "d", 8
        n = self.count(self.i32(f"{kind.name} size"), width * size, kind.name, start)
        flat = self.unpack(code, n * width, size, kind.name)
        if width == 1:
            return cls(flat)
        return cls([build(flat, i) for i in range(0, n * width, width)])


def loads_prefix(
    data: bytes | bytearray | memoryview, godot: int = 4, allow_objects: bool = False
) -> tuple[Any, int]:
    """Decode the Variant at the start of ``data``; returns (value, bytes used).

    This is the engine's ``bytes_to_var`` behaviour, which ignores whatever follows the value;
    use it to read values laid end to end.
    """
    godot4 = check_version(godot)
    if not isinstance(data, bytes):
        try:
            data = bytes(data)
        except TypeError as exc:
            raise VariantError(f"cannot read Variant data from {type(data).__name__}") from exc
    decoder = _Decoder(data, 0, godot4, bool(allow_objects))
    try:
        return decoder.run()
    except (struct.error, OverflowError, MemoryError, RecursionError) as exc:  # pragma: no cover
        # Bounds are checked before every read; this only guards against a bug becoming a crash.
        raise VariantError(f"internal decoding error: {exc!r}", offset=decoder.pos) from exc


def loads(data: bytes | bytearray | memoryview, godot: int = 4, allow_objects: bool = False) -> Any:
    """Decode exactly one Variant, as ``bytes_to_var`` (4.x) / ``bytes2var`` (3.x) would.

    Unlike the engine, trailing bytes are an error here (see :func:`loads_prefix`).
    ``allow_objects`` is the ``bytes_to_var_with_objects`` switch: without it, full objects
    are refused as the engine refuses them (ERR_UNAUTHORIZED).
    """
    value, used = loads_prefix(data, godot, allow_objects)
    size = len(data) if not isinstance(data, memoryview) else data.nbytes
    if used != size:
        raise VariantError(
            f"{size - used} trailing bytes after the value (loads_prefix ignores them)",
            offset=used,
        )
    return value
