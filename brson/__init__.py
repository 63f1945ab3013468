"""brson: read, write, validate, extract and convert Resonite data-tree archives.

Public API: :func:`load`, :func:`loads`, :func:`dump`, :func:`dumps`, the model classes
(:class:`DataTree`, :class:`Slot`, :class:`Component`, :class:`Member`, :class:`TypeName`),
and :class:`BrsonError` with its subclasses.
"""

import brson.ops  # noqa: F401 -- installs the model's editing shortcuts (brson.model.editing)
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
from brson.model import Component, DataTree, IdRef, Member, Slot, TypeName

__version__ = "0.1.0"

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
