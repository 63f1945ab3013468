"""Global options: ``-q/--quiet``, ``-v/--verbose``, ``--color auto|always|never`` (NO_COLOR
still honoured) and shell completion (``--install-completion`` / ``--show-completion``)
(issue 18)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from brson.cli.app import main

PROJECT_ROOT = Path(__file__).resolve().parents[2]
STANDIN = PROJECT_ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"
ERROR = PROJECT_ROOT / "fixtures" / "validate" / "BR401_duplicate_id.brson"
BRSON = [sys.executable, "-m", "brson"]
#: The colour rich gives component lines (cyan), alone or with bold/dim, or an extended one.
COLOURS = ("\x1b[36m", "\x1b[2;36m", "\x1b[1;36m", "\x1b[38;")


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def coloured(text: str) -> bool:
    return any(code in text for code in COLOURS)


def on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """Output of ``brson ARGS`` with a pseudo-terminal as stdout and stderr."""
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen(
        [*BRSON, *args],
        stdout=child_fd,
        stderr=child_fd,
        env={**os.environ, "COLUMNS": "200", **env},
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
    assert proc.wait(timeout=60) == 0
    return b"".join(chunks).decode()


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CI")}
    env["TERM"] = "xterm-256color"
    return env


def test_color_always_colours_a_pipe_and_never_does_not(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    code, plain, _ = run(capsys, "tree", STANDIN, "--components")
    assert code == 0 and "\x1b[" not in plain  # auto, not a terminal: plain text
    code, out, _ = run(capsys, "--color", "always", "tree", STANDIN, "--components")
    assert code == 0 and coloured(out) and "├── " in out
    # flags given on the command line win over NO_COLOR (no-color.org)
    monkeypatch.setenv("NO_COLOR", "1")
    code, out, _ = run(capsys, "--color", "always", "tree", STANDIN, "--components")
    assert coloured(out)
    code, out, _ = run(capsys, "--color", "never", "tree", STANDIN, "--components")
    assert out == plain
    # each run starts afresh: an earlier --color always does not stay on
    monkeypatch.delenv("NO_COLOR")
    code, out, _ = run(capsys, "tree", STANDIN, "--components")
    assert out == plain


def test_color_on_a_terminal_honours_no_color() -> None:
    env = clean_env()
    args = ["tree", str(STANDIN), "--components", "--depth", "1"]
    assert coloured(on_a_terminal(args, env))  # auto on a terminal: colour
    quiet = on_a_terminal(args, {**env, "NO_COLOR": "1"})
    assert "├── " in quiet and not coloured(quiet)
    never = on_a_terminal(["--color", "never", *args], env)
    assert "├── " in never and not coloured(never)


def test_bad_color_value_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--color", "sometimes", "info", STANDIN)
    assert code == 2 and out == "" and "sometimes" in err


def test_quiet_and_verbose(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "-q", "validate", ERROR)
    assert code == 1 and out.count("\n") == 1 and err == ""
    code, _, err = run(capsys, "-v", "validate", ERROR, "--isolated")
    assert code == 1 and err.startswith("brson: no settings file; ")
    code, _, err = run(capsys, "schema", "-o", tmp_path / "s")
    assert code == 0 and "wrote " in err
    code, _, err = run(capsys, "--quiet", "schema", "-o", tmp_path / "s")
    assert code == 0 and err == ""
    code, _, err = run(capsys, "-q", "-v", "info", STANDIN)
    assert code == 2 and "exclude each other" in err
    # errors still show with -q
    code, _, err = run(capsys, "-q", "info", tmp_path / "missing.brson")
    assert code == 2 and "no such file" in err


def test_global_options_reset_between_runs(capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "-q", "validate", ERROR)
    code, out, _ = run(capsys, "validate", ERROR)
    assert code == 1
    assert out.splitlines()[-1] == "1 file(s): 1 error(s), 0 warning(s), 0 info"


#: Typer detects the shell from the process tree (under make that is sh, which it does not
#: support); with detection off the shell is the option's value, as a user may also give it.
NAMED_SHELL = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}


def test_show_completion_prints_a_script() -> None:
    result = subprocess.run(
        [*BRSON, "--show-completion", "bash"],
        env=NAMED_SHELL,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "_BRSON_COMPLETE=complete_bash" in result.stdout
    assert "complete -o default -F _brson_completion brson" in result.stdout


def _completion_env(words: str) -> dict[str, str]:
    """What bash's completion function hands the command when Tab is pressed."""
    return {
        "_BRSON_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split(" ")) - 1),
    }


@pytest.mark.slow
def test_completion_answers_commands_and_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the shell asks when Tab is pressed: answered by the console command (one real
    process), and the choices by the same entry point in this process."""
    script = Path(sys.executable).parent / "brson"
    if not script.exists():
        pytest.skip("console script not installed")
    env = {**os.environ, **_completion_env("brson val")}
    done = subprocess.run(
        [str(script)], env=env, capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["validate"]

    def complete(words: str) -> list[str]:
        with monkeypatch.context() as patch:
            for key, value in _completion_env(words).items():
                patch.setenv(key, value)
            code, out, err = run(capsys)
        assert code == 0, err
        return out.split()

    assert complete("brson val") == ["validate"]
    assert complete("brson validate --min-severity ") == ["info", "warning", "error"]
    assert complete("brson --color ") == ["auto", "always", "never"]
    assert set(complete("brson validate --for")) == {"--format"}


def test_install_completion_writes_the_shell_setup(tmp_path: Path) -> None:
    env = {**NAMED_SHELL, "HOME": str(tmp_path), "SHELL": "/bin/bash"}
    result = subprocess.run(
        [*BRSON, "--install-completion", "bash"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "completion installed" in result.stdout
    bashrc = (tmp_path / ".bashrc").read_text()
    assert "brson" in bashrc


def test_quiet_after_the_command_is_the_global_option(capsys: pytest.CaptureFixture[str]) -> None:
    before = run(capsys, "-q", "validate", STANDIN)
    after = run(capsys, "validate", "-q", STANDIN)
    assert before == after and before[0] == 0
    assert "file(s)" not in after[1] and "BR502" in after[1]  # the findings, no summary
    code, _, err = run(capsys, "-v", "validate", "-q", STANDIN)
    assert code == 2 and "exclude each other" in err


def test_every_command_takes_quiet_after_its_name(capsys: pytest.CaptureFixture[str]) -> None:
    from brson.cli.root import COMMANDS

    for name in COMMANDS:
        code, _, err = run(capsys, name, "-q", "--help")
        assert code == 0, (name, err)
        code, _, err = run(capsys, name, "--quiet", "--help")
        assert code == 0, (name, err)
