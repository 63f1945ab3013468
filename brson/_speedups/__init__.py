"""brson's compiled accelerators: one C module per hot path, all in this package, all loaded
here and all switched off by one environment variable.

Each ``_<name>.c`` beside this file is an optional extension (CPython C API only, no
dependencies) built by ``pip install`` when a C compiler and Python's headers are present
(``setup.py`` builds every ``*.c`` here: the directory is the list), with its ``.pyi`` stub
shipped beside it.  Each answers exactly as a pure-Python function of the module that uses
it; that function stays the reference, the path of whatever C is unsure of, and the path of
every call when the extension is missing or ``BRSON_PURE_PYTHON`` is set:

- ``_rawc``: the BSON element indexer's byte loops and the scan for component ``Type``
  indices (:mod:`brson.document.raw`), the framing check before pymongo's decoder
  (:mod:`brson.document.framing`) and extract's holder writer (:mod:`brson.ops.extractbytes`);
- ``_idscanc``: the one-pass ID scan, its definition table and the table's lookups, and the
  references naming given IDs (:mod:`brson.model.ids.scan`);
- ``_spansc``: the walk that finds every component's byte span, and the components holding
  many offsets (:mod:`brson.model.spans`);
- ``_fieldsc``: validate's per-field loop (:mod:`brson.ops.validate.context`), its pass over
  the slot table and its read of ProtoFlux nodes (:mod:`brson.ops.validate.slotpass`, twin
  :func:`brson.flux.model.connectable`);
- ``_tscnc``: the Godot 3 and 4 metadata writer (:mod:`brson.godot.export`);
- ``_jsonformc``: the JSON form's renderer and number record (:mod:`brson.document.jsonform`);
- ``_formreadc``: the JSON form read back, its tags and number types restored in one walk
  (:mod:`brson.document.jsonform`, :mod:`brson.document.numberrecord`);
- ``_formstreamc``: the JSON form read straight into BSON, no parsed tree
  (:mod:`brson.document.formstream`).

``make sanitize`` builds them with AddressSanitizer and UndefinedBehaviorSanitizer and runs
their tests (scripts/sanitize.sh).

``BRSON_PURE_PYTHON`` set to anything but ``""`` or ``"0"`` forces every pure-Python path:
CI runs the tests of each accelerator both ways, and a user can rule out the C code when
chasing a bug.  It is read once, here, at import, so that one process never mixes the two.

This package sits in the lowest layer (it imports nothing of brson's), so that every layer
may use it.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

PURE_PYTHON: bool = os.environ.get("BRSON_PURE_PYTHON", "") not in ("", "0")


def built(name: str) -> ModuleType | None:
    """The extension ``brson._speedups.<name>`` whatever the switch says, or None when it was
    not built (the differential tests call both paths in one process)."""
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError:
        return None


def load(name: str) -> ModuleType | None:
    """The extension a module should use: None when ``BRSON_PURE_PYTHON`` is set or the
    extension was not built, and the caller runs its pure-Python path."""
    return None if PURE_PYTHON else built(name)
