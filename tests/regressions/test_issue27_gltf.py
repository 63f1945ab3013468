"""Hostile glTF, MeshX and patch input: accessors that would read outside their buffer,
MeshX assets that add up past the run's limit, buffer files that never end, scenes whose
size made the import quadratic, and JSON nested deep enough to exhaust the stack. Each is
one error line naming the file, exit 2, in bounded time and memory; the import's work at n,
2n and 4n nodes is counted (lines run), not timed."""

from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from brson.document import jsonform
from brson.gltf.importer import GltfImportError, _Reader, import_gltf
from tests.gltf.hostile import (
    BAD_ACCESSORS,
    MIB,
    deep_json,
    glb,
    interleaved,
    mesh_package,
    meshx_bomb,
    nodes_glb,
    triangle,
    triangle_glb,
)
from tests.hardening.support import LIMIT, PEAK, PROJECT_ROOT, run_child, run_cli
from tests.regressions.test_issue12_scaling import _linear, _lines

STANDIN = PROJECT_ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"


def _one_error_line(err: str, name: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and name in lines[0], err
    assert "Traceback" not in err and "internal error" not in err, err
    for word in words:
        assert word in lines[0], err


def _import(tmp_path: Path, data: bytes, name: str = "in.glb") -> tuple[int, str, Path]:
    src, out = tmp_path / name, tmp_path / "out.resonitepackage"
    src.write_bytes(data)
    code, _out, err = run_cli(["import-gltf", str(src), "-o", str(out)])
    return code, err, out


# -- accessors ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "changes",
    BAD_ACCESSORS,
    ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()),
)
def test_bad_accessor_is_one_error_line(tmp_path: Path, changes: dict[str, object]) -> None:
    """A negative byteStride made as_strided read before the buffer (a SIGSEGV, or heap bytes
    written into the mesh with exit 0); every other field an accessor is read through is
    checked the same way, before any array is made."""
    code, err, out = _import(tmp_path, triangle_glb(**changes))
    assert code == 2, err
    _one_error_line(err, "in.glb", "gltf error")
    assert not out.exists()


def _reference(raw: bytes, offset: int, stride: int, count: int, fmt: str) -> list[float]:
    """The elements as the glTF spec defines them, one struct.unpack per element."""
    return [v for i in range(count) for v in struct.unpack_from(fmt, raw, offset + i * stride)]


@pytest.mark.parametrize("seed", range(40))
def test_any_accessor_reads_exactly_its_elements_or_is_refused(seed: int) -> None:
    """Random offsets, strides and counts over a small buffer: each accessor either reads
    exactly the bytes the spec says (compared with struct, element by element) or is refused;
    nothing outside the view is ever read."""
    rng = np.random.default_rng(seed)
    buffer = rng.integers(0, 256, 96, dtype=np.uint8).tobytes()
    view_offset = int(rng.integers(-4, 40))
    view_length = int(rng.integers(-4, 100))
    stride = int(rng.choice([-8, 0, 4, 6, 8, 12, 16, 20, 24, 252, 256]))
    offset = int(rng.integers(-4, 40))
    count = int(rng.integers(-1, 12))
    shape = str(rng.choice(["SCALAR", "VEC2", "VEC3"]))
    doc = {
        "bufferViews": [
            {"buffer": 0, "byteOffset": view_offset, "byteLength": view_length}
            | ({"byteStride": stride} if stride else {})
        ],
        "accessors": [
            {
                "bufferView": 0,
                "byteOffset": offset,
                "componentType": 5126,
                "count": count,
                "type": shape,
            }
        ],
    }
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3}[shape]
    step = stride or 4 * width
    valid = (
        view_offset >= 0
        and view_length >= 1
        and view_offset + view_length <= len(buffer)
        and (not stride or (stride in range(4, 253, 4) and stride >= 4 * width))
        and offset >= 0
        and offset % 4 == 0
        and count >= 1
        and offset + step * (count - 1) + 4 * width <= view_length
    )
    reader = _Reader(doc, [buffer])
    if not valid:
        with pytest.raises(GltfImportError):
            reader.accessor(0)
        return
    got = reader.accessor(0)
    view = buffer[view_offset : view_offset + view_length]
    expected = _reference(view, offset, step, count, f"<{width}f")
    assert got.shape == (count, width)
    assert np.array_equal(got.reshape(-1), np.array(expected, np.float32), equal_nan=True)


def test_valid_strided_accessor_reads_the_same_as_before(tmp_path: Path) -> None:
    """An interleaved buffer view (positions and normals in one 24-byte stride) still
    imports: strides are read, not refused."""
    gltf, binary = interleaved()
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    normals = np.array([[0, 0, 1]] * 3, np.float32)
    reader = _Reader(gltf, [binary])
    assert np.array_equal(reader.accessor(len(gltf["accessors"]) - 1), normals)
    assert np.array_equal(reader.accessor(len(gltf["accessors"]) - 2), positions)
    code, err, out = _import(tmp_path, glb(gltf, binary))
    assert code == 0 and out.is_file(), err


# -- MeshX: one budget per run -----------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(
    "export",
    [["export-gltf"], ["export-godot", "--godot", "3"]],
    ids=["gltf", "godot3"],
)
def test_meshx_assets_share_one_limit_per_run(tmp_path: Path, export: list[str]) -> None:
    """Five MeshX assets of 1 MiB each, every one under a 3.5 MiB --max-size, 5 MiB in all:
    the limit is the run's, so the export stops with one LimitError line (exit 2) and writes
    nothing. Each asset used to get the whole limit for itself (Godot 3 builds ArrayMeshes
    from the same assets). The sizes are small because only their ratio to the limit
    matters: the assets are decompressed and, under the limit, exported (Godot 3's meshes
    about 0.1 s of CPU a MiB)."""
    gltf = export[0] == "export-gltf"
    size, limit = MIB, 7 * MIB // 2
    package = tmp_path / "meshes.resonitepackage"
    mesh_package(package, [meshx_bomb(size, salt) for salt in range(5)])
    out = tmp_path / ("out.glb" if gltf else "out.tscn")
    code, _out, err = run_cli(["--max-size", str(limit), *export, str(package), "-o", str(out)])
    assert code == 2, err
    _one_error_line(err, package.name, "limit error", str(limit))
    assert not out.exists()
    if gltf:
        # Under the limit together, the same assets export.
        code, _out, err = run_cli(
            ["--max-size", str(11 * MIB // 2), *export, str(package), "-o", str(out)]
        )
        assert code == 0, err


def test_meshx_bomb_package_is_refused_in_little_memory(tmp_path: Path) -> None:
    """A 31 KB package of five LZ4 MeshX assets of 1 GiB each: with --max-size 64 MiB the
    export took 12.6 GB and six minutes before failing; now it stops at the limit."""
    package = tmp_path / "bomb.resonitepackage"
    mesh_package(package, [meshx_bomb(1024 * MIB, salt) for salt in range(5)])
    assert package.stat().st_size < 64 * 1024
    code = """
from brson.cli.app import main
import contextlib, io
# A bound on the address space: an export that ignores the limit fails here, not the machine.
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
err = io.StringIO()
with contextlib.redirect_stderr(err):
    rc = main(["--max-size", sys.argv[2], "export-gltf", sys.argv[1], "-o", sys.argv[3]])
print(json.dumps({"rc": rc, "err": err.getvalue(), "peak": peak()}))
"""
    out = run_child(code, str(package), str(LIMIT), str(tmp_path / "out.glb"))
    assert out["rc"] == 2, out
    _one_error_line(out["err"], package.name, "limit error")
    assert out["peak"] < PEAK + LIMIT, f"peak RSS {out['peak'] / MIB:.0f} MiB"


# -- buffer and image files --------------------------------------------------------------------
#: Limits of the children that import these files: a read that never ends fails there
#: instead of taking the machine's memory, and a hang is a timeout.
CHILD_MEMORY = 1536 * MIB
CHILD_SECONDS = 30
SPECIAL_KINDS = ["fifo", "link-to-dev-zero", "link-to-fifo"]
SPECIAL_OUT = "out.resonitepackage"


def _bound() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def _cli_child(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``brson ARGS`` in a child of bounded memory and time."""
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT))
    return subprocess.run(
        [sys.executable, "-m", "brson", *args],
        capture_output=True,
        text=True,
        timeout=CHILD_SECONDS,
        cwd=cwd,
        preexec_fn=_bound,
        env=env,
    )


def _gltf_beside(tmp_path: Path, what: str) -> Path:
    """``scene.gltf`` whose buffer (or image) file is ``data.bin`` (``image.png``)."""
    doc = triangle()
    gltf = doc.finish("data.bin")
    (tmp_path / "data.bin").write_bytes(bytes(doc.buffer))
    if what == "image":
        gltf["images"] = [{"uri": "image.png"}]
        gltf["textures"] = [{"source": 0}]
        gltf["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = {"index": 0}
    src = tmp_path / "scene.gltf"
    src.write_text(json.dumps(gltf))
    return src


def _special_beside(folder: Path, what: str, special: str) -> Path:
    """``scene.gltf`` whose buffer (or image) is a FIFO, or a link to /dev/zero or a FIFO."""
    folder.mkdir()
    src = _gltf_beside(folder, what)
    target = folder / ("data.bin" if what == "buffer" else "image.png")
    target.unlink(missing_ok=True)
    fifo = folder / "pipe"
    if special.endswith("fifo"):
        os.mkfifo(fifo)
    if special == "fifo":
        os.mkfifo(target)
    else:  # a URI names a file beside the .gltf: a device is reached through a link
        target.symlink_to(fifo if special == "link-to-fifo" else Path("/dev/zero"))
    return src


#: Each case's import, in one child: every one under its own time bound, so a hang fails
#: that case only (a read that never ends fails the child's memory limit).
SPECIAL_CHILD = """
import contextlib, io, json, os, signal, sys
from brson.cli.app import main

def expire(_signum, _frame):
    raise TimeoutError("a hang")

signal.signal(signal.SIGALRM, expire)
results = {}
for folder in sys.argv[2:]:
    err = io.StringIO()
    os.chdir(folder)
    signal.alarm(int(sys.argv[1]))
    try:
        with contextlib.redirect_stderr(err):
            rc = main(["import-gltf", "scene.gltf", "-o", "out.resonitepackage"])
    except BaseException as exc:
        rc = repr(exc)
    finally:
        signal.alarm(0)
    results[folder] = {"rc": rc, "err": err.getvalue()}
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def special_imports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """import-gltf of every special buffer or image file, by ``what-special`` case: one
    child for them all (a brson process costs more than the six imports)."""
    base = tmp_path_factory.mktemp("special")
    cases = {
        f"{what}-{special}": _special_beside(base / f"{what}-{special}", what, special).parent
        for what in ("buffer", "image")
        for special in SPECIAL_KINDS
    }
    proc = subprocess.run(
        [sys.executable, "-c", SPECIAL_CHILD, str(CHILD_SECONDS), *map(str, cases.values())],
        capture_output=True,
        text=True,
        timeout=CHILD_SECONDS * (len(cases) + 1),
        cwd=PROJECT_ROOT,
        preexec_fn=_bound,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        case: {**results[str(folder)], "wrote": (folder / SPECIAL_OUT).exists()}
        for case, folder in cases.items()
    }


@pytest.mark.parametrize("what", ["buffer", "image"])
@pytest.mark.parametrize("special", SPECIAL_KINDS)
def test_buffer_or_image_that_is_not_a_regular_file(
    special_imports: dict[str, dict[str, Any]], what: str, special: str
) -> None:
    """A FIFO hung import-gltf; /dev/zero (or a symlink to it) was read until 5.4 GB."""
    result = special_imports[f"{what}-{special}"]
    assert result["rc"] == 2, result
    _one_error_line(
        result["err"], "data.bin" if what == "buffer" else "image.png", "not a regular file"
    )
    assert not result["wrote"]


def test_fifo_buffer_refused_by_a_brson_process(tmp_path: Path) -> None:
    """The same refusal from ``brson`` itself: exit code 2, one line on stderr."""
    src = _special_beside(tmp_path / "scene", "buffer", "fifo")
    out = src.parent / SPECIAL_OUT
    proc = _cli_child(["import-gltf", str(src), "-o", str(out)], src.parent)
    assert proc.returncode == 2, proc.stderr
    _one_error_line(proc.stderr, "data.bin", "not a regular file")
    assert not out.exists()


def test_buffer_files_share_the_run_limit(tmp_path: Path) -> None:
    """Buffer files beside a .gltf are read within --max-size (all together), refused before
    reading when larger."""
    src = _gltf_beside(tmp_path, "buffer")
    with open(tmp_path / "data.bin", "r+b") as handle:
        handle.truncate(8 * MIB)  # sparse: big on paper, nothing to read
    code, _out, err = run_cli(
        [
            "--max-size",
            str(4 * MIB),
            "import-gltf",
            str(src),
            "-o",
            str(tmp_path / "o.resonitepackage"),
        ]
    )
    assert code == 2, err
    _one_error_line(err, "data.bin", "limit")


# -- scale ---------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("shape", ["wide", "chained", "wide-meshes", "chained-meshes"])
def test_import_work_is_linear_in_nodes(shape: str) -> None:
    """Every added slot re-serialised the whole tree (a fresh ID source per edit) and was
    put into its parent's children one at a time: 200 / 400 / 800 nodes took 1.5 / 4.9 /
    20.8 s. The lines of brson's code the import runs at n, 2n, 4n nodes grow linearly."""
    chained = shape.startswith("chained")
    mesh = shape.endswith("meshes")

    def work(n: int) -> int:
        data = nodes_glb(n, chained, mesh)
        return _lines(lambda: import_gltf(data, "scale"))

    # At 20, touching every slot made so far once per added slot grows the work by 2.9 to 3.4
    _linear(work, 20, shape)


def test_deep_chain_imports_whole() -> None:
    """A chain as deep as the JSON limit allows still imports, every node a slot."""
    n = 2000
    tree, _assets, report = import_gltf(nodes_glb(n, True), "deep")
    assert report.slots == n
    depth, slot = 0, tree.root
    while slot.children:
        (slot,) = slot.children
        depth += 1
    assert depth == n


# -- nesting -------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["glb", "gltf"])
def test_deeply_nested_gltf_json_is_one_error_line(tmp_path: Path, form: str) -> None:
    """100k nested arrays in the glTF JSON ended in "internal error: RecursionError"."""
    text = deep_json(100_000)
    data = glb(json.loads(deep_json(3)), b"") if form == "glb" else text
    if form == "glb":  # the JSON chunk replaced by the deep text
        text += b" " * (-len(text) % 4)
        data = struct.pack("<III", 0x46546C67, 2, 20 + len(text))
        data += struct.pack("<II", len(text), 0x4E4F534A) + text
    code, err, _out = _import(tmp_path, data, f"deep.{form}")
    assert code == 2, err
    _one_error_line(err, f"deep.{form}", "nesting")


def test_json_nesting_limit_is_one_number() -> None:
    """What every reader of JSON from a file refuses: deeper than MAX_JSON_DEPTH."""
    limit = jsonform.MAX_JSON_DEPTH
    assert jsonform.parse_json("[" * limit + "]" * limit) is not None
    assert jsonform.parse_json(b'{"a": ' + b"[" * (limit - 1) + b"]" * (limit - 1) + b"}")
    with pytest.raises(ValueError, match="nesting"):
        jsonform.parse_json("[" * (limit + 1) + "]" * (limit + 1))
    with pytest.raises(ValueError, match="nesting"):
        jsonform.parse_json('{"a": [{"b": ' * limit + "1" + "}]" * limit + "}")
    with pytest.raises(GltfImportError, match="nesting"):
        import_gltf(deep_json(limit), "x")


def test_deep_patch_value_is_one_error_line(tmp_path: Path) -> None:
    """A patch whose new value nests 700 arrays deep ended in "internal error:
    RecursionError" (the value's conversion recursed); one a few levels under the limit
    still applies."""
    edited = tmp_path / "b.brson"
    assert run_cli(["rename", str(STANDIN), "Visual", "Visual2", "-o", str(edited)])[0] == 0
    code, patch_text, err = run_cli(["diff", str(STANDIN), str(edited), "--json"])
    assert '"Visual2"' in patch_text, err

    def apply(depth: int) -> tuple[int, str]:
        value = "[" * depth + "]" * depth
        patch = tmp_path / "deep.json"
        patch.write_text(patch_text.replace('"new": "Visual2"', f'"new": {value}'))
        code, _out, err = run_cli(
            ["apply", str(STANDIN), str(patch), "-o", str(tmp_path / "c.brson")]
        )
        return code, err

    code, err = apply(700)
    assert code == 2, err
    _one_error_line(err, "deep.json", "nesting")
    code, err = apply(400)
    assert code == 0, err
