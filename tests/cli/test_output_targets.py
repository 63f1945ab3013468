"""Where commands write: ``-`` is standard output (the report then goes to stderr) or is
refused; a command with several outputs writes all of them or none; an output's name says
its format.  Every case through the real command line."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from brson import api
from brson.cli.app import main
from brson.model import edit
from brson.package import load_package

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = PROJECT_ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"
PACKAGE = PROJECT_ROOT / "fixtures" / "demo" / "orange3134_loading_standin.resonitepackage"
THREE = PROJECT_ROOT / "brson" / "view" / "static" / "vendor" / "three.bundle.min.js"


def run(cap: pytest.CaptureFixture[bytes], *args: object) -> tuple[int, bytes, str]:
    code = main([str(a) for a in args])
    out, err = cap.readouterr()
    return code, out, err.decode()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder, where a file literally named ``-`` would land."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def glb(folder: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> Path:
    path = folder / "visual.glb"
    assert run(capsysbinary, "export-gltf", PACKAGE, "--slot", "Visual", "-o", path)[0] == 0
    return path


# -- "-" is standard output -------------------------------------------------------------------
ARCHIVE_TO_STDOUT = {
    "extract": ["extract", SAMPLE, "--slot", "Visual", "-o", "-"],
    "set": ["set", SAMPLE, "Visual.Name", "Shown", "-o", "-"],
    "rename": ["rename", SAMPLE, "Visual", "Shown", "-o", "-"],
    "renumber": ["renumber", SAMPLE, "-o", "-"],
}


@pytest.mark.parametrize("name", list(ARCHIVE_TO_STDOUT))
def test_archive_outputs_go_to_stdout_and_the_report_to_stderr(
    name: str, folder: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    args = ARCHIVE_TO_STDOUT[name]
    code, out, err = run(capsysbinary, *args)
    assert code == 0, err
    assert err.strip()  # the report line, moved off stdout
    assert list(folder.iterdir()) == []  # no file named "-"
    assert run(capsysbinary, *args[:-1], "file.brson")[0] == 0
    assert out == (folder / "file.brson").read_bytes()  # stdout holds the archive alone


def test_apply_to_stdout(folder: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    changed = folder / "b.brson"
    assert run(capsysbinary, "rename", SAMPLE, "Visual", "Shown", "-o", changed)[0] == 0
    code, patch, _ = run(capsysbinary, "diff", SAMPLE, changed, "--json")
    assert code == 1
    (folder / "patch.json").write_bytes(patch)
    code, out, err = run(capsysbinary, "apply", SAMPLE, folder / "patch.json", "-o", "-")
    assert code == 0, err
    assert out == changed.read_bytes() and "applied 1 change(s) -> -" in err
    assert not (folder / "-").exists()


def test_json_report_with_stdout_output_goes_to_stderr(
    folder: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = run(capsysbinary, "extract", SAMPLE, "--slot", "Visual", "-o", "-", "--json")
    assert code == 0
    assert api.loads(out).root.name == "Visual"
    assert json.loads(err)["output"] == "-"


def test_export_godot_to_stdout(folder: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, err = run(capsysbinary, "export-godot", SAMPLE, "-o", "-")
    assert code == 0 and out.startswith(b"[gd_scene format=3]") and err.startswith("-: ")
    code, out, err = run(capsysbinary, "export-godot", SAMPLE, "--variant", "-")
    assert not (folder / "-").exists()
    assert run(capsysbinary, "export-godot", SAMPLE, "--variant", "v.bin")[0] == 0
    assert code == 0 and out == (folder / "v.bin").read_bytes()


def test_export_gltf_to_stdout(folder: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, err = run(capsysbinary, "export-gltf", PACKAGE, "--slot", "Visual", "-o", "-")
    assert code == 0 and out[:4] == b"glTF" and "1 meshes" in err
    assert list(folder.iterdir()) == []


def test_import_gltf_to_stdout(glb: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, err = run(capsysbinary, "import-gltf", glb, "-o", "-")
    assert code == 0 and "1 meshes" in err
    (glb.parent / "item.resonitepackage").write_bytes(out)
    assert load_package(glb.parent / "item.resonitepackage").tree.root is not None
    assert not (glb.parent / "-").exists()


def test_view_html_to_stdout(folder: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert THREE.exists(), "the viewer's bundle: make vendor"
    code, out, err = run(capsysbinary, "view", SAMPLE, "--html", "-")
    assert code == 0, err
    assert out.lstrip().lower().startswith(b"<!doctype html") and "opens from disk" in err
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ["assets", PACKAGE, "-o", "-"],
        ["schema", "-o", "-"],
        ["scan", SAMPLE, "-o", "-"],
    ],
    ids=["assets", "schema", "scan"],
)
def test_folder_outputs_refuse_stdout(
    args: list[object], folder: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = run(capsysbinary, *args)
    assert code == 2 and out == b""
    assert "standard output (-) cannot be one" in err
    assert list(folder.iterdir()) == []


# -- an output's name says its format ---------------------------------------------------------
@pytest.mark.parametrize("name", ["item.brson", "item.zip", "item"])
def test_import_gltf_refuses_a_name_that_is_not_a_package(
    name: str, glb: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = run(capsysbinary, "import-gltf", glb, "-o", glb.parent / name)
    assert code == 2 and out == b"" and "name the output *.resonitepackage" in err
    assert not (glb.parent / name).exists()
    package = glb.parent / "item.resonitepackage"
    assert run(capsysbinary, "import-gltf", glb, "-o", package)[0] == 0
    assert zipfile.is_zipfile(package)
    assert run(capsysbinary, "info", package)[0] == 0


# -- several outputs: all of them or none -----------------------------------------------------
def test_export_godot_second_output_failing_leaves_no_first(
    folder: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = run(
        capsysbinary, "export-godot", SAMPLE, "-o", "o.tscn", "--variant", "nodir/o.bin"
    )
    assert code == 2 and out == b""
    assert err.splitlines() == [
        "brson: nodir/o.bin: file error: cannot write (No such file or directory)"
    ]
    assert list(folder.iterdir()) == []  # no o.tscn, no temporary


def test_export_godot_failure_keeps_the_old_outputs(
    folder: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    (folder / "o.tscn").write_text("old scene")
    code, _, _ = run(capsysbinary, "export-godot", SAMPLE, "-o", "o.tscn", "--variant", "nodir/x")
    assert code == 2
    assert (folder / "o.tscn").read_text() == "old scene"
    assert sorted(p.name for p in folder.iterdir()) == ["o.tscn"]


def test_export_godot_variant_failing_after_the_scene(
    folder: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A NUL in a string is refused by the Variant writer, after the scene was made: one error
    line, no success line before it, and no scene left behind."""
    tree = api.load(SAMPLE)
    edit.rename(tree.select("Visual"), "a\x00b")
    api.dump(tree, folder / "nul.brson")
    code, out, err = run(
        capsysbinary, "export-godot", "nul.brson", "-o", "o.tscn", "--variant", "o.bin"
    )
    assert code == 2 and out == b""
    assert len(err.splitlines()) == 1 and "NUL" in err
    assert sorted(p.name for p in folder.iterdir()) == ["nul.brson"]


def test_export_gltf_with_its_gltf_failing_leaves_no_bin(
    folder: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """The .bin is written first, then the .gltf naming it: the second failing takes back
    the first."""
    (folder / "v.gltf").mkdir()
    code, _, err = run(capsysbinary, "export-gltf", PACKAGE, "--slot", "Visual", "-o", "v.gltf")
    assert code == 2 and "v.gltf: file error: is a directory" in err
    assert sorted(p.name for p in folder.iterdir()) == ["v.gltf"]


def test_two_outputs_naming_one_file_are_refused(
    folder: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """``-o v.glb --gltf``: the scene and the glTF beside it would both be v.glb."""
    code, out, err = run(capsysbinary, "export-godot", PACKAGE, "-o", "v.glb", "--gltf")
    assert code == 2 and out == b""
    assert "is written twice by this command" in err and len(err.splitlines()) == 1
    assert list(folder.iterdir()) == []


def test_the_demo_writes_each_output_once() -> None:
    """Every output ``make demo`` names is written by one command only (``export-godot
    --gltf`` writes OUT.glb beside OUT.tscn: it replaced the glTF exported just before)."""
    text = (PROJECT_ROOT / "Makefile").read_text()
    recipe = text.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    written: list[str] = []
    for line in recipe.splitlines():
        words = line.split()
        for option in ("-o", "--html"):
            if option in words:
                target = words[words.index(option) + 1]
                written.append(target)
                if "--gltf" in words:
                    written.append(str(Path(target).with_suffix(".glb")))
        if words[:1] == ["$(BIN)/brson"] and words[1] == "convert":
            written.append(words[3])
    assert len(written) > 5 and len(written) == len(set(written)), written


# -- validate --sarif -------------------------------------------------------------------------
@pytest.mark.parametrize("output_format", ["text", "github", "sarif"])
def test_sarif_to_stdout_is_alone_there(
    output_format: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = run(
        capsysbinary, "validate", SAMPLE, "--sarif", "-", "--format", output_format
    )
    assert code == 0
    log = json.load(io.BytesIO(out))  # the whole of stdout is one SARIF log
    assert log["version"] == "2.1.0" and log["runs"][0]["results"]
    if output_format == "sarif":
        assert err == ""
    else:
        assert "BR502" in err


def on_a_terminal(args: list[object], cwd: Path) -> tuple[int, str, str]:
    """``brson ARGS`` with a pseudo-terminal as stdout: exit code, stdout, stderr."""
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "brson", *map(str, args)],
        stdout=child_fd,
        stderr=subprocess.PIPE,
        cwd=cwd,
    )
    os.close(child_fd)
    chunks = []
    while True:
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main_fd)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    return proc.wait(timeout=120), b"".join(chunks).decode(errors="replace"), err


def test_binary_data_is_refused_on_a_terminal_text_is_not(folder: Path) -> None:
    code, out, err = on_a_terminal(["extract", SAMPLE, "--slot", "Visual", "-o", "-"], folder)
    assert code == 2 and "refusing to write binary data to a terminal" in err and out == ""
    code, out, err = on_a_terminal(["export-godot", SAMPLE, "-o", "-"], folder)
    assert code == 0 and "[gd_scene format=3]" in out
    code, out, _ = on_a_terminal(["to-json", SAMPLE, "-o", "-"], folder)
    assert code == 0 and '"Object"' in out
    assert list(folder.iterdir()) == []
