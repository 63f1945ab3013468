"""``brson extract``: files in, files out, exit codes, and the package form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import brson
from brson.cli.app import main
from brson.codecs import Codec
from brson.ops.extract import HOLDER_NAME, extract
from brson.package import load_package

PNG = "30a0bc21f298c2e75427245468405849b6c7ea67eb9ced14ecbc5dc1ef3eabb3"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args])
    out, err = capsys.readouterr()
    return code, out, err


def test_extract_writes_an_archive_and_reports(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mat.brson"
    code, stdout, _ = run(
        capsys,
        "extract",
        str(samples_dir / "orange3134_loading_standin.brson"),
        "--slot",
        "UserIconMat",
        "-o",
        str(out),
        "-v",  # the lists (the default is a summary: tests/ops/test_extract_summary.py)
    )
    assert code == 0
    assert "extracted 'LoadingStandin - Thumbnail v1.3.1/Visual/UserIconMat'" in stdout
    assert "UserIconTex:StaticTexture2D -> UserIconMat/Extracted Dependencies" in stdout
    tree = brson.load(out)
    assert tree.root.name == "UserIconMat"
    assert tree.container is not None and tree.container.codec is Codec.BROTLI
    assert [k.name for k in tree.root.children] == [HOLDER_NAME]


def test_extract_json_report_and_codec(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "group.lz4bson"
    code, stdout, _ = run(
        capsys,
        "extract",
        str(samples_dir / "orange3134_loading_standin.brson"),
        "-s",
        "00000186-0000-0000-0000-000000000000",
        "-o",
        str(out),
        "--json",
        "--external",
        "null",
        "--no-dependencies",
    )
    assert code == 0
    report = json.loads(stdout)
    assert report["output"] == str(out) and report["copied"] == []
    assert {e["action"] for e in report["external"]} == {"nulled"}
    assert len(report["external"]) > 2  # components stay outside too without dependencies
    tree = brson.load(out)
    assert tree.container is not None and tree.container.codec is Codec.LZ4
    assert tree.root.id == "00000186-0000-0000-0000-000000000000"


def test_extract_keeps_neosvr_framing(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = str(samples_dir / "redx_5ce7cdf5.7zbson")
    legacy, frdt = tmp_path / "legacy.7zbson", tmp_path / "frdt.7zbson"
    assert run(capsys, "extract", src, "-s", "Visual", "-o", str(legacy))[0] == 0
    assert run(capsys, "extract", src, "-s", "Visual", "-o", str(frdt), "--frdt")[0] == 0
    assert not legacy.read_bytes().startswith(b"FrDT")
    assert frdt.read_bytes().startswith(b"FrDT")
    assert brson.load(legacy).to_bson() == brson.load(frdt).to_bson()


@pytest.mark.parametrize(
    ("selector", "extra", "message"),
    [
        ("Outline", (), "matches 3 slots"),
        ("Nothing Here", (), "no slot matches"),
        (
            "Holder/World Publisher/Submitter/Submit Button",
            ("--external", "fail"),
            "1 reference(s) leave the extracted subtree",
        ),
    ],
)
def test_extract_errors_exit_2(
    samples_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    selector: str,
    extra: tuple[str, ...],
    message: str,
) -> None:
    out = tmp_path / "x.brson"
    code, _, err = run(
        capsys,
        "extract",
        str(samples_dir / "redx_5ce7cdf5.7zbson"),
        "--slot",
        selector,
        "-o",
        str(out),
        *extra,
    )
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_extract_package_keeps_the_png(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = samples_dir / "orange3134_loading_standin.resonitepackage"
    out = tmp_path / "standin-visual.resonitepackage"
    code, stdout, _ = run(
        capsys, "extract", str(src), "--slot", "Visual", "-o", str(out), "--package"
    )
    assert code == 0 and f"1 package asset(s): {PNG}" in stdout
    package = load_package(out)
    source = load_package(src)
    assert list(package.assets) == [PNG]
    assert package.assets[PNG] == source.assets[PNG]
    assert package.metadata == source.metadata
    assert package.warnings == []
    assert package.record["name"] == "Visual"
    assert [k for k in package.record] == [k for k in source.record]
    assert package.tree.root.name == "Visual"
    assert package.tree.to_bson() == extract(source.tree, "Visual").tree.to_bson()
    # A subtree naming no asset makes a package with none.
    bare = tmp_path / "bare.resonitepackage"
    assert run(capsys, "extract", str(src), "-s", "UserUserID", "-o", str(bare))[0] == 0
    assert dict(load_package(bare).assets) == {}


def test_extract_package_needs_a_package_source(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = str(samples_dir / "orange3134_loading_standin.brson")
    code, _, err = run(
        capsys,
        "extract",
        src,
        "-s",
        "Visual",
        "-o",
        str(tmp_path / "v.resonitepackage"),
        "--package",
    )
    assert code == 2 and "is not a package" in err
    plain = tmp_path / "plain.resonitepackage"
    assert run(capsys, "extract", src, "-s", "UserUserID", "-o", str(plain))[0] == 0
    package = load_package(plain)
    assert package.record["name"] == "UserUserID" and dict(package.assets) == {}


def test_package_commands_read_through_brson_load(
    samples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pkg = str(samples_dir / "orange3134_loading_standin.resonitepackage")
    code, stdout, _ = run(capsys, "info", pkg, "--json")
    assert code == 0 and json.loads(stdout)[0]["slots"] == 36


@pytest.mark.parametrize(
    ("name", "codec", "expected"),
    [
        ("x.bson", (), Codec.NONE),
        ("x.out", ("--codec", "none"), Codec.NONE),
        ("x.brson", ("--codec", "none"), Codec.NONE),
        ("x.out", (), Codec.BROTLI),  # no codec in the name: the source's
    ],
)
def test_extract_codec_none_is_honoured(
    samples_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    codec: tuple[str, ...],
    expected: Codec,
) -> None:
    """Codec.NONE is 0: an ``or`` chain took it for "not given" and wrote Brotli."""
    out = tmp_path / name
    assert (
        run(
            capsys,
            "extract",
            str(samples_dir / "orange3134_loading_standin.brson"),
            "-s",
            "Visual",
            "-o",
            str(out),
            *codec,
        )[0]
        == 0
    )
    tree = brson.load(out)
    assert tree.container is not None and tree.container.codec is expected
    assert (
        tree.to_bson()
        == extract(
            brson.load(samples_dir / "orange3134_loading_standin.brson"), "Visual"
        ).tree.to_bson()
    )


def test_extract_never_overwrites_its_input(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "standin.brson"
    original = (samples_dir / "orange3134_loading_standin.brson").read_bytes()
    copy.write_bytes(original)
    code, _, err = run(capsys, "extract", str(copy), "-s", "Visual", "-o", str(copy))
    assert code == 2 and "never writes over its inputs" in err
    assert copy.read_bytes() == original


def test_package_flag_needs_a_package_name(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A zip written as ``x.brson`` could not be read back by brson or Resonite."""
    out = tmp_path / "visual.brson"
    code, _, err = run(
        capsys,
        "extract",
        str(samples_dir / "orange3134_loading_standin.resonitepackage"),
        "-s",
        "Visual",
        "-o",
        str(out),
        "--package",
    )
    assert code == 2 and ".resonitepackage" in err and "Traceback" not in err
    assert not out.exists()


def test_extract_from_a_package_to_a_bare_archive_says_what_is_left_behind(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The subtree names the package's PNG by ``packdb:///``: a bare archive cannot hold it,
    so the warning counts it, names it and suggests --package; the JSON report lists it."""
    package = str(samples_dir / "orange3134_loading_standin.resonitepackage")
    out = tmp_path / "tex.brson"
    code, _, err = run(capsys, "extract", package, "--slot", "Visual/UserIconTex", "-o", str(out))
    assert code == 0 and out.is_file()
    assert f"1 package asset(s) the subtree names are left behind ({PNG})" in err
    assert "--package" in err
    code, stdout, _ = run(capsys, "extract", package, "-s", "Visual", "-o", str(out), "--json")
    assert code == 0 and json.loads(stdout)["package_assets_left_behind"] == [PNG]
    # nothing to leave behind: no warning (a subtree without the texture, or a package output)
    code, _, err = run(
        capsys, "extract", package, "-s", "AutoSetScale - (21 Nodes)", "-o", str(out)
    )
    assert code == 0 and "left behind" not in err
    code, _, err = run(
        capsys, "extract", package, "-s", "Visual", "-o", str(tmp_path / "v.resonitepackage")
    )
    assert code == 0 and "left behind" not in err
