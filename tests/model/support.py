"""Real samples for the model tests, and an independent view of them.

``raw_document`` decodes a sample with the container layer and pymongo only; the walkers here
read the decoded dicts directly, so a test comparing them with the model checks the model
against the format, not against itself.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bson

from brson.container import unpack

if TYPE_CHECKING:
    from brson.model import Component, DataTree, Slot
    from brson.model.node import Node

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
FIXTURES = PROJECT_ROOT / "fixtures"
ARCHIVES = (".brson", ".7zbson", ".lz4bson", ".bson")
STANDIN = "orange3134_loading_standin.brson"
LEGACY = "redx_5ce7cdf5.7zbson"
GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")


def sample_files() -> list[Path]:
    """Every real file: archives and packages in the shared samples, and fixtures/real (the
    copies there that the shared samples hold byte for byte are the same case, run once)."""
    found = sorted(p for p in SAMPLES.glob("*") if p.suffix in (*ARCHIVES, ".resonitepackage"))
    for path in sorted((FIXTURES / "real").glob("*")):
        shared = SAMPLES / path.name
        if not (shared.is_file() and shared.read_bytes() == path.read_bytes()):
            found.append(path)
    return found


def archive_files() -> list[Path]:
    return [p for p in sample_files() if p.suffix in ARCHIVES]


def ids_of(paths: list[Path]) -> list[str]:
    return [f"{p.parent.name}/{p.name}" for p in paths]


def sample(name: str) -> Path:
    import pytest

    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"real sample {name} not present")
    return path


def stored_bson(path: Path) -> bytes:
    """The BSON of an archive, or of a package's main tree (found through R-Main.record)."""
    if path.suffix == ".resonitepackage":
        with zipfile.ZipFile(path) as archive:
            record = json.loads(archive.read("R-Main.record"))
            name = record["assetUri"].rpartition("/")[2]
            return unpack(archive.read(f"Assets/{name}"), name)[1]
    return unpack(path.read_bytes(), path.name)[1]


def raw_document(path: Path) -> dict[str, Any]:
    return bson.decode(stored_bson(path))


def raw_slots(doc: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(slot, parent) depth-first, parents first, children in file order."""
    stack: list[tuple[dict[str, Any], dict[str, Any] | None]] = [(doc["Object"], None)]
    while stack:
        slot, parent = stack.pop()
        yield slot, parent
        stack.extend((child, slot) for child in reversed(slot.get("Children", [])))


def raw_components(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every component on every slot, then the root Assets."""
    out = [c for slot, _ in raw_slots(doc) for c in slot["Components"]["Data"]]
    return out + list(doc.get("Assets", []))


def is_guid(value: object) -> bool:
    return isinstance(value, str) and GUID.match(value) is not None


def standin_visual() -> tuple[DataTree, Slot, Component]:
    """The loading stand-in's tree, its ``Visual`` slot and that slot's MeshRenderer."""
    import brson
    from brson.model import Component, Slot

    tree = brson.load(sample(STANDIN))
    visual = tree.find("Visual")
    assert isinstance(visual, Slot)
    renderer = visual.find_component("MeshRenderer")
    assert isinstance(renderer, Component)
    return tree, visual, renderer


def walk_nodes(root: Node) -> Iterator[Node]:
    """ROOT and every node it has handed out (not every sub-document)."""
    from brson.model.node import Node

    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        yield node
        for value in node.overlay.values():
            if isinstance(value, Node):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, Node))
