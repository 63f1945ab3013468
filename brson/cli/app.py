"""The ``brson`` command: a typer app assembled from one module per command group.

Errors on bad input are one line on stderr and exit code 2; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated, Any

import typer

from brson.cli.common import EXIT_BAD_INPUT, State, stderr
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


@app.callback()
def _options(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    max_size: Annotated[
        int | None,
        typer.Option("--max-size", help="Largest decompressed document accepted, in bytes."),
    ] = None,
) -> None:
    State.debug = debug
    if max_size is not None:
        State.max_size = max_size


def _assemble() -> None:
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        for info in module.app.registered_commands:
            app.registered_commands.append(info)
        for group in module.app.registered_groups:
            app.registered_groups.append(group)


_assemble()


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning every error into one line and an exit code."""
    args = sys.argv[1:] if argv is None else argv
    State.debug = "--debug" in args
    try:
        # Not standalone, typer returns the code of a ``typer.Exit`` raised by a command.
        code = app(args=args, prog_name="brson", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_BAD_INPUT
    except BrsonError as exc:
        if State.debug:
            raise
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
            raise
        stderr.print(
            f"brson: internal error: {type(exc).__name__}: {exc} (run with --debug for the "
            "traceback, and please report it)",
            markup=False,
        )
        return EXIT_BAD_INPUT
    return code if isinstance(code, int) and not isinstance(code, bool) else 0


def run() -> None:
    sys.exit(main())
