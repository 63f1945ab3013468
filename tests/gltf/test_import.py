"""import-gltf: a glTF export imported back into a package that validates clean, whose export
gives the same geometry (positions and indices) and the same texture bytes."""

from __future__ import annotations

import contextlib
import struct
from pathlib import Path

import numpy as np
import pytest

from brson.cli.app import main
from brson.gltf.importer import _Reader
from tests.gltf.conftest import AVATAR, HANDEDNESS
from tests.gltf.test_engines import gltf_json


def _reader(path: Path) -> _Reader:
    data = path.read_bytes()
    (length,) = struct.unpack_from("<I", data, 12)
    (bin_len,) = struct.unpack_from("<I", data, 20 + length)
    return _Reader(gltf_json(path), [data[28 + length : 28 + length + bin_len]])


@pytest.mark.parametrize("source", [AVATAR, HANDEDNESS], ids=lambda p: p.name)
def test_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: Path) -> None:
    first, package, second = tmp_path / "a.glb", tmp_path / "b.resonitepackage", tmp_path / "c.glb"
    assert main(["export-gltf", str(source), "-o", str(first)]) == 0
    assert main(["import-gltf", str(first), "-o", str(package)]) == 0
    assert main(["validate", "--strict", str(package)]) == 0, capsys.readouterr().out
    assert main(["export-gltf", str(package), "-o", str(second)]) == 0
    a, b = _reader(first), _reader(second)
    assert len(a.doc["meshes"]) == len(b.doc["meshes"])
    for ma, mb in zip(a.doc["meshes"], b.doc["meshes"], strict=True):
        for pa, pb in zip(ma["primitives"], mb["primitives"], strict=True):
            pos_a = a.accessor(pa["attributes"]["POSITION"])
            pos_b = b.accessor(pb["attributes"]["POSITION"])
            assert np.allclose(pos_a, pos_b, atol=1e-6)
            assert np.array_equal(a.accessor(pa["indices"]), b.accessor(pb["indices"]))

    def base_images(r: _Reader) -> list[bytes]:
        out = []
        for m in r.doc.get("materials", []):
            tex = m["pbrMetallicRoughness"].get("baseColorTexture")
            if tex is not None:
                source_index = r.doc["textures"][tex["index"]]["source"]
                out.append(r.image(source_index, None))
        return out

    assert base_images(a) == base_images(b)
    assert base_images(a)


def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.glb"
    bad.write_bytes(b"glTF\x02\x00\x00\x00")
    assert main(["import-gltf", str(bad), "-o", str(tmp_path / "x.resonitepackage")]) == 2
    err = capsys.readouterr().err
    assert "bad.glb" in err and "Traceback" not in err


@pytest.mark.slow
def test_mutated_files_raise_only_brson_errors(tmp_path: Path) -> None:
    import random

    from brson.errors import BrsonError
    from brson.gltf.importer import import_gltf

    glb = tmp_path / "a.glb"
    assert main(["export-gltf", str(AVATAR), "-o", str(glb)]) == 0
    data = glb.read_bytes()
    rng = random.Random(3)
    for _ in range(300):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        with contextlib.suppress(BrsonError):
            import_gltf(bytes(mutated), "x")


@pytest.mark.engine  # the Khronos glTF-Validator
def test_validator_agrees_on_what_import_refuses(tmp_path: Path) -> None:
    """The accessor rules import-gltf enforces are the glTF 2.0 spec's: the Khronos
    glTF-Validator reports an error in every file import-gltf refuses for its accessors, and
    none in the valid interleaved (strided) layout it imports."""
    from brson.errors import BrsonError
    from brson.gltf.importer import import_gltf
    from tests.gltf.hostile import BAD_ACCESSORS, glb, interleaved, triangle_glb
    from tests.gltf.tools import validate

    paths = []
    for n, changes in enumerate(BAD_ACCESSORS):
        data = triangle_glb(**changes)
        with pytest.raises(BrsonError):
            import_gltf(data, "bad")
        paths.append(tmp_path / f"bad{n}.glb")
        paths[-1].write_bytes(data)
    good = tmp_path / "interleaved.glb"
    good.write_bytes(glb(*interleaved()))
    import_gltf(good.read_bytes(), "good")
    *bad_reports, good_report = validate(*paths, good)
    for changes, report in zip(BAD_ACCESSORS, bad_reports, strict=True):
        assert report["errors"] > 0, (changes, report)
    assert good_report["errors"] == 0, good_report
