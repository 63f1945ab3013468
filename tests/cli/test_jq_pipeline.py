"""The README's pipeline through Debian's real jq: ``brson to-json X | jq . | brson from-json -
-o Y`` gives byte-identical BSON with jq 1.6 (Debian 12, which prints ``1.0`` as ``1`` and
``-0.0`` as ``-0``) and jq 1.7.1 (Debian 13), on every real sample; and edits made with jq keep
each element's recorded number types (the ``$numbers`` record, docs/json-form.md).

The edits go through the pipeline as the README writes it (a shell, two brson processes and
jq, pipes between them); the sweep over every sample and the exact doubles run brson's two
commands in this process around the real jq (what a case changes is the JSON form, not the
processes; two brson processes were about 1 s of CPU a case).

jq 1.6 is ``jq`` on PATH; jq 1.7 is ``$BRSON_JQ17`` or the wrapper ``scripts/ensure-jq.sh``
writes (``make test`` runs it).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bson.int64 import Int64

import brson
from brson.cli.app import main
from brson.container import unpack
from brson.document import bsondoc
from brson.ops.diff import diff

BRSON = str(Path(sys.executable).parent / "brson")
SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples"
SAMPLE_FILES = sorted(
    p for p in SAMPLES.glob("*") if p.suffix in (".brson", ".7zbson", ".resonitepackage")
)
STANDIN = "orange3134_loading_standin.brson"

# A sweep of jq processes, and three pipelines of two brson processes and a jq each.
pytestmark = pytest.mark.slow


def _jq17() -> str | None:
    explicit = os.environ.get("BRSON_JQ17")
    if explicit:
        return explicit
    default = Path(os.environ.get("HOME", "/tmp")) / ".cache" / "brson" / "jq" / "jq17"
    return str(default) if default.is_file() else None


def jq_binary(version: str) -> str:
    """The jq of that version (``1.6`` or ``1.7``); skips (fails in CI) when it is missing."""
    found = shutil.which("jq") if version == "1.6" else _jq17()
    if found is None:
        pytest.skip(f"jq {version} not found (sh scripts/ensure-jq.sh installs both)")
    printed = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
    if not printed.stdout.startswith(f"jq-{version}"):
        pytest.skip(f"{found} is {printed.stdout.strip()!r}, not jq {version}")
    return found


def pipeline(jq: str, src: Path, out: Path, program: str = ".") -> subprocess.CompletedProcess[str]:
    """The README's pipeline, run by a shell, with the given jq program."""
    command = f'"{BRSON}" to-json "{src}" | "{jq}" \'{program}\' | "{BRSON}" from-json - -o "{out}"'
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        capture_output=True,
        text=True,
        check=False,
    )


def pipeline_in_process(
    jq: str,
    src: Path,
    out: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    """The pipeline with ``to-json`` and ``from-json -`` run by the CLI's entry point in this
    process, jq a real process between them; returns from-json's standard error."""
    assert main(["to-json", str(src)]) == 0
    form = capsys.readouterr().out
    printed = subprocess.run([jq, "."], input=form.encode(), capture_output=True, check=True)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(printed.stdout)))
    code = main(["from-json", "-", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    return err


def bson_of(path: Path) -> bytes:
    return brson.load(path).to_bson()


@pytest.mark.parametrize("version", ["1.6", "1.7"])
@pytest.mark.parametrize("src", SAMPLE_FILES, ids=[p.name for p in SAMPLE_FILES])
def test_readme_pipeline_is_byte_identical(
    src: Path,
    version: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    jq = jq_binary(version)
    out = tmp_path / ("y.brson" if src.suffix != ".7zbson" else "y.7zbson")
    err = pipeline_in_process(jq, src, out, capsys, monkeypatch)
    assert unpack(out.read_bytes(), out.name)[1] == bson_of(src)
    changes = list(diff(brson.load(src), brson.load(out)).lines())
    assert not changes, changes[:20]
    if version == "1.6":  # the jq that drops '.0' says what was restored
        assert "restored as doubles from $numbers" in err


def _member(doc: dict, ident: str) -> dict:
    stack: list = [doc]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if value.get("ID") == ident:
                return value
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    raise KeyError(ident)


def _first_member(doc: dict, arity: int, kind: type) -> dict:
    """A member whose Data is ``arity`` numbers of ``kind`` (a float3 / an int field)."""
    stack: list = [doc["Object"]]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            data = value.get("Data")
            if (
                isinstance(value.get("ID"), str)
                and isinstance(data, list if arity > 1 else kind)
                and (arity == 1 or (len(data) == arity and all(type(x) is kind for x in data)))
            ):
                return value
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    raise LookupError("no such member")


@pytest.mark.parametrize("version", ["1.6", "1.7"])
def test_jq_edit_keeps_the_elements_types(samples_dir: Path, tmp_path: Path, version: str) -> None:
    """``[2, 2, 2]`` written by jq into a float3 comes back as three doubles; an int field
    set to 5 stays int32; the rest of the file is unchanged."""
    jq = jq_binary(version)
    src = samples_dir / STANDIN
    doc = bsondoc.decode(bson_of(src))
    floats = _first_member(doc, 3, float)["ID"]
    ints = _first_member(doc, 1, int)["ID"]
    program = (
        f'(.. | objects | select(.ID? == "{floats}") | .Data) = [2, 2, 2.5] '
        f'| (.. | objects | select(.ID? == "{ints}") | .Data) = 5'
    )
    out = tmp_path / "y.brson"
    done = pipeline(jq, src, out, program)
    assert done.returncode == 0, done.stderr
    edited = bsondoc.decode(bson_of(out))
    assert [type(x) for x in _member(edited, floats)["Data"]] == [float, float, float]
    assert _member(edited, floats)["Data"] == [2.0, 2.0, 2.5]
    assert type(_member(edited, ints)["Data"]) is int
    _member(doc, floats)["Data"] = [2.0, 2.0, 2.5]
    _member(doc, ints)["Data"] = 5
    assert bsondoc.encode(edited) == bsondoc.encode(doc)


@pytest.mark.parametrize("version", ["1.6", "1.7"])
def test_exact_doubles_through_jq(
    tmp_path: Path,
    version: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """-0.0, integral doubles small and past 1e17, the smallest subnormal and int32/int64
    edges, as jq prints them, come back with their types and bits."""
    jq = jq_binary(version)
    doc = {
        "Object": {
            "ID": "A",
            "Data": [-0.0, 0.0, 1.0, -3.0, 1e16, 1e17, 1e20, 1.5e300, 5e-324, 0.1, 2.0**53],
            "Count": {"ID": "B", "Data": [0, -1, 2**31 - 1, -(2**31), Int64(7), Int64(2**62)]},
        },
        "Top": [1.0, 2, -0.0],
    }
    src = tmp_path / "x.bson"
    brson.dump(doc, src)
    out = tmp_path / "y.bson"
    pipeline_in_process(jq, src, out, capsys, monkeypatch)
    assert out.read_bytes() == src.read_bytes()


def test_added_and_ambiguous_elements_are_reported(samples_dir: Path, tmp_path: Path) -> None:
    """Integers in an element the record does not know, or in an element whose mixed numbers
    changed in count, stay int32 and from-json says so (never a silent guess)."""
    jq = jq_binary("1.6")
    src = tmp_path / "x.bson"
    brson.dump(
        {"Object": {"ID": "A", "Mixed": {"ID": "M", "Data": [1.5, 2, 3.0]}, "Children": []}}, src
    )
    program = '.Object.Children = [{"ID": "NEW", "Data": [1, 2]}] | .Object.Mixed.Data += [4]'
    out = tmp_path / "y.bson"
    done = pipeline(jq, src, out, program)
    assert done.returncode == 0, done.stderr
    assert "2 integer(s) in element(s) $numbers does not list (NEW)" in done.stderr
    assert "3 integer(s) in element(s) whose numbers changed (M)" in done.stderr
    written = bsondoc.decode(unpack(out.read_bytes(), out.name)[1])
    assert written["Object"]["Mixed"]["Data"] == [1.5, 2, 3, 4]  # as written, and said so
    assert [type(x) for x in written["Object"]["Children"][0]["Data"]] == [int, int]


def test_record_is_plain_json_that_jq_keeps(
    samples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The record is the form's last key, strings only: nothing for a JSON tool to re-print."""
    assert main(["to-json", str(samples_dir / STANDIN)]) == 0
    form = json.loads(capsys.readouterr().out)
    assert next(iter(form)) == "$container" and list(form)[-1] == "$numbers"
    record = form["$numbers"]
    assert set(record) == {"root", "elements"}
    assert all(
        isinstance(ident, str) and set(types) <= {"d", "i"} for ident, types in record["elements"]
    )
