"""The compiled streaming reader gives what the Python path gives, or leaves the text to it.

Differential: ``brson._speedups._formstreamc.read`` writes the JSON form's BSON straight from
the text; the reference is ``formstream.read_bson_python`` (``json.loads``, the tags and the
number record applied by ``jsonform.loads_form``, ``bson.encode``). Wherever C answers, the
BSON (byte for byte), the container record and the report of restored numbers are the Python
path's; where the Python path refuses, C answers None (the refusal is then the Python path's
own, error text and all). Over every sample's and fixture's form, forms a JSON tool changed,
generated documents, and hostile text: duplicate keys, bad UTF-8, surrogates, NaN/Infinity,
deep nesting, huge numbers, trailing data, tags spelled otherwise, mutated bytes.
"""

from __future__ import annotations

import json
import mmap
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from brson._speedups import built
from brson.document import bsondoc, formstream
from brson.errors import DocumentError
from tests.differential import check_built
from tests.document.test_formreadc import FORMS, RECORD, _edited, _form_text
from tests.document.test_jsonform import _documents, values
from tests.tiers import examples

FORMSTREAMC = built("_formstreamc")
needs_c = pytest.mark.skipif(FORMSTREAMC is None, reason="the C stream reader is not built")


def test_stream_reader_built_in_ci() -> None:
    check_built(FORMSTREAMC, formstream.ACCELERATED, "brson._speedups._formstreamc")


def _python(data: bytes) -> Any:
    """(BSON, container, report) by the Python path, or its refusal's text."""
    try:
        form, bson = formstream.read_bson_python(data)
    except DocumentError as exc:
        return str(exc)
    return bson, form.container, form.numbers


def _compiled(data: bytes) -> Any:
    """(BSON, container, report) by the C reader, or None where it leaves the text."""
    assert FORMSTREAMC is not None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(formstream, "_formstreamc", FORMSTREAMC)
        try:
            done = formstream.read_bson(data)
        except DocumentError as exc:  # only the container record is read after C
            return str(exc)
    return None if done is None else (done.bson, done.container, done.numbers)


def assert_same(text: str | bytes, taken: bool = False) -> Any:
    """C's answer is the Python path's, or None; ``taken``: it must answer."""
    data = text.encode() if isinstance(text, str) else text
    compiled, python = _compiled(data), _python(data)
    if compiled is None:
        assert not taken, "the C reader left a plain form to the Python path"
    else:
        assert compiled == python
    return compiled


@needs_c
@pytest.mark.parametrize("name", sorted(FORMS))
def test_every_sample_and_fixture(name: str) -> None:
    text = FORMS[name]
    assert assert_same(text, taken=True) is not None
    for seed in range(3):
        assert_same(_edited(text, seed))
    compact = json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=True)
    assert_same(compact, taken=True)
    without = json.loads(text)
    del without["$numbers"]
    assert_same(json.dumps(without))


@needs_c
def test_read_from_a_mapping_handing_pages_back(tmp_path: Path) -> None:
    """The file mapping from-json passes, its read pages released as the reader goes."""
    assert FORMSTREAMC is not None
    for name in sorted(FORMS)[:20]:
        path = tmp_path / "form.json"
        path.write_text(FORMS[name])
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as m:
            done = FORMSTREAMC.read(m, True)
            assert done is not None
            assert done[0] == _python(path.read_bytes())[0]


@needs_c
@pytest.mark.slow
@given(doc=_documents(values))
@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_generated_documents(doc: dict[str, Any]) -> None:
    text = _form_text(bsondoc.encode(doc))
    assert_same(text)
    assert_same(_edited(text, len(text)))


@needs_c
@pytest.mark.parametrize(
    "body",
    [
        '"x": 1, "y": 2, "e": {"ID": "a", "v": [1, 2]}',
        '"x": 1, "y": 2.0, "e": {"ID": "b", "v": 2.5}',
        '"x": 1, "e": {"ID": "a", "v": [1, 2, 3]}',
        '"x": 1, "y": 1, "z": 1, "e": {"ID": "b", "v": [1, 2]}',
        '"e": {"ID": "zz", "v": [1, 2]}, "f": {"ID": "zy", "w": 1.5}',
        '"e": {"ID": {"$document": {"k": 1}}, "v": [1]}',
        '"e": {"v": [1], "ID": "c"}, "f": {"ID": "c", "w": {"$numberLong": "5"}}',
        '"e": {"ID": "a", "v": {"$document": {"$k": 1, "w": {"$numberDouble": "NaN"}}}}',
        '"e": [[{"ID": "a", "v": [1, {"$numberDouble": "-Infinity"}]}]], "x": 3, "y": 4',
        '"e": {"ID": "a", "v": [{"$numberDouble": "NaN", "$bits": "7ff8000000000001"}, 1]}',
        '"e": {"ID": "b", "v": {"$regex": "x", "$options": ""}, "w": 1}',
        '"x": -0, "y": 2, "big": 3000000000, "neg": -2147483649',
        '"x": 1.5e300, "y": 2, "s": "caf\\u00e9 \\ud83d\\ude00 \\/ \\n", "t": true, "u": null',
        '"e": {"ID": "a", "v": [{"$numberLong": "-9223372036854775808"}, 9223372036854775807]}',
        '"a": {"ID": "d", "b": {"ID": "a", "v": [1, 2]}, "w": [1]}',
        '"e": {"k": 1, "ID": "a", "v": 2}',
        '"e": {"k": [], "ID": "a", "v": [1, 2]}',
        '"k0": 1, "k1": 2, "k2": 3, "k3": 4, "k4": 5, "k5": 6, "k6": 7, "k7": 8, "k8": 9, '
        '"k9": 10, "ka": 11, "kb": 12, "kc": 13, "kd": 14, "ke": 15, "kf": 16, "kg": 17, '
        '"kh": 18',
    ],
)
def test_record_cases(body: str) -> None:
    for record in (
        RECORD,
        '"$numbers": {"root": "di", "elements": [["a", "dd"], ["a", "d"]]}',
        '"$numbers": {"elements": [["a", "dd"], ["d", "i"]], "root": "ddiiiiiiiiiiiiiiiii"}',
    ):
        assert_same("{" + body + ", " + record + "}")
        assert_same(
            '{"$container": {"framing": "legacy", "codec": "lzma"}, ' + body + ", " + record + "}"
        )
    assert_same("{" + body + "}")


def _deep(levels: int) -> str:
    return (
        '{"a": '
        + "[" * (levels - 1)
        + "1"
        + "]" * (levels - 1)
        + ', "$numbers": {"root": "i", "elements": []}}'
    )


@needs_c
@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2, "$numbers": {"root": "", "elements": []}}',  # duplicate keys
        '{"e": {"ID": "a", "ID": "b"}, "$numbers": {"root": "", "elements": []}}',
        '{"a": "\\ud800", "$numbers": {"root": "", "elements": []}}',  # a lone surrogate
        '{"a": "\\udc00x", "$numbers": {"root": "", "elements": []}}',
        '{"a": NaN, "$numbers": {"root": "d", "elements": []}}',
        '{"a": -Infinity, "$numbers": {"root": "d", "elements": []}}',
        '{"a": 1e400, "$numbers": {"root": "d", "elements": []}}',  # past the double range
        '{"a": 99999999999999999999, "$numbers": {"root": "i", "elements": []}}',
        '{"a": 9223372036854775808, "$numbers": {"root": "d", "elements": []}}',
        '{"a": 1' + "0" * 5000 + ', "$numbers": {"root": "i", "elements": []}}',
        '{"a": 1, "$numbers": {"root": "i", "elements": []}} x',  # trailing data
        '{"a": 1, "$numbers": {"root": "i", "elements": []}}{}',
        '{"a": 1, "$numbers": {"root": "q", "elements": []}}',  # a bad record
        '{"a": 1, "$numbers": {"root": "i", "elements": [["a"]]}}',
        '{"a": 1, "$numbers": {"root": "i", "elements": []}, "b": 2}',  # not last
        '{"$numbers": {"root": "i", "elements": []}, "a": 1, '
        '"$numbers": {"root": "i", "elements": []}}',
        '{"a": {"$numberLong": "1_0"}, "$numbers": {"root": "", "elements": []}}',
        '{"a": {"$numberLong": "99999999999999999999"}, "$numbers": {"root": "", "elements": []}}',
        '{"a": {"$numberDouble": "nan"}, "$numbers": {"root": "d", "elements": []}}',
        '{"a": {"$numberDouble": "NaN", "$bits": "7ff8"}, '
        '"$numbers": {"root": "d", "elements": []}}',
        '{"a": {"\\u0024numberLong": "5"}, "$numbers": {"root": "", "elements": []}}',
        '{"a": {"$document": {"k": 1}, "x": 1}, "$numbers": {"root": "i", "elements": []}}',
        '{"a\\u0000b": 1, "$numbers": {"root": "i", "elements": []}}',  # NUL in a key
        '{"a": "x\\u0000", "$numbers": {"root": "", "elements": []}}',
        '{"$container": {"framing": "frdt", "codec": "lz4"}, "a": 1, "$container": '
        '{"framing": "legacy", "codec": "lzma"}, "$numbers": {"root": "i", "elements": []}}',
        '{"a": 1, "$container": {"framing": "legacy", "codec": "lzma"}, '
        '"$numbers": {"root": "i", "elements": []}}',
        '{"_id": 1, "a": 2, "$numbers": {"root": "ii", "elements": []}}',
        '{"b": 1, "_id": 2, "$numbers": {"root": "ii", "elements": []}}',  # pymongo moves it
        '{"$numberLong": "5", "$numbers": {"root": "", "elements": []}}',
        '{"$document": {"a": 1}, "b": 2, "$numbers": {"root": "i", "elements": []}}',
        '{"a": [1,], "$numbers": {"root": "i", "elements": []}}',
        '{"a": 01, "$numbers": {"root": "i", "elements": []}}',
        '{"a": 1., "$numbers": {"root": "d", "elements": []}}',
        '{"a": "tab\there", "$numbers": {"root": "", "elements": []}}',
        '{"a": "\\x", "$numbers": {"root": "", "elements": []}}',
        '{"a": 1, "$numbers": {"root": "i", "elements": []}',  # truncated
        '{"a": "x"}',  # no record
        "[1, 2]",
        _deep(399),
        _deep(400),
        _deep(401),
        _deep(2000),
    ],
)
def test_hostile_text(text: str) -> None:
    assert_same(text)


@needs_c
@pytest.mark.parametrize(
    "data",
    [
        b'{"a": "\xff", "$numbers": {"root": "", "elements": []}}',  # bad UTF-8
        b'{"a": "\xc0\x80", "$numbers": {"root": "", "elements": []}}',  # overlong
        b'{"a": "\xed\xa0\x80", "$numbers": {"root": "", "elements": []}}',  # a surrogate
        b'{"a": "\xf4\x90\x80\x80", "$numbers": {"root": "", "elements": []}}',  # > U+10FFFF
        b'{"a": "\xe2\x82", "$numbers": {"root": "", "elements": []}}',  # cut short
        b'\xef\xbb\xbf{"a": 1, "$numbers": {"root": "i", "elements": []}}',  # a BOM
        '{"a": 1, "$numbers": {"root": "i", "elements": []}}'.encode("utf-16"),
        '{"a": 1, "$numbers": {"root": "i", "elements": []}}'.encode("utf-32-le"),
        b'{"a": "\xe2\x82\xac \xf0\x9f\x98\x80", "$numbers": {"root": "", "elements": []}}',
        b"",
        b"{}",
    ],
)
def test_hostile_bytes(data: bytes) -> None:
    assert_same(data)


def _mutations(text: str, seed: int, count: int) -> list[bytes]:
    """Bytes changed, dropped, repeated or cut at seeded places of ``text``."""
    rng = random.Random(seed)
    data = text.encode()
    found = []
    alphabet = b'{}[]",:-.0123456789eE \\u$IDtrufalsn\xff\xc3'
    for _ in range(count):
        at = rng.randrange(len(data))
        kind = rng.randrange(4)
        if kind == 0:
            found.append(data[:at] + bytes([rng.choice(alphabet)]) + data[at + 1 :])
        elif kind == 1:
            found.append(data[:at] + data[at + 1 :])
        elif kind == 2:
            end = min(len(data), at + rng.randrange(1, 40))
            found.append(data[:end] + data[at:])
        else:
            found.append(data[:at])
    return found


@needs_c
# (the smaller forms: mutations of the big ones reach the same code, slower)
@pytest.mark.parametrize("name", [n for n in sorted(FORMS) if len(FORMS[n]) <= 200_000][:12])
def test_mutated_forms(name: str) -> None:
    text = FORMS[name]
    for data in _mutations(text, len(name), 60):
        assert_same(data)


SAMPLE = "orange3134_loading_standin.brson"


def _cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    from brson.cli.app import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@needs_c
def test_from_json_builds_no_parsed_tree(
    samples_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plain form (to-json's, or one jq re-printed) is read by the C reader straight from
    the file: ``json.loads`` never builds its tree, and the archive is the original's."""
    from brson.document import jsonform

    form, back = tmp_path / "form.json", tmp_path / "back.brson"
    assert _cli(capsys, "to-json", samples_dir / SAMPLE, "-o", form)[0] == 0

    def refuse(text: object) -> None:
        raise AssertionError("the form was parsed into Python objects")

    monkeypatch.setattr(formstream, "_formstreamc", FORMSTREAMC)
    monkeypatch.setattr(jsonform, "loads_form", refuse)
    assert _cli(capsys, "from-json", form, "-o", back) == (0, "", "")
    assert back.read_bytes() == (samples_dir / SAMPLE).read_bytes()


@needs_c
@pytest.mark.parametrize(
    "text",
    [
        b'{"a": 1, "a": 2, "$numbers": {"root": "ii", "elements": []}}',
        b'{"a": "\\ud800", "$numbers": {"root": "", "elements": []}}',
        b'{"a": "\xff", "$numbers": {"root": "", "elements": []}}',
        b'{"a": NaN, "$numbers": {"root": "d", "elements": []}}',
        b'{"a": 99999999999999999999, "$numbers": {"root": "i", "elements": []}}',
        b'{"a": 1, "$numbers": {"root": "i", "elements": []}} trailing',
        b'{"a": ' + b"[" * 3000 + b"]" * 3000 + b', "$numbers": {"root": "", "elements": []}}',
        b'{"$container": {"framing": "tape"}, "a": 1, "$numbers": {"root": "i", "elements": []}}',
        b"",
    ],
)
def test_from_json_refuses_as_the_python_path(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    text: bytes,
) -> None:
    """Hostile text: what the Python path makes of it whichever reader met it first (the
    duplicate key's last value; else its one error line naming the file, its exit code and
    no output)."""
    form = tmp_path / "form.json"
    form.write_bytes(text)
    answers, written = [], []
    for compiled in (FORMSTREAMC, None):
        monkeypatch.setattr(formstream, "_formstreamc", compiled)
        out = tmp_path / f"out-{compiled is None}.brson"
        answers.append(_cli(capsys, "from-json", form, "-o", out))
        written.append(out.read_bytes() if out.exists() else None)
    assert answers[0] == answers[1]
    assert written[0] == written[1]
    code, out, err = answers[0]
    if code:
        assert out == "" and written[0] is None
        assert err.count("\n") == 1 and str(form) in err, err


def test_from_json_reads_only_regular_files(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The mapped input is refused as every input is (brson.fileio): a FIFO (not opened for
    a read that would block), a directory, a missing file, one over --max-size; each one
    line naming it, exit 2, no output. An empty file is JSON's error, not mmap's."""
    import os

    form = tmp_path / "form.json"
    assert _cli(capsys, "to-json", samples_dir / SAMPLE, "-o", form)[0] == 0
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    size = form.stat().st_size
    cases = [
        ((fifo,), "not a regular file (a FIFO)"),
        ((tmp_path,), "is a directory"),
        ((tmp_path / "missing.json",), "no such file"),
        ((form, "--max-size", str(size - 1)), "over the limit"),  # options go first
        ((empty,), "invalid JSON"),
    ]
    for (src, *options), problem in cases:  # global options before the command
        out = tmp_path / "out.brson"
        code, stdout, err = _cli(capsys, *options, "from-json", src, "-o", out)
        assert code == 2 and stdout == "" and not out.exists(), (src, err)
        assert err.count("\n") == 1 and problem in err and str(src) in err, err
    assert (
        _cli(capsys, "--max-size", str(size), "from-json", form, "-o", tmp_path / "ok.brson")[0]
        == 0
    )


@needs_c
@pytest.mark.parametrize("version", ["1.6", "1.7"])
def test_forms_jq_printed_again(version: str, tmp_path: Path) -> None:
    """The README's pipeline: every sample's form through jq (1.6 drops the '.0' of integral
    doubles and prints -0.0 as -0; 1.7 keeps them), read by C, as the Python path reads it."""
    import subprocess

    from tests.cli.test_jq_pipeline import jq_binary

    jq = jq_binary(version)
    for name in sorted(FORMS)[:20]:
        form = tmp_path / "form.json"
        form.write_text(FORMS[name])
        printed = subprocess.run([jq, ".", str(form)], capture_output=True, check=True).stdout
        assert assert_same(printed, taken=True) is not None


@needs_c
@pytest.mark.parametrize("repeated", [None, 0, 15, 16, 17, 4000])
def test_objects_of_many_keys(repeated: int | None) -> None:
    """Past 16 keys an object's keys go into a hash set (one check a key, not one per pair);
    a repeated key anywhere in it leaves the text to json.loads (which keeps its last value)."""
    keys = [f"k{i}" for i in range(5000)]
    if repeated is not None:
        keys.append(keys[repeated])
    body = ", ".join(f'"{key}": "{i}"' for i, key in enumerate(keys))
    text = "{" + body + ', "$numbers": {"root": "", "elements": []}}'
    assert (assert_same(text) is None) == (repeated is not None)
