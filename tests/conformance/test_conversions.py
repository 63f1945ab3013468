"""The conformance matrix's conversions on every file: to JSON and back, and to every codec,
framing and a package and back, byte for byte (see :mod:`conformance.checks`).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest

from brson.codecs import Codec
from brson.container import MAGIC, unpack
from brson.package import load_package
from tests.tiers import EXHAUSTIVE

from .checks import (
    BAD,
    EXT,
    OK,
    bson_of,
    document_seen_before,
    run,
    source_bson,
    source_container,
    source_view,
)
from .conftest import Check
from .oracle import typed
from .writers import BROTLI_SETTINGS, Sample

pytestmark = pytest.mark.slow  # every operation on every sample and writer variant: minutes of CPU


def test_json(path: Path, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]) -> None:
    form = tmp_path / "x.json"
    code, _, err = run(capsys, "to-json", path, "-o", form)
    check(code == OK, f"to-json exit {code}: {err}")
    text = form.read_text()
    ints64 = sum(1 for t in _leaves(typed(source_view(path).doc)) if t[0] == "int64")
    check(text.count("$numberLong") == ints64, "every int64 and only those as $numberLong")
    out = tmp_path / "y.lz4bson"  # the BSON is compared: no Brotli quality 9 of the whole tree
    code, _, err = run(capsys, "from-json", form, "-o", out)
    check(code == OK, f"from-json exit {code}: {err}")
    check(bson_of(out) == source_bson(path), "to-json | from-json gives the same BSON bytes")


def _leaves(t: Any) -> list[Any]:
    if t[0] in ("doc",):
        return [x for _, v in t[1] for x in _leaves(v)]
    if t[0] == "array":
        return [x for v in t[1] for x in _leaves(v)]
    return [t]


CONVERSIONS = [
    (c, legacy) for c in Codec for legacy in (False, True) if not (legacy and c is Codec.BROTLI)
]
#: The files whose container differs (the real files, the headerless and Brotli-settings
#: variants) convert to every codec and framing; a document variant, whose container is its
#: origin's, to one (LZ4, FrDT) and back: the codecs take the tree's BSON whatever convention
#: it holds, which every document variant's round trip still checks byte for byte.
CONTAINER_VARIANTS = ("", "main tree", "headerless", *BROTLI_SETTINGS)
#: A file holding a document an earlier file holds (:func:`document_seen_before`) converts to
#: one codec and back, as a document variant does: each conversion reads the file's own
#: container, and the writes depend on the tree alone, which the earlier file's conversions
#: wrote to every codec and framing (BRSON_EXHAUSTIVE=1: every one of them again).


def test_convert(
    path: Path, sample: Sample, tmp_path: Path, check: Check, capsys: pytest.CaptureFixture[str]
) -> None:
    source = source_bson(path)
    data = path.read_bytes()
    engine_brotli = path.suffix == ".brson" and source_container(path).codec is Codec.BROTLI
    every = sample.variant in CONTAINER_VARIANTS and (
        EXHAUSTIVE or not document_seen_before(sample.name)
    )
    for codec, legacy in CONVERSIONS if every else [(Codec.LZ4, False)]:
        mid = tmp_path / f"mid-{codec.label}-{legacy}{EXT[codec]}"
        args = ["convert", path, mid, "--legacy" if legacy else "--frdt"]
        code, _, err = run(capsys, *args)
        check(code == OK, f"convert to {codec.label} legacy={legacy}: exit {code}: {err}")
        written = mid.read_bytes()
        check(written.startswith(MAGIC) != legacy, "framing as asked")
        container, payload = unpack(written, mid.name)
        check(container.codec is codec, f"codec {container.codec} != {codec}")
        check(payload == source, f"{codec.label}: same BSON")
        back = tmp_path / f"back-{codec.label}-{legacy}.brson"
        code, _, err = run(capsys, "convert", mid, back)
        check(code == OK, f"convert back: exit {code}: {err}")
        check(bson_of(back) == source, "back: same BSON")
        if engine_brotli and _engine_settings(data):
            check(back.read_bytes() == data, "back to Brotli: the engine's bytes")
    if path.suffix != ".resonitepackage":  # no option: OUT keeps IN's framing (Brotli: always FrDT)
        own = source_container(path)
        same = tmp_path / f"same{EXT[own.codec]}"
        code, _, err = run(capsys, "convert", path, same)
        check(code == OK, f"convert to its own codec: exit {code}: {err}")
        check(
            unpack(same.read_bytes(), same.name)[0].legacy == own.legacy,
            f"convert kept the framing (legacy={own.legacy})",
        )
    package = tmp_path / "as.resonitepackage"
    code, _, err = run(capsys, "convert", path, package)
    named = re.findall(r"@packdb:///([0-9a-f]{64})", str(source_view(path).doc))
    if named and not path.name.endswith(".resonitepackage"):
        check(code == BAD and not package.exists(), f"no package to take assets from: {err}")
    else:
        check(code == OK, f"convert to a package: exit {code}: {err}")
        check(bson_of(package) == source, "the package holds the same tree")
        check(set(named) <= set(load_package(package).assets), "and the assets it names")


@functools.cache
def _engine_settings(data: bytes) -> bool:
    """Whether a Brotli archive is compressed as the engine does (quality 9, window 16);
    asked once an input (a compression at quality 9), not once a conversion."""
    import brotli

    _, payload = unpack(data, "x.brson")
    return bool(data[9:] == brotli.compress(payload, quality=9, lgwin=16))
