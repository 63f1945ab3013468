"""Start-up stays light (issue 14): what ``import brson``, ``brson --version``, one command and
``brson.load`` import, checked in fresh interpreters by module name, never by the clock.

``import brson`` loads no pydantic, typer, rich or operations; ``brson --version`` answers
before typer is imported; a command imports its own module, not every command's, and none of
what it does not use (pydantic, which typer would convert every option with; progress bars;
the package reader for a plain archive; the operations); the command table the CLI reads
without importing the modules matches the modules.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import typer.main

import brson
from brson.cli import root
from brson.cli.app import main

PROJECT_ROOT = Path(__file__).resolve().parents[2]
STANDIN = PROJECT_ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"
#: Packages ``import brson`` and ``brson --version`` must not load.
HEAVY = ("pydantic", "typer", "rich", "click", "brson.ops", "brson.model.documents")
#: What a command that does not use them must not load: pydantic (typer converts option values
#: with it unless brson.cli.coercion does), rich's progress bars (shown on a terminal only),
#: the package reader (for a plain archive), the operations and the JSON Schema models.
UNUSED = ("pydantic", "rich.progress", "brson.package", "brson.ops", "brson.model.documents")


def loaded_after(code: str, *argv: str) -> tuple[set[str], str]:
    """The modules loaded by running ``code`` in a fresh interpreter (``sys.argv[1:]`` =
    ``argv``; a ``SystemExit`` counts as the end), and what it printed."""
    script = textwrap.dedent(
        """
        import json, sys
        sys.argv[1:] = json.loads(sys.argv.pop(1))
        try:
        {body}
        except SystemExit:
            pass
        sys.stdout.flush()
        sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
        """
    ).format(body=textwrap.indent(code, "    "))
    proc = subprocess.run(
        [sys.executable, "-c", script, json.dumps(list(argv))],
        capture_output=True,
        text=True,
        check=True,
        cwd=PROJECT_ROOT,
    )
    modules = json.loads(proc.stderr.rpartition("\nMODULES ")[2])
    return set(modules), proc.stdout


def heavy(modules: set[str], names: tuple[str, ...] = HEAVY) -> set[str]:
    return {m for m in modules if any(m == h or m.startswith(h + ".") for h in names)}


def test_import_brson_loads_nothing_heavy() -> None:
    modules, _ = loaded_after("import brson")
    assert not heavy(modules)
    assert "brson.model" not in modules and "brson.api" not in modules


def test_loading_a_tree_needs_no_pydantic() -> None:
    """pydantic is for ``.model()`` and JSON Schema; reading a tree and its type names is not."""
    modules, out = loaded_after(
        "import brson\n"
        f"tree = brson.load({str(STANDIN)!r})\n"
        "print(len({str(c.type) for c in tree.components()}))"
    )
    assert int(out) > 0
    assert not {m for m in modules if m.split(".")[0] == "pydantic"}


def test_public_names_still_resolve() -> None:
    _, out = loaded_after(
        "import brson\n"
        "from brson import DataTree, load, BrsonError\n"
        "print(brson.Slot.__name__, brson.dumps.__module__, brson.ops.__name__)"
    )
    assert out.split() == ["Slot", "brson.api", "brson.ops"]
    for name in brson.__all__:
        assert getattr(brson, name) is not None
    assert set(brson.__all__) <= set(dir(brson))
    with pytest.raises(AttributeError):
        _ = brson.no_such_name


def test_version_answers_before_typer() -> None:
    modules, out = loaded_after("from brson.cli.app import run\nrun()", "--version")
    assert not heavy(modules)
    assert "brson.cli.root" not in modules
    assert out == f"brson {brson.__version__}\n"


def test_version_fast_path_prints_what_the_option_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The typer ``--version`` option (``brson --version -q`` and in-process runs take it)."""
    assert main(["--version"]) == 0
    _, out = loaded_after("from brson.cli.app import run\nrun()", "--version")
    assert capsys.readouterr().out == out


def test_a_command_imports_its_module_only() -> None:
    modules, out = loaded_after("from brson.cli.app import run\nrun()", "info", str(STANDIN))
    assert "engine version" in out
    commands = {m for m in modules if m in root.COMMAND_MODULES}
    assert commands == {"brson.cli.archive"}
    assert not {"brson.ops", "brson.godot", "brson.gltf", "brson.scan"} & modules


@pytest.mark.parametrize(
    ("command", "out"),
    [
        ("info FILE", "engine version"),
        ("tree FILE --depth 1", "LoadingStandin"),
        ("refs FILE", "references"),
        ("to-json FILE --compact", '"$numbers"'),
        ("convert FILE OUT", ""),
    ],
)
def test_a_command_loads_nothing_it_does_not_use(command: str, out: str, tmp_path: Path) -> None:
    """Each of these once imported pydantic (typer's conversion of its FILE argument, or the
    JSON Schema models of a neighbouring command) and rich's progress bars at start; the global
    options given are converted too (an integer, a choice)."""
    argv = [
        {"FILE": str(STANDIN), "OUT": str(tmp_path / "out.lz4bson")}.get(a, a)
        for a in command.split()
    ]
    modules, printed = loaded_after(
        "from brson.cli.app import run\nrun()", "--max-size", "1000000", "--color", "never", *argv
    )
    assert out in printed
    assert not heavy(modules, UNUSED)


def test_textconv_loads_no_rich() -> None:
    """git runs ``show --textconv`` once per file version it shows, and it writes its lines
    itself: rich stays unloaded (its consoles are made at their first use, and help text is
    escaped through rich only where it holds markup)."""
    modules, out = loaded_after(
        "from brson.cli.app import run\nrun()", "show", "--textconv", str(STANDIN)
    )
    assert "LoadingStandin" in out
    assert not heavy(modules, ("rich",))


def test_editing_shortcut_stays_in_the_model() -> None:
    """Editing is the model's own (brson.model.edit, imported by the first shortcut): it
    reaches no layer above the model, by name or otherwise."""
    modules, out = loaded_after(
        "from brson.model.archive import read_archive\n"
        f"tree = read_archive(open({str(STANDIN)!r}, 'rb').read())\n"
        "slot = tree.root.add_child('added')\n"
        "slot.add_component('[FrooxEngine]FrooxEngine.ValueField<float>')\n"
        "slot.move(tree.root, 0)\n"
        "print(slot.name, len(slot.remove().references), tree.renumber().root.name)"
    )
    assert out.startswith("added 0 ") and "brson.model.edit" in modules
    above = {"brson.graph", "brson.ops", "brson.package", "brson.api", "brson.cli"}
    assert not {".".join(m.split(".")[:2]) for m in modules} & above


def test_command_table_matches_the_modules() -> None:
    """``COMMANDS`` (read without importing anything) lists what each module registers, in
    registration order: the order ``--help`` shows."""
    registered = []
    for name in root.COMMAND_MODULES:
        app = importlib.import_module(name).app
        assert not app.registered_groups, name  # the lazy table holds commands only
        for info in app.registered_commands:
            command = info.name or typer.main.get_command_name(info.callback.__name__)
            registered.append((command, name))
    assert registered == list(root.COMMANDS.items())


def test_lazy_and_assembled_commands_agree() -> None:
    """The click command ``main`` runs (built on demand) has the same commands, options and
    help as the one typer builds from every registration at once."""
    from brson.cli.app import app
    from brson.cli.help import polish

    eager = typer.main.get_command(app)
    polish(eager)
    lazy = root._command()
    assert list(lazy.commands) == list(eager.commands)  # type: ignore[attr-defined]
    for name, command in eager.commands.items():  # type: ignore[attr-defined]
        built = lazy.commands[name]
        assert type(built) is type(command)
        assert (built.help, built.epilog) == (command.help, command.epilog)
        assert params(built) == params(command), name
    assert params(lazy) == params(eager)


def params(command: Any) -> list[tuple[Any, ...]]:
    return [
        (type(p), p.name, p.opts, p.secondary_opts, p.default, p.required, p.metavar, p.help)
        for p in command.params
    ]
