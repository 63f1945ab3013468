"""Regression tests for the defects of issue 11 (real files from every writer)."""

from __future__ import annotations

from pathlib import Path

import bson
import pytest

import brson
from brson.document import raw
from brson.ops.extract import extract

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples"
AIM = SAMPLES / "mar_AimConstraint.pg.brson"


def _sample(path: Path) -> Path:
    if not path.is_file():
        pytest.skip("shared samples not present")
    return path


def test_extract_keeps_int64_type_indices() -> None:
    """Defect 1: extract matched only an int32 ``Type``, wrote ``Types: []`` and kept stale
    indices. The other writer stores ``Type`` as int64; it must be remapped in its own width."""
    tree = brson.load(_sample(AIM))
    done = extract(tree, "AimConstraintBackend")
    result, report = done.tree, done.report
    assert report.components > 0 and report.types > 0
    doc = bson.decode(result.to_bson(), codec_options=bson.CodecOptions(document_class=dict))
    types = doc["Types"]
    assert len(types) == report.types
    seen = [comp["Type"] for comp in doc.get("Assets", [])]  # the closure's asset components
    stack = [doc["Object"]]
    while stack:
        slot = stack.pop()
        for comp in slot["Components"]["Data"]:
            seen.append(comp["Type"])
        stack.extend(slot["Children"])
    assert len(seen) == report.components
    assert all(isinstance(t, bson.int64.Int64) for t in seen)  # width kept
    assert sorted(set(seen)) == list(range(len(types)))  # trimmed and dense


def test_component_type_indices_reads_both_widths() -> None:
    data32 = bson.encode({"c": {"Type": 7, "Data": {"ID": "x"}}})
    data64 = bson.encode({"c": {"Type": bson.int64.Int64(7), "Data": {"ID": "x"}}})
    (off32, w32, v32), (off64, w64, v64) = (
        raw.component_type_indices(data32)[0],
        raw.component_type_indices(data64)[0],
    )
    assert (w32, v32, w64, v64) == (4, 7, 8, 7)
    out = bytearray(data64)
    raw.set_type_index(out, off64, w64, 3)
    assert bson.decode(bytes(out))["c"]["Type"] == 3
    assert isinstance(bson.decode(bytes(out))["c"]["Type"], bson.int64.Int64)
    assert off32 > 0


def test_neosvr_file_with_mixed_widths_validates_clean() -> None:
    """Defect 4: BR603 warned on a genuine NeosVR export. A 2022 NeosVR export mixes int32
    UpdateOrder/TypeVersions with int64 OrderOffset; both widths are the format."""
    from brson.container import unpack
    from brson.ops.validate import validate

    redx = _sample(SAMPLES / "redx_5ce7cdf5.7zbson")
    doc = bson.decode(unpack(redx.read_bytes(), redx.name)[1])
    changed = 0
    stack = [doc["Object"]]
    while stack:
        slot = stack.pop()
        for comp in slot["Components"]["Data"]:
            order = comp["Data"].get("UpdateOrder")
            if isinstance(order, dict) and "Data" in order:
                order["Data"] = int(order["Data"])  # int32, as the 2022 export writes it
                changed += 1
        stack.extend(slot["Children"])
    doc["TypeVersions"] = {k: int(v) for k, v in doc["TypeVersions"].items()}
    assert changed > 0
    data = brson.dumps(bson.encode(doc), codec="lzma", legacy=True)
    findings = validate(data, name="mixed.7zbson")
    assert not [f for f in findings if f.severity.value in ("error", "warning")], findings


def test_text_named_7zbson_is_not_an_lzma_archive(tmp_path: Path) -> None:
    """Defect 6: a text file named .7zbson was told to raise --max-size."""
    from brson.cli.app import main

    text = tmp_path / "t.7zbson"
    text.write_bytes(b"this is a note, not an archive\n" * 40)
    plain_props = tmp_path / "p.7zbson"  # a valid properties byte, then text as sizes
    plain_props.write_bytes(b"\x5d\x00\x00\x20\x00" + b"sixteen bytes!!!" + b"x" * 100)
    for path in (text, plain_props):
        with pytest.raises(brson.BrsonError, match="not an LZMA archive") as caught:
            brson.load(path)
        assert "max-size" not in str(caught.value)
        assert main(["info", str(path)]) == 2


def test_plausible_lzma_header_over_the_limit_advises_the_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import struct

    from brson.cli.app import main

    big = tmp_path / "big.7zbson"
    body = b"\x00" * 32
    big.write_bytes(struct.pack("<5sqq", b"\x5d\x00\x00\x20\x00", 1 << 40, len(body)) + body)
    assert main(["info", str(big)]) == 2
    assert "--max-size" in capsys.readouterr().err


def test_from_json_restores_transform_doubles_a_json_tool_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Defect 7: jq 1.6 turns [0.0, 0.0, 0.0] into [0, 0, 0]; from-json wrote int32 transforms
    and validate found nothing wrong. Now from-json restores them and validate flags BR506."""
    import json
    import re

    from brson.cli.app import main
    from brson.ops.validate import validate

    src = (
        Path(__file__).resolve().parents[2]
        / "fixtures"
        / "real"
        / "orange3134_loading_standin.brson"
    )
    assert main(["to-json", str(src), "-o", str(tmp_path / "a.json")]) == 0
    text = (tmp_path / "a.json").read_text()
    as_jq16 = re.sub(r"(?<![\w.])(-?\d+)\.0(?![\d])", r"\1", text)  # what jq 1.6 prints
    assert as_jq16 != text
    (tmp_path / "b.json").write_text(as_jq16)
    assert main(["from-json", str(tmp_path / "b.json"), "-o", str(tmp_path / "b.brson")]) == 0
    assert "restored as doubles" in capsys.readouterr().err
    tree = brson.load(tmp_path / "b.brson")
    for slot in tree.walk():
        for key in ("Position", "Rotation", "Scale"):
            value = slot.get(key)
            assert all(isinstance(v, float) for v in value["Data"]), (slot.path, key)
    assert not [f for f in validate(tmp_path / "b.brson") if f.code == "BR506"]
    # The same JSON built into BSON without the restoring step is what validate now flags.
    doc = json.loads(as_jq16)
    raw_tree = brson.loads(bson.encode(doc), name="x.bson")
    assert "BR506" in {f.code for f in validate(raw_tree)}


STANDIN = (
    Path(__file__).resolve().parents[2] / "fixtures" / "real" / "orange3134_loading_standin.brson"
)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    from brson.cli.app import main

    code = main(list(args))
    return code, capsys.readouterr().err


def test_errors_name_the_file_and_say_field_not_slot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Defect 8: a selector error named no file; a field target was called a slot."""
    code, err = _cli(
        capsys, "extract", str(STANDIN), "--slot", "Relay", "-o", str(tmp_path / "x.brson")
    )
    assert (
        code == 2 and err.startswith(f"brson: {STANDIN}: selector error") and err.count("\n") == 1
    )
    code, err = _cli(
        capsys, "set", str(STANDIN), "Visual.Active", "maybe", "-o", str(tmp_path / "y.brson")
    )
    assert code == 2 and f"{STANDIN}: model error at field 'Visual.Active'" in err
    assert "slot 'Visual.Active'" not in err


def test_convert_onto_its_input_names_no_missing_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _cli(capsys, "convert", str(STANDIN), str(STANDIN))
    assert code == 2 and "-o" not in err and "never writes over its inputs" in err


def test_assets_of_a_bare_archive_says_it_needs_a_package(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err = _cli(capsys, "assets", str(STANDIN))
    assert code == 2 and "not a .resonitepackage" in err and "readable zip" not in err


def test_benchmark_world_script_has_help() -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "worlds.py"
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "usage" in done.stdout and not done.stderr


def test_removing_components_and_validate_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Defect 8: the API's removal left types that validate then reported. Edits keep Types
    (byte identity); BR303 is information, never a problem, and --prune-types trims."""
    from brson.model import edit
    from brson.ops.validate import validate

    tree = brson.load(STANDIN)
    before = len(tree.types)
    edit.delete(tree.find("Visual"))  # type: ignore[arg-type]
    findings = validate(tree)
    assert {f.code for f in findings if f.severity.value != "info"} == set()
    dropped = tree.drop_unused_types()
    assert dropped and len(tree.types) == before - len(dropped)
    assert not {f.code for f in validate(brson.loads(brson.dumps(tree)))} & {"BR303", "BR306"}
    out = tmp_path / "d.brson"
    code, _ = _cli(capsys, "delete", str(STANDIN), "Visual", "--prune-types", "-o", str(out))
    assert code == 0
    assert not {f.code for f in validate(out)} & {"BR303", "BR306"}
