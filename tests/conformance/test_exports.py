"""The conformance matrix's exports on every file: Godot scenes and Variants (3 and 4), and binary
glTF (see :mod:`conformance.checks`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from brson.godot import loads as variant_loads
from tests.tiers import EXHAUSTIVE

from .checks import OK, picks, run, source_view, tree_checked_before
from .conftest import Check
from .writers import Sample

pytestmark = pytest.mark.slow  # every operation on every sample and writer variant: minutes of CPU


def _scene_checks(check: Check, tscn: str, godot: int, slots: int) -> None:
    header = tscn.splitlines()[0]
    check(header.startswith("[gd_scene") and f"format={godot - 1}" in header, f"header {header}")
    nodes = re.findall(
        r'^\[node name="((?:[^"\\]|\\.)*)"(?: type="(\w+)")?(?: parent="((?:[^"\\]|\\.)*)")?',
        tscn,
        re.M,
    )
    check(len(nodes) == slots, f"one node per slot: {len(nodes)} != {slots}")
    paths: set[str] = set()
    for n, (name, _, parent) in enumerate(nodes):
        if n == 0:
            check(parent == "", "the first node is the root")
            paths.add(".")
            continue
        check(parent in paths, f"node {name!r}: parent {parent!r} is an earlier node")
        paths.add(name if parent == "." else f"{parent}/{name}")
    subs = set(re.findall(r'^\[sub_resource type="\w+" id=("?[\w]+"?)\]', tscn, re.M))
    used = set(re.findall(r"SubResource\(\s*(\"?[\w]+\"?)\s*\)", tscn))
    check(used <= subs, f"every SubResource used is defined: {sorted(used - subs)[:5]}")


def _export(
    path: Path,
    sample: Sample,
    tmp_path: Path,
    check: Check,
    capsys: pytest.CaptureFixture[str],
    godot: int,
) -> None:
    src = source_view(path)
    scene, variant = tmp_path / "scene.tscn", tmp_path / "tree.bin"
    code, _, err = run(
        capsys, "export-godot", path, "-o", scene, "--godot", godot, "--variant", variant
    )
    check(code == OK, f"exit {code}: {err}")
    _scene_checks(check, scene.read_text(encoding="utf-8"), godot, len(src.slots))
    value = variant_loads(variant.read_bytes(), godot=godot)
    stack, seen = [value["root"]], []
    while stack:
        item = stack.pop()
        seen.append(item)
        stack.extend(reversed(item["children"]))
    check(
        [(n["id"], n["name"]) for n in seen] == [(s, src.slots[s][0]) for s in src.slot_order],
        "the Variant reloads with every slot: IDs and names in order",
    )
    check(
        [[c["id"] for c in n["components"]] for n in seen]
        == [[c for c in src.component_order if src.holder[c] == s] for s in src.slot_order],
        "and every component, by ID",
    )
    check(
        len(value["assets"]) == len(src.components) - sum(1 for h in src.holder.values() if h),
        "and the root assets",
    )
    if tree_checked_before(path):  # a subtree's scene depends on the tree alone
        return
    if godot == 3 and sample.variant and not EXHAUSTIVE:
        return  # a variant's subtree in Godot 4 only: both versions select it alike
    middle = picks(src)["middle"]
    part = tmp_path / "part.tscn"
    code, _, err = run(capsys, "export-godot", path, "-o", part, "--godot", godot, "--slot", middle)
    check(code == OK, f"--slot: exit {code}: {err}")
    below = {middle}
    for s in src.slot_order:
        if src.slots[s][1] in below:
            below.add(s)
    _scene_checks(check, part.read_text(encoding="utf-8"), godot, len(below))


def test_export_godot3(
    path: Path, sample: Sample, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    _export(path, sample, tmp_path, check, capsys, 3)


def test_export_godot4(
    path: Path, sample: Sample, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    _export(path, sample, tmp_path, check, capsys, 4)


def test_export_gltf(
    path: Path, sample: Sample, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    """A binary glTF that reloads: GLB framing, one node per slot in tree order with the
    slot's ID, the report's counts equal to the file's, every index in range; a package's
    own assets are found.  (The Khronos validator, Blender and Godot checks are in tests/gltf.)"""
    import struct

    src = source_view(path)
    out = tmp_path / "scene.glb"
    code, stdout, err = run(capsys, "export-gltf", path, "-o", out, "--json")
    check(code == OK, f"exit {code}: {err}")
    report = json.loads(stdout)
    data = out.read_bytes()
    magic, version, length = struct.unpack_from("<4sII", data)
    check((magic, version, length) == (b"glTF", 2, len(data)), "GLB header")
    size, kind = struct.unpack_from("<I4s", data, 12)
    check(kind == b"JSON", "the JSON chunk first")
    doc = json.loads(data[20 : 20 + size])
    binary = b""
    if 20 + size < len(data):
        bsize, bkind = struct.unpack_from("<I4s", data, 20 + size)
        check(bkind == b"BIN\x00", "then the BIN chunk")
        binary = data[28 + size : 28 + size + bsize]
    nodes = doc.get("nodes", [])
    order: list[str] = []
    stack = list(reversed(doc["scenes"][doc.get("scene", 0)]["nodes"]))
    while stack:
        node = nodes[stack.pop()]
        order.append(node.get("extras", {}).get("resonite_id"))
        stack.extend(reversed(node.get("children", [])))
    check(order == src.slot_order, "one node per slot, in tree order, with its ID")
    check(report["nodes"] == len(nodes), "report: nodes")
    for key in ("meshes", "materials", "textures", "images", "skins"):
        check(report[key] == len(doc.get(key, [])), f"report: {key}")
    for part in doc.get("bufferViews", []):
        end = part.get("byteOffset", 0) + part["byteLength"]
        check(end <= len(binary), "buffer view in range")
    for accessor in doc.get("accessors", []):
        check(accessor.get("bufferView", 0) < len(doc.get("bufferViews", [])), "accessor's view")
    if sample.package:
        missing = [w for w in report["warnings"] if "packdb" in w and "not available" in w]
        check(not missing, f"the package's assets are used: {missing[:2]}")
