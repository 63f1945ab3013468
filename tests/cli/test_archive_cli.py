"""``brson info``, ``convert``, ``to-json`` and ``from-json`` as a user runs them.

The library tests (tests/container) prove the formats; these prove the commands: what ``info``
reports against the samples' MANIFEST.md, that the codec a user asks for is the one written,
that bad input is one line on stderr with exit code 2 and no output, and the conventions of
a command-line tool (``--version``, ``python -m brson``, ``-`` for stdin/stdout).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from container.support import (
    FIXTURES,
    PROJECT_ROOT,
    SAMPLES,
    plain_lz4net_chunks,
    plain_lzma_raw,
)

import brson
from brson.cli.app import main
from brson.container import unpack

#: What MANIFEST.md says: container, codec, BSON bytes, slots, slot components, assets, types.
MANIFEST: dict[str, tuple[str, str, int, int, int, int, int | None]] = {
    "orange3134_AvatarRootIdentification.brson": ("FrDT", "brotli", 26589, 13, 29, 0, 20),
    "orange3134_loading_standin.brson": ("FrDT", "brotli", 68443, 36, 58, 0, 49),
    "redx_5ce7cdf5.7zbson": ("legacy (headerless)", "lzma", 111579, 19, 44, 27, None),
    # the main archive inside each package
    "orange3134_AvatarRootIdentification.resonitepackage": ("FrDT", "brotli", 26589, 13, 29, 0, 20),
    "orange3134_loading_standin.resonitepackage": ("FrDT", "brotli", 68443, 36, 58, 0, 49),
}
PACKAGES = {
    "orange3134_AvatarRootIdentification.resonitepackage": ("7c364dcd1910", 0),
    "orange3134_loading_standin.resonitepackage": ("6ca27cd0f61e", 1),
}
BRSON = ["orange3134_AvatarRootIdentification.brson", "orange3134_loading_standin.brson"]
ARCHIVES = [*BRSON, "redx_5ce7cdf5.7zbson"]

#: Broken inputs and the layer each must be reported in.
BROKEN = {
    "empty.brson": "container error",
    "header_only.brson": "container error",
    "version1.brson": "unsupported FrDT version 1",
    "kind9.brson": "unknown compression kind 9",
    "noise.brson": "not a .brson archive: no FrDT magic",
    "noise_frdt.brson": "codec error",
    "truncated.brson": "codec error",
    "truncated.7zbson": "codec error",
    "truncated_legacy.7zbson": "codec error",
    "truncated.lz4bson": "codec error",
    "truncated_frame.lz4bson": "codec error",
    "truncated.bson": "bson error",
    "trailing_bson.brson": "bson error",
    "not_bson.brson": "bson error",
}


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"real sample {name} not present")
    return path


# -- info ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_info_reports_the_manifest_facts(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    container, codec, size, slots, components, assets, types = MANIFEST[name]
    code, out, err = run(capsys, "info", sample(name), "--json")
    assert (code, err) == (0, "")
    (row,) = json.loads(out)
    assert (row["container"], row["codec"], row["uncompressed_size"]) == (container, codec, size)
    assert (row["slots"], row["components"], row["assets"]) == (slots, components, assets)
    if types is not None:
        assert row["types"] == types
    assert row["version"] == (0 if container == "FrDT" else None)
    if name.endswith((".brson", ".7zbson")):
        assert row["compressed_size"] == sample(name).stat().st_size
        assert row["package"] is None
    else:  # the main tree's sha256 prefix and the other assets, as MANIFEST.md lists them
        main, others = PACKAGES[name]
        assert row["package"]["main"].startswith(f"Assets/{main}")
        assert row["package"]["assets"] == others
        assert row["package"]["size"] == sample(name).stat().st_size


def test_info_text_names_every_file(capsys: pytest.CaptureFixture[str]) -> None:
    files = [sample(n) for n in ARCHIVES]
    code, out, _ = run(capsys, "info", *files)
    assert code == 0
    assert [line for line in out.splitlines() if not line.startswith(" ")] == [
        str(f) for f in files
    ]
    assert out.count("  codec ") == 3 and "lzma" in out and "brotli" in out


def test_info_prints_names_and_paths_verbatim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Slot names and file names are data, not rich markup ('[/]' used to be an internal
    error, '[bold]' vanished from a path)."""
    tree = brson.load(FIXTURES / "tiny.brson")
    tree.root.name = "Root [/] [bold]x"
    path = tmp_path / "odd [bold].brson"
    brson.dump(tree, path)
    code, out, err = run(capsys, "info", path)
    assert (code, err) == (0, "")
    assert str(path) in out and "Root [/] [bold]x" in out


def test_misnamed_legacy_file_reads_with_one_warning(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "info", FIXTURES / "misnamed.lz4bson", "--json")
    assert code == 0
    assert json.loads(out)[0]["codec"] == "lzma"
    assert err.count("\n") == 1 and "warning" in err and "misnamed.lz4bson" in err


def test_max_size_refuses_and_admits(capsys: pytest.CaptureFixture[str]) -> None:
    path = sample(BRSON[1])
    code, out, err = run(capsys, "--max-size", "68442", "info", path)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "limit error" in err
    assert run(capsys, "--max-size", "68443", "info", path)[0] == 0
    # The limit belongs to that run: the next one in this process has the default again.
    assert run(capsys, "info", sample("redx_5ce7cdf5.7zbson"))[0] == 0


# -- convert -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BRSON)
def test_convert_unmodified_brson_is_byte_identical(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "copy.brson"
    assert run(capsys, "convert", sample(name), out) == (0, "", "")
    assert out.read_bytes() == sample(name).read_bytes()


@pytest.mark.parametrize("name", [*ARCHIVES, "orange3134_loading_standin.resonitepackage"])
def test_convert_chain_through_the_cli(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """brotli -> lz4 -> lzma -> brotli keeps the BSON; each step read with plain decoders."""
    src = sample(name)
    raw = brson.load(src).to_bson()
    files = [tmp_path / n for n in ("a.brson", "b.lz4bson", "c.7zbson", "d.brson")]
    previous = src
    for path in files:
        code, _, err = run(capsys, "convert", previous, path)
        assert code == 0, err
        previous = path
    lz4_file, lzma_file = files[1].read_bytes(), files[2].read_bytes()
    assert lz4_file[:9] == b"FrDT\0\0\0\0\x01"
    assert plain_lz4net_chunks(lz4_file[9:])[0] == raw
    assert lzma_file[:9] == b"FrDT\0\0\0\0\x02" and lzma_file[9:14] == bytes.fromhex("5d00002000")
    assert plain_lzma_raw(lzma_file[9:]) == raw
    assert files[3].read_bytes() == files[0].read_bytes()
    assert unpack(files[3].read_bytes())[1] == raw


@pytest.mark.parametrize(
    ("args", "kind"),
    [(["--codec", "none"], 0), (["--codec", "lz4"], 1), (["--codec", "lzma"], 2), ([], 3)],
)
def test_convert_writes_the_codec_asked_for(
    args: list[str], kind: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--codec none`` is Codec.NONE, which is 0 and falsy: it used to fall through to the
    extension and write Brotli."""
    out = tmp_path / "x.brson"
    assert run(capsys, "convert", FIXTURES / "tiny.7zbson", out, *args)[0] == 0
    assert out.read_bytes()[:9] == b"FrDT\0\0\0\0" + bytes([kind])


def test_convert_legacy_none_is_plain_bson(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.bson"
    assert run(capsys, "convert", FIXTURES / "tiny.brson", out, "--legacy")[0] == 0
    assert out.read_bytes() == (FIXTURES / "tiny.bson").read_bytes()


def test_convert_refuses_to_overwrite_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "x.brson"
    src.write_bytes((FIXTURES / "tiny.brson").read_bytes())
    code, _, err = run(capsys, "convert", src, src, "--codec", "lz4")
    assert code == 2 and "never writes over its inputs" in err
    assert src.read_bytes() == (FIXTURES / "tiny.brson").read_bytes()


def test_convert_to_stdout(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    code = main(["convert", str(FIXTURES / "tiny.brson"), "-", "--codec", "lz4"])
    out = capfdbinary.readouterr().out
    assert code == 0 and out == (FIXTURES / "tiny.lz4bson").read_bytes()
    assert not Path("-").exists()


# -- JSON ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_json_round_trip_through_the_cli(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = sample(name)
    text = tmp_path / "x.json"
    assert run(capsys, "to-json", src, "-o", text) == (0, "", "")
    for out, kind in (
        (tmp_path / "y.bson", 0),
        (tmp_path / "y.lz4bson", 1),
        (tmp_path / "y.7zbson", 2),
        (tmp_path / "y.brson", 3),
    ):
        assert run(capsys, "from-json", text, "-o", out)[0] == 0
        data = out.read_bytes()
        container = brson.load(src).container
        if container is not None and container.legacy and kind != 3:
            # the recorded headerless framing comes back (Brotli has no headerless form)
            assert not data.startswith(b"FrDT")
            assert unpack(data, out.name)[0].codec == kind
        else:
            assert data[:9] == b"FrDT\0\0\0\0" + bytes([kind])  # .bson used to get Brotli
        assert unpack(data, out.name)[1] == brson.load(src).to_bson()
    if src.suffix == ".brson":
        assert (tmp_path / "y.brson").read_bytes() == src.read_bytes()


def test_json_through_stdin_and_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    src = FIXTURES / "tiny.brson"
    assert main(["to-json", str(src), "-o", "-"]) == 0
    text = capsysbinary.readouterr().out
    assert text.startswith(b"{") and not Path("-").exists()
    monkeypatch.setattr(sys, "stdin", _Stdin(text))
    out = tmp_path / "back.bson"
    assert main(["from-json", "-", "-o", str(out), "--codec", "none", "--legacy"]) == 0
    assert out.read_bytes() == (FIXTURES / "tiny.bson").read_bytes()


class _Stdin:
    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)


# -- broken inputs -------------------------------------------------------------------------------
def _broken_inputs(tmp: Path) -> list[tuple[Path, str]]:
    cases = [(FIXTURES / name, why) for name, why in BROKEN.items()]
    payload = random.Random(3).randbytes(3000)
    for kind, name in ((1, "lz4bson"), (2, "7zbson"), (3, "brson")):
        noise = tmp / f"random_payload.{name}"
        noise.write_bytes(b"FrDT\0\0\0\0" + bytes([kind]) + payload)
        cases.append((noise, "error"))  # codec, or limit for a random declared size
    return cases


@pytest.mark.parametrize("command", ["info", "convert", "to-json"])
def test_broken_inputs_are_one_line_exit_2_no_output(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for path, why in _broken_inputs(tmp_path):
        args = {
            "info": ["info", path],
            "convert": ["convert", path, out_dir / "x.lz4bson"],
            "to-json": ["to-json", path, "-o", out_dir / "x.json"],
        }[command]
        code, out, err = run(capsys, *args)
        assert (code, out) == (2, ""), path
        assert err.count("\n") == 1 and err.startswith("brson: ") and why in err, err
        assert str(path) in err and "Traceback" not in err
        assert list(out_dir.iterdir()) == [], path  # neither the output nor a temporary


def test_broken_json_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for text in ("", "[1, 2]", '{"a": {"$numberLong": "x"}}', "{nope"):
        src = tmp_path / "bad.json"
        src.write_text(text)
        code, _, err = run(capsys, "from-json", src, "-o", tmp_path / "x.brson")
        assert code == 2 and err.count("\n") == 1 and "bad.json" in err, (text, err)
        assert not (tmp_path / "x.brson").exists()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "brson", *args],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        env=env,
        timeout=120,
        check=False,
    )


def test_real_process_broken_input_and_debug() -> None:
    """In a real process: no traceback by default, a traceback with --debug, exit 2 both."""
    plain = _cli("info", str(FIXTURES / "kind9.brson"))
    assert plain.returncode == 2 and plain.stdout == ""
    assert plain.stderr.splitlines() == [
        f"brson: {FIXTURES / 'kind9.brson'}: container error at offset 8: unknown compression "
        "kind 9 (known: 0 none, 1 LZ4, 2 LZMA, 3 Brotli)"
    ]
    debug = _cli("--debug", "info", str(FIXTURES / "kind9.brson"))
    assert debug.returncode == 2
    assert "Traceback (most recent call last)" in debug.stderr
    assert "brson.errors.ContainerError" in debug.stderr


def test_version_and_python_m() -> None:
    result = _cli("--version")
    assert (result.returncode, result.stdout) == (0, f"brson {brson.__version__}\n")
    usage = _cli("frobnicate")
    assert usage.returncode == 2 and "No such command" in usage.stderr


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGPIPE"), reason="no SIGPIPE here")
def test_a_reader_closing_the_pipe_ends_quietly_by_sigpipe() -> None:
    """``brson to-json X | head``: no message and not exit 1 (which means findings).  The
    JSON (~170 KiB) outgrows the pipe buffer, so the writer must meet the closed pipe."""
    import signal

    sample = SAMPLES / "redx_5ce7cdf5.7zbson"
    proc = subprocess.Popen(
        [sys.executable, "-m", "brson", "to-json", str(sample)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(64)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == -signal.SIGPIPE, err
    assert err == b""


@pytest.mark.parametrize("suffix", [".bson", ".7zbson", ".lz4bson"])
def test_convert_keeps_a_headerless_input_headerless(
    samples_dir: Path, tmp_path: Path, suffix: str
) -> None:
    """``convert x.bson y.bson`` of a headerless file wrote an FrDT header; IN's framing is
    kept unless ``--frdt`` / ``--legacy`` or a Brotli OUT says otherwise."""
    src = tmp_path / f"x{suffix}"
    data = brson.load(samples_dir / "orange3134_loading_standin.brson").to_bson()
    brson.dump(data, src, legacy=True)
    assert not src.read_bytes().startswith(b"FrDT")
    kept, framed, brotli = tmp_path / f"y{suffix}", tmp_path / f"z{suffix}", tmp_path / "w.brson"
    assert main(["convert", str(src), str(kept)]) == 0
    assert kept.read_bytes() == src.read_bytes()
    assert main(["convert", str(src), str(framed), "--frdt"]) == 0
    assert framed.read_bytes().startswith(b"FrDT")
    assert main(["convert", str(framed), str(tmp_path / f"v{suffix}")]) == 0
    assert (tmp_path / f"v{suffix}").read_bytes().startswith(b"FrDT")
    assert main(["convert", str(src), str(brotli)]) == 0
    assert brotli.read_bytes().startswith(b"FrDT")
    assert brson.load(brotli).to_bson() == data
