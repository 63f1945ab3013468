"""One exception family for everything brson refuses.

Every error raised on bad input is a :class:`BrsonError`; callers (and the CLI) can rely on
nothing else escaping.  Each subclass names the layer where the fact was known, and carries the
context a user needs to act: the file, the byte offset, or the slot path.  The file name is
often only known further up (``load`` knows it, ``loads`` does not), so :meth:`BrsonError.in_file`
attaches it on the way out without losing the original context.
"""

from __future__ import annotations

#: How much of a slot path and of a message an error or a report shows.  Paths grow with
#: depth times name length: a 19 KB tree of 2,000 levels of 1,000-character names printed
#: gigabytes of findings; bounded, output grows with what is reported.
PATH_LIMIT = 1000
MESSAGE_LIMIT = 4000


def bounded(text: str, limit: int) -> str:
    """``text`` while it is at most ``limit`` characters, else its head and tail around ``…``
    (the tail is the more telling end of a path)."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 4]}…{text[-(limit * 3 // 4) :]}"


class BrsonError(Exception):
    """Base of every error brson raises on bad input."""

    layer = "brson"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        offset: int | None = None,
        path: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.offset = offset
        self.path = path
        #: A field target as the user wrote it (``SLOT:COMPONENT.FIELD``), not a slot path.
        self.field = field

    def in_file(self, file: str) -> BrsonError:
        """Attach the file name if nothing more specific is known yet; returns self."""
        if self.file is None:
            self.file = file
        return self

    def __str__(self) -> str:
        where = []
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        if self.path is not None:
            where.append(f"slot {bounded(self.path, PATH_LIMIT)!r}")
        if self.field is not None:
            where.append(f"field {self.field!r}")
        location = f" at {', '.join(where)}" if where else ""
        prefix = f"{self.file}: " if self.file else ""
        return f"{prefix}{self.layer} error{location}: {bounded(self.message, MESSAGE_LIMIT)}"


class ContainerError(BrsonError):
    """The FrDT header or the legacy framing is wrong (magic, version, kind)."""

    layer = "container"


class CodecError(BrsonError):
    """Compressed data is corrupt or truncated."""

    layer = "codec"


class LimitError(CodecError):
    """Decompressed data would exceed the configured limit (a decompression bomb)."""

    layer = "limit"


class DocumentError(BrsonError):
    """The payload is not one well-formed BSON document (or JSON form of one)."""

    layer = "bson"


class ModelError(BrsonError):
    """The BSON document is not a data tree brson can model (shape, type table)."""

    layer = "model"


class GraphError(BrsonError):
    """The reference graph is broken (duplicate IDs, dangling or cyclic references)."""

    layer = "reference"


class SelectorError(BrsonError):
    """A slot selector matched nothing or more than one slot."""

    layer = "selector"


class FluxError(BrsonError):
    """A ProtoFlux view cannot be made (Graphviz's ``dot`` missing or failing for SVG)."""

    layer = "flux"


class PackageError(BrsonError):
    """A .resonitepackage zip is malformed or inconsistent."""

    layer = "package"


class VariantError(BrsonError):
    """Godot binary Variant data is malformed, or a value cannot be encoded."""

    layer = "godot"
