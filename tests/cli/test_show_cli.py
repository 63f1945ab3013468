"""``brson show``: the text form git's textconv reads, on every real sample.

Stable (the same bytes give the same text, and no element ID of the file is in it), one field
a line with references as paths, packages with their assets' sizes and sha256 (computed here
from the zip with the standard library, not through brson), hostile input one error line, and
linear work on a deep tree of long names."""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

import bson
import pytest

import brson
from brson.cli.app import main
from brson.ops.textform import tree_lines
from tests.regressions.test_issue12_scaling import _deep, _linear, _lines

GUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def show(path: Path, capfdbinary: pytest.CaptureFixture[bytes]) -> tuple[int, bytes, str]:
    code = main(["show", str(path)])
    out, err = capfdbinary.readouterr()
    return code, out, err.decode()


def samples(samples_dir: Path) -> list[Path]:
    return sorted(p for p in samples_dir.iterdir() if p.suffix != ".md")


def test_show_is_stable_and_names_no_element_id(
    samples_dir: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    """The engine numbers IDs in save order, so text that printed them would change on
    every line after an inserted slot: none of a file's own IDs may appear."""
    for path in samples(samples_dir):
        code, first, err = show(path, capfdbinary)
        assert code == 0, (path, err)
        assert show(path, capfdbinary)[1] == first, path
        text = first.decode("utf-8")
        tree = brson.load(path)
        printed = set(GUID.findall(text))
        assert not printed & set(tree.ids), (path, sorted(printed & set(tree.ids))[:3])
        # every slot has its header line, in depth-first order, each path naming one slot
        headers = [line[5:] for line in text.splitlines() if line.startswith("slot ")]
        slots = list(tree.walk())
        assert len(set(headers)) == len(headers) == len(slots), path
        assert [h.rpartition("/")[2].partition("[")[0] for h in headers] == [
            s.name.rpartition("/")[2] for s in slots
        ], path


def test_show_lists_fields_one_a_line_with_references_as_paths(
    samples_dir: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = samples_dir / "orange3134_AvatarRootIdentification.brson"
    text = show(path, capfdbinary)[1].decode()
    lines = text.splitlines()
    start = lines.index("  component ValueCopy<bool>")
    assert lines[start + 1 : start + 6] == [
        "    UpdateOrder = 0",
        "    Enabled = true",
        "    Source = -> Avatar Root Identification:ValueField<bool>.Value",
        "    Target = -> Avatar Root Identification:DynamicValueVariable<bool>[0].Value",
        "    WriteBack = false",
    ]
    # the type table, sorted: its order only numbers the types
    types = [line for line in lines if line.startswith("type ")]
    assert types == sorted(types) and len(types) == len(brson.load(path).types)


def test_show_keeps_integer_widths_visible(
    samples_dir: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    """int64 and int32 of one value print differently, so a change of width is a diff line."""
    text = show(samples_dir / "redx_5ce7cdf5.7zbson", capfdbinary)[1].decode()
    assert '  OrderOffset = {"$numberLong": "0"}' in text.splitlines()
    assert "\n    Texture = -> <Assets>[" in text  # root assets, numbered


def test_show_of_a_package_lists_every_asset_with_size_and_sha256(
    samples_dir: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = samples_dir / "mar_coresys.resonitepackage"
    code, out, err = show(path, capfdbinary)
    assert code == 0, err
    lines = out.decode().splitlines()
    with zipfile.ZipFile(path) as archive:
        record = archive.read("R-Main.record").decode()
        main_name = record.split("packdb:///")[1][:64]
        expected = sorted(
            (info.filename.removeprefix("Assets/"), archive.read(info))
            for info in archive.infolist()
            if info.filename.startswith("Assets/") and main_name not in info.filename
        )
    listed = [line for line in lines if line.startswith("package-asset ")]
    assert listed == [
        f"package-asset {name} {len(data)} bytes sha256 {hashlib.sha256(data).hexdigest()}"
        for name, data in expected
    ]
    assert any(line.startswith("record.name = ") for line in lines)
    assert not any("assetUri" in line for line in lines)  # the main tree's hash: noise
    assert sum(line.startswith("slot ") for line in lines) == len(list(brson.load(path).walk()))


def test_a_name_with_a_newline_cannot_forge_a_line(
    samples_dir: Path, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    tree = brson.load(samples_dir / "orange3134_AvatarRootIdentification.brson")
    tree.root.children[0].name = "x\nslot forged\r"
    target = tmp_path / "n.brson"
    brson.dump(tree, target)
    lines = show(target, capfdbinary)[1].decode().splitlines()
    assert "slot forged" not in lines
    assert any(line.endswith("/x\\x0aslot forged\\x0d") for line in lines)


@pytest.mark.parametrize(
    "data",
    [b"FrDT\x00\x00\x00\x00\x03garbage", b"", bson.encode({"Object": 5})],
    ids=["corrupt", "empty", "no-tree"],
)
def test_hostile_input_is_one_error_line_and_exit_2(
    tmp_path: Path, data: bytes, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    target = tmp_path / "bad.brson"
    target.write_bytes(data)
    code, out, err = show(target, capfdbinary)
    assert code == 2
    assert out == b""
    assert len(err.strip().splitlines()) == 1 and str(target) in err, err


@pytest.mark.slow  # traces every line at three sizes
def test_show_work_is_linear_in_a_deep_tree_of_long_names() -> None:
    """Paths are bounded display paths: 2,000 levels of 1,000-character names must not print
    depth-squared characters, nor do depth-squared work."""

    def work(n: int) -> int:
        tree = brson.loads(_deep(n), name="deep.bson")
        return _lines(lambda: sum(1 for _ in tree_lines(tree)))

    # 75 slots: a full path made per slot (Slot.path, the quadratic step this guards) grows
    # the work 2.78 times from 2n to 4n here, past GROWTH; 25 would hide it (2.35).
    _linear(work, 75, "show")
    text = "\n".join(tree_lines(brson.loads(_deep(400), name="deep.bson")))
    # a few bounded paths per slot (its header, references to it), not the 200 KB a slot
    # halfway down would take with its full path
    assert len(text) < 400 * 10_000


def test_a_long_value_is_its_length_and_hash(
    samples_dir: Path, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A baked megabyte string stays one short line, still different when it changes."""
    shown = []
    for text in ("x" * 5000, "x" * 4999 + "y"):
        tree = brson.load(samples_dir / "orange3134_AvatarRootIdentification.brson")
        tree.root.components[0]["VariableName"].value = text
        target = tmp_path / "long.brson"
        brson.dump(tree, target)
        lines = show(target, capfdbinary)[1].decode().splitlines()
        digest = hashlib.sha256(f'"{text}"'.encode()).hexdigest()
        line = f"    VariableName = <5002 characters, sha256 {digest}>"
        assert line in lines
        shown.append(line)
    assert shown[0] != shown[1]


def test_show_lists_each_protoflux_connection_once_without_ids(
    samples_dir: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Every connection of brson.flux is one line of the protoflux sections, each end named
    by its path (the ID test above covers these lines too)."""
    import brson.flux

    kinds = ("value", "impulse", "read", "write", "drive")
    for path in samples(samples_dir):
        text = show(path, capfdbinary)[1].decode().splitlines()
        start = next((i for i, line in enumerate(text) if line.startswith("protoflux")), len(text))
        flow = [line for line in text[start:] if line.startswith(tuple(f"  {k} " for k in kinds))]
        edges = brson.flux.to_json(brson.flux.build(brson.load(path)))["counts"]["edges"]
        assert len(flow) == edges, (path, len(flow), edges)
        assert all(line.count(" → ") == 1 for line in flow), path


def test_disconnecting_an_input_is_one_removed_line(
    samples_dir: Path, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    sample = samples_dir / "orange3134_AvatarRootIdentification.brson"
    tree = brson.load(sample)
    slot = next(s for s in tree.walk() if s.name == "ObjectEquals`1")
    edited = tmp_path / "edited.brson"
    code = main(["set", str(sample), f"{slot.id}:ObjectEquals<User>.A", "null", "-o", str(edited)])
    assert code == 0, capfdbinary.readouterr()
    capfdbinary.readouterr()
    before = show(sample, capfdbinary)[1].decode().splitlines()
    after = show(edited, capfdbinary)[1].decode().splitlines()
    gone = [line for line in before if line not in after]
    assert (
        "  value GetActiveUserSelf:GetActiveUserSelf → ObjectEquals`1:ObjectEquals<User>.A" in gone
    )
    assert [line for line in gone if line.startswith("  value ")] == [
        "  value GetActiveUserSelf:GetActiveUserSelf → ObjectEquals`1:ObjectEquals<User>.A"
    ]
