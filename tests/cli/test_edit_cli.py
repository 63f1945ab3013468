"""The edit commands: files in, files out, what they print, and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import brson
from brson.cli.app import main
from brson.codecs import Codec
from brson.model.numbering import sequential_id
from brson.ops.variables import find
from brson.package import load_package

AVATAR_ROOT = "orange3134_AvatarRootIdentification.brson"
STANDIN = "orange3134_loading_standin.brson"
STANDIN_PKG = "orange3134_loading_standin.resonitepackage"
REDX = "redx_5ce7cdf5.7zbson"
PNG = "30a0bc21f298c2e75427245468405849b6c7ea67eb9ced14ecbc5dc1ef3eabb3"


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def src(samples_dir: Path) -> Path:
    return samples_dir


def test_set_a_component_field(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.brson"
    code, stdout, _ = run(
        capsys, "set", src / STANDIN, "Visual:MeshRenderer.ShadowCastMode", "Off", "-o", out
    )
    assert code == 0 and stdout == "Visual:MeshRenderer.ShadowCastMode: On -> Off\n"
    tree = brson.load(out)
    visual = tree.find("Visual")
    assert visual is not None
    assert visual.find_component("MeshRenderer")["ShadowCastMode"].value == "Off"  # type: ignore[index]
    original = brson.load(src / STANDIN)
    assert [c.to_bson() for c in tree.components() if c.slot is not visual] == [
        c.to_bson() for c in original.components() if c.slot is not None and c.slot.name != "Visual"
    ]


def test_set_slot_members_and_kinds(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.7zbson"
    assert run(capsys, "set", src / REDX, "Holder.Position", "1,2,3", "-o", out)[0] == 0
    tree = brson.load(out)
    assert tree.root.position == [1.0, 2.0, 3.0]
    assert tree.container is not None and tree.container.legacy  # NeosVR framing kept
    assert run(capsys, "set", src / REDX, "Holder.OrderOffset", "7", "-o", out)[0] == 0
    offset = brson.load(out).root.member("OrderOffset")
    assert offset is not None and offset.value == 7 and offset.etype("Data") == 0x12


def test_set_a_reference_by_id(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.brson"
    target = sequential_id(0x1C)  # the Visual slot
    code, _, _ = run(
        capsys, "set", src / STANDIN, "UserIconMat:UnlitMaterial.Texture", "null", "-o", out
    )
    assert code == 0
    code, _, err = run(
        capsys, "set", src / STANDIN, "UserIconMat:UnlitMaterial.MaskTexture", target, "-o", out
    )
    assert code == 0, err
    mat = brson.load(out).find("UserIconMat")
    assert mat is not None and mat.components[0]["MaskTexture"].value == target
    code, _, err = run(
        capsys,
        "set",
        src / STANDIN,
        "UserIconMat:UnlitMaterial.MaskTexture",
        sequential_id(0xFFF),
        "-o",
        out,
    )
    assert code == 2 and "no element has the ID" in err


def test_rename_move_delete(src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b, c = tmp_path / "a.brson", tmp_path / "b.brson", tmp_path / "c.brson"
    assert run(capsys, "rename", src / STANDIN, "Visual", "Look", "-o", a)[1] == (
        "renamed 'LoadingStandin - Thumbnail v1.3.1/Visual' -> "
        "'LoadingStandin - Thumbnail v1.3.1/Look'\n"
    )
    assert (
        run(
            capsys,
            "move",
            a,
            "UserIconMat",
            "--to",
            "LoadingStandin - Thumbnail v1.3.1",
            "--index",
            "0",
            "-o",
            b,
        )[0]
        == 0
    )
    tree = brson.load(b)
    assert [k.name for k in tree.root.children][:2] == ["UserIconMat", "Look"]
    code, stdout, _ = run(capsys, "delete", b, "Look", "-o", c, "--json")
    assert code == 0
    report = json.loads(stdout)
    assert report["path"] == "LoadingStandin - Thumbnail v1.3.1/Look"
    assert {r["action"] for r in report["references"]} == {"nulled"}
    assert len(report["references"]) == 7
    final = brson.load(c)
    assert final.find("Look") is None
    assert all(v in final.ids for _, v in final.ids.values)


def test_delete_a_component_and_reference_policies(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.brson"
    code, stdout, _ = run(
        capsys,
        "delete",
        src / STANDIN,
        "Visual",
        "-c",
        "QuadMesh",
        "--references",
        "report",
        "-o",
        out,
    )
    assert code == 0
    assert "deleted 'LoadingStandin - Thumbnail v1.3.1/Visual:QuadMesh'" in stdout
    assert "1 reference(s) to it kept:" in stdout
    visual = brson.load(out).find("Visual")
    assert visual is not None
    assert [c.type.name for c in visual.components] == ["MeshRenderer", "RenderTransformOverride"]
    code, _, err = run(
        capsys,
        "delete",
        src / STANDIN,
        "Visual",
        "--references",
        "fail",
        "-o",
        tmp_path / "no.brson",
    )
    assert code == 2 and "6 reference(s) point into what would be removed" in err
    assert not (tmp_path / "no.brson").exists()


def test_vars_lists_text_and_json(src: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, _ = run(capsys, "vars", src / AVATAR_ROOT)
    assert code == 0
    lines = stdout.splitlines()
    assert len(lines) == 9
    assert lines[0].split() == [
        "modular_avatar/AvatarWorn",
        "bool",
        "false",
        "@",
        "Avatar",
        "Root",
        "Identification",
    ]
    assert "string (field)" in lines[5]
    code, stdout, _ = run(capsys, "vars", src / STANDIN_PKG, "--json")
    rows = json.loads(stdout)
    assert code == 0 and len(rows) == 8
    assert rows[0]["name"] == "RedprintPack/Color" and rows[0]["type"] == "colorX"
    assert run(capsys, "vars", src / REDX)[1] == "no dynamic variables\n"


def test_set_var_round_trip(src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.brson"
    code, stdout, _ = run(
        capsys,
        "set-var",
        src / AVATAR_ROOT,
        "modular_avatar/AvatarWorn=true",
        "RedprintPack/Color=#00ff00",
        "Title=a=b",
        "-o",
        out,
    )
    assert code == 0
    assert stdout.splitlines()[0] == (
        "modular_avatar/AvatarWorn: false -> true  (Avatar Root Identification)"
    )
    tree = brson.load(out)
    assert find(tree, "modular_avatar/AvatarWorn")[0].value is True
    assert find(tree, "RedprintPack/Color")[0].value == [0.0, 1.0, 0.0, 1.0, "sRGB"]
    assert find(tree, "Title")[0].value == "a=b"  # split at the first '='


def test_set_var_ambiguity_and_all(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.brson"
    code, _, err = run(capsys, "set-var", src / STANDIN, "RedprintPack/Name=X", "-o", out)
    assert code == 2 and "2 variables are named 'RedprintPack/Name'" in err
    assert not out.exists()
    assert run(capsys, "set-var", src / STANDIN, "RedprintPack/Name=X", "--all", "-o", out)[0] == 0
    assert [v.value for v in find(brson.load(out), "RedprintPack/Name")] == ["X", "X"]
    code, _, err = run(capsys, "set-var", src / STANDIN, "RedprintPack/Name", "-o", out)
    assert code == 2 and "is not NAME=VALUE" in err


def test_renumber(src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.7zbson", tmp_path / "b.7zbson"
    assert run(capsys, "renumber", src / REDX, "-o", a)[1] == f"renumbered 1362 IDs -> {a}\n"
    assert run(capsys, "renumber", a, "-o", b)[0] == 0
    assert a.read_bytes() == b.read_bytes()
    assert sorted(brson.load(a).ids) == [sequential_id(n) for n in range(1362)]


def test_import_into_an_archive_and_a_package(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.brson"
    code, stdout, _ = run(
        capsys,
        "import",
        src / AVATAR_ROOT,
        src / STANDIN,
        "-s",
        "Visual",
        "-p",
        "Avatar Root Identification",
        "--index",
        "0",
        "-o",
        out,
        "--json",
    )
    assert code == 0
    report = json.loads(stdout)
    assert report["target"] == "Avatar Root Identification/Visual" and report["ids"] == 147
    tree = brson.load(out)
    assert tree.root.children[0].name == "Visual"
    assert all(v in tree.ids for _, v in tree.ids.values) and not tree.ids.duplicates
    # Into a package: the imported texture's PNG comes from the source package.
    pkg_out = tmp_path / "out.resonitepackage"
    code, _, err = run(
        capsys, "import", src / AVATAR_ROOT, src / STANDIN_PKG, "-s", "Visual", "-o", pkg_out
    )
    assert code == 0, err
    package = load_package(pkg_out)
    assert list(package.assets) == [PNG]
    # From a plain archive there is nothing to take the PNG from.
    code, _, err = run(
        capsys,
        "import",
        src / AVATAR_ROOT,
        src / STANDIN,
        "-s",
        "Visual",
        "-o",
        tmp_path / "no.resonitepackage",
    )
    assert code == 2 and "no input is a package" in err


def test_import_refusals_exit_2(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.brson"
    code, _, err = run(capsys, "import", src / AVATAR_ROOT, src / REDX, "-s", "Holder", "-o", out)
    assert code == 2 and "cannot import from a NeosVR" in err and err.count("\n") == 1
    code, _, err = run(capsys, "import", src / AVATAR_ROOT, src / STANDIN, "-s", "Relay", "-o", out)
    assert code == 2 and "matches 4 slots" in err
    assert not out.exists()


def test_output_codec_and_input_protection(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.lz4bson"
    assert (
        run(capsys, "rename", src / AVATAR_ROOT, "Avatar Root Identification", "X", "-o", out)[0]
        == 0
    )
    tree = brson.load(out)
    assert tree.container is not None and tree.container.codec is Codec.LZ4
    copy = tmp_path / "copy.brson"
    copy.write_bytes((src / AVATAR_ROOT).read_bytes())
    code, _, err = run(capsys, "rename", copy, "Avatar Root Identification", "X", "-o", copy)
    assert code == 2 and "never writes over its inputs" in err
    assert copy.read_bytes() == (src / AVATAR_ROOT).read_bytes()
    # Nor OTHER, the archive an import reads from.
    code, _, err = run(capsys, "import", src / STANDIN, copy, "-s", "PackedComment", "-o", copy)
    assert code == 2 and "never writes over its inputs" in err
    assert copy.read_bytes() == (src / AVATAR_ROOT).read_bytes()
    # --codec none is a choice, not "not given" (Codec.NONE is 0, so an `or` chain lost it).
    for name in ("plain.out", "plain.brson"):
        assert (
            run(
                capsys,
                "rename",
                src / AVATAR_ROOT,
                "Avatar Root Identification",
                "X",
                "-o",
                tmp_path / name,
                "--codec",
                "none",
            )[0]
            == 0
        )
        written = brson.load(tmp_path / name)
        assert written.container is not None and written.container.codec is Codec.NONE
        assert written.root.name == "X"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("set", AVATAR_ROOT, "Nowhere.Name", "x"), "no slot matches"),
        (("set", AVATAR_ROOT, "Avatar Root Identification.Active", "maybe"), "not a bool"),
        (("rename", AVATAR_ROOT, "Nowhere", "x"), "no slot matches"),
        (
            ("move", AVATAR_ROOT, "Avatar Root Identification", "--index", "0"),
            "root slot cannot be moved",
        ),
        (("move", AVATAR_ROOT, "PackedComment"), "give --to PARENT, --index N or both"),
        (("delete", AVATAR_ROOT, "Avatar Root Identification"), "root slot cannot be deleted"),
        (("delete", AVATAR_ROOT, "PackedComment", "-c", "Nothing"), "no 'Nothing' component"),
        (("set-var", AVATAR_ROOT, "Bounds=1,2,3"), "cannot set a value of this kind"),
    ],
)
def test_errors_exit_2_with_one_line(
    src: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    message: str,
) -> None:
    out = tmp_path / "out.brson"
    command, name, *rest = args
    code, _, err = run(capsys, command, src / name, *rest, "-o", out)
    assert code == 2 and message in err and "Traceback" not in err
    assert not out.exists()


def test_set_a_null_field_needs_a_type(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.brson"
    target = "PackedComment:DynamicValueVariable<string>[1].Value"  # Description, now null
    code, _, err = run(capsys, "set", src / AVATAR_ROOT, target, "hello", "-o", out)
    assert code == 2 and "cannot set a value of this kind" in err and not out.exists()
    code, stdout, _ = run(
        capsys, "set", src / AVATAR_ROOT, target, "hello", "--type", "string", "-o", out
    )
    assert code == 0 and stdout == f"{target}: null -> hello\n"
    assert find(brson.load(out), "Description")[0].value == "hello"
