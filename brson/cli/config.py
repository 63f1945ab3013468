"""Settings for ``brson validate`` in ``pyproject.toml``, found as ruff finds its own.

The nearest ``pyproject.toml`` with a ``[tool.brson.validate]`` table, from the current
directory upward (a ``pyproject.toml`` without that table is passed over), or the file given
by ``--config``; ``--isolated`` reads none.  Options given on the command line replace the
setting of the same name.  Keys::

    [tool.brson.validate]
    select = ["BR"]            # rule codes or prefixes; default every rule
    ignore = ["BR403"]
    min-severity = "warning"   # info | warning | error
    max-findings = 200
    strict = true              # warnings fail the run too
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brson.errors import BrsonError

CONFIG_NAME = "pyproject.toml"
TABLE = ("tool", "brson", "validate")


class ConfigError(BrsonError):
    """A settings file that cannot be read or holds something brson does not know."""

    layer = "config"


@dataclass
class ValidateSettings:
    select: list[str] | None = None
    ignore: list[str] | None = None
    min_severity: str | None = None
    max_findings: int | None = None
    strict: bool | None = None
    #: The file the settings came from, None when none was read.
    source: Path | None = None
    given: set[str] = field(default_factory=set)


#: Key in the table -> (attribute, check of the value, what the value must be).
_KEYS: dict[str, tuple[str, Any, str]] = {
    "select": (
        "select",
        lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
        "a list of rule codes",
    ),
    "ignore": (
        "ignore",
        lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
        "a list of rule codes",
    ),
    "min-severity": (
        "min_severity",
        lambda v: v in ("info", "warning", "error"),
        '"info", "warning" or "error"',
    ),
    "max-findings": (
        "max_findings",
        lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
        "a whole number, 0 or more",
    ),
    "strict": ("strict", lambda v: isinstance(v, bool), "true or false"),
}


def _table(path: Path) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as handle:
            data: Any = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML ({exc})", file=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read ({exc.strerror})", file=str(path)) from None
    for key in TABLE:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    if not isinstance(data, dict):
        raise ConfigError("[tool.brson.validate] is not a table", file=str(path))
    return data


def find_config(start: Path | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` holding ``[tool.brson.validate]``, from ``start`` (the
    current directory) upward; None when there is none."""
    here = Path(os.path.abspath(start or Path.cwd()))
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file() and _table(candidate) is not None:
            return candidate
    return None


def load_settings(path: Path | None) -> ValidateSettings:
    """The settings in ``path`` (a ``pyproject.toml``; an explicit file without the table has
    no settings); unknown keys and wrong values are errors naming the file."""
    if path is None:
        return ValidateSettings()
    table = _table(path) or {}
    settings = ValidateSettings(source=path)
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(_KEYS)
            raise ConfigError(
                f"[tool.brson.validate] has no setting {key!r} (known: {known})", file=str(path)
            )
        attribute, valid, wanted = _KEYS[key]
        if not valid(value):
            raise ConfigError(
                f"[tool.brson.validate] {key} must be {wanted}, not {value!r}", file=str(path)
            )
        setattr(settings, attribute, value)
        settings.given.add(key)
    return settings
