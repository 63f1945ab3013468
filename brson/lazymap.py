"""A mapping whose keys are known up front and whose values are made on first lookup.

Why: a package's assets (read and checked from the zip) and the CLI's commands (a module
imported and a click command built) are costly to make and often never asked for; listing
or testing a key must not make its value."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TypeVar

V = TypeVar("V")


class LazyMapping(Mapping[str, V]):
    """``names`` -> the value :meth:`_make` gives, made once per name and kept."""

    def __init__(self, names: Iterable[str]) -> None:
        self._names = dict.fromkeys(names)  # an ordered set
        self._made: dict[str, V] = {}

    def _make(self, name: str) -> V:
        """The value of ``name``, one of the names; raise KeyError when it has none."""
        raise NotImplementedError

    def __getitem__(self, name: str) -> V:
        if name not in self._made:
            if name not in self._names:
                raise KeyError(name)
            self._made[name] = self._make(name)
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names
