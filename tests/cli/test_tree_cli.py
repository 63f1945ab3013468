"""``brson tree``, ``brson refs`` and ``brson schema`` on the real samples."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bson
import pytest

# Sample paths and the independent decoding are shared with the model tests (pytest puts
# tests/ on sys.path, since tests/ itself is not a package).
from model.support import (
    PROJECT_ROOT,
    STANDIN,
    ids_of,
    raw_document,
    raw_slots,
    sample,
    sample_files,
)

import brson
from brson.cli import tree as tree_cli
from brson.cli.app import main
from brson.cli.tree import entry_end, entry_head, records_text
from brson.codecs import Codec
from brson.container import unpack
from brson.container.frdt import pack
from brson.graph.refs import RECORD_KEYS, Record, RecordParts, ReferenceListing
from brson.model.ids.scan import scan_references

SAMPLES = sample_files()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args])
    out, err = capsys.readouterr()
    return code, out, err


def _walk_json(entry: dict[str, Any]) -> list[dict[str, Any]]:
    out, stack = [], [entry]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node["children"]))
    return out


@pytest.mark.parametrize("path", SAMPLES, ids=ids_of(SAMPLES))
def test_tree_json_on_every_sample(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tree", str(path), "--json")
    assert code == 0
    [entry] = json.loads(out)  # a list, one {file, root} per file
    assert entry["file"] == str(path)
    top = entry["root"]
    doc = raw_document(path)
    slots = _walk_json(top)
    raw = [r for r, _ in raw_slots(doc)]
    assert [s["id"] for s in slots] == [r["ID"] for r in raw]
    assert [s["name"] for s in slots] == [r["Name"]["Data"] for r in raw]
    types = doc.get("Types", [])
    for entry, slot in zip(slots, raw, strict=True):
        assert set(entry) == {"id", "name", "components", "children"}
        assert entry["components"] == [
            {
                "id": c["Data"]["ID"],
                "type": types[c["Type"]] if isinstance(c["Type"], int) else c["Type"],
            }
            for c in slot["Components"]["Data"]
        ]


@pytest.mark.parametrize("path", SAMPLES, ids=ids_of(SAMPLES))
def test_info_counts_match_the_raw_document(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``brson info`` counts through the model; checked against the decoded dicts."""
    code, out, _ = run(capsys, "info", str(path), "--json")
    assert code == 0
    row = json.loads(out)[0]
    doc = raw_document(path)
    raw = [r for r, _ in raw_slots(doc)]
    on_slots = sum(len(r["Components"]["Data"]) for r in raw)
    assets = doc.get("Assets", [])
    inline = {c["Type"] for r in raw for c in r["Components"]["Data"]} | {c["Type"] for c in assets}
    assert row["slots"] == len(raw)
    assert row["assets"] == len(assets)
    assert row["components"] == on_slots  # root Assets apart, as MANIFEST.md counts them
    assert row["types"] == (len(doc["Types"]) if "Types" in doc else len(inline))
    assert row["type_versions"] == len(doc.get("TypeVersions", {}))
    assert row["engine_version"] == doc.get("VersionNumber")
    assert row["generation"] == ("resonite" if "Types" in doc else "neosvr")
    assert row["root"] == doc["Object"]["Name"]["Data"]


def test_tree_json_depth(capsys: pytest.CaptureFixture[str]) -> None:
    path = sample(STANDIN)
    doc = raw_document(path)
    code, out, _ = run(capsys, "tree", str(path), "--json", "--depth", "1")
    assert code == 0
    top = json.loads(out)[0]["root"]
    root = doc["Object"]
    assert [c["id"] for c in top["children"]] == [c["ID"] for c in root["Children"]]
    for entry, raw in zip(top["children"], root["Children"], strict=True):
        assert entry["children"] == []
        assert entry.get("hidden_children", 0) == len(raw["Children"])
    code, out, _ = run(capsys, "tree", str(path), "--json", "--depth", "0")
    assert json.loads(out)[0]["root"]["hidden_children"] == len(root["Children"])


def test_tree_plain_text_when_piped(capsys: pytest.CaptureFixture[str]) -> None:
    path = sample(STANDIN)
    doc = raw_document(path)
    code, out, _ = run(capsys, "tree", str(path))
    assert code == 0
    lines = out.splitlines()
    depth: dict[str, int] = {}
    for slot, parent in raw_slots(doc):
        depth[slot["ID"]] = depth[parent["ID"]] + 1 if parent else 0
    expected = [
        "  " * depth[s["ID"]] + f"{s['Name']['Data']}  {s['ID']}" for s, _ in raw_slots(doc)
    ]
    assert lines == expected
    code, out, _ = run(capsys, "tree", str(path), "--components")
    lines = out.splitlines()
    components = [line for line in lines if line.lstrip().startswith(": ")]
    assert len(components) == sum(len(s["Components"]["Data"]) for s, _ in raw_slots(doc))
    assert "    : MeshRenderer  00000031-0000-0000-0000-000000000000" in lines
    assert any("DynamicReferenceVariableDriver<Slot>" in line for line in components)


def test_tree_on_a_terminal_is_a_rich_tree() -> None:
    """Run the real command on a pseudo-terminal: rich draws guide lines."""
    main_fd, child_fd = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "brson", "tree", str(sample(STANDIN)), "--depth", "1"],
        stdout=child_fd,
        stderr=subprocess.PIPE,
        cwd=PROJECT_ROOT,
        env=env,
    )
    os.close(child_fd)
    chunks = []
    while True:
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main_fd)
    assert proc.wait(timeout=60) == 0
    text = b"".join(chunks).decode()
    assert "├── " in text and "└── " in text
    assert "Visual" in text and "more" in text


@pytest.mark.parametrize("path", SAMPLES, ids=ids_of(SAMPLES))
def test_refs_json(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "refs", str(path), "--json")
    assert code == 0
    [report] = json.loads(out)  # a list, one object per file
    assert report["file"] == str(path)
    assert report["counts"]["references"] == len(report["references"]) > 20
    assert report["counts"]["external"] == 0 and report["external_ids"] == []
    for ref in report["references"]:
        assert ref["kind"] == "internal" and ref["target"] and ref["target_kind"]


def test_refs_text_lists_internal_and_external(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = raw_document(sample(STANDIN))
    renderer = next(
        c for s, _ in raw_slots(doc) for c in s["Components"]["Data"] if "Materials" in c["Data"]
    )
    outside = "0badc0de-1111-2222-3333-444455556666"
    renderer["Data"]["Mesh"]["Data"] = outside
    edited = tmp_path / "edited.bson"
    edited.write_bytes(bson.encode(doc))
    code, out, _ = run(capsys, "refs", str(edited))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (
        f"{edited}: 53 references, 52 internal (to 46 of 822 IDs), 1 external (to 1 IDs)"
    )
    assert (
        f"LoadingStandin - Thumbnail v1.3.1/Visual:MeshRenderer.Mesh -> {outside} (external)"
    ) in lines
    assert (
        "LoadingStandin - Thumbnail v1.3.1/Visual:MeshRenderer.Materials[0] -> "
        "00000038-0000-0000-0000-000000000000 "
        "LoadingStandin - Thumbnail v1.3.1/Visual/UserIconMat:UnlitMaterial"
    ) in lines
    code, out, _ = run(capsys, "refs", str(edited), "--json")
    [report] = json.loads(out)
    assert report["external_ids"] == [outside]
    assert [r["from"] for r in report["references"] if r["kind"] == "external"] == [
        "LoadingStandin - Thumbnail v1.3.1/Visual:MeshRenderer.Mesh"
    ]


def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "tree", str(tmp_path / "missing.brson"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    doc = raw_document(sample(STANDIN))
    visual = next(r for r, _ in raw_slots(doc) if r["Name"]["Data"] == "Visual")
    visual["Components"]["Data"][0]["Type"] = 999
    broken = tmp_path / "broken.bson"
    broken.write_bytes(bson.encode(doc))
    code, out, err = run(capsys, "tree", str(broken), "--json")
    assert code == 2
    assert "out of range" in err and "LoadingStandin - Thumbnail v1.3.1/Visual" in err
    assert str(broken) in err and len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "tree", str(broken))  # names only: no type needed
    assert code == 0


def test_committed_schemas_are_current(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "schema", "-o", str(tmp_path / "out"))
    assert code == 0
    generated = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    committed = {p.name: p.read_bytes() for p in (PROJECT_ROOT / "schemas").iterdir()}
    assert set(generated) == {
        "datatree.schema.json",
        "slot.schema.json",
        "component.schema.json",
        "member.schema.json",
        "jsonform.schema.json",
        "validate-report.schema.json",
    }
    assert generated.keys() == committed.keys(), "run `make schemas` and commit schemas/"
    for name, content in generated.items():
        assert content == committed[name], f"schemas/{name} is stale: run `make schemas`"
        assert content.endswith(b"}\n")
        assert json.loads(content)["$schema"].startswith("https://json-schema.org/")
    assert err.count("wrote ") == 6


def test_refs_json_text_is_json_dumps() -> None:
    """``refs --json`` writes its records without the indenting encoder: the same text as
    ``json.dumps(indent=2, ensure_ascii=False)``, for every sample's entries and odd ones
    (no references, text needing escapes in either part of ``from`` and ``target``,
    non-ASCII, runs of records sharing an anchor's text over more than one write)."""
    entries: list[tuple[Path, dict[str, int], list[str], list[RecordParts]]] = []
    for path in sample_files():
        listing = ReferenceListing(brson.load(path))
        table = listing.table()
        assert [_record(parts) for parts in table] == list(listing.records())
        entries.append((path, listing.counts(), listing.external_ids(), table))
    anchor = 'Root/"é"\n\\\x00\u2028'
    odd: RecordParts = (anchor, ':T."\\x"\t', None, None, "x", "external", None, "", "\u00ff")
    other: RecordParts = (
        anchor + "/b",
        "",
        "member",
        "m\x7f",
        "y",
        "internal",
        "\u0085",
        ':"',
        "id",
    )
    entries.append((Path("ü.brson"), {}, ["x"], [odd] * 5000 + [other, odd] * 300))
    entries.append((Path("none.brson"), {"ids": 0}, [], []))
    parts: list[str] = []
    for path, counts, external, table in entries:
        parts += [",\n" if parts else "[\n", entry_head(path, counts, external)]
        parts += [*records_text(table), entry_end(bool(table))]
    expected = [
        {
            "file": str(path),
            "counts": counts,
            "external_ids": external,
            "references": [dict(zip(RECORD_KEYS, _record(row), strict=True)) for row in table],
        }
        for path, counts, external, table in entries
    ]
    assert "".join([*parts, "\n]"]) == json.dumps(expected, indent=2, ensure_ascii=False)


def _record(parts: RecordParts) -> Record:
    """The record whose texts ``parts`` holds in two parts each."""
    head, tail, kind, member_id, value, internal, at, at_tail, at_kind = parts
    target = None if at is None else at + at_tail
    return head + tail, kind, member_id, value, internal, target, at_kind


def test_refs_json_text_is_made_as_it_is_written() -> None:
    """A file's references are encoded a few hundred at a time, each part made when the
    output asks for it: the listing's text is never held whole (it is ~0.9x the BSON on a
    world whose paths are long)."""
    taken = 0

    def table() -> Iterator[RecordParts]:
        nonlocal taken
        for n in range(5000):
            taken += 1
            yield (f"Root/{n}", ":T.x", "member", "m", "x", "external", None, "", None)

    parts = records_text(table())
    first = next(parts)
    assert 0 < taken <= 1000 and first.count('"from"') == taken
    rest = list(parts)
    assert taken == 5000 and sum(p.count('"from"') for p in [first, *rest]) == 5000


def test_refs_json_file_failing_part_way_leaves_no_part_of_its_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that loads but fails while its references are listed (a member ID that is not
    UTF-8, met at the last reference) is one error line; the list holds the other files'
    entries, whole, and nothing of its own."""
    good = sample(STANDIN)
    _, buf = unpack(good.read_bytes())
    scan = scan_references(brson.loads(buf))
    assert scan is not None
    member = buf.rfind(b"\x02ID\x00", 0, scan.references[-1][0])
    broken = bytearray(buf)
    broken[member + 11] = 0xFF  # inside the ID string, after its length
    bad = tmp_path / "bad.brson"
    bad.write_bytes(pack(bytes(broken), Codec.BROTLI))
    brson.load(bad)  # loads: the listing is what fails
    again = tmp_path / "again.brson"
    again.write_bytes(good.read_bytes())
    code, alone, _ = run(capsys, "refs", "--json", str(good), str(again))
    assert code == 0
    code, out, err = run(capsys, "refs", "--json", str(good), str(bad), str(again))
    assert code == 2
    assert err == f"brson: {bad}: bson error at offset {member + 4}: string is not UTF-8\n"
    assert out == alone
    code, out, err = run(capsys, "refs", "--json", str(bad))
    assert (code, out, err.count("\n")) == (2, "[]\n", 1)


def test_refs_json_interrupted_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (a real SIGINT) while a second file's references are written: the list is left
    open, so the command must say it stopped and exit 130, not end as if it had finished."""
    good = sample(STANDIN)
    again = tmp_path / "again.brson"
    again.write_bytes(good.read_bytes())
    written = tree_cli.records_text
    calls = 0

    def interrupted(records: list[RecordParts]) -> Iterator[str]:
        nonlocal calls
        calls += 1
        if calls == 2:
            signal.raise_signal(signal.SIGINT)
        return written(records)

    monkeypatch.setattr(tree_cli, "records_text", interrupted)
    # Python's own Ctrl-C handler, as a terminal's process has it: a shell's background job
    # (and so a pytest started with `&`) inherits SIGINT ignored, and the signal would be lost.
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code, out, err = run(capsys, "refs", "--json", str(good), str(again))
    finally:
        signal.signal(signal.SIGINT, handler)
    assert (code, err, calls) == (130, "brson: aborted\n", 2)
    assert out.startswith("[\n") and not out.endswith("]\n")
