"""The ``brson`` command: the global options, and the commands of one module per command group
imported only when one of them is asked for.

Errors on bad input are one line on stderr and exit code 2; ``--debug`` shows the traceback.
:mod:`brson.cli.app` is the entry point; it prints ``--version`` before importing this.

Why commands are lazy: importing every command module (the operations, exporters, scan and
their dependencies) cost ~0.3 s of CPU on every run, for the one command a run uses.
:data:`COMMANDS` names each command's module; ``--help`` and shell completion, which show
every command, import them all.
"""

from __future__ import annotations

import functools
import importlib
import sys
import traceback
from collections.abc import MutableMapping
from typing import Annotated, Any

import typer
import typer.main

from brson.cli import coercion
from brson.cli.common import (
    EXIT_BAD_INPUT,
    QUIET_HELP,
    QUIET_VERBOSE,
    ColorMode,
    State,
    set_color,
    stderr,
    stdout,
)
from brson.cli.help import polish, polish_command
from brson.codecs import limits
from brson.errors import BrsonError
from brson.lazymap import LazyMapping

#: Every command, in ``--help`` order, and the module that defines it (``app``, a typer.Typer,
#: whose commands join the main app).  tests/cli/test_startup.py checks this against the modules.
COMMANDS = {
    "info": "brson.cli.archive",
    "convert": "brson.cli.archive",
    "to-json": "brson.cli.archive",
    "from-json": "brson.cli.archive",
    "tree": "brson.cli.tree",
    "refs": "brson.cli.tree",
    "schema": "brson.cli.tree",
    "show": "brson.cli.show",
    "extract": "brson.cli.extract",
    "assets": "brson.cli.package",
    "validate": "brson.cli.validate",
    "diff": "brson.cli.diff",
    "git": "brson.cli.git",
    "flux": "brson.cli.flux",
    "set": "brson.cli.edit",
    "rename": "brson.cli.edit",
    "move": "brson.cli.edit",
    "delete": "brson.cli.edit",
    "vars": "brson.cli.edit",
    "set-var": "brson.cli.edit",
    "renumber": "brson.cli.edit",
    "import": "brson.cli.edit",
    "apply": "brson.cli.edit",
    "merge": "brson.cli.merge",
    "export-godot": "brson.cli.godot",
    "export-gltf": "brson.cli.gltf",
    "import-gltf": "brson.cli.gltf",
    "view": "brson.cli.view",
    "scan": "brson.cli.scan",
    "query": "brson.cli.scan",
}
#: The command modules, in order.
COMMAND_MODULES = list(dict.fromkeys(COMMANDS.values()))


# Option values converted without pydantic, which typer would import at every start.
coercion.install()

#: click's exception base, reached through typer's public BadParameter (typer vendors click).
_CLICK_ERROR: Any = typer.BadParameter.__mro__[2]


def _new_app() -> typer.Typer:
    return typer.Typer(
        name="brson",
        help="Read, write, validate, extract and convert Resonite data-tree archives.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=True,
        context_settings={"help_option_names": ["-h", "--help"]},
    )


#: The global options; the commands join the click command :func:`_command` builds.
app = _new_app()


def _show_version(value: bool) -> None:
    if value:
        from brson import __version__

        stdout.print(f"brson {__version__}", markup=False)
        raise typer.Exit(0)


@app.callback()
def _options(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    max_size: Annotated[
        int | None,
        typer.Option("--max-size", help="Largest decompressed document accepted, in bytes."),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option("-q", "--quiet", help=QUIET_HELP),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option("-v", "--verbose", help="More detail: settings used, full reports."),
    ] = False,
    color: Annotated[
        ColorMode,
        typer.Option(
            "--color",
            help="Colour output: auto (a terminal, unless NO_COLOR is set), always or never.",
        ),
    ] = ColorMode.AUTO,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    # Set on every run, not only when given: main() may run many times in one process (tests,
    # embedding), and a --max-size from an earlier run must not limit the next one.
    if quiet and verbose:
        raise typer.BadParameter(QUIET_VERBOSE)
    State.debug = debug
    State.max_size = limits.DEFAULT_MAX_SIZE if max_size is None else max_size
    State.quiet, State.verbose = quiet, verbose
    set_color(color)


def _command_info(name: str) -> Any:
    """typer's record of command ``name``, from its module (imported now)."""
    module = importlib.import_module(COMMANDS[name])
    for info in module.app.registered_commands:
        if (info.name or typer.main.get_command_name(info.callback.__name__)) == name:
            return info
    raise KeyError(name)


def _build(name: str) -> Any:
    """The click command ``name`` as the eager build made it: typer's settings of the main app,
    then :func:`polish_command`."""
    command = typer.main.get_command_from_info(
        _command_info(name),
        pretty_exceptions_short=app.pretty_exceptions_short,
        rich_markup_mode=app.rich_markup_mode,
    )
    polish_command(name, command, _command())
    return command


class _Commands(LazyMapping[Any], MutableMapping[str, Any]):
    """The main group's ``commands``: every name of :data:`COMMANDS`, each built (and its module
    imported) on first lookup.  click and typer reach subcommands only through this mapping
    (``get_command``, ``list_commands``), so parsing, ``--help`` and completion see no
    difference."""

    def __init__(self) -> None:
        super().__init__(COMMANDS)

    def _make(self, name: str) -> Any:
        return _build(name)

    def __setitem__(self, name: str, command: Any) -> None:
        self._names[name] = None
        self._made[name] = command

    def __delitem__(self, name: str) -> None:
        del self._names[name]
        self._made.pop(name, None)


@functools.cache
def _command() -> Any:
    """The click command, built once: typer builds it anew from every command's signature on
    each call (~30 ms), which every run of ``main`` in one process (the test suite's thousands
    of in-process runs, embedding) paid again.  Its subcommands are built on demand."""
    command: Any = typer.main.get_command(app)  # a group: the app has a callback
    polish(command)  # plain metavars and examples in --help (brson.cli.help)
    command.commands = _Commands()
    command.invoke = functools.partial(_interruptible, command.invoke)
    return command


def _interruptible(invoke: Any, ctx: Any) -> Any:
    """A command run so that Ctrl-C reaches :func:`main` as an abort, which says so on stderr
    (typer would turn it into a silent exit 130: a listing cut short, say ``refs --json``'s
    unclosed list, would look like a finished one)."""
    try:
        return invoke(ctx)
    except KeyboardInterrupt:
        raise typer.Abort() from None


@functools.cache
def assembled() -> typer.Typer:
    """A typer app with every command registered (every command module imported): what the
    main app was before its commands were made lazy, for tools and tests that read typer's
    registrations (``typer.main.get_command(assembled())``)."""
    full = _new_app()
    full.registered_callback = app.registered_callback
    full.registered_commands = [_command_info(name) for name in COMMANDS]
    return full


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning every error into one line and an exit code."""
    args = sys.argv[1:] if argv is None else argv
    State.debug = "--debug" in args
    State.input = None
    State.quiet = State.verbose = State.data_on_stdout = False
    set_color(ColorMode.AUTO)  # the callback sets it again; --help and --version skip it
    try:
        # Not standalone, typer returns the code of a ``typer.Exit`` raised by a command.
        code = _command()(args=args, prog_name="brson", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_BAD_INPUT
    except BrsonError as exc:
        # The traceback with --debug, but the exit code stays 2: scripts that branch on it
        # (1 means findings) must not change meaning when someone turns on debugging.
        if State.debug:
            traceback.print_exc()
        if State.input is not None:
            exc.in_file(State.input)
        stderr.print(f"brson: {exc}", markup=False)
        return EXIT_BAD_INPUT
    except typer.Exit as exc:
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        stderr.print("brson: aborted", markup=False)
        return 130
    except _CLICK_ERROR as exc:  # usage errors: click prints them, exit code 2
        exc.show()
        return EXIT_BAD_INPUT
    except Exception as exc:
        if State.debug:
            traceback.print_exc()
        stderr.print(
            f"brson: internal error: {type(exc).__name__}: {exc} (run with --debug for the "
            "traceback, and please report it)",
            markup=False,
        )
        return EXIT_BAD_INPUT
    return code if isinstance(code, int) and not isinstance(code, bool) else 0
