"""The ``brson`` command: a typer app assembled from one module per command group.

Errors on bad input are one line on stderr and exit code 2; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import functools
import importlib
import signal
import sys
import traceback
from typing import Annotated, Any

import typer
import typer.main

from brson.cli.common import EXIT_BAD_INPUT, State, stderr, stdout
from brson.codecs import limits
from brson.errors import BrsonError

#: Command modules; each defines ``app`` (a typer.Typer) whose commands join the main app.
COMMAND_MODULES = [
    "brson.cli.archive",
    "brson.cli.tree",
    "brson.cli.extract",
    "brson.cli.package",
    "brson.cli.validate",
    "brson.cli.diff",
    "brson.cli.edit",
    "brson.cli.godot",
    "brson.cli.gltf",
    "brson.cli.view",
    "brson.cli.scan",
]

#: click's exception base, reached through typer's public BadParameter (typer vendors click).
_CLICK_ERROR: Any = typer.BadParameter.__mro__[2]

app = typer.Typer(
    name="brson",
    help="Read, write, validate, extract and convert Resonite data-tree archives.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


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
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    # Set on every run, not only when given: main() may run many times in one process (tests,
    # embedding), and a --max-size from an earlier run must not limit the next one.
    State.debug = debug
    State.max_size = limits.DEFAULT_MAX_SIZE if max_size is None else max_size


def _assemble() -> None:
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        for info in module.app.registered_commands:
            app.registered_commands.append(info)
        for group in module.app.registered_groups:
            app.registered_groups.append(group)


_assemble()


@functools.cache
def _command() -> Any:
    """The click command, built once: typer builds it anew from every command's signature on
    each call (~30 ms), which every run of ``main`` in one process (the test suite's thousands
    of in-process runs, embedding) paid again."""
    return typer.main.get_command(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning every error into one line and an exit code."""
    args = sys.argv[1:] if argv is None else argv
    State.debug = "--debug" in args
    State.input = None
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


def run() -> None:
    """The console command.  A reader that closes the pipe early (``brson tree X | head``)
    ends the process the Unix way, silently by SIGPIPE as ``cat`` does: click would otherwise
    exit 1, which here means "findings".  Outputs are written atomically, so nothing is lost."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
