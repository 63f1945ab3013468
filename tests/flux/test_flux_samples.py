"""``brson flux`` on every real sample: counts derived here from the raw BSON (pymongo, not
brson.flux) equal the command's JSON; every DOT renders with the real Graphviz, warning-free.

The independent count follows docs/protoflux.md's storage rules directly on the decoded
documents: a node is a ``[ProtoFluxBindings]`` component; a node member (or list element)
holding the ID of a node, or of a member of one, is a node-to-node connection (value or
impulse); a node member naming a ``GlobalReference`` whose ``Reference`` is set reads that
world element; a helper naming a node in ``Node`` drives what its ``Drive`` holds, a store
reads what its ``Target`` holds; a ``Variable`` input naming a node that reads through globals
writes what that node reads.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import bson
import pytest

from brson.cli.app import main
from brson.container import frdt

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT_ROOT.parent / "shared" / "samples"
NAMES = [
    "mar_AimConstraint.pg.brson",
    "mar_coresys.resonitepackage",
    "orange3134_AvatarRootIdentification.brson",
    "orange3134_AvatarRootIdentification.resonitepackage",
    "orange3134_loading_standin.brson",
    "orange3134_loading_standin.resonitepackage",
    "redx_5ce7cdf5.7zbson",
]

#: What the counts are, written down once so a change in either derivation shows here too.
EXPECTED = {
    "mar_AimConstraint.pg.brson": {"nodes": 43, "node_edges": 51, "read": 0, "write": 0,
                                   "drive": 0, "graphs": 2},
    "mar_coresys.resonitepackage": {"nodes": 173, "node_edges": 196, "read": 5, "write": 2,
                                    "drive": 2, "graphs": 13},
    "orange3134_AvatarRootIdentification.brson": {"nodes": 10, "node_edges": 12, "read": 0,
                                                  "write": 0, "drive": 2, "graphs": 1},
    "orange3134_loading_standin.brson": {"nodes": 30, "node_edges": 29, "read": 2, "write": 0,
                                         "drive": 4, "graphs": 4},
    "redx_5ce7cdf5.7zbson": {"nodes": 0, "node_edges": 0, "read": 0, "write": 0, "drive": 0,
                             "graphs": 0},
}  # fmt: skip
EXPECTED["orange3134_AvatarRootIdentification.resonitepackage"] = EXPECTED[
    "orange3134_AvatarRootIdentification.brson"
]
EXPECTED["orange3134_loading_standin.resonitepackage"] = EXPECTED[
    "orange3134_loading_standin.brson"
]


def sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"real sample {name} not found")
    return path


def raw_document(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    name = path.name
    if name.endswith(".resonitepackage"):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            record = json.loads(zf.read("R-Main.record"))
            data = zf.read("Assets/" + record["assetUri"].rsplit("/", 1)[-1])
        name = "main.brson"
    _, payload = frdt.unpack(data, name)
    return bson.decode(payload)


def _items(member: Any) -> list[Any]:
    data = member.get("Data")
    return data if isinstance(data, list) else [member]


def independent_counts(doc: dict[str, Any]) -> dict[str, int]:
    types = doc.get("Types")
    components: list[dict[str, Any]] = []
    stack = [doc["Object"]]
    while stack:
        slot = stack.pop()
        components.extend(slot["Components"]["Data"])
        children = slot["Children"]
        stack.extend(children if isinstance(children, list) else children["Data"])
    components.extend(doc.get("Assets") or [])

    def type_of(component: dict[str, Any]) -> str:
        raw = component["Type"]
        return types[raw] if isinstance(raw, int) else raw

    nodes = {
        c["Data"]["ID"]: c["Data"]
        for c in components
        if type_of(c).startswith("[ProtoFluxBindings]")
    }
    owner = {}
    for node_id, data in nodes.items():
        for value in data.values():
            if isinstance(value, dict) and "ID" in value:
                owner[value["ID"]] = node_id
    owner.update({node_id: node_id for node_id in nodes})
    globals_ = {
        c["Data"]["ID"]: c["Data"]["Reference"]["Data"]
        for c in components
        if ".ProtoFlux.GlobalReference<" in type_of(c)
    }
    links: list[tuple[str, str]] = []
    counts = {"read": 0, "write": 0, "drive": 0}
    reads_through_globals: dict[str, int] = {}
    variables: list[str] = []
    for node_id, data in nodes.items():
        for key, member in data.items():
            if key.startswith("_") or not isinstance(member, dict) or "ID" not in member:
                continue
            for item in _items(member):
                target = item.get("Data") if isinstance(item, dict) else None
                if target in owner:
                    links.append((node_id, owner[target]))
                    if key == "Variable" and target in nodes:
                        variables.append(target)
                elif target in globals_ and globals_[target] is not None:
                    counts["read"] += 1
                    reads_through_globals[node_id] = reads_through_globals.get(node_id, 0) + 1
    counts["write"] = sum(reads_through_globals.get(target, 0) for target in variables)
    for component in components:
        data = component["Data"]
        node = data.get("Node")
        if type_of(component).startswith("[ProtoFluxBindings]") or not isinstance(node, dict):
            continue
        if node.get("Data") not in nodes:
            continue
        store = type_of(component).endswith("+Store")
        for key, member in data.items():
            if isinstance(member, dict) and isinstance(member.get("Data"), str):
                if key == "Drive":
                    counts["drive"] += 1
                elif key == "Target" and store:
                    counts["read"] += 1
    parent = {node_id: node_id for node_id in nodes}

    def root(item: str) -> str:
        while parent[item] != item:
            item = parent[item]
        return item

    for a, b in links:
        parent[root(a)] = root(b)
    return {
        "nodes": len(nodes),
        "node_edges": len(links),
        **counts,
        "graphs": len({root(node_id) for node_id in nodes}),
    }


def flux_json(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    code = main(["flux", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


@pytest.mark.parametrize("name", NAMES)
def test_counts_equal_an_independent_derivation(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = sample(name)
    expected = independent_counts(raw_document(path))
    assert expected == EXPECTED[name]
    result = flux_json(capsys, path)
    counts = result["counts"]
    assert counts["nodes"] == expected["nodes"] == len(result["nodes"])
    assert counts["value"] + counts["impulse"] == expected["node_edges"]
    for kind in ("read", "write", "drive", "graphs"):
        assert counts[kind] == expected[kind], kind
    assert (
        counts["edges"]
        == len(result["edges"])
        == sum(counts[k] for k in ("value", "impulse", "read", "write", "drive"))
    )
    for edge in result["edges"]:  # an impulse continues to a node itself, never an output
        if edge["kind"] == "impulse":
            assert edge["output"] is None and edge["target"] == edge["target_node"]


def test_coresys_impulses_and_the_settings_copier_graph(capsys: pytest.CaptureFixture[str]) -> None:
    result = flux_json(capsys, sample("mar_coresys.resonitepackage"))
    assert result["counts"]["impulse"] == 36
    sizes = sorted((len(g["nodes"]) for g in result["graphs"]), reverse=True)
    assert sizes[:2] == [152, 10] and sizes[2:] == [1] * 11  # 11 lone display/relay nodes
    copier = [g for g in result["graphs"] if g["container"].endswith("(162 Nodes)")]
    assert sum(len(g["nodes"]) for g in copier) == 163


def test_text_lines_are_stable_and_one_per_thing(capsys: pytest.CaptureFixture[str]) -> None:
    path = sample("mar_coresys.resonitepackage")
    first = main(["flux", str(path)]), capsys.readouterr().out
    again = main(["flux", str(path)]), capsys.readouterr().out
    assert first == again and first[0] == 0
    lines = first[1].splitlines()
    counts = flux_json(capsys, path)["counts"]
    assert len(lines) == counts["graphs"] + counts["nodes"] + counts["edges"]
    assert (
        "  impulse ButtonEvents(0000013b-0000-0000-0000-000000000000).Pressed → "
        "ValueWrite<FrooxEngineContext, bool>(00000142-0000-0000-0000-000000000000)" in lines
    )


def dot_program() -> str:
    program = shutil.which("dot")
    if program is None:
        pytest.skip("Graphviz's dot is not installed (make graphviz)")
    return program


@pytest.mark.parametrize("name", NAMES)
def test_every_dot_renders_with_graphviz_without_a_warning(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = dot_program()
    path = sample(name)
    out = tmp_path / "flux.dot"
    assert main(["flux", str(path), "--format", "dot", "-o", str(out)]) == 0
    done = subprocess.run([program, "-Tsvg"], input=out.read_bytes(), capture_output=True)
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()
    assert b"<svg" in done.stdout


def test_svg_is_drawn_by_dot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dot_program()
    out = tmp_path / "standin.svg"
    source = sample("orange3134_loading_standin.brson")
    code = main(["flux", str(source), "-f", "svg", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    svg = out.read_text()
    assert "<svg" in svg and "ObjectFieldDrive&lt;Uri&gt;" in svg


def test_svg_without_dot_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    out = tmp_path / "x.svg"
    source = sample("orange3134_loading_standin.brson")
    code = main(["flux", str(source), "-f", "svg", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert err.count("\n") == 1 and "flux error" in err and "graphviz" in err


def broken_inputs() -> list[Path]:
    """Every fixture archive: bombs, truncations, wrong codecs, and one broken tree per
    validation rule (the BR7xx ones among them)."""
    folders = [PROJECT_ROOT / "fixtures", PROJECT_ROOT / "fixtures" / "validate"]
    archives = {".brson", ".7zbson", ".lz4bson", ".bson"}
    found = [p for f in folders for p in f.iterdir() if p.is_file() and p.suffix in archives]
    return [*sorted(found), PROJECT_ROOT / "fixtures" / "validate" / "BR101_directory.brson"]


@pytest.mark.parametrize("path", broken_inputs(), ids=lambda p: p.name)
def test_hostile_input_is_one_line_or_a_drawing(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 0 with a model, or 2 with one error line naming the file: never a traceback."""
    # 16 MiB: above every fixture's document (bomb_frame's 8 MiB of zeros reaches the BSON
    # reader, as with the default limit); the bombs stop at the limit, three times a file.
    for form in ("text", "json", "dot"):
        out = tmp_path / f"out.{form}"
        code = main(["--max-size", str(16 << 20), "flux", str(path), "-f", form, "-o", str(out)])
        err = capsys.readouterr().err
        if code == 0:
            assert out.stat().st_size >= 0 and err == ""
        else:
            assert code == 2 and err.count("\n") == 1 and str(path) in err, err
            assert "Traceback" not in err and "internal error" not in err
            assert not out.exists()
