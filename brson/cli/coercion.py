"""typer's conversion of command-line values, without pydantic for the plain ones.

typer (since it vendors click) converts every option and argument value through a pydantic
``TypeAdapter``, built when the parameter is first parsed: importing pydantic and building the
adapters cost ~0.25 s of CPU on every ``brson`` run, more than most commands' own work, to
turn ``"a.brson"`` into ``Path("a.brson")``.  :func:`install` has typer build a
:class:`Conversion` for each parameter instead: it converts a text, path, integer or enum value
itself when the result is sure to be what typer's conversion gives, and hands any other value
(one typer would reject, with its message; a type not handled here) to typer's own conversion,
built then.  So the values and the error messages are typer's in every case
(tests/cli/test_coercion.py compares them).
"""

from __future__ import annotations

import enum
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer.core

try:
    from typer import _coercion
    from typer._param_types import coerce_cli_choice
except ImportError:  # a typer that converts with click, without pydantic: nothing to do
    _coercion = None  # type: ignore[assignment]

#: Integers as pydantic reads them too: no sign, spaces, ``_`` or leading zero (those, and
#: anything else, are typer's), and 18 digits at most.
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
#: A value :func:`_convert` leaves to typer.
_TYPERS = object()


def install() -> None:
    """Have typer build :class:`Conversion` conversions from now on (for parameters not parsed
    yet); a typer without pydantic conversion is left as it is."""
    if _coercion is None:
        return
    if getattr(typer.core, "build_runtime_param", None) is _coercion.build_runtime_param:
        # typer.core calls the name it imported; that name is the only hook there is.
        setattr(typer.core, "build_runtime_param", Conversion.of)  # noqa: B010


if _coercion is not None:

    @dataclass(frozen=True)
    class Conversion(_coercion.RuntimeParam):
        """One parameter's conversion: the plain cases here, the rest by typer's own."""

        descriptor: _coercion.TypeDescriptor

        @classmethod
        def of(cls, descriptor: _coercion.TypeDescriptor) -> _coercion.RuntimeParam:
            if descriptor.file_annotation is not None:  # typer opens files: its own
                return _coercion.build_runtime_param(descriptor)
            return cls(descriptor.parameter_info, descriptor.annotation, descriptor)

        @functools.cached_property
        def typers(self) -> _coercion.RuntimeParam:
            return _coercion.build_runtime_param(self.descriptor)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            result = _convert(self.annotation, self.parameter_info, value, ctx)
            if result is _TYPERS:
                return self.typers.coerce(value, param=param, ctx=ctx)
            return result


def _convert(annotation: Any, info: Any, value: Any, ctx: Any) -> Any:
    """``value`` as typer's pydantic adapter for ``annotation`` and the parameter's ``info``
    would return it (following typer's order of cases), or :data:`_TYPERS` when not sure."""
    if info.parser is not None:
        return _TYPERS
    if getattr(annotation, "__origin__", None) is list:
        if not isinstance(value, (list, tuple)):
            return _TYPERS
        (item_type,) = annotation.__args__
        items = [_convert(item_type, info, item, ctx) for item in value]
        return _TYPERS if any(item is _TYPERS for item in items) else items
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        try:
            return coerce_cli_choice(
                value, choices=list(annotation), case_sensitive=info.case_sensitive, ctx=ctx
            )
        except ValueError:  # typer's message names the choices
            return _TYPERS
    if annotation is int:
        return _integer(info, value)
    if annotation is str:
        return value if type(value) is str else _TYPERS
    if annotation is Path:
        return _path(info, value)
    return _TYPERS


def _integer(info: Any, value: Any) -> Any:
    if type(value) is str and _INTEGER.fullmatch(value):
        number = int(value)
    elif type(value) is int:
        number = value
    else:
        return _TYPERS
    if info.clamp or (info.min is not None and number < info.min):
        return _TYPERS
    return _TYPERS if info.max is not None and number > info.max else number


def _path(info: Any, value: Any) -> Any:
    """typer's checks for a path that may be anything (file, folder, missing); a readable
    one, or one that is not there, is the plain case."""
    plain = info.file_okay and info.dir_okay and info.readable and info.path_type is None
    options = info.exists or info.writable or info.resolve_path or info.allow_dash
    if not plain or options or not isinstance(value, (str, Path)):
        return _TYPERS
    path = value if isinstance(value, Path) else Path(value)
    try:
        os.stat(path)
    except OSError:
        return path
    except ValueError:  # a NUL in the name: typer reports it
        return _TYPERS
    return path if os.access(path, os.R_OK) else _TYPERS
