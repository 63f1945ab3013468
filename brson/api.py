"""The public entry points: ``load``/``loads`` read an archive, ``dump``/``dumps`` write one."""

from __future__ import annotations

import os
from typing import Any

from brson.codecs import Codec, limits
from brson.container import codec_for_name, frame, is_package_name, pack, unpack
from brson.document import bson as bson_doc
from brson.errors import BrsonError, ContainerError, ModelError
from brson.fileio import read_bytes, write_atomic
from brson.model.tree import DataTree


def loads(
    data: bytes, *, name: str | None = None, max_size: int = limits.DEFAULT_MAX_SIZE
) -> DataTree:
    """Read an archive from bytes.  ``name`` (a file name) lets the extension pick the codec
    of a headerless legacy file, as the engine does."""
    try:
        container, bson_bytes = unpack(data, name, max_size)
        bson_doc.check_framing(bson_bytes)
        tree = DataTree(bson_bytes, container, name)
        tree._original = (memoryview(data)[container.header_size :], container)
        if "Object" not in tree:
            raise ModelError("the document has no Object (the root slot)")
    except BrsonError as exc:
        if name:
            exc.in_file(name)
        raise
    return tree


def load(path: str | os.PathLike[str], *, max_size: int = limits.DEFAULT_MAX_SIZE) -> DataTree:
    """Read an archive file (``.brson``, ``.7zbson``, ``.lz4bson``, ``.bson``, or the main
    tree of a ``.resonitepackage``)."""
    name = os.fspath(path)
    if is_package_name(name):
        from brson import package  # beside the tree; imported when needed

        tree: DataTree = package.load_package(name, max_size=max_size).tree
        return tree
    return loads(read_bytes(name), name=name, max_size=max_size)


def to_bson(obj: DataTree | dict[str, Any] | bytes) -> bytes:
    if isinstance(obj, DataTree):
        return obj.to_bson()
    if isinstance(obj, bytes | bytearray):
        bson_doc.check_framing(obj)
        return bytes(obj)
    if isinstance(obj, dict):
        return bson_doc.encode(obj)
    raise TypeError(f"cannot write a {type(obj).__name__} as an archive")


def dumps(
    obj: DataTree | dict[str, Any] | bytes,
    codec: str | Codec | None = None,
    *,
    legacy: bool = False,
) -> bytes:
    """Archive bytes.  ``codec`` defaults to the tree's own codec, else Brotli.  An unmodified
    tree written with its own codec reuses its original compressed payload (exact bytes)."""
    chosen = _choose_codec(obj, codec)
    if isinstance(obj, DataTree) and not obj.modified:
        original = getattr(obj, "_original", None)
        if original is not None and original[1].codec is chosen:
            return frame(bytes(original[0]), chosen, legacy)
    return pack(to_bson(obj), chosen, legacy)


def dump(
    obj: DataTree | dict[str, Any] | bytes,
    path: str | os.PathLike[str],
    codec: str | Codec | None = None,
    *,
    legacy: bool = False,
) -> None:
    """Write an archive atomically; the codec follows the extension unless ``codec`` is given."""
    name = os.fspath(path)
    if codec is None:
        codec = codec_for_name(name)
        if codec is None and not isinstance(obj, DataTree):
            raise ContainerError(
                "cannot tell the codec from the extension (use .brson, .7zbson, .lz4bson, "
                ".bson or pass codec=...)",
                file=name,
            )
    try:
        data = dumps(obj, codec, legacy=legacy)
    except BrsonError as exc:
        raise exc.in_file(name) from None
    write_atomic(name, data)


def _choose_codec(obj: object, codec: str | Codec | None) -> Codec:
    if codec is not None:
        try:
            return Codec.parse(codec)
        except ValueError as exc:
            raise ContainerError(str(exc)) from None
    if isinstance(obj, DataTree) and obj.container is not None:
        return obj.container.codec
    return Codec.BROTLI


__all__ = ["BrsonError", "Codec", "codec_for_name", "dump", "dumps", "load", "loads", "to_bson"]
