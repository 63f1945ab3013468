"""``--help``: plain metavars (no ``{FILE}``, ``{files}``, ``<bool>``) and examples for every
command, each of which the command's own parser accepts."""

from __future__ import annotations

import functools
import re
import shlex
from typing import Any

import pytest
import typer

from brson.cli import root
from brson.cli.app import main
from brson.cli.help import EXAMPLES, polish


@functools.cache
def built() -> Any:
    """The click command as ``brson`` runs it, built once (a parse makes contexts and leaves
    the command as it was).  It imports every command's module: tests call it, collection
    does not (the commands' names are :data:`brson.cli.root.COMMANDS`)."""
    command = typer.main.get_command(root.assembled())
    polish(command)
    return command


COMMANDS = sorted(root.COMMANDS)


def help_text(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main([*args, "--help"]) == 0
    out: str = capsys.readouterr().out
    return out


@pytest.mark.parametrize("name", COMMANDS)
def test_help_is_clean_and_has_examples(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text(capsys, name)
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage and "}" not in usage, usage
    for noise in ("<bool>", "<path>", "<str>", "<int>", "list[", "{files}", "{FILE}"):
        assert noise not in text, (name, noise)
    assert "Examples:" in text
    for line, _ in EXAMPLES[name]:
        assert line in text  # each example on a line of its own, unwrapped at 80 columns


def test_every_command_has_examples() -> None:
    assert sorted(EXAMPLES) == COMMANDS


@pytest.mark.parametrize(("name", "line"), [(n, line) for n in EXAMPLES for line, _ in EXAMPLES[n]])
def test_examples_parse(name: str, line: str) -> None:
    """Each example's ``brson`` part is accepted by the parser (options exist, arguments are
    all there); files need not exist to parse."""
    assert len(line) <= 76, line  # fits an 80-column help without wrapping
    for part in line.split("|"):
        words = shlex.split(part.split(">")[0])
        if not words or words[0] != "brson":
            continue
        command = built().commands[words[1]]
        command.make_context(words[1], words[2:])


def test_top_level_help(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text(capsys)
    assert "<bool>" not in text and re.search(r"--max-size\s+BYTES", text)


def test_help_text_is_literal(capsys: pytest.CaptureFixture[str]) -> None:
    """Brackets in help are text, not rich markup (``FIELD[i]`` used to lose its ``[i]``)."""
    assert "FIELD[i]" in help_text(capsys, "set")
    assert "Type[n]" in help_text(capsys, "delete")


def raw_texts() -> list[str]:
    """Every help text as the commands declare it (before :func:`polish`), and the examples."""
    command = typer.main.get_command(root.assembled())
    texts = []
    for sub in [command, *command.commands.values()]:  # type: ignore[attr-defined]
        texts += [sub.help or "", sub.epilog or ""]
        texts += [getattr(param, "help", None) or "" for param in sub.params]
    texts += [text for rows in EXAMPLES.values() for row in rows for text in row]
    return texts


#: The forms rich's markup pattern names (a tag opens with a letter, ``#``, ``/`` or ``@``; a
#: trailing backslash escapes what follows), and text it leaves alone.
MARKUP_FORMS = [
    "FIELD[i]",
    "[/]",
    "[b]x[/b]",
    "\\[x]",
    "[#fff]",
    "[@click]",
    "a\\",
    "a\\\\",
    "[1]",
    "[",
]


def test_escape_is_riches() -> None:
    """brson.cli.help.escape calls rich only where rich would change the text: on every help
    text and on each form of rich's pattern it gives what rich.markup.escape gives."""
    from rich.markup import escape as rich_escape

    from brson.cli.help import escape

    texts = raw_texts()
    assert any("[" in text for text in texts)  # the help does hold brackets
    for text in [*MARKUP_FORMS, *texts]:
        assert escape(text) == rich_escape(text), text
