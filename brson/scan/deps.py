"""The optional dependencies, imported when a scan or query runs (never at ``brson`` start-up:
pyarrow alone costs ~0.2 s, and the other commands need none of them)."""

from __future__ import annotations

import importlib
from types import ModuleType

from brson.errors import BrsonError


class ScanError(BrsonError):
    """The index cannot be written or read (locked, not an index, a dependency missing)."""

    layer = "scan"


#: Module -> the extra that installs it.
_EXTRAS = {
    "duckdb": "scan",
    "pyarrow": "scan",
    "pyarrow.parquet": "scan",
    "pyarrow.dataset": "scan",
    "dask": "dask",
    "dask.distributed": "dask",
}


def need(module: str) -> ModuleType:
    """``module``, or a one-line error naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        extra = _EXTRAS.get(module, "scan")
        raise ScanError(
            f"{module} is not installed; install it with: pip install 'brson[{extra}]'"
        ) from None
