"""Bytes handed to pymongo's C decoder never hold an element that runs past its document.

pymongo bounds a nested element's reads by the buffer it was handed, not by the document
holding the element: a float3 array whose last item is retyped to ObjectId (12 bytes where
a double had 8) made it read past the buffer (AddressSanitizer: heap-buffer-overflow in
``_cbsonmodule.c``, reached through export-godot, export-gltf and diff).  brson refuses such
a buffer before the hand-off (``brson.document.framing``), in C when ``_rawc`` is built and in
Python otherwise; ``make sanitize`` runs this file under ASan with the decoder loaded.
"""

from __future__ import annotations

import contextlib
import functools
import random
import struct
from pathlib import Path

import bson
import pytest
from bson.errors import BSONError

import brson
from brson._speedups import built
from brson.api import to_bson
from brson.codecs import Codec
from brson.container.frdt import pack
from brson.document import raw
from brson.document.framing import first_overrun_py
from brson.errors import BrsonError, DocumentError
from tests.conftest import SAMPLES
from tests.differential import sample_parts
from tests.hardening.support import run_cli
from tests.tiers import sweep

STANDIN = (
    Path(__file__).resolve().parents[2] / "fixtures" / "real" / "orange3134_loading_standin.brson"
)
#: An array of three doubles as every Position holds it: its size, then item "0".
FLOAT3 = b"\x04Data\x00" + struct.pack("<i", 5 + 3 * 11) + b"\x010\x00"


def retyped(data: bytes, at: int | None = None) -> bytes:
    """``data`` with the last item of a float3 array (the first, or the one at ``at``) turned
    into an ObjectId: the array keeps its size, the item now claims 12 bytes of its 8."""
    start = data.index(FLOAT3) if at is None else at
    last = start + len(FLOAT3) + 8 + 11
    assert data[last : last + 3] == b"\x012\x00"
    return data[:last] + b"\x07" + data[last + 1 :]


def test_one_member_is_refused_not_decoded() -> None:
    doc = retyped(bson.encode({"ID": "x", "Data": [1.0, 2.0, 3.0]}))
    elements = raw.index(doc, 0, len(doc))  # one level deep: the array's own frame is fine
    with pytest.raises(DocumentError, match="runs past its document"):
        raw.scalar(doc, elements["Data"])
    with pytest.raises(DocumentError, match="runs past its document"):
        raw.decode_doc(doc, 0, len(doc))


def every_retyped(data: bytes) -> bytes:
    """``data`` with every float3 array's last item retyped (positions, scales, colors...)."""
    at = data.find(FLOAT3)
    while at >= 0:
        data = retyped(data, at)
        at = data.find(FLOAT3, at + 1)
    return data


@pytest.mark.parametrize("command", ["export-godot", "export-gltf", "diff"])
def test_commands_refuse_the_retyped_item(tmp_path: Path, command: str) -> None:
    source = tmp_path / "retyped.brson"
    # Framed by the container layer itself: brson.dumps refuses to write a broken document.
    source.write_bytes(pack(every_retyped(to_bson(brson.load(STANDIN))), Codec.BROTLI))
    args = {
        "export-godot": [str(source), "-o", str(tmp_path / "out.tscn"), "--godot", "4"],
        "export-gltf": [str(source), "-o", str(tmp_path / "out.glb")],
        "diff": [str(STANDIN), str(source)],
    }[command]
    code, _out, err = run_cli([command, *args])
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "runs past its document" in lines[0], err
    assert "Traceback" not in err
    assert not (tmp_path / "out.tscn").exists() and not (tmp_path / "out.glb").exists()


#: The two tests that read every framing input share one worker, and the inputs (every
#: sample decoded and encoded again: about a second of CPU) are made once.
SHARED_INPUTS = pytest.mark.xdist_group("framing-inputs")


@functools.cache
def framing_inputs() -> tuple[bytes, ...]:
    """Every real document, a retyped copy of each float3 array's last item, and seeded
    mutations (bytes flipped, lengths changed, types changed, cut short)."""
    rng = random.Random(27)
    found: list[bytes] = []
    for _name, data in sample_parts():
        try:
            tree = brson.loads(data)
        except BrsonError:
            continue
        buf = to_bson(tree)
        found.append(buf)
        at = buf.find(FLOAT3)
        for _ in range(3):
            if at < 0:
                break
            found.append(retyped(buf, at))
            at = buf.find(FLOAT3, at + 1)
        for _ in range(sweep(12, 3)):
            mutated = bytearray(buf)
            for _ in range(rng.randint(1, 4)):
                pos = rng.randrange(4, len(mutated) - 1)
                mutated[pos] = rng.choice((0x00, 0x01, 0x03, 0x04, 0x07, 0x0F, 0x13, 0xFF, 0x7F))
            found.append(bytes(mutated))
    found += [b"", b"\x05\x00\x00\x00\x00", bson.encode({"a": {"b": [1, "x", None]}})[:-1]]
    return tuple(found)


@pytest.mark.slow
@SHARED_INPUTS
def test_c_check_answers_as_python() -> None:
    rawc = built("_rawc")
    if rawc is None:
        pytest.skip("brson._speedups._rawc is not built")
    for data in framing_inputs():
        for depth in (2, 900):
            assert rawc.first_overrun(data, depth) == first_overrun_py(data, depth)


@pytest.mark.slow
@SHARED_INPUTS
def test_framed_documents_decode() -> None:
    """What the check lets through decodes, and every real sample passes it (fixtures hold
    hostile documents on purpose)."""
    for data in framing_inputs():
        if first_overrun_py(data, 900) == -1:
            # may refuse (bad UTF-8, ...), never read out of bounds (make sanitize checks)
            with contextlib.suppress(BSONError):
                bson.decode(data)
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix in (".brson", ".7zbson", ".lz4bson"):
            assert first_overrun_py(to_bson(brson.load(path)), 900) == -1, path.name
