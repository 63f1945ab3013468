"""What ``--help`` shows: plain metavars and an example section for each command.

typer 0.29 writes a required argument as ``{FILE}`` in the usage line, every flag with a
``<bool>`` type, and a parameter without a metavar under its Python name (``{files}``, ``a``).
:func:`polish` rewrites the built click command once (``brson.cli.app`` calls it): arguments
are upper-case names (``FILE...``, ``[OUT]`` when optional), flags have no type, other options
a metavar saying what they take (``OUT``, ``SELECTOR``, ``N``, ``keep|null|fail``), help text
is taken literally (typer reads it as rich markup, which swallowed ``FIELD[i]``), and each
command gets its examples as the help epilog.  The examples live here, in one table, so they
are tested together (tests/cli/test_help.py runs every one of them through the parser).
"""

from __future__ import annotations

import copy
import inspect
import re
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from brson.cli.common import QUIET_VERBOSE, State

#: Argument names that read better under another name.
_ARGUMENT_NAMES = {"src": "FILE", "files": "FILE", "file": "FILE", "a": "A", "b": "B"}
#: Option metavars by parameter name (the type alone says PATH or TEXT, not what it is for).
_OPTION_METAVARS = {
    "output": "OUT",
    "codec": "CODEC",
    "slot": "SELECTOR",
    "to": "PARENT",
    "parent": "SELECTOR",
    "index": "N",
    "depth": "N",
    "component": "COMPONENT",
    "type_hint": "TYPE",
    "assets": "DIR",
    "variant": "OUT.bin",
    "name": "NAME",
    "max_size": "BYTES",
}
#: Fallbacks by typer's type label.
_TYPE_METAVARS = {"path": "PATH", "str": "TEXT", "int": "N", "float": "NUMBER"}

#: What :func:`rich.markup.escape` rewrites: its own pattern of a tag (``[`` and a letter, ``#``,
#: ``/`` or ``@``), or a trailing backslash.
_MARKUP = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")


def escape(text: str) -> str:
    """:func:`rich.markup.escape` of ``text``, calling it only for text it changes.  Why: every
    run polishes the commands it builds, and importing rich's markup (its text and console
    machinery with it) was a sizeable part of the start of a command that prints nothing
    through rich (``show --textconv``)."""
    if not _MARKUP.search(text) and not text.endswith("\\"):
        return text
    from rich.markup import escape as rich_escape

    return rich_escape(text)


#: ``brson COMMAND --help`` examples, one command line each, with what it does.
EXAMPLES: dict[str, list[tuple[str, str]]] = {
    "info": [
        ("brson info avatar.brson", "container, codec, sizes, counts"),
        ("brson info *.brson --json", "one JSON object per file"),
    ],
    "convert": [
        ("brson convert avatar.brson avatar.7zbson", "re-compress as LZMA"),
        ("brson convert old.7zbson new.brson", "a NeosVR file as a Resonite one"),
    ],
    "to-json": [
        ("brson to-json avatar.brson -o avatar.json", "the lossless JSON form"),
        ("brson to-json avatar.brson | jq .Object.Name", "into jq"),
    ],
    "from-json": [
        ("brson from-json avatar.json -o avatar.brson", "back, in the recorded framing"),
        ("jq '...' a.json | brson from-json - -o b.7zbson", "from standard input"),
    ],
    "tree": [
        ("brson tree avatar.brson --depth 2", "the top of the slot tree"),
        ("brson tree avatar.brson --components --json", "with components, as JSON"),
    ],
    "refs": [("brson refs avatar.brson", "internal and external references")],
    "show": [
        ("brson show avatar.brson", "the tree as stable text, one field a line"),
        ("brson show item.resonitepackage | grep Position", "read a package like text"),
    ],
    "schema": [("brson schema -o schemas/", "JSON Schema files of the models and forms")],
    "extract": [
        ("brson extract world.brson --slot Avatar -o avatar.brson", "one subtree"),
        ("brson extract pkg.resonitepackage -s Visual -o v.resonitepackage", "with its assets"),
        ("brson extract world.brson -s Avatar -o a.brson -v", "the full report"),
    ],
    "assets": [("brson assets pkg.resonitepackage -o assets/", "list and export the assets")],
    "validate": [
        ("brson validate avatar.brson", "every problem, with rule codes"),
        ("brson validate --strict --format github *.brson", "for CI"),
    ],
    "flux": [
        ("brson flux coresys.resonitepackage", "a line per graph, node and connection"),
        ("brson flux item.brson --format svg -o item.svg", "drawn by Graphviz"),
        ("brson flux item.brson -s Flux --format json", "the nodes under one slot, as JSON"),
    ],
    "diff": [
        ("brson diff before.brson after.brson", "what changed, by element ID"),
        ("brson diff base.brson mine.brson --json > mine.json", "with a patch for apply"),
        ("GIT_EXTERNAL_DIFF='brson diff --git-external' git diff", "git's external-diff form"),
    ],
    "git": [
        ("brson git install", "git diff/log -p/blame/merge read archives in this repository"),
        ("brson git install --global", "the same for every repository of this user"),
        ("brson git uninstall", "remove exactly what install added"),
    ],
    "set": [
        ("brson set a.brson Visual:MeshRenderer.ShadowCastMode Off -o b.brson", "one field"),
        ("brson set a.brson Avatar.Position 0,1,0 --in-place", "a slot member, in place"),
    ],
    "rename": [("brson rename a.brson Avatar Mika -o b.brson", "rename a slot")],
    "move": [
        ("brson move a.brson Hat --to Head -o b.brson", "re-parent"),
        ("brson move a.brson Hat --index 0 -i", "first among its siblings, in place"),
    ],
    "delete": [
        ("brson delete a.brson Old -o b.brson", "a slot and its subtree"),
        ("brson delete a.brson Avatar -c VRIK -o b.brson --json", "one component"),
    ],
    "vars": [("brson vars template.brson", "dynamic variables")],
    "set-var": [("brson set-var template.brson Color=#ff0000 -o mine.brson", "a parameter")],
    "renumber": [("brson renumber a.brson -o b.brson", "sequential IDs, deterministic")],
    "import": [
        ("brson import a.brson props.brson --slot Lamp -p Room -o b.brson", "copy a subtree in")
    ],
    "apply": [
        ("brson diff base.brson mine.brson --json > mine.json", "the changes"),
        ("brson apply theirs.brson mine.json -o merged.brson", "onto another file"),
        ("brson apply base.brson mine.json --in-place", "base.brson becomes mine.brson"),
    ],
    "merge": [
        ("brson merge base.brson mine.brson theirs.brson -o merged.brson", "three-way, by ID"),
        ("brson merge --git %O %A %B %P", "git's merge driver (merge.brson.driver)"),
    ],
    "export-godot": [
        ("brson export-godot avatar.brson -o avatar.tscn --godot 4 --gltf", "a Godot 4 scene")
    ],
    "export-gltf": [("brson export-gltf avatar.resonitepackage -o avatar.glb", "glTF 2.0")],
    "import-gltf": [("brson import-gltf model.glb -o model.resonitepackage", "to a package")],
    "scan": [
        ("brson scan ~/Resonite/Inventory -o library.idx --workers 4", "index a library"),
        ("brson scan 'exports/*.brson' -o library.idx --engine dask", "on a Dask cluster"),
    ],
    "query": [
        ("brson query library.idx --report types", "items per component type"),
        ('brson query library.idx "SELECT path FROM files" --format csv', "read-only SQL"),
    ],
    "view": [
        ("brson view avatar.resonitepackage", "open it in the browser"),
        ("brson view world.brson --html world.html", "one self-contained file"),
    ],
}


class _Argument(TyperArgument):
    """An argument as ``FILE``, ``[OUT]`` or ``FILE...`` in the usage, without a type."""

    def get_usage_pieces(self, ctx: Any) -> list[str]:
        name = self.display_name_raw
        name = name if self.required else f"[{name}]"
        return [name + ("..." if self.nargs != 1 else "")]

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the name says it; "<path>" beside FILE said nothing more


class _Option(TyperOption):
    """A flag without ``<bool>``; an option with a metavar saying what it takes."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag or self.count:
            return None
        if self.metavar is not None:
            return self.metavar
        label = super().display_type_rich(ctx) or ""
        label = label.strip("<>")
        return _TYPE_METAVARS.get(label, label)


def _clean_help_option(option: Any) -> Any:
    """``--help`` (made by click on demand, so not among the params :func:`polish` sees)
    shown like every other flag."""
    if isinstance(option, TyperOption) and not isinstance(option, _Option):
        option.__class__ = _Option
    return option


# Single inheritance on purpose: a class swapped in with ``__class__`` must keep the layout,
# which a mixin base changes.
class _Command(TyperCommand):
    def get_help_option(self, ctx: Any) -> Any:
        return _clean_help_option(super().get_help_option(ctx))


class _Group(TyperGroup):
    def get_help_option(self, ctx: Any) -> Any:
        return _clean_help_option(super().get_help_option(ctx))


def polish(command: Any) -> None:
    """Clean metavars, help paragraphs and examples, on the app and every command it holds
    (``brson.cli.root`` polishes the commands it builds later with :func:`polish_command`)."""
    _polish_one(command)
    for name, sub in getattr(command, "commands", {}).items():
        polish_command(name, sub, command)


def polish_command(name: str, command: Any, group: Any) -> None:
    """:func:`polish` for one subcommand ``name`` of ``group``: its metavars, help and
    examples, and ``-q/--quiet`` (:func:`_quiet_after`)."""
    if not any(param.name == "quiet" for param in command.params):
        command.params.append(_quiet_after(group))
    _polish_one(command)
    examples = EXAMPLES.get(name)
    if examples and not command.epilog:
        command.epilog = epilog(examples)


def _polish_one(target: Any) -> None:
    _polish_params(target)
    if isinstance(target, TyperGroup):
        target.__class__ = _Group
    elif isinstance(target, TyperCommand):
        target.__class__ = _Command
    if target.help:
        target.help = escape(_one_line_paragraphs(target.help))


def _quiet_after(group: Any) -> Any:
    """``-q/--quiet`` after the command's name too (``brson validate -q X``), where people
    type every other option: a copy of the group's global option, as typer built it, that sets
    :attr:`State.quiet` itself."""

    def set_quiet(ctx: Any, param: Any, value: bool) -> None:
        if value:
            if State.verbose:
                raise typer.BadParameter(QUIET_VERBOSE)
            State.quiet = True

    option = copy.copy(next(p for p in group.params if p.name == "quiet"))
    option.expose_value = False
    option.callback = set_quiet
    return option


def epilog(examples: list[tuple[str, str]]) -> str:
    """The examples as the help's last section, each command under a comment saying what it
    does (escaped: ``[`` is rich markup)."""
    rows = [f"# {escape(what)}\n{escape(line)}" for line, what in examples]
    return "Examples:\n" + "\n".join(rows)


def _one_line_paragraphs(text: str) -> str:
    """Docstring paragraphs as single lines: the help wraps them to the terminal, and the
    docstring's own line breaks showed as ragged lines (``\b`` paragraphs stay verbatim)."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split()) for p in paragraphs)


def _polish_params(command: Any) -> None:
    for param in command.params:
        if getattr(param, "help", None):
            # typer reads help as rich markup: "FIELD[i]" and "Type[n]" lost their brackets.
            param.help = escape(param.help)
        if isinstance(param, TyperArgument) and not isinstance(param, _Argument):
            if param.metavar is None:
                param.metavar = _ARGUMENT_NAMES.get(param.name or "", (param.name or "").upper())
            param.__class__ = _Argument
        elif isinstance(param, TyperOption) and not isinstance(param, _Option):
            if param.metavar is None and not param.is_flag:
                param.metavar = _OPTION_METAVARS.get(param.name or "")
            param.__class__ = _Option
