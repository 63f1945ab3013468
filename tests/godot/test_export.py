"""Scene export without an engine: TSCN text per version, names, mapping, metadata, CLI.

The engine checks (tests/godot/test_export_engine.py) prove the files load as intended; these
pin the exact text and the rules, and run everywhere in milliseconds.
"""

from __future__ import annotations

import datetime
import hashlib
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import brson
from brson.cli.app import main
from brson.errors import ModelError, VariantError
from brson.godot import Basis, Color, Transform3D, Vector2, Vector3, loads
from brson.godot.export import (
    FALLBACK_NAME,
    META_ASSETS,
    META_COMPONENTS,
    META_DOCUMENT,
    META_SLOT,
    export_scene,
    export_variant,
    slot_tree_value,
)
from brson.godot.tscn import (
    SceneNode,
    SubResource,
    escape,
    layout,
    literal,
    sanitize_name,
    unique_names,
    write,
)
from brson.model.tree import DataTree

from .export_cases import AWKWARD_NAMES, load_cases, sample_paths, synthetic_tree

STANDIN = "orange3134_loading_standin.brson"


@pytest.fixture(scope="module")
def cases() -> dict[str, DataTree]:
    return load_cases()


# --- names ------------------------------------------------------------------------------------


def test_names_follow_each_engines_set_name() -> None:
    # The examples checked on the engines (../shared/notes/godot.md section 7).
    raw = 'Bad.name:with@chars/and"quote%pct'
    assert sanitize_name(raw, 3) == "Badnamewithcharsandquote%pct"
    assert sanitize_name(raw, 4) == "Bad_name_with_chars_and_quote_pct"
    assert sanitize_name("...", 3, "Slot") == "Slot"
    assert sanitize_name("...", 4, "Slot") == "___"
    assert sanitize_name(None, 4, "Slot") == "Slot"
    assert sanitize_name("a\x00b", 3) == "ab"
    assert sanitize_name(" tab\t[x] = ☃ ", 4) == " tab\t[x] = ☃ "  # legal as is


def test_sibling_names_become_unique_without_stealing_names() -> None:
    assert unique_names(["A", "A", "A"]) == ["A", "A2", "A3"]
    assert unique_names(["A", "A", "A2"]) == ["A", "A3", "A2"]
    assert unique_names(["x2", "x", "x"]) == ["x2", "x", "x3"]
    assert unique_names([]) == []


def test_layout_sanitises_per_version_then_dedups() -> None:
    root = SceneNode(
        "Ro.ot",
        "Node3D",
        children=[
            SceneNode(name, "Node3D", children=[SceneNode("leaf", "Node3D")])
            for name in ("Root", "a.b", "a_b", "", "%p")
        ],
    )
    names3 = [p.name for p in layout(root, 3, "Slot")]
    names4 = [p.name for p in layout(root, 4, "Slot")]
    assert names3 == [
        "Root",
        "Root",
        "leaf",
        "ab",
        "leaf",
        "a_b",
        "leaf",
        "Slot",
        "leaf",
        "%p",
        "leaf",
    ]
    assert names4 == [
        "Ro_ot",
        "Root",
        "leaf",
        "a_b",
        "leaf",
        "a_b2",
        "leaf",
        "Slot",
        "leaf",
        "_p",
        "leaf",
    ]
    paths4 = [(p.parent, p.path) for p in layout(root, 4, "Slot")][:6]
    assert paths4 == [
        (None, "."),
        (".", "Root"),
        ("Root", "Root/leaf"),
        (".", "a_b"),
        ("a_b", "a_b/leaf"),
        (".", "a_b2"),
    ]


# --- literals ---------------------------------------------------------------------------------

COLUMNS = Transform3D(
    Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12)
)


@pytest.mark.parametrize(
    ("value", "text3", "text4"),
    [
        (
            COLUMNS,
            "Transform( 1, 4, 7, 2, 5, 8, 3, 6, 9, 10, 11, 12 )",
            "Transform3D(1, 4, 7, 2, 5, 8, 3, 6, 9, 10, 11, 12)",
        ),
        (Vector3(0.5, -0.0, 1e-05), "Vector3( 0.5, -0, 1e-05 )", "Vector3(0.5, -0, 1e-05)"),
        (Vector2(1, 2), "Vector2( 1, 2 )", "Vector2(1, 2)"),
        (Color(1, 0.5, 0, 1), "Color( 1, 0.5, 0, 1 )", "Color(1, 0.5, 0, 1)"),
        ([1, 2.0, "x"], '[ 1, 2.0, "x" ]', '[1, 2.0, "x"]'),
        ([], "[  ]", "[]"),
        ({}, "{\n}", "{}"),
        ({"b": None, "a": True}, '{\n"b": null,\n"a": true\n}', '{\n"b": null,\n"a": true\n}'),
        (math.inf, "inf", "inf"),
        (-math.inf, "-1e400", "inf_neg"),
        (math.nan, "nan", "nan"),
        (2**63 - 1, "9223372036854775807", "9223372036854775807"),
        (0.0008727497770451009, "8.727497770451009e-4", "8.727497770451009e-4"),
        ('a "q" \\ \n\t\x01', '"a \\"q\\" \\\\ \\n\\t\\u0001"', '"a \\"q\\" \\\\ \\n\\t\\u0001"'),
    ],
)
def test_literals_per_version(value: Any, text3: str, text4: str) -> None:
    assert literal(value, 3) == text3
    assert literal(value, 4) == text4


def test_refuses_what_godot_cannot_hold() -> None:
    with pytest.raises(VariantError, match="int64"):
        literal(2**63, 4)
    with pytest.raises(VariantError, match="cannot write"):
        literal(object(), 3)
    with pytest.raises(VariantError, match="identifier"):
        write(SceneNode("n", "Node3D", metadata={"not valid": 1}), 4)
    with pytest.raises(VariantError, match="version"):
        write(SceneNode("n", "Node3D"), 5)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_keep_every_digit_the_engine_reads(number: float) -> None:
    """Exact in Python, and within the 18 mantissa digits Godot's parser looks at."""
    for godot in (3, 4):
        text = literal(number, godot)
        assert float(text) == number
        assert sum(c.isdigit() for c in text.partition("e")[0]) <= 18
        assert "." in text or "e" in text  # stays a float, not an int, when read back


def test_deep_nesting_needs_no_recursion() -> None:
    deep: list[Any] = []
    inner = deep
    for level in range(5000):
        nxt: list[Any] = []
        inner.append({"k": nxt} if level % 2 else nxt)
        inner = nxt
    text = literal(deep, 3)
    assert text.count("[") == text.count("]") == 5001  # the outer list and 5000 inside
    assert text.count("{") == 2500


def test_escape_is_c_style() -> None:
    assert escape("plain ☃") == "plain ☃"
    assert escape('\\"\r\b\f\x7f') == '\\\\\\"\\r\\b\\f\\u007f'


def test_scene_text_format2_and_format3() -> None:
    mesh = SubResource("QuadMesh", {"size": Vector2(1, 2)})
    root = SceneNode(
        "Root",
        "Spatial",
        {"transform": Transform3D()},
        {"b": 1, "a": "x"},
        [
            SceneNode("M", "MeshInstance", {"mesh": mesh}),
            SceneNode("N", "MeshInstance", {"mesh": mesh, "visible": False}),
        ],
    )
    assert write(root, 3) == (
        "[gd_scene load_steps=2 format=2]\n\n"
        '[sub_resource type="QuadMesh" id=1]\nsize = Vector2( 1, 2 )\n\n'
        '[node name="Root" type="Spatial"]\n'
        "transform = Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 )\n"
        '__meta__ = {\n"a": "x",\n"b": 1\n}\n\n'
        '[node name="M" type="MeshInstance" parent="."]\nmesh = SubResource( 1 )\n\n'
        '[node name="N" type="MeshInstance" parent="."]\nmesh = SubResource( 1 )\n'
        "visible = false\n"
    )
    assert write(root, 4) == (
        "[gd_scene format=3]\n\n"
        '[sub_resource type="QuadMesh" id="QuadMesh_1"]\nsize = Vector2(1, 2)\n\n'
        '[node name="Root" type="Spatial"]\n'
        "transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)\n"
        'metadata/a = "x"\nmetadata/b = 1\n\n'
        '[node name="M" type="MeshInstance" parent="."]\nmesh = SubResource("QuadMesh_1")\n\n'
        '[node name="N" type="MeshInstance" parent="."]\nmesh = SubResource("QuadMesh_1")\n'
        "visible = false\n"
    )
    assert write(SceneNode("only", "Node3D"), 3).startswith("[gd_scene format=2]\n")


# --- export -----------------------------------------------------------------------------------


@pytest.mark.parametrize("godot", [3, 4])
def test_every_slot_becomes_one_node_and_nothing_is_dropped(
    cases: dict[str, DataTree], godot: int
) -> None:
    for name, tree in cases.items():
        scene = export_scene(tree, godot)
        slots = list(tree.walk())
        assert [s for _, s in scene.nodes] == slots, name
        headers = [ln for ln in scene.tscn().splitlines() if ln.startswith("[node ")]
        assert len(headers) == len(slots)  # escaped strings never start a line
        for node, slot in scene.nodes:
            meta = node.metadata
            assert [c["id"] for c in meta[META_COMPONENTS]] == [c.id for c in slot.components]
            assert [c["type"] for c in meta[META_COMPONENTS]] == [
                str(c.type) for c in slot.components
            ]
            assert repr([c["data"] for c in meta[META_COMPONENTS]]) == repr(  # NaN-safe
                [c.data.decoded() for c in slot.components]
            )
            assert set(meta[META_SLOT]) == set(slot.keys()) - {"Children"}
        root_meta = scene.root.metadata
        assert root_meta[META_DOCUMENT].get("VersionNumber") == tree.version_number
        assert (META_ASSETS in root_meta) == ("Assets" in tree)


def test_standin_quad_becomes_a_mesh_instance_with_its_material(cases: dict[str, DataTree]) -> None:
    if STANDIN not in cases:
        pytest.skip("real samples not available")
    scene = export_scene(cases[STANDIN], 3)
    meshed = [(n, s) for n, s in scene.nodes if n.type == "MeshInstance"]
    assert [s.name for _, s in meshed] == ["Visual"]
    node = meshed[0][0]
    mesh, material = node.properties["mesh"], node.properties["material_override"]
    assert (mesh.type, mesh.properties) == ("QuadMesh", {"size": Vector2(1.0, 1.0)})
    assert material.type == "SpatialMaterial"
    assert material.properties == {
        "albedo_color": Color(1.0, 1.0, 1.0, 1.0),
        "flags_unshaded": True,
        "flags_transparent": True,
        "params_cull_mode": 2,
    }
    assert scene.notes == []


def test_synthetic_mapping_per_version() -> None:
    tree = synthetic_tree()
    by_name = {s.name: n for n, s in export_scene(tree, 4).nodes}
    props = {
        name: by_name[name].properties.get("mesh")
        for name in (
            "Box",
            "Sphere",
            "Ico",
            "Cylinder",
            "Tube",
            "Cone",
            "Capsule",
            "Torus",
            "Quad",
            "Bevel",
        )
    }
    summary = {k: (v.type, v.properties) if v else None for k, v in props.items()}
    assert summary == {
        "Box": ("BoxMesh", {"size": Vector3(0.5, 2.0, 0.25)}),
        "Sphere": ("SphereMesh", {"radius": 0.75, "height": 1.5}),
        "Ico": ("SphereMesh", {"radius": 0.3, "height": 0.6}),
        "Cylinder": (
            "CylinderMesh",
            {
                "top_radius": 0.2,
                "bottom_radius": 0.2,
                "height": 1.5,
                "cap_top": True,
                "cap_bottom": True,
            },
        ),
        "Tube": (
            "CylinderMesh",
            {
                "top_radius": 0.1,
                "bottom_radius": 0.1,
                "height": 1.0,
                "cap_top": False,
                "cap_bottom": False,
            },
        ),
        "Cone": (
            "CylinderMesh",
            {
                "top_radius": 0.0,
                "bottom_radius": 0.5,
                "height": 2.0,
                "cap_top": True,
                "cap_bottom": True,
            },
        ),
        "Capsule": ("CapsuleMesh", {"radius": 0.25, "height": 1.5}),
        "Torus": ("TorusMesh", {"inner_radius": 0.75, "outer_radius": 1.25}),
        "Quad": ("QuadMesh", {"size": Vector2(2.0, 0.5)}),
        "Bevel": None,
    }
    # One sub-resource per Resonite component: the borrowed box shares the Box's mesh.
    assert by_name["Borrowed box"].properties["mesh"] is props["Box"]
    assert "mesh" not in by_name["Disabled renderer"].properties
    linear = by_name["Sphere"].properties["material_override"].properties
    albedo = linear["albedo_color"]  # Linear 0.5, 0.25, 1.0 in sRGB
    assert [albedo.r, albedo.g, albedo.b, albedo.a] == pytest.approx([0.735357, 0.537099, 1, 0.5])
    assert linear["shading_mode"] == 0 and linear["transparency"] == 1
    pbs = by_name["Box"].properties["material_override"].properties
    assert pbs == {"albedo_color": Color(1.0, 0.5, 0.0, 1.0), "metallic": 0.75, "roughness": 0.75}
    assert "material_override" not in by_name["Cylinder"].properties  # FresnelMaterial
    godot3 = {s.name: n for n, s in export_scene(tree, 3).nodes}
    assert godot3["Box"].properties["mesh"].type == "CubeMesh"
    assert godot3["Capsule"].type == godot3["Torus"].type == "Spatial"


def test_notes_name_what_godot_cannot_show() -> None:
    notes = export_scene(synthetic_tree(), 3).notes
    assert any("'Ro.ot/Quad turned': QuadMesh Rotation" in n for n in notes)
    assert any("'Ro.ot/Tube': CylinderMesh without caps" in n for n in notes)
    assert any("BevelSoliStripeMesh x1, CapsuleMesh x1, TorusMesh x1" in n for n in notes)
    assert any("FresnelMaterial x1" in n for n in notes)


def test_awkward_names_are_all_reachable() -> None:
    tree = synthetic_tree()
    for godot in (3, 4):
        scene = export_scene(tree, godot)
        placed = layout(scene.root, godot, FALLBACK_NAME)
        top = [p.name for p in placed if p.parent == "."]
        assert len(top) == len(set(top))
        assert len([p for p in placed if p.parent == "."]) == len(tree.root.children)
        bad = './:@"' + ("%" if godot == 4 else "")
        assert not any(c in p.name for p in placed for c in bad)
    assert len(AWKWARD_NAMES) == 18


def test_subtree_root_keeps_its_global_transform(cases: dict[str, DataTree]) -> None:
    tree = cases["synthetic"]
    slot = tree.find("Ro.ot/Transforms/Sheared parent")
    assert slot is not None
    scene = export_scene(tree, 4, slot)
    assert [s for _, s in scene.nodes] == list(slot.walk())
    expected = Transform3D.from_matrix(slot.global_matrix())
    assert scene.root.properties["transform"] == expected
    assert scene.root.properties["transform"] != Transform3D.from_matrix(slot.local_matrix())


@pytest.mark.parametrize("godot", [3, 4])
def test_variant_holds_the_whole_tree(cases: dict[str, DataTree], godot: int) -> None:
    for tree in cases.values():
        value = loads(export_variant(tree, godot), godot=godot)
        assert value["document"] == slot_tree_value(tree)["document"]
        assert len(value["assets"]) == len(tree.assets)
        stack, seen = [value["root"]], []
        while stack:
            item = stack.pop()
            seen.append(item)
            stack.extend(reversed(item["children"]))
        slots = list(tree.walk())
        assert [(v["id"], v["name"], v["active"]) for v in seen] == [
            (s.id, s.name, s.active) for s in slots
        ]
        assert all(isinstance(v["transform"], Transform3D) for v in seen)
        assert [len(v["components"]) for v in seen] == [len(s.components) for s in slots]


@pytest.mark.parametrize("in_bytes", [False, True], ids=["edited", "in the bytes"])
def test_bad_transform_is_one_clear_error(in_bytes: bool) -> None:
    tree = synthetic_tree()
    tree.root.children[0].position = [1.0, "x", 3.0]
    if in_bytes:  # unedited again: the slot's property reads the bad value from the bytes
        tree = brson.loads(brson.dumps(tree))
    for godot in (3, 4):
        with pytest.raises(ModelError, match="Box"):
            export_scene(tree, godot)


def test_edited_slot_exports_its_new_values() -> None:
    tree = brson.loads(brson.dumps(synthetic_tree()))
    slot = tree.root.children[0]
    slot.position = [1.5, 2.5, 3.5]
    slot.name = "edited"
    slot.active = False
    scene = export_scene(tree, 4)
    node = next(n for n, s in scene.nodes if s is slot)
    assert node.name == "edited" and node.properties["visible"] is False
    origin = node.properties["transform"].origin
    assert (origin.x, origin.y, origin.z) == (1.5, 2.5, 3.5)


# --- command line -----------------------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.name)
def test_cli_writes_scene_and_variant(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _digest(path)
    scene, blob = tmp_path / "out.tscn", tmp_path / "out.bin"
    code, out, _ = _run(
        capsys, "export-godot", str(path), "-o", str(scene), "--godot", "3", "--variant", str(blob)
    )
    assert code == 0
    assert scene.read_text(encoding="utf-8").startswith("[gd_scene ")
    assert "format=2]" in scene.read_text(encoding="utf-8").splitlines()[0]
    assert f"{scene}: " in out and "Godot 3 (format=2)" in out
    assert isinstance(loads(blob.read_bytes(), godot=3), dict)
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin", "out.tscn"]  # no temp


def test_cli_subtree_godot4_and_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    redx = next((p for p in sample_paths() if p.name.startswith("redx")), None)
    if redx is None:
        pytest.skip("real samples not available")
    scene = tmp_path / "sub.tscn"
    code, out, err = _run(
        capsys,
        "export-godot",
        str(redx),
        "-o",
        str(scene),
        "--slot",
        "Holder/World Publisher/Submitter/Visual",
    )
    assert code == 0
    text = scene.read_text(encoding="utf-8")
    assert text.startswith("[gd_scene format=3]")
    assert '[node name="Visual" type="MeshInstance3D"]' in text
    assert "4 nodes (2 with a mesh, 2 materials)" in out
    assert "brson: note: slot 'Holder/World Publisher/Submitter/Visual': QuadMesh Rotation" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--godot", "5", "-o", "x.tscn"], "use 3 or 4"),
        ([], "nothing to write"),
        (["-o", "x.tscn", "--slot", "no such slot"], "no slot matches 'no such slot'"),
    ],
)
def test_cli_refusals(
    args: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    paths = sample_paths()
    if not paths:
        pytest.skip("real samples not available")
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(capsys, "export-godot", str(paths[0]), *args)
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_cli_keeps_bson_values_godot_has_no_type_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A BSON datetime (never in real files) stays in metadata as Extended JSON, as in to-json."""
    from brson import api

    tree = synthetic_tree()
    tree.root.children[0].components[0]["Size"].value = datetime.datetime(2020, 1, 1)
    src = tmp_path / "odd.brson"
    api.dump(tree, src)
    when = {"$date": {"$numberLong": "1577836800000"}}
    for godot in ("3", "4"):
        scene, blob = tmp_path / f"x{godot}.tscn", tmp_path / f"x{godot}.bin"
        code, _, err = _run(
            capsys,
            "export-godot",
            str(src),
            "--godot",
            godot,
            "-o",
            str(scene),
            "--variant",
            str(blob),
        )
        assert code == 0, err
        assert '"$date": {' in scene.read_text(encoding="utf-8")
        box = loads(blob.read_bytes(), godot=int(godot))["root"]["children"][0]
        assert box["components"][0]["data"]["Size"]["Data"] == when


def test_values_without_a_godot_type_become_extended_json() -> None:
    from bson import Decimal128, MaxKey, ObjectId, Regex, Timestamp

    odd = [
        datetime.datetime(2020, 1, 1),
        ObjectId("0123456789ab0123456789ab"),
        Decimal128("1.5"),
        Regex("a.*", "i"),
        Timestamp(5, 1),
        MaxKey(),
    ]
    tree = synthetic_tree()
    tree.root.children[0].components[0]["Size"].value = odd
    expected = [
        {"$date": {"$numberLong": "1577836800000"}},
        {"$oid": "0123456789ab0123456789ab"},
        {"$numberDecimal": "1.5"},
        {"$regularExpression": {"pattern": "a.*", "options": "i"}},
        {"$timestamp": {"t": 5, "i": 1}},
        {"$maxKey": 1},
    ]
    for godot in (3, 4):
        text = export_scene(tree, godot).tscn()
        assert '"$oid": "0123456789ab0123456789ab"' in text and '"$maxKey": 1' in text
        value = loads(export_variant(tree, godot), godot=godot)
        box = value["root"]["children"][0]["components"][0]["data"]
        assert box["Size"]["Data"] == expected


def test_writers_refuse_unknown_values_without_default() -> None:
    when = datetime.datetime(2020, 1, 1)
    with pytest.raises(VariantError, match="cannot write a datetime"):
        literal([when], 4)
    assert literal([when], 4, default=str) == '["2020-01-01 00:00:00"]'
    with pytest.raises(VariantError, match="turned datetime into datetime"):
        literal(when, 3, default=lambda v: v)
    with pytest.raises(VariantError, match=r"cannot write a datetime in a TSCN file \(boom"):
        literal(when, 3, default=_boom)


def _boom(value: Any) -> Any:
    raise ValueError(f"boom {value}")


def test_cli_missing_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(
        capsys, "export-godot", str(tmp_path / "nope.brson"), "-o", str(tmp_path / "x.tscn")
    )
    assert code == 2
    assert err.count("\n") == 1 and "no such file" in err


def test_unique_names_many_identical_siblings() -> None:
    """Thousands of siblings with one name (a common layout) stay linear and distinct."""
    names = ["Slot"] * 20_000 + ["Slot3", "Slot"]
    out = unique_names(names)
    assert len(set(out)) == len(out)
    assert out[:4] == ["Slot", "Slot2", "Slot4", "Slot5"]  # Slot3 is another sibling's
    assert out[-2] == "Slot3"
