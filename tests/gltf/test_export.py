"""export-gltf from the API and the CLI: assets from the package or a folder of hash-named
files (verified by hash), missing assets as warnings with a placeholder, .gltf + .bin, inactive
slots hidden or omitted, node extras, and the command's report."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import brson
from brson._speedups import built
from brson.assets import AssetStore, identify, parse_url
from brson.cli.app import main
from brson.gltf import export_gltf
from brson.meshx.mesh import Mesh
from brson.model import Component, slothead
from brson.package import load_package
from tests.differential import loadable_trees
from tests.gltf.conftest import AVATAR, HANDEDNESS, ROOT, SAMPLES
from tests.gltf.test_engines import gltf_json
from tests.gltf.tools import validate


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_parse_url() -> None:
    h = "ab" * 32
    assert parse_url(f"@packdb:///{h}").scheme == "packdb"  # type: ignore[union-attr]
    assert parse_url(f"@resdb:///{h}.webp") == parse_url(f"resdb:///{h}.webp")
    assert parse_url(f"@neosdb:///{h}.png").ext == ".png"  # type: ignore[union-attr]
    assert parse_url("@local://machine/some/file.png").name == "file"  # type: ignore[union-attr]
    assert parse_url("@@packdb:///literal") is None and parse_url(3) is None


def test_identify_by_bytes() -> None:
    package = load_package(AVATAR)
    kinds = sorted(identify(package.assets[n]) for n in package.assets)
    assert kinds == ["meshx", "meshx", "png", "webp"]


def test_assets_from_a_folder_by_hash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The bare tree (no package around it) finds its assets in --assets DIR; a file whose
    bytes do not match its hash name is not used."""
    package = load_package(AVATAR)
    folder = tmp_path / "cache"
    folder.mkdir()
    names = list(package.assets)
    for name in names[1:]:
        (folder / (name + ".bin")).write_bytes(package.assets[name])
    (folder / names[0]).write_bytes(b"not the asset")
    tree_file = tmp_path / "avatar.brson"
    brson.dump(package.tree, tree_file)
    out = tmp_path / "avatar.glb"
    code, stdout, err = run(
        capsys, "export-gltf", tree_file, "-o", out, "--assets", folder, "--json"
    )
    assert code == 0, err
    report = json.loads(stdout)
    assert any("does not hash to its name" in w for w in report["warnings"])
    assert any(names[0] in w and "not available" in w for w in report["warnings"])
    (folder / names[0]).write_bytes(package.assets[names[0]])
    code, stdout, _ = run(capsys, "export-gltf", tree_file, "-o", out, "--assets", folder, "--json")
    assert json.loads(stdout)["warnings"] == []


def test_missing_texture_is_a_warning_with_url_and_slot() -> None:
    tree = load_package(HANDEDNESS).tree  # the tree alone: its texture asset is unavailable
    _document, report = export_gltf(tree, assets=AssetStore())
    (warning,) = report.warnings
    assert "Handedness/Sign" in warning and "@packdb:///" in warning and "placeholder" in warning
    assert report.images == 1  # the placeholder


def test_placeholder_needs_no_pillow(tmp_path: Path) -> None:
    """A missing texture's placeholder is the 2 x 2 magenta/black checker, and an export whose
    textures are all missing never imports Pillow (its resident memory is paid for nothing)."""
    from PIL import Image

    tree_file, out = tmp_path / "handedness.brson", tmp_path / "handedness.glb"
    brson.dump(load_package(HANDEDNESS).tree, tree_file)  # the tree alone: no texture asset
    script = (
        "import sys; from brson.cli.app import main; "
        f"code = main(['export-gltf', {str(tree_file)!r}, '-o', {str(out)!r}]); "
        "print(code, 'PIL' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "0 False", done.stdout + done.stderr
    doc = gltf_json(out)
    (image,) = doc["images"]
    view = doc["bufferViews"][image["bufferView"]]
    data = out.read_bytes()
    chunk = data[20 + struct.unpack_from("<I", data, 12)[0] + 8 :]  # the BIN chunk's bytes
    png = chunk[view["byteOffset"] : view["byteOffset"] + view["byteLength"]]
    image_rgb = Image.open(io.BytesIO(png)).convert("RGB")
    assert image_rgb.size == (2, 2)
    assert image_rgb.tobytes() == bytes([255, 0, 255, 0, 0, 0, 0, 0, 0, 255, 0, 255])


@pytest.mark.engine  # the Khronos glTF-Validator
def test_gltf_with_bin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "avatar.gltf"
    code, stdout, err = run(capsys, "export-gltf", AVATAR, "-o", out)
    assert code == 0, err
    assert "1 skins (5 joints), 2 morph targets" in stdout
    doc = json.loads(out.read_text())
    assert doc["buffers"][0]["uri"] == "avatar.bin"
    assert (tmp_path / "avatar.bin").stat().st_size == doc["buffers"][0]["byteLength"]
    (report,) = validate(out)
    assert report["errors"] == 0


def test_inactive_slots_hidden_or_omitted(tmp_path: Path) -> None:
    tree = brson.load(SAMPLES / "mar_AimConstraint.pg.brson")
    inactive = [s for s in tree.walk() if s.active is False]
    assert inactive
    _, hidden = export_gltf(tree)
    assert hidden.hidden == len(inactive)
    _, omitted = export_gltf(tree, inactive="omit")
    assert omitted.hidden == 0 and omitted.nodes < hidden.nodes


def test_node_extras_and_subtree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sign.glb"
    code, _, err = run(capsys, "export-gltf", HANDEDNESS, "-o", out, "--slot", "Handedness")
    assert code == 0, err
    doc = gltf_json(out)
    names = [n["name"] for n in doc["nodes"]]
    assert names == ["Handedness", "Sign", "Ahead"]
    sign = doc["nodes"][1]
    assert sign["translation"] == [1.0, 0.0, -0.0]
    assert "QuadMesh" in sign["extras"]["resonite_components"]
    tree = load_package(HANDEDNESS).tree
    assert sign["extras"]["resonite_id"] == tree.find("Sign").id  # type: ignore[union-attr]


def test_cli_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.brson"
    bad.write_bytes(b"FrDT\x00\x00\x00\x00\x03garbage")
    code, _, err = run(capsys, "export-gltf", bad, "-o", tmp_path / "x.glb")
    assert code == 2 and "Traceback" not in err and "bad.brson" in err
    assert not (tmp_path / "x.glb").exists()
    code, _, err = run(capsys, "export-gltf", AVATAR, "-o", AVATAR)
    assert code == 2 and "never writes over its inputs" in err


def test_hostile_numbers_become_warnings_not_crashes() -> None:
    """Found by mutating trees: sizes overflowing float32 and colours of 1e308 made the JSON
    writer fail (glTF JSON has no inf/NaN)."""
    from brson.model.edit import SyncList

    tree = brson.load(ROOT / "fixtures" / "tiny.brson")
    slot = tree.root.add_child("Huge")
    quad = slot.add_component("[FrooxEngine]FrooxEngine.QuadMesh", {"Size": [1e300, 1.0]})
    box = slot.add_component("[FrooxEngine]FrooxEngine.BoxMesh", {"Size": [1.0, 1.0, 1.0]})
    bad = slot.add_component(
        "[FrooxEngine]FrooxEngine.PBS_Metallic",
        {"AlbedoColor": [1e308, float("nan"), 1.0, 1.0, "sRGB"], "Metallic": float("inf")},
    )
    hot = slot.add_component(
        "[FrooxEngine]FrooxEngine.PBS_Metallic", {"EmissiveColor": [1e308, 0.0, 0.0, 1.0, "sRGB"]}
    )
    for mesh, material in ((quad, bad), (box, bad), (box, hot)):
        slot.add_component(
            "[FrooxEngine]FrooxEngine.MeshRenderer",
            {"Mesh": mesh, "Materials": SyncList([material])},
        )
    document, report = export_gltf(tree)
    assert any("not finite" in w for w in report.warnings)
    assert report.meshes == 2 and report.materials == 2
    glb = document.glb()  # raised ValueError before the fix
    (length,) = struct.unpack_from("<I", glb, 12)
    doc = json.loads(glb[20 : 20 + length])
    assert all(
        0.0 <= c <= 1.0
        for m in doc["materials"]
        for c in m["pbrMetallicRoughness"].get("baseColorFactor", [])
    )


def test_committed_fixtures_are_what_the_script_makes(tmp_path: Path) -> None:
    import importlib.util

    script = ROOT / "fixtures" / "gltf" / "make_gltf_fixtures.py"
    spec = importlib.util.spec_from_file_location("make_gltf_fixtures", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for out in module.write(tmp_path):
        committed = ROOT / "fixtures" / "gltf" / out.name
        assert out.read_bytes() == committed.read_bytes(), f"run {script.name} ({out.name})"


TREES = loadable_trees()


@pytest.mark.skipif(built("_tscnc") is None, reason="the compiled slot reader is not built")
@pytest.mark.parametrize("name", sorted(TREES))
def test_same_document_with_and_without_the_slot_reader(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each slot's members read in C (model.slothead) or through its properties: the same glTF
    document and report, or the same error, on every sample and fixture."""

    def export() -> str:
        try:
            document, report = export_gltf(TREES[name])
        except brson.BrsonError as exc:
            return f"error {type(exc).__name__}: {exc}"
        return json.dumps([document.finish(), report.as_dict()], sort_keys=True, default=repr)

    monkeypatch.setattr(slothead, "_tscnc", built("_tscnc"))
    fast = export()
    monkeypatch.setattr(slothead, "_tscnc", None)
    assert fast == export()


def test_copies_of_a_procedural_mesh_are_generated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Providers that differ only in their IDs (copies of a prefab) share one generated mesh;
    one whose fields differ gets its own; the document is the one generating each gives."""
    from brson.gltf import procedural
    from brson.model.edit import SyncList

    tree = brson.load(ROOT / "fixtures" / "tiny.brson")
    for number, bevel in enumerate([0.1, 0.1, 0.1, 0.2]):
        slot = tree.root.add_child(f"Box {number}")
        box = slot.add_component(
            "[FrooxEngine]FrooxEngine.BevelBoxMesh", {"Size": [1.0, 2.0, 3.0], "Bevel": bevel}
        )
        slot.add_component(
            "[FrooxEngine]FrooxEngine.MeshRenderer", {"Mesh": box, "Materials": SyncList([])}
        )
    generated: list[str] = []
    generate = procedural.generate

    def counting(component: Component) -> Mesh | None:
        generated.append(str(component.id))
        return generate(component)

    monkeypatch.setattr(procedural, "generate", counting)
    document, report = export_gltf(tree)
    assert len(generated) == 2 and report.meshes == 4
    shared = json.dumps(document.finish(), sort_keys=True) + document.glb().hex()
    # each provider generated on its own: the same document
    monkeypatch.setattr("brson.gltf.export._provider_key", lambda component: None)
    generated.clear()
    document, report = export_gltf(tree)
    assert len(generated) == 4
    assert json.dumps(document.finish(), sort_keys=True) + document.glb().hex() == shared


def test_glb_json_chunk_is_json_dumps_in_pieces(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The .glb's JSON chunk (the nodes kept and written as text, a node at a time) is byte
    for byte the whole document's compact ``json.dumps``, and the .gltf's text (the nodes a
    batch at a time) its ``json.dumps(indent=1)``: on the largest sample (batches smaller
    than its node count, not a divisor of it) and on edges (no keys, an empty array, an array
    of exactly one batch and of one batch and one more)."""
    from brson.gltf import document as gltf_document

    monkeypatch.setattr(gltf_document, "_BATCH", 10)
    package = load_package(SAMPLES / "mar_coresys.resonitepackage")
    document, _report = export_gltf(package.tree)
    assert document.count("nodes") > 10 and document.count("nodes") % 10
    whole = json.dumps(document.finish(), separators=(",", ":"), allow_nan=False)
    data = document.glb()
    (length,) = struct.unpack_from("<I", data, 12)
    assert data[20 : 20 + length].rstrip(b" ") == whole.encode("utf-8")
    written = document.save(tmp_path / "out.gltf")
    indented = json.dumps(document.finish("out.bin"), indent=1, allow_nan=False)
    assert written[0].read_bytes() == indented.encode("utf-8")
    for value in ({}, {"a": [], "b": {"c": ["\u00e9", 1.5]}}, {"a": [1] * 10}, {"a": [{}] * 11}):
        pieces = gltf_document._compact_json(value)
        assert b"".join(pieces) == json.dumps(value, separators=(",", ":")).encode()
        pieces = gltf_document._indented_json(value)
        assert b"".join(pieces) == json.dumps(value, indent=1).encode()
