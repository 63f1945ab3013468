"""The JSON form remembers its container: ``to-json`` records framing and codec as a leading
``$container`` key, ``from-json`` writes them back by default (options and OUT's extension
override), so a NeosVR file comes back headerless with its own codec and identical BSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bson.int64 import Int64

import brson
from brson.cli.app import main
from brson.codecs import Codec
from brson.document import jsonform
from brson.errors import DocumentError

ARCHIVES = [
    "redx_5ce7cdf5.7zbson",
    "orange3134_loading_standin.brson",
    "orange3134_AvatarRootIdentification.brson",
    "mar_AimConstraint.pg.brson",
]
REDX = "redx_5ce7cdf5.7zbson"


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ARCHIVES)
@pytest.mark.parametrize("out_name", ["back{suffix}", "back.out"])
def test_round_trip_restores_the_container(
    samples_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    out_name: str,
) -> None:
    """Same extension, or one that names no codec: the recorded framing and codec come back."""
    src = samples_dir / name
    form, back = tmp_path / "form.json", tmp_path / out_name.format(suffix=src.suffix)
    assert run(capsys, "to-json", src, "-o", form) == (0, "", "")
    assert run(capsys, "from-json", form, "-o", back) == (0, "", "")
    original = brson.load(src)
    again = brson.loads(back.read_bytes(), name=src.name)
    assert original.container is not None and again.container is not None
    assert again.container.framing == original.container.framing
    assert again.container.codec is original.container.codec
    assert again.to_bson() == original.to_bson()


def test_neosvr_file_comes_back_headerless(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = samples_dir / REDX
    form, back = tmp_path / "redx.json", tmp_path / "redx.7zbson"
    run(capsys, "to-json", src, "-o", form)
    head = json.loads(form.read_text())
    assert next(iter(head)) == "$container"
    assert head["$container"] == {"framing": "legacy", "codec": "lzma"}
    run(capsys, "from-json", form, "-o", back)
    data = back.read_bytes()
    assert not data.startswith(b"FrDT")
    assert data[:13] == src.read_bytes()[:13]  # the same LZMA properties and size header
    assert brson.load(back).to_bson() == brson.load(src).to_bson()
    # piped through stdout: no extension, the recorded codec and framing
    assert main(["from-json", str(form), "-o", str(tmp_path / "piped")]) == 0


def test_options_override_the_record(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    form = tmp_path / "redx.json"
    run(capsys, "to-json", samples_dir / REDX, "-o", form)
    cases = [
        (["--frdt"], "x.7zbson", "frdt", Codec.LZMA),
        (["--codec", "lz4"], "x.out", "legacy", Codec.LZ4),
        ([], "x.brson", "frdt", Codec.BROTLI),  # Brotli has no headerless form
        (["--codec", "none", "--legacy"], "x.out", "legacy", Codec.NONE),
    ]
    for options, name, framing, codec in cases:
        out = tmp_path / name
        assert run(capsys, "from-json", form, "-o", out, *options)[0] == 0, options
        tree = brson.loads(out.read_bytes(), name="x" + {Codec.BROTLI: ".brson"}.get(codec, ""))
        assert tree.container is not None
        assert (tree.container.framing, tree.container.codec) == (framing, codec), options


def test_no_container_is_the_bare_document(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    form, out = tmp_path / "bare.json", tmp_path / "out.bin"
    run(capsys, "to-json", samples_dir / REDX, "-o", form, "--no-container")
    assert "$container" not in json.loads(form.read_text())
    run(capsys, "from-json", form, "-o", out)
    tree = brson.loads(out.read_bytes(), name="out.brson")
    assert tree.container is not None and not tree.container.legacy
    assert tree.container.codec is Codec.BROTLI  # as before: no record, Brotli with FrDT


def test_bad_record_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    form = tmp_path / "bad.json"
    form.write_text('{"$container": {"framing": "zip", "codec": "lzma"}, "Object": {}}')
    code, out, err = run(capsys, "from-json", form, "-o", tmp_path / "x.brson")
    assert code == 2 and out == ""
    assert str(form) in err and "framing frdt or legacy" in err and len(err.splitlines()) == 1


def test_api_keeps_documents_whose_keys_look_like_the_record() -> None:
    doc = {"$container": Int64(1), "Object": {}}  # a document's own "$container" key
    text = jsonform.dumps(doc, container={"framing": "frdt", "codec": "brotli"})
    assert jsonform.loads_archive(text) == (doc, (Codec.BROTLI, False))
    assert jsonform.loads(jsonform.dumps(doc)) == doc  # tagged: never read as a record
    assert jsonform.loads_archive(jsonform.dumps(doc))[1] is None
    with pytest.raises(DocumentError, match="codec"):
        jsonform.loads('{"$container": {"framing": "frdt", "codec": "zip"}}')
