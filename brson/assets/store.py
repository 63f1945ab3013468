"""Where an asset URL's bytes are: the package that carries the tree, or folders of files named
by hash (account backups, the engine's cache).

URL forms (stored in the tree with a leading ``@``): ``packdb:///<sha256>`` (an ``Assets/``
entry of the same package), ``resdb:///<sha256>[.ext]`` (the asset server; NeosVR wrote
``neosdb:///``; looked up locally by hash), ``local://<machine>/<name>`` (a file on the
machine that made the item; looked up locally by its last path part).  A file named by a
sha256 is used only if its bytes hash to that name, so a wrong or damaged file is never
exported as the asset.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from brson.codecs import limits
from brson.errors import BrsonError
from brson.fileio import read_bytes
from brson.package import PACKDB, Package, sha256_hex

RESDB = "resdb:///"
#: NeosVR's name for the same asset store (legacy files).
NEOSDB = "neosdb:///"
LOCAL = "local://"
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


@dataclass(frozen=True)
class AssetURL:
    scheme: str  # "packdb", "resdb" or "local"
    #: The hash (packdb, resdb) or the file name (local) without its extension.
    name: str
    ext: str = ""


def parse_url(url: object) -> AssetURL | None:
    """The parts of an asset URL, or None when the value is not one brson can resolve."""
    if not isinstance(url, str):
        return None
    text = url[1:] if url.startswith("@") and not url.startswith("@@") else url
    for prefix, scheme in ((PACKDB, "packdb"), (RESDB, "resdb"), (NEOSDB, "resdb")):
        if text.startswith(prefix):
            rest = text[len(prefix) :].split("?", 1)[0].split("#", 1)[0]
            stem, dot, ext = rest.partition(".")
            return AssetURL(scheme, stem.lower(), dot + ext) if stem else None
    if text.startswith(LOCAL):
        last = text[len(LOCAL) :].rstrip("/").rsplit("/", 1)[-1]
        stem, dot, ext = last.partition(".")
        return AssetURL("local", stem, dot + ext) if stem else None
    return None


class AssetStore:
    """Resolves asset URLs; every miss is remembered for the report, nothing raises."""

    def __init__(self, package: Package | None = None, dirs: Iterable[str | os.PathLike[str]] = ()):
        self.package = package
        self.dirs = [Path(d) for d in dirs]
        self._files: dict[str, Path] | None = None
        self.problems: list[str] = []

    def _index(self) -> dict[str, Path]:
        """File stem -> path over every folder (the first folder given wins a clash)."""
        if self._files is None:
            self._files = {}
            for folder in self.dirs:
                if not folder.is_dir():
                    self.problems.append(f"assets folder {folder} does not exist")
                    continue
                for entry in sorted(folder.rglob("*")):
                    if entry.is_file():
                        stem = entry.name.partition(".")[0]
                        self._files.setdefault(stem, entry)
                        self._files.setdefault(stem.lower(), entry)
        return self._files

    def get(self, url: object) -> bytes | None:
        """The asset's bytes, or None when it is not available here."""
        parsed = parse_url(url)
        if parsed is None:
            return None
        if parsed.scheme == "packdb" and self.package is not None:
            assets = self.package.assets
            if parsed.name in assets:
                try:
                    return assets[parsed.name]
                except (BrsonError, KeyError) as exc:
                    self.problems.append(f"{url}: {exc}")
                    return None
        path = self._index().get(parsed.name) if self.dirs else None
        if path is None:
            return None
        try:
            data = read_bytes(path, limits.DEFAULT_MAX_SIZE)
        except BrsonError as exc:
            self.problems.append(f"{url}: {exc}")
            return None
        if _SHA256.match(parsed.name) and sha256_hex(data) != parsed.name:
            self.problems.append(f"{path} does not hash to its name {parsed.name}; not used")
            return None
        return data
