"""Regression inputs of issue 12's escapes (1-6): hostile data trees that raised something
other than BrsonError through the library, or "internal error" through the CLI."""

from __future__ import annotations

import copy
import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bson
import pytest
from bson.code import Code
from bson.decimal128 import Decimal128

import brson
from brson.cli.app import main

pytestmark = pytest.mark.slow  # every regression input through every command

ROOT = Path(__file__).resolve().parents[2]
STANDIN = ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"
PACKAGE = ROOT.parent / "shared" / "samples" / "orange3134_AvatarRootIdentification.resonitepackage"
BASE: dict[str, Any] = bson.decode(brson.load(STANDIN).to_bson())


def _slots(slot: dict[str, Any]) -> Iterator[dict[str, Any]]:
    stack = [slot]
    while stack:
        s = stack.pop()
        yield s
        stack.extend(s["Children"])


def _code_in_types(d: dict[str, Any]) -> None:
    d["Types"][0] = Code("x")


def _code_as_type(d: dict[str, Any]) -> None:
    d["Object"]["Components"]["Data"][0]["Type"] = Code("[A]B")


def _deep_type_name(d: dict[str, Any]) -> None:
    d["Types"][0] = "A<" * 300 + "B" + ">" * 300


def _blend_mode_document(d: dict[str, Any]) -> None:
    for slot in _slots(d["Object"]):
        for comp in slot["Components"]["Data"]:
            for key in ("BlendMode", "Sidedness", "FilterMode"):
                if key in comp["Data"]:
                    comp["Data"][key]["Data"] = {"x": 1}


HOSTILE = {
    "code-in-types": _code_in_types,
    "code-as-type": _code_as_type,
    "deep-type-name": _deep_type_name,
    "list-in-types": lambda d: d["Types"].__setitem__(1, [1, 2]),
    "document-in-types": lambda d: d["Types"].__setitem__(1, {"a": 1}),
    "decimal-in-types": lambda d: d["Types"].__setitem__(1, Decimal128("1.5")),
    "enum-holding-document": _blend_mode_document,
}

COMMANDS = [
    ("info",),
    ("validate",),
    ("tree", "--components"),
    ("vars",),
    ("refs",),
    ("diff", str(STANDIN)),
    ("extract", "--slot", "Visual", "-o", "{out}.brson"),
    ("import", str(STANDIN), "--slot", "Visual", "-o", "{out}.brson"),
    ("export-godot", "-o", "{out}.tscn"),
    ("export-gltf", "-o", "{out}.glb"),
]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_tree_through_every_command(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = copy.deepcopy(BASE)
    HOSTILE[name](doc)
    path = tmp_path / f"{name}.brson"
    brson.dump(bson.encode(doc), path, "brotli")
    for command, *rest in COMMANDS:
        args = [a.replace("{out}", str(tmp_path / f"out-{command}")) for a in rest]
        code = main([command, str(path), *args])
        err = capsys.readouterr().err
        assert "internal error" not in err, (command, err)
        assert code in (0, 1, 2), (command, code)
        if code == 2:
            assert err.count("\n") == 1 and str(path) in err, (command, err)


def test_deep_record_json_is_a_package_error(tmp_path: Path) -> None:
    if not PACKAGE.is_file():
        pytest.skip("shared samples not present")
    out = io.BytesIO()
    with zipfile.ZipFile(PACKAGE) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "R-Main.record" or info.filename.startswith("Metadata/"):
                data = ("[" * 100_000 + "]" * 100_000).encode()
            zout.writestr(info, data)
    path = tmp_path / "deep.resonitepackage"
    path.write_bytes(out.getvalue())
    with pytest.raises(brson.BrsonError, match="nesting too deep"):
        brson.load(path)


def test_huge_json_integer_is_a_document_error(tmp_path: Path) -> None:
    from brson.document import jsonform

    with pytest.raises(brson.BrsonError, match="4300"):
        jsonform.loads('{"Object": ' + "1" * 5000 + "}")
    src = tmp_path / "big.json"
    src.write_text(json.dumps({"a": 1})[:-1] + ', "n": ' + "9" * 5000 + "}")
    assert main(["from-json", str(src), "-o", str(tmp_path / "x.brson")]) == 2


def test_lzma_of_unknown_size_caps_its_dictionary_by_the_limit() -> None:
    """Defect 15: a stream of unknown size (-1) kept the header's 4 GiB dictionary claim, which
    liblzma allocates; the window never needs to exceed what the decoder may produce."""
    import lzma
    import struct

    from brson.codecs import lzma_sdk

    claim = b"\x5d" + struct.pack("<I", 0xFFFFFFFF)
    assert lzma_sdk.parse_props(claim, -1, 64 << 20)["dict_size"] == 64 << 20
    assert lzma_sdk.parse_props(claim, 1000)["dict_size"] == 4096  # declared size, floor 4 KiB
    payload = bytes(range(256)) * 400
    body = lzma.compress(
        payload,
        format=lzma.FORMAT_RAW,
        filters=[{"id": lzma.FILTER_LZMA1, "dict_size": 1 << 16, "lc": 3, "lp": 0, "pb": 2}],
    )
    data = struct.pack("<5sqq", claim, -1, len(body)) + body
    assert lzma_sdk.decompress(data, max_size=1 << 20) == payload
