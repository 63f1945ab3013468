"""``.resonitepackage``: the real packages round trip, and hostile zips get one clear error."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import warnings
import zipfile
from pathlib import Path

import pytest

import brson
from brson import api
from brson.cli.app import main
from brson.errors import LimitError, PackageError
from brson.ops.extract import extract
from brson.package import (
    MAIN_RECORD,
    PackageLimitError,
    check_entry_name,
    dumps_package,
    load_package,
    loads_package,
    new_record,
    packdb_names,
    packdb_references,
    sniff_kind,
    write_package,
)

PACKAGES = [
    "orange3134_AvatarRootIdentification.resonitepackage",
    "orange3134_loading_standin.resonitepackage",
]
PNG = "30a0bc21f298c2e75427245468405849b6c7ea67eb9ced14ecbc5dc1ef3eabb3"
#: The record keys in the order the engine writes them (both real records, notes §5).
RECORD_KEYS = [
    "id",
    "ownerId",
    "assetUri",
    "version",
    "name",
    "description",
    "recordType",
    "ownerName",
    "tags",
    "path",
    "thumbnailUri",
    "lastModificationTime",
    "creationTime",
    "firstPublishTime",
    "isDeleted",
    "isPublic",
    "isForPatrons",
    "isListed",
    "isReadOnly",
    "visits",
    "rating",
    "randomOrder",
    "submissions",
    "assetManifest",
    "migrationMetadata",
]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_zip(entries: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are the point of one test
        with zipfile.ZipFile(buffer, "w", method) as archive:
            for name, data in entries:
                archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def main_tree(samples_dir: Path) -> bytes:
    """The main tree archive of the small real package."""
    return (samples_dir / "orange3134_AvatarRootIdentification.brson").read_bytes()


def package_bytes(
    tree: bytes, *extra: tuple[str, bytes], record: dict[str, object] | None = None
) -> bytes:
    rec = record or {**new_record("x"), "assetUri": f"packdb:///{sha(tree)}"}
    return make_zip(
        [(f"Assets/{sha(tree)}", tree), *extra, (MAIN_RECORD, json.dumps(rec).encode())]
    )


# -- real packages --------------------------------------------------------------------------
@pytest.mark.parametrize("name", PACKAGES)
def test_real_package_round_trip(samples_dir: Path, tmp_path: Path, name: str) -> None:
    original = load_package(samples_dir / name)
    assert original.warnings == []
    assert list(original.record) == RECORD_KEYS
    out = tmp_path / name
    original.save(out)
    again = load_package(out)
    assert list(again.record) == list(original.record)
    assert again.record == original.record
    assert again.tree.to_bson() == original.tree.to_bson()
    assert again.main == original.main
    assert dict(again.assets) == dict(original.assets)
    assert again.metadata == original.metadata
    # The record text, asset bytes and entry names are the engine's, byte for byte.
    with zipfile.ZipFile(samples_dir / name) as src, zipfile.ZipFile(out) as dst:
        assert sorted(src.namelist()) == sorted(dst.namelist())
        for entry in src.namelist():
            assert src.read(entry) == dst.read(entry), entry
    # Writing is deterministic: the same package gives the same bytes.
    second = tmp_path / ("2" + name)
    again.save(second)
    assert second.read_bytes() == out.read_bytes()


def test_real_package_contents(samples_dir: Path) -> None:
    package = load_package(samples_dir / "orange3134_loading_standin.resonitepackage")
    assert package.main == sha(api.dumps(package.tree)) == sha(package.main_bytes)
    assert list(package.assets) == [PNG]
    png = package.assets[PNG]
    assert sha(png) == PNG and sniff_kind(png) == ("png", ".png")
    assert package.metadata[PNG].kind == "bitmap"
    assert package.metadata[PNG].data["assetIdenfitier"] == PNG  # the engine's spelling kept
    assert package.record["assetManifest"] == [{"hash": PNG, "bytes": len(png)}]
    refs = packdb_references(package.tree)
    assert list(refs) == [PNG]
    assert refs[PNG] == [
        "LoadingStandin - Thumbnail v1.3.1/Visual/UserIconTex:StaticTexture2D.URL",
        "LoadingStandin - Thumbnail v1.3.1/<color=#6700FF>Get Profile Icon</color> - (9 Nodes)"
        "/ValueObjectInput`1:ValueObjectInput.Value",
    ]


@pytest.mark.parametrize("name", PACKAGES)
def test_brson_load_reads_the_main_tree(samples_dir: Path, name: str) -> None:
    tree = brson.load(samples_dir / name)
    brson_name = name.replace(".resonitepackage", ".brson")
    assert tree.to_bson() == brson.load(samples_dir / brson_name).to_bson()


def test_edited_tree_gets_a_consistent_record(samples_dir: Path, tmp_path: Path) -> None:
    package = load_package(samples_dir / "orange3134_loading_standin.resonitepackage")
    package.tree.root.name = "Renamed"
    out = tmp_path / "renamed.resonitepackage"
    package.save(out)
    again = load_package(out)
    assert again.tree.root.name == "Renamed"
    assert again.record["assetUri"] == f"packdb:///{again.main}"
    assert again.main != package.main
    with zipfile.ZipFile(out) as archive:
        assert sha(archive.read(f"Assets/{again.main}")) == again.main
        assert f"Assets/{package.main}" not in archive.namelist()
    assert again.record["assetManifest"] == package.record["assetManifest"]


def test_write_refuses_misnamed_or_missing_assets(samples_dir: Path) -> None:
    package = load_package(samples_dir / "orange3134_loading_standin.resonitepackage")
    with pytest.raises(PackageError, match="not named by its sha256"):
        dumps_package(package.tree, package.record, {"texture.png": package.assets[PNG]})
    with pytest.raises(PackageError, match=f"not given: {PNG}"):
        dumps_package(package.tree, package.record, {})
    # Given as plain bytes, assets are named by their hash.
    data = dumps_package(package.tree, package.record, [package.assets[PNG]])
    assert list(loads_package(data).assets) == [PNG]


def test_new_package_from_a_plain_archive(samples_dir: Path, tmp_path: Path) -> None:
    tree = brson.load(samples_dir / "orange3134_AvatarRootIdentification.brson")
    out = tmp_path / "new.resonitepackage"
    write_package(out, tree, new_record("Avatar Root Identification"))
    package = load_package(out)
    assert list(package.record) == RECORD_KEYS
    assert package.record["assetManifest"] == []
    assert package.tree.to_bson() == tree.to_bson()
    assert packdb_names(tree.to_bson()) == []


def test_for_tree_takes_only_the_named_assets(samples_dir: Path) -> None:
    package = load_package(samples_dir / "orange3134_loading_standin.resonitepackage")
    visual = package.tree.find("UserIconTex")
    assert visual is not None
    sub = extract(package.tree, visual).tree
    with_png = package.for_tree(sub, name="UserIconTex")
    assert list(with_png.assets) == [PNG] and list(with_png.metadata) == [PNG]
    assert with_png.record["name"] == "UserIconTex"
    other = package.tree.find("UserUserID")
    assert other is not None
    assert dict(package.for_tree(extract(package.tree, other).tree).assets) == {}


# -- hostile packages -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "../evil",
        "Assets/../../evil",
        "/etc/passwd",
        "C:/evil",
        "Assets\\..\\evil",
        "a//b",
        "./x",
    ],
)
def test_zip_slip_names_are_refused(main_tree: bytes, name: str) -> None:
    with pytest.raises(PackageError, match="could escape"):
        check_entry_name(name)
    with pytest.raises(PackageError, match="could escape"):
        loads_package(package_bytes(main_tree, (name, b"x")))


def test_zip_slip_package_exports_nothing(
    main_tree: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evil = tmp_path / "evil.resonitepackage"
    evil.write_bytes(package_bytes(main_tree, ("Assets/../../escaped", b"x")))
    code = main(["assets", str(evil), "-o", str(tmp_path / "out" / "deep")])
    assert code == 2
    assert "could escape" in capsys.readouterr().err
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "out").exists()


def test_declared_bomb_is_refused_before_reading(main_tree: bytes) -> None:
    bomb = package_bytes(main_tree, ("Assets/" + "0" * 64, bytes(20 << 20)))
    assert len(bomb) < 100_000
    with pytest.raises(PackageLimitError, match="declares") as info:
        loads_package(bomb, max_size=10 << 20)
    assert isinstance(info.value, LimitError) and isinstance(info.value, PackageError)
    # Many entries each under the limit, over it together.
    spread = package_bytes(main_tree, *[(f"Assets/{i}", bytes(4 << 20)) for i in range(4)])
    with pytest.raises(PackageLimitError, match="in all"):
        loads_package(spread, max_size=10 << 20)


def _patch_sizes(data: bytes, entry: str, size: int) -> bytes:
    """Make both headers of ``entry`` claim ``size`` uncompressed bytes (a lying zip)."""
    out = bytearray(data)
    name = entry.encode()
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        pos = out.find(signature + b"")
        while pos >= 0:
            name_at = pos + (30 if signature == b"PK\x03\x04" else 46)
            if out[name_at : name_at + len(name)] == name:
                struct.pack_into("<I", out, pos + offset, size)
            pos = out.find(signature, pos + 4)
    return bytes(out)


def test_lying_sizes_never_expand_past_the_claim(main_tree: bytes) -> None:
    asset = bytes(8 << 20)
    entry = f"Assets/{sha(asset)}"
    record = {
        **new_record("x"),
        "assetUri": f"packdb:///{sha(main_tree)}",
        "assetManifest": [{"hash": sha(asset), "bytes": 100}],
    }
    data = _patch_sizes(package_bytes(main_tree, (entry, asset), record=record), entry, 100)
    package = loads_package(data)
    assert package.assets.size(sha(asset)) == 100  # type: ignore[attr-defined]
    with pytest.raises(PackageError, match="Bad CRC"):  # stopped at the claimed 100 bytes
        package.assets[sha(asset)]


def test_hash_mismatch(main_tree: bytes) -> None:
    wrong = "1" * 64
    package = loads_package(package_bytes(main_tree, (f"Assets/{wrong}", b"not that")))
    assert any(wrong in w for w in package.warnings)  # not in the manifest: a warning
    with pytest.raises(PackageError, match="does not match its sha256"):
        package.assets[wrong]
    tampered = main_tree[:-1] + bytes([main_tree[-1] ^ 1])
    record = {**new_record("x"), "assetUri": f"packdb:///{sha(main_tree)}"}
    data = make_zip(
        [(f"Assets/{sha(main_tree)}", tampered), (MAIN_RECORD, json.dumps(record).encode())]
    )
    with pytest.raises(PackageError, match="does not match its sha256"):
        loads_package(data)


@pytest.mark.parametrize(
    "case",
    [
        "no record",
        "bad json",
        "not object",
        "no uri",
        "resdb uri",
        "no main",
        "not a zip",
        "duplicate",
    ],
)
def test_broken_packages(main_tree: bytes, case: str) -> None:
    uri = f"packdb:///{sha(main_tree)}"
    tree_entry = (f"Assets/{sha(main_tree)}", main_tree)
    record = json.dumps({**new_record("x"), "assetUri": uri}).encode()
    data = {
        "no record": make_zip([tree_entry]),
        "bad json": make_zip([tree_entry, (MAIN_RECORD, b"{nope")]),
        "not object": make_zip([tree_entry, (MAIN_RECORD, b"[1]")]),
        "no uri": make_zip([tree_entry, (MAIN_RECORD, b"{}")]),
        "resdb uri": make_zip([tree_entry, (MAIN_RECORD, record.replace(b"packdb", b"resdb"))]),
        "no main": make_zip([(MAIN_RECORD, record)]),
        "not a zip": main_tree,
        "duplicate": make_zip([tree_entry, tree_entry, (MAIN_RECORD, record)]),
    }[case]
    with pytest.raises(PackageError):
        loads_package(data)


def test_manifest_inconsistencies_are_warnings(
    main_tree: bytes, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = "2" * 64
    record = {
        **new_record("x"),
        "assetUri": f"packdb:///{sha(main_tree)}",
        "assetManifest": [{"hash": missing, "bytes": 3}],
    }
    path = tmp_path / "p.resonitepackage"
    path.write_bytes(package_bytes(main_tree, record=record))
    package = load_package(path)
    assert package.warnings == [f"assetManifest lists {missing} but the package does not hold it"]
    assert package.tree.container is not None
    assert package.warnings[0] in package.tree.container.warnings
    assert main(["info", str(path)]) == 0
    assert missing in capsys.readouterr().err


# -- the assets command ---------------------------------------------------------------------
def test_assets_lists_and_exports(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = samples_dir / "orange3134_loading_standin.resonitepackage"
    out = tmp_path / "exported"
    assert main(["assets", str(src), "-o", str(out), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    rows = {row["hash"]: row for row in listing["assets"]}
    package = load_package(src)
    assert set(rows) == {package.main, PNG}
    assert rows[PNG]["kind"] == "bitmap" and rows[PNG]["bytes"] == 2976
    assert rows[PNG]["used_by"][0].endswith("UserIconTex:StaticTexture2D.URL")
    assert rows[package.main]["kind"] == "data tree (main)"
    files = sorted(p.name for p in out.iterdir())
    assert files == sorted([f"{PNG}.png", f"{package.main}.brson"])
    assert (out / f"{PNG}.png").read_bytes() == package.assets[PNG]
    assert sha((out / f"{package.main}.brson").read_bytes()) == package.main
    assert main(["assets", str(src)]) == 0
    assert "used by LoadingStandin" in capsys.readouterr().out


@pytest.mark.parametrize("name", PACKAGES)
def test_corrupted_packages_fail_cleanly(samples_dir: Path, name: str) -> None:
    """Random byte damage: either it still reads, or one PackageError-family error; never a
    crash from zipfile or its decompressors (zlib errors, unsupported versions…)."""
    import random

    data = (samples_dir / name).read_bytes()
    rng = random.Random(name)
    outcomes: set[str] = set()
    for _ in range(400):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        try:
            package = loads_package(bytes(damaged))
            for asset in package.assets:
                package.assets[asset]
            outcomes.add("read")
        except brson.BrsonError as exc:
            outcomes.add(type(exc).__name__)
    assert "PackageError" in outcomes  # the damage was noticed
