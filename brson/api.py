"""The public entry points: ``load``/``loads`` read an archive, ``dump``/``dumps`` write one.

The archive work itself is :mod:`brson.model.archive` (the package reader needs it too); this
adds files, packages and the codec a file name implies.
"""

from __future__ import annotations

import os
from typing import Any

from brson.codecs import Codec, limits
from brson.container import codec_for_name, is_package_name
from brson.errors import BrsonError, ContainerError
from brson.fileio import read_bytes, write_atomic
from brson.model.archive import archive_bson, read_archive, write_archive
from brson.model.tree import DataTree


def loads(
    data: bytes, *, name: str | None = None, max_size: int = limits.DEFAULT_MAX_SIZE
) -> DataTree:
    """Read an archive from bytes.  ``name`` (a file name) lets the extension pick the codec
    of a headerless legacy file, as the engine does."""
    return read_archive(data, name, max_size)


def load(path: str | os.PathLike[str], *, max_size: int = limits.DEFAULT_MAX_SIZE) -> DataTree:
    """Read an archive file (``.brson``, ``.7zbson``, ``.lz4bson``, ``.bson``, or the main
    tree of a ``.resonitepackage``)."""
    name = os.fspath(path)
    if is_package_name(name):
        from brson import package  # beside the tree; imported when needed

        tree: DataTree = package.load_package(name, max_size=max_size).tree
        return tree
    return read_archive(read_bytes(name, max_size), name, max_size)


def to_bson(obj: DataTree | dict[str, Any] | bytes) -> bytes:
    """The BSON document an archive of ``obj`` would hold."""
    return archive_bson(obj)


def dumps(
    obj: DataTree | dict[str, Any] | bytes,
    codec: str | Codec | None = None,
    *,
    legacy: bool = False,
) -> bytes:
    """Archive bytes.  ``codec`` defaults to the tree's own codec, else Brotli.  An unmodified
    tree written with its own codec reuses its original compressed payload (exact bytes)."""
    return write_archive(obj, codec, legacy)


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


__all__ = ["BrsonError", "Codec", "codec_for_name", "dump", "dumps", "load", "loads", "to_bson"]
