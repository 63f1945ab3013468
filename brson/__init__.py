"""brson: read, write, validate, extract and convert Resonite data-tree archives.

Public API: :func:`load`, :func:`loads`, :func:`dump`, :func:`dumps`, the model classes
(:class:`DataTree`, :class:`Slot`, :class:`Component`, :class:`Member`, :class:`TypeName`),
and :class:`BrsonError` with its subclasses.

The names are imported on first use (PEP 562): ``import brson`` alone, which ``brson
--version`` and every tool that only wants the version pay, stays a few milliseconds instead
of loading pydantic, the model and the operations (~190 ms of CPU).  ``from brson import X``
and ``brson.X`` work as before; type checkers read the imports below.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from brson.api import dump, dumps, load, loads
    from brson.codecs import Codec
    from brson.container import Container
    from brson.errors import (
        BrsonError,
        CodecError,
        ContainerError,
        DocumentError,
        GraphError,
        LimitError,
        ModelError,
        PackageError,
        SelectorError,
        VariantError,
    )
    from brson.fileio import FileError
    from brson.model.component import Component
    from brson.model.member import Member
    from brson.model.slot import Slot
    from brson.model.tree import DataTree, IdRef
    from brson.model.typename import TypeName

__version__ = "0.1.0"

#: Each public name and the module that defines it.
_EXPORTS = {
    "BrsonError": "brson.errors",
    "Codec": "brson.codecs",
    "CodecError": "brson.errors",
    "Component": "brson.model.component",
    "Container": "brson.container",
    "ContainerError": "brson.errors",
    "DataTree": "brson.model.tree",
    "DocumentError": "brson.errors",
    "FileError": "brson.fileio",
    "GraphError": "brson.errors",
    "IdRef": "brson.model.tree",
    "LimitError": "brson.errors",
    "Member": "brson.model.member",
    "ModelError": "brson.errors",
    "PackageError": "brson.errors",
    "SelectorError": "brson.errors",
    "Slot": "brson.model.slot",
    "TypeName": "brson.model.typename",
    "VariantError": "brson.errors",
    "dump": "brson.api",
    "dumps": "brson.api",
    "load": "brson.api",
    "loads": "brson.api",
}

__all__ = [
    "BrsonError",
    "Codec",
    "CodecError",
    "Component",
    "Container",
    "ContainerError",
    "DataTree",
    "DocumentError",
    "FileError",
    "GraphError",
    "IdRef",
    "LimitError",
    "Member",
    "ModelError",
    "PackageError",
    "SelectorError",
    "Slot",
    "TypeName",
    "VariantError",
    "dump",
    "dumps",
    "load",
    "loads",
]


def __getattr__(name: str) -> Any:
    """A public name, imported now and kept; or a subpackage (``brson.ops``), which the eager
    imports used to leave as an attribute after ``import brson``."""
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if not name.startswith("_"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
