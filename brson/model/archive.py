"""An archive's bytes to a data tree and back: the container layer's framing and codecs, the
document layer's framing check, the model's tree.

It lives here, below the package reader and the public API, because both read archives (a
package holds its main tree as an archive); ``brson.load``/``loads``/``dump``/``dumps`` are
this plus file names and packages.
"""

from __future__ import annotations

from typing import Any

from brson.codecs import Codec, limits
from brson.container import frame, pack, unpack
from brson.document import bsondoc, raw
from brson.errors import BrsonError, ContainerError, ModelError
from brson.model.tree import DataTree


def read_archive(
    data: bytes, name: str | None = None, max_size: int = limits.DEFAULT_MAX_SIZE
) -> DataTree:
    """The tree in an archive's bytes; ``name`` (a file name) picks the codec of a headerless
    legacy file by its extension, as the engine does, and is attached to errors."""
    try:
        container, bson_bytes = unpack(data, name, max_size)
        bsondoc.check_framing(bson_bytes)
        stored = memoryview(data)[container.header_size :]
        tree = DataTree(bson_bytes, container, name, stored=stored)
        if "Object" not in tree:
            raise ModelError("the document has no Object (the root slot)")
    except BrsonError as exc:
        if name:
            exc.in_file(name)
        raise
    return tree


def archive_bson(obj: DataTree | dict[str, Any] | bytes) -> bytes:
    """The BSON document an archive of ``obj`` holds."""
    if isinstance(obj, DataTree):
        return obj.to_bson()
    if isinstance(obj, bytes | bytearray):
        bsondoc.check_framing(obj)
        return bytes(obj)
    if isinstance(obj, dict):
        return bsondoc.encode(obj)
    raise TypeError(f"cannot write a {type(obj).__name__} as an archive")


def write_archive(
    obj: DataTree | dict[str, Any] | bytes, codec: str | Codec | None = None, legacy: bool = False
) -> bytes:
    """Archive bytes.  ``codec`` defaults to the tree's own codec, else Brotli.  An unmodified
    tree written with its own codec reuses its stored compressed payload: exact bytes, and no
    recompression (Brotli at the engine's settings is the slowest step of a write)."""
    chosen = choose_codec(obj, codec)
    data = archive_bson(obj)
    _check_written(obj, data)
    if isinstance(obj, DataTree) and not obj.modified:
        stored = obj.stored_payload
        if stored is not None and obj.container is not None and obj.container.codec is chosen:
            return frame(bytes(stored), chosen, legacy)
    return pack(data, chosen, legacy)


def _check_written(obj: object, data: bytes) -> None:
    """Refuse to write a document whose framing is broken anywhere.  Trees are read lazily and
    written by reusing their bytes (``convert``, ``renumber``, and every edit for the parts it
    did not touch), so a length that lies where the command never looked would be written
    back as it is: exit 0 and a file no reader accepts.  Every archive and package write
    comes here, so this is the one check.  An encoded dict is well formed by construction."""
    if isinstance(obj, dict):
        return
    try:
        raw.check_elements(data)
    except BrsonError as exc:
        source = obj.source if isinstance(obj, DataTree) else None
        if source:
            exc.in_file(source)
        raise


def choose_codec(obj: object, codec: str | Codec | None) -> Codec:
    if codec is not None:
        try:
            return Codec.parse(codec)
        except ValueError as exc:
            raise ContainerError(str(exc)) from None
    if isinstance(obj, DataTree) and obj.container is not None:
        return obj.container.codec
    return Codec.BROTLI
