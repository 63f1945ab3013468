"""Each named report against counts computed here, independently of brson.scan: the library
is walked with os.walk, every file read with ``brson.load``, asset URLs found in the decoded
BSON, and validate run on its own."""

from __future__ import annotations

import hashlib
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import bson
import bson.errors
import pytest

import brson
from brson.ops.validate import validate
from brson.scan import query
from tests.scan.conftest import ITEMS, MAX_SIZE

pytestmark = pytest.mark.slow  # every report over an index of the whole corpus

SUFFIXES = (".brson", ".7zbson", ".lz4bson", ".bson", ".resonitepackage")


class Truth:
    def __init__(self, corpus: Path) -> None:
        self.files: list[str] = []
        self.unreadable: set[str] = set()  # brson.load refuses it
        self.undecodable: set[str] = set()  # loads, but pymongo cannot decode every value
        self.trees: dict[str, brson.DataTree] = {}
        for parent, _, names in os.walk(corpus):
            for name in names:
                if name.lower().endswith(SUFFIXES):
                    self.files.append(os.path.join(parent, name))
        for path in self.files:
            try:
                tree = brson.load(path, max_size=MAX_SIZE)
            except brson.BrsonError:
                self.unreadable.add(path)
                continue
            try:
                bson.decode(tree.to_bson())
            except bson.errors.BSONError:
                self.undecodable.add(path)
            self.trees[path] = tree

    def indexed(self, index: Path) -> dict[str, brson.DataTree]:
        """The trees of the files the index could read (status ok); brson decodes values
        lazily, so a tree with a bad string deep inside reads, or fails, by where it is."""
        ok = {p for (p,) in query.run(index, "SELECT path FROM files WHERE status = 'ok'").rows}
        return {p: t for p, t in self.trees.items() if p in ok}


@pytest.fixture(scope="module")
def truth(corpus: Path) -> Truth:
    return Truth(corpus)


def report(index: Path, name: str, text: str | None = None) -> list[dict[str, Any]]:
    result = query.run(index, report=name, text=text)
    return [dict(zip(result.columns, row, strict=True)) for row in result.rows]


def test_every_file_is_a_row(clean_index: Path, truth: Truth) -> None:
    rows = query.run(clean_index, "SELECT path, status FROM files").rows
    assert sorted(p for p, _ in rows) == sorted(truth.files)
    errors = {p for p, s in rows if s == "error"}
    assert truth.unreadable <= errors <= truth.unreadable | truth.undecodable
    assert len(truth.unreadable) > 90  # the library's broken and hostile files


def test_types(clean_index: Path, truth: Truth) -> None:
    items: dict[str, set[str]] = defaultdict(set)
    components: Counter[str] = Counter()
    for path, tree in truth.indexed(clean_index).items():
        for component in tree.components():
            items[str(component.type)].add(path)
            components[str(component.type)] += 1
    got = {row["type"]: (row["items"], row["components"]) for row in report(clean_index, "types")}
    assert got == {t: (len(items[t]), components[t]) for t in items}
    counts = [row["items"] for row in report(clean_index, "types")]
    assert counts == sorted(counts, reverse=True)


def _urls(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.startswith(("@resdb:///", "@packdb:///", "@neosdb:///")) else []
    if isinstance(value, dict):
        return [u for v in value.values() for u in _urls(v)]
    if isinstance(value, list):
        return [u for v in value for u in _urls(v)]
    return []


def test_assets(clean_index: Path, truth: Truth) -> None:
    items: dict[str, set[str]] = defaultdict(set)
    refs: Counter[str] = Counter()
    for path, tree in truth.indexed(clean_index).items():
        if path in truth.undecodable:  # the few bit-flipped files: taken as indexed
            urls = [
                f"@{u}"
                for (u,) in query.run(
                    clean_index, f"SELECT url FROM assets WHERE path = '{path}'"
                ).rows
            ]
        else:
            document = bson.decode(tree.to_bson())
            urls = _urls(document["Object"]) + _urls(document.get("Assets", []))
        for url in urls:
            digest = url.split(":///", 1)[1].split(".", 1)[0].lower()
            items[digest].add(path)
            refs[digest] += 1
    got = {row["asset"]: (row["items"], row["refs"]) for row in report(clean_index, "assets")}
    assert got == {a: (len(items[a]), refs[a]) for a in items}
    shared = [a for a in items if len(items[a]) > 1]
    assert len(shared) >= 20  # the generator's pool of 24 resdb hashes
    # A package's own asset has its size (the zip holds it).
    sizes = query.run(
        clean_index, "SELECT count(*) FROM assets WHERE scheme = 'packdb' AND size > 0"
    ).rows
    assert sizes[0][0] > ITEMS // 25 * 2 // 3  # a package every 25 items, NeosVR's excepted


def test_duplicates(clean_index: Path, truth: Truth, corpus: Path) -> None:
    groups: dict[str, set[str]] = defaultdict(set)
    for path, tree in truth.indexed(clean_index).items():
        groups[hashlib.sha256(tree.to_bson()).hexdigest()].add(path)
    expected = {frozenset(g) for g in groups.values() if len(g) > 1}
    got = {frozenset(row["paths"]) for row in report(clean_index, "duplicates")}
    assert got == expected
    # Every copy the generator made sits in a group with its original.
    for copy in (corpus / "dupes").iterdir():
        number = copy.stem.removeprefix("copy")
        assert any(str(copy) in g and any(f"item{number}." in p for p in g) for g in got), copy.name


def test_broken(clean_index: Path, truth: Truth) -> None:
    rows = report(clean_index, "broken")
    parse = {row["path"] for row in rows if row["kind"] == "parse"}
    assert truth.unreadable <= parse <= truth.unreadable | truth.undecodable
    assert all(row["what"] and row["message"] for row in rows)
    expected = set()
    for path in truth.trees:
        if path in parse:
            continue
        for finding in validate(path, max_size=MAX_SIZE):
            if finding.severity == "error":
                expected.add((path, finding.code, finding.message))
    got = {(r["path"], r["what"], r["message"]) for r in rows if r["kind"] == "validate"}
    assert got == expected
    # Every file pymongo cannot decode is in the report, as a parse or a validate error.
    assert truth.undecodable <= {row["path"] for row in rows}


def test_versions(clean_index: Path, truth: Truth) -> None:
    expected = Counter(
        ("neosvr" if tree.legacy else "resonite", tree.version_number)
        for tree in truth.indexed(clean_index).values()
    )
    got = {
        (r["generation"], r["engine_version"]): r["files"] for r in report(clean_index, "versions")
    }
    assert got == dict(expected)
    assert len(got) >= 3


@pytest.mark.parametrize("text", ["chair", "CHAIR", "Item 0004", "no such item at all"])
def test_search(clean_index: Path, truth: Truth, text: str) -> None:
    needle = text.lower()
    expected = set()
    for path in truth.files:
        tree = truth.trees.get(path)
        name = tree.root.name if tree is not None else None
        if needle in path.lower() or (isinstance(name, str) and needle in name.lower()):
            expected.add(path)
    got = {row["path"] for row in report(clean_index, "search", text)}
    assert got == expected
    if text != "no such item at all":
        assert got


def test_search_text_is_a_parameter(clean_index: Path) -> None:
    assert report(clean_index, "search", "'; DROP TABLE files; --") == []
