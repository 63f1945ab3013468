"""The README's table of error types lists every BrsonError subclass, with its real layer."""

from __future__ import annotations

import importlib
import pkgutil
import re

import brson
from brson.errors import BrsonError

from .support import PROJECT_ROOT


def _all_error_classes() -> set[type[BrsonError]]:
    for info in pkgutil.walk_packages(brson.__path__, "brson."):
        importlib.import_module(info.name)
    found: set[type[BrsonError]] = {BrsonError}
    stack = [BrsonError]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub.__module__.startswith("brson") and sub not in found:
                found.add(sub)
                stack.append(sub)
    return found


def test_every_error_class_is_in_the_readme_table() -> None:
    text = (PROJECT_ROOT / "README.md").read_text()
    section = text.split("## Errors", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"\| `(\w+)`[^|]*\| `([\w-]+)` \|", line)
        if match:
            rows[match.group(1)] = match.group(2)
    for cls in _all_error_classes():
        assert cls.__name__ in rows, f"{cls.__name__} is missing from the README's error table"
        assert rows[cls.__name__] == cls.layer, (cls.__name__, rows[cls.__name__], cls.layer)
