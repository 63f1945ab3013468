"""A tree whose framing is broken where a command never looks: every command that writes
refuses it (one error line, exit 2, no output), as ``info`` and ``validate`` do, instead of
copying the broken bytes into a file no reader accepts.  The one check is the archive writer's
(brson.model.archive.write_archive, brson.document.raw.check_elements)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import brson
from brson.cli.app import main
from brson.document import raw
from brson.errors import DocumentError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
STANDIN = REAL / "orange3134_loading_standin.brson"


def _broken(key: bytes, change: int) -> bytes:
    """The real tree with the length of one element in its second half off by ``change``."""
    data = bytearray(brson.load(STANDIN).to_bson())
    at = data.find(key, len(data) // 2) + len(key)
    (length,) = struct.unpack_from("<i", data, at)
    struct.pack_into("<i", data, at, length + change)
    return bytes(data)


BROKEN = {
    "sub-document": _broken(b"\x03Name\x00", -2),  # info refuses this one
    "string": _broken(b"\x02Data\x00", 3),  # info reads past it; validate refuses it
}

WRITERS = {
    "renumber": ["renumber", "{in}", "-o", "{out}.brson"],
    "convert to itself": ["convert", "{in}", "{out}.bson"],
    "convert to lz4": ["convert", "{in}", "{out}.lz4bson"],
    "convert to brotli": ["convert", "{in}", "{out}.brson"],
    "rename": ["rename", "{in}", "Visual", "Seen", "-o", "{out}.brson"],
    "set": ["set", "{in}", "Visual.Position", "[0, 1, 0]", "-o", "{out}.brson"],
    "move": ["move", "{in}", "Visual", "--index", "0", "-o", "{out}.brson"],
    "extract": [
        "extract",
        "{in}",
        "--slot",
        "LoadingStandin - Thumbnail v1.3.1",
        "-o",
        "{out}.brson",
    ],
}


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("kind", list(BROKEN))
def test_writers_refuse_broken_lengths(
    kind: str, writer: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "broken.bson"
    source.write_bytes(BROKEN[kind])
    out = tmp_path / "out"
    args = [a.format(**{"in": source, "out": out}) for a in WRITERS[writer]]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"brson: {source}: bson error at offset ")
    assert not list(tmp_path.glob("out*"))


def test_info_refuses_what_the_writers_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "broken.bson"
    source.write_bytes(BROKEN["sub-document"])
    assert main(["info", str(source)]) == 2
    assert "sub-document 'Name' has invalid length" in capsys.readouterr().err


def test_the_check_walks_every_document_and_deep_ones() -> None:
    good = brson.load(STANDIN).to_bson()
    raw.check_elements(good)  # a real tree passes
    for data in BROKEN.values():
        with pytest.raises(DocumentError, match=r"length|runs past"):
            raw.check_elements(data)
    raw.check_elements(_deep_bytes(3000))  # deeper than pymongo decodes: the walk is iterative
    with pytest.raises(DocumentError):
        raw.check_elements(_deep_bytes(3000)[:-1] + b"\x01")


def _deep_bytes(depth: int) -> bytes:
    """``{"d": {"d": ... {"x": 1}}}`` encoded by hand (pymongo's encoder recurses)."""
    body = b"\x10x\x00" + struct.pack("<i", 1)
    doc = struct.pack("<i", len(body) + 5) + body + b"\x00"
    for _ in range(depth):
        body = b"\x03d\x00" + doc
        doc = struct.pack("<i", len(body) + 5) + body + b"\x00"
    return doc
