"""``brson set`` reads back the JSON form it prints, for every value kind, keeping each field's
stored widths (int32, int64, double) and refusing a value of another kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bson.int64 import Int64

import brson
from brson.cli.app import main
from brson.errors import ModelError
from brson.ops.selectors import field_at
from brson.ops.textvalues import parse_text

SAMPLES = ["mar_coresys.resonitepackage", "mar_AimConstraint.pg.brson", "redx_5ce7cdf5.7zbson"]


def _same(a: Any, b: Any) -> bool:
    """Equal with the same types all the way down (an int32 is not an Int64, 1 is not 1.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b or (a != a and b != b))


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_printed_value_reads_back_as_it_was(samples_dir: Path, sample: str) -> None:
    """Each non-string field of a real file: what ``set`` prints (``json.dumps`` of the value)
    parses back to the identical value and types: vectors, colours with their profile,
    quaternions, records such as ``{"Min": [...], "Max": [...]}``, int32 and int64, null."""
    tree = brson.load(samples_dir / sample)
    kinds: set[str] = set()
    checked = 0
    for component in tree.components():
        for name in component.fields:
            member = component[name]
            current = member.get("Data")
            if isinstance(current, str) or member.elements is not None:
                continue  # strings print as they are; list fields are set element by element
            printed = json.dumps(member.value, ensure_ascii=False)
            back = parse_text(printed, current, tree=tree, where=name)
            assert _same(back, current), (component.type_label, name, printed, back)
            kinds.add(type(current).__name__)
            checked += 1
    assert checked > 300
    assert {"list", "float", "NoneType", "bool"} <= kinds


def test_cli_set_accepts_the_form_it_prints(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = samples_dir / "mar_AimConstraint.pg.brson"
    out = tmp_path / "moved.brson"
    code = main(["set", str(source), "Flux.Position", "[0, 1, 0]", "-o", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert printed.out.strip() == "Flux.Position: [0.0, 0.0, 0.0] -> [0.0, 1.0, 0.0]"
    position = field_at(brson.load(out), "Flux.Position").get("Data")
    assert _same(position, [0.0, 1.0, 0.0])  # a JSON 1 into a double stays a double


def test_colours_records_and_widths(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / "mar_coresys.resonitepackage")
    linear = parse_text('[0.5, 0.25, 1, 1.0, "Linear"]', [1.0, 1.0, 1.0, 1.0, "sRGB"])
    assert _same(linear, [0.5, 0.25, 1.0, 1.0, "Linear"])
    box = {"Min": [0.0, 0.0, 0.0], "Max": [1.0, 1.0, 1.0]}
    typed = '{"Max": [2, 2, 2], "Min": [-1, 0, 0.5]}'  # keys in any order, stored in the field's
    assert _same(parse_text(typed, box), {"Min": [-1.0, 0.0, 0.5], "Max": [2.0, 2.0, 2.0]})
    with pytest.raises(ModelError, match='an object with the keys "Min", "Max"'):
        parse_text('{"Min": [0, 0, 0]}', box)
    assert _same(parse_text("[3, 4]", [Int64(1), Int64(2)]), [Int64(3), Int64(4)])
    assert _same(parse_text("[3, 4]", [1, 2]), [3, 4])
    with pytest.raises(ModelError, match="not an integer"):
        parse_text("[3.5, 4]", [1, 2])
    with pytest.raises(ModelError, match="not 3 comma-separated"):
        parse_text("[0, 1]", [0.0, 0.0, 0.0])
    with pytest.raises(ModelError, match="not true or false"):
        parse_text('{"On": 1}', {"On": False})
    with pytest.raises(ModelError, match="fits 32 bits"):
        parse_text('{"N": 2147483648}', {"N": 1})
    with pytest.raises(ModelError, match="not valid JSON"):
        parse_text("[0, 1", [0.0, 0.0], tree=tree)
    gradient = [{"Time": 0.0, "Value": [1.0, 1.0, 1.0, 1.0]}]
    longer = '[{"Time": 0, "Value": [0, 0, 0, 1]}, {"Time": 1, "Value": [1, 1, 1, 1]}]'
    assert _same(
        parse_text(longer, gradient),
        [
            {"Time": 0.0, "Value": [0.0, 0.0, 0.0, 1.0]},
            {"Time": 1.0, "Value": [1.0, 1.0, 1.0, 1.0]},
        ],
    )
