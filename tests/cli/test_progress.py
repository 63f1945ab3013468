"""Progress on a terminal for the long commands (convert, to-json, from-json, diff, refs):
named steps with the sizes they handle, on stderr; nothing at all in pipes and CI."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.progress import Progress

from brson.cli import common, root
from brson.cli.app import main

STANDIN = "orange3134_loading_standin.brson"


def commands(samples: Path, tmp: Path) -> dict[str, list[str]]:
    src = str(samples / STANDIN)
    form = str(tmp / "x.json")
    return {
        "convert": ["convert", src, str(tmp / "x.7zbson")],
        "to-json": ["to-json", src, "-o", form],
        "from-json": ["from-json", form, "-o", str(tmp / "y.brson")],
        "diff": ["diff", src, str(tmp / "y.brson"), "--json"],
        "refs": ["refs", src],
    }


#: What each command's steps say (the sizes vary; the words do not).
STEPS = {
    "convert": ["reading orange3134_loading_standin.brson (6.6 KiB)", "compressing 66.8 KiB"],
    "to-json": ["reading orange3134_loading_standin.brson", "of BSON as JSON", "of JSON"],
    "from-json": ["reading x.json", "parsing", "encoding BSON", "compressing and writing"],
    "diff": ["reading", "comparing the trees by element ID", "checking the patch"],
    "refs": ["reading", "indexing IDs and references", "locating"],
}


def test_steps_on_a_terminal(
    samples_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    descriptions: list[str] = []
    real_add, real_update = Progress.add_task, Progress.update

    def add_task(self: Progress, description: str, *args: Any, **kwargs: Any) -> Any:
        descriptions.append(description)
        return real_add(self, description, *args, **kwargs)

    def update(self: Progress, task: Any, **kwargs: Any) -> None:
        if kwargs.get("description"):
            descriptions.append(kwargs["description"])
        real_update(self, task, **kwargs)

    monkeypatch.setattr(Progress, "add_task", add_task)
    monkeypatch.setattr(Progress, "update", update)
    monkeypatch.setattr(common, "interactive", lambda: True)
    # --color sets the consoles up again in place, which would point this one back at stderr
    monkeypatch.setattr(root, "set_color", lambda mode: None)
    seen: dict[str, str] = {}
    for name, args in commands(samples_dir, tmp_path).items():
        screen = io.StringIO()
        monkeypatch.setattr(common, "stderr", Console(file=screen, force_terminal=True, width=200))
        descriptions.clear()
        assert main(args) in (0, 1), name
        capsys.readouterr()
        seen[name] = "\n".join(descriptions)
        assert "reading" in screen.getvalue(), name  # the bar itself was drawn
    for name, words in STEPS.items():
        for word in words:
            assert word in seen[name], (name, word, seen[name])


def test_silent_in_pipes_and_ci(
    samples_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CI", "1")  # even on a terminal
    for name, args in commands(samples_dir, tmp_path).items():
        assert main(args) in (0, 1), name
        assert capsys.readouterr().err == "", name
