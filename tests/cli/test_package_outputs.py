"""convert and from-json with a ``.resonitepackage`` output write a package (a zip with the
tree and the assets it names), not a bare archive under a package's name that neither brson
nor Resonite can read (found by the conformance matrix: both exited 0 with such a file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brson.cli.app import main
from brson.package import load_package

STANDIN = "orange3134_loading_standin"
PNG = "30a0bc21f298c2e75427245468405849b6c7ea67eb9ced14ecbc5dc1ef3eabb3"


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, capsys.readouterr().err


def test_convert_package_to_package(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.resonitepackage"
    assert run(capsys, "convert", samples_dir / f"{STANDIN}.resonitepackage", out)[0] == 0
    package = load_package(out)
    assert list(package.assets) == [PNG]
    assert (
        package.tree.to_bson()
        == load_package(samples_dir / f"{STANDIN}.resonitepackage").tree.to_bson()
    )


def test_archive_naming_package_assets_cannot_become_a_package(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.resonitepackage"
    code, err = run(capsys, "convert", samples_dir / f"{STANDIN}.brson", out)
    assert code == 2 and PNG in err and not out.exists()


def test_from_json_to_package(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    form = tmp_path / "x.json"
    source = samples_dir / "orange3134_AvatarRootIdentification.brson"
    assert run(capsys, "to-json", source, "-o", form)[0] == 0
    out = tmp_path / "out.resonitepackage"
    assert run(capsys, "from-json", form, "-o", out)[0] == 0
    assert load_package(out).tree.root.name == "Avatar Root Identification"
